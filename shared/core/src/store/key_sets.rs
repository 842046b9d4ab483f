//! The signing key set held in the store (`signing_key#set`; KMS and KMS-envelope modes): one
//! record, replaced by compare-and-swap.

use async_trait::async_trait;

use super::{Backend, Cond, Key, Kind, Record, StoreError};
use crate::clock::Timestamp;
use crate::keys::local::KeySet;

/// The key set's record id.
const SET_ID: &str = "set";

/// The signing key set, one record (kms and kms-envelope modes).
#[async_trait]
pub trait KeySets: Backend {
    /// The key set with its version, if there is one.
    async fn key_set(&self, now: Timestamp) -> Result<Option<(KeySet, u64)>, StoreError> {
        match self.get(&Key::new(Kind::SigningKey, SET_ID), now).await? {
            Some(r) => Ok(Some((r.value::<KeySet>()?, r.version))),
            None => Ok(None),
        }
    }

    /// Creates the key set (`version` `None`) or replaces version `version`;
    /// [`StoreError::ConditionFailed`] when someone changed it meanwhile.
    async fn save_key_set(
        &self,
        set: &KeySet,
        version: Option<u64>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let mut rec = Record::new(Key::new(Kind::SigningKey, SET_ID), set, None)?;
        let cond = match version {
            None => Cond::Absent,
            Some(v) => {
                rec.version = v + 1;
                Cond::Version(v)
            }
        };
        self.put(rec, cond, now).await
    }
}

impl<B: Backend + ?Sized> KeySets for B {}
