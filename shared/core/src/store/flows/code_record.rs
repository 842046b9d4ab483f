//! The shapes of a code's record: the code while pending, the grant it becomes once
//! redeemed ([`super::Codes::redeem_code`]); read by the code and grant repositories.

use serde::{Deserialize, Serialize};

use super::{outcome, Outcome};
use crate::clock::Timestamp;
use crate::domain::grant::Grant;
use crate::domain::login::AuthCode;
use crate::protocol::{CodeHash, GrantId};
use crate::store::{Backend, Cond, Key, Kind, Record, StoreError};

/// What a redeemed code's record becomes, so a second redemption revokes the first one's
/// grant (docs/requirements.md T3). It replaces the code in its own record (one write where a
/// delete and a second record were two: the code exchange is the store's busiest write).
/// Records of kind `code_used` written before that change are still read.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CodeUsed {
    pub(super) grant_id: GrantId,
}

/// What a redeemed code's record becomes since issue 27's third cut: the grant itself and its
/// refresh token, so the code exchange is ONE conditional write (it was three: the grant, the
/// refresh token, the code turned into [`CodeUsed`]). The grant's id is [`code_grant_id`] of
/// the code's hash, so the grant is found by its id in one read; its refresh tokens carry that
/// id (`domain::grant::refresh_token_locator`) and are recognised by their hashes kept here.
///
/// Two shapes. With `family` (issue 27's fourth cut, every code exchange since): `refresh` is
/// the CURRENT token's hash and `previous` the one before it (the grace period after a
/// rotation), and `family` the hash of the key every token of the grant carries, which
/// recognises any earlier token presented again (a reuse); a rotation is one conditional
/// write of this record, no token has a record of its own. Without `family` (written by the
/// third cut): `refresh` is the grant's FIRST token, kept so presenting it again after a
/// rotation is still seen as a reuse; rotations write the grant back here and their refresh
/// tokens as records of their own.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CodeGranted {
    pub(super) grant: Grant,
    /// The SHA-256 of the grant's current refresh token (with `family`), or of its first one.
    pub(super) refresh: String,
    /// That token's generation.
    pub(super) refresh_generation: u64,
    /// The hash of the token before the current one (with `family`, after a rotation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) previous: Option<String>,
    /// The hash of the family key (`domain::grant::family_hash`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) family: Option<String>,
}

/// Equal hashes, compared in constant time.
pub(super) fn same_hash(a: &str, b: &str) -> bool {
    aws_lc_rs::constant_time::verify_slices_are_equal(a.as_bytes(), b.as_bytes()).is_ok()
}

/// Puts `record`, a code's record keeping grant `grant` with `refresh_hash` as its current
/// refresh token, on the condition that the stored record is still at `version` (the code
/// exchange). [`Outcome::Lost`]: it changed meanwhile.
///
/// A put whose reply was lost is the caller's own: DynamoDB's SDK retries a put whose answer
/// did not arrive, and the retry of a put that landed fails its condition. So on a failed
/// condition only, the record is read once, and taken as this write if it is at the next
/// version and keeps `refresh_hash`, 256 random bits nobody else's write can hold.
pub(super) async fn put_code_record<B: Backend + ?Sized>(
    s: &B,
    record: Record,
    version: u64,
    grant: &GrantId,
    refresh_hash: &str,
    now: Timestamp,
) -> Result<Outcome, StoreError> {
    let key = record.key.clone();
    match s.put(record, Cond::Version(version), now).await {
        Err(StoreError::ConditionFailed) => {
            let ours = match s.get(&key, now).await? {
                Some(rec) if rec.version == version + 1 => match CodeRecord::of(&rec)? {
                    CodeRecord::Granted(g) => {
                        g.grant.id == *grant && same_hash(&g.refresh, refresh_hash)
                    }
                    _ => false,
                },
                _ => false,
            };
            Ok(if ours { Outcome::Done } else { Outcome::Lost })
        }
        other => outcome(other),
    }
}

/// A code's record: the code while pending, the grant it became once redeemed.
pub(super) enum CodeRecord {
    Pending(Box<AuthCode>),
    /// Redeemed before issue 27's third cut: the grant's id only (the grant has its record).
    Used(CodeUsed),
    Granted(Box<CodeGranted>),
}

impl CodeRecord {
    pub(super) fn of(rec: &Record) -> Result<Self, StoreError> {
        // The shapes are disjoint (each of the two redeemed ones denies unknown fields, and has
        // none of a code's). The shape its first field names is tried first, as written here:
        // a failed attempt costs an error's allocations, on the busiest reads there are.
        let body = rec.body.as_str();
        if body.starts_with(r#"{"grant":"#) {
            if let Ok(granted) = serde_json::from_str::<CodeGranted>(body) {
                return Ok(Self::Granted(Box::new(granted)));
            }
        } else if !body.starts_with(r#"{"grant_id":"#) {
            if let Ok(code) = serde_json::from_str::<AuthCode>(body) {
                return Ok(Self::Pending(Box::new(code)));
            }
        }
        if let Ok(used) = rec.value::<CodeUsed>() {
            return Ok(Self::Used(used));
        }
        if let Ok(granted) = rec.value::<CodeGranted>() {
            return Ok(Self::Granted(Box::new(granted)));
        }
        rec.value().map(|c| Self::Pending(Box::new(c)))
    }
}

/// The prefix of a grant id that names the code the grant was redeemed from (never in a
/// random id: those are base64url).
const CODE_GRANT_PREFIX: &str = "c.";

/// The id of the grant the code with this hash is redeemed as: its record is the code's.
pub(crate) fn code_grant_id(code_hash: &CodeHash) -> GrantId {
    GrantId::new(format!("{CODE_GRANT_PREFIX}{}", code_hash.as_str()))
}

/// The key of the record that holds the grant `id`: the code's, for a grant redeemed from a
/// code since issue 27's third cut; the grant's own otherwise.
pub(super) fn grant_key(id: &GrantId) -> Key {
    match id.as_str().strip_prefix(CODE_GRANT_PREFIX) {
        Some(code_hash) => Key::new(Kind::Code, code_hash),
        None => Key::new(Kind::Grant, id),
    }
}

/// The grant a record at [`grant_key`] holds, if it holds one.
pub(super) fn grant_of(rec: &Record) -> Result<Option<Grant>, StoreError> {
    if rec.key.kind != Kind::Code {
        return rec.value().map(Some);
    }
    Ok(match CodeRecord::of(rec)? {
        CodeRecord::Granted(g) => Some(g.grant),
        _ => None,
    })
}

/// The record at [`grant_key`] with its grant replaced by `next`, living until `expires_at`
/// (a code's record keeps its refresh tokens' hashes).
pub(super) fn grant_replaced(
    old: &Record,
    next: &Grant,
    expires_at: Option<i64>,
) -> Result<Record, StoreError> {
    let mut record = if old.key.kind == Kind::Code {
        let CodeRecord::Granted(g) = CodeRecord::of(old)? else {
            return Err(StoreError::Corrupt(
                format!("{} holds no grant", old.key.pk()).into(),
            ));
        };
        old.next(&CodeGranted {
            grant: next.clone(),
            ..*g
        })?
    } else {
        old.next(next)?
    };
    if expires_at.is_some() {
        record.expires_at = expires_at;
    }
    Ok(record)
}
