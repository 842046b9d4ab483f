//! Backchannel authentication requests (OpenID CIBA) on their way to the person: the one
//! place a new request is announced to the person's devices (`announce`), and the QR login
//! a request becomes when the person's app opens it (`login_for`), which the app decides
//! like any other (`usecase::app::decide`).

use crate::backchannel::Delivery;
use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::authorize::AuthorizationRequest;
use crate::domain::client::Client;
use crate::domain::device_grant::DeviceAuthorization;
use crate::domain::device_grant::DeviceGrantStatus;
use crate::domain::login::{QrLogin, Scanner};
use crate::protocol::Subject;
use crate::random;
use crate::reach::Reach;
use crate::store::backchannel::FoundBackchannel;
use crate::store::{Backchannels, ClientStore, DeviceGrants, Outcome, QrLogins, StoreError};

/// Announces a new backchannel request (stored under `hash`) to the person it asks: it is
/// stored with the person's list of pending requests, which their app reads when it opens,
/// and then pushed to the person's apps (Web Push, [`super::push`]; handed to the delivery
/// port, never failing the request). A request whose hint named nobody is stored all the
/// same and reaches no one.
///
/// `list_of` is the key of the list: the person's `sub`, or for a hint that named nobody the
/// hint's own (as the per-person limit counts it), so that such a request costs the same
/// reads and writes as one for a person without push subscriptions (no directory oracle by
/// timing).
pub(crate) async fn announce(
    ctx: &Context,
    hash: &str,
    d: &DeviceAuthorization,
    list_of: &str,
    now: Timestamp,
) -> Result<Outcome, StoreError> {
    // The list is read-modify-write: two requests for one person at the same moment
    // retry (the request's own key is fresh, so it is never what lost).
    for _ in 0..3 {
        let created = ctx
            .store
            .create_backchannel_request_listed(hash, d, list_of, now)
            .await?;
        if created == Outcome::Done {
            let ttl = d.expires_at.secs() - now.secs();
            match d.backchannel.as_ref().and_then(|b| b.sub.as_ref()) {
                Some(sub) => {
                    super::push::announce(ctx, sub.as_str(), d.client_id.as_str(), hash, ttl, now)
                        .await
                }
                // The read of a person's subscriptions, under a key no identity has, so a
                // hint that names nobody takes as long.
                None => super::push::read_as_announcing(ctx, list_of, now).await,
            }
            return Ok(Outcome::Done);
        }
    }
    Ok(Outcome::Lost)
}

/// Tells a ping mode client (CIBA Core §10.2) that the person decided request `hash`: one POST
/// of `{"auth_req_id"}` with the client's bearer token to its notification endpoint, handed to
/// the context's delivery port (back-channel logout's: a task under `serve`, the queue on
/// AWS), which returns at once. Nothing for a poll mode request or one still pending.
pub(crate) async fn ping(ctx: &Context, hash: &str, now: Timestamp) {
    let d = match ctx.store.device_authorization(hash, now).await {
        Ok(Some(d)) => d.value,
        Ok(None) => return,
        Err(e) => {
            tracing::warn!(error = %e, "CIBA ping: reading the request failed");
            return;
        }
    };
    let Some(b) = d.backchannel else {
        return;
    };
    let (Some(p), false) = (b.ping, d.status == DeviceGrantStatus::Pending) else {
        return;
    };
    let client = match ctx.store.client(&d.client_id, now).await {
        Ok(Some((c, _))) => c,
        _ => return,
    };
    let Some(uri) = client.ciba_notification_endpoint.clone() else {
        return;
    };
    let reach = Reach::of(
        ctx.settings.local_development(),
        client.registration.is_some(),
    );
    let delivery = Delivery {
        client_id: client.client_id.into_string(),
        uri,
        token: p.token,
        sub: b.sub.map(|s| s.to_string()).unwrap_or_default(),
        issued_at: now,
        reach,
        ciba_auth_req_id: Some(p.auth_req_id),
        push: None,
    };
    ctx.backchannel.send(vec![delivery]).await;
}

/// Where a backchannel request's QR login says it goes: the backchannel endpoint, as a device
/// authorization's names `{issuer}/device` (no redirect URI is ever used).
pub fn endpoint(ctx: &Context) -> String {
    format!(
        "{}/protocol/openid-connect/ext/ciba/auth",
        ctx.settings.issuer()
    )
}

/// The QR login that stands for backchannel request `found`, for its person `sub` to decide
/// in their app: its request names the client and the scopes; it is scanned already, by
/// `sub` (a decision by anyone else cancels it); its address and user agent are the
/// client's, as recorded at the backchannel endpoint. The challenge the decision names comes
/// with it.
pub(crate) async fn login_for(
    ctx: &Context,
    found: &FoundBackchannel,
    client: &Client,
    sub: &str,
    now: Timestamp,
) -> Result<(QrLogin, String), StoreError> {
    let d = &found.request.value;
    let mut request =
        AuthorizationRequest::without_browser(client, endpoint(ctx), d.scopes.clone());
    // An agent's delegation request: the approval screen lists where it may act.
    request.resources = d
        .backchannel
        .as_ref()
        .map(|b| b.resources.clone())
        .unwrap_or_default();
    let ttl = ctx
        .settings
        .lifetimes
        .login
        .min(d.expires_at.secs() - now.secs())
        .max(1);
    let browser_secret = random::token(ctx.random.as_ref(), 32);
    let mut l = QrLogin::new(
        ttl,
        request,
        &browser_secret,
        d.device_ip.clone(),
        d.device_user_agent.clone(),
        now,
        ctx.random.as_ref(),
    );
    l.device_grant = Some(found.hash.clone());
    let challenge = l.accept_user_code_scan(now);
    l.scanned_by = Some(Scanner::Identity(Subject::new(sub)));
    ctx.store.create_qr_login(&l, now).await?;
    Ok((l, challenge))
}
