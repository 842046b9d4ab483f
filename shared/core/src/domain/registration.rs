//! Dynamic client registration (RFC 7591) and its management protocol (RFC 7592): which
//! metadata a client may register, how it maps onto scanid's client model ([`Client`]), and
//! the operator's initial access tokens.
//!
//! The rules are `scanid client create`'s ([`client::register`]): the same redirect-URI,
//! name and back-channel checks. Of the metadata of RFC 7591 §2 and OIDC Dynamic Client
//! Registration §2, scanid keeps what its client model has: `redirect_uris`,
//! `token_endpoint_auth_method`, `grant_types`, `response_types`, `client_name`,
//! `post_logout_redirect_uris`, `backchannel_logout_uri`, `id_token_signed_response_alg` (and
//! `authorization_signed_response_alg` and `introspection_signed_response_alg`, the same one
//! algorithm), and for `private_key_jwt` `jwks` or `jwks_uri` and
//! `token_endpoint_auth_signing_alg`, and `require_pushed_authorization_requests` and
//! `require_signed_request_object`.
//! Every other field (`logo_uri`, `client_uri`, `policy_uri`, `tos_uri`, `contacts`,
//! `scope`, `software_id`, ...) is ignored and not echoed back (RFC 7591 §3.2.1 lets the server
//! say what it registered).

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;
use crate::domain::client::{
    self, AuthMethod, Client, ClientSecret, ClientType, NewClient, RegistrationError,
};
use crate::protocol::Alg;
use crate::random::Random;

/// The largest registration request body (bytes).
pub const MAX_BODY: usize = 32 * 1024;
/// The most redirect URIs (and post-logout redirect URIs) a client may register.
pub const MAX_URIS: usize = 20;
/// The grant types a client may register.
pub const GRANT_TYPES: &[&str] = &[
    "authorization_code",
    "refresh_token",
    "client_credentials",
    crate::protocol::requests::DEVICE_CODE_GRANT,
];
/// The response types a client may register.
pub const RESPONSE_TYPES: &[&str] = &["code"];
/// The longest an initial access token may live (one year).
pub const MAX_TOKEN_LIFETIME: i64 = 31_536_000;
/// The most uses an initial access token may have.
pub const MAX_TOKEN_USES: u32 = 10_000;

/// The metadata scanid reads from a registration or update request; unknown fields are
/// ignored, a known field of the wrong type is `invalid_client_metadata`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ClientMetadata {
    /// `redirect_uris`.
    pub redirect_uris: Option<Vec<String>>,
    /// `token_endpoint_auth_method`.
    pub token_endpoint_auth_method: Option<String>,
    /// `grant_types`.
    pub grant_types: Option<Vec<String>>,
    /// `response_types`.
    pub response_types: Option<Vec<String>>,
    /// `client_name`.
    pub client_name: Option<String>,
    /// `post_logout_redirect_uris`.
    pub post_logout_redirect_uris: Option<Vec<String>>,
    /// `backchannel_logout_uri`.
    pub backchannel_logout_uri: Option<String>,
    /// `id_token_signed_response_alg`.
    pub id_token_signed_response_alg: Option<String>,
    /// `jwks`: the client's public keys by value (for `private_key_jwt`).
    pub jwks: Option<serde_json::Value>,
    /// `jwks_uri`: where they are published (for `private_key_jwt`).
    pub jwks_uri: Option<String>,
    /// `token_endpoint_auth_signing_alg`.
    pub token_endpoint_auth_signing_alg: Option<String>,
    /// `require_pushed_authorization_requests` (RFC 9126 §6).
    pub require_pushed_authorization_requests: Option<bool>,
    /// `require_signed_request_object` (RFC 9101 §10.5).
    pub require_signed_request_object: Option<bool>,
    /// `authorization_signed_response_alg` (JARM): the client's one algorithm.
    pub authorization_signed_response_alg: Option<String>,
    /// `introspection_signed_response_alg` (RFC 9701): the client's one algorithm.
    pub introspection_signed_response_alg: Option<String>,
    /// `dpop_bound_access_tokens` (RFC 9449 §5.2).
    pub dpop_bound_access_tokens: Option<bool>,
    /// Only in an update (RFC 7592 §2.2): must be the client's own.
    pub client_id: Option<String>,
    /// Only in an update: if present, must be the client's current secret.
    pub client_secret: Option<String>,
}

/// Why a registration or update request was refused (RFC 7591 §3.2.2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetadataError {
    /// The body is not a JSON object.
    #[error("{0}")]
    Malformed(&'static str),
    /// `invalid_redirect_uri`.
    #[error("{0}")]
    RedirectUri(String),
    /// `invalid_client_metadata`.
    #[error("{0}")]
    Metadata(String),
}

impl MetadataError {
    /// The RFC 7591 §3.2.2 error code (`invalid_request` for a body that is not JSON).
    pub const fn code(&self) -> &'static str {
        match self {
            MetadataError::Malformed(_) => "invalid_request",
            MetadataError::RedirectUri(_) => "invalid_redirect_uri",
            MetadataError::Metadata(_) => "invalid_client_metadata",
        }
    }
}

fn meta(why: impl Into<String>) -> MetadataError {
    MetadataError::Metadata(why.into())
}

/// The client's one signing algorithm: `id_token_signed_response_alg`,
/// `authorization_signed_response_alg` (JARM) and `introspection_signed_response_alg` (RFC
/// 9701) name it, each one of the realm's, and alike when several are sent (scanid signs
/// everything for a client with one algorithm, as its admin API's token attributes).
fn token_alg_of(m: &ClientMetadata, algs: &[Alg]) -> Result<Option<Alg>, MetadataError> {
    let mut chosen: Option<Alg> = None;
    for (name, value) in [
        (
            "id_token_signed_response_alg",
            &m.id_token_signed_response_alg,
        ),
        (
            "authorization_signed_response_alg",
            &m.authorization_signed_response_alg,
        ),
        (
            "introspection_signed_response_alg",
            &m.introspection_signed_response_alg,
        ),
    ] {
        let Some(s) = value.as_deref() else { continue };
        let Some(a) = Alg::parse(s).filter(|a| algs.contains(a)) else {
            let names: Vec<&str> = algs.iter().map(|a| a.as_str()).collect();
            return Err(meta(format!("{name}: one of {}", names.join(", "))));
        };
        if chosen.is_some_and(|c| c != a) {
            return Err(meta(format!(
                "{name}: scanid signs everything for a client with one algorithm; send the same as the other *_signed_response_alg"
            )));
        }
        chosen = Some(a);
    }
    Ok(chosen)
}

/// Reads a request body: a JSON object, its unknown members ignored.
pub fn parse(body: &[u8]) -> Result<ClientMetadata, MetadataError> {
    let value: serde_json::Value = serde_json::from_slice(body)
        .map_err(|_| MetadataError::Malformed("the body is not JSON"))?;
    if !value.is_object() {
        return Err(MetadataError::Malformed("the body must be a JSON object"));
    }
    serde_json::from_value(value).map_err(|e| meta(format!("client metadata: {e}")))
}

impl From<RegistrationError> for MetadataError {
    fn from(e: RegistrationError) -> Self {
        match e {
            RegistrationError::NoRedirectUri | RegistrationError::RedirectUri { .. } => {
                MetadataError::RedirectUri(e.to_string())
            }
            other => meta(other.to_string()),
        }
    }
}

/// What a valid request asks for: the operator's [`NewClient`], and the auth method.
fn requested(
    m: &ClientMetadata,
    algs: &[Alg],
    local_development: bool,
) -> Result<(NewClient, AuthMethod), MetadataError> {
    let method = match m.token_endpoint_auth_method.as_deref() {
        // RFC 7591 §2: the default.
        None => AuthMethod::ClientSecretBasic,
        Some(s) => AuthMethod::parse(s).ok_or_else(|| {
            meta("token_endpoint_auth_method: client_secret_basic, client_secret_post, client_secret_jwt, private_key_jwt or none")
        })?,
    };
    let jwks = keys_of(m, method)?;
    let secret_jwt = match method {
        AuthMethod::ClientSecretJwt => Some(
            crate::domain::client_assertion::SecretJwt::new(
                m.token_endpoint_auth_signing_alg.clone(),
            )
            .map_err(meta)?,
        ),
        _ => None,
    };
    let public = method == AuthMethod::None;
    let grants = m
        .grant_types
        .clone()
        .unwrap_or_else(|| vec!["authorization_code".into()]);
    if let Some(g) = grants.iter().find(|g| !GRANT_TYPES.contains(&g.as_str())) {
        return Err(meta(format!(
            "grant_types: {g:?} is not supported (supported: {})",
            GRANT_TYPES.join(", ")
        )));
    }
    if !grants.iter().any(|g| g == "authorization_code") {
        return Err(meta(
            "grant_types must include authorization_code: scanid registers clients that log people in",
        ));
    }
    let responses = m
        .response_types
        .clone()
        .unwrap_or_else(|| vec!["code".into()]);
    if responses.is_empty() {
        return Err(meta("response_types: code"));
    }
    if let Some(r) = responses
        .iter()
        .find(|r| !RESPONSE_TYPES.contains(&r.as_str()))
    {
        return Err(meta(format!(
            "response_types: {r:?} is not supported (only code)"
        )));
    }
    let redirect_uris = m.redirect_uris.clone().unwrap_or_default();
    if redirect_uris.is_empty() {
        return Err(RegistrationError::NoRedirectUri.into());
    }
    if redirect_uris.len() > MAX_URIS {
        return Err(MetadataError::RedirectUri(format!(
            "at most {MAX_URIS} redirect URIs"
        )));
    }
    let post_logout_redirect_uris = m.post_logout_redirect_uris.clone().unwrap_or_default();
    if post_logout_redirect_uris.len() > MAX_URIS {
        return Err(MetadataError::RedirectUri(format!(
            "at most {MAX_URIS} post-logout redirect URIs"
        )));
    }
    let token_alg = token_alg_of(m, algs)?;
    let name = match &m.client_name {
        Some(n) => n.clone(),
        None => default_name(&redirect_uris),
    };
    Ok((
        NewClient {
            name,
            redirect_uris,
            post_logout_redirect_uris,
            public,
            client_credentials: grants.iter().any(|g| g == "client_credentials"),
            device_code: grants
                .iter()
                .any(|g| g == crate::protocol::requests::DEVICE_CODE_GRANT),
            client_id: None,
            token_alg,
            resource_server: false,
            web_origins: Vec::new(),
            backchannel_logout_uri: m.backchannel_logout_uri.clone(),
            local_development,
            jwks,
            secret_jwt,
            require_par: m.require_pushed_authorization_requests.unwrap_or(false),
            require_signed_request_object: m.require_signed_request_object.unwrap_or(false),
            dpop_bound_access_tokens: m.dpop_bound_access_tokens.unwrap_or(false),
            ..Default::default()
        },
        method,
    ))
}

/// The keys of a `private_key_jwt` client (`jwks` or `jwks_uri`); none for another method.
fn keys_of(
    m: &ClientMetadata,
    method: AuthMethod,
) -> Result<Option<crate::domain::client_assertion::ClientKeys>, MetadataError> {
    if method != AuthMethod::PrivateKeyJwt {
        return Ok(None);
    }
    crate::domain::client_assertion::ClientKeys::new(
        m.jwks.clone(),
        m.jwks_uri.clone(),
        m.token_endpoint_auth_signing_alg.clone(),
    )
    .map(Some)
    .map_err(meta)
}

/// A client that gives no name is named after its first redirect URI's host (or scheme).
fn default_name(redirect_uris: &[String]) -> String {
    redirect_uris
        .first()
        .and_then(|u| url::Url::parse(u).ok())
        .map(|u| match u.host_str() {
            Some(h) if !h.is_empty() => h.to_owned(),
            _ => u.scheme().to_owned(),
        })
        .unwrap_or_default()
}

/// A new self-registered client, its one-time secret (confidential clients) and its
/// registration access token (shown once; only its hash is kept).
#[derive(Debug)]
pub struct Registered {
    /// The new client.
    pub client: Client,
    /// Its secret, for a confidential client (shown once).
    pub secret: Option<ClientSecret>,
    /// The registration access token (RFC 7592), shown once.
    pub registration_access_token: ClientSecret,
}

/// Validates a registration request (RFC 7591 §3.1) with `scanid client create`'s rules.
pub fn register(
    m: &ClientMetadata,
    algs: &[Alg],
    local_development: bool,
    now: Timestamp,
    rng: &dyn Random,
) -> Result<Registered, MetadataError> {
    let (new, method) = requested(m, algs, local_development)?;
    let (mut client, secret) = client::register(new, now, rng)?;
    let token = ClientSecret::generate(rng);
    client.registration = Some(client::Registration {
        access_token_hash: token.hash(),
        token_endpoint_auth_method: method,
    });
    Ok(Registered {
        client,
        secret,
        registration_access_token: token,
    })
}

/// Validates an update (RFC 7592 §2.2) of `old`: the same rules as registering, the same
/// `client_id`, the same kind of client, and the current secret if one is given. The secret,
/// id and creation time stay; the registration access token is replaced.
pub fn replace(
    old: &Client,
    m: &ClientMetadata,
    algs: &[Alg],
    local_development: bool,
    rng: &dyn Random,
) -> Result<Registered, MetadataError> {
    if m.client_id.as_deref() != Some(old.client_id.as_str()) {
        return Err(meta("client_id must be given and be this client's"));
    }
    if let Some(s) = &m.client_secret {
        if !old.secret_matches(s) {
            return Err(meta("client_secret does not match this client's secret"));
        }
    }
    let (mut new, method) = requested(m, algs, local_development)?;
    let was_public = old.client_type == ClientType::Public;
    if new.public != was_public {
        return Err(meta(
            "token_endpoint_auth_method cannot change between none and a secret: register a new client",
        ));
    }
    if new.jwks.is_some() != old.jwks.is_some()
        || new.secret_jwt.is_some() != old.secret_jwt.is_some()
    {
        return Err(meta(
            "token_endpoint_auth_method cannot change between private_key_jwt, client_secret_jwt and a secret: register a new client",
        ));
    }
    // The sealed secret stays with the secret.
    if let (Some(n), Some(o)) = (new.secret_jwt.as_mut(), old.secret_jwt.as_ref()) {
        n.sealed.clone_from(&o.sealed);
    }
    new.client_id = Some(old.client_id.to_string());
    // What only the operator sets stays (a profile holds the client to it: FAPI 2.0).
    new.profile = old.profile;
    new.refresh_rotation = old.refresh_rotation;
    let (mut client, _) = client::register(new, old.created_at, rng)?;
    client.secret_hash.clone_from(&old.secret_hash);
    let token = ClientSecret::generate(rng);
    client.registration = Some(client::Registration {
        access_token_hash: token.hash(),
        token_endpoint_auth_method: method,
    });
    Ok(Registered {
        client,
        secret: None,
        registration_access_token: token,
    })
}

/// Where a client reads, replaces and deletes its registration (RFC 7592 §2).
pub fn client_uri(issuer: &str, client_id: &str) -> String {
    format!("{issuer}/clients-registrations/openid-connect/{client_id}")
}

/// The registration endpoint (RFC 7591 §3), Keycloak's path.
pub fn endpoint(issuer: &str) -> String {
    format!("{issuer}/clients-registrations/openid-connect")
}

/// The client information response (RFC 7591 §3.2.1, RFC 7592 §3): what was registered, the
/// secret when one was just issued, and the (new) registration access token.
pub fn information(issuer: &str, r: &Registered) -> serde_json::Value {
    let c = &r.client;
    let method = c
        .registration
        .as_ref()
        .map_or(AuthMethod::ClientSecretBasic, |g| {
            g.token_endpoint_auth_method
        });
    let grants: Vec<&str> = c.grant_types.iter().map(|g| g.as_str()).collect();
    let mut out = serde_json::json!({
        "client_id": c.client_id,
        "client_id_issued_at": c.created_at.secs(),
        "client_name": c.name,
        "redirect_uris": c.redirect_uris,
        "grant_types": grants,
        "response_types": RESPONSE_TYPES,
        "token_endpoint_auth_method": method.as_str(),
        "registration_access_token": r.registration_access_token.expose(),
        "registration_client_uri": client_uri(issuer, &c.client_id),
    });
    if !c.post_logout_redirect_uris.is_empty() {
        out["post_logout_redirect_uris"] = serde_json::json!(c.post_logout_redirect_uris);
    }
    if let Some(u) = &c.backchannel_logout_uri {
        out["backchannel_logout_uri"] = serde_json::json!(u);
        out["backchannel_logout_session_required"] = serde_json::json!(true);
    }
    if let Some(a) = c.token_alg {
        // One algorithm signs everything scanid signs for the client.
        for name in [
            "id_token_signed_response_alg",
            "authorization_signed_response_alg",
            "introspection_signed_response_alg",
        ] {
            out[name] = serde_json::json!(a.as_str());
        }
    }
    if c.require_par {
        out["require_pushed_authorization_requests"] = serde_json::json!(true);
    }
    if c.require_signed_request_object {
        out["require_signed_request_object"] = serde_json::json!(true);
    }
    if c.dpop_bound_access_tokens {
        out["dpop_bound_access_tokens"] = serde_json::json!(true);
    }
    if let Some(k) = &c.jwks {
        for (name, v) in [
            ("jwks", k.jwks.clone()),
            ("jwks_uri", k.jwks_uri.clone().map(serde_json::Value::from)),
            (
                "token_endpoint_auth_signing_alg",
                k.alg.clone().map(serde_json::Value::from),
            ),
        ] {
            if let Some(v) = v {
                out[name] = v;
            }
        }
    }
    if let Some(alg) = c.secret_jwt.as_ref().and_then(|j| j.alg.clone()) {
        out["token_endpoint_auth_signing_alg"] = serde_json::json!(alg);
    }
    // A client with keys has no secret (private_key_jwt).
    if c.client_type == ClientType::Confidential && c.jwks.is_none() {
        if let Some(s) = &r.secret {
            out["client_secret"] = serde_json::json!(s.expose());
        }
        // RFC 7591 §3.2.1: the secret never expires.
        out["client_secret_expires_at"] = serde_json::json!(0);
    }
    out
}

/// Whether `c` was registered by itself (and may be managed with RFC 7592).
pub fn self_registered(c: &Client) -> bool {
    c.registration.is_some()
}

/// An operator's initial access token (RFC 7591 §3): registrations it still allows. Stored
/// under the token's hash, expiring with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InitialAccessToken {
    /// How many more registrations it allows.
    pub uses_left: u32,
    /// When the operator made it.
    pub created_at: Timestamp,
}

/// A new initial access token: the token (printed once), its hash (the key it is stored
/// under), the record, and when it expires (Unix seconds).
pub fn new_initial_access_token(
    expires_in: i64,
    uses: u32,
    now: Timestamp,
    rng: &dyn Random,
) -> Result<(ClientSecret, InitialAccessToken, i64), &'static str> {
    if !(60..=MAX_TOKEN_LIFETIME).contains(&expires_in) {
        return Err("--expires-in: 60 to 31536000 seconds");
    }
    if !(1..=MAX_TOKEN_USES).contains(&uses) {
        return Err("--uses: 1 to 10000");
    }
    Ok((
        ClientSecret::generate(rng),
        InitialAccessToken {
            uses_left: uses,
            created_at: now,
        },
        now.secs() + expires_in,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::SeededRandom;

    const ALGS: &[Alg] = &[Alg::RS256, Alg::ES256];
    const NOW: Timestamp = Timestamp::from_secs(1_800_000_000);

    fn reg(body: serde_json::Value) -> Result<Registered, MetadataError> {
        let m = parse(body.to_string().as_bytes())?;
        register(&m, ALGS, false, NOW, &SeededRandom::new(3))
    }

    #[test]
    fn a_confidential_client_gets_a_secret_and_a_token_kept_hashed() {
        let r = reg(serde_json::json!({
            "redirect_uris": ["https://rp.example/cb"],
            "client_name": "RP",
            "logo_uri": "https://rp.example/logo.png",
            "contacts": ["ops@rp.example"],
        }))
        .unwrap();
        let secret = r.secret.as_ref().unwrap();
        assert!(r.client.secret_matches(secret.expose()));
        let g = r.client.registration.as_ref().unwrap();
        assert_eq!(g.token_endpoint_auth_method, AuthMethod::ClientSecretBasic);
        assert_ne!(g.access_token_hash, r.registration_access_token.expose());
        assert!(g.token_matches(r.registration_access_token.expose()));
        assert!(!g.token_matches("wrong"));
        let info = information("https://id.example/realms/x", &r);
        assert_eq!(info["client_secret"], secret.expose());
        assert_eq!(info["client_secret_expires_at"], 0);
        assert_eq!(info["client_id_issued_at"], NOW.secs());
        assert_eq!(
            info["grant_types"],
            serde_json::json!(["authorization_code", "refresh_token"])
        );
        assert_eq!(
            info["registration_client_uri"],
            format!(
                "https://id.example/realms/x/clients-registrations/openid-connect/{}",
                r.client.client_id
            )
        );
        assert!(
            info.get("logo_uri").is_none(),
            "unsupported metadata is dropped"
        );
    }

    #[test]
    fn the_signed_response_algs_name_the_clients_one_algorithm() {
        let cb = serde_json::json!(["https://rp.example/cb"]);
        let r = reg(serde_json::json!({"redirect_uris": cb,
            "authorization_signed_response_alg": "ES256",
            "introspection_signed_response_alg": "ES256",
            "require_signed_request_object": true}))
        .unwrap();
        assert_eq!(r.client.token_alg, Some(Alg::ES256));
        assert!(r.client.require_signed_request_object);
        let info = information("https://i", &r);
        for name in [
            "id_token_signed_response_alg",
            "authorization_signed_response_alg",
            "introspection_signed_response_alg",
        ] {
            assert_eq!(info[name], "ES256", "{name}");
        }
        assert_eq!(info["require_signed_request_object"], true);
        for bad in [
            serde_json::json!({"redirect_uris": cb, "id_token_signed_response_alg": "RS256",
                "authorization_signed_response_alg": "ES256"}),
            serde_json::json!({"redirect_uris": cb, "introspection_signed_response_alg": "PS256"}),
            serde_json::json!({"redirect_uris": cb, "authorization_signed_response_alg": "none"}),
        ] {
            let e = reg(bad.clone()).unwrap_err();
            assert_eq!(e.code(), "invalid_client_metadata", "{bad}: {e}");
        }
    }

    #[test]
    fn a_public_client_has_no_secret_and_uses_pkce() {
        let r = reg(serde_json::json!({
            "redirect_uris": ["http://127.0.0.1/cb"],
            "token_endpoint_auth_method": "none",
        }))
        .unwrap();
        assert_eq!(r.client.client_type, ClientType::Public);
        assert!(r.secret.is_none() && r.client.secret_hash.is_none());
        assert_eq!(r.client.name, "127.0.0.1", "named after its redirect URI");
        let info = information("https://i", &r);
        assert!(info.get("client_secret").is_none());
        assert!(info.get("client_secret_expires_at").is_none());
        assert_eq!(info["token_endpoint_auth_method"], "none");
    }

    #[test]
    fn bad_metadata_gets_the_rfc_7591_error() {
        let cases = [
            (serde_json::json!({}), "invalid_redirect_uri"),
            (
                serde_json::json!({"redirect_uris": []}),
                "invalid_redirect_uri",
            ),
            (
                serde_json::json!({"redirect_uris": ["http://rp.example/cb"]}),
                "invalid_redirect_uri",
            ),
            (
                serde_json::json!({"redirect_uris": ["https://rp.example/cb#x"]}),
                "invalid_redirect_uri",
            ),
            (
                serde_json::json!({"redirect_uris": ["javascript:alert(1)"]}),
                "invalid_redirect_uri",
            ),
            (
                serde_json::json!({"redirect_uris": "https://rp.example/cb"}),
                "invalid_client_metadata",
            ),
            (
                serde_json::json!({"redirect_uris": ["https://rp.example/cb"], "grant_types": ["password"]}),
                "invalid_client_metadata",
            ),
            (
                serde_json::json!({"redirect_uris": ["https://rp.example/cb"], "grant_types": ["implicit"]}),
                "invalid_client_metadata",
            ),
            (
                serde_json::json!({"redirect_uris": ["https://rp.example/cb"], "grant_types": ["refresh_token"]}),
                "invalid_client_metadata",
            ),
            (
                serde_json::json!({"redirect_uris": ["https://rp.example/cb"], "response_types": ["token"]}),
                "invalid_client_metadata",
            ),
            (
                serde_json::json!({"redirect_uris": ["https://rp.example/cb"], "response_types": []}),
                "invalid_client_metadata",
            ),
            (
                serde_json::json!({"redirect_uris": ["https://rp.example/cb"], "token_endpoint_auth_method": "private_key_jwt"}),
                "invalid_client_metadata",
            ),
            (
                serde_json::json!({"redirect_uris": ["https://rp.example/cb"], "token_endpoint_auth_method": "none", "grant_types": ["authorization_code", "client_credentials"]}),
                "invalid_client_metadata",
            ),
            (
                serde_json::json!({"redirect_uris": ["https://rp.example/cb"], "client_name": "x".repeat(101)}),
                "invalid_client_metadata",
            ),
            (
                serde_json::json!({"redirect_uris": ["https://rp.example/cb"], "client_name": "a\u{202e}b"}),
                "invalid_client_metadata",
            ),
            (
                serde_json::json!({"redirect_uris": ["https://rp.example/cb"], "backchannel_logout_uri": "https://169.254.169.254/x"}),
                "invalid_client_metadata",
            ),
            (
                serde_json::json!({"redirect_uris": ["https://rp.example/cb"], "id_token_signed_response_alg": "none"}),
                "invalid_client_metadata",
            ),
            (
                serde_json::json!({"redirect_uris": ["https://rp.example/cb"], "post_logout_redirect_uris": ["http://evil.example/"]}),
                "invalid_redirect_uri",
            ),
            (
                serde_json::json!({"redirect_uris": [format!("https://rp.example/{}", "a".repeat(2000))]}),
                "invalid_redirect_uri",
            ),
            (
                serde_json::json!({"redirect_uris": (0..21).map(|i| format!("https://rp.example/{i}")).collect::<Vec<_>>()}),
                "invalid_redirect_uri",
            ),
        ];
        for (body, code) in cases {
            let e = reg(body.clone()).unwrap_err();
            assert_eq!(e.code(), code, "{body}: {e}");
        }
        for body in [&b"not json"[..], b"[1]", b"\"x\"", b""] {
            assert_eq!(
                parse(body).unwrap_err().code(),
                "invalid_request",
                "{body:?}"
            );
        }
    }

    #[test]
    fn an_update_keeps_id_secret_and_time_and_replaces_the_token() {
        let r = reg(serde_json::json!({"redirect_uris": ["https://rp.example/cb"]})).unwrap();
        let secret = r.secret.clone().unwrap();
        let id = r.client.client_id.to_string();
        let upd = |body: serde_json::Value| {
            replace(
                &r.client,
                &parse(body.to_string().as_bytes()).unwrap(),
                ALGS,
                false,
                &SeededRandom::new(8),
            )
        };
        let new = upd(serde_json::json!({
            "client_id": id,
            "client_secret": secret.expose(),
            "redirect_uris": ["https://rp.example/cb2"],
            "client_name": "Renamed",
        }))
        .unwrap();
        assert_eq!(new.client.client_id, r.client.client_id);
        assert_eq!(new.client.created_at, r.client.created_at);
        assert!(new.client.secret_matches(secret.expose()));
        assert_eq!(new.client.name, "Renamed");
        assert_eq!(
            new.client.redirect_uris[0].as_str(),
            "https://rp.example/cb2"
        );
        let g = new.client.registration.as_ref().unwrap();
        assert!(g.token_matches(new.registration_access_token.expose()));
        assert!(!g.token_matches(r.registration_access_token.expose()));
        for bad in [
            serde_json::json!({"redirect_uris": ["https://rp.example/cb"]}),
            serde_json::json!({"client_id": "other", "redirect_uris": ["https://rp.example/cb"]}),
            serde_json::json!({"client_id": id, "client_secret": "wrong", "redirect_uris": ["https://rp.example/cb"]}),
            serde_json::json!({"client_id": id, "token_endpoint_auth_method": "none", "redirect_uris": ["https://rp.example/cb"]}),
        ] {
            assert_eq!(
                upd(bad.clone()).unwrap_err().code(),
                "invalid_client_metadata",
                "{bad}"
            );
        }
        assert_eq!(
            upd(serde_json::json!({"client_id": id, "redirect_uris": ["http://x.example/"]}))
                .unwrap_err()
                .code(),
            "invalid_redirect_uri"
        );
    }

    #[test]
    fn initial_access_tokens_are_bounded() {
        let rng = SeededRandom::new(1);
        let (t, rec, exp) = new_initial_access_token(3600, 5, NOW, &rng).unwrap();
        assert_eq!(t.expose().len(), 43);
        assert_eq!(rec.uses_left, 5);
        assert_eq!(exp, NOW.secs() + 3600);
        for (e, u) in [
            (59, 1),
            (MAX_TOKEN_LIFETIME + 1, 1),
            (3600, 0),
            (3600, 10_001),
        ] {
            assert!(
                new_initial_access_token(e, u, NOW, &rng).is_err(),
                "{e} {u}"
            );
        }
    }
}
