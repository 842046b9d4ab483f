//! Pushed authorization requests (RFC 9126): stored under their `request_uri`'s hash until
//! used once (one atomic consume) or expired.

use async_trait::async_trait;

use super::{Backend, Cond, Key, Kind, Record, StoreError};
use crate::clock::Timestamp;
use crate::domain::pushed::PushedRequest;

/// Storing and spending pushed authorization requests.
#[async_trait]
pub trait PushedRequests: Send + Sync {
    /// Stores `request` under `hash` until `expires_at`.
    async fn push_request(
        &self,
        hash: &str,
        request: &PushedRequest,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<(), StoreError>;
    /// The live request under `hash`, spent by this read: a second read finds nothing.
    async fn take_pushed_request(
        &self,
        hash: &str,
        now: Timestamp,
    ) -> Result<Option<PushedRequest>, StoreError>;
}

#[async_trait]
impl<B: Backend + ?Sized> PushedRequests for B {
    async fn push_request(
        &self,
        hash: &str,
        request: &PushedRequest,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let record = Record::new(
            Key::new(Kind::PushedRequest, hash),
            request,
            Some(expires_at),
        )?;
        self.put(record, Cond::Absent, now).await
    }

    async fn take_pushed_request(
        &self,
        hash: &str,
        now: Timestamp,
    ) -> Result<Option<PushedRequest>, StoreError> {
        match self
            .consume(&Key::new(Kind::PushedRequest, hash), now)
            .await?
        {
            Some(r) => Ok(Some(r.value()?)),
            None => Ok(None),
        }
    }
}
