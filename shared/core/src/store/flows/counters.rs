//! The rate-limit counters repository.

use async_trait::async_trait;

use crate::clock::Timestamp;
use crate::store::{Backend, Key, Kind, StoreError};

/// Rate-limit counters.
#[async_trait]
pub trait Counters: Backend {
    /// Counts one event under `name` in the window `window` (which ends at `expires_at`,
    /// Unix s) and returns the count so far.
    async fn count_event(
        &self,
        name: &str,
        expires_at: i64,
        now: Timestamp,
    ) -> Result<u64, StoreError> {
        self.incr(&Key::new(Kind::Rate, name), expires_at, now)
            .await
    }
}

impl<B: Backend + ?Sized> Counters for B {}
