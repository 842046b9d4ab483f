//! What resource servers and relying parties ask about tokens: is an access token live
//! (introspection, RFC 7662; userinfo, OIDC Core §5.3), revocation (RFC 7009), and the end of
//! a session (OIDC RP-Initiated Logout 1.0).
//!
//! A token is live only if its signature, `exp` and issuer check out AND its client still
//! exists AND its grant is neither revoked nor expired AND (for a user's non-offline grant) its
//! SSO session still exists AND its identity is not disabled. Logout and revocation therefore take effect at once, though
//! the tokens are stateless JWTs.

use std::borrow::Cow;

use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::client::Client;
use crate::domain::grant::{Grant, RefreshRecord};
use crate::domain::identity::Identity;
use crate::keys::jwt;
use crate::protocol::claims::TokenTyp;
use crate::protocol::responses::TokenType;
use crate::protocol::{AccessTokenClaims, IntrospectionResponse, UserinfoResponse};
use crate::service::grants::find_refresh_token;
use crate::service::sessions::end_session;
use crate::store::{Grants, StoreError};

// Callers outside the core (the operator's CLI, the integration tests) end sessions by these
// paths; the sessions service owns them.
pub use crate::service::sessions::{end_known_session, end_sessions_of};
// DPoP proofs at userinfo, introspection and revocation (RFC 9449 §7).
pub use crate::service::dpop::{check as check_dpop, DpopError};
// Whether an access token is live is asked by the token endpoint too (token exchange): the
// live-tokens service owns the rule.
use crate::service::live_tokens::{delegated_marker, live_grant};
pub use crate::service::live_tokens::{live_access_token, LiveToken};

/// The `typ` and media type of a signed introspection response (RFC 9701 §4).
pub const INTROSPECTION_JWT: &str = "token-introspection+jwt";

/// RFC 9701 §5: the introspection response as a JWT for the `caller` that asked for one
/// (`Accept: application/token-introspection+jwt`): `iss`, `aud` the caller, `iat`, and the
/// response in `token_introspection`, signed with the caller's algorithm (the realm's by
/// default). A signing failure (a KMS outage) is answered as the store's: 503.
pub async fn signed_introspection(
    ctx: &Context,
    caller: &Client,
    response: &IntrospectionResponse,
    now: Timestamp,
) -> Result<String, StoreError> {
    let claims = serde_json::json!({
        "iss": ctx.settings.issuer(),
        "aud": caller.client_id.as_str(),
        "iat": now.secs(),
        "token_introspection": response,
    });
    let keys = ctx.keyring().await;
    let alg = caller.token_alg.unwrap_or(ctx.settings.signing_alg);
    match keys.signer(alg) {
        Ok(signer) => jwt::encode(signer.as_ref(), INTROSPECTION_JWT, &claims).await,
        Err(e) => Err(e),
    }
    .map_err(|e| {
        // On Lambda the introspection function holds no signer (fapi.md).
        tracing::error!(error = %e, alg = alg.as_str(), "an introspection response could not be signed");
        StoreError::Unavailable(Box::new(e))
    })
}

/// The refresh token's grant, if the token is live (current generation).
async fn live_refresh_token(
    ctx: &Context,
    token: &str,
    now: Timestamp,
) -> Result<Option<(RefreshRecord, Grant, Option<Identity>)>, StoreError> {
    if token.len() > crate::domain::grant::MAX_REFRESH_TOKEN_LEN {
        return Ok(None);
    }
    let locator = crate::domain::grant::refresh_token_locator(token);
    let Some(r) = find_refresh_token(ctx, token, &locator, now).await? else {
        return Ok(None);
    };
    let Some((g, _, i)) = live_grant(ctx, &r.grant_id, now).await? else {
        return Ok(None);
    };
    if r.generation != g.generation {
        return Ok(None);
    }
    Ok(Some((r, g, i)))
}

/// RFC 7662 §2.2: the response for `token` to the authenticated `caller`; exactly
/// `{"active": false}` for anything not live (docs/requirements.md I2), and for anything the caller may
/// not see (RFC 7662 §4): a refresh token only by its own client, an access token by its own
/// client or by a registered resource server. The hint is not trusted (I3): both kinds are
/// tried.
pub async fn introspect(
    ctx: &Context,
    caller: &Client,
    token: &str,
    now: Timestamp,
) -> Result<IntrospectionResponse, StoreError> {
    let inactive = IntrospectionResponse::inactive();
    if let Some(t) = live_access_token(ctx, token, now).await? {
        // The token's client: the grant's, or the agent an exchanged token was issued to.
        if t.client.client_id != caller.client_id && !caller.resource_server {
            return Ok(inactive);
        }
        let c = t.claims;
        let username = t
            .identity
            .filter(|_| c.has_scope("profile"))
            .map(|i| i.name);
        return Ok(IntrospectionResponse {
            active: true,
            exp: Some(c.exp),
            iat: Some(c.iat),
            auth_time: Some(c.auth_time),
            // A token read back owns its claims: these move, nothing is copied.
            jti: Some(c.jti.into_owned()),
            iss: Some(c.iss.into_owned()),
            aud: Some(c.aud.into_owned()),
            sub: Some(c.sub.into_owned().into()),
            typ: Some(c.typ),
            azp: Some(c.azp.into_owned().into()),
            session_state: c.session_state.map(|s| s.into_owned().into()),
            acr: Some(c.acr.into_owned()),
            scope: Some(c.scope.into_owned()),
            sid: c.sid.map(|s| s.into_owned().into()),
            service_id: c.service_id.map(Cow::into_owned),
            // As the token has them, not as the identity has them now.
            groups: c.groups.map(Cow::into_owned),
            client_id: Some(t.client.client_id.into()),
            username,
            token_type: Some(if c.cnf.is_some() {
                TokenType::DPoP
            } else {
                TokenType::Bearer
            }),
            cnf: c.cnf,
            act: c.act,
        });
    }
    if let Some((_, g, i)) = live_refresh_token(ctx, token, now).await? {
        if g.client_id != caller.client_id {
            return Ok(inactive);
        }
        let has = |scope: &str| g.scopes.iter().any(|s| s == scope);
        let (username, service_id, groups) = match i {
            Some(i) => (
                has("profile").then(|| i.name.clone()),
                Some(i.service_id.clone()),
                crate::domain::grant::releases_groups(&g.scopes).then(|| i.groups.clone()),
            ),
            None => (None, None, None),
        };
        return Ok(IntrospectionResponse {
            active: true,
            iat: Some(g.rotated_at.secs()),
            iss: Some(ctx.settings.issuer()),
            aud: Some(g.client_id.clone().into()),
            sub: Some(g.sub.clone().into()),
            typ: Some(if g.offline {
                TokenTyp::Offline
            } else {
                TokenTyp::Refresh
            }),
            azp: Some(g.client_id.clone().into()),
            scope: Some(g.scopes.join(" ")),
            client_id: Some(g.client_id.clone().into()),
            token_type: Some(TokenType::RefreshToken),
            sid: g.sid.clone().map(Into::into),
            session_state: g.sid.clone().map(Into::into),
            username,
            service_id,
            groups,
            ..IntrospectionResponse::inactive()
        });
    }
    Ok(inactive)
}

/// RFC 7009 §2.1: revokes `token` if it belongs to `client_id`; unknown or foreign tokens are
/// ignored (the answer is 200 either way). Revoking either kind revokes the grant, so a
/// refresh token's access tokens die with it (docs/requirements.md V1).
pub async fn revoke(
    ctx: &Context,
    client_id: &str,
    token: &str,
    now: Timestamp,
) -> Result<(), StoreError> {
    if token.len() <= crate::domain::grant::MAX_REFRESH_TOKEN_LEN {
        let locator = crate::domain::grant::refresh_token_locator(token);
        if let Some(r) = find_refresh_token(ctx, token, &locator, now).await? {
            if r.client_id == client_id {
                ctx.store.revoke_grant(&r.grant_id, now).await?;
                Audit::new(Event::TokenRevoked).client(client_id).emit();
            }
            return Ok(());
        }
    }
    let keys = ctx.keyring().await;
    if let Ok(claims) = jwt::verify::<AccessTokenClaims>(&keys, token, &ctx.settings.issuer(), now)
    {
        if claims.azp.as_str() == client_id {
            if claims.act.is_some() {
                // An exchanged token: the agent ends its own token, never the person's grant.
                ctx.store
                    .mark_token_revoked(&delegated_marker(&claims.jti), claims.exp, now)
                    .await?;
            } else if claims.gty.is_some() {
                // Client credentials: stateless, so a marker until it would have expired.
                ctx.store
                    .mark_token_revoked(&claims.gid, claims.exp, now)
                    .await?;
            } else {
                ctx.store.revoke_grant(&claims.gid, now).await?;
            }
            Audit::new(Event::TokenRevoked).client(client_id).emit();
        }
    }
    Ok(())
}

/// Keycloak's back-channel logout (`POST .../logout` with client authentication and a refresh
/// token): revokes the refresh token's grant and ends its SSO session. `false` when the token
/// is not a live refresh token of `client_id`.
pub async fn logout_by_refresh_token(
    ctx: &Context,
    client_id: &str,
    refresh_token: &str,
    now: Timestamp,
) -> Result<bool, StoreError> {
    let Some((record, grant, _)) = live_refresh_token(ctx, refresh_token, now).await? else {
        return Ok(false);
    };
    if record.client_id != client_id {
        return Ok(false);
    }
    ctx.store.revoke_grant(&grant.id, now).await?;
    if let Some(sid) = &grant.sid {
        end_session(ctx, sid, now).await?;
    }
    Audit::new(Event::Logout)
        .client(client_id)
        .subject(&grant.sub)
        .detail("backchannel")
        .emit();
    Ok(true)
}

/// The userinfo response (spec 2.4, with the spec's spelling `peferred_username` next to the
/// standard `preferred_username`): each claim only with the scope that releases it
/// (`crate::domain::grant::profile_claims`); `sub` and `service_id` identify the person
/// (`openid`).
pub fn userinfo<'i>(t: &LiveToken, identity: &'i Identity) -> UserinfoResponse<'i> {
    let scopes: Vec<String> = t.claims.scopes().map(str::to_owned).collect();
    let profile = scopes.iter().any(|s| s == "profile");
    UserinfoResponse {
        sub: identity.sub.clone().into(),
        service_id: identity.service_id.clone(),
        profile: crate::domain::grant::profile_claims(
            identity,
            &scopes,
            &t.grant.claims.userinfo,
            t.grant.claims.locale.as_deref(),
        ),
        peferred_username: profile.then(|| identity.name.clone()),
        username: profile.then(|| identity.name.clone()),
    }
}
