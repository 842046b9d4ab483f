//! What the consent step reads before it decides (`domain::consent::decide`): whether the
//! approving identity is live, whether the client still exists, and whether a remembered
//! consent covers the request.

use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::authorize::AuthorizationRequest;
use crate::domain::client::{Client, GrantType};
use crate::domain::consent::Known;
use crate::domain::identity::Identity;
use crate::store::{Backend, ClientStore, Eventual, IdentityStore, SsoSessions, StoreError};

/// Does a remembered consent cover this request (its scopes, claims and resource servers)?
/// Only one given to this very registration of the client (a deleted and re-registered
/// `client_id` asks again), and not with `prompt=consent`.
pub async fn remembered(
    ctx: &Context,
    sub: &str,
    req: &AuthorizationRequest,
    client: &Client,
    now: Timestamp,
) -> Result<bool, StoreError> {
    // An agent's consent page says it may act for the person: a consent from before it
    // became an agent did not, so the page is shown again.
    let agent = client.allows(GrantType::TokenExchange);
    if req.prompt.consent {
        return Ok(false);
    }
    Ok(ctx
        .store
        .consent(sub, &req.client_id, now)
        .await?
        .is_some_and(|c| {
            c.covers(&req.scopes, &req.claims.all())
                && c.covers_resources(&req.resources)
                && c.granted_at.secs() >= client.created_at.secs()
                && (c.delegation || !agent)
        }))
}

/// What the consent step of `sub`'s approved login for `req` knows, and on opening the page
/// (`open`) the identity and client it shows.
///
/// Opening the page reads the identity and the client at the eventually consistent price
/// (issue 41): they are shown. What such a read would refuse or complete on is read again,
/// consistently: an identity not found or disabled (a refusal closes the login), a client not
/// found, and the identity again when a remembered consent completes the login at once. The
/// form's answer reads the identity consistently.
pub async fn consent_known(
    ctx: &Context,
    sub: &str,
    req: &AuthorizationRequest,
    open: bool,
    now: Timestamp,
) -> Result<(Known, Option<(Identity, Client)>), StoreError> {
    let consistent = ctx.store.as_ref();
    let eventual = Eventual(consistent);
    let live = |from| live_identity(from, sub, now);
    let mut known = Known::default();
    if !open {
        known.identity_live = live(consistent).await?.is_some();
        return Ok((known, None));
    }
    let mut identity = live(&eventual).await?;
    if identity.is_none() {
        identity = live(consistent).await?;
    }
    let Some(mut identity) = identity else {
        return Ok((known, None));
    };
    let mut client = eventual.client(&req.client_id, now).await?;
    if client.is_none() {
        client = consistent.client(&req.client_id, now).await?;
    }
    let Some((client, _)) = client else {
        known.identity_live = true;
        return Ok((known, None));
    };
    known.client_exists = true;
    known.remembered = remembered(ctx, sub, req, &client, now).await?;
    if known.remembered {
        match live(consistent).await? {
            Some(i) => identity = i,
            None => return Ok((known, None)),
        }
    }
    known.identity_live = true;
    Ok((known, Some((identity, client))))
}

/// Identity `sub` from `from`, unless unknown or disabled.
async fn live_identity(
    from: &dyn Backend,
    sub: &str,
    now: Timestamp,
) -> Result<Option<Identity>, StoreError> {
    Ok(from
        .identity(sub, now)
        .await?
        .map(|(i, _)| i)
        .filter(|i| !i.disabled))
}
