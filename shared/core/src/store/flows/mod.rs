//! Repositories of the login and token flows, with intent-named methods. This is the only
//! place above the adapters that builds records, keys, versions and conditional writes; the
//! use cases above say what happens ("redeem this code", "record this decision") and get back
//! what came of it.
//!
//! Every single-use thing is spent by one conditional write, never read-then-delete. On the
//! login path that write stands alone, not in a transaction (DynamoDB bills a transaction's
//! writes twice): what it pays for (a code, an SSO session) is written first under new random
//! keys that nobody knows until the spend succeeds and the answer hands them out; a spend that
//! loses or fails deletes them again (best effort: unreachable anyway, they expire; a
//! remembered consent written with them is deleted too). The code exchange writes nothing
//! first: the grant and its first refresh token ARE the write that spends the code (they
//! become the code's record, [`Codes::redeem_code`]).

mod code_record;
mod codes;
mod counters;
mod grants;
mod qr_logins;
mod sso_sessions;

// The adapter suite names these two.
#[cfg(any(test, feature = "test-support"))]
pub(crate) use code_record::code_grant_id;
pub use codes::Codes;
#[cfg(any(test, feature = "test-support"))]
pub(crate) use codes::PendingCode;
pub use counters::Counters;
pub(crate) use grants::new_grant_writes;
pub use grants::Grants;
pub(crate) use qr_logins::CodeIssue;
pub use qr_logins::QrLogins;
pub use sso_sessions::SsoSessions;

use super::{Cond, Key, Kind, Record, StoreError, Write};

/// What came of a single-use or compare-and-swap write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Written.
    Done,
    /// Someone else got there first (the code was redeemed, the login decided, the refresh
    /// token rotated); nothing was written.
    Lost,
}

fn outcome(r: Result<(), StoreError>) -> Result<Outcome, StoreError> {
    match r {
        Ok(()) => Ok(Outcome::Done),
        Err(StoreError::ConditionFailed) => Ok(Outcome::Lost),
        Err(e) => Err(e),
    }
}

pub(crate) fn jti_key(sub: &str, jti: &str) -> Key {
    Key::new(Kind::Jti, format!("{sub}:{jti}"))
}

/// The record that spends a device-signed request id: created once, kept until the JWS would
/// have expired.
fn jti_record(sub: &str, jti: &str, expires_at: i64) -> Result<Record, StoreError> {
    Record::new(jti_key(sub, jti), &1, Some(expires_at))
}

/// [`jti_record`] as a transaction's write.
pub(crate) fn jti_write(sub: &str, jti: &str, expires_at: i64) -> Result<Write, StoreError> {
    Ok(Write::Put(jti_record(sub, jti, expires_at)?, Cond::Absent))
}
