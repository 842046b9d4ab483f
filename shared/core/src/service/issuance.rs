//! Token issuance, shared by every grant that hands out tokens (the code, refresh, client
//! credentials and device code grants): the access token, the id token when `openid` is in
//! scope, and why a request for tokens failed.

use std::borrow::Cow;

use crate::answer::{Answer, Answered};
use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::grant::{self, Grant, GrantKind, Issued};
use crate::domain::identity::Identity;
use crate::keys::{jwt, SignError};
use crate::protocol::claims::{Confirmation, Gty, ACR};
use crate::protocol::{AccessTokenClaims, IdTokenClaims, OAuthError, OAuthErrorCode, TokenTyp};
use crate::random;
use crate::store::StoreError;

/// Why a token request failed.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    /// An OAuth error, as RFC 6749 §5.2 JSON.
    #[error("{0:?}")]
    OAuth(OAuthError),
    /// Client authentication failed: 401 `invalid_client` with `WWW-Authenticate`.
    #[error("invalid client: {0}")]
    InvalidClient(&'static str),
    /// Too many failed client authentications from this source: 429 + `Retry-After`.
    #[error("too many failed client authentications; retry after {retry_after} s")]
    TooManyFailures {
        /// Seconds until the next try may succeed.
        retry_after: i64,
    },
    /// Too many requests of this kind (from this source, or for this client): 429 +
    /// `Retry-After`.
    #[error("rate limited; retry after {retry_after} s")]
    RateLimited {
        /// Seconds until the next try may succeed.
        retry_after: i64,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Signing failed.
    #[error(transparent)]
    Sign(#[from] SignError),
}

impl Answered for TokenError {
    fn answer(self) -> Answer {
        match self {
            TokenError::OAuth(o) => Answer::OAuth(o),
            TokenError::InvalidClient(d) => Answer::InvalidClient(d),
            TokenError::TooManyFailures { retry_after } => {
                Answer::ClientAuthLimited { retry_after }
            }
            TokenError::RateLimited { retry_after } => Answer::RateLimited { retry_after },
            TokenError::Store(s) => Answer::Store(s),
            TokenError::Sign(s) => Answer::Sign(s),
        }
    }
}

/// An OAuth error with this code and description.
pub(crate) fn oauth(code: OAuthErrorCode, d: impl Into<Cow<'static, str>>) -> TokenError {
    TokenError::OAuth(OAuthError::new(code, d))
}

/// Signs the access token (and the id token when `openid` is in scope) for `grant` with
/// `scopes` (which may be narrower than the grant's); the access token's `aud` is the client.
pub async fn sign_tokens(
    ctx: &Context,
    grant: &Grant,
    scopes: &[String],
    identity: Option<&Identity>,
    refresh_token: Option<String>,
    now: Timestamp,
) -> Result<Issued, SignError> {
    sign_tokens_for(ctx, grant, scopes, identity, refresh_token, now, None).await
}

/// [`sign_tokens`] with the access token for `resource` (RFC 8707: its `aud`), or for the
/// client when `None`. The id token's `aud` is the client either way.
pub async fn sign_tokens_for(
    ctx: &Context,
    grant: &Grant,
    scopes: &[String],
    identity: Option<&Identity>,
    refresh_token: Option<String>,
    now: Timestamp,
    resource: Option<&str>,
) -> Result<Issued, SignError> {
    let tokens = (scopes, identity, refresh_token);
    sign_tokens_bound(ctx, grant, tokens, now, (resource, None)).await
}

/// [`sign_tokens_for`] (for `resource`) with the access token bound to the DPoP key `jkt`
/// (RFC 9449 §6: `cnf.jkt`, `token_type: DPoP`) when there is one.
pub async fn sign_tokens_bound(
    ctx: &Context,
    grant: &Grant,
    (scopes, identity, refresh_token): (&[String], Option<&Identity>, Option<String>),
    now: Timestamp,
    (resource, jkt): (Option<&str>, Option<&str>),
) -> Result<Issued, SignError> {
    let issuer = ctx.settings.issuer();
    let ttl = ctx.settings.lifetimes.access_token;
    let keys = ctx.keyring().await;
    let signer = keys.signer(grant.alg)?;
    let scope = scopes.join(" ");
    let has = |scope: &str| scopes.iter().any(|s| s == scope);
    let client_credentials = grant.kind == GrantKind::ClientCredentials;
    // The claims borrow from the grant, the identity and the settings: nothing is copied
    // but the new values (jti, at_hash) and the scope string the response reports.
    let sid = grant.sid.as_ref().map(Cow::from);
    // How the person authenticated, as the request asked to hear it (authn): a client's own
    // token says the lowest level.
    let acr = if client_credentials {
        ACR
    } else {
        grant.claims.acr.reported(grant.method.acr()).as_str()
    };
    let at = AccessTokenClaims {
        exp: now.secs() + ttl,
        iat: now.secs(),
        auth_time: grant.auth_time.secs(),
        jti: random::uuid_v4(ctx.random.as_ref()).to_string().into(),
        iss: Cow::Borrowed(&issuer),
        aud: Cow::Borrowed(resource.unwrap_or(grant.client_id.as_str())),
        sub: Cow::from(&grant.sub),
        typ: TokenTyp::Bearer,
        azp: Cow::from(&grant.client_id),
        acr: Cow::Borrowed(acr),
        scope: Cow::Borrowed(&scope),
        gid: Cow::from(&grant.id),
        session_state: sid.clone(),
        sid: sid.clone(),
        gty: client_credentials.then_some(Gty::ClientCredentials),
        client_id: client_credentials.then(|| Cow::from(&grant.client_id)),
        service_id: identity.map(|i| Cow::Borrowed(i.service_id.as_str())),
        // Only what the scopes release (docs/requirements.md: claims follow consent).
        preferred_username: identity
            .filter(|_| has("profile"))
            .map(|i| Cow::Borrowed(i.name.as_str())),
        groups: identity
            .filter(|_| grant::releases_groups(scopes))
            .map(|i| Cow::Borrowed(i.groups.as_slice())),
        cnf: jkt.map(|j| Confirmation { jkt: j.to_owned() }),
        act: None,
    };
    let access_token = jwt::encode(signer.as_ref(), "JWT", &at).await?;
    let id_token = match identity {
        Some(i) if has("openid") => {
            let c = &grant.claims;
            let id = IdTokenClaims {
                iss: Cow::Borrowed(&issuer),
                // Keycloak's marker, and what logout requires of an id_token_hint.
                typ: TokenTyp::Id,
                sub: Cow::from(&grant.sub),
                aud: Cow::from(&grant.client_id),
                exp: now.secs() + ttl,
                iat: now.secs(),
                auth_time: grant.auth_time.secs(),
                nonce: grant.nonce.as_deref().map(Cow::Borrowed),
                at_hash: grant::at_hash(&access_token).into(),
                azp: Cow::from(&grant.client_id),
                acr: Cow::Borrowed(acr),
                amr: grant
                    .method
                    .amr()
                    .iter()
                    .map(|m| Cow::Borrowed(*m))
                    .collect(),
                sid: sid.clone(),
                session_state: sid,
                service_id: Cow::Borrowed(&i.service_id),
                profile: grant::profile_claims(i, scopes, &c.id_token, c.locale.as_deref()),
            };
            Some(jwt::encode(signer.as_ref(), "JWT", &id).await?)
        }
        _ => None,
    };
    let refresh_expires_in = refresh_expires_in(ctx, grant, refresh_token.is_some());
    Ok(Issued {
        access_token,
        id_token,
        refresh_token,
        expires_in: ttl,
        refresh_expires_in,
        scope,
        session_state: grant.sid.clone().map(Into::into),
        cnf_jkt: jkt.map(str::to_owned),
        issued_token_type: None,
    })
}

/// `refresh_expires_in`: the refresh token's lifetime, 0 for an offline one (as Keycloak
/// reports it) and for none.
fn refresh_expires_in(ctx: &Context, grant: &Grant, has_refresh_token: bool) -> i64 {
    match (has_refresh_token, grant.offline) {
        (true, false) => grant.refresh_ttl(&ctx.settings.lifetimes),
        _ => 0,
    }
}
