//! Client authentication, for every endpoint that takes a client secret (the token, device
//! authorization, introspection, revocation and logout endpoints): RFC 6749 §2.3.1, and
//! `private_key_jwt` (RFC 7523 §2.2; [`crate::domain::client_assertion`]) for clients that
//! registered keys.

use crate::audit::{Audit, Event};
use crate::context::Context;
use crate::domain::client::{Client, ClientType};
use crate::domain::client_assertion::{self, ClientKeys, Refused};
use crate::domain::ratelimit::{Counted, Limit, Source};
use crate::protocol::{OAuthErrorCode, Params};
use crate::reach::Reach;
use crate::service::issuance::{oauth, TokenError};
use crate::service::limits;
use crate::store::{ClientStore, Outcome};

/// Credentials as presented: HTTP Basic (already decoded) and/or the body.
#[derive(Clone, Default)]
pub struct Presented {
    /// HTTP Basic's id and secret.
    pub basic: Option<(String, String)>,
    /// `client_id` in the body.
    pub body_id: Option<String>,
    /// `client_secret` in the body.
    pub body_secret: Option<String>,
    /// `client_assertion_type` and `client_assertion` (RFC 7521 §4.2).
    pub assertion: Option<(Option<String>, String)>,
    /// Presented at the PAR endpoint: an assertion's `aud` must then be the issuer, not the
    /// token endpoint's URL (FAPI 2.0 Security Profile §5.3.2.1).
    pub at_par: bool,
    /// The request's DPoP proof (RFC 9449), if it sent one.
    pub dpop: Option<crate::service::dpop::Presented>,
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
        let assertion = one("client_assertion")?.map(str::to_owned);
        let assertion_type = one("client_assertion_type")?.map(str::to_owned);
        Ok(Self {
            basic,
            body_id: one("client_id")?.map(str::to_owned),
            body_secret: one("client_secret")?.map(str::to_owned),
            assertion: assertion.map(|a| (assertion_type, a)),
            at_par: false,
            dpop: None,
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
    if let Some((kind, assertion)) = &p.assertion {
        return by_assertion(ctx, p, kind.as_deref(), assertion, source).await;
    }
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
    let client = match super::client_documents::client(ctx, &id, now).await? {
        Ok(c) => c,
        Err(why) => return Err(oauth(OAuthErrorCode::InvalidClient, why)),
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
        _ => Err(failed(ctx, &id, source, "unknown client or bad credentials").await),
    }
}

/// A failed authentication: audited, counted against the source (429 over the limit), and
/// answered `invalid_client` with `why`.
async fn failed(ctx: &Context, id: &str, source: &Source, why: &'static str) -> TokenError {
    Audit::new(Event::ClientAuthFailed)
        .client(if id.len() <= 128 { id } else { "" })
        .source(source.as_str())
        .outcome("refused")
        .emit();
    let now = ctx.clock.now();
    match limits::count(
        ctx.store.as_ref(),
        &ctx.settings.limits,
        Limit::ClientAuthFailure,
        source.as_str(),
        now,
    )
    .await
    {
        Ok(Counted::Allowed) => TokenError::InvalidClient(why),
        Ok(Counted::Limited { retry_after }) => TokenError::TooManyFailures { retry_after },
        Err(e) => e.into(),
    }
}

/// `private_key_jwt` or `client_secret_jwt`: the assertion verified with the client's registered keys (fetched
/// again once when its `kid` is unknown and they come from a `jwks_uri`), then its `jti`
/// spent by one conditional write.
async fn by_assertion(
    ctx: &Context,
    p: &Presented,
    kind: Option<&str>,
    assertion: &str,
    source: &Source,
) -> Result<Client, TokenError> {
    if p.basic.is_some() || p.body_secret.is_some() {
        return Err(oauth(
            OAuthErrorCode::InvalidRequest,
            "use one client authentication method",
        ));
    }
    if kind != Some(client_assertion::ASSERTION_TYPE) {
        return Err(TokenError::InvalidClient(
            "client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        ));
    }
    let claimed = client_assertion::claimed_client(assertion);
    let id = match (&p.body_id, claimed) {
        (Some(b), Some(c)) if *b != c => {
            return Err(failed(
                ctx,
                b,
                source,
                "client_id differs from the client assertion's iss",
            )
            .await)
        }
        (Some(b), _) => b.clone(),
        (None, Some(c)) => c,
        (None, None) => {
            return Err(failed(ctx, "", source, "the client assertion names no client").await)
        }
    };
    let now = ctx.clock.now();
    let client = match super::client_documents::client(ctx, &id, now).await? {
        Ok(c) => c,
        Err(why) => return Err(oauth(OAuthErrorCode::InvalidClient, why)),
    };
    let issuer = ctx.settings.issuer();
    let token_endpoint = format!("{issuer}/protocol/openid-connect/token");
    let audiences: Vec<&str> = if p.at_par {
        vec![issuer.as_str()]
    } else {
        vec![issuer.as_str(), token_endpoint.as_str()]
    };
    let (client, keys) = match client {
        Some(c) if c.secret_jwt.is_some() => {
            let audience = client_assertion::Audience {
                accepted: &audiences,
                list: !p.at_par,
            };
            let verified = match by_secret(ctx, &c, assertion, audience).await {
                Ok(v) => v,
                Err(why) => return Err(failed(ctx, &id, source, why).await),
            };
            return spend(ctx, c, verified, source).await;
        }
        Some(c) => match c.jwks.clone() {
            Some(k) => (c, k),
            None => {
                return Err(failed(
                    ctx,
                    &id,
                    source,
                    "this client registered no keys (private_key_jwt)",
                )
                .await)
            }
        },
        None => return Err(failed(ctx, &id, source, "unknown client or bad credentials").await),
    };
    if let Some(why) = crate::domain::profile::assertion_alg_refused(client.profile, assertion) {
        return Err(failed(ctx, &id, source, why).await);
    }
    // A list as `aud`: not at PAR, nor from a FAPI 2.0 client (FAPI 2.0 Final §5.3.2.1-8, the
    // issuer as a string; the suite's par-test-array-as-audience-fails).
    let audience = client_assertion::Audience {
        accepted: &audiences,
        list: !p.at_par && client.profile.is_none(),
    };
    let verified = match verify_with_keys(ctx, &client, &keys, assertion, audience).await {
        Ok(v) => v,
        Err(why) => return Err(failed(ctx, &id, source, why).await),
    };
    spend(ctx, client, verified, source).await
}

/// A verified assertion's `jti` spent by one conditional write (a replay is refused), then
/// the client, unless disabled.
async fn spend(
    ctx: &Context,
    client: Client,
    verified: client_assertion::Verified,
    source: &Source,
) -> Result<Client, TokenError> {
    let id = client.client_id.as_str();
    match ctx
        .store
        .spend_assertion(id, &verified.jti, verified.exp, ctx.clock.now())
        .await?
    {
        Outcome::Done => {}
        Outcome::Lost => {
            return Err(failed(
                ctx,
                id,
                source,
                "this client assertion was used already (jti)",
            )
            .await)
        }
    }
    if client.disabled {
        return Err(TokenError::InvalidClient("this client is disabled"));
    }
    Ok(client)
}

/// `client_secret_jwt`: the MAC checked with the client's secret, opened from its sealed
/// form by the service's sealing key.
async fn by_secret(
    ctx: &Context,
    client: &Client,
    assertion: &str,
    audience: client_assertion::Audience<'_>,
) -> Result<client_assertion::Verified, &'static str> {
    let alg = client.secret_jwt.as_ref().and_then(|s| s.alg.as_deref());
    let secret = super::client_secrets::open(ctx, client).await?;
    client_assertion::verify_hmac(
        assertion,
        client.client_id.as_str(),
        &secret,
        alg,
        audience,
        ctx.clock.now(),
    )
    .map_err(refusal)
}

/// Verifies with the registered set, or the one at `jwks_uri` (fetched again once when the
/// `kid` is unknown).
async fn verify_with_keys(
    ctx: &Context,
    client: &Client,
    keys: &ClientKeys,
    assertion: &str,
    audience: client_assertion::Audience<'_>,
) -> Result<client_assertion::Verified, &'static str> {
    let now = ctx.clock.now();
    let id = client.client_id.as_str();
    with_keys(ctx, client, keys, |set| {
        client_assertion::verify(assertion, id, keys, set, audience, now)
    })
    .await
    .map_err(|r| r.unwrap_or_else(refusal))
}

/// `check` with the client's keys: its registered set, or the one at its `jwks_uri` (fetched
/// again once when `check` finds the `kid` unknown). `Err(Ok(why))`: the keys could not be
/// had; `Err(Err(refused))`: `check`'s refusal.
pub(crate) async fn with_keys<T>(
    ctx: &Context,
    client: &Client,
    keys: &ClientKeys,
    check: impl Fn(&jsonwebtoken::jwk::JwkSet) -> Result<T, Refused>,
) -> Result<T, Result<&'static str, Refused>> {
    let now = ctx.clock.now();
    let id = client.client_id.as_str();
    if let Some(jwks) = &keys.jwks {
        let set = client_assertion::parse_jwks(jwks)
            .map_err(|_| Ok("the client's registered jwks are unusable"))?;
        return check(&set).map_err(Err);
    }
    let Some(uri) = keys.jwks_uri.as_deref() else {
        return Err(Ok("this client registered no keys (private_key_jwt)"));
    };
    let reach = Reach::of(
        ctx.settings.local_development(),
        client.registration.is_some(),
    );
    let mut refresh = false;
    loop {
        let set = ctx
            .client_jwks
            .get(ctx.jwks_fetch.as_ref(), uri, reach, now, refresh)
            .await
            .map_err(|e| {
                tracing::info!(client_id = id, error = %e, "jwks_uri could not be fetched");
                Ok("the client's jwks_uri could not be fetched")
            })?;
        match check(&set) {
            Err(Refused::UnknownKey) if !refresh => refresh = true,
            r => return r.map_err(Err),
        }
    }
}

fn refusal(r: Refused) -> &'static str {
    match r {
        Refused::UnknownKey => "the client assertion's kid names none of the client's keys",
        Refused::Invalid(why) => why,
    }
}
