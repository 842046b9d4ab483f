//! Keycloak's `ClientRepresentation` (its admin REST API) mapped onto scanid's clients.
//!
//! Every field scanid has is mapped both ways: `clientId`, `name`, `enabled`, `publicClient`,
//! `redirectUris`, `webOrigins`, `standardFlowEnabled`, `serviceAccountsEnabled`, and the
//! attributes `oauth2.device.authorization.grant.enabled`, `post.logout.redirect.uris`,
//! `backchannel.logout.url`, `pkce.code.challenge.method` and the tokens' signing algorithm
//! (`access.token.signed.response.alg`, `id.token.signed.response.alg`). A field scanid does not have is
//! refused with its name when setting it would change what a client can do (the implicit
//! flow, direct access grants, bearer-only, authorization services, another client
//! authenticator or protocol, protocol mappers, wildcard redirect URIs), and ignored when it
//! would not (descriptions, console flags, scopes, ...).
//!
//! Keycloak's internal `id` is scanid's `clientId`: one stable name, no second index, the
//! same in every store.

use serde_json::{json, Map, Value};

use crate::domain::client::{Client, ClientType, GrantType, NewClient, RegistrationError};
use crate::domain::profile::{
    Profile, RefreshRotation, PROFILE_ATTRIBUTE, REUSE_ATTRIBUTE, ROTATION_ATTRIBUTE,
};

/// Keycloak's attribute of the device grant.
pub const DEVICE_GRANT: &str = "oauth2.device.authorization.grant.enabled";
/// Keycloak's attribute of the post-logout redirect URIs (`##`-separated; `+`: the redirect
/// URIs).
pub const POST_LOGOUT: &str = "post.logout.redirect.uris";
/// Keycloak's attribute of the back-channel logout URL.
pub const BACKCHANNEL: &str = "backchannel.logout.url";
/// Keycloak's attribute of the PKCE method (`S256`, or empty: not required).
pub const PKCE: &str = "pkce.code.challenge.method";

/// Keycloak's attributes of the signing algorithm of the access token, of the ID token and
/// of a JARM authorization response: one algorithm in scanid (its client's `token_alg`), so
/// all read the same and may only be set alike.
pub const TOKEN_ALGS: [&str; 3] = [
    "access.token.signed.response.alg",
    "id.token.signed.response.alg",
    "authorization.signed.response.alg",
];

/// Keycloak's attributes of a `client-jwt` client's keys: a JWKS URL, or a JWK Set as text.
pub const USE_JWKS_URL: &str = "use.jwks.url";
/// The JWKS URL.
pub const JWKS_URL: &str = "jwks.url";
/// Whether the JWK Set is given as text.
pub const USE_JWKS_STRING: &str = "use.jwks.string";
/// The JWK Set as text.
pub const JWKS_STRING: &str = "jwks.string";
/// The one algorithm its assertions may use (empty: any).
pub const AUTH_ALG: &str = "token.endpoint.auth.signing.alg";

/// Keycloak's attribute of a client that must push its authorization requests (RFC 9126).
pub const REQUIRE_PAR: &str = "require.pushed.authorization.requests";
/// Keycloak's attribute of whether a request object is required (`not required`, `request`,
/// `request or request_uri`): scanid requires a signed one, pushed (RFC 9101 §10.5).
pub const REQUEST_OBJECT: &str = "request.object.required";
/// Keycloak's attribute of a client whose access tokens are DPoP-bound (RFC 9449 §5.2).
pub const DPOP_BOUND: &str = "dpop.bound.access.tokens";

/// Keycloak's (token exchange v2) attribute of a client that may exchange tokens: in scanid,
/// an agent the person may delegate to (RFC 8693).
pub const TOKEN_EXCHANGE: &str = "standard.token.exchange.enabled";
/// Keycloak's attribute for the CIBA grant.
pub const CIBA: &str = "oidc.ciba.grant.enabled";
/// Keycloak's attribute for a CIBA client's notification endpoint (ping mode).
pub const CIBA_NOTIFICATION: &str = "ciba.backchannel.client.notification.endpoint";
/// Keycloak's attribute for a CIBA client's delivery mode (`poll` or `ping`; shown, the
/// endpoint decides it).
pub const CIBA_MODE: &str = "ciba.backchannel.token.delivery.mode";

/// The shortest and longest secret an admin may set (Keycloak's own are 32 characters).
pub const SECRET_LEN: std::ops::RangeInclusive<usize> = 32..=512;

/// Why a representation was refused: a 400 naming the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RepresentationError {
    /// The body is not a JSON object.
    #[error("the body must be a JSON object (a ClientRepresentation)")]
    NotAnObject,
    /// A field has the wrong type or a value scanid cannot honour.
    #[error("{field}: {reason}")]
    Field {
        /// The field (or attribute) by its name.
        field: String,
        /// Why.
        reason: &'static str,
    },
    /// The client the representation describes breaks a registration rule.
    #[error("{0}")]
    Invalid(#[from] RegistrationError),
}

fn field(field: &str, reason: &'static str) -> RepresentationError {
    RepresentationError::Field {
        field: field.to_owned(),
        reason,
    }
}

/// A client as Keycloak's admin API shows it (never its secret).
pub fn to_representation(c: &Client) -> Value {
    let mut attributes = Map::new();
    let device = c.allows(GrantType::DeviceCode);
    attributes.insert(DEVICE_GRANT.into(), json!(device.to_string()));
    attributes.insert(
        POST_LOGOUT.into(),
        json!(c.post_logout_redirect_uris.join("##")),
    );
    attributes.insert(
        BACKCHANNEL.into(),
        json!(c.backchannel_logout_uri.clone().unwrap_or_default()),
    );
    let pkce = c.client_type == ClientType::Public || c.require_pkce;
    attributes.insert(PKCE.into(), json!(if pkce { "S256" } else { "" }));
    for name in TOKEN_ALGS {
        // Empty: the service's default algorithm, as in Keycloak.
        attributes.insert(name.into(), json!(c.token_alg.map_or("", |a| a.as_str())));
    }
    if let Some(k) = &c.jwks {
        attributes.insert(USE_JWKS_URL.into(), json!(k.jwks_uri.is_some().to_string()));
        attributes.insert(
            JWKS_URL.into(),
            json!(k.jwks_uri.clone().unwrap_or_default()),
        );
        attributes.insert(USE_JWKS_STRING.into(), json!(k.jwks.is_some().to_string()));
        if let Some(set) = &k.jwks {
            attributes.insert(JWKS_STRING.into(), json!(set.to_string()));
        }
        attributes.insert(AUTH_ALG.into(), json!(k.alg.clone().unwrap_or_default()));
    }
    if let Some(j) = &c.secret_jwt {
        attributes.insert(AUTH_ALG.into(), json!(j.alg.clone().unwrap_or_default()));
    }
    attributes.insert(REQUIRE_PAR.into(), json!(c.require_par.to_string()));
    attributes.insert(
        REQUEST_OBJECT.into(),
        json!(if c.require_signed_request_object {
            "request"
        } else {
            "not required"
        }),
    );
    attributes.insert(
        DPOP_BOUND.into(),
        json!(c.dpop_bound_access_tokens.to_string()),
    );
    attributes.insert(
        TOKEN_EXCHANGE.into(),
        json!(c.allows(GrantType::TokenExchange).to_string()),
    );
    attributes.insert(CIBA.into(), json!(c.allows(GrantType::Ciba).to_string()));
    let ping = c.ciba_notification_endpoint.clone();
    let mode = if ping.is_some() { "ping" } else { "poll" };
    attributes.insert(CIBA_MODE.into(), json!(mode));
    attributes.insert(CIBA_NOTIFICATION.into(), json!(ping.unwrap_or_default()));
    attributes.insert(
        PROFILE_ATTRIBUTE.into(),
        json!(c.profile.map_or("", |p| p.keycloak_name())),
    );
    attributes.insert(
        ROTATION_ATTRIBUTE.into(),
        json!(c.refresh_rotation.as_str()),
    );
    attributes.insert(
        REUSE_ATTRIBUTE.into(),
        json!(c
            .refresh_rotation
            .window()
            .map_or(String::new(), |n| n.to_string())),
    );
    let authenticator = match (&c.jwks, &c.secret_jwt) {
        (Some(_), _) => "client-jwt",
        (None, Some(_)) => "client-secret-jwt",
        (None, None) => "client-secret",
    };
    json!({
        "id": c.client_id.as_str(),
        "clientId": c.client_id.as_str(),
        "name": c.name,
        "enabled": !c.disabled,
        "protocol": "openid-connect",
        "publicClient": c.client_type == ClientType::Public,
        "clientAuthenticatorType": authenticator,
        "redirectUris": c.redirect_uris,
        "webOrigins": c.web_origins,
        "standardFlowEnabled": c.allows(GrantType::AuthorizationCode),
        "implicitFlowEnabled": false,
        "directAccessGrantsEnabled": false,
        "serviceAccountsEnabled": c.allows(GrantType::ClientCredentials),
        "bearerOnly": false,
        "consentRequired": true,
        "frontchannelLogout": false,
        "fullScopeAllowed": true,
        "attributes": attributes,
        "access": { "view": true, "configure": true, "manage": true },
    })
}

/// What scanid's registration rules need to re-validate a client (the inverse of
/// [`crate::domain::client::register`]).
pub fn as_new_client(c: &Client, local_development: bool) -> NewClient {
    NewClient {
        name: c.name.clone(),
        redirect_uris: c.redirect_uris.iter().map(|r| r.to_string()).collect(),
        post_logout_redirect_uris: c.post_logout_redirect_uris.clone(),
        public: c.client_type == ClientType::Public,
        client_credentials: c.allows(GrantType::ClientCredentials),
        device_code: c.allows(GrantType::DeviceCode),
        client_id: Some(c.client_id.to_string()),
        token_alg: c.token_alg,
        resource_server: c.resource_server,
        web_origins: c.web_origins.clone(),
        backchannel_logout_uri: c.backchannel_logout_uri.clone(),
        ciba_notification_endpoint: c.ciba_notification_endpoint.clone(),
        local_development,
        refuse_on: c.refuse_on.clone(),
        require_acr: c.require_acr,
        require_pkce: c.require_pkce,
        no_code_flow: !c.allows(GrantType::AuthorizationCode),
        admin_roles: c.admin_roles.clone(),
        jwks: c.jwks.clone(),
        secret_jwt: c.secret_jwt.clone(),
        require_par: c.require_par,
        require_signed_request_object: c.require_signed_request_object,
        dpop_bound_access_tokens: c.dpop_bound_access_tokens,
        token_exchange: c.allows(GrantType::TokenExchange),
        ciba: c.allows(GrantType::Ciba),
        profile: c.profile,
        refresh_rotation: c.refresh_rotation,
    }
}

/// A representation read onto a client's settings.
#[derive(Debug, Clone)]
pub struct Merged {
    /// The client's settings, to validate with [`crate::domain::client::register`].
    pub new: NewClient,
    /// `enabled`, when given.
    pub enabled: Option<bool>,
    /// A secret the admin set (`secret`), when given; kept only as its hash.
    pub secret: Option<crate::domain::client::ClientSecret>,
}

/// The defaults of a client created through the admin API (as Keycloak's): confidential, the
/// code flow, no service account, enabled.
pub fn new_client_defaults(local_development: bool) -> NewClient {
    NewClient {
        local_development,
        ..Default::default()
    }
}

/// Reads `body` (a `ClientRepresentation`) onto `base`: fields present replace, fields absent
/// stay (Keycloak's update). `id` and `clientId`, when present, must name `base`'s client
/// (when `base` has one); a creation takes `clientId` from here (required).
pub fn merge(body: &Value, mut base: NewClient) -> Result<Merged, RepresentationError> {
    let Value::Object(rep) = body else {
        return Err(RepresentationError::NotAnObject);
    };
    refuse_behaviour(rep)?;
    let client_id = opt_str(rep, "clientId")?;
    match (&base.client_id, client_id) {
        (Some(current), Some(given)) if current != given => {
            return Err(field("clientId", "a client's clientId cannot change"))
        }
        (None, None) => return Err(field("clientId", "required")),
        (None, Some(given)) => base.client_id = Some(given.to_owned()),
        _ => {}
    }
    if let Some(id) = opt_str(rep, "id")? {
        if base.client_id.as_deref() != Some(id) {
            return Err(field("id", "scanid's id of a client is its clientId"));
        }
    }
    if let Some(name) = opt_str(rep, "name")? {
        base.name = name.to_owned();
    }
    if base.name.trim().is_empty() {
        // Keycloak's clients may be nameless; scanid shows a name on the consent page.
        base.name = base.client_id.clone().unwrap_or_default();
    }
    if let Some(public) = opt_bool(rep, "publicClient")? {
        base.public = public;
    }
    if let Some(uris) = opt_strings(rep, "redirectUris")? {
        if uris.iter().any(|u| u.contains('*')) {
            return Err(field(
                "redirectUris",
                "wildcards are not supported: name each redirect URI exactly",
            ));
        }
        base.redirect_uris = uris;
    }
    if let Some(origins) = opt_strings(rep, "webOrigins")? {
        base.web_origins = origins;
    }
    if let Some(standard) = opt_bool(rep, "standardFlowEnabled")? {
        base.no_code_flow = !standard;
    }
    if let Some(sa) = opt_bool(rep, "serviceAccountsEnabled")? {
        base.client_credentials = sa;
    }
    if let Some(attrs) = rep.get("attributes") {
        merge_attributes(attrs, &mut base)?;
    }
    merge_keys(rep, &mut base)?;
    let secret = match opt_str(rep, "secret")? {
        Some(s) if SECRET_LEN.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_graphic()) => {
            Some(crate::domain::client::ClientSecret::chosen(s))
        }
        Some(_) => {
            return Err(field(
                "secret",
                "32 to 512 visible ASCII characters (or leave it out: scanid generates one)",
            ))
        }
        None => None,
    };
    Ok(Merged {
        new: base,
        enabled: opt_bool(rep, "enabled")?,
        secret,
    })
}

/// `clientAuthenticatorType: client-jwt` and Keycloak's attributes of the client's keys
/// (`use.jwks.url` + `jwks.url`, or `use.jwks.string` + `jwks.string`, and
/// `token.endpoint.auth.signing.alg`) onto the client's `private_key_jwt` keys;
/// `client-secret` drops them.
fn merge_keys(rep: &Map<String, Value>, base: &mut NewClient) -> Result<(), RepresentationError> {
    let kind = opt_str(rep, "clientAuthenticatorType")?;
    let attrs = rep.get("attributes").and_then(Value::as_object);
    let attr = |n: &str| attrs.and_then(|a| a.get(n)).and_then(Value::as_str);
    if kind == Some("client-secret") {
        (base.jwks, base.secret_jwt) = (None, None);
        return Ok(());
    }
    // client_secret_jwt: its sealed secret stays until a new secret is set.
    if kind == Some("client-secret-jwt") || (kind.is_none() && base.secret_jwt.is_some()) {
        let old = base.secret_jwt.take().unwrap_or_default();
        let alg = match attr(AUTH_ALG) {
            Some("") => None,
            Some(a) => Some(a.to_owned()),
            None => old.alg,
        };
        let mut jwt = crate::domain::client_assertion::SecretJwt::new(alg)
            .map_err(|why| field(AUTH_ALG, why))?;
        jwt.sealed = old.sealed;
        (base.jwks, base.secret_jwt) = (None, Some(jwt));
        return Ok(());
    }
    base.secret_jwt = None;
    if kind.is_none() && base.jwks.is_none() {
        return Ok(());
    }
    let old = base.jwks.clone().unwrap_or_default();
    let uri = match (attr(USE_JWKS_URL), attr(JWKS_URL)) {
        (Some("true"), Some(u)) if !u.is_empty() => Some(u.to_owned()),
        (Some("true"), _) => return Err(field(JWKS_URL, "required when use.jwks.url is true")),
        (Some(_), _) => None,
        (None, _) => old.jwks_uri.clone(),
    };
    let jwks = match (attr(USE_JWKS_STRING), attr(JWKS_STRING)) {
        (Some("true"), Some(text)) => Some(
            serde_json::from_str(text).map_err(|_| field(JWKS_STRING, "a JWK Set as JSON text"))?,
        ),
        (Some("true"), None) => {
            return Err(field(JWKS_STRING, "required when use.jwks.string is true"))
        }
        (Some(_), _) => None,
        (None, _) => old.jwks.clone(),
    };
    let alg = match attr(AUTH_ALG) {
        Some("") => None,
        Some(a) => Some(a.to_owned()),
        None => old.alg.clone(),
    };
    let keys = crate::domain::client_assertion::ClientKeys::new(jwks, uri, alg)
        .map_err(|why| field("clientAuthenticatorType", why))?;
    base.jwks = Some(keys);
    Ok(())
}

/// The fields scanid does not have whose values would change behaviour.
fn refuse_behaviour(rep: &Map<String, Value>) -> Result<(), RepresentationError> {
    for (name, reason) in [
        (
            "implicitFlowEnabled",
            "the implicit flow is not supported (RFC 9700 §2.1.2)",
        ),
        (
            "directAccessGrantsEnabled",
            "direct access grants (passwords) are not supported: scanid has no passwords",
        ),
        ("bearerOnly", "bearer-only clients are not supported"),
        (
            "authorizationServicesEnabled",
            "authorization services are not supported",
        ),
    ] {
        if opt_bool(rep, name)? == Some(true) {
            return Err(field(name, reason));
        }
    }
    if let Some(a) = opt_str(rep, "clientAuthenticatorType")? {
        if !matches!(a, "client-secret" | "client-jwt" | "client-secret-jwt") {
            return Err(field(
                "clientAuthenticatorType",
                "client-secret, client-secret-jwt or client-jwt (private_key_jwt) is supported",
            ));
        }
    }
    if let Some(p) = opt_str(rep, "protocol")? {
        if p != "openid-connect" {
            return Err(field("protocol", "only openid-connect is supported"));
        }
    }
    match rep.get("protocolMappers") {
        None | Some(Value::Null) => {}
        Some(Value::Array(a)) if a.is_empty() => {}
        Some(_) => {
            return Err(field(
                "protocolMappers",
                "protocol mappers are not supported: scanid's claims are fixed by scope",
            ))
        }
    }
    Ok(())
}

/// A `"true"` or `"false"` attribute `name` read onto `into` (absent: unchanged).
fn boolean(name: &str, v: Option<&str>, into: &mut bool) -> Result<(), RepresentationError> {
    match v {
        Some("true") => *into = true,
        Some("false") => *into = false,
        Some(_) => return Err(field(name, "\"true\" or \"false\"")),
        None => {}
    }
    Ok(())
}

/// Keycloak's `request.object.required`: whether the client must send a (signed, pushed)
/// request object.
fn request_object_required(v: &str) -> Result<bool, RepresentationError> {
    match v {
        "request" | "request or request_uri" => Ok(true),
        "not required" | "" => Ok(false),
        _ => Err(field(
            REQUEST_OBJECT,
            "\"not required\", \"request\" or \"request or request_uri\"",
        )),
    }
}

fn merge_attributes(attrs: &Value, base: &mut NewClient) -> Result<(), RepresentationError> {
    let attrs = match attrs {
        Value::Null => return Ok(()),
        Value::Object(a) => a,
        _ => return Err(field("attributes", "must be an object of strings")),
    };
    let attr = |name: &str| -> Result<Option<&str>, RepresentationError> {
        match attrs.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(_) => Err(field(name, "an attribute's value is a string")),
        }
    };
    if let Some(v) = attr(REQUEST_OBJECT)? {
        base.require_signed_request_object = request_object_required(v)?;
    }
    boolean(REQUIRE_PAR, attr(REQUIRE_PAR)?, &mut base.require_par)?;
    boolean(
        DPOP_BOUND,
        attr(DPOP_BOUND)?,
        &mut base.dpop_bound_access_tokens,
    )?;
    boolean(DEVICE_GRANT, attr(DEVICE_GRANT)?, &mut base.device_code)?;
    boolean(
        TOKEN_EXCHANGE,
        attr(TOKEN_EXCHANGE)?,
        &mut base.token_exchange,
    )?;
    boolean(CIBA, attr(CIBA)?, &mut base.ciba)?;
    if let Some(v) = attr(CIBA_NOTIFICATION)? {
        base.ciba_notification_endpoint = (!v.is_empty()).then(|| v.to_owned());
    }
    if let Some(v) = attr(POST_LOGOUT)? {
        base.post_logout_redirect_uris = if v == "+" {
            base.redirect_uris.clone()
        } else {
            v.split("##")
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect()
        };
        if base
            .post_logout_redirect_uris
            .iter()
            .any(|u| u.contains('*'))
        {
            return Err(field(
                POST_LOGOUT,
                "wildcards are not supported: name each URI exactly",
            ));
        }
    }
    if let Some(v) = attr(BACKCHANNEL)? {
        base.backchannel_logout_uri = (!v.is_empty()).then(|| v.to_owned());
    }
    match attr(PKCE)? {
        Some("S256") => base.require_pkce = true,
        // Empty: not required (a public client still needs it).
        Some("") => base.require_pkce = false,
        Some(_) => return Err(field(PKCE, "only S256 (or empty) is supported")),
        None => {}
    }
    let mut alg: Option<Option<crate::protocol::Alg>> = None;
    for name in TOKEN_ALGS {
        let Some(v) = attr(name)? else { continue };
        let this = match v {
            "" => None,
            v => Some(
                crate::protocol::Alg::parse(v)
                    .ok_or_else(|| field(name, "RS256, ES256, PS256, EdDSA or empty"))?,
            ),
        };
        match alg {
            Some(other) if other != this => {
                return Err(field(
                    name,
                    "scanid signs a client's access and ID tokens and JARM responses alike",
                ))
            }
            _ => alg = Some(this),
        }
    }
    if let Some(a) = alg {
        base.token_alg = a;
    }
    merge_profile(attrs, base)
}

/// scanid's attributes of the client's profile (Keycloak's client-profile name, `fapi2`, or
/// empty) and of its refresh rotation.
fn merge_profile(
    attrs: &Map<String, Value>,
    base: &mut NewClient,
) -> Result<(), RepresentationError> {
    let attr = |name: &str| -> Result<Option<&str>, RepresentationError> {
        match attrs.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(_) => Err(field(name, "an attribute's value is a string")),
        }
    };
    match attr(PROFILE_ATTRIBUTE)? {
        None => {}
        Some("") => base.profile = None,
        Some(p) => {
            base.profile = Some(Profile::parse(p).ok_or_else(|| {
                field(
                    PROFILE_ATTRIBUTE,
                    "fapi-2-security-profile (or fapi2), or empty",
                )
            })?)
        }
    }
    let rotation = attr(ROTATION_ATTRIBUTE)?;
    let window = attr(REUSE_ATTRIBUTE)?;
    // A window alone keeps rotation on; rotation alone keeps no window.
    if let Some(r) =
        RefreshRotation::parse(rotation, window).map_err(|why| field(ROTATION_ATTRIBUTE, why))?
    {
        base.refresh_rotation = r;
    }
    Ok(())
}

fn opt_str<'a>(
    rep: &'a Map<String, Value>,
    name: &str,
) -> Result<Option<&'a str>, RepresentationError> {
    match rep.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.as_str())),
        Some(_) => Err(field(name, "must be a string")),
    }
}

fn opt_bool(rep: &Map<String, Value>, name: &str) -> Result<Option<bool>, RepresentationError> {
    match rep.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(field(name, "must be true or false")),
    }
}

fn opt_strings(
    rep: &Map<String, Value>,
    name: &str,
) -> Result<Option<Vec<String>>, RepresentationError> {
    match rep.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                _ => Err(field(name, "must be an array of strings")),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err(field(name, "must be an array of strings")),
    }
}

/// `old` with the fields `body` gives replaced (a `PUT`, and a Keycloak import's
/// `OVERWRITE`): the same client id, creation time, registration and admin roles; the fields
/// the body does not give stay. Its secret: the one the body sets (kept as its hash), else the
/// old one; a client made confidential gets a new one (shown when regenerated); a public
/// client has none. `enabled` absent keeps it as it was.
pub fn replace(
    old: &Client,
    body: &Value,
    local_development: bool,
    rng: &dyn crate::random::Random,
) -> Result<Client, RepresentationError> {
    let merged = merge(body, as_new_client(old, local_development))?;
    let (mut client, fresh) = crate::domain::client::register(merged.new, old.created_at, rng)?;
    client.secret_hash = match (client.client_type, &merged.secret) {
        (ClientType::Public, _) => None,
        (ClientType::Confidential, Some(s)) => Some(s.hash()),
        (ClientType::Confidential, None) => old.secret_hash.clone().or_else(|| {
            fresh
                .as_ref()
                .map(crate::domain::client::ClientSecret::hash)
        }),
    };
    client.registration = old.registration.clone();
    client.disabled = merged.enabled.map_or(old.disabled, |e| !e);
    // A client_secret_jwt client's secret is sealed by the caller when the body sets one;
    // else it keeps its sealed one, which a client switched to the method has not.
    if let Some(jwt) = client.secret_jwt.as_mut() {
        if merged.secret.is_some() {
            jwt.sealed = None;
        } else if jwt.sealed.is_none() {
            return Err(field(
                "clientAuthenticatorType",
                "client-secret-jwt keeps the secret readable by the service: set `secret` with it",
            ));
        }
    }
    Ok(client)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Timestamp;
    use crate::domain::client::register;
    use crate::random::SeededRandom;

    fn create(rep: Value) -> Result<Client, RepresentationError> {
        let m = merge(&rep, new_client_defaults(false))?;
        let (mut c, _) = register(m.new, Timestamp::from_secs(0), &SeededRandom::new(1))?;
        c.disabled = m.enabled == Some(false);
        Ok(c)
    }

    #[test]
    fn every_field_scanid_has_round_trips() {
        let rep = json!({
            "clientId": "shop",
            "name": "The Shop",
            "enabled": false,
            "redirectUris": ["https://shop.example/cb"],
            "webOrigins": ["+"],
            "serviceAccountsEnabled": true,
            "attributes": {
                DEVICE_GRANT: "true",
                POST_LOGOUT: "https://shop.example/bye##https://shop.example/",
                BACKCHANNEL: "https://shop.example/bcl",
                PKCE: "S256",
                TOKEN_ALGS[0]: "ES256",
                "some.other": "ignored",
            },
            "description": "ignored", "consentRequired": false, "frontchannelLogout": true,
            "implicitFlowEnabled": false, "directAccessGrantsEnabled": false,
        });
        let c = create(rep).unwrap();
        assert!(c.disabled && c.require_pkce);
        assert!(c.allows(GrantType::DeviceCode) && c.allows(GrantType::ClientCredentials));
        let back = to_representation(&c);
        assert_eq!(back["id"], "shop");
        assert_eq!(back["clientId"], "shop");
        assert_eq!(back["enabled"], false);
        assert_eq!(back["publicClient"], false);
        assert_eq!(back["serviceAccountsEnabled"], true);
        assert_eq!(back["standardFlowEnabled"], true);
        assert_eq!(back["attributes"][DEVICE_GRANT], "true");
        assert_eq!(
            back["attributes"][POST_LOGOUT],
            "https://shop.example/bye##https://shop.example/"
        );
        assert_eq!(back["attributes"][BACKCHANNEL], "https://shop.example/bcl");
        assert_eq!(back["attributes"][PKCE], "S256");
        assert_eq!(c.token_alg, Some(crate::protocol::Alg::ES256));
        assert_eq!(back["attributes"][TOKEN_ALGS[1]], "ES256");
        assert!(back.get("secret").is_none());
        // Read back onto the same client, the representation changes nothing.
        let again = merge(&back, as_new_client(&c, false)).unwrap();
        let (c2, _) = register(again.new, c.created_at, &SeededRandom::new(1)).unwrap();
        assert_eq!(to_representation(&c2)["attributes"], back["attributes"]);
        assert_eq!(again.enabled, Some(false));
    }

    #[test]
    fn behaviour_changing_fields_are_refused_by_name() {
        for (rep, name) in [
            (
                json!({"clientId": "a", "implicitFlowEnabled": true}),
                "implicitFlowEnabled",
            ),
            (
                json!({"clientId": "a", "directAccessGrantsEnabled": true}),
                "directAccessGrantsEnabled",
            ),
            (json!({"clientId": "a", "bearerOnly": true}), "bearerOnly"),
            (
                json!({"clientId": "a", "clientAuthenticatorType": "client-x509"}),
                "clientAuthenticatorType",
            ),
            (
                json!({"clientId": "a", "clientAuthenticatorType": "client-jwt"}),
                "clientAuthenticatorType",
            ),
            (
                json!({"clientId": "a", "clientAuthenticatorType": "client-jwt",
                    "attributes": {"use.jwks.url": "true", "jwks.url": "http://rp.example/jwks"}}),
                "clientAuthenticatorType",
            ),
            (json!({"clientId": "a", "protocol": "saml"}), "protocol"),
            (
                json!({"clientId": "a", "protocolMappers": [{"name": "x"}]}),
                "protocolMappers",
            ),
            (
                json!({"clientId": "a", "redirectUris": ["https://a.example/*"]}),
                "redirectUris",
            ),
            (
                json!({"clientId": "a", "attributes": {PKCE: "plain"}}),
                PKCE,
            ),
            (json!({"clientId": "a", "enabled": "yes"}), "enabled"),
            (json!({"clientId": "a", "id": "b"}), "id"),
            (json!({"clientId": "a", "secret": "short"}), "secret"),
            (json!({"name": "no id"}), "clientId"),
        ] {
            match merge(&rep, new_client_defaults(false)) {
                Err(RepresentationError::Field { field, .. }) => assert_eq!(field, name, "{rep}"),
                other => panic!("{rep}: {other:?}"),
            }
        }
        assert_eq!(
            merge(&json!([1]), new_client_defaults(false)).unwrap_err(),
            RepresentationError::NotAnObject
        );
    }

    #[test]
    fn a_service_account_needs_no_redirect_uri_without_the_code_flow() {
        let c = create(json!({
            "clientId": "robot", "standardFlowEnabled": false, "serviceAccountsEnabled": true,
        }))
        .unwrap();
        assert_eq!(c.name, "robot");
        assert!(!c.allows(GrantType::AuthorizationCode));
        assert_eq!(to_representation(&c)["standardFlowEnabled"], false);
        assert!(matches!(
            create(json!({"clientId": "x", "standardFlowEnabled": false})),
            Err(RepresentationError::Invalid(RegistrationError::NoGrant))
        ));
        assert!(matches!(
            create(
                json!({"clientId": "x", "standardFlowEnabled": false, "serviceAccountsEnabled": true, "redirectUris": ["https://a.example/cb"]})
            ),
            Err(RepresentationError::Invalid(
                RegistrationError::RedirectUriWithoutCodeFlow
            ))
        ));
        // The code flow (Keycloak's default) needs a redirect URI, as scanid's CLI does.
        assert!(matches!(
            create(json!({"clientId": "x"})),
            Err(RepresentationError::Invalid(
                RegistrationError::NoRedirectUri
            ))
        ));
    }

    #[test]
    fn client_secret_jwt_keeps_its_sealed_secret_until_a_new_one_is_set() {
        let rng = SeededRandom::new(2);
        let rep = json!({"clientId": "robot", "clientAuthenticatorType": "client-secret-jwt",
            "redirectUris": ["https://robot.example/cb"],
            "attributes": {"token.endpoint.auth.signing.alg": "HS384"}});
        let mut c = create(rep).unwrap();
        let jwt = c.secret_jwt.clone().unwrap();
        assert_eq!((jwt.alg.as_deref(), jwt.sealed), (Some("HS384"), None));
        assert!(c.secret_hash.is_some() && !c.accepts_secret_by(true));
        let back = to_representation(&c);
        assert_eq!(back["clientAuthenticatorType"], "client-secret-jwt");
        assert_eq!(back["attributes"][AUTH_ALG], "HS384");
        // Once sealed (by the use case), an update without a secret keeps it.
        c.secret_jwt.as_mut().unwrap().sealed = Some("A256GCM.x.y".into());
        let kept = replace(&c, &json!({"name": "Robot 2"}), false, &rng).unwrap();
        assert_eq!(kept.secret_jwt, c.secret_jwt);
        // A new secret: to be sealed again by the caller.
        let secret = "s".repeat(32);
        let renewed = replace(&c, &json!({"secret": secret}), false, &rng).unwrap();
        assert_eq!(renewed.secret_jwt.unwrap().sealed, None);
        // Back to client-secret: nothing sealed kept.
        let plain = replace(
            &c,
            &json!({"clientAuthenticatorType": "client-secret"}),
            false,
            &rng,
        )
        .unwrap();
        assert!(plain.secret_jwt.is_none() && plain.accepts_secret_by(true));
        // A client-secret client switched without a secret: its secret is only a hash.
        let switch = json!({"clientAuthenticatorType": "client-secret-jwt"});
        assert!(replace(&plain, &switch, false, &rng).is_err());
        let with_secret = json!({"clientAuthenticatorType": "client-secret-jwt", "secret": secret});
        assert!(replace(&plain, &with_secret, false, &rng).is_ok());
        // Not an HMAC algorithm.
        let bad = json!({"clientId": "r", "clientAuthenticatorType": "client-secret-jwt",
            "redirectUris": ["https://r.example/cb"],
            "attributes": {"token.endpoint.auth.signing.alg": "RS256"}});
        assert!(create(bad).is_err());
    }

    #[test]
    fn client_jwt_and_its_key_attributes_map_both_ways() {
        let rep = json!({"clientId": "bank", "clientAuthenticatorType": "client-jwt",
            "attributes": {"use.jwks.url": "true", "jwks.url": "https://bank.example/jwks",
                "token.endpoint.auth.signing.alg": "PS256"}});
        let merged = merge(&rep, new_client_defaults(false)).unwrap();
        let keys = merged.new.jwks.clone().unwrap();
        assert_eq!(keys.jwks_uri.as_deref(), Some("https://bank.example/jwks"));
        assert_eq!(keys.alg.as_deref(), Some("PS256"));
        let mut new = merged.new;
        new.redirect_uris = vec!["https://bank.example/cb".into()];
        let (c, secret) = crate::domain::client::register(
            new,
            crate::clock::Timestamp::from_secs(0),
            &crate::random::SeededRandom::new(1),
        )
        .unwrap();
        assert!(secret.is_none(), "a client-jwt client gets no secret");
        let back = to_representation(&c);
        assert_eq!(back["clientAuthenticatorType"], "client-jwt");
        assert_eq!(back["attributes"][JWKS_URL], "https://bank.example/jwks");
        assert_eq!(back["attributes"][USE_JWKS_URL], "true");
        assert_eq!(back["attributes"][AUTH_ALG], "PS256");
        let again = merge(&back, as_new_client(&c, false)).unwrap();
        assert_eq!(again.new.jwks, c.jwks);
        let secret_again = merge(
            &json!({"clientAuthenticatorType": "client-secret"}),
            as_new_client(&c, false),
        )
        .unwrap();
        assert!(secret_again.new.jwks.is_none());
    }
}
