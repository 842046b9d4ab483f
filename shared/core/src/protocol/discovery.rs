//! The OpenID Provider Metadata document (OpenID Connect Discovery 1.0 §3; spec 2.1).

use serde::{Deserialize, Serialize};

/// Every field of spec 2.1, plus the ones a certified provider publishes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenIdConfiguration {
    /// `issuer` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub issuer: String,
    /// `authorization_endpoint` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub authorization_endpoint: String,
    /// `token_endpoint` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub token_endpoint: String,
    /// `userinfo_endpoint` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub userinfo_endpoint: String,
    /// `introspection_endpoint` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub introspection_endpoint: String,
    /// `jwks_uri` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub jwks_uri: String,
    /// `end_session_endpoint` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub end_session_endpoint: String,
    /// OIDC Session Management 1.0: the OP iframe (Keycloak's `login-status-iframe.html`).
    pub check_session_iframe: String,
    /// `revocation_endpoint` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub revocation_endpoint: String,
    /// RFC 7591 §3 (Keycloak's path); open with an initial access token, or to all where the
    /// operator says so.
    pub registration_endpoint: String,
    /// RFC 8628 §4.
    pub device_authorization_endpoint: String,
    /// RFC 9126 §5 (Keycloak's path).
    pub pushed_authorization_request_endpoint: String,
    /// RFC 9126 §5: every client must push (the operator's setting); a client may be held to
    /// it alone (its registration's `require_pushed_authorization_requests`).
    pub require_pushed_authorization_requests: bool,
    /// draft-ietf-oauth-client-id-metadata-document: an `https` `client_id` is fetched as the
    /// client's metadata (the operator may turn it off).
    #[serde(default)]
    pub client_id_metadata_document_supported: bool,
    /// `response_types_supported` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub response_types_supported: Vec<String>,
    /// `subject_types_supported` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub subject_types_supported: Vec<String>,
    /// `id_token_signing_alg_values_supported` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub id_token_signing_alg_values_supported: Vec<String>,
    /// `token_endpoint_auth_methods_supported` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub token_endpoint_auth_methods_supported: Vec<String>,
    /// `claims_supported` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub claims_supported: Vec<String>,
    /// `ui_locales_supported` (OpenID Connect Discovery 1.0 §3): the languages the pages
    /// speak, as BCP 47 tags (`crate::domain::locale`).
    pub ui_locales_supported: Vec<String>,
    /// `claims_locales_supported` (OpenID Connect Discovery 1.0 §3): the languages a claim
    /// may be in; the one scanid gives is `locale`, the language of the login's pages.
    pub claims_locales_supported: Vec<String>,
    /// `acr_values_supported` (OpenID Connect Discovery 1.0 §3): the levels a login reaches,
    /// lowest first (`crate::domain::authn::Acr`).
    pub acr_values_supported: Vec<String>,
    /// `grant_types_supported` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub grant_types_supported: Vec<String>,
    /// `code_challenge_methods_supported` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub code_challenge_methods_supported: Vec<String>,
    /// `scopes_supported` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub scopes_supported: Vec<String>,
    /// `response_modes_supported` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub response_modes_supported: Vec<String>,
    /// Spec 2.1 lists it; scanid supports no JWT client authentication, so it is empty.
    pub token_endpoint_auth_signing_alg_values_supported: Vec<String>,
    /// `dpop_signing_alg_values_supported` (RFC 9449 §5.1): what a DPoP proof may be signed with.
    #[serde(default)]
    pub dpop_signing_alg_values_supported: Vec<String>,
    /// `request_parameter_supported` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub request_parameter_supported: bool,
    /// RFC 9101 / OIDC Discovery: `none` (by value at the authorization endpoint) and the
    /// algorithms a client's keys may sign one with (pushed, RFC 9126).
    #[serde(default)]
    pub request_object_signing_alg_values_supported: Vec<String>,
    /// JARM §3: what a JWT authorization response may be signed with (the realm's keys).
    #[serde(default)]
    pub authorization_signing_alg_values_supported: Vec<String>,
    /// RFC 9701 §7: what a signed introspection response may be signed with.
    #[serde(default)]
    pub introspection_signing_alg_values_supported: Vec<String>,
    /// `request_uri_parameter_supported` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub request_uri_parameter_supported: bool,
    /// `require_request_uri_registration` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub require_request_uri_registration: bool,
    /// `tls_client_certificate_bound_access_tokens` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub tls_client_certificate_bound_access_tokens: bool,
    /// `introspection_endpoint_auth_methods_supported` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub introspection_endpoint_auth_methods_supported: Vec<String>,
    /// `revocation_endpoint_auth_methods_supported` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub revocation_endpoint_auth_methods_supported: Vec<String>,
    /// `authorization_response_iss_parameter_supported` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub authorization_response_iss_parameter_supported: bool,
    /// `prompt_values_supported` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub prompt_values_supported: Vec<String>,
    /// `claims_parameter_supported` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub claims_parameter_supported: bool,
    /// `userinfo_signing_alg_values_supported` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub userinfo_signing_alg_values_supported: Vec<String>,
    /// `frontchannel_logout_supported` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub frontchannel_logout_supported: bool,
    /// `backchannel_logout_supported` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub backchannel_logout_supported: bool,
    /// `backchannel_logout_session_supported` (OpenID Connect Discovery 1.0 §3 and the RFCs that extend it).
    pub backchannel_logout_session_supported: bool,
    /// `backchannel_authentication_endpoint` (OpenID CIBA Core 1.0 §4).
    pub backchannel_authentication_endpoint: String,
    /// `backchannel_token_delivery_modes_supported` (CIBA Core §4).
    pub backchannel_token_delivery_modes_supported: Vec<String>,
    /// `backchannel_user_code_parameter_supported` (CIBA Core §4): `false`.
    pub backchannel_user_code_parameter_supported: bool,
}
