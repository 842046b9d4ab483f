//! Typed helpers over any [`Backend`]: read a value with its record, create, replace at a
//! version. The domain's single-record kinds (login sessions, SSO sessions, consents, codes)
//! use these; kinds with uniqueness rules have their own stores ([`super::ClientStore`],
//! [`super::IdentityStore`]).

use async_trait::async_trait;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{Backend, Cond, Key, Kind, Record, StoreError, Write};
use crate::clock::Timestamp;

/// A typed value and the record it came from (for a conditional replace).
#[derive(Debug, Clone)]
pub struct Versioned<T> {
    /// The value, read from the record.
    pub value: T,
    /// The record as read (its version makes the replace conditional).
    pub record: Record,
}

impl<T: Serialize> Versioned<T> {
    /// The write that replaces this value with `next` if nobody changed it meanwhile.
    pub fn replace_with(&self, next: &T) -> Result<Write, StoreError> {
        Ok(Write::Put(
            self.record.next(next)?,
            Cond::Version(self.record.version),
        ))
    }
}

/// Typed values over the record primitive: serde in and out of [`Record`]s, with their versions.
#[async_trait]
pub trait Typed: Backend {
    /// The live value of `kind` and `id`, with its record.
    async fn read<T: DeserializeOwned + Send>(
        &self,
        kind: Kind,
        id: &str,
        now: Timestamp,
    ) -> Result<Option<Versioned<T>>, StoreError> {
        match self.get(&Key::new(kind, id), now).await? {
            Some(record) => Ok(Some(Versioned {
                value: record.value()?,
                record,
            })),
            None => Ok(None),
        }
    }

    /// Creates the value; [`StoreError::ConditionFailed`] when a live one exists.
    async fn create<T: Serialize + Sync>(
        &self,
        kind: Kind,
        id: &str,
        value: &T,
        expires_at: Option<i64>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.put(
            Record::new(Key::new(kind, id), value, expires_at)?,
            Cond::Absent,
            now,
        )
        .await
    }

    /// Replaces the value if it is still at the version read.
    async fn replace<T: Serialize + Sync + Send>(
        &self,
        old: &Versioned<T>,
        next: &T,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.put(
            old.record.next(next)?,
            Cond::Version(old.record.version),
            now,
        )
        .await
    }

    /// Changes the live value under `kind#id` by compare-and-swap: `change` returns the next
    /// value, or `None` when there is nothing to do (or nothing there). A concurrent change is
    /// read again and retried; one that keeps winning is [`StoreError::Unavailable`].
    async fn modify<T, F>(
        &self,
        kind: Kind,
        id: &str,
        now: Timestamp,
        mut change: F,
    ) -> Result<(), StoreError>
    where
        T: Serialize + DeserializeOwned + Send + Sync,
        F: FnMut(&T) -> Option<T> + Send,
    {
        for _ in 0..3 {
            let Some(old) = self.read::<T>(kind, id, now).await? else {
                return Ok(());
            };
            let Some(next) = change(&old.value) else {
                return Ok(());
            };
            match self.replace(&old, &next, now).await {
                Err(StoreError::ConditionFailed) => continue,
                done => return done,
            }
        }
        Err(StoreError::Unavailable(
            format!("{} kept changing", Key::new(kind, id).pk()).into(),
        ))
    }
}

impl<B: Backend + ?Sized> Typed for B {}
