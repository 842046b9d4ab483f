//! OAuth 2.0 error codes (RFC 6749 §4.1.2.1, §5.2; RFC 6750 §3.1; OIDC Core §3.1.2.6) and the
//! one error type every OAuth endpoint answers with.

use std::borrow::Cow;

use serde::Serialize;

/// The RFC error codes scanid uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OAuthErrorCode {
    /// `invalid_request`.
    InvalidRequest,
    /// `invalid_client`.
    InvalidClient,
    /// `invalid_grant`.
    InvalidGrant,
    /// `unauthorized_client`.
    UnauthorizedClient,
    /// `unsupported_grant_type`.
    UnsupportedGrantType,
    /// `unsupported_response_type`.
    UnsupportedResponseType,
    /// `invalid_scope`.
    InvalidScope,
    /// `access_denied`.
    AccessDenied,
    /// `server_error`.
    ServerError,
    /// `temporarily_unavailable`.
    TemporarilyUnavailable,
    /// `login_required`.
    LoginRequired,
    /// `consent_required`.
    ConsentRequired,
    /// `interaction_required`.
    InteractionRequired,
    /// `invalid_token`.
    InvalidToken,
    /// `insufficient_scope`.
    InsufficientScope,
    /// `unsupported_token_type`.
    UnsupportedTokenType,
    /// OIDC Core §3.1.2.6: the `request` parameter is not supported.
    RequestNotSupported,
    /// OIDC Core §3.1.2.6: the `request_uri` parameter is not supported.
    RequestUriNotSupported,
    /// RFC 9101 §6.3 / OIDC Core §3.1.2.6: the request object is malformed or invalid.
    InvalidRequestObject,
    /// RFC 8707 §2: the requested resource is invalid, unknown or not granted.
    InvalidTarget,
    /// RFC 8628 §3.5: the person has not decided yet.
    AuthorizationPending,
    /// RFC 8628 §3.5: poll less often (the interval grew by 5 s).
    SlowDown,
    /// RFC 8628 §3.5: the device code expired.
    ExpiredToken,
    /// CIBA Core §13: the `binding_message` is invalid or unacceptable.
    InvalidBindingMessage,
    /// RFC 9449 §5: the DPoP proof is invalid.
    InvalidDpopProof,
    /// RFC 9449 §8: the DPoP proof must carry the server's nonce (`DPoP-Nonce`).
    UseDpopNonce,
}

impl OAuthErrorCode {
    /// The code as it appears in `error`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::InvalidRequest => "invalid_request",
            Self::InvalidClient => "invalid_client",
            Self::InvalidGrant => "invalid_grant",
            Self::UnauthorizedClient => "unauthorized_client",
            Self::UnsupportedGrantType => "unsupported_grant_type",
            Self::UnsupportedResponseType => "unsupported_response_type",
            Self::InvalidScope => "invalid_scope",
            Self::AccessDenied => "access_denied",
            Self::ServerError => "server_error",
            Self::TemporarilyUnavailable => "temporarily_unavailable",
            Self::LoginRequired => "login_required",
            Self::ConsentRequired => "consent_required",
            Self::InteractionRequired => "interaction_required",
            Self::InvalidToken => "invalid_token",
            Self::InsufficientScope => "insufficient_scope",
            Self::UnsupportedTokenType => "unsupported_token_type",
            Self::RequestNotSupported => "request_not_supported",
            Self::RequestUriNotSupported => "request_uri_not_supported",
            Self::InvalidRequestObject => "invalid_request_object",
            Self::InvalidTarget => "invalid_target",
            Self::AuthorizationPending => "authorization_pending",
            Self::SlowDown => "slow_down",
            Self::ExpiredToken => "expired_token",
            Self::InvalidBindingMessage => "invalid_binding_message",
            Self::InvalidDpopProof => "invalid_dpop_proof",
            Self::UseDpopNonce => "use_dpop_nonce",
        }
    }

    /// The HTTP status of a token-endpoint style JSON error (RFC 6749 §5.2, RFC 6750 §3.1).
    pub const fn status(self) -> u16 {
        match self {
            Self::InvalidClient | Self::InvalidToken => 401,
            // `access_denied` as a JSON answer is the device grant's refusal at the token
            // endpoint (RFC 8628 §3.5 over RFC 6749 §5.2): 400 like every token error.
            Self::InsufficientScope => 403,
            Self::ServerError => 500,
            Self::TemporarilyUnavailable => 503,
            _ => 400,
        }
    }
}

/// An OAuth error as the client sees it: the code and a public description. Internal causes
/// are logged where they happen, never put here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OAuthError {
    /// `error`: the code.
    pub error: OAuthErrorCode,
    /// `error_description`: for the developer, never for end users.
    pub error_description: Cow<'static, str>,
}

impl OAuthError {
    /// An error with this code and description.
    pub fn new(error: OAuthErrorCode, description: impl Into<Cow<'static, str>>) -> Self {
        Self {
            error,
            error_description: description.into(),
        }
    }
    /// `invalid_request` with this description.
    pub fn invalid_request(d: impl Into<Cow<'static, str>>) -> Self {
        Self::new(OAuthErrorCode::InvalidRequest, d)
    }
    /// `temporarily_unavailable`: a dependency (the store, KMS) failed; try again.
    pub fn unavailable() -> Self {
        Self::new(
            OAuthErrorCode::TemporarilyUnavailable,
            "the service is temporarily unavailable; retry later",
        )
    }
}
