//! The grants repository: token families, their refresh tokens, and revoked stateless tokens.

use async_trait::async_trait;
use serde::Deserialize;

use super::code_record::{grant_key, grant_of, grant_replaced, same_hash, CodeGranted, CodeRecord};
use super::{outcome, Outcome};
use crate::clock::Timestamp;
use crate::domain::grant::{Grant, RefreshRecord};
use crate::protocol::GrantId;
use crate::store::typed::Versioned;
use crate::store::{Backend, Cond, Key, Kind, Record, StoreError, Typed, Write};

/// The writes that create a grant and its first refresh token (a code redeemed, a device code
/// redeemed), both new, both kept until `expires_at`.
pub(crate) fn new_grant_writes(
    grant: &Grant,
    refresh_hash: &str,
    refresh: &RefreshRecord,
    expires_at: i64,
) -> Result<[Write; 2], StoreError> {
    Ok([
        Write::Put(
            Record::new(Key::new(Kind::Grant, &grant.id), grant, Some(expires_at))?,
            Cond::Absent,
        ),
        Write::Put(
            Record::new(
                Key::new(Kind::Refresh, refresh_hash),
                refresh,
                Some(expires_at),
            )?,
            Cond::Absent,
        ),
    ])
}

/// What a grant's record says of a refresh token.
enum Kept {
    /// It keeps the token: the token's record, and the grant.
    Found(RefreshRecord, Box<Grant>),
    /// It keeps its family's tokens, and this is none of them.
    Absent,
    /// Not here: tokens of this grant (if it is one) have records of their own.
    Elsewhere,
}

/// Whether the record at [`grant_key`] of `id` keeps the refresh token with this `hash`, or
/// one of a family whose key hashes to `family` ([`Grants::find_refresh_token`]).
fn kept_token(
    rec: &Record,
    id: &GrantId,
    hash: &str,
    family: Option<&str>,
) -> Result<Kept, StoreError> {
    let CodeRecord::Granted(g) = CodeRecord::of(rec)? else {
        return Ok(Kept::Elsewhere);
    };
    let g = *g;
    if g.grant.id != *id {
        return Ok(Kept::Elsewhere);
    }
    let generation = if same_hash(&g.refresh, hash) {
        g.refresh_generation
    } else if g.family.is_none() {
        // The third cut's shape: only the first token is kept here.
        return Ok(Kept::Elsewhere);
    } else if g.previous.as_deref().is_some_and(|p| same_hash(p, hash)) {
        g.refresh_generation.saturating_sub(1)
    } else if g
        .family
        .as_deref()
        .zip(family)
        .is_some_and(|(kept, presented)| same_hash(kept, presented))
    {
        crate::domain::grant::EARLIER_GENERATION
    } else {
        // A family's tokens have no records of their own.
        return Ok(Kept::Absent);
    };
    let r = RefreshRecord {
        grant_id: g.grant.id.clone(),
        client_id: g.grant.client_id.clone(),
        generation,
    };
    Ok(Kept::Found(r, Box::new(g.grant)))
}

/// Grants (token families), their refresh tokens, and revoked stateless tokens.
#[async_trait]
pub trait Grants: Backend {
    /// The live grant `id`, with its record.
    async fn grant(
        &self,
        id: &GrantId,
        now: Timestamp,
    ) -> Result<Option<Versioned<Grant>>, StoreError> {
        let Some(record) = self.get(&grant_key(id), now).await? else {
            return Ok(None);
        };
        Ok(grant_of(&record)?.map(|value| Versioned { value, record }))
    }

    /// The refresh token with this hash (a token kept in its own record).
    async fn refresh_token(
        &self,
        hash: &str,
        now: Timestamp,
    ) -> Result<Option<RefreshRecord>, StoreError> {
        self.find_refresh_token(hash, None, None, now).await
    }

    /// The refresh token with this hash, `grant` the grant it says keeps it and `family` the
    /// hash of the family key it carries (`domain::grant::RefreshLocator`). A grant from a code
    /// exchange keeps its tokens in its record (one read): there the token counts when its
    /// hash is the current one's or the one before (generations as kept), or when its family
    /// key's hash is the grant's (`domain::grant::EARLIER_GENERATION`: an earlier token,
    /// presented again). Any other is looked up by its hash, in a record of its own.
    async fn find_refresh_token(
        &self,
        hash: &str,
        grant: Option<&GrantId>,
        family: Option<&str>,
        now: Timestamp,
    ) -> Result<Option<RefreshRecord>, StoreError> {
        Ok(self
            .refresh_token_with_grant(hash, grant, family, now)
            .await?
            .map(|(r, _)| r))
    }

    /// [`Self::find_refresh_token`], with the grant's record when it keeps the token (then
    /// read once for both, `None` otherwise).
    async fn refresh_token_with_grant(
        &self,
        hash: &str,
        grant: Option<&GrantId>,
        family: Option<&str>,
        now: Timestamp,
    ) -> Result<Option<(RefreshRecord, Option<Versioned<Grant>>)>, StoreError> {
        if let Some(id) = grant.filter(|id| grant_key(id).kind == Kind::Code) {
            if let Some(record) = self.get(&grant_key(id), now).await? {
                match kept_token(&record, id, hash, family)? {
                    Kept::Found(r, value) => {
                        let value = *value;
                        return Ok(Some((r, Some(Versioned { value, record }))));
                    }
                    Kept::Absent => return Ok(None),
                    Kept::Elsewhere => {}
                }
            }
        }
        Ok(self
            .read::<RefreshRecord>(Kind::Refresh, hash, now)
            .await?
            .map(|r| (r.value, None)))
    }

    /// Rotates the grant to `next` (its next generation) with the new refresh token
    /// (`refresh_hash`), living until `expires_at`. A grant whose record keeps its family
    /// (every code exchange's since issue 27) is ONE conditional write of that record (a
    /// transaction of one item, so that a retry after a lost reply is idempotent), which
    /// then keeps the new token as the current one and the current one as the one before; the
    /// new token must carry the grant's id and family key
    /// (`domain::grant::new_refresh_token`). Any other grant is written back with the new
    /// token in a record of its own (`refresh`), in one transaction. [`Outcome::Lost`]: the
    /// grant changed meanwhile (a concurrent rotation or a revocation).
    async fn rotate_grant(
        &self,
        old: &Versioned<Grant>,
        next: &Grant,
        refresh_hash: &str,
        refresh: &RefreshRecord,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<Outcome, StoreError> {
        if old.record.key.kind == Kind::Code {
            // What the record keeps besides the grant (read without decoding the grant again).
            #[derive(Deserialize)]
            struct Keeps {
                refresh: String,
                family: Option<String>,
            }
            let keeps = old.record.value::<Keeps>()?;
            if keeps.family.is_some() {
                let mut record = old.record.next(&CodeGranted {
                    grant: next.clone(),
                    refresh: refresh_hash.to_owned(),
                    refresh_generation: next.generation,
                    previous: Some(keeps.refresh),
                    family: keeps.family,
                })?;
                record.expires_at = Some(expires_at);
                // One write, sent as a transaction of one: DynamoDB answers the SDK's retry of
                // a committed transaction as committed (its idempotency token), so a reply
                // lost on the way cannot lose the new refresh token (a plain put's retry would
                // fail its condition). The embedded store commits either the same way.
                let write = Write::Put(record, Cond::Version(old.record.version));
                return outcome(self.transact(vec![write], now).await);
            }
        }
        let grant_record = grant_replaced(&old.record, next, Some(expires_at))?;
        let writes = vec![
            Write::Put(grant_record, Cond::Version(old.record.version)),
            Write::Put(
                Record::new(
                    Key::new(Kind::Refresh, refresh_hash),
                    refresh,
                    Some(expires_at),
                )?,
                Cond::Absent,
            ),
        ];
        outcome(self.transact(writes, now).await)
    }

    /// Revokes a grant (every token issued from it). Idempotent; a concurrent change is
    /// retried.
    async fn revoke_grant(&self, id: &GrantId, now: Timestamp) -> Result<(), StoreError> {
        for _ in 0..3 {
            let Some(old) = self.grant(id, now).await? else {
                return Ok(());
            };
            if old.value.revoked {
                return Ok(());
            }
            let revoked = Grant {
                revoked: true,
                ..old.value.clone()
            };
            let record = grant_replaced(&old.record, &revoked, None)?;
            match self
                .put(record, Cond::Version(old.record.version), now)
                .await
            {
                Err(StoreError::ConditionFailed) => continue,
                done => return done,
            }
        }
        Err(StoreError::Unavailable(
            format!("{} kept changing", grant_key(id).pk()).into(),
        ))
    }

    /// Marks a stateless token's grant revoked until `expires_at` (when the token would have
    /// expired anyway).
    async fn mark_token_revoked(
        &self,
        grant_id: &GrantId,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let marker = Record::new(Key::new(Kind::Revoked, grant_id), &1, Some(expires_at))?;
        self.put(marker, Cond::Any, now).await
    }

    /// Revokes every grant of the SSO session `sid`, offline ones included (which outlive
    /// their session), until `expires_at` (when the last of them would have expired): one
    /// marker, read by [`Self::session_grants_revoked`] (issue 24, "this wasn't me").
    async fn revoke_session_grants(
        &self,
        sid: &str,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let marker = Record::new(
            Key::new(Kind::Revoked, format!("sid:{sid}")),
            &1,
            Some(expires_at),
        )?;
        self.put(marker, Cond::Any, now).await
    }

    /// Whether the grants of the SSO session `sid` were revoked.
    async fn session_grants_revoked(&self, sid: &str, now: Timestamp) -> Result<bool, StoreError> {
        Ok(self
            .get(&Key::new(Kind::Revoked, format!("sid:{sid}")), now)
            .await?
            .is_some())
    }

    /// Whether a stateless token's grant was revoked.
    async fn token_revoked(&self, grant_id: &GrantId, now: Timestamp) -> Result<bool, StoreError> {
        Ok(self
            .get(&Key::new(Kind::Revoked, grant_id), now)
            .await?
            .is_some())
    }
}

impl<B: Backend + ?Sized> Grants for B {}
