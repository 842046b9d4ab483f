//! Delegation by token exchange (RFC 8693), the token endpoint's
//! `urn:ietf:params:oauth:grant-type:token-exchange`: an agent (a client the operator allowed
//! the grant) exchanges a person's live access token for a narrower one that names it in
//! `act`. The rules are the domain's ([`crate::domain::delegation`]); here the subject token
//! and the person's consent are read, and the token signed. Nothing is stored: the new token
//! lives while the person's grant does, and while the person still delegates to every agent in
//! its chain ([`crate::service::live_tokens`]).

use std::borrow::Cow;

use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::client::{Client, GrantType};
use crate::domain::delegation::{self, Agent, Asked};
use crate::domain::grant::{self, Issued};
use crate::keys::jwt;
use crate::protocol::requests::ACCESS_TOKEN_TYPE;
use crate::protocol::{AccessTokenClaims, ClientId, OAuthError, OAuthErrorCode};
use crate::random;
use crate::service::issuance::{oauth, TokenError};
use crate::service::live_tokens::live_access_token;
use crate::store::{ClientStore, SsoSessions, StoreError};

/// What the agent sent besides its credentials.
#[derive(Debug, Clone, Copy)]
pub struct ExchangeRequest<'a> {
    /// `subject_token`.
    pub subject_token: &'a str,
    /// `scope`.
    pub scope: Option<&'a str>,
    /// `audience`.
    pub audience: Option<&'a str>,
    /// `resource` (RFC 8707), each value.
    pub resource: &'a [String],
}

/// A client that may receive a person's delegation: enabled, and allowed the exchange grant.
pub async fn agent(
    ctx: &Context,
    client_id: &str,
    now: Timestamp,
) -> Result<Option<Client>, StoreError> {
    if ClientId::parse(client_id).is_err() {
        return Ok(None);
    }
    Ok(ctx
        .store
        .client(client_id, now)
        .await?
        .map(|(c, _)| c)
        .filter(|c| !c.disabled && c.allows(GrantType::TokenExchange)))
}

/// The exchange for `agent` (authenticated, allowed the grant).
pub async fn exchange(
    ctx: &Context,
    agent: &Client,
    req: ExchangeRequest<'_>,
) -> Result<Issued, TokenError> {
    let now = ctx.clock.now();
    let resource = match req.resource {
        [] => None,
        [r] => Some(r.as_str()),
        _ => return Err(oauth(OAuthErrorCode::InvalidTarget, "one resource at most")),
    };
    let Some(subject) = live_access_token(ctx, req.subject_token, now).await? else {
        return Err(TokenError::OAuth(OAuthError::invalid_request(
            "subject_token: not a live access token of this service",
        )));
    };
    // A DPoP-bound token is usable only with its client's key, which the agent does not prove:
    // exchanging it would unbind it (RFC 9449 §7).
    if subject.claims.cnf.is_some() {
        return Err(TokenError::OAuth(OAuthError::invalid_request(
            "subject_token: a DPoP-bound access token cannot be exchanged",
        )));
    }
    let consent = ctx
        .store
        .consent(subject.claims.sub.as_str(), agent.client_id.as_str(), now)
        .await?;
    let next = match req.audience {
        Some(a) => self::agent(ctx, a, now).await?,
        None => None,
    };
    let d = delegation::decide(
        Agent {
            client_id: agent.client_id.as_str(),
            created_at: agent.created_at,
        },
        &subject.claims,
        consent.as_ref(),
        Asked {
            scope: req.scope,
            audience: req.audience,
            resource,
        },
        |a| next.as_ref().is_some_and(|c| c.client_id.as_str() == a),
    )
    .map_err(TokenError::OAuth)?;
    let s = subject.claims;
    let scope = d.scopes.join(" ");
    // Never outlives the token it came from.
    let exp = (now.secs() + ctx.settings.lifetimes.access_token).min(s.exp);
    let at = AccessTokenClaims {
        exp,
        iat: now.secs(),
        jti: random::uuid_v4(ctx.random.as_ref()).to_string().into(),
        aud: Cow::Owned(d.audience),
        azp: Cow::Borrowed(&agent.client_id),
        scope: Cow::Borrowed(&scope),
        // What the narrowed scopes no longer release goes.
        preferred_username: s
            .preferred_username
            .filter(|_| d.scopes.contains("profile")),
        groups: s.groups.filter(|_| grant::releases_groups(&d.scopes)),
        act: Some(d.act),
        // Bound to no DPoP key: the subject token's key is its client's, not the agent's.
        cnf: None,
        ..s
    };
    let keys = ctx.keyring().await;
    let signer = keys.signer(agent.token_alg.unwrap_or(ctx.settings.signing_alg))?;
    let access_token = jwt::encode(signer.as_ref(), "JWT", &at).await?;
    Ok(Issued {
        access_token,
        id_token: None,
        refresh_token: None,
        expires_in: exp - now.secs(),
        refresh_expires_in: 0,
        scope,
        session_state: None,
        issued_token_type: Some(ACCESS_TOKEN_TYPE),
        cnf_jkt: None,
    })
}
