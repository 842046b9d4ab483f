//! A store that fails on demand: wraps another adapter and answers
//! [`StoreError::Unavailable`] to reads and/or writes while told to. Used by the fault-injection
//! tests (docs/requirements.md F1, F2) for every adapter alike.
// Test support (the `test-support` feature): the suite's functions and the doubles' fields
// are named for what they hold; the module documents them, not each item.
#![allow(missing_docs)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use async_trait::async_trait;

use super::{Backend, Cond, Key, Kind, Record, StoreError, Write};
use crate::clock::Timestamp;

/// The switches of a [`FaultyStore`].
#[derive(Debug, Default)]
pub struct Faults {
    pub reads: AtomicBool,
    pub writes: AtomicBool,
    /// Writes attempted so far (every put, delete, consume, transaction and counter).
    pub writes_seen: AtomicUsize,
    /// Fail only the write with this number (1-based; 0: none).
    pub fail_write_number: AtomicUsize,
    /// The kind of record the last failed write was for (a transaction: its first write's).
    pub last_failed: std::sync::Mutex<Option<Kind>>,
}

impl Faults {
    /// Fails the `n`th write from now on (1 = the next one), and only it.
    pub fn fail_nth_write(&self, n: usize) {
        let seen = self.writes_seen.load(Ordering::SeqCst);
        self.fail_write_number.store(seen + n, Ordering::SeqCst);
    }

    pub fn set(&self, reads: bool, writes: bool) {
        self.reads.store(reads, Ordering::SeqCst);
        self.writes.store(writes, Ordering::SeqCst);
    }
}

/// `inner`, failing while `faults` say so.
pub struct FaultyStore {
    pub inner: Arc<dyn Backend>,
    pub faults: Arc<Faults>,
}

fn down() -> StoreError {
    StoreError::Unavailable("injected fault".into())
}

impl FaultyStore {
    fn read(&self) -> Result<(), StoreError> {
        if self.faults.reads.load(Ordering::SeqCst) {
            Err(down())
        } else {
            Ok(())
        }
    }
    fn write(&self, kind: Option<Kind>) -> Result<(), StoreError> {
        let n = self.faults.writes_seen.fetch_add(1, Ordering::SeqCst) + 1;
        if self.faults.writes.load(Ordering::SeqCst)
            || self.faults.fail_write_number.load(Ordering::SeqCst) == n
        {
            if let Ok(mut last) = self.faults.last_failed.lock() {
                *last = kind;
            }
            Err(down())
        } else {
            Ok(())
        }
    }
}

#[async_trait]
impl Backend for FaultyStore {
    async fn get(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        self.read()?;
        self.inner.get(key, now).await
    }
    async fn get_eventual(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        self.read()?;
        self.inner.get_eventual(key, now).await
    }
    async fn put(&self, record: Record, cond: Cond, now: Timestamp) -> Result<(), StoreError> {
        self.write(Some(record.key.kind))?;
        self.inner.put(record, cond, now).await
    }
    async fn delete(&self, key: &Key, cond: Cond, now: Timestamp) -> Result<(), StoreError> {
        self.write(Some(key.kind))?;
        self.inner.delete(key, cond, now).await
    }
    async fn consume(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        self.write(Some(key.kind))?;
        self.inner.consume(key, now).await
    }
    async fn transact(&self, writes: Vec<Write>, now: Timestamp) -> Result<(), StoreError> {
        let kind = writes.first().map(|w| match w {
            Write::Put(r, _) => r.key.kind,
            Write::Delete(k, _) | Write::Check(k, _) => k.kind,
        });
        self.write(kind)?;
        self.inner.transact(writes, now).await
    }
    async fn list(&self, kind: Kind, now: Timestamp) -> Result<Vec<Record>, StoreError> {
        self.read()?;
        self.inner.list(kind, now).await
    }
    async fn incr(&self, key: &Key, expires_at: i64, now: Timestamp) -> Result<u64, StoreError> {
        self.write(Some(key.kind))?;
        self.inner.incr(key, expires_at, now).await
    }
}
