//! The token endpoint's decisions (RFC 6749 §3.2, §4.1.3, §4.4, §6; RFC 7636 §4.6) and client
//! authentication for every endpoint that takes a client secret.

use std::borrow::Cow;

use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::client::{Client, ClientType};
use crate::domain::discovery::SCOPES;
use crate::domain::grant::{self, Grant, GrantKind, Issued, RefreshCheck, RefreshRecord};
use crate::domain::identity::Identity;
use crate::domain::login::{self, AuthCode};
use crate::domain::ratelimit::{Counted, Limit, Source};
use crate::domain::resource_indicator;
use crate::domain::token_checks::{
    self, CodePresented, CodeRefusal, RefreshAccepted, RefreshPresented, Stored,
};
use crate::keys::{jwt, SignError};
use crate::protocol::claims::{Gty, ACR};
use crate::protocol::{
    AccessTokenClaims, CodeHash, GrantId, IdTokenClaims, OAuthError, OAuthErrorCode, Scopes,
    TokenRequest, TokenTyp,
};
use crate::protocol::{GrantType, Params};
use crate::random;
use crate::store::typed::Versioned;
use crate::store::{ClientStore, Codes, Grants, IdentityStore, Outcome, SsoSessions, StoreError};
use crate::usecase::ratelimit;

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
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Signing failed.
    #[error(transparent)]
    Sign(#[from] SignError),
}

fn oauth(code: OAuthErrorCode, d: impl Into<Cow<'static, str>>) -> TokenError {
    TokenError::OAuth(OAuthError::new(code, d))
}

fn invalid_grant(d: &'static str) -> TokenError {
    oauth(OAuthErrorCode::InvalidGrant, d)
}

/// Credentials as presented: HTTP Basic (already decoded) and/or the body.
#[derive(Clone, Default)]
pub struct Presented {
    /// HTTP Basic's id and secret.
    pub basic: Option<(String, String)>,
    /// `client_id` in the body.
    pub body_id: Option<String>,
    /// `client_secret` in the body.
    pub body_secret: Option<String>,
}

impl std::fmt::Debug for Presented {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Presented")
            .field("basic_id", &self.basic.as_ref().map(|(id, _)| id))
            .field("body_id", &self.body_id)
            .field("secret", &"<redacted>")
            .finish()
    }
}

impl Presented {
    /// The credentials of a request: Basic, and the body's `client_id` and `client_secret`.
    pub fn from_params(
        basic: Option<(String, String)>,
        params: &Params,
    ) -> Result<Self, TokenError> {
        let one = |n: &'static str| {
            params
                .one(n)
                .map_err(|_| oauth(OAuthErrorCode::InvalidRequest, "a parameter is repeated"))
        };
        Ok(Self {
            basic,
            body_id: one("client_id")?.map(str::to_owned),
            body_secret: one("client_secret")?.map(str::to_owned),
        })
    }
}

/// Authenticates the client (client_secret_basic, client_secret_post, or none for public
/// clients when `allow_public`).
///
/// A correct secret is always accepted: client secrets are service-generated with 256 bits of
/// entropy, so locking a client after failures would protect nothing and hand anyone who knows
/// the (public) client_id a switch to lock it out. Failures are counted against the *source*
/// instead; over [`crate::config::Limits::auth_failures_per_minute`] it gets 429 (docs/requirements.md
/// T2), at no cost to the operator (no sleeping). A public client has no secret to guess, so
/// its failures are never counted.
pub async fn authenticate(
    ctx: &Context,
    p: &Presented,
    allow_public: bool,
    source: &Source,
) -> Result<Client, TokenError> {
    let now = ctx.clock.now();
    let (id, secret) = match (&p.basic, &p.body_secret) {
        (Some(_), Some(_)) => {
            return Err(oauth(
                OAuthErrorCode::InvalidRequest,
                "use one client authentication method",
            ))
        }
        (Some((id, secret)), None) => {
            if p.body_id.as_deref().is_some_and(|b| b != id) {
                return Err(oauth(
                    OAuthErrorCode::InvalidRequest,
                    "client_id differs from the authenticated client",
                ));
            }
            (id.clone(), Some(secret.clone()))
        }
        (None, secret) => match &p.body_id {
            Some(id) => (id.clone(), secret.clone()),
            None => {
                return Err(TokenError::InvalidClient(
                    "client authentication is required",
                ))
            }
        },
    };
    let client = match crate::protocol::ClientId::parse(&id) {
        Ok(id) => ctx.store.client(&id, now).await?.map(|(c, _)| c),
        Err(_) => None,
    };
    let public = client
        .as_ref()
        .is_some_and(|c| c.client_type == ClientType::Public);
    let ok = match (&client, &secret) {
        (Some(c), Some(s)) if c.client_type == ClientType::Confidential => c.secret_matches(s),
        (Some(c), None) if c.client_type == ClientType::Public => allow_public,
        _ => false,
    };
    match client {
        // RFC 7591 §2: a self-registered client uses the method it registered. The secret was
        // right, so this is not counted as a guess.
        Some(c) if ok && !public && !c.accepts_secret_by(p.basic.is_some()) => Err(
            TokenError::InvalidClient("this client registered another token_endpoint_auth_method"),
        ),
        Some(c) if ok => Ok(c),
        _ if public => Err(TokenError::InvalidClient(
            "this client may not authenticate here without a secret",
        )),
        _ => {
            Audit::new(Event::ClientAuthFailed)
                .client(if id.len() <= 128 { &id } else { "" })
                .source(source.as_str())
                .outcome("refused")
                .emit();
            match ratelimit::count(
                ctx.store.as_ref(),
                &ctx.settings.limits,
                Limit::ClientAuthFailure,
                source.as_str(),
                now,
            )
            .await?
            {
                Counted::Allowed => Err(TokenError::InvalidClient(
                    "unknown client or bad credentials",
                )),
                Counted::Limited { retry_after } => {
                    Err(TokenError::TooManyFailures { retry_after })
                }
            }
        }
    }
}

/// `POST .../token`: one variant per grant type. Returns the authenticated client with the
/// tokens (the edge answers CORS by its web origins).
pub async fn token(
    ctx: &Context,
    params: &Params,
    presented: &Presented,
    source: &Source,
) -> Result<(Client, Issued), TokenError> {
    let kind = TokenRequest::grant_type(params).map_err(TokenError::OAuth)?;
    let client = authenticate(ctx, presented, kind != GrantType::ClientCredentials, source).await?;
    if !client.allows(kind) {
        return Err(oauth(
            OAuthErrorCode::UnauthorizedClient,
            "this client may not use this grant type",
        ));
    }
    // RFC 8707: `resource` may be repeated in the form; `at_token` allows one.
    let resource: Vec<String> = params
        .all("resource")
        .into_iter()
        .map(str::to_owned)
        .collect();
    let issued = match TokenRequest::parameters(kind, params).map_err(TokenError::OAuth)? {
        TokenRequest::AuthorizationCode {
            code,
            redirect_uri,
            code_verifier,
        } => code_grant(ctx, &client, code, redirect_uri, code_verifier, &resource).await,
        TokenRequest::RefreshToken {
            refresh_token,
            scope,
        } => refresh_grant(ctx, &client, refresh_token, scope, &resource).await,
        TokenRequest::ClientCredentials { scope } => {
            client_credentials(ctx, &client, scope, &resource).await
        }
        TokenRequest::DeviceCode { device_code } => {
            // A device authorization grants no resource (its request takes none): a `resource`
            // is one not granted, `invalid_target` before the poll counts.
            audience(ctx, &resource, Some(&[]))?;
            super::device_grant::poll(ctx, &client, device_code).await
        }
    }?;
    Audit::new(Event::TokenIssued)
        .client(client.client_id.as_str())
        .source(source.as_str())
        .detail(kind.as_str())
        .emit();
    Ok((client, issued))
}

async fn live_identity(ctx: &Context, sub: &str, now: Timestamp) -> Result<Identity, TokenError> {
    match ctx.store.identity(sub, now).await? {
        Some((i, _)) if !i.disabled => Ok(i),
        _ => Err(invalid_grant("the identity can no longer log in")),
    }
}

/// A code redeemed twice: revoke what the first redemption issued (docs/requirements.md T3).
async fn replayed_code(
    ctx: &Context,
    client: &Client,
    code_hash: &CodeHash,
    now: Timestamp,
) -> Result<TokenError, StoreError> {
    if let Some(grant_id) = ctx.store.redeemed_as(code_hash, now).await? {
        tracing::warn!(grant = %grant_id, "authorization code replayed; revoking its grant");
        ctx.store.revoke_grant(&grant_id, now).await?;
        Audit::new(Event::CodeReplayed)
            .client(&client.client_id)
            .outcome("grant_revoked")
            .emit();
    }
    Ok(invalid_grant("invalid, expired or already used code"))
}

/// The access token's audience for `requested` (RFC 8707 §2.2): `invalid_target` when refused.
fn audience(
    ctx: &Context,
    requested: &[String],
    granted: Option<&[String]>,
) -> Result<Option<String>, TokenError> {
    resource_indicator::at_token(requested, granted, &ctx.settings.resources)
        .map_err(|e| oauth(OAuthErrorCode::InvalidTarget, e.description()))
}

/// The grant a redeemed code `c` starts: generation 1, its refresh token issued now.
fn code_grant_record(
    ctx: &Context,
    client: &Client,
    c: &AuthCode,
    id: GrantId,
    offline: bool,
    now: Timestamp,
) -> Grant {
    Grant {
        id,
        kind: GrantKind::AuthorizationCode,
        client_id: client.client_id.clone(),
        sub: c.sub.clone(),
        sid: Some(c.sid.clone()),
        scopes: c.scopes.clone(),
        auth_time: c.auth_time,
        nonce: c.nonce.clone(),
        claims: c.claims.clone(),
        created_at: now,
        offline,
        generation: 1,
        rotated_at: now,
        revoked: false,
        alg: client.token_alg.unwrap_or(ctx.settings.signing_alg),
        resources: c.resources.clone(),
        method: c.method,
    }
}

async fn code_grant(
    ctx: &Context,
    client: &Client,
    code: &str,
    redirect_uri: &str,
    verifier: Option<&str>,
    resource: &[String],
) -> Result<Issued, TokenError> {
    let now = ctx.clock.now();
    if code.len() > 256 {
        return Err(invalid_grant("invalid, expired or already used code"));
    }
    let code_hash = CodeHash::of(code);
    let pending = ctx.store.pending_code(&code_hash, now).await?;
    let presented = CodePresented {
        redirect_uri,
        code_verifier: verifier,
        resource,
    };
    let stored = pending.as_ref().map(|p| Stored {
        value: &p.code,
        expires_at: p.expires_at(),
    });
    let checked =
        token_checks::check_code(stored, client, &presented, &ctx.settings.resources, now);
    let (aud, pending) = match (checked, pending) {
        (Ok(aud), Some(pending)) => (aud, pending),
        (Err(CodeRefusal::NotLive | CodeRefusal::Expired), _) | (Ok(_), None) => {
            return Err(replayed_code(ctx, client, &code_hash, now).await?)
        }
        (Err(why), pending) => {
            // A code presented wrongly is burned: it may be known to an attacker. A refused
            // resource is not: the client may ask again for a granted one.
            if let Some(p) = pending.filter(|_| why.burns_code()) {
                ctx.store.burn_code(&p, now).await;
            }
            return Err(oauth(why.error_code(), why.description()));
        }
    };
    let c = &pending.code;
    let identity = live_identity(ctx, &c.sub, now).await?;
    let offline = c.scopes.iter().any(|s| s == "offline_access");
    // A login from before the identity ended every session (a replaced key), or one it
    // reported ("this wasn't me"; only an offline grant would outlive its ended session).
    if identity
        .tokens_not_before
        .is_some_and(|nb| c.auth_time.millis() < nb.millis())
        || (offline && ctx.store.session_grants_revoked(&c.sid, now).await?)
    {
        return Err(invalid_grant("the login was revoked"));
    }
    // The grant and its refresh tokens are kept in the code's record (issue 27): the grant's
    // id names the code, and each token names the grant and carries the family's key.
    let g = code_grant_record(ctx, client, c, pending.grant_id(), offline, now);
    let ttl = g.refresh_ttl(&ctx.settings.lifetimes);
    let exp = now.plus_secs(ttl).secs();
    let family = grant::new_family(ctx.random.as_ref());
    let (rt, rt_hash) =
        grant::new_refresh_token(&ctx.settings, ctx.random.as_ref(), &g, Some(&family), now);
    // Sign first: if KMS is down the code is still unredeemed and the client can retry
    // (F1, F2); the tokens are handed out only once the transaction has committed.
    let tokens = sign_tokens_for(
        ctx,
        &g,
        &g.scopes,
        Some(&identity),
        Some(rt),
        now,
        aud.as_deref(),
    )
    .await?;
    match ctx
        .store
        .redeem_code(
            &pending,
            &g,
            &rt_hash,
            &grant::family_hash(&family),
            exp,
            now,
        )
        .await?
    {
        Outcome::Done => {
            Audit::new(Event::CodeRedeemed)
                .client(&client.client_id)
                .subject(&g.sub)
                .emit();
            Ok(tokens)
        }
        Outcome::Lost => Err(replayed_code(ctx, client, &code_hash, now).await?),
    }
}

/// A refresh token's grant outlives neither its SSO session (unless offline), nor a
/// "this wasn't me" on that session, nor its identity ending every session.
async fn grant_still_live(
    ctx: &Context,
    g: &Grant,
    identity: &Identity,
    now: Timestamp,
) -> Result<(), TokenError> {
    if !g.offline {
        let sid = g.sid.clone().unwrap_or_default();
        if ctx.store.sso_session(&sid, now).await?.is_none() {
            return Err(invalid_grant("the session has ended"));
        }
    } else if let Some(sid) = &g.sid {
        if ctx.store.session_grants_revoked(sid, now).await? {
            return Err(invalid_grant("the grant was revoked"));
        }
    }
    if crate::usecase::resource::revoked_by_identity(g, identity) {
        return Err(invalid_grant("the grant was revoked"));
    }
    Ok(())
}

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

/// The stored refresh token `token` and, for `client`'s own token, its grant: read with the
/// token when the grant's record keeps it (one read), else by its id.
async fn refresh_token_and_grant(
    ctx: &Context,
    client: &Client,
    token: &str,
    locator: &grant::RefreshLocator,
    now: Timestamp,
) -> Result<(Option<RefreshRecord>, Option<Versioned<Grant>>), StoreError> {
    let found = ctx
        .store
        .refresh_token_with_grant(
            &login::hash(token),
            locator.gid.as_ref(),
            locator.family_hash().as_deref(),
            now,
        )
        .await?;
    Ok(match found {
        Some((r, _)) if r.client_id != client.client_id => (Some(r), None),
        Some((r, Some(g))) => (Some(r), Some(g)),
        Some((r, None)) => {
            let g = ctx.store.grant(&r.grant_id, now).await?;
            (Some(r), g)
        }
        None => (None, None),
    })
}

async fn refresh_grant(
    ctx: &Context,
    client: &Client,
    rt: &str,
    scope: Option<&str>,
    resource: &[String],
) -> Result<Issued, TokenError> {
    let now = ctx.clock.now();
    if rt.len() > grant::MAX_REFRESH_TOKEN_LEN {
        return Err(invalid_grant("invalid refresh token"));
    }
    let locator = grant::refresh_token_locator(rt);
    let (record, g) = refresh_token_and_grant(ctx, client, rt, &locator, now).await?;
    let stored = g.as_ref().map(|g| Stored {
        value: &g.value,
        expires_at: g.record.expires_at,
    });
    let presented = RefreshPresented { scope, resource };
    let registered = (SCOPES, ctx.settings.resources.as_slice());
    let (RefreshAccepted { scopes, aud }, Some(r), Some(g)) = (
        token_checks::check_refresh(record.as_ref(), stored, client, &presented, registered, now)
            .map_err(|why| oauth(why.error_code(), why.description()))?,
        record,
        g,
    ) else {
        return Err(invalid_grant("invalid or expired refresh token"));
    };
    let identity = live_identity(ctx, &g.value.sub, now).await?;
    grant_still_live(ctx, &g.value, &identity, now).await?;
    match g.value.check(r.generation, now) {
        RefreshCheck::Reused => {
            tracing::warn!(grant = %g.value.id, "rotated refresh token reused; revoking the family");
            ctx.store.revoke_grant(&g.value.id, now).await?;
            // A stolen refresh token is a compromised session: end it, and tell its clients.
            if let Some(sid) = &g.value.sid {
                crate::usecase::resource::end_session(ctx, sid, now).await?;
            }
            Audit::new(Event::RefreshReused)
                .client(&client.client_id)
                .subject(&g.value.sub)
                .outcome("family_revoked")
                .emit();
            return Err(invalid_grant(
                "the refresh token was already used; the grant is revoked",
            ));
        }
        RefreshCheck::Current | RefreshCheck::Grace => {}
    }
    let mut next = g.value.clone();
    next.generation += 1;
    next.rotated_at = now;
    let exp = now
        .plus_secs(next.refresh_ttl(&ctx.settings.lifetimes))
        .secs();
    // A token that carries a family key was found in its grant's record, which keeps the
    // family ([`Grants::find_refresh_token`]): the next one carries the same key.
    let (new_rt, new_hash) = grant::new_refresh_token(
        &ctx.settings,
        ctx.random.as_ref(),
        &next,
        locator.family.as_deref(),
        now,
    );
    let rec = RefreshRecord {
        grant_id: next.id.clone(),
        client_id: next.client_id.clone(),
        generation: next.generation,
    };
    // Sign first, commit second: a KMS outage leaves the refresh token unrotated (F2).
    let tokens = sign_tokens_for(
        ctx,
        &next,
        &scopes,
        Some(&identity),
        Some(new_rt),
        now,
        aud.as_deref(),
    )
    .await?;
    match ctx
        .store
        .rotate_grant(&g, &next, &new_hash, &rec, exp, now)
        .await?
    {
        Outcome::Done => {
            Audit::new(Event::RefreshRotated)
                .client(&client.client_id)
                .subject(&next.sub)
                .emit();
            Ok(tokens)
        }
        Outcome::Lost => Err(invalid_grant("the refresh token was used concurrently")),
    }
}

async fn client_credentials(
    ctx: &Context,
    client: &Client,
    scope: Option<&str>,
    resource: &[String],
) -> Result<Issued, TokenError> {
    let now = ctx.clock.now();
    let aud = resource_indicator::at_client_credentials(
        resource,
        client.registration.is_some(),
        &ctx.settings.resources,
    )
    .map_err(|e| oauth(OAuthErrorCode::InvalidTarget, e.description()))?;
    // Unknown values are ignored (as at authorization); offline_access is refused.
    let scopes = Scopes::supported(scope.unwrap_or(""), SCOPES);
    if scopes.contains("offline_access") {
        return Err(oauth(
            OAuthErrorCode::InvalidScope,
            "offline_access is not available here (no refresh token)",
        ));
    }
    let g = Grant {
        id: GrantId::new(random::token(ctx.random.as_ref(), 16)),
        kind: GrantKind::ClientCredentials,
        client_id: client.client_id.clone(),
        sub: crate::protocol::Subject::new(client.client_id.as_str()),
        sid: None,
        scopes,
        auth_time: now,
        nonce: None,
        claims: Default::default(),
        created_at: now,
        offline: false,
        generation: 0,
        rotated_at: now,
        revoked: false,
        alg: client.token_alg.unwrap_or(ctx.settings.signing_alg),
        resources: aud.iter().cloned().collect(),
        // No person: the tokens carry the lowest acr and no amr.
        method: Default::default(),
    };
    // Stateless: nothing is stored at issuance (no refresh token, no session); a revocation
    // writes a marker that introspection checks until the token would have expired.
    Ok(sign_tokens_for(ctx, &g, &g.scopes, None, None, now, aud.as_deref()).await?)
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
    };
    let access_token = jwt::encode(signer.as_ref(), "JWT", &at).await?;
    let id_token = match identity {
        Some(i) if has("openid") => {
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
                profile: grant::profile_claims(i, scopes, &grant.claims.id_token),
            };
            Some(jwt::encode(signer.as_ref(), "JWT", &id).await?)
        }
        _ => None,
    };
    let refresh_expires_in = match (&refresh_token, grant.offline) {
        (Some(_), true) => 0, // Keycloak reports 0 for offline tokens
        (Some(_), false) => grant.refresh_ttl(&ctx.settings.lifetimes),
        (None, _) => 0,
    };
    Ok(Issued {
        access_token,
        id_token,
        refresh_token,
        expires_in: ttl,
        refresh_expires_in,
        scope,
        session_state: grant.sid.clone().map(Into::into),
    })
}
