//! DPoP proofs (RFC 9449 §11.1): each proof's `jti` is accepted once, per key, by one
//! conditional write that lasts as long as the proof could still be accepted.

use async_trait::async_trait;

use super::{Backend, Cond, Key, Kind, Outcome, Record, StoreError};
use crate::clock::Timestamp;

/// The replay cache of DPoP proofs.
#[async_trait]
pub trait DpopProofs: Send + Sync {
    /// Spends the proof `jti` of the key `jkt` until `expires_at`: [`Outcome::Lost`] when it
    /// was used already.
    async fn spend_dpop_proof(
        &self,
        jkt: &str,
        jti: &str,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<Outcome, StoreError>;
}

#[async_trait]
impl<B: Backend + ?Sized> DpopProofs for B {
    async fn spend_dpop_proof(
        &self,
        jkt: &str,
        jti: &str,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<Outcome, StoreError> {
        // Its own key space beside the app's and the client assertions' (`jti#dpop:...`);
        // hashed, so a long jti makes no long key.
        let id = crate::domain::login::hash(&format!("{jkt}:{jti}"));
        let key = Key::new(Kind::Jti, format!("dpop:{id}"));
        match self
            .put(Record::new(key, &1, Some(expires_at))?, Cond::Absent, now)
            .await
        {
            Ok(()) => Ok(Outcome::Done),
            Err(StoreError::ConditionFailed) => Ok(Outcome::Lost),
            Err(e) => Err(e),
        }
    }
}
