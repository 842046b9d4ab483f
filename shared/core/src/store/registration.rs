//! Initial access tokens of dynamic client registration (RFC 7591 §3), over any [`Backend`]:
//! stored under the token's hash, expiring with it, each use spent by one conditional write.

use async_trait::async_trait;

use super::{Backend, Cond, Key, Kind, Record, StoreError};
use crate::clock::Timestamp;
use crate::domain::registration::InitialAccessToken;

/// How many times a use is tried again when another request spent one meanwhile.
const ATTEMPTS: usize = 8;

/// Initial access tokens for dynamic client registration (RFC 7591), by hash.
#[async_trait]
pub trait InitialAccessTokens: Send + Sync {
    /// Stores a new token under its `hash` until `expires_at` (Unix seconds).
    async fn create_initial_access_token(
        &self,
        hash: &str,
        token: &InitialAccessToken,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<(), StoreError>;

    /// The live token under `hash`, if any (an expired one is absent).
    async fn initial_access_token(
        &self,
        hash: &str,
        now: Timestamp,
    ) -> Result<Option<InitialAccessToken>, StoreError>;

    /// Spends one use of the token under `hash`: `true` when a live token had one left. Each
    /// use is one conditional write on the version read (the last use deletes the token), so
    /// of concurrent callers no more succeed than there were uses.
    async fn spend_initial_access_token(
        &self,
        hash: &str,
        now: Timestamp,
    ) -> Result<bool, StoreError>;
}

fn key(hash: &str) -> Key {
    Key::new(Kind::InitialAccessToken, hash)
}

#[async_trait]
impl<B: Backend + ?Sized> InitialAccessTokens for B {
    async fn create_initial_access_token(
        &self,
        hash: &str,
        token: &InitialAccessToken,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.put(
            Record::new(key(hash), token, Some(expires_at))?,
            Cond::Absent,
            now,
        )
        .await
    }

    async fn initial_access_token(
        &self,
        hash: &str,
        now: Timestamp,
    ) -> Result<Option<InitialAccessToken>, StoreError> {
        match self.get(&key(hash), now).await? {
            Some(r) => Ok(Some(r.value()?)),
            None => Ok(None),
        }
    }

    async fn spend_initial_access_token(
        &self,
        hash: &str,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        for _ in 0..ATTEMPTS {
            let Some(r) = self.get(&key(hash), now).await? else {
                return Ok(false);
            };
            let t: InitialAccessToken = r.value()?;
            let written = if t.uses_left <= 1 {
                self.delete(&r.key, Cond::Version(r.version), now).await
            } else {
                let next = InitialAccessToken {
                    uses_left: t.uses_left - 1,
                    ..t
                };
                self.put(r.next(&next)?, Cond::Version(r.version), now)
                    .await
            };
            match written {
                Ok(()) => return Ok(true),
                Err(StoreError::ConditionFailed) => continue,
                Err(e) => return Err(e),
            }
        }
        Err(StoreError::Unavailable(
            "an initial access token kept changing".into(),
        ))
    }
}
