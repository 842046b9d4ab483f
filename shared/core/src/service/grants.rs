//! What decides whether a grant still stands, for the token endpoint and the resource
//! endpoints alike: its refresh token found by its hash, and an identity that ended every
//! grant from before a moment (`tokens_not_before`).

use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::grant::{self, Grant, RefreshRecord};
use crate::domain::identity::Identity;
use crate::domain::login;
use crate::store::{Grants, StoreError};

/// The stored refresh token `token` (where its `locator` says, else by its hash).
pub(crate) async fn find_refresh_token(
    ctx: &Context,
    token: &str,
    locator: &grant::RefreshLocator,
    now: Timestamp,
) -> Result<Option<RefreshRecord>, StoreError> {
    ctx.store
        .find_refresh_token(
            &login::hash(token),
            locator.gid.as_ref(),
            locator.family_hash().as_deref(),
            now,
        )
        .await
}

/// Whether the identity ended every grant authenticated or created before its
/// `tokens_not_before` (a replaced device key, issue 24).
pub fn revoked_by_identity(g: &Grant, i: &Identity) -> bool {
    i.tokens_not_before
        .is_some_and(|nb| g.auth_time.millis() < nb.millis() || g.created_at.millis() < nb.millis())
}
