//! The JWS algorithms scanid signs with (RFC 7518 §3.1): a protocol value, named by the
//! domain (a client's `token_alg`, discovery) and by the signer.

use serde::{Deserialize, Serialize};

/// A JWS algorithm scanid signs with. `none` and HMAC do not exist here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Alg {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    RS256,
    /// ECDSA P-256 with SHA-256.
    ES256,
}

impl Alg {
    /// The JOSE name (`RS256`, `ES256`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Alg::RS256 => "RS256",
            Alg::ES256 => "ES256",
        }
    }
    /// An algorithm by its JOSE name.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "RS256" => Some(Alg::RS256),
            "ES256" => Some(Alg::ES256),
            _ => None,
        }
    }
}
