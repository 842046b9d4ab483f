//! Who may call the admin API, and how its refusals are answered.
//!
//! A caller is the service account of a client: a client-credentials access token of a
//! client the operator gave an admin role ([`crate::domain::admin`]); or a person logged in
//! to the admin console: an access token issued to the console's own client
//! ([`CONSOLE_CLIENT_ID`]) for an identity the operator gave an admin role. Everything is
//! checked at every call, from the token and the client (and the identity) as they are now:
//! the signature, issuer and expiry, the token not revoked, the client still the one that got
//! it (not deleted and registered again) and enabled, its roles; for a person, the grant not
//! revoked, its SSO session still live (the console ends with the scanid session), the
//! identity enabled and holding the role. Any other token (a person's for another client, an
//! ordinary client's) is never an admin token. Every refusal is an audit line and counts
//! against the caller's address as a failed client authentication does (over the limit: 429).

use crate::answer::{Answer, Answered};
use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::admin::{fresh_console_login, permits, AdminRole, Need, CONSOLE_CLIENT_ID};
use crate::domain::client::Client;
use crate::domain::ratelimit::{Counted, Limit, Source};
use crate::keys::jwt;
use crate::protocol::claims::{Gty, TokenTyp};
use crate::protocol::{AccessTokenClaims, ClientId};
use crate::service::limits;
use crate::store::{ClientStore, Grants, IdentityStore, SsoSessions, StoreError};

/// Why an admin call failed, answered as Keycloak's admin API answers.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    /// No valid admin token: 401 with `WWW-Authenticate: Bearer`.
    #[error("{0}")]
    Unauthorized(&'static str),
    /// A valid token without the role the call needs: 403.
    #[error("the token lacks the role this call needs")]
    Forbidden,
    /// Too many refused calls from this address: 429.
    #[error("too many refused calls")]
    RateLimited {
        /// Seconds until the next try may succeed.
        retry_after: i64,
    },
    /// No such object: 404.
    #[error("{0}")]
    NotFound(&'static str),
    /// The object exists already: 409.
    #[error("{0}")]
    Conflict(String),
    /// A bad representation or request: 400, naming the field.
    #[error("{0}")]
    BadRequest(String),
    /// The object changed meanwhile (a concurrent write): 409, try again.
    #[error("the object changed meanwhile; read it again and retry")]
    Changed,
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Answered for AdminError {
    fn answer(self) -> Answer {
        match self {
            AdminError::Unauthorized(description) => Answer::Bearer {
                status: 401,
                error: Some("invalid_token"),
                description,
            },
            AdminError::Forbidden => crate::answer::json(403, "HTTP 403 Forbidden", &self),
            AdminError::RateLimited { retry_after } => Answer::RateLimited { retry_after },
            AdminError::NotFound(_) => crate::answer::json(404, "not_found", &self),
            AdminError::Conflict(_) | AdminError::Changed => {
                crate::answer::json(409, "conflict", &self)
            }
            AdminError::BadRequest(_) => crate::answer::json(400, "invalid_request", &self),
            AdminError::Store(e) => Answer::Store(e),
        }
    }
}

/// The service account (or the person at the console) an admin call was allowed for.
#[derive(Debug, Clone)]
pub struct Caller {
    /// Its client (as read at this call): the service account, or the console's client.
    pub client: Client,
    /// The admin roles it holds (the service account's, or the person's), at this call.
    pub roles: Vec<AdminRole>,
    /// The person (`sub`) at the console; `None` for a service account.
    pub person: Option<String>,
}

impl Caller {
    /// Writes the call's audit line and hands `result` back: who (the client), what (`op`),
    /// on which object, and how it ended (`success`, or the refusal: a call refused for want
    /// of a role is `admin.refused`, the others `admin.call` with their outcome).
    pub fn finish<T>(
        &self,
        op: &'static str,
        object: Option<&str>,
        result: Result<T, AdminError>,
    ) -> Result<T, AdminError> {
        let (event, outcome) = match &result {
            Ok(_) => (Event::AdminCall, "success"),
            Err(AdminError::Forbidden) => (Event::AdminRefused, "forbidden"),
            Err(AdminError::NotFound(_)) => (Event::AdminCall, "not_found"),
            Err(AdminError::Conflict(_) | AdminError::Changed) => (Event::AdminCall, "conflict"),
            Err(AdminError::BadRequest(_)) => (Event::AdminCall, "bad_request"),
            Err(_) => (Event::AdminCall, "error"),
        };
        let mut a = Audit::new(event)
            .client(&self.client.client_id)
            .detail(op)
            .outcome(outcome);
        if let Some(sub) = &self.person {
            a = a.subject(sub);
        }
        match object {
            Some(o) => a.object(o).emit(),
            None => a.emit(),
        }
        result
    }
}

enum Refusal {
    Unauthorized(&'static str),
    Forbidden,
}

/// Allows the call `op` (its name in the audit line) that needs `need`, for the bearer
/// `token`, or refuses it (audited, and counted against `source`).
pub async fn authorize(
    ctx: &Context,
    token: Option<&str>,
    need: Need,
    op: &'static str,
    source: &Source,
) -> Result<Caller, AdminError> {
    let now = ctx.clock.now();
    let refusal = match check(ctx, token, need, now).await? {
        Ok(caller) => return Ok(caller),
        Err(r) => r,
    };
    let outcome = match refusal {
        Refusal::Unauthorized(_) => "unauthorized",
        Refusal::Forbidden => "forbidden",
    };
    Audit::new(Event::AdminRefused)
        .source(source.as_str())
        .outcome(outcome)
        .detail(op)
        .emit();
    match limits::count(
        ctx.store.as_ref(),
        &ctx.settings.limits,
        Limit::ClientAuthFailure,
        source.as_str(),
        now,
    )
    .await?
    {
        Counted::Limited { retry_after } => Err(AdminError::RateLimited { retry_after }),
        Counted::Allowed => Err(match refusal {
            Refusal::Unauthorized(why) => AdminError::Unauthorized(why),
            Refusal::Forbidden => AdminError::Forbidden,
        }),
    }
}

async fn check(
    ctx: &Context,
    token: Option<&str>,
    need: Need,
    now: Timestamp,
) -> Result<Result<Caller, Refusal>, StoreError> {
    let Some(token) = token else {
        return Ok(Err(Refusal::Unauthorized("a bearer token is required")));
    };
    let issuer = ctx.settings.issuer();
    let Ok(claims) = jwt::verify::<AccessTokenClaims>(&*ctx.keyring().await, token, &issuer, now)
    else {
        return Ok(Err(Refusal::Unauthorized("invalid or expired token")));
    };
    if claims.typ != TokenTyp::Bearer {
        return Ok(Err(Refusal::Unauthorized("not an access token")));
    }
    if claims.gty != Some(Gty::ClientCredentials) {
        // A person's token: an admin token only when issued to the console.
        if claims.azp.as_str() != CONSOLE_CLIENT_ID || claims.gty.is_some() {
            return Ok(Err(Refusal::Forbidden));
        }
        return person(ctx, &claims, need, now).await;
    }
    if ctx.store.token_revoked(&claims.gid, now).await? {
        return Ok(Err(Refusal::Unauthorized("the token was revoked")));
    }
    let Some(client) = issuing_client(ctx, &claims, now).await? else {
        return Ok(Err(Refusal::Unauthorized(
            "the token's client no longer exists",
        )));
    };
    if client.disabled {
        return Ok(Err(Refusal::Unauthorized("the token's client is disabled")));
    }
    if !permits(&client.admin_roles, need) {
        return Ok(Err(Refusal::Forbidden));
    }
    let roles = client.admin_roles.clone();
    Ok(Ok(Caller {
        client,
        roles,
        person: None,
    }))
}

/// The client a token was issued to, if it is still that registration.
async fn issuing_client(
    ctx: &Context,
    claims: &AccessTokenClaims<'_>,
    now: Timestamp,
) -> Result<Option<Client>, StoreError> {
    let client = match ClientId::parse(claims.azp.as_str()) {
        Ok(id) => ctx.store.client(&id, now).await?.map(|(c, _)| c),
        Err(_) => None,
    };
    Ok(client.filter(|c| c.created_at.secs() <= claims.iat))
}

/// A person's console token: its grant live (not revoked, not offline) and made from a fresh
/// login (not an old SSO session reused), its SSO session live, the identity enabled, not
/// signed out everywhere since, and holding the role now.
async fn person(
    ctx: &Context,
    claims: &AccessTokenClaims<'_>,
    need: Need,
    now: Timestamp,
) -> Result<Result<Caller, Refusal>, StoreError> {
    let dead = Refusal::Unauthorized("the console's login ended; log in again");
    let Some(client) = issuing_client(ctx, claims, now)
        .await?
        .filter(|c| !c.disabled)
    else {
        return Ok(Err(dead));
    };
    let Some(grant) = ctx.store.grant(&claims.gid, now).await?.map(|g| g.value) else {
        return Ok(Err(dead));
    };
    if grant.revoked
        || grant.offline
        || grant.client_id.as_str() != CONSOLE_CLIENT_ID
        || !fresh_console_login(grant.auth_time.secs(), grant.created_at.secs())
    {
        return Ok(Err(dead));
    }
    let Some(sid) = grant.sid.as_ref() else {
        return Ok(Err(dead));
    };
    if ctx.store.sso_session(sid, now).await?.is_none() {
        return Ok(Err(dead));
    }
    let identity = match ctx.store.identity(grant.sub.as_str(), now).await? {
        Some((i, _)) if !i.disabled => i,
        _ => return Ok(Err(dead)),
    };
    if crate::service::grants::revoked_by_identity(&grant, &identity) {
        return Ok(Err(dead));
    }
    if !permits(&identity.admin_roles, need) {
        return Ok(Err(Refusal::Forbidden));
    }
    Ok(Ok(Caller {
        client,
        roles: identity.admin_roles,
        person: Some(identity.sub.as_str().to_owned()),
    }))
}

/// How this deployment keeps events, as Keycloak's `RealmEventsConfigRepresentation`
/// ([`crate::domain::admin::events::events_config`]): what `events/config` answers and the
/// realm's representation carries.
pub fn events_config(ctx: &Context) -> serde_json::Value {
    crate::domain::admin::events::events_config(
        ctx.events.is_some(),
        ctx.settings.lifetimes.event_retention,
    )
}
