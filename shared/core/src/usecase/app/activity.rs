//! The identity's recent logins (app protocol §4), asked for by its app.

use crate::context::Context;
use crate::domain::identity::LoginActivity;
use crate::protocol::app_request::{self, Activity, AppRequest};
use crate::service::app_error::{invalid, AppError};
use crate::service::signed_request::signed_by_identity;
use crate::store::{IdentityStore, StoreError};

/// The recent logins of identity `sub`, asked by its device (`activity`, signed).
pub async fn recent_logins(
    ctx: &Context,
    sub: &str,
    activity: &str,
) -> Result<Vec<LoginActivity>, AppError> {
    let now = ctx.clock.now();
    let (ident, _, v) = signed_by_identity(ctx, sub, activity, Activity::TYP, now).await?;
    let _: Activity = app_request::read(&v.claims).map_err(invalid)?;
    match ctx
        .store
        .spend_jtis(&ident.sub, &[(v.jti, v.exp)], now)
        .await
    {
        Ok(()) => {}
        Err(StoreError::ConditionFailed) => return Err(invalid("jti was already used")),
        Err(e) => return Err(e.into()),
    }
    Ok(ctx.store.recent_logins(&ident.sub, now).await?)
}
