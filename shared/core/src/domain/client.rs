//! Registered clients (relying parties): the model, registration rules and authentication.
//!
//! Redirect URIs are validated at registration (docs/requirements.md A4) and matched by exact string
//! comparison, with only the port of a loopback redirect allowed to vary (A1; RFC 8252 §7.3,
//! RFC 9700 §2.1).

use aws_lc_rs::constant_time::verify_slices_are_equal;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;
use crate::protocol::{ClientId, RedirectUri};
use crate::random::{self, Random};

/// Confidential clients authenticate with a secret; public clients (SPAs, native apps) do not
/// and must use PKCE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientType {
    /// Authenticates with a secret.
    Confidential,
    /// No secret (a browser or native app): PKCE is required.
    Public,
}

/// The grant types: moved to `protocol` (wire values), named here as before.
pub use crate::protocol::requests::{GrantType, DEVICE_CODE_GRANT};

/// A registered client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Client {
    /// The client's id (its record's key).
    pub client_id: ClientId,
    /// The registered name, shown on the consent page and in the app.
    pub name: String,
    /// Confidential or public.
    pub client_type: ClientType,
    /// SHA-256 of the secret, base64url; `None` for public clients.
    pub secret_hash: Option<String>,
    /// The redirect URIs, compared byte for byte.
    pub redirect_uris: Vec<RedirectUri>,
    /// Where RP-initiated logout may send the browser back to.
    #[serde(default)]
    pub post_logout_redirect_uris: Vec<String>,
    /// The grants the client may use.
    pub grant_types: Vec<GrantType>,
    /// When the client was registered.
    pub created_at: Timestamp,
    /// The algorithm this client's tokens are signed with; default the service's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_alg: Option<crate::protocol::Alg>,
    /// A resource server (an API): may introspect access tokens issued to other clients.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub resource_server: bool,
    /// Browser origins allowed to call the token, userinfo, revocation and logout endpoints
    /// (CORS); `+` stands for the origins of the redirect URIs, as in Keycloak.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub web_origins: Vec<String>,
    /// OIDC Back-Channel Logout 1.0: where logout tokens are POSTed when a session ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backchannel_logout_uri: Option<String>,
    /// OpenID CIBA ping mode: where the service POSTs `{"auth_req_id"}` once the person
    /// decided (`None`: the client polls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ciba_notification_endpoint: Option<String>,
    /// Set when the client registered itself (RFC 7591); `None` for the operator's clients,
    /// which the management endpoint (RFC 7592) never reads, changes or deletes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration: Option<Registration>,
    /// The client's policy per risk flag ([`crate::domain::risk`]): a login raising one of
    /// these cannot be approved; the others only warn (the default for every flag).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refuse_on: Vec<crate::domain::risk::Flag>,
    /// The lowest `acr` this client accepts ([`crate::domain::authn`]): every login for it
    /// must reach it (as if each request asked for it as an essential claim).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require_acr: Option<crate::domain::authn::Acr>,
    /// PKCE (S256) required of this confidential client too (public clients always need it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub require_pkce: bool,
    /// Disabled by the operator: no tokens, and its tokens are inactive, until enabled again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disabled: bool,
    /// The admin roles of this client's service account ([`crate::domain::admin`]): its
    /// client-credentials tokens may call the admin API within them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub admin_roles: Vec<crate::domain::admin::AdminRole>,
    /// Its public keys: set, the client authenticates by `private_key_jwt` only
    /// ([`crate::domain::client_assertion`]), never by a secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jwks: Option<crate::domain::client_assertion::ClientKeys>,
    /// Set: it authenticates by `client_secret_jwt` only, its secret also kept sealed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_jwt: Option<crate::domain::client_assertion::SecretJwt>,
    /// Its authorization requests must be pushed first (RFC 9126 §6).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub require_par: bool,
    /// Its pushed requests must carry a request object signed with its keys (RFC 9101 §10.5,
    /// `require_signed_request_object`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub require_signed_request_object: bool,
    /// The profile it is held to ([`crate::domain::profile`]: FAPI 2.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::domain::profile::Profile>,
    /// How its refresh tokens rotate ([`crate::domain::profile::RefreshRotation`]).
    #[serde(
        default,
        skip_serializing_if = "crate::domain::profile::RefreshRotation::is_default"
    )]
    pub refresh_rotation: crate::domain::profile::RefreshRotation,
    /// Its access tokens are always DPoP-bound (RFC 9449 §5.2): a token request without a
    /// DPoP proof is refused.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dpop_bound_access_tokens: bool,
}

pub use crate::domain::auth_method::AuthMethod;

/// What a self-registered client keeps besides its metadata (RFC 7591, RFC 7592).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registration {
    /// SHA-256 of the registration access token (RFC 7592 §1), base64url: it reads, replaces
    /// and deletes this client, and is replaced by each read and update.
    pub access_token_hash: String,
    /// The method it registered.
    pub token_endpoint_auth_method: AuthMethod,
}

impl Client {
    /// May this client authenticate with its secret sent by HTTP Basic (`basic`) or in the
    /// form body (`!basic`)? The operator's confidential clients: either. A self-registered
    /// client: only the `token_endpoint_auth_method` it registered (RFC 7591 §2), so a
    /// registration saying `client_secret_post` is not also a Basic client.
    pub fn accepts_secret_by(&self, basic: bool) -> bool {
        if self.jwks.is_some() || self.secret_jwt.is_some() {
            return false;
        }
        match self
            .registration
            .as_ref()
            .map(|r| r.token_endpoint_auth_method)
        {
            None => true,
            Some(AuthMethod::ClientSecretBasic) => basic,
            Some(AuthMethod::ClientSecretPost) => !basic,
            Some(_) => false,
        }
    }
}

impl Registration {
    /// Does `presented` match the registration access token? Compared in constant time.
    pub fn token_matches(&self, presented: &str) -> bool {
        verify_slices_are_equal(
            hash_secret(presented).as_bytes(),
            self.access_token_hash.as_bytes(),
        )
        .is_ok()
    }
}

/// A client secret in the clear: shown once at registration, never stored, never logged.
#[derive(Clone, PartialEq, Eq)]
pub struct ClientSecret(String);

impl std::fmt::Debug for ClientSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClientSecret(<redacted>)")
    }
}

impl ClientSecret {
    /// 256 random bits, base64url.
    pub fn generate(rng: &dyn Random) -> Self {
        Self(random::token(rng, 32))
    }
    /// A secret the operator chose (Keycloak's admin API lets one be set; a client moved
    /// from Keycloak keeps its own). Its length and characters are checked by the caller.
    pub fn chosen(secret: &str) -> Self {
        Self(secret.to_owned())
    }
    /// The secret itself, to hand to the client once.
    pub fn expose(&self) -> &str {
        &self.0
    }
    /// What is stored. Secrets are high-entropy, so a fast hash is enough (no password hash).
    pub fn hash(&self) -> String {
        hash_secret(&self.0)
    }
}

/// The stored form of a presented token or secret (what [`ClientSecret::hash`] stores), to
/// look it up by.
pub fn hash_presented(presented: &str) -> String {
    hash_secret(presented)
}

fn hash_secret(secret: &str) -> String {
    URL_SAFE_NO_PAD.encode(aws_lc_rs::digest::digest(
        &aws_lc_rs::digest::SHA256,
        secret.as_bytes(),
    ))
}

impl Client {
    /// Does `presented` match this client's secret? Compared in constant time.
    pub fn secret_matches(&self, presented: &str) -> bool {
        match &self.secret_hash {
            Some(stored) => {
                verify_slices_are_equal(hash_secret(presented).as_bytes(), stored.as_bytes())
                    .is_ok()
            }
            None => false,
        }
    }

    /// The browser origins this client's web origins allow (`+` expanded to the origins of
    /// its http(s) redirect URIs).
    pub fn allowed_origins(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for o in &self.web_origins {
            if o == "+" {
                for r in &self.redirect_uris {
                    if let Some(origin) = origin_of(r) {
                        out.push(origin);
                    }
                }
            } else {
                out.push(o.clone());
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// May a browser page at `origin` call this client's endpoints?
    pub fn allows_origin(&self, origin: &str) -> bool {
        self.allowed_origins().iter().any(|o| o == origin)
    }

    /// Whether the client registered `grant`.
    pub fn allows(&self, grant: GrantType) -> bool {
        self.grant_types.contains(&grant)
    }

    /// docs/requirements.md A1: exact match, except that the port of a loopback (127.0.0.1, \[::1\])
    /// http redirect may vary (RFC 8252 §7.3).
    pub fn redirect_uri_matches(&self, presented: &str) -> bool {
        self.redirect_uris
            .iter()
            .any(|r| redirect_uri_matches(r, presented))
    }
}

fn redirect_uri_matches(registered: &str, presented: &str) -> bool {
    if registered == presented {
        return true;
    }
    // Loopback: compare everything but the port, on the exact strings.
    match (split_loopback(registered), split_loopback(presented)) {
        (Some((h1, rest1)), Some((h2, rest2))) => h1 == h2 && rest1 == rest2,
        _ => false,
    }
}

/// For `http://127.0.0.1[:port]/rest` or `http://[::1][:port]/rest`, the host and the rest.
fn split_loopback(uri: &str) -> Option<(&'static str, &str)> {
    for host in ["127.0.0.1", "[::1]"] {
        let Some(after) = uri
            .strip_prefix("http://")
            .and_then(|u| u.strip_prefix(host))
        else {
            continue;
        };
        let rest = match after.strip_prefix(':') {
            Some(p) => {
                let end = p.find(|c: char| !c.is_ascii_digit()).unwrap_or(p.len());
                if end == 0 || end > 5 {
                    return None;
                }
                &p[end..]
            }
            None => after,
        };
        if rest.is_empty() || rest.starts_with('/') {
            return Some((host, rest));
        }
    }
    None
}

/// The origin (`scheme://host[:port]`) of an http(s) URL, as browsers send it in `Origin`.
pub fn origin_of(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    if !matches!(u.scheme(), "http" | "https") {
        return None;
    }
    let o = u.origin();
    o.is_tuple().then(|| o.ascii_serialization())
}

/// A web origin as registered: `+`, or exactly an origin (https, or http on loopback), with no
/// path, query or trailing slash; never `*`.
pub fn validate_web_origin(o: &str) -> Result<(), &'static str> {
    if o == "+" {
        return Ok(());
    }
    if o == "*" {
        return Err(
            "`*` is never allowed: name each origin, or `+` for the redirect URIs' origins",
        );
    }
    match origin_of(o) {
        Some(origin) if origin == o => {}
        _ => {
            return Err("an origin is scheme://host[:port], with no path, query or trailing slash")
        }
    }
    if o.starts_with("http://") && validate_redirect_uri(&format!("{o}/")).is_err() {
        return Err("http origins are allowed only on loopback (127.0.0.1, [::1], localhost)");
    }
    Ok(())
}

/// What an operator asks for.
#[derive(Debug, Clone, Default)]
pub struct NewClient {
    /// The client's name, shown to people.
    pub name: String,
    /// The redirect URIs.
    pub redirect_uris: Vec<String>,
    /// Where logout may send the browser back to.
    pub post_logout_redirect_uris: Vec<String>,
    /// A public client (no secret, PKCE).
    pub public: bool,
    /// Allow the `client_credentials` grant (confidential clients only).
    pub client_credentials: bool,
    /// Allow the device authorization grant (RFC 8628); such a client may have no redirect
    /// URI (a TV or a CLI has none).
    pub device_code: bool,
    /// A chosen client id; default a random UUID.
    pub client_id: Option<String>,
    /// Sign this client's tokens with this algorithm instead of the service default.
    pub token_alg: Option<crate::protocol::Alg>,
    /// Register a resource server (confidential only): it may introspect other clients'
    /// access tokens.
    pub resource_server: bool,
    /// Browser origins for CORS (`+`: the redirect URIs' origins); public clients default to
    /// `+`.
    pub web_origins: Vec<String>,
    /// Back-channel logout endpoint (https, or http on loopback).
    pub backchannel_logout_uri: Option<String>,
    /// Registered for local development (the settings' `local_development`):
    /// only then may the back-channel logout endpoint be on a loopback or link-local host.
    pub local_development: bool,
    /// The risk flags that refuse a login (the others warn).
    pub refuse_on: Vec<crate::domain::risk::Flag>,
    /// The lowest `acr` every login for the client must reach.
    pub require_acr: Option<crate::domain::authn::Acr>,
    /// Require PKCE (S256) of a confidential client too.
    pub require_pkce: bool,
    /// No code flow: a client with only `client_credentials` or the device grant, which then
    /// needs no redirect URI (Keycloak's `standardFlowEnabled: false`).
    pub no_code_flow: bool,
    /// The admin roles of its service account (`client_credentials` clients only).
    pub admin_roles: Vec<crate::domain::admin::AdminRole>,
    /// Public keys (already validated): the client authenticates by `private_key_jwt` and
    /// gets no secret.
    pub jwks: Option<crate::domain::client_assertion::ClientKeys>,
    /// Authenticates by `client_secret_jwt` (its secret sealed by the caller).
    pub secret_jwt: Option<crate::domain::client_assertion::SecretJwt>,
    /// Its authorization requests must be pushed first (RFC 9126).
    pub require_par: bool,
    /// Its pushed requests must carry a signed request object (RFC 9101 §10.5).
    pub require_signed_request_object: bool,
    /// A DPoP proof is required at the token endpoint (RFC 9449 §5.2).
    pub dpop_bound_access_tokens: bool,
    /// An agent (confidential only): may exchange a person's access token for a narrower one
    /// that names it in `act` (RFC 8693), where the person delegated to it on its consent page.
    pub token_exchange: bool,
    /// May start OpenID CIBA requests (confidential only): a person approves on the phone a
    /// login the client asked for by the back channel (Keycloak's `oidc.ciba.grant.enabled`).
    pub ciba: bool,
    /// CIBA ping mode: its client notification endpoint (https, or http on loopback).
    pub ciba_notification_endpoint: Option<String>,
    /// The profile it is held to (FAPI 2.0), which [`register`] applies.
    pub profile: Option<crate::domain::profile::Profile>,
    /// How its refresh tokens rotate.
    pub refresh_rotation: crate::domain::profile::RefreshRotation,
}

/// Why a registration was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistrationError {
    /// The name is empty, too long or not printable.
    #[error("name: 1 to 100 printable characters (no control, zero-width or bidi characters)")]
    Name,
    /// The chosen client id is malformed.
    #[error("client_id: 1 to 128 of A-Z a-z 0-9 . _ - : and not only dots")]
    ClientId,
    /// A client with no redirect URI (and no device grant).
    #[error("at least one redirect URI is required")]
    NoRedirectUri,
    /// No code flow, yet redirect URIs (which only the code flow uses).
    #[error("a client without the code flow has no redirect URI")]
    RedirectUriWithoutCodeFlow,
    /// No grant at all.
    #[error("a client without the code flow needs client_credentials, the device grant or CIBA")]
    NoGrant,
    /// Admin roles for a client without a service account.
    #[error("admin roles belong to a client_credentials client (a service account)")]
    AdminRoleWithoutServiceAccount,
    /// A redirect URI refused.
    #[error("redirect URI {uri:?}: {reason}")]
    RedirectUri {
        /// The refused URI.
        uri: String,
        /// Why.
        reason: &'static str,
    },
    /// A public client asked for `client_credentials`.
    #[error("a public client cannot use client_credentials")]
    PublicClientCredentials,
    /// A public client asked to be an agent (token exchange).
    #[error("an agent (token exchange) authenticates, so it cannot be a public client")]
    PublicAgent,
    /// A public client asked for CIBA.
    #[error("a CIBA client authenticates at the backchannel authentication endpoint, so it cannot be a public client")]
    PublicCiba,
    /// A public client registered keys to authenticate with.
    #[error("a public client does not authenticate, so it registers no jwks")]
    PublicKeys,
    /// `client_secret_jwt` for a public client, one with keys or a FAPI 2.0 one.
    #[error("client_secret_jwt is for a confidential client with a secret: not a public one, not one with keys (jwks), not a FAPI 2.0 one (private_key_jwt only)")]
    SecretJwt,
    /// A public client asked to be a resource server.
    #[error("a resource server authenticates, so it cannot be a public client")]
    PublicResourceServer,
    /// A web origin refused.
    #[error("web origin {origin:?}: {reason}")]
    WebOrigin {
        /// The refused origin.
        origin: String,
        /// Why.
        reason: &'static str,
    },
    /// The client cannot have the profile it asks for.
    #[error("profile: {0}")]
    Profile(&'static str),
    /// A CIBA client notification endpoint refused.
    #[error("ciba_notification_endpoint {uri:?}: {reason}")]
    CibaNotificationEndpoint {
        /// The refused URI.
        uri: String,
        /// Why.
        reason: &'static str,
    },
    /// A back-channel logout URI refused.
    #[error("backchannel_logout_uri {uri:?}: {reason}")]
    BackchannelLogoutUri {
        /// The refused URI.
        uri: String,
        /// Why.
        reason: &'static str,
    },
}

/// Validates a registration and returns the client with its one-time secret.
pub fn register(
    mut new: NewClient,
    now: Timestamp,
    rng: &dyn Random,
) -> Result<(Client, Option<ClientSecret>), RegistrationError> {
    crate::domain::profile::apply(&mut new).map_err(RegistrationError::Profile)?;
    let name = new.name.trim().to_owned();
    if name.is_empty() || name.chars().count() > 100 || !crate::domain::text::is_visible_text(&name)
    {
        return Err(RegistrationError::Name);
    }
    let client_id = match &new.client_id {
        Some(id) => ClientId::parse(id).map_err(|_| RegistrationError::ClientId)?,
        None => ClientId::new(random::uuid_v4(rng).to_string()),
    };
    check_grants(&new)?;
    let grant_types = grant_types_of(&new);
    let (client_type, secret) = credentials(&new, rng)?;
    for uri in new
        .redirect_uris
        .iter()
        .chain(&new.post_logout_redirect_uris)
    {
        validate_redirect_uri(uri).map_err(|reason| RegistrationError::RedirectUri {
            uri: uri.clone(),
            reason,
        })?;
    }
    for o in &new.web_origins {
        validate_web_origin(o).map_err(|reason| RegistrationError::WebOrigin {
            origin: o.clone(),
            reason,
        })?;
    }
    check_backchannel_uris(&new)?;
    let web_origins = if new.web_origins.is_empty() && new.public {
        vec!["+".to_owned()]
    } else {
        dedup(new.web_origins)
    };
    let client = Client {
        client_id,
        name,
        client_type,
        secret_hash: secret.as_ref().map(ClientSecret::hash),
        redirect_uris: dedup(new.redirect_uris)
            .into_iter()
            .map(RedirectUri::new)
            .collect(),
        post_logout_redirect_uris: dedup(new.post_logout_redirect_uris),
        grant_types,
        created_at: now,
        token_alg: new.token_alg,
        resource_server: new.resource_server,
        web_origins,
        backchannel_logout_uri: new.backchannel_logout_uri,
        ciba_notification_endpoint: new.ciba_notification_endpoint,
        registration: None,
        refuse_on: new.refuse_on,
        require_acr: new.require_acr,
        require_pkce: new.require_pkce && !new.public,
        disabled: false,
        admin_roles: dedup_roles(new.admin_roles),
        jwks: new.jwks,
        secret_jwt: new.secret_jwt,
        require_par: new.require_par,
        require_signed_request_object: new.require_signed_request_object,
        profile: new.profile,
        refresh_rotation: new.refresh_rotation,
        dpop_bound_access_tokens: new.dpop_bound_access_tokens,
    };
    Ok((client, secret))
}

/// The grants a new client may use.
fn grant_types_of(new: &NewClient) -> Vec<GrantType> {
    let mut grant_types = if new.no_code_flow {
        vec![GrantType::RefreshToken]
    } else {
        vec![GrantType::AuthorizationCode, GrantType::RefreshToken]
    };
    for (on, g) in [
        (new.client_credentials, GrantType::ClientCredentials),
        (new.device_code, GrantType::DeviceCode),
        (new.token_exchange, GrantType::TokenExchange),
        (new.ciba, GrantType::Ciba),
    ] {
        if on {
            grant_types.push(g);
        }
    }
    grant_types
}

/// Public (no secret), by keys (no secret), or a new secret.
fn credentials(
    new: &NewClient,
    rng: &dyn Random,
) -> Result<(ClientType, Option<ClientSecret>), RegistrationError> {
    if new.secret_jwt.is_some() && (new.public || new.jwks.is_some() || new.profile.is_some()) {
        return Err(RegistrationError::SecretJwt);
    }
    Ok(match (new.public, new.jwks.is_some()) {
        (true, true) => return Err(RegistrationError::PublicKeys),
        (true, false) => (ClientType::Public, None),
        (false, true) => (ClientType::Confidential, None),
        (false, false) => (ClientType::Confidential, Some(ClientSecret::generate(rng))),
    })
}

/// Where the service POSTs to a client (its back-channel logout URI, its CIBA notification
/// endpoint): an https URL (or http on loopback), never the service's own host outside local
/// development.
pub fn backchannel_uri(uri: &str, local_development: bool) -> Result<(), &'static str> {
    validate_redirect_uri(uri)
        .and_then(|()| match origin_of(uri) {
            Some(_) => Ok(()),
            None => Err("must be an https URL (or http on loopback)"),
        })
        .and_then(|()| {
            if local_development || !internal_host(uri) {
                Ok(())
            } else {
                Err("must not be a loopback, link-local or unspecified address outside local development (the service would POST to its own host; developing locally, give the server's loopback --public-url)")
            }
        })
}

fn check_backchannel_uris(new: &NewClient) -> Result<(), RegistrationError> {
    if let Some(uri) = &new.backchannel_logout_uri {
        backchannel_uri(uri, new.local_development).map_err(|reason| {
            RegistrationError::BackchannelLogoutUri {
                uri: uri.clone(),
                reason,
            }
        })?;
    }
    if let Some(uri) = &new.ciba_notification_endpoint {
        if !new.ciba {
            return Err(RegistrationError::CibaNotificationEndpoint {
                uri: uri.clone(),
                reason: "only a CIBA client (--grant ciba) has one",
            });
        }
        backchannel_uri(uri, new.local_development).map_err(|reason| {
            RegistrationError::CibaNotificationEndpoint {
                uri: uri.clone(),
                reason,
            }
        })?;
    }
    Ok(())
}

/// The flows a client asks for agree with each other: redirect URIs for the code flow (none
/// without it), some grant, no service account for a public client, admin roles only for a
/// service account.
fn check_grants(new: &NewClient) -> Result<(), RegistrationError> {
    if new.no_code_flow {
        if !new.redirect_uris.is_empty() {
            return Err(RegistrationError::RedirectUriWithoutCodeFlow);
        }
        if !new.device_code && !new.client_credentials && !new.ciba {
            return Err(RegistrationError::NoGrant);
        }
    } else if new.redirect_uris.is_empty() && !new.device_code {
        return Err(RegistrationError::NoRedirectUri);
    }
    if new.public && new.client_credentials {
        return Err(RegistrationError::PublicClientCredentials);
    }
    if new.public && new.resource_server {
        return Err(RegistrationError::PublicResourceServer);
    }
    if new.public && new.token_exchange {
        return Err(RegistrationError::PublicAgent);
    }
    if new.public && new.ciba {
        return Err(RegistrationError::PublicCiba);
    }
    if !new.admin_roles.is_empty() && !new.client_credentials {
        return Err(RegistrationError::AdminRoleWithoutServiceAccount);
    }
    Ok(())
}

fn dedup_roles(
    mut v: Vec<crate::domain::admin::AdminRole>,
) -> Vec<crate::domain::admin::AdminRole> {
    v.sort();
    v.dedup();
    v
}

fn dedup(mut v: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    v.retain(|u| seen.insert(u.clone()));
    v
}

/// Whether `host` is this machine by name or address: `127.0.0.0/8`, `[::1]`, `localhost`
/// (where http is allowed, RFC 8252 §7.3, and what counts as local development).
pub fn loopback_host(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Ipv4(ip) => ip.is_loopback(),
        url::Host::Ipv6(ip) => ip.is_loopback(),
        url::Host::Domain(d) => *d == "localhost",
    }
}

/// Whether `uri`'s host is this machine or its link (loopback, link-local such as the cloud
/// metadata address 169.254.169.254, unspecified, `localhost`): a server-side POST there
/// reaches the service's own host.
fn internal_host(uri: &str) -> bool {
    fn v4(ip: std::net::Ipv4Addr) -> bool {
        ip.is_loopback() || ip.is_link_local() || ip.is_unspecified()
    }
    fn v6(ip: std::net::Ipv6Addr) -> bool {
        ip.is_loopback()
            || ip.is_unspecified()
            || ip.is_unicast_link_local()
            || ip.to_ipv4_mapped().is_some_and(v4)
    }
    match url::Url::parse(uri).ok().as_ref().and_then(url::Url::host) {
        Some(url::Host::Ipv4(ip)) => v4(ip),
        Some(url::Host::Ipv6(ip)) => v6(ip),
        Some(url::Host::Domain(d)) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
        None => true,
    }
}

/// Every parameter scanid puts in an authorization response (RFC 6749 §4.1.2, §4.1.2.1;
/// RFC 9207; OIDC Session Management's `session_state`).
pub const RESPONSE_PARAMETERS: &[&str] = &[
    "code",
    "state",
    "iss",
    "session_state",
    "error",
    "error_description",
    "error_uri",
];

/// docs/requirements.md A4: https anywhere; http only on loopback; a private-use scheme (reverse domain
/// name, RFC 8252 §7.1) for native apps; never `javascript:`/`data:`/`file:`; no fragment, no
/// credentials, and no parameter of an authorization response already in the query, so none
/// can appear twice in a response (docs/requirements.md A8).
pub fn validate_redirect_uri(uri: &str) -> Result<(), &'static str> {
    if uri.len() > 2000 {
        return Err("longer than 2000 characters");
    }
    if uri.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err("contains white space or control characters");
    }
    let url = url::Url::parse(uri).map_err(|_| "not an absolute URI")?;
    if url.fragment().is_some() || uri.contains('#') {
        return Err("must not contain a fragment");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("must not contain credentials");
    }
    match url.scheme() {
        "https" => {
            if url.host_str().is_none_or(str::is_empty) {
                return Err("https needs a host");
            }
        }
        "http" => {
            if !url.host().as_ref().is_some_and(loopback_host) {
                return Err("http is allowed only on loopback (127.0.0.1, [::1], localhost)");
            }
        }
        "javascript" | "data" | "file" | "vbscript" | "blob" | "about" => {
            return Err("this scheme is never allowed");
        }
        s if s.contains('.') => {} // RFC 8252 §7.1 private-use scheme, e.g. com.example.app
        _ => {
            return Err(
                "the scheme must be https, loopback http, or a reverse-domain private-use scheme",
            )
        }
    }
    if url
        .query_pairs()
        .any(|(k, _)| RESPONSE_PARAMETERS.contains(&k.as_ref()))
    {
        return Err("must not already carry a parameter of an authorization response (code, state, iss, session_state, error, error_description, error_uri)");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::SeededRandom;

    fn client(uris: &[&str]) -> Client {
        let (c, _) = register(
            NewClient {
                name: "RP".into(),
                redirect_uris: uris.iter().map(|s| s.to_string()).collect(),
                ..Default::default()
            },
            Timestamp::from_secs(0),
            &SeededRandom::new(1),
        )
        .unwrap();
        c
    }

    #[test]
    fn a_self_registered_client_uses_the_auth_method_it_registered() {
        let mut c = client(&["https://rp.example.com/cb"]);
        assert!(c.accepts_secret_by(true) && c.accepts_secret_by(false));
        for (method, basic, post) in [
            (AuthMethod::ClientSecretBasic, true, false),
            (AuthMethod::ClientSecretPost, false, true),
            (AuthMethod::None, false, false),
        ] {
            c.registration = Some(Registration {
                access_token_hash: String::new(),
                token_endpoint_auth_method: method,
            });
            assert_eq!(
                (c.accepts_secret_by(true), c.accepts_secret_by(false)),
                (basic, post),
                "{method:?}"
            );
        }
    }

    #[test]
    fn a1_exact_match_only() {
        let c = client(&[
            "https://rp.example.com/cb",
            "http://127.0.0.1:8000/cb",
            "http://[::1]/cb",
        ]);
        assert!(c.redirect_uri_matches("https://rp.example.com/cb"));
        for bad in [
            "https://rp.example.com/cb/",
            "https://RP.example.com/cb",
            "https://rp.example.com/CB",
            "https://rp.example.com/cb?x=1",
            "https://rp.example.com/cb#f",
            "https://rp.example.com/cb/..;/",
            "https://rp.example.com/cb/%2E%2E/evil",
            "https://rp.example.com/cb%252F",
            "https://rp.example.com.evil/cb",
            "https://rp.example.com@evil/cb",
            "https://rp.example.com@@evil/cb",
            "https://rp.example.com:443/cb",
            "http://rp.example.com/cb",
            "",
        ] {
            assert!(!c.redirect_uri_matches(bad), "{bad}");
        }
        // Loopback: only the port may vary.
        assert!(c.redirect_uri_matches("http://127.0.0.1:51234/cb"));
        assert!(c.redirect_uri_matches("http://127.0.0.1/cb"));
        assert!(c.redirect_uri_matches("http://[::1]:9/cb"));
        assert!(!c.redirect_uri_matches("http://127.0.0.1:51234/cb2"));
        assert!(!c.redirect_uri_matches("http://127.0.0.1:51234@evil/cb"));
        assert!(!c.redirect_uri_matches("http://127.0.0.1:x/cb"));
        assert!(!c.redirect_uri_matches("http://[::1]:9/cb?x"));
        assert!(!c.redirect_uri_matches("http://localhost:8000/cb"));
    }

    #[test]
    fn backchannel_uris_on_the_service_host_only_in_local_development() {
        let with_bcl = |uri: &str, local: bool| {
            register(
                NewClient {
                    name: "RP".into(),
                    redirect_uris: vec!["https://rp.example/cb".into()],
                    backchannel_logout_uri: Some(uri.into()),
                    local_development: local,
                    ..Default::default()
                },
                Timestamp::from_secs(0),
                &SeededRandom::new(1),
            )
        };
        for internal in [
            "http://127.0.0.1:9000/bcl",
            "http://localhost/bcl",
            "http://[::1]/bcl",
            "https://127.0.0.2/bcl",
            "https://169.254.169.254/latest/meta-data",
            "https://[fe80::1]/bcl",
            "https://0.0.0.0/bcl",
            "https://[::ffff:169.254.169.254]/bcl",
            "https://localhost./bcl",
            "https://metadata.localhost/bcl",
            "https://2852039166/bcl", // 169.254.169.254 as one number
            "https://0xa9.0xfe.0xa9.0xfe/bcl",
        ] {
            let refused = with_bcl(internal, false);
            assert!(
                matches!(refused, Err(RegistrationError::BackchannelLogoutUri { .. })),
                "{internal}: {refused:?}"
            );
        }
        for (uri, local) in [
            ("https://rp.example/bcl", false),
            ("https://10.0.0.7/bcl", false), // a private network: the operator's own
            ("http://127.0.0.1:9000/bcl", true),
            ("http://localhost/bcl", true),
        ] {
            assert!(with_bcl(uri, local).is_ok(), "{uri}");
        }
    }

    #[test]
    fn a4_registration_rules() {
        for ok in [
            "https://rp.example.com/cb",
            "https://rp.example.com/cb?tenant=1",
            "http://127.0.0.1/cb",
            "http://[::1]:8080/cb",
            "http://localhost:3000/callback",
            "com.example.app:/oauth2redirect",
        ] {
            assert_eq!(validate_redirect_uri(ok), Ok(()), "{ok}");
        }
        for bad in [
            "javascript:alert(1)",
            "JAVASCRIPT:alert(1)",
            "data:text/html,x",
            "file:///etc/passwd",
            "http://rp.example.com/cb",
            "https://rp.example.com/cb#frag",
            "https://rp.example.com/cb#",
            "https://user:pw@rp.example.com/cb",
            "https://rp.example.com@evil.example/cb",
            "https://rp.example.com/cb?code=x",
            "https://rp.example.com/cb?state=x",
            "https://rp.example.com/cb?iss=x",
            "https://rp.example.com/cb?error_description=x",
            "https://rp.example.com/cb?error_uri=x",
            "https://rp.example.com/cb?session_state=x",
            "https://rp.example.com/cb?a=1&error=x",
            "/relative",
            "myapp:/cb",
            "https://rp.example.com/c b",
        ] {
            assert!(validate_redirect_uri(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn web_origins_plus_and_explicit() {
        let rng = SeededRandom::new(4);
        let mk = |public: bool, origins: &[&str]| {
            register(
                NewClient {
                    name: "SPA".into(),
                    redirect_uris: vec![
                        "https://app.example.com/cb".into(),
                        "http://127.0.0.1:3000/cb".into(),
                        "com.example.app:/cb".into(),
                    ],
                    public,
                    web_origins: origins.iter().map(|s| s.to_string()).collect(),
                    ..Default::default()
                },
                Timestamp::from_secs(0),
                &rng,
            )
        };
        let (spa, _) = mk(true, &[]).unwrap();
        assert_eq!(spa.web_origins, vec!["+"]);
        assert_eq!(
            spa.allowed_origins(),
            vec!["http://127.0.0.1:3000", "https://app.example.com"]
        );
        assert!(spa.allows_origin("https://app.example.com"));
        assert!(!spa.allows_origin("https://app.example.com.evil.example"));
        assert!(!spa.allows_origin("null"));
        let (server, _) = mk(false, &[]).unwrap();
        assert!(
            server.allowed_origins().is_empty(),
            "confidential: none by default"
        );
        let (explicit, _) = mk(false, &["https://other.example"]).unwrap();
        assert_eq!(explicit.allowed_origins(), vec!["https://other.example"]);
        for bad in [
            "*",
            "https://a.example/",
            "https://a.example/path",
            "http://a.example",
            "a.example",
            "https://a.example?x",
        ] {
            assert!(
                matches!(mk(true, &[bad]), Err(RegistrationError::WebOrigin { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn secrets_are_shown_once_and_stored_hashed() {
        let rng = SeededRandom::new(9);
        let (c, secret) = register(
            NewClient {
                name: "x".into(),
                redirect_uris: vec!["https://a.example/cb".into()],
                ..Default::default()
            },
            Timestamp::from_secs(0),
            &rng,
        )
        .unwrap();
        let secret = secret.unwrap();
        assert_eq!(secret.expose().len(), 43);
        assert_ne!(c.secret_hash.as_deref(), Some(secret.expose()));
        assert!(c.secret_matches(secret.expose()));
        assert!(!c.secret_matches("wrong"));
        assert!(!c.secret_matches(""));
        assert_eq!(format!("{secret:?}"), "ClientSecret(<redacted>)");
        assert_eq!(c.client_type, ClientType::Confidential);
        assert!(!c.allows(GrantType::ClientCredentials));
    }

    #[test]
    fn registration_errors() {
        let rng = SeededRandom::new(9);
        let base = NewClient {
            name: "x".into(),
            redirect_uris: vec!["https://a.example/cb".into()],
            ..Default::default()
        };
        let now = Timestamp::from_secs(0);
        let mut n = base.clone();
        n.name = " ".into();
        assert_eq!(register(n, now, &rng).unwrap_err(), RegistrationError::Name);
        let mut n = base.clone();
        n.redirect_uris.clear();
        assert_eq!(
            register(n, now, &rng).unwrap_err(),
            RegistrationError::NoRedirectUri
        );
        let mut n = base.clone();
        n.client_id = Some("a b".into());
        assert_eq!(
            register(n, now, &rng).unwrap_err(),
            RegistrationError::ClientId
        );
        let mut n = base.clone();
        n.public = true;
        n.client_credentials = true;
        assert_eq!(
            register(n, now, &rng).unwrap_err(),
            RegistrationError::PublicClientCredentials
        );
        let mut n = base;
        n.public = true;
        let (c, s) = register(n, now, &rng).unwrap();
        assert!(s.is_none() && c.secret_hash.is_none() && !c.secret_matches(""));
    }
}
