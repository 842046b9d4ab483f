//! Dynamic client registration (RFC 7591) and management (RFC 7592): a client registers
//! itself with the operator's initial access token (or, where the operator opened
//! registration, without one), then reads, replaces and deletes its registration with the
//! registration access token it was given.

use crate::answer::{json, Answer, Answered};
use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::domain::client::{Client, ClientSecret};
use crate::domain::ratelimit::{Counted, Limit, Source};
use crate::domain::registration::{self, InitialAccessToken, MetadataError, Registered};
use crate::random::Random;
use crate::reach::{self, Reach};
use crate::service::{client_secrets, limits};
use crate::store::{Backend, ClientStore, InitialAccessTokens, StoreError};
use crate::Context;

/// Why a registration request failed.
#[derive(Debug, thiserror::Error)]
pub enum RegistrationFailure {
    /// RFC 7591 §3.2.2 (400).
    #[error(transparent)]
    Metadata(#[from] MetadataError),
    /// Registration is closed and no initial access token was given (401).
    #[error("registration needs an initial access token")]
    TokenRequired,
    /// The initial or registration access token is unknown, spent, expired, or not this
    /// client's; or the client does not exist (never told apart) (401 `invalid_token`).
    #[error("the access token is invalid")]
    InvalidToken,
    /// Too many registrations from this source (429).
    #[error("too many registrations")]
    RateLimited {
        /// Seconds until the next try may succeed.
        retry_after: i64,
    },
    /// The client changed while it was being updated (409).
    #[error("the client changed meanwhile; read it and try again")]
    Conflict,
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Answered for RegistrationFailure {
    fn answer(self) -> Answer {
        use RegistrationFailure as F;
        match self {
            // RFC 7591 §3.2.2: `invalid_redirect_uri`, `invalid_client_metadata`.
            F::Metadata(m) => json(400, m.code(), &m),
            F::TokenRequired => Answer::Bearer {
                status: 401,
                error: None,
                description: "registration needs a bearer token: an initial access token to register, the registration access token to manage",
            },
            // RFC 7592 §2: the same answer whether or not the client exists.
            F::InvalidToken => Answer::Bearer {
                status: 401,
                error: Some("invalid_token"),
                description: "the token is invalid, expired or used up",
            },
            F::RateLimited { retry_after } => Answer::RateLimited { retry_after },
            F::Conflict => json(409, "conflict", &self),
            F::Store(s) => Answer::Store(s),
        }
    }
}

fn hash(token: &str) -> String {
    crate::domain::client::hash_presented(token)
}

/// `POST .../clients-registrations/openid-connect`: registers a client. `initial_token` is
/// the bearer token, if any. The token's use is spent only by a valid request, by one
/// conditional write, just before the client is created.
pub async fn register(
    ctx: &Context,
    initial_token: Option<&str>,
    body: &[u8],
    who: &Source,
) -> Result<Registered, RegistrationFailure> {
    let now = ctx.clock.now();
    if let Counted::Limited { retry_after } = limits::count(
        ctx.store.as_ref(),
        &ctx.settings.limits,
        Limit::Registration,
        who.as_str(),
        now,
    )
    .await?
    {
        return Err(RegistrationFailure::RateLimited { retry_after });
    }
    // Open registration takes no token (one presented anyway is not spent).
    let token_hash = match (ctx.settings.open_client_registration, initial_token) {
        (true, _) => None,
        (false, None) => return Err(RegistrationFailure::TokenRequired),
        (false, Some(t)) => {
            let h = hash(t);
            if ctx.store.initial_access_token(&h, now).await?.is_none() {
                return Err(RegistrationFailure::InvalidToken);
            }
            Some(h)
        }
    };
    let metadata = registration::parse(body)?;
    let algs = ctx.keyring().await.algs();
    let mut registered = registration::register(
        &metadata,
        &algs,
        ctx.settings.local_development(),
        now,
        ctx.random.as_ref(),
    )?;
    // client_secret_jwt: the secret kept sealed too, for the service to check its MACs.
    if let Some(secret) = registered.secret.as_ref() {
        if registered.client.secret_jwt.is_some() && !client_secrets::offered(ctx) {
            return Err(MetadataError::Metadata(client_secrets::NOT_OFFERED.into()).into());
        }
        client_secrets::seal(ctx, &mut registered.client, secret)
            .await
            .map_err(|e| StoreError::Unavailable(e.to_string().into()))?;
    }
    reachable(ctx, &registered.client).await?;
    if let Some(h) = &token_hash {
        if !ctx.store.spend_initial_access_token(h, now).await? {
            return Err(RegistrationFailure::InvalidToken);
        }
    }
    ctx.store.create_client(&registered.client, now).await?;
    Audit::new(Event::ClientRegistered)
        .client(&registered.client.client_id)
        .source(who.as_str())
        .outcome("registered")
        .detail(if token_hash.is_some() {
            "initial_access_token"
        } else {
            "open"
        })
        .emit();
    Ok(registered)
}

/// The self-registered client `client_id` whose registration access token is `token`, and its
/// version; anything else is [`RegistrationFailure::InvalidToken`] alike (RFC 7592 §2: never
/// say whether the client exists).
async fn authorized(
    store: &dyn Backend,
    client_id: &str,
    token: Option<&str>,
    now: Timestamp,
) -> Result<(Client, u64), RegistrationFailure> {
    let Some(token) = token else {
        return Err(RegistrationFailure::TokenRequired);
    };
    if crate::protocol::ClientId::parse(client_id).is_err() {
        return Err(RegistrationFailure::InvalidToken);
    }
    match store.client(client_id, now).await? {
        Some((c, v))
            if c.registration
                .as_ref()
                .is_some_and(|r| r.token_matches(token)) =>
        {
            Ok((c, v))
        }
        _ => Err(RegistrationFailure::InvalidToken),
    }
}

/// `GET .../clients-registrations/openid-connect/{client_id}` (RFC 7592 §2.1): the client's
/// registration, with a new registration access token (only its hash is kept, so each read
/// hands out a new one and the old one stops working, as Keycloak does). The secret is not
/// shown again.
pub async fn read(
    ctx: &Context,
    client_id: &str,
    token: Option<&str>,
) -> Result<Registered, RegistrationFailure> {
    let now = ctx.clock.now();
    let (mut client, version) = authorized(ctx.store.as_ref(), client_id, token, now).await?;
    let next = ClientSecret::generate(ctx.random.as_ref());
    if let Some(r) = client.registration.as_mut() {
        r.access_token_hash = next.hash();
    }
    save(ctx.store.as_ref(), &client, version, now).await?;
    Ok(Registered {
        client,
        secret: None,
        registration_access_token: next,
    })
}

/// `PUT .../clients-registrations/openid-connect/{client_id}` (RFC 7592 §2.2): replaces the
/// client's metadata (the registration rules again), with a new registration access token.
pub async fn update(
    ctx: &Context,
    client_id: &str,
    token: Option<&str>,
    body: &[u8],
) -> Result<Registered, RegistrationFailure> {
    let now = ctx.clock.now();
    let (old, version) = authorized(ctx.store.as_ref(), client_id, token, now).await?;
    let metadata = registration::parse(body)?;
    let algs = ctx.keyring().await.algs();
    let new = registration::replace(
        &old,
        &metadata,
        &algs,
        ctx.settings.local_development(),
        ctx.random.as_ref(),
    )?;
    reachable(ctx, &new.client).await?;
    save(ctx.store.as_ref(), &new.client, version, now).await?;
    Audit::new(Event::ClientUpdated)
        .client(client_id)
        .outcome("updated")
        .emit();
    Ok(new)
}

/// A self-registered client's back-channel logout endpoint must be on the internet: not at,
/// and not by a name that resolves to, a loopback, private, link-local or unique local
/// address ([`crate::reach`]), which the service's own POST would reach inside its network.
/// The delivery resolves the name again and connects only to the addresses it vetted.
/// The same holds for its `jwks_uri` (fetched by the service, with the same guards).
async fn reachable(ctx: &Context, client: &Client) -> Result<(), MetadataError> {
    let reach = Reach::of(ctx.settings.local_development(), true);
    let jwks_uri = client.jwks.as_ref().and_then(|k| k.jwks_uri.as_ref());
    for (name, uri) in [
        (
            "backchannel_logout_uri",
            client.backchannel_logout_uri.as_ref(),
        ),
        ("jwks_uri", jwks_uri),
    ] {
        let Some(uri) = uri else { continue };
        reach::check_uri(ctx.resolver.as_ref(), uri, reach)
            .await
            .map_err(|why| MetadataError::Metadata(format!("{name} {uri:?}: {why}")))?;
    }
    Ok(())
}

async fn save(
    store: &dyn Backend,
    client: &Client,
    version: u64,
    now: Timestamp,
) -> Result<(), RegistrationFailure> {
    match store.update_client(client, version, now).await {
        Ok(()) => Ok(()),
        Err(StoreError::ConditionFailed) => Err(RegistrationFailure::Conflict),
        Err(e) => Err(e.into()),
    }
}

/// `DELETE .../clients-registrations/openid-connect/{client_id}` (RFC 7592 §2.3).
pub async fn delete(
    ctx: &Context,
    client_id: &str,
    token: Option<&str>,
) -> Result<(), RegistrationFailure> {
    let now = ctx.clock.now();
    let (client, version) = authorized(ctx.store.as_ref(), client_id, token, now).await?;
    match ctx
        .store
        .delete_client_at(&client.client_id, version, now)
        .await
    {
        Ok(()) => {}
        Err(StoreError::ConditionFailed) => return Err(RegistrationFailure::Conflict),
        Err(e) => return Err(e.into()),
    }
    Audit::new(Event::ClientDeleted)
        .client(client_id)
        .outcome("deleted")
        .emit();
    Ok(())
}

/// `scanid client registration-token create`: a new initial access token, printed once.
pub async fn create_initial_access_token(
    store: &dyn Backend,
    expires_in: i64,
    uses: u32,
    now: Timestamp,
    rng: &dyn Random,
) -> Result<(ClientSecret, InitialAccessToken, i64), CreateTokenError> {
    let (token, record, expires_at) =
        registration::new_initial_access_token(expires_in, uses, now, rng)
            .map_err(CreateTokenError::Invalid)?;
    store
        .create_initial_access_token(&token.hash(), &record, expires_at, now)
        .await?;
    Ok((token, record, expires_at))
}

/// Why an initial access token was not created.
#[derive(Debug, thiserror::Error)]
pub enum CreateTokenError {
    /// A request the operator must fix (the text says what).
    #[error("{0}")]
    Invalid(&'static str),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Builder;

    fn body(v: serde_json::Value) -> Vec<u8> {
        v.to_string().into_bytes()
    }

    fn who() -> Source {
        Source::from_addr("198.51.100.7")
    }

    #[tokio::test]
    async fn closed_by_default_open_with_a_token_of_limited_uses() {
        let env = Builder::new().build().await;
        let ctx = &env.ctx;
        let b = body(serde_json::json!({"redirect_uris": ["https://rp.example/cb"]}));
        assert!(matches!(
            register(ctx, None, &b, &who()).await,
            Err(RegistrationFailure::TokenRequired)
        ));
        assert!(matches!(
            register(ctx, Some("guess"), &b, &who()).await,
            Err(RegistrationFailure::InvalidToken)
        ));
        let (token, _, _) = create_initial_access_token(
            ctx.store.as_ref(),
            3600,
            1,
            env.now(),
            env.random.as_ref(),
        )
        .await
        .unwrap();
        // A bad request does not spend the use.
        assert!(matches!(
            register(ctx, Some(token.expose()), b"{}", &who()).await,
            Err(RegistrationFailure::Metadata(MetadataError::RedirectUri(_)))
        ));
        let r = register(ctx, Some(token.expose()), &b, &who())
            .await
            .unwrap();
        assert!(ctx
            .store
            .client(&r.client.client_id, env.now())
            .await
            .unwrap()
            .is_some());
        assert!(matches!(
            register(ctx, Some(token.expose()), &b, &who()).await,
            Err(RegistrationFailure::InvalidToken)
        ));
    }

    #[tokio::test]
    async fn an_expired_initial_access_token_is_refused() {
        let env = Builder::new().build().await;
        let (token, _, _) =
            create_initial_access_token(env.store.as_ref(), 60, 5, env.now(), env.random.as_ref())
                .await
                .unwrap();
        env.clock.advance_secs(60);
        let b = body(serde_json::json!({"redirect_uris": ["https://rp.example/cb"]}));
        assert!(matches!(
            register(&env.ctx, Some(token.expose()), &b, &who()).await,
            Err(RegistrationFailure::InvalidToken)
        ));
    }

    #[tokio::test]
    async fn management_needs_the_current_registration_token() {
        let mut env = Builder::new().build().await;
        env.ctx.settings.open_client_registration = true;
        let ctx = &env.ctx;
        let r = register(
            ctx,
            None,
            &body(serde_json::json!({"redirect_uris": ["https://rp.example/cb"]})),
            &who(),
        )
        .await
        .unwrap();
        let id = r.client.client_id.to_string();
        let first = r.registration_access_token.expose().to_owned();
        for (cid, t) in [
            (id.as_str(), Some("wrong")),
            ("no-such-client", Some(first.as_str())),
            ("bad id!", Some(first.as_str())),
        ] {
            assert!(matches!(
                read(ctx, cid, t).await,
                Err(RegistrationFailure::InvalidToken)
            ));
        }
        assert!(matches!(
            read(ctx, &id, None).await,
            Err(RegistrationFailure::TokenRequired)
        ));
        let again = read(ctx, &id, Some(&first)).await.unwrap();
        assert!(again.secret.is_none(), "the secret is shown once");
        assert!(
            matches!(
                read(ctx, &id, Some(&first)).await,
                Err(RegistrationFailure::InvalidToken)
            ),
            "a read replaces the token"
        );
        let second = again.registration_access_token.expose().to_owned();
        delete(ctx, &id, Some(&second)).await.unwrap();
        assert!(matches!(
            delete(ctx, &id, Some(&second)).await,
            Err(RegistrationFailure::InvalidToken)
        ));
    }

    #[tokio::test]
    async fn operator_clients_are_not_managed_here() {
        let env = Builder::new().build().await;
        let operator = &env.shop;
        assert!(operator.registration.is_none());
        for token in ["", "x", "anything"] {
            assert!(matches!(
                read(&env.ctx, &operator.client_id, Some(token)).await,
                Err(RegistrationFailure::InvalidToken)
            ));
            assert!(matches!(
                delete(&env.ctx, &operator.client_id, Some(token)).await,
                Err(RegistrationFailure::InvalidToken)
            ));
        }
    }

    #[tokio::test]
    async fn registrations_are_rate_limited_per_source() {
        let mut env = Builder::new().build().await;
        env.ctx.settings.open_client_registration = true;
        env.ctx.settings.limits.registrations_per_hour = 2;
        let b = body(serde_json::json!({"redirect_uris": ["https://rp.example/cb"]}));
        for _ in 0..2 {
            register(&env.ctx, None, &b, &who()).await.unwrap();
        }
        assert!(matches!(
            register(&env.ctx, None, &b, &who()).await,
            Err(RegistrationFailure::RateLimited { .. })
        ));
        register(&env.ctx, None, &b, &Source::from_addr("203.0.113.9"))
            .await
            .unwrap();
    }
}
