//! "Sign out everywhere" (issue 38): any identity, whatever its keys (a device key or
//! passkeys), ends every session and token it has, as a key replaced with "end every
//! session" does, without replacing a key. What the web app does when a phone or passkey was
//! lost (after removing it) or on its own.

use crate::audit::{Audit, Event};
use crate::context::Context;
use crate::domain::identity::Identity;
use crate::domain::ratelimit::Source;
use crate::protocol::app_request::{self, AppRequest, SignOut};
use crate::service::app_error::{invalid, AppError};
use crate::service::sessions::end_sessions_of;
use crate::service::signed_request::signed_request;
use crate::store::IdentityStore;

/// Signs identity `sub` out everywhere (`request`, a `sign-out+jwt` signed by any of its
/// keys): `tokens_not_before` becomes now in one conditional write that spends the request's
/// `jti`, so every grant from before (refresh, offline and access tokens, a code not yet
/// redeemed) is dead at once; then every SSO session of the identity ends and its clients get
/// back-channel logout. Returns how many sessions were still live. Should ending them fail,
/// no token is left alive and such a session logs nobody in (its `auth_time` is older).
pub async fn sign_out_everywhere(
    ctx: &Context,
    sub: &str,
    request: &str,
    who: &Source,
) -> Result<usize, AppError> {
    let now = ctx.clock.now();
    let (ident, version, v, _) =
        signed_request(ctx, sub, request, SignOut::TYP, Some(who), now).await?;
    let _: SignOut = app_request::read(&v.claims).map_err(invalid)?;
    let next = Identity {
        tokens_not_before: Some(now),
        ..ident.clone()
    };
    ctx.store
        .update_identity_signed(&next, version, &[(v.jti, v.exp)], now)
        .await
        .map_err(AppError::from_signed_write)?;
    let ended = end_sessions_of(ctx, &ident.sub, now).await?;
    Audit::new(Event::SessionsEnded)
        .subject(&ident.sub)
        .source(who.as_str())
        .detail("sign out everywhere")
        .emit();
    Ok(ended)
}
