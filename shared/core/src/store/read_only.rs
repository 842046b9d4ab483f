//! A store that refuses writes: what the Lambda functions of read-only handlers run on, to match
//! their IAM policy (`dynamodb:GetItem` and `Query` only). A write is a bug; it is logged and
//! answered as an outage, never carried out.

use std::sync::Arc;

use async_trait::async_trait;

use super::{Backend, Cond, Key, Kind, Record, StoreError, Write};
use crate::clock::Timestamp;

/// Reads from the inner store; every write fails.
pub struct ReadOnly(pub Arc<dyn Backend>);

fn refused(op: &'static str) -> StoreError {
    tracing::error!(op, "a read-only function tried to write");
    StoreError::Unavailable(format!("{op}: this function is read-only").into())
}

#[async_trait]
impl Backend for ReadOnly {
    async fn get(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        self.0.get(key, now).await
    }
    async fn get_eventual(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        self.0.get_eventual(key, now).await
    }
    async fn put(&self, _: Record, _: Cond, _: Timestamp) -> Result<(), StoreError> {
        Err(refused("put"))
    }
    async fn delete(&self, _: &Key, _: Cond, _: Timestamp) -> Result<(), StoreError> {
        Err(refused("delete"))
    }
    async fn consume(&self, _: &Key, _: Timestamp) -> Result<Option<Record>, StoreError> {
        Err(refused("consume"))
    }
    async fn transact(&self, _: Vec<Write>, _: Timestamp) -> Result<(), StoreError> {
        Err(refused("transact"))
    }
    async fn list(&self, kind: Kind, now: Timestamp) -> Result<Vec<Record>, StoreError> {
        self.0.list(kind, now).await
    }
    async fn incr(&self, _: &Key, _: i64, _: Timestamp) -> Result<u64, StoreError> {
        Err(refused("incr"))
    }
}
