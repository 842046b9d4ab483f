//! Rate limits: counts one event on the store's atomic counter and asks the domain whether
//! it is within its budget (`domain::ratelimit`).

use crate::clock::Timestamp;
use crate::config::Limits;
use crate::domain::ratelimit::{Counted, Limit};
use crate::store::{Backend, Counters, StoreError};

/// Counts one event for `who` under `limit` and says whether it is within its budget
/// ([`Limit::budget`]); an event over it is audited (`rate_limited`).
pub(crate) async fn count(
    store: &dyn Backend,
    limits: &Limits,
    limit: Limit,
    who: &str,
    now: Timestamp,
) -> Result<Counted, StoreError> {
    let window = limit.window(limits, who, now);
    let count = store
        .count_event(&window.counter, window.expires_at, now)
        .await?;
    let counted = window.decide(count, now);
    if counted != Counted::Allowed {
        crate::audit::rate_limited(limit, who);
    }
    Ok(counted)
}
