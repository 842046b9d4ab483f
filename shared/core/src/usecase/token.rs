//! The token endpoint's decisions (RFC 6749 §3.2, §4.1.3, §4.4, §6; RFC 7636 §4.6; RFC 8628
//! §3.4, §3.5): one grant per grant type, the device code's among them. Client authentication
//! and the signing of the tokens are services ([`crate::service::client_auth`],
//! [`crate::service::issuance`]).

use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::client::Client;
use crate::domain::device_grant::{DeviceAuthorization, PollDecision};
use crate::domain::discovery::SCOPES;
use crate::domain::grant::{self, Grant, GrantKind, Issued, RefreshCheck, RefreshRecord};
use crate::domain::identity::Identity;
use crate::domain::login::{self, AuthCode, Authenticated, SsoSession};
use crate::domain::profile::RefreshRotation;
use crate::domain::ratelimit::Source;
use crate::domain::resource_indicator;
use crate::domain::token_checks::{
    self, CodePresented, CodeRefusal, RefreshAccepted, RefreshPresented, Stored,
};
use crate::protocol::{
    CodeHash, GrantId, OAuthErrorCode, Scopes, SessionId, Subject, TokenRequest,
};
use crate::protocol::{GrantType, Params};
use crate::random;
use crate::service::dpop;
use crate::service::exchange::{exchange, ExchangeRequest};
use crate::service::grants::revoked_by_identity;
use crate::service::issuance::oauth;
use crate::service::sessions::end_session;
use crate::store::typed::Versioned;
use crate::store::{Codes, DeviceGrants, Grants, IdentityStore, Outcome, SsoSessions, StoreError};

// The token endpoint's client authentication and token issuance are services other use cases
// share (the device authorization endpoint, introspection, revocation, logout); callers
// outside the core name them here, with the endpoint they belong to.
pub use crate::service::client_auth::{authenticate, Presented};
pub use crate::service::dpop::{current_nonce as dpop_nonce, Presented as DpopPresented};
pub use crate::service::issuance::{sign_tokens, sign_tokens_bound, sign_tokens_for, TokenError};

fn invalid_grant(d: &'static str) -> TokenError {
    oauth(OAuthErrorCode::InvalidGrant, d)
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
    // A client's own tokens and an agent's delegation need a confidential client.
    let public_allowed = !matches!(
        kind,
        GrantType::ClientCredentials | GrantType::TokenExchange | GrantType::Ciba
    );
    let client = authenticate(ctx, presented, public_allowed, source).await?;
    if !client.allows(kind) {
        return Err(oauth(
            OAuthErrorCode::UnauthorizedClient,
            "this client may not use this grant type",
        ));
    }
    // DPoP (RFC 9449 §5): a proof binds the access token to its key.
    let proof = dpop::at_token(ctx, presented.dpop.as_ref()).await?;
    if proof.is_none() && client.dpop_bound_access_tokens {
        return Err(oauth(
            OAuthErrorCode::InvalidDpopProof,
            "this client's access tokens are DPoP-bound: send a DPoP proof",
        ));
    }
    let jkt = proof.as_ref().map(|p| p.jkt.as_str());
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
        } => {
            let presented = (code, redirect_uri, code_verifier);
            code_grant(ctx, &client, presented, &resource, jkt).await
        }
        TokenRequest::RefreshToken {
            refresh_token,
            scope,
        } => refresh_grant(ctx, &client, refresh_token, scope, &resource, jkt).await,
        TokenRequest::ClientCredentials { scope } => {
            client_credentials(ctx, &client, scope, &resource, jkt).await
        }
        TokenRequest::DeviceCode { device_code } => {
            // A device authorization grants no resource (its request takes none): a `resource`
            // is one not granted, `invalid_target` before the poll counts.
            audience(ctx, &resource, Some(&[]))?;
            poll_device_code_bound(ctx, &client, (device_code, false), jkt).await
        }
        TokenRequest::Ciba { auth_req_id } => {
            // A backchannel request is a device authorization that names its person
            // (`domain::ciba`): polled, refused and redeemed the same way.
            audience(ctx, &resource, Some(&[]))?;
            poll_device_code_bound(ctx, &client, (auth_req_id, true), jkt).await
        }
        TokenRequest::TokenExchange {
            subject_token,
            scope,
            audience,
        } => {
            let req = ExchangeRequest {
                subject_token,
                scope,
                audience,
                resource: &resource,
            };
            exchange(ctx, &client, req).await
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
    (code, redirect_uri, verifier): (&str, &str, Option<&str>),
    resource: &[String],
    jkt: Option<&str>,
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
    // A code bound to a DPoP key (`dpop_jkt`, RFC 9449 §10) is redeemed only with a proof by it.
    if c.dpop_jkt.is_some() && c.dpop_jkt.as_deref() != jkt {
        return Err(invalid_grant(
            "the code is bound to a DPoP key (dpop_jkt): send a DPoP proof by that key",
        ));
    }
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
    let (rt, rt_hash) = grant::new_bound_refresh_token(
        &ctx.settings,
        ctx.random.as_ref(),
        &g,
        Some(&family),
        refresh_binding(client, jkt),
        now,
    );
    // Sign first: if KMS is down the code is still unredeemed and the client can retry
    // (F1, F2); the tokens are handed out only once the transaction has committed.
    let tokens = (g.scopes.as_slice(), Some(&identity), Some(rt));
    let tokens = sign_tokens_bound(ctx, &g, tokens, now, (aud.as_deref(), jkt)).await?;
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
    if revoked_by_identity(g, identity) {
        return Err(invalid_grant("the grant was revoked"));
    }
    Ok(())
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

/// The DPoP key a new refresh token is bound to: a public client's proof key (RFC 9449 §5;
/// a confidential client's refresh tokens are bound by its authentication already).
fn refresh_binding<'a>(client: &Client, jkt: Option<&'a str>) -> Option<&'a str> {
    jkt.filter(|_| client.client_type == crate::domain::client::ClientType::Public)
}

async fn refresh_grant(
    ctx: &Context,
    client: &Client,
    rt: &str,
    scope: Option<&str>,
    resource: &[String],
    jkt: Option<&str>,
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
    // A refresh token bound to a DPoP key (a public client's) needs a proof by that key.
    let bound = grant::refresh_token_jkt(rt);
    if bound.is_some() && bound.as_deref() != jkt {
        return Err(invalid_grant(
            "the refresh token is DPoP-bound: send a DPoP proof by its key",
        ));
    }
    let identity = live_identity(ctx, &g.value.sub, now).await?;
    grant_still_live(ctx, &g.value, &identity, now).await?;
    let window = client
        .refresh_rotation
        .window()
        .map_or(grant::REFRESH_GRACE_SECS, i64::from);
    if g.value.check_within(r.generation, now, window) == RefreshCheck::Reused {
        return Err(reused(ctx, client, &g.value, now).await?);
    }
    if client.refresh_rotation == RefreshRotation::Off {
        // No rotation (FAPI 2.0 §5.3.2.1): the same token answered again, nothing written,
        // so concurrent uses all succeed; a revocation or the token's expiry ends it. The
        // access token is bound to the proof's key as at any other refresh (RFC 9449 §5).
        let tokens = (scopes.as_slice(), Some(&identity), Some(rt.to_owned()));
        return Ok(sign_tokens_bound(ctx, &g.value, tokens, now, (aud.as_deref(), jkt)).await?);
    }
    let mut next = g.value.clone();
    next.generation += 1;
    next.rotated_at = now;
    let exp = now
        .plus_secs(next.refresh_ttl(&ctx.settings.lifetimes))
        .secs();
    // A token that carries a family key was found in its grant's record, which keeps the
    // family ([`Grants::find_refresh_token`]): the next one carries the same key.
    let (new_rt, new_hash) = grant::new_bound_refresh_token(
        &ctx.settings,
        ctx.random.as_ref(),
        &next,
        locator.family.as_deref(),
        bound.as_deref(),
        now,
    );
    let rec = RefreshRecord {
        grant_id: next.id.clone(),
        client_id: next.client_id.clone(),
        generation: next.generation,
    };
    // Sign first, commit second: a KMS outage leaves the refresh token unrotated (F2).
    let tokens = (scopes.as_slice(), Some(&identity), Some(new_rt));
    let tokens = sign_tokens_bound(ctx, &next, tokens, now, (aud.as_deref(), jkt)).await?;
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

/// A rotated refresh token presented again outside its window: the grant's family is revoked
/// and its session ended (a stolen refresh token is a compromised session).
async fn reused(
    ctx: &Context,
    client: &Client,
    g: &Grant,
    now: Timestamp,
) -> Result<TokenError, StoreError> {
    tracing::warn!(grant = %g.id, "rotated refresh token reused; revoking the family");
    ctx.store.revoke_grant(&g.id, now).await?;
    if let Some(sid) = &g.sid {
        end_session(ctx, sid, now).await?;
    }
    Audit::new(Event::RefreshReused)
        .client(&client.client_id)
        .subject(&g.sub)
        .outcome("family_revoked")
        .emit();
    Ok(invalid_grant(
        "the refresh token was already used; the grant is revoked",
    ))
}

/// The token endpoint's `urn:ietf:params:oauth:grant-type:device_code` for the authenticated
/// `client` (RFC 8628 §3.4, §3.5).
pub async fn poll_device_code(
    ctx: &Context,
    client: &Client,
    device_code: &str,
) -> Result<Issued, TokenError> {
    poll_device_code_bound(ctx, client, (device_code, false), None).await
}

/// [`poll_device_code`], the tokens bound to the DPoP key `jkt` when a proof came; with
/// `backchannel`, the code is a CIBA `auth_req_id` (and only a backchannel request's).
async fn poll_device_code_bound(
    ctx: &Context,
    client: &Client,
    (device_code, backchannel): (&str, bool),
    jkt: Option<&str>,
) -> Result<Issued, TokenError> {
    let now = ctx.clock.now();
    let unknown = || {
        invalid_grant(if backchannel {
            "invalid or used auth_req_id"
        } else {
            "invalid or used device code"
        })
    };
    if device_code.len() > 256 {
        return Err(unknown());
    }
    let hash = login::hash(device_code);
    let Some(old) = ctx.store.device_authorization(&hash, now).await? else {
        return Err(unknown());
    };
    if old.value.backchannel.is_some() != backchannel {
        return Err(unknown());
    }
    // A code of an earlier registration of this client_id (deleted, then registered again).
    if old.value.created_at.secs() < client.created_at.secs() {
        return Err(unknown());
    }
    let mut next = old.value.clone();
    match next.poll(&client.client_id, now) {
        PollDecision::WrongClient => Err(oauth(
            OAuthErrorCode::InvalidGrant,
            "the code was issued to another client",
        )),
        PollDecision::Expired => Err(oauth(
            OAuthErrorCode::ExpiredToken,
            "the request expired; start again",
        )),
        PollDecision::Denied => Err(oauth(
            OAuthErrorCode::AccessDenied,
            "the user denied the request",
        )),
        decision @ (PollDecision::Pending | PollDecision::SlowDown) => {
            // Only a poll that changes the record writes it: past the interval's ceiling a
            // device polling without pause is answered from what is stored.
            let lost = next != old.value
                && ctx
                    .store
                    .update_device_authorization(&old, &next, now)
                    .await?
                    == Outcome::Lost;
            // Lost: another poll of this code at the same moment, which is too soon.
            if decision == PollDecision::SlowDown || lost {
                Err(oauth(
                    OAuthErrorCode::SlowDown,
                    "polling too often: wait the interval, now 5 seconds longer",
                ))
            } else {
                Err(oauth(
                    OAuthErrorCode::AuthorizationPending,
                    "waiting for the user to approve",
                ))
            }
        }
        PollDecision::Issue {
            sub,
            auth_time,
            method,
        } => {
            let who = Authenticated {
                sub,
                auth_time,
                method,
            };
            issue_device_tokens(ctx, client, &hash, (&old, &who), now, jkt).await
        }
    }
}

/// The grant an approved device authorization starts, in the SSO session `sid` of its own.
fn device_grant_record(
    ctx: &Context,
    client: &Client,
    approved: &Versioned<DeviceAuthorization>,
    who: &Authenticated,
    sid: &SessionId,
    now: Timestamp,
) -> Grant {
    let scopes = approved.value.scopes.clone();
    Grant {
        id: GrantId::new(random::token(ctx.random.as_ref(), 16)),
        // Tokens like the code flow's: user tokens with a session and refresh tokens.
        kind: GrantKind::AuthorizationCode,
        client_id: client.client_id.clone(),
        sub: Subject::new(who.sub.as_str()),
        sid: Some(sid.clone()),
        offline: scopes.iter().any(|s| s == "offline_access"),
        scopes,
        auth_time: who.auth_time,
        nonce: None,
        created_at: now,
        generation: 1,
        rotated_at: now,
        revoked: false,
        alg: client.token_alg.unwrap_or(ctx.settings.signing_alg),
        // Neither the `claims` parameter nor resource indicators are part of the device
        // authorization request here: the scopes alone say what is released.
        claims: Default::default(),
        resources: Vec::new(),
        method: who.method,
    }
}

/// The approved code's tokens, as for the code flow: a session of their own (its `sid`), a
/// grant, an access token, an id token when `openid` was asked for, and a refresh token.
async fn issue_device_tokens(
    ctx: &Context,
    client: &Client,
    hash: &str,
    (approved, who): (&Versioned<DeviceAuthorization>, &Authenticated),
    now: Timestamp,
    jkt: Option<&str>,
) -> Result<Issued, TokenError> {
    let (sub, auth_time) = (who.sub.as_str(), who.auth_time);
    let identity = match ctx.store.identity(sub, now).await? {
        // Approved before the identity ended every session (a replaced key): nothing issued.
        Some((i, _))
            if !i.disabled
                && i.tokens_not_before
                    .is_none_or(|nb| auth_time.millis() >= nb.millis()) =>
        {
            i
        }
        _ => {
            return Err(oauth(
                OAuthErrorCode::InvalidGrant,
                "the identity can no longer log in",
            ))
        }
    };
    let lifetimes = ctx.settings.lifetimes;
    // "This wasn't me" on the approval names this session by it (its `sid`, issue 38).
    let link = crate::domain::device_grant::login_link(hash);
    let (mut sso, _cookie) = SsoSession::for_login(sub, &link, auth_time, now, ctx.random.as_ref());
    sso.method = who.method;
    // The client takes part in the session (back-channel logout tells it when it ends).
    sso.clients.push(client.client_id.clone());
    let sso_exp = sso.expires_at(now, lifetimes.sso_idle, lifetimes.sso_max);
    let g = device_grant_record(ctx, client, approved, who, &sso.sid, now);
    let exp = now.plus_secs(g.refresh_ttl(&lifetimes)).secs();
    let binding = refresh_binding(client, jkt);
    let (rt, rt_hash) =
        grant::new_bound_refresh_token(&ctx.settings, ctx.random.as_ref(), &g, None, binding, now);
    let refresh = RefreshRecord {
        grant_id: g.id.clone(),
        client_id: g.client_id.clone(),
        generation: 1,
    };
    // Sign first: if signing fails the code is still unspent and the device polls again.
    let tokens = (g.scopes.as_slice(), Some(&identity), Some(rt));
    let tokens = sign_tokens_bound(ctx, &g, tokens, now, (None, jkt)).await?;
    match ctx
        .store
        .redeem_device_code(
            hash,
            approved,
            (&sso, sso_exp),
            &g,
            &rt_hash,
            &refresh,
            exp,
            now,
        )
        .await?
    {
        Outcome::Done => {
            let until = now.plus_secs(lifetimes.sso_max).secs();
            if let Err(e) = ctx
                .store
                .remember_identity_session(sub, &sso.sid, until, now)
                .await
            {
                tracing::warn!(error = %e, "recording an identity's session failed");
            }
            Ok(tokens)
        }
        Outcome::Lost => Err(oauth(
            OAuthErrorCode::InvalidGrant,
            "invalid or used device code",
        )),
    }
}

async fn client_credentials(
    ctx: &Context,
    client: &Client,
    scope: Option<&str>,
    resource: &[String],
    jkt: Option<&str>,
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
        sub: Subject::new(client.client_id.as_str()),
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
    let tokens = (g.scopes.as_slice(), None, None);
    Ok(sign_tokens_bound(ctx, &g, tokens, now, (aud.as_deref(), jkt)).await?)
}
