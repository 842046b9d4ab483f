//! A profile update of the identity (app protocol §4), signed by one of its keys.

use crate::context::Context;
use crate::domain::identity::{self, Identity};
use crate::protocol::app_request::{self, AppRequest, ProfileUpdate};
use crate::service::app_error::{invalid, AppError};
use crate::service::photos::forget_replaced_photo;
use crate::service::signed_request::{commit, signed_by_identity};

/// A profile update of identity `sub`, signed by its device key.
pub async fn update_profile(ctx: &Context, sub: &str, update: &str) -> Result<Identity, AppError> {
    let now = ctx.clock.now();
    let (ident, version, v) = signed_by_identity(ctx, sub, update, ProfileUpdate::TYP, now).await?;
    let u: ProfileUpdate = app_request::read(&v.claims).map_err(invalid)?;
    let next = identity::apply_update(&ident, &u, &ctx.settings.photo_hosts).map_err(invalid)?;
    let next = commit(ctx, next, version, &[(v.jti, v.exp)], now).await?;
    forget_replaced_photo(ctx, &ident, &next).await;
    Ok(next)
}
