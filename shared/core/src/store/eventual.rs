//! Reads at the eventually consistent price: a view of a store whose reads are
//! [`Backend::get_eventual`], for the typed reads ([`super::Typed`], [`super::QrLogins`], ...)
//! a request may make without the last second's writes. A scan reads the identity its proof
//! names, the client and the identity's recent logins this way (the decision reads the
//! identity, whose key it verifies, again consistently; the client and the recent logins it
//! reads this way too), and the login itself first this way (its write is conditional on the
//! version it read: a stale read loses the write and the scan reads again, consistently).

use async_trait::async_trait;

use super::{Backend, Cond, Key, Kind, Record, StoreError, Write};
use crate::clock::Timestamp;

/// `store`, with every read eventually consistent; writes go through unchanged.
pub struct Eventual<'a>(pub &'a dyn Backend);

#[async_trait]
impl Backend for Eventual<'_> {
    async fn get(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        self.0.get_eventual(key, now).await
    }
    async fn put(&self, record: Record, cond: Cond, now: Timestamp) -> Result<(), StoreError> {
        self.0.put(record, cond, now).await
    }
    async fn delete(&self, key: &Key, cond: Cond, now: Timestamp) -> Result<(), StoreError> {
        self.0.delete(key, cond, now).await
    }
    async fn consume(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        self.0.consume(key, now).await
    }
    async fn transact(&self, writes: Vec<Write>, now: Timestamp) -> Result<(), StoreError> {
        self.0.transact(writes, now).await
    }
    async fn list(&self, kind: Kind, now: Timestamp) -> Result<Vec<Record>, StoreError> {
        self.0.list(kind, now).await
    }
    async fn incr(&self, key: &Key, expires_at: i64, now: Timestamp) -> Result<u64, StoreError> {
        self.0.incr(key, expires_at, now).await
    }
    async fn purge_expired(&self, now: Timestamp) -> Result<usize, StoreError> {
        self.0.purge_expired(now).await
    }
}
