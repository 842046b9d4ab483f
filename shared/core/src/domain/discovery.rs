//! The discovery document (OpenID Connect Discovery 1.0; spec 2.1, 4.1), built once at start
//! from the configuration: it lists only what scanid really implements.
//!
//! The same document is scanid's OAuth 2.0 Authorization Server Metadata (RFC 8414): served
//! at `/.well-known/oauth-authorization-server/realms/{realm}` and Keycloak's
//! `/realms/{realm}/.well-known/oauth-authorization-server`, byte for byte the discovery
//! answer, so a field added here appears in both. RFC 8414 §2 asks for nothing the OpenID
//! document lacks, and lets it carry the OpenID fields.

use crate::domain::issuer::Issuer;
use crate::protocol::discovery::OpenIdConfiguration;
use crate::protocol::Alg;

/// The scopes scanid understands.
pub const SCOPES: &[&str] = &["openid", "profile", "groups", "address", "offline_access"];

/// The claims scanid puts in tokens and userinfo, and nothing else (no `locale`: scanid knows
/// none; `peferred_username` and `username` are the spec's userinfo fields, 2.4).
pub const CLAIMS: &[&str] = &[
    "iss",
    "sub",
    "aud",
    "exp",
    "iat",
    "auth_time",
    "nonce",
    "acr",
    "amr",
    "azp",
    "sid",
    "at_hash",
    "name",
    "preferred_username",
    "peferred_username",
    "username",
    "groups",
    "service_id",
    "picture",
    "updated_at",
    "address",
    "locale",
];

/// Where the protected resource metadata (RFC 9728 §3) of scanid's own APIs (userinfo) is:
/// their resource identifier is the issuer, so the metadata is at the issuer's path under
/// `/.well-known/oauth-protected-resource`.
pub fn resource_metadata_url(public_url: &str, realm: &str) -> String {
    format!("{public_url}/.well-known/oauth-protected-resource/realms/{realm}")
}

/// The protected resource metadata (RFC 9728 §2) of scanid's own APIs: the issuer as the
/// resource and its authorization server, the scopes, and the bearer token in the header
/// or the form body (never the query).
pub fn protected_resource(settings: &impl Issuer) -> serde_json::Value {
    let issuer = settings.issuer();
    serde_json::json!({
        "resource": issuer,
        "authorization_servers": [issuer],
        "scopes_supported": SCOPES,
        "bearer_methods_supported": ["header", "body"],
        "resource_name": "scanid (userinfo)",
        "resource_documentation": "https://github.com/scanid/scanid/blob/main/docs/book/src/mcp.md",
    })
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_owned()).collect()
}

/// `methods` with `client_secret_jwt` after the secret ones where a sealing key is held for
/// its clients' secrets (keys::seal); every other secret is kept hashed.
fn auth_methods(secret_jwt: bool, methods: &[&str]) -> Vec<String> {
    let mut m = strings(methods);
    if secret_jwt {
        m.insert(2, "client_secret_jwt".to_owned());
    }
    m
}

/// The algorithms of client assertions: the HMAC ones too with `client_secret_jwt`.
fn auth_algs(secret_jwt: bool) -> Vec<String> {
    let hmac: &[&str] = if secret_jwt {
        crate::domain::client_assertion::HMAC_ALGS
    } else {
        &[]
    };
    strings(crate::domain::client_assertion::ALGS)
        .into_iter()
        .chain(strings(hmac))
        .collect()
}

/// The discovery document for `settings`, advertising the algorithms in `algs`.
pub fn openid_configuration(settings: &impl Issuer, algs: &[Alg]) -> OpenIdConfiguration {
    let issuer = settings.issuer();
    let oidc = |p: &str| format!("{issuer}/protocol/openid-connect/{p}");
    let secret_jwt = settings.client_secret_jwt();
    let with_secret_jwt = |methods: &[&str]| auth_methods(secret_jwt, methods);
    let client_auth = with_secret_jwt(&[
        "client_secret_basic",
        "client_secret_post",
        "private_key_jwt",
    ]);
    OpenIdConfiguration {
        authorization_endpoint: oidc("auth"),
        token_endpoint: oidc("token"),
        userinfo_endpoint: oidc("userinfo"),
        introspection_endpoint: oidc("introspect"),
        jwks_uri: oidc("certs"),
        end_session_endpoint: oidc("logout"),
        check_session_iframe: oidc("login-status-iframe.html"),
        revocation_endpoint: oidc("revoke"),
        registration_endpoint: crate::domain::registration::endpoint(&issuer),
        device_authorization_endpoint: oidc("auth/device"),
        pushed_authorization_request_endpoint: oidc("ext/par/request"),
        backchannel_authentication_endpoint: oidc("ext/ciba/auth"),
        require_pushed_authorization_requests: settings.require_pushed_requests(),
        client_id_metadata_document_supported: settings.client_id_metadata_documents(),
        issuer,
        response_types_supported: strings(&["code"]),
        subject_types_supported: strings(&["public"]),
        id_token_signing_alg_values_supported: algs.iter().map(|a| a.as_str().to_owned()).collect(),
        token_endpoint_auth_methods_supported: with_secret_jwt(&[
            "client_secret_basic",
            "client_secret_post",
            "private_key_jwt",
            "none",
        ]),
        claims_supported: strings(CLAIMS),
        ui_locales_supported: crate::domain::locale::ALL
            .iter()
            .map(|l| l.tag().to_owned())
            .collect(),
        claims_locales_supported: crate::domain::locale::ALL
            .iter()
            .map(|l| l.tag().to_owned())
            .collect(),
        acr_values_supported: crate::domain::authn::ACR_VALUES
            .iter()
            .map(|a| a.as_str().to_owned())
            .collect(),
        grant_types_supported: strings(&[
            "authorization_code",
            "refresh_token",
            "client_credentials",
            crate::protocol::requests::DEVICE_CODE_GRANT,
            crate::protocol::requests::TOKEN_EXCHANGE_GRANT,
            crate::protocol::requests::CIBA_GRANT,
        ]),
        code_challenge_methods_supported: strings(&["S256"]),
        scopes_supported: strings(SCOPES),
        response_modes_supported: strings(crate::domain::authorize::RESPONSE_MODES),
        token_endpoint_auth_signing_alg_values_supported: auth_algs(secret_jwt),
        dpop_signing_alg_values_supported: strings(crate::domain::dpop::ALGS),
        // Request objects by value, unsigned or signed with the client's keys, and pushed
        // (domain::request_object, service::request_objects).
        request_parameter_supported: true,
        request_object_signing_alg_values_supported: std::iter::once("none")
            .chain(crate::domain::client_assertion::ALGS.iter().copied())
            .map(str::to_owned)
            .collect(),
        authorization_signing_alg_values_supported: algs
            .iter()
            .map(|a| a.as_str().to_owned())
            .collect(),
        introspection_signing_alg_values_supported: algs
            .iter()
            .map(|a| a.as_str().to_owned())
            .collect(),
        request_uri_parameter_supported: false,
        require_request_uri_registration: false,
        tls_client_certificate_bound_access_tokens: false,
        introspection_endpoint_auth_methods_supported: client_auth.clone(),
        revocation_endpoint_auth_methods_supported: with_secret_jwt(&[
            "client_secret_basic",
            "client_secret_post",
            "private_key_jwt",
            "none",
        ]),
        authorization_response_iss_parameter_supported: true,
        prompt_values_supported: strings(&["none", "login", "consent"]),
        claims_parameter_supported: true,
        userinfo_signing_alg_values_supported: Vec::new(),
        frontchannel_logout_supported: false,
        backchannel_logout_supported: true,
        backchannel_logout_session_supported: true,
        // CIBA (domain::ciba): Keycloak's path; no signed authentication requests, so no
        // `backchannel_authentication_request_signing_alg_values_supported`.
        backchannel_token_delivery_modes_supported: strings(&["poll", "ping"]),
        backchannel_user_code_parameter_supported: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{RawSettings, Settings};

    #[test]
    fn endpoints_hang_off_the_issuer() {
        let s = Settings::from_raw(&RawSettings {
            public_url: Some("https://id.example.com".into()),
            realm: Some("acme".into()),
            ..Default::default()
        })
        .unwrap();
        let d = openid_configuration(&s, &[Alg::ES256, Alg::RS256]);
        assert_eq!(d.issuer, "https://id.example.com/realms/acme");
        assert_eq!(
            d.jwks_uri,
            "https://id.example.com/realms/acme/protocol/openid-connect/certs"
        );
        assert_eq!(
            d.id_token_signing_alg_values_supported,
            vec!["ES256", "RS256"]
        );
        assert!(d.authorization_response_iss_parameter_supported);
        assert!(!d.grant_types_supported.contains(&"password".to_owned()));
        assert!(d.request_parameter_supported && !d.request_uri_parameter_supported);
        assert_eq!(
            d.request_object_signing_alg_values_supported,
            vec!["none", "ES256", "PS256", "RS256", "EdDSA"]
        );
        assert!(d
            .response_modes_supported
            .contains(&"form_post.jwt".to_owned()));
        assert_eq!(
            d.authorization_signing_alg_values_supported,
            d.id_token_signing_alg_values_supported
        );
        // Keycloak's "1" stays the lowest level; a passkey reaches 2 or 3.
        assert_eq!(d.acr_values_supported, vec!["1", "2", "3"]);
        assert!(d.claims_supported.contains(&"amr".to_owned()));
        assert_eq!(d.ui_locales_supported.len(), 15);
        assert_eq!(d.claims_locales_supported, d.ui_locales_supported);
        assert!(d.claims_supported.contains(&"locale".to_owned()));
        assert!(d.ui_locales_supported.contains(&"ar".to_owned()));
        assert!(d.ui_locales_supported.contains(&"zh-Hans".to_owned()));
        assert_eq!(
            d.device_authorization_endpoint,
            "https://id.example.com/realms/acme/protocol/openid-connect/auth/device"
        );
        assert!(d
            .grant_types_supported
            .contains(&"urn:ietf:params:oauth:grant-type:device_code".to_owned()));
        assert_eq!(
            d.registration_endpoint,
            "https://id.example.com/realms/acme/clients-registrations/openid-connect"
        );
    }

    /// RFC 8414 §2: the fields an authorization server's metadata must (or, where it supports
    /// them, should) carry are all in the one document.
    #[test]
    fn the_document_is_rfc_8414_metadata_too() {
        let s = Settings::from_raw(&RawSettings {
            public_url: Some("https://id.example.com".into()),
            ..Default::default()
        })
        .unwrap();
        let d = serde_json::to_value(openid_configuration(&s, &[Alg::RS256])).unwrap();
        for field in [
            "issuer",
            "authorization_endpoint",
            "token_endpoint",
            "jwks_uri",
            "registration_endpoint",
            "scopes_supported",
            "response_types_supported",
            "response_modes_supported",
            "grant_types_supported",
            "token_endpoint_auth_methods_supported",
            "revocation_endpoint",
            "revocation_endpoint_auth_methods_supported",
            "introspection_endpoint",
            "introspection_endpoint_auth_methods_supported",
            "code_challenge_methods_supported",
        ] {
            assert!(d.get(field).is_some(), "{field}");
        }
        assert_eq!(d["issuer"], s.issuer());
        // What registration accepts is what the metadata says the server supports.
        for g in crate::domain::registration::GRANT_TYPES {
            assert!(d["grant_types_supported"]
                .as_array()
                .unwrap()
                .contains(&serde_json::json!(g)));
        }
        for m in ["client_secret_basic", "client_secret_post", "none"] {
            assert!(d["token_endpoint_auth_methods_supported"]
                .as_array()
                .unwrap()
                .contains(&serde_json::json!(m)));
        }
    }
}
