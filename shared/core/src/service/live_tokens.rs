//! Whether an access token is live (docs/requirements.md I2): its signature, `exp` and
//! issuer check out AND its client still exists AND its grant is neither revoked nor expired
//! AND (for a user's non-offline grant) its SSO session still exists AND its identity is not
//! disabled; for a token exchanged by an agent (RFC 8693, `act`), also every agent in its chain
//! is a live client the person still delegates to, and the token was not revoked. Asked by
//! introspection and userinfo, and by the token endpoint of a subject token.

use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::client::Client;
use crate::domain::grant::{Grant, GrantKind};
use crate::domain::identity::Identity;
use crate::keys::jwt;
use crate::protocol::claims::{Gty, TokenTyp};
use crate::protocol::{AccessTokenClaims, GrantId};
use crate::service::grants::revoked_by_identity;
use crate::store::{ClientStore, Grants, IdentityStore, SsoSessions, StoreError};

/// A live access token: its claims, grant, client and identity (none for client credentials).
#[derive(Debug, Clone)]
pub struct LiveToken {
    /// The token's claims.
    pub claims: AccessTokenClaims<'static>,
    /// Its grant.
    pub grant: Grant,
    /// Its client.
    pub client: Client,
    /// Its identity (none for client credentials).
    pub identity: Option<Identity>,
}

/// Is the client that got a token at `issued` still the same registration, and enabled? A
/// deleted client's tokens are dead everywhere, and stay dead if its `client_id` is registered
/// again; a disabled client's are inactive until it is enabled.
async fn live_client(
    ctx: &Context,
    client_id: &str,
    issued: Timestamp,
    now: Timestamp,
) -> Result<Option<Client>, StoreError> {
    if crate::protocol::ClientId::parse(client_id).is_err() {
        return Ok(None);
    }
    Ok(ctx
        .store
        .client(client_id, now)
        .await?
        .map(|(c, _)| c)
        .filter(|c| c.created_at.secs() <= issued.secs() && !c.disabled))
}

pub(crate) async fn live_grant(
    ctx: &Context,
    grant_id: &GrantId,
    now: Timestamp,
) -> Result<Option<(Grant, Client, Option<Identity>)>, StoreError> {
    let Some(g) = ctx.store.grant(grant_id, now).await? else {
        return Ok(None);
    };
    let g = g.value;
    if g.revoked {
        return Ok(None);
    }
    let Some(client) = live_client(ctx, &g.client_id, g.created_at, now).await? else {
        return Ok(None);
    };
    if g.kind == GrantKind::ClientCredentials {
        return Ok(Some((g, client, None)));
    }
    if !g.offline {
        let sid = g.sid.clone().unwrap_or_default();
        if ctx.store.sso_session(&sid, now).await?.is_none() {
            return Ok(None);
        }
    } else if let Some(sid) = &g.sid {
        // An offline grant outlives its session, but not a "this wasn't me" on it.
        if ctx.store.session_grants_revoked(sid, now).await? {
            return Ok(None);
        }
    }
    match ctx.store.identity(&g.sub, now).await? {
        Some((i, _)) if !i.disabled && !revoked_by_identity(&g, &i) => {
            Ok(Some((g, client, Some(i))))
        }
        _ => Ok(None),
    }
}

/// The access token, if live.
pub async fn live_access_token(
    ctx: &Context,
    token: &str,
    now: Timestamp,
) -> Result<Option<LiveToken>, StoreError> {
    let Ok(claims) =
        jwt::verify::<AccessTokenClaims>(&*ctx.keyring().await, token, &ctx.settings.issuer(), now)
    else {
        return Ok(None);
    };
    if claims.typ != TokenTyp::Bearer {
        return Ok(None);
    }
    if claims.gty == Some(Gty::ClientCredentials) {
        if ctx.store.token_revoked(&claims.gid, now).await? {
            return Ok(None);
        }
        let grant = client_credentials_grant(ctx, &claims);
        let Some(client) = live_client(ctx, &grant.client_id, grant.created_at, now).await? else {
            return Ok(None);
        };
        return Ok(Some(LiveToken {
            claims,
            grant,
            client,
            identity: None,
        }));
    }
    if claims.act.is_some() {
        return live_delegated(ctx, claims, now).await;
    }
    Ok(live_grant(ctx, &claims.gid, now)
        .await?
        .map(|(grant, client, identity)| LiveToken {
            claims,
            grant,
            client,
            identity,
        }))
}

/// The marker a revoked exchanged token leaves until it would have expired (its grant is the
/// person's, which the agent's revocation must not end): named by the token's `jti`.
pub(crate) fn delegated_marker(jti: &str) -> GrantId {
    GrantId::new(format!("act.{jti}"))
}

/// A token an agent got by exchange: live while the person's grant is, every agent in its
/// chain is a live client the person still delegates to (a consent not withdrawn), and the
/// agent has not revoked it. Its `client` is the agent (`azp`).
async fn live_delegated(
    ctx: &Context,
    claims: AccessTokenClaims<'static>,
    now: Timestamp,
) -> Result<Option<LiveToken>, StoreError> {
    let Some(act) = claims.act.as_ref() else {
        return Ok(None);
    };
    if ctx
        .store
        .token_revoked(&delegated_marker(&claims.jti), now)
        .await?
    {
        return Ok(None);
    }
    let issued = Timestamp::from_secs(claims.iat);
    let mut agent = None;
    for id in act.chain() {
        let Some(c) = live_client(ctx, id, issued, now).await? else {
            return Ok(None);
        };
        match ctx.store.consent(claims.sub.as_str(), id, now).await? {
            Some(consent)
                if consent.delegation && consent.granted_at.secs() >= c.created_at.secs() => {}
            _ => return Ok(None),
        }
        agent.get_or_insert(c);
    }
    let Some(agent) = agent.filter(|a| a.client_id == *claims.azp) else {
        return Ok(None);
    };
    Ok(live_grant(ctx, &claims.gid, now)
        .await?
        .map(|(grant, _, identity)| LiveToken {
            claims,
            grant,
            client: agent,
            identity,
        }))
}

/// The (unstored) grant a client-credentials token stands for, rebuilt from its claims.
fn client_credentials_grant(ctx: &Context, claims: &AccessTokenClaims<'_>) -> Grant {
    Grant {
        id: claims.gid.clone().into_owned(),
        kind: GrantKind::ClientCredentials,
        client_id: claims.azp.clone().into_owned(),
        sub: claims.sub.clone().into_owned(),
        sid: None,
        scopes: crate::protocol::Scopes::from_stored(claims.scopes()),
        auth_time: Timestamp::from_secs(claims.auth_time),
        nonce: None,
        claims: Default::default(),
        created_at: Timestamp::from_secs(claims.iat),
        offline: false,
        generation: 0,
        rotated_at: Timestamp::from_secs(claims.iat),
        revoked: false,
        alg: ctx.settings.signing_alg,
        resources: (claims.aud != claims.azp.as_str())
            .then(|| claims.aud.clone().into_owned())
            .into_iter()
            .collect(),
        method: Default::default(),
    }
}
