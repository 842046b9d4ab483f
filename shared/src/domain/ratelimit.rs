//! Fixed-window rate limits on the store's atomic counter, so every Lambda instance and the
//! local server share them (SECURITY.md Q4, T2).

use crate::clock::Timestamp;
use crate::store::{Backend, Key, Kind, StoreError};

/// Counts one event in `bucket` and says whether it is within `limit` per `window_secs`.
pub async fn allow(
    store: &dyn Backend,
    bucket: &str,
    limit: u64,
    window_secs: i64,
    now: Timestamp,
) -> Result<bool, StoreError> {
    let window = now.secs().div_euclid(window_secs);
    let key = Key::new(Kind::Rate, format!("{bucket}:{window}"));
    let expires_at = (window + 2) * window_secs;
    Ok(store.incr(&key, expires_at, now).await? <= limit)
}
