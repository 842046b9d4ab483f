//! The agents an identity delegates to (RFC 8693 token exchange), as its app lists them, and
//! the person withdrawing one. A delegation is the person's remembered consent to a client
//! the operator made an agent (its consent page said it may act for them); withdrawing it
//! forgets that consent, so the agent's exchanged tokens stop working at once (they are live
//! only while the consent stands) and its next login asks again.

use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::client::{Client, GrantType};
use crate::domain::login::Consent;
use crate::protocol::app_request::{self, AppRequest, Delegations, Withdrawal};
use crate::service::app_error::{invalid, AppError};
use crate::service::signed_request::signed_by_identity;
use crate::service::signed_request::spend_jti;
use crate::store::{ClientStore, SsoSessions, StoreError};

/// One agent the person delegates to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delegation {
    /// The agent.
    pub client_id: String,
    /// Its name.
    pub client_name: String,
    /// The scopes it may act with.
    pub scopes: Vec<String>,
    /// The resource servers it may act at (RFC 8707).
    pub resources: Vec<String>,
    /// When the person allowed it.
    pub granted_at: Timestamp,
}

/// The agents `sub` delegates to (`request`, a `delegations+jwt` signed by one of its keys):
/// each agent (a client allowed token exchange) with a consent of the person no older than
/// the client.
pub async fn delegations(
    ctx: &Context,
    sub: &str,
    request: &str,
) -> Result<Vec<Delegation>, AppError> {
    let now = ctx.clock.now();
    let (ident, _, v) = signed_by_identity(ctx, sub, request, Delegations::TYP, now).await?;
    let _: Delegations = app_request::read(&v.claims).map_err(invalid)?;
    spend_jti(ctx, &ident.sub, v.jti, v.exp, now).await?;
    let mut out = Vec::new();
    for c in ctx.store.clients(now).await? {
        if let Some(consent) = delegated(ctx, &ident.sub, &c, now).await? {
            out.push(Delegation {
                client_id: c.client_id.to_string(),
                client_name: c.name,
                scopes: consent.scopes.to_vec(),
                resources: consent.resources,
                granted_at: consent.granted_at,
            });
        }
    }
    Ok(out)
}

/// Withdraws `sub`'s delegation to the agent the request (`withdraw+jwt`) names. `false` when
/// there was none (nothing changes).
pub async fn withdraw(ctx: &Context, sub: &str, request: &str) -> Result<bool, AppError> {
    let now = ctx.clock.now();
    let (ident, _, v) = signed_by_identity(ctx, sub, request, Withdrawal::TYP, now).await?;
    let w: Withdrawal = app_request::read(&v.claims).map_err(invalid)?;
    spend_jti(ctx, &ident.sub, v.jti, v.exp, now).await?;
    let client = match crate::protocol::ClientId::parse(&w.client_id) {
        Ok(_) => ctx.store.client(&w.client_id, now).await?.map(|(c, _)| c),
        Err(_) => None,
    };
    let Some(client) = client else {
        return Ok(false);
    };
    if delegated(ctx, &ident.sub, &client, now).await?.is_none() {
        return Ok(false);
    }
    ctx.store
        .forget_consent(&ident.sub, client.client_id.as_str(), now)
        .await?;
    Audit::new(Event::ConsentWithdrawn)
        .subject(&ident.sub)
        .client(client.client_id.as_str())
        .detail("delegation")
        .emit();
    Ok(true)
}

/// The person's consent to `client` when it is an agent and the consent is its own (not one
/// given to an earlier client of the same id).
async fn delegated(
    ctx: &Context,
    sub: &str,
    client: &Client,
    now: Timestamp,
) -> Result<Option<Consent>, StoreError> {
    if !client.allows(GrantType::TokenExchange) {
        return Ok(None);
    }
    Ok(ctx
        .store
        .consent(sub, client.client_id.as_str(), now)
        .await?
        .filter(|c| c.delegation && c.granted_at.secs() >= client.created_at.secs()))
}
