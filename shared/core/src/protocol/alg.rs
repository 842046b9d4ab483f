//! The JWS algorithms scanid signs with (RFC 7518 §3.1, RFC 8037 §3.1): a protocol value, named
//! by the domain (a client's `token_alg`, discovery) and by the signer.

use serde::{Deserialize, Serialize};

/// A JWS algorithm scanid signs with. `none` and HMAC do not exist here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Alg {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    RS256,
    /// ECDSA P-256 with SHA-256.
    ES256,
    /// RSASSA-PSS with SHA-256 and MGF1 with SHA-256 (RFC 7518 §3.5).
    PS256,
    /// EdDSA with Ed25519 (RFC 8037 §3.1).
    EdDSA,
}

impl Alg {
    /// Every algorithm, in the order the key file creates and lists them.
    pub const ALL: [Alg; 4] = [Alg::RS256, Alg::ES256, Alg::PS256, Alg::EdDSA];

    /// The JOSE name (`RS256`, `ES256`, `PS256`, `EdDSA`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Alg::RS256 => "RS256",
            Alg::ES256 => "ES256",
            Alg::PS256 => "PS256",
            Alg::EdDSA => "EdDSA",
        }
    }
    /// An algorithm by its JOSE name.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.as_str() == s)
    }
    /// Whether the FAPI 2.0 Security Profile (§5.4) allows it: PS256, ES256 and EdDSA; never
    /// RS256.
    pub const fn fapi2(self) -> bool {
        !matches!(self, Alg::RS256)
    }
}
