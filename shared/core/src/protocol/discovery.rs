//! The OpenID Provider Metadata document (OpenID Connect Discovery 1.0 §3; spec 2.1).

use serde::{Deserialize, Serialize};

/// Every field of spec 2.1, plus the ones a certified provider publishes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenIdConfiguration {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub userinfo_endpoint: String,
    pub introspection_endpoint: String,
    pub jwks_uri: String,
    pub end_session_endpoint: String,
    /// OIDC Session Management 1.0: the OP iframe (Keycloak's `login-status-iframe.html`).
    pub check_session_iframe: String,
    pub revocation_endpoint: String,
    /// RFC 7591 §3 (Keycloak's path); open with an initial access token, or to all where the
    /// operator says so.
    pub registration_endpoint: String,
    /// RFC 8628 §4.
    pub device_authorization_endpoint: String,
    pub response_types_supported: Vec<String>,
    pub subject_types_supported: Vec<String>,
    pub id_token_signing_alg_values_supported: Vec<String>,
    pub token_endpoint_auth_methods_supported: Vec<String>,
    pub claims_supported: Vec<String>,
    pub grant_types_supported: Vec<String>,
    pub code_challenge_methods_supported: Vec<String>,
    pub scopes_supported: Vec<String>,
    pub response_modes_supported: Vec<String>,
    /// Spec 2.1 lists it; scanid supports no JWT client authentication, so it is empty.
    pub token_endpoint_auth_signing_alg_values_supported: Vec<String>,
    pub request_parameter_supported: bool,
    /// RFC 9101 / OIDC Discovery: `none` only (scanid holds no key to verify a signed one).
    #[serde(default)]
    pub request_object_signing_alg_values_supported: Vec<String>,
    pub request_uri_parameter_supported: bool,
    pub require_request_uri_registration: bool,
    pub tls_client_certificate_bound_access_tokens: bool,
    pub introspection_endpoint_auth_methods_supported: Vec<String>,
    pub revocation_endpoint_auth_methods_supported: Vec<String>,
    pub authorization_response_iss_parameter_supported: bool,
    pub prompt_values_supported: Vec<String>,
    pub claims_parameter_supported: bool,
    pub userinfo_signing_alg_values_supported: Vec<String>,
    pub frontchannel_logout_supported: bool,
    pub backchannel_logout_supported: bool,
    pub backchannel_logout_session_supported: bool,
}
