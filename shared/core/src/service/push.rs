//! Web Push to a person's apps (RFC 8030, message encryption RFC 8291, VAPID RFC 8292): a new
//! backchannel request is announced to each of the person's `webpush` subscriptions with a
//! message naming only what to open (`{"kind":"ciba","request":<id>}`: no client, no binding
//! message, nothing personal). The messages are made here and handed to the delivery port
//! (back-channel logout's: a task under `serve`, the queue and its sender on AWS), which
//! returns at once; nothing here fails the request.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use crate::backchannel::{Delivery, PushMessage};
use crate::clock::Timestamp;
use crate::context::Context;
use crate::reach::Reach;
use crate::store::push_subscriptions::PushSubscription;
use crate::store::PushSubscriptions;
use crate::webpush::{self, ReceiverKeys};

/// The only kind of subscription delivered today.
pub const WEBPUSH: &str = "webpush";

/// The reach of a push endpoint: any phone chose it, so public addresses only, but in local
/// development (as a self-registered client's URIs).
pub fn reach(ctx: &Context) -> Reach {
    Reach::of(ctx.settings.local_development(), true)
}

/// The message announcing request `id` (what the app opens it by).
pub fn payload(id: &str) -> String {
    serde_json::json!({ "kind": "ciba", "request": id }).to_string()
}

/// Announces request `id` of `client_id` to `sub`'s subscriptions, valid for `ttl` seconds.
pub async fn announce(
    ctx: &Context,
    sub: &str,
    client_id: &str,
    id: &str,
    ttl: i64,
    now: Timestamp,
) {
    let Some(push) = &ctx.settings.push else {
        return;
    };
    let subscriptions = match ctx.store.push_subscriptions(sub, now).await {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(error = %e, "push: reading the subscriptions failed");
            return;
        }
    };
    if !subscriptions.iter().any(|s| s.kind == WEBPUSH) {
        return;
    }
    let key = match push.key() {
        Ok(k) => k,
        Err(e) => {
            tracing::error!(error = %e, "push: the VAPID key");
            return;
        }
    };
    let body = payload(id);
    let mut deliveries = Vec::new();
    for s in subscriptions.iter().filter(|s| s.kind == WEBPUSH) {
        match message(&key, &push.subject, s, body.as_bytes(), ttl, ctx, now) {
            Ok(m) => deliveries.push(Delivery {
                client_id: client_id.to_owned(),
                uri: s.endpoint.clone(),
                token: String::new(),
                sub: sub.to_owned(),
                issued_at: now,
                reach: reach(ctx),
                ciba_auth_req_id: None,
                push: Some(m),
            }),
            Err(e) => tracing::warn!(error = %e, "push: a subscription could not be written to"),
        }
    }
    if !deliveries.is_empty() {
        ctx.backchannel.send(deliveries).await;
    }
}

/// The read [`announce`] makes of `sub`'s subscriptions, and nothing else: what a request
/// whose hint named nobody does instead (under a key no identity has), so that it takes as
/// long as one for a person without subscriptions.
pub async fn read_as_announcing(ctx: &Context, sub: &str, now: Timestamp) {
    if ctx.settings.push.is_some() {
        if let Err(e) = ctx.store.push_subscriptions(sub, now).await {
            tracing::warn!(error = %e, "push: reading the subscriptions failed");
        }
    }
}

/// One subscription's message.
fn message(
    key: &webpush::VapidKey,
    subject: &str,
    s: &PushSubscription,
    body: &[u8],
    ttl: i64,
    ctx: &Context,
    now: Timestamp,
) -> Result<PushMessage, webpush::PushError> {
    let to = ReceiverKeys::from_b64(&s.p256dh, &s.auth)?;
    let encrypted = webpush::encrypt(body, &to, ctx.random.as_ref())?;
    Ok(PushMessage {
        authorization: key.authorization(&s.endpoint, subject, now)?,
        body: URL_SAFE_NO_PAD.encode(encrypted),
        ttl: ttl.max(0),
    })
}
