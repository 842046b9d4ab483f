//! The authorization codes repository: a code read for its checks, and redeemed as its grant.

use async_trait::async_trait;

use super::code_record::{code_grant_id, put_code_record, CodeGranted, CodeRecord, CodeUsed};
use super::Outcome;
use crate::clock::Timestamp;
use crate::domain::grant::Grant;
use crate::domain::login::AuthCode;
use crate::protocol::{CodeHash, GrantId};
use crate::store::{Backend, Cond, Key, Kind, Record, StoreError, Typed};

/// A live code, read for its checks before it is redeemed.
#[derive(Debug, Clone)]
pub struct PendingCode {
    pub code: AuthCode,
    hash: CodeHash,
    version: u64,
    expires_at: Option<i64>,
}

impl PendingCode {
    /// When the code's record expires.
    pub fn expires_at(&self) -> Option<i64> {
        self.expires_at
    }

    /// The id of the grant this code is redeemed as ([`code_grant_id`]).
    pub fn grant_id(&self) -> GrantId {
        code_grant_id(&self.hash)
    }
}

/// Authorization codes and the grants they turn into.
#[async_trait]
pub trait Codes: Backend {
    /// The live code with this hash.
    async fn pending_code(
        &self,
        code_hash: &CodeHash,
        now: Timestamp,
    ) -> Result<Option<PendingCode>, StoreError> {
        let Some(rec) = self.get(&Key::new(Kind::Code, code_hash), now).await? else {
            return Ok(None);
        };
        Ok(match CodeRecord::of(&rec)? {
            CodeRecord::Pending(code) => Some(PendingCode {
                code: *code,
                hash: code_hash.clone(),
                version: rec.version,
                expires_at: rec.expires_at,
            }),
            CodeRecord::Used(_) | CodeRecord::Granted(_) => None,
        })
    }

    /// Burns a code presented wrongly (it may be known to an attacker); best effort.
    async fn burn_code(&self, c: &PendingCode, now: Timestamp) {
        let key = Key::new(Kind::Code, &c.hash);
        if let Err(e) = self.delete(&key, Cond::Version(c.version), now).await {
            tracing::debug!(error = %e, "burning a code failed (it expires anyway)");
        }
    }

    /// Redeems the code: the grant (whose id must be `PendingCode::grant_id`) and its first
    /// refresh token (`refresh_hash`, generation 1) with its family key's hash (`family`,
    /// `domain::grant::family_hash`) become the code's record, by one conditional write that
    /// spends the code and stores them (issue 27), kept until `expires_at`.
    /// [`Outcome::Lost`]: redeemed already.
    async fn redeem_code(
        &self,
        c: &PendingCode,
        grant: &Grant,
        refresh_hash: &str,
        family: &str,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<Outcome, StoreError> {
        if grant.id != c.grant_id() {
            return Err(StoreError::Corrupt(
                format!("a code is redeemed as {}, not {}", c.grant_id(), grant.id).into(),
            ));
        }
        let granted = CodeGranted {
            grant: grant.clone(),
            refresh: refresh_hash.to_owned(),
            refresh_generation: grant.generation,
            previous: None,
            family: Some(family.to_owned()),
        };
        let mut spent = Record::new(Key::new(Kind::Code, &c.hash), &granted, Some(expires_at))?;
        spent.version = c.version + 1;
        // Read on a failed condition only (a replayed code), so that a lost answer does not
        // revoke the grant just written.
        put_code_record(self, spent, c.version, &grant.id, refresh_hash, now).await
    }

    /// The grant a redeemed code became, if it was redeemed (and that grant may still live).
    async fn redeemed_as(
        &self,
        code_hash: &CodeHash,
        now: Timestamp,
    ) -> Result<Option<GrantId>, StoreError> {
        if let Some(rec) = self.get(&Key::new(Kind::Code, code_hash), now).await? {
            match CodeRecord::of(&rec)? {
                CodeRecord::Used(u) => return Ok(Some(u.grant_id)),
                CodeRecord::Granted(g) => return Ok(Some(g.grant.id)),
                CodeRecord::Pending(_) => {}
            }
        }
        Ok(self
            .read::<CodeUsed>(Kind::CodeUsed, code_hash, now)
            .await?
            .map(|u| u.value.grant_id))
    }
}

impl<B: Backend + ?Sized> Codes for B {}
