//! The backchannel authentication endpoint (OpenID CIBA Core 1.0 §7): a client the operator
//! allowed (`--grant ciba`, Keycloak's `oidc.ciba.grant.enabled`) asks for a person by a hint;
//! the request is announced to that person (`service::backchannel::announce`), who
//! approves or refuses it in the app; the client polls the token endpoint with the
//! `auth_req_id` (`usecase::token`, the CIBA grant).
//!
//! The answer never says whether the hint named someone (`domain::ciba`): an unknown, an
//! ambiguous or a disabled hint gets an `auth_req_id` like any other, which stays pending
//! until it expires, as a request its person never answers does.

use serde::Deserialize;

use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::ciba::{self, Backchannel, Hint, Ping};
use crate::domain::client::Client;
use crate::domain::device_grant::DeviceAuthorization;
use crate::domain::login;
use crate::domain::ratelimit::{Counted, Limit, Source};
use crate::keys::jwt;
use crate::protocol::{GrantType, OAuthErrorCode, Params, Secret, Subject};
use crate::random;
use crate::service::backchannel::announce;
use crate::service::client_auth::{authenticate, Presented};
use crate::service::issuance::{oauth, TokenError};
use crate::service::limits;
use crate::store::{IdentityStore, Outcome, StoreError};

/// What the backchannel authentication endpoint answers (CIBA Core §7.3).
#[derive(Debug)]
pub struct Started {
    /// `auth_req_id`.
    pub auth_req_id: Secret,
    /// `expires_in`, seconds.
    pub expires_in: i64,
    /// `interval`: the polling interval, seconds.
    pub interval: i64,
}

/// `POST .../protocol/openid-connect/ext/ciba/auth`: authenticates the client as the token
/// endpoint does (a confidential client: secrets or `private_key_jwt`), checks that it may
/// use CIBA and the request, counts it against the client and the person, and announces it.
pub async fn start(
    ctx: &Context,
    params: &Params,
    presented: &Presented,
    source: &Source,
    user_agent: &str,
) -> Result<Started, TokenError> {
    let now = ctx.clock.now();
    let client = authenticate(ctx, presented, false, source).await?;
    if !client.allows(GrantType::Ciba) {
        return Err(oauth(
            OAuthErrorCode::UnauthorizedClient,
            "this client may not use CIBA (the operator allows it per client)",
        ));
    }
    let req = ciba::read(params).map_err(TokenError::OAuth)?;
    // An agent's request is a delegation (its approval is recorded as its consent page's).
    let delegation = client.allows(GrantType::TokenExchange);
    let resources = ciba::delegation_resources(&req.resources, delegation, &ctx.settings.resources)
        .map_err(TokenError::OAuth)?;
    let ping_token = match &client.ciba_notification_endpoint {
        Some(_) => Some(
            ciba::notification_token(req.client_notification_token).map_err(TokenError::OAuth)?,
        ),
        None => None,
    };
    within(ctx, Limit::CibaPerClient, client.client_id.as_str(), now).await?;
    let sub = person(ctx, &client, req.hint, now).await?;
    // Counted on the person; on the hint itself when it names nobody, so an unknown hint
    // meets the limit exactly as a known one does.
    let who = match &sub {
        Some(s) => s.to_string(),
        None => format!("hint:{}", login::hash(&hint_text(req.hint))),
    };
    within(ctx, Limit::CibaPerPerson, &who, now).await?;
    let ttl = ciba::expiry(req.requested_expiry, ctx.settings.lifetimes.device_code);
    let mut d = DeviceAuthorization::new(
        client.client_id.clone(),
        req.scopes.clone(),
        String::new(),
        ttl,
        now,
    );
    d.device_ip = source.as_str().to_owned();
    d.device_user_agent = user_agent.chars().take(512).collect();
    let auth_req_id = Secret::new(random::token(ctx.random.as_ref(), 32));
    let hash = login::hash(auth_req_id.expose());
    d.backchannel = Some(Backchannel {
        sub,
        binding_message: req.binding_message,
        ping: ping_token.map(|token| Ping {
            token,
            auth_req_id: auth_req_id.expose().to_owned(),
        }),
        delegation,
        resources,
    });
    if announce(ctx, &hash, &d, &who, now).await? == Outcome::Lost {
        return Err(StoreError::ConditionFailed.into());
    }
    Audit::new(Event::BackchannelRequested)
        .client(&client.client_id)
        .source(source.as_str())
        .emit();
    Ok(Started {
        auth_req_id,
        expires_in: ttl,
        interval: d.interval,
    })
}

/// Counts one request of `limit` for `who`; past its budget `access_denied` (CIBA Core §13
/// lists no "too many" at this endpoint; `slow_down` is the token endpoint's).
async fn within(ctx: &Context, limit: Limit, who: &str, now: Timestamp) -> Result<(), TokenError> {
    match limits::count(ctx.store.as_ref(), &ctx.settings.limits, limit, who, now).await? {
        Counted::Allowed => Ok(()),
        Counted::Limited { .. } => Err(oauth(
            OAuthErrorCode::AccessDenied,
            "too many backchannel requests from this client or for this person; try again later",
        )),
    }
}

/// The hint as the per-person limit counts it when it names nobody.
fn hint_text(h: Hint<'_>) -> String {
    match h {
        Hint::Login(s) => format!("login:{s}"),
        Hint::IdToken(t) => format!("id_token:{t}"),
    }
}

/// What an `id_token_hint` must be: an ID token of this service, for this client.
#[derive(Deserialize)]
struct IdTokenHint {
    sub: String,
    aud: serde_json::Value,
    typ: Option<String>,
}

/// The live identity the hint names, or `None` (unknown, ambiguous or disabled: told apart
/// from nobody). An `id_token_hint` that is not an ID token this service issued to this
/// client is refused: that says nothing about anyone.
async fn person(
    ctx: &Context,
    client: &Client,
    hint: Hint<'_>,
    now: Timestamp,
) -> Result<Option<Subject>, TokenError> {
    // The reads are as many whether the hint names someone or not (no directory oracle by
    // timing): a name or service_id found costs its marker and the identity, one not found
    // its marker; so a hint that names nobody reads, once more, an identity no one has.
    let identity = match hint {
        Hint::Login(h) => {
            let by_name = ctx.store.identity_by_name(h, now).await?;
            let by_service_id = ctx.store.identity_by_service_id(h, now).await?;
            match (by_name, by_service_id) {
                (Some(a), Some(b)) if a.sub != b.sub => None,
                (Some(i), _) | (None, Some(i)) => Some(i),
                (None, None) => {
                    let nobody = format!("nobody:{}", login::hash(&hint_text(hint)));
                    ctx.store.identity(&nobody, now).await?;
                    None
                }
            }
        }
        Hint::IdToken(t) => {
            let bad = || {
                oauth(
                    OAuthErrorCode::InvalidRequest,
                    "id_token_hint is not an ID token this service issued to this client",
                )
            };
            let h: IdTokenHint =
                jwt::verify_ignoring_expiry(&*ctx.keyring().await, t, &ctx.settings.issuer())
                    .map_err(|_| bad())?;
            let for_client = match &h.aud {
                serde_json::Value::String(a) => a == client.client_id.as_str(),
                serde_json::Value::Array(v) => v.iter().any(|a| a == client.client_id.as_str()),
                _ => false,
            };
            if h.typ.as_deref() != Some("ID") || !for_client {
                return Err(bad());
            }
            ctx.store.identity(&h.sub, now).await?.map(|(i, _)| i)
        }
    };
    Ok(identity.filter(|i| !i.disabled).map(|i| i.sub))
}
