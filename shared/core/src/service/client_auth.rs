//! Client authentication, for every endpoint that takes a client secret (the token, device
//! authorization, introspection, revocation and logout endpoints): RFC 6749 §2.3.1.

use crate::audit::{Audit, Event};
use crate::context::Context;
use crate::domain::client::{Client, ClientType};
use crate::domain::ratelimit::{Counted, Limit, Source};
use crate::protocol::{OAuthErrorCode, Params};
use crate::service::issuance::{oauth, TokenError};
use crate::service::limits;
use crate::store::ClientStore;

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
        // Disabled by the operator: the secret was right (not a guess), but no tokens.
        Some(c) if ok && c.disabled => Err(TokenError::InvalidClient("this client is disabled")),
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
            match limits::count(
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
