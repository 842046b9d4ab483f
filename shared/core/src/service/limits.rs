//! Rate limits: counts one event on the store's atomic counter and asks the domain whether
//! it is within its budget (`domain::ratelimit`).

use crate::clock::Timestamp;
use crate::config::Limits;
use crate::context::Context;
use crate::domain::ratelimit::{Counted, Limit};
use crate::service::app_error::AppError;
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

/// Counts one event of an app request and refuses it past the limit
/// ([`AppError::RateLimited`]).
pub(crate) async fn within(
    ctx: &Context,
    limit: Limit,
    who: &str,
    now: Timestamp,
) -> Result<(), AppError> {
    match count(ctx.store.as_ref(), &ctx.settings.limits, limit, who, now).await? {
        Counted::Allowed => Ok(()),
        Counted::Limited { retry_after } => Err(AppError::RateLimited { retry_after }),
    }
}
