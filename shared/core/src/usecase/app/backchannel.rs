//! The backchannel requests (OpenID CIBA) waiting for a person, as their app lists them when
//! it opens, and one opened: it becomes a QR login, scanned already by that person, which the
//! app shows on the approval screen and decides with the usual signed approval
//! (`usecase::app::decide` settles the request in the same write).

use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::client::Client;
use crate::domain::login::QrLogin;
use crate::domain::ratelimit::Source;
use crate::protocol::app_request::{self, AppRequest, BackchannelOpen, BackchannelRequests};
use crate::service::app_error::{invalid, AppError};
use crate::service::assessment::{assess, who_addr, Assessment};
use crate::service::backchannel::login_for;
use crate::service::signed_request::signed_by_identity;
use crate::service::signed_request::spend_jti;
use crate::store::backchannel::FoundBackchannel;
use crate::store::{Backchannels, ClientStore, StoreError};

/// One request waiting for the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingRequest {
    /// What the app names it by when it opens it.
    pub id: String,
    /// The client that asks.
    pub client_id: String,
    /// Its name.
    pub client_name: String,
    /// Its host: its metadata document's (an `https` client id), else its first redirect
    /// URI's; empty when it has neither.
    pub client_host: String,
    /// Whether the client registered itself (chose its own name).
    pub self_registered: bool,
    /// The binding message, to compare with what the client shows.
    pub binding_message: Option<String>,
    /// The scopes asked for.
    pub scopes: Vec<String>,
    /// When it was asked.
    pub requested_at: Timestamp,
    /// When it expires.
    pub expires_at: Timestamp,
    /// Where the request came from: the client's address and user agent.
    pub ip: String,
    /// The client's user agent.
    pub user_agent: String,
    /// Asked by an agent: approving lets it act for the person (a delegation).
    pub delegation: bool,
    /// The resource servers the agent asks to act at.
    pub resources: Vec<String>,
}

/// A request opened: the QR login standing for it, to show and decide like a scanned one.
#[derive(Debug)]
pub struct OpenedBackchannel {
    /// The login (scanned already by the person).
    pub login: QrLogin,
    /// The challenge the decision names.
    pub challenge: String,
    /// The client.
    pub client: Client,
    /// The binding message.
    pub binding_message: Option<String>,
    /// Asked by an agent: approving lets it act for the person (a delegation, with the
    /// login's scopes at the login's resources).
    pub delegation: bool,
    /// Where the request came from and where the phone is, with the risk flags.
    pub assessment: Assessment,
}

/// The host a person may recognise the client by.
pub fn client_host(c: &Client) -> String {
    let host = |u: &str| {
        url::Url::parse(u)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
    };
    let id = c.client_id.as_str();
    let from_id = id.starts_with("https://").then(|| host(id)).flatten();
    from_id
        .or_else(|| c.redirect_uris.first().and_then(|r| host(r.as_str())))
        .unwrap_or_default()
}

/// The requests waiting for `sub` (`request`, a `backchannel+jwt` signed by one of its
/// keys), oldest first.
pub async fn backchannel_requests(
    ctx: &Context,
    sub: &str,
    request: &str,
) -> Result<Vec<PendingRequest>, AppError> {
    let now = ctx.clock.now();
    let (ident, _, v) =
        signed_by_identity(ctx, sub, request, BackchannelRequests::TYP, now).await?;
    let _: BackchannelRequests = app_request::read(&v.claims).map_err(invalid)?;
    spend_jti(ctx, ident.sub.as_str(), v.jti, v.exp, now).await?;
    let mut out = Vec::new();
    for found in ctx
        .store
        .pending_backchannel(ident.sub.as_str(), now)
        .await?
    {
        if let Some(client) = client_of(ctx, &found, now).await? {
            out.push(pending(&found, &client));
        }
    }
    Ok(out)
}

fn pending(found: &FoundBackchannel, client: &Client) -> PendingRequest {
    let d = &found.request.value;
    PendingRequest {
        id: found.hash.clone(),
        client_id: client.client_id.to_string(),
        client_name: client.name.clone(),
        client_host: client_host(client),
        self_registered: crate::domain::registration::self_registered(client),
        binding_message: d
            .backchannel
            .as_ref()
            .and_then(|b| b.binding_message.clone()),
        scopes: d.scopes.to_vec(),
        requested_at: d.created_at,
        expires_at: d.expires_at,
        ip: d.device_ip.clone(),
        user_agent: d.device_user_agent.clone(),
        delegation: d.backchannel.as_ref().is_some_and(|b| b.delegation),
        resources: d
            .backchannel
            .as_ref()
            .map(|b| b.resources.clone())
            .unwrap_or_default(),
    }
}

/// The request's client, unless it was deleted (or registered again) since.
async fn client_of(
    ctx: &Context,
    found: &FoundBackchannel,
    now: Timestamp,
) -> Result<Option<Client>, StoreError> {
    let d = &found.request.value;
    Ok(ctx
        .store
        .client(&d.client_id, now)
        .await?
        .map(|(c, _)| c)
        .filter(|c| !c.disabled && c.created_at.secs() <= d.created_at.secs()))
}

/// Opens the request a `backchannel-open+jwt` names, for `sub` to decide: a QR login
/// standing for it, scanned by `sub`, with where it came from and the phone's risk flags.
pub async fn open_backchannel(
    ctx: &Context,
    sub: &str,
    request: &str,
    who: &Source,
) -> Result<OpenedBackchannel, AppError> {
    let now = ctx.clock.now();
    let (ident, _, v) = signed_by_identity(ctx, sub, request, BackchannelOpen::TYP, now).await?;
    let open: BackchannelOpen = app_request::read(&v.claims).map_err(invalid)?;
    spend_jti(ctx, ident.sub.as_str(), v.jti, v.exp, now).await?;
    if open.request.len() > 128 {
        return Err(AppError::UnknownLogin);
    }
    let sub = ident.sub.as_str();
    let Some(found) = ctx
        .store
        .backchannel_request(sub, &open.request, now)
        .await?
    else {
        return Err(AppError::UnknownLogin);
    };
    let Some(client) = client_of(ctx, &found, now).await? else {
        return Err(AppError::UnknownLogin);
    };
    let (login, challenge) = login_for(ctx, &found, &client, sub, now).await?;
    let assessment = assess(ctx, &login, &client, &who_addr(who), Some(sub), now).await?;
    let backchannel = found.request.value.backchannel;
    Ok(OpenedBackchannel {
        delegation: backchannel.as_ref().is_some_and(|b| b.delegation),
        binding_message: backchannel.and_then(|b| b.binding_message),
        login,
        challenge,
        client,
        assessment,
    })
}
