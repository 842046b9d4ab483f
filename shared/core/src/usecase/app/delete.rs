//! Deleting an identity, asked by its app (a signed request) or by an operator.

use crate::context::Context;
use crate::domain::ratelimit::Source;
use crate::protocol::app_request::{self, AppRequest, Deletion};
use crate::service::app_error::{invalid, AppError};
pub use crate::service::erase::erase;
use crate::service::signed_request::signed_by_identity;

/// Deletes identity `sub`, asked by its device (`deletion`, signed by the device key).
pub async fn delete_identity(
    ctx: &Context,
    sub: &str,
    deletion: &str,
    who: &Source,
) -> Result<(), AppError> {
    let now = ctx.clock.now();
    let (ident, version, v) = signed_by_identity(ctx, sub, deletion, Deletion::TYP, now).await?;
    let _: Deletion = app_request::read(&v.claims).map_err(invalid)?;
    erase(ctx, &ident, version, &[(v.jti, v.exp)], who.as_str()).await
}
