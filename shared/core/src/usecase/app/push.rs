//! The app's push subscriptions (Web Push): registered and withdrawn with signed app
//! requests; a new backchannel request is pushed to them (`service::push`).

use crate::context::Context;
use crate::protocol::app_request::{self, AppRequest, PushSubscribe, PushWithdraw};
use crate::service::app_error::{invalid, AppError};
use crate::service::push::WEBPUSH;
use crate::service::signed_request::signed_by_identity;
use crate::service::signed_request::spend_jti;
use crate::store::push_subscriptions::PushSubscription;
use crate::store::PushSubscriptions;
use crate::webpush::ReceiverKeys;

/// The longest endpoint (or native token) kept.
pub const MAX_ENDPOINT: usize = 2048;

/// The key the app subscribes with (`applicationServerKey`, base64url); `None`: this
/// service has no push.
pub fn application_server_key(ctx: &Context) -> Option<String> {
    Some(ctx.settings.push.as_ref()?.application_server_key.clone())
}

/// Registers the subscription a `push-subscribe+jwt` (signed by one of `sub`'s keys) names:
/// a `webpush` endpoint must be https (http on loopback only in local development), never
/// the service's own host outside it, with valid keys; another kind is kept as given.
pub async fn subscribe(ctx: &Context, sub: &str, request: &str) -> Result<(), AppError> {
    let now = ctx.clock.now();
    if ctx.settings.push.is_none() {
        return Err(invalid(
            "this service sends no push messages (no VAPID key is set)",
        ));
    }
    let (ident, _, v) = signed_by_identity(ctx, sub, request, PushSubscribe::TYP, now).await?;
    let p: PushSubscribe = app_request::read(&v.claims).map_err(invalid)?;
    let kind_ok = !p.kind.is_empty()
        && p.kind.len() <= 32
        && p.kind
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if !kind_ok {
        return Err(invalid(
            "kind: lower-case letters, digits and '-' (webpush)",
        ));
    }
    if p.endpoint.is_empty() || p.endpoint.len() > MAX_ENDPOINT {
        return Err(invalid("endpoint: 1 to 2048 characters"));
    }
    if p.kind == WEBPUSH {
        crate::domain::client::backchannel_uri(&p.endpoint, ctx.settings.local_development())
            .map_err(|why| invalid(format!("endpoint: {why}")))?;
        ReceiverKeys::from_b64(&p.keys.p256dh, &p.keys.auth)
            .map_err(|e| invalid(format!("keys: {e}")))?;
    }
    spend_jti(ctx, ident.sub.as_str(), v.jti, v.exp, now).await?;
    let s = PushSubscription {
        kind: p.kind,
        endpoint: p.endpoint,
        p256dh: p.keys.p256dh,
        auth: p.keys.auth,
        created_at: now.secs(),
    };
    ctx.store
        .add_push_subscription(ident.sub.as_str(), &s, now)
        .await?;
    Ok(())
}

/// Withdraws the subscription a `push-withdraw+jwt` names; whether there was one.
pub async fn withdraw_push(ctx: &Context, sub: &str, request: &str) -> Result<bool, AppError> {
    let now = ctx.clock.now();
    let (ident, _, v) = signed_by_identity(ctx, sub, request, PushWithdraw::TYP, now).await?;
    let p: PushWithdraw = app_request::read(&v.claims).map_err(invalid)?;
    spend_jti(ctx, ident.sub.as_str(), v.jti, v.exp, now).await?;
    Ok(ctx
        .store
        .remove_push_subscription(ident.sub.as_str(), &p.endpoint, now)
        .await?)
}
