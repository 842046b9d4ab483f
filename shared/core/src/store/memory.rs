//! An in-memory adapter for unit tests of the layers above the store: the same rules as the
//! real adapters (expiry on every read, conditional writes, single-use consume, all-or-nothing
//! transactions), held to them by the adapter suite. Never used by a running service.

use std::collections::HashMap;
use std::sync::Mutex;

use async_trait::async_trait;

use super::{Backend, Cond, Key, Kind, Record, StoreError, Write};
use crate::clock::Timestamp;

/// Records in a map behind one lock (tests only).
#[derive(Debug, Default)]
pub struct MemoryStore {
    records: Mutex<HashMap<String, Record>>,
}

fn poisoned() -> StoreError {
    StoreError::Unavailable("memory store lock poisoned".into())
}

fn holds(map: &HashMap<String, Record>, key: &Key, cond: Cond, now: Timestamp) -> bool {
    let live = map.get(&key.pk()).filter(|r| r.is_live(now));
    match cond {
        Cond::Any => true,
        Cond::Absent => live.is_none(),
        Cond::Version(v) => live.is_some_and(|r| r.version == v),
    }
}

impl MemoryStore {
    /// How many records are held, expired ones included (tests of purging).
    pub fn len(&self) -> usize {
        self.records.lock().map(|m| m.len()).unwrap_or(0)
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[async_trait]
impl Backend for MemoryStore {
    async fn get(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        let map = self.records.lock().map_err(|_| poisoned())?;
        Ok(map.get(&key.pk()).filter(|r| r.is_live(now)).cloned())
    }

    async fn put(&self, record: Record, cond: Cond, now: Timestamp) -> Result<(), StoreError> {
        let mut map = self.records.lock().map_err(|_| poisoned())?;
        if !holds(&map, &record.key, cond, now) {
            return Err(StoreError::ConditionFailed);
        }
        map.insert(record.key.pk(), record);
        Ok(())
    }

    async fn delete(&self, key: &Key, cond: Cond, now: Timestamp) -> Result<(), StoreError> {
        let mut map = self.records.lock().map_err(|_| poisoned())?;
        if !holds(&map, key, cond, now) {
            return Err(StoreError::ConditionFailed);
        }
        map.remove(&key.pk());
        Ok(())
    }

    async fn consume(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        let mut map = self.records.lock().map_err(|_| poisoned())?;
        match map.get(&key.pk()) {
            Some(r) if r.is_live(now) => Ok(map.remove(&key.pk())),
            _ => Ok(None),
        }
    }

    async fn transact(&self, writes: Vec<Write>, now: Timestamp) -> Result<(), StoreError> {
        let mut map = self.records.lock().map_err(|_| poisoned())?;
        let all_hold = writes.iter().all(|w| match w {
            Write::Put(r, c) => holds(&map, &r.key, *c, now),
            Write::Delete(k, c) | Write::Check(k, c) => holds(&map, k, *c, now),
        });
        if !all_hold {
            return Err(StoreError::ConditionFailed);
        }
        for w in writes {
            match w {
                Write::Put(r, _) => {
                    map.insert(r.key.pk(), r);
                }
                Write::Delete(k, _) => {
                    map.remove(&k.pk());
                }
                Write::Check(..) => {}
            }
        }
        Ok(())
    }

    async fn list(&self, kind: Kind, now: Timestamp) -> Result<Vec<Record>, StoreError> {
        let map = self.records.lock().map_err(|_| poisoned())?;
        let mut found: Vec<Record> = map
            .values()
            .filter(|r| r.key.kind == kind && r.is_live(now))
            .cloned()
            .collect();
        found.sort_by(|a, b| a.key.id.cmp(&b.key.id));
        Ok(found)
    }

    async fn incr(&self, key: &Key, expires_at: i64, now: Timestamp) -> Result<u64, StoreError> {
        let mut map = self.records.lock().map_err(|_| poisoned())?;
        let count = match map.get(&key.pk()).filter(|r| r.is_live(now)) {
            Some(r) => r.value::<u64>()? + 1,
            None => 1,
        };
        let expiry = match map.get(&key.pk()).filter(|r| r.is_live(now)) {
            Some(r) => r.expires_at,
            None => Some(expires_at),
        };
        let mut record = Record::new(key.clone(), &count, expiry)?;
        record.version = count;
        map.insert(key.pk(), record);
        Ok(count)
    }

    async fn purge_expired(&self, now: Timestamp) -> Result<usize, StoreError> {
        let mut map = self.records.lock().map_err(|_| poisoned())?;
        let before = map.len();
        map.retain(|_, r| r.is_live(now));
        Ok(before - map.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::adapter_suite!(async { (MemoryStore::default(), ()) });
}
