//! How a client authenticates at the token endpoint (RFC 7591 §2 `token_endpoint_auth_method`).

use serde::{Deserialize, Serialize};

/// How a client authenticates at the token endpoint, as it registered (RFC 7591 §2). A
/// self-registered client is held to the method it registered ([`crate::domain::client::Client::accepts_secret_by`]);
/// the operator's confidential clients may use either secret method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthMethod {
    /// The secret in HTTP Basic.
    ClientSecretBasic,
    /// The secret in the form body.
    ClientSecretPost,
    /// A public client: no secret, PKCE required.
    None,
    /// A JWT signed with one of its registered keys (RFC 7523 §2.2).
    PrivateKeyJwt,
    /// A JWT with an HMAC keyed by its secret (RFC 7523 §2.2).
    ClientSecretJwt,
}

impl AuthMethod {
    /// The method's registered name (RFC 7591 §2).
    pub const fn as_str(self) -> &'static str {
        match self {
            AuthMethod::ClientSecretBasic => "client_secret_basic",
            AuthMethod::ClientSecretPost => "client_secret_post",
            AuthMethod::None => "none",
            AuthMethod::PrivateKeyJwt => "private_key_jwt",
            AuthMethod::ClientSecretJwt => "client_secret_jwt",
        }
    }

    /// A method by its registered name.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "client_secret_basic" => Some(AuthMethod::ClientSecretBasic),
            "client_secret_post" => Some(AuthMethod::ClientSecretPost),
            "none" => Some(AuthMethod::None),
            "private_key_jwt" => Some(AuthMethod::PrivateKeyJwt),
            "client_secret_jwt" => Some(AuthMethod::ClientSecretJwt),
            _ => None,
        }
    }
}
