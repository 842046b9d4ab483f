//! OIDC Back-Channel Logout 1.0: when an SSO session ends, every client that took part in it
//! and registered a `backchannel_logout_uri` receives a signed `logout_token` (§2.4) by a
//! direct POST (§2.5).
//!
//! The tokens are signed while the request that ended the session runs; they are delivered by
//! a background task with a short timeout and a few retries, so under `scanid serve` a slow or
//! dead relying party never delays the person's response. A Lambda function is frozen once it
//! returns, so there the invocation waits for its deliveries for at most [`LAMBDA_BUDGET`];
//! one still pending then resumes at the function's next invocation.

use std::sync::OnceLock;
use std::time::Duration;

use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::domain::login::SsoSession;
use crate::keys::jwt;
use crate::protocol::claims::LogoutEvents;
use crate::protocol::LogoutTokenClaims;
use crate::random;
use crate::store::ClientStore;
use crate::Context;

/// The event a logout token carries (§2.4).
pub const EVENT: &str = "http://schemas.openid.net/event/backchannel-logout";
/// How long a logout token is valid.
pub const TOKEN_LIFETIME_SECS: i64 = 120;
/// How long a Lambda invocation waits for its deliveries before it returns (the function is
/// frozen afterwards; under `scanid serve` they never delay a response).
pub const LAMBDA_BUDGET: Duration = Duration::from_secs(3);
/// Attempts per delivery, and the timeout of each.
const ATTEMPTS: u32 = 3;
const TIMEOUT: Duration = Duration::from_secs(2);

/// Tells the clients of `session` (which has just ended) that it is over.
pub async fn notify(ctx: &Context, session: &SsoSession, now: Timestamp) {
    let mut deliveries = Vec::new();
    for client_id in &session.clients {
        let client = match ctx.store.client(client_id, now).await {
            Ok(Some((c, _))) => c,
            Ok(None) => continue,
            Err(e) => {
                tracing::warn!(error = %e, client_id = %client_id, "back-channel logout: reading the client failed");
                continue;
            }
        };
        let Some(uri) = client.backchannel_logout_uri.clone() else {
            continue;
        };
        let claims = LogoutTokenClaims {
            iss: ctx.settings.issuer(),
            aud: client.client_id.clone(),
            iat: now.secs(),
            exp: now.secs() + TOKEN_LIFETIME_SECS,
            jti: random::uuid_v4(ctx.random.as_ref()).to_string(),
            sub: session.sub.clone(),
            sid: session.sid.clone(),
            events: LogoutEvents::default(),
        };
        let keys = ctx.keyring().await;
        let alg = client.token_alg.unwrap_or(ctx.settings.signing_alg);
        let token = match keys.signer(alg) {
            Ok(signer) => jwt::encode(signer.as_ref(), "logout+jwt", &claims).await,
            Err(e) => Err(e),
        };
        match token {
            Ok(t) => deliveries.push((client.client_id, uri, t)),
            Err(e) => {
                tracing::warn!(error = %e, client_id = %client_id, "back-channel logout: signing failed")
            }
        }
    }
    if deliveries.is_empty() {
        return;
    }
    let sub = session.sub.clone();
    let task = tokio::spawn(async move {
        for (client_id, uri, token) in deliveries {
            let outcome = deliver(&uri, &token).await;
            Audit::new(Event::BackchannelLogout)
                .client(&client_id)
                .subject(&sub)
                .outcome(outcome)
                .emit();
        }
    });
    if let Ok(mut pending) = pending().lock() {
        pending.retain(|t| !t.is_finished());
        pending.push(task);
    }
}

fn pending() -> &'static std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>> {
    static PENDING: OnceLock<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>> = OnceLock::new();
    PENDING.get_or_init(Default::default)
}

/// Waits for the deliveries in flight (a command-line process, before it exits).
pub async fn drain() {
    let tasks: Vec<_> = match pending().lock() {
        Ok(mut p) => p.drain(..).collect(),
        Err(_) => Vec::new(),
    };
    for t in tasks {
        let _ = t.await;
    }
}

fn http() -> Option<&'static reqwest::Client> {
    static CLIENT: OnceLock<Option<reqwest::Client>> = OnceLock::new();
    CLIENT
        .get_or_init(|| {
            reqwest::Client::builder()
                .timeout(TIMEOUT)
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .inspect_err(|e| tracing::error!(error = %e, "back-channel logout: no HTTP client"))
                .ok()
        })
        .as_ref()
}

/// POSTs the token (§2.5); retries timeouts, 5xx and 429, not other 4xx. Says how it ended.
async fn deliver(uri: &str, token: &str) -> &'static str {
    let Some(client) = http() else {
        return "failed";
    };
    let body = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("logout_token", token)
        .finish();
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            tokio::time::sleep(Duration::from_millis(500 << (attempt - 1))).await;
        }
        let sent = client
            .post(uri)
            .header("cache-control", "no-store")
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body.clone())
            .send()
            .await;
        match sent {
            Ok(r) if r.status().is_success() => return "delivered",
            Ok(r) if r.status().is_client_error() && r.status().as_u16() != 429 => {
                tracing::warn!(
                    uri,
                    status = r.status().as_u16(),
                    "back-channel logout refused"
                );
                return "refused";
            }
            Ok(r) => tracing::warn!(
                uri,
                status = r.status().as_u16(),
                attempt,
                "back-channel logout failed"
            ),
            Err(e) => tracing::warn!(uri, error = %e, attempt, "back-channel logout failed"),
        }
    }
    "failed"
}
