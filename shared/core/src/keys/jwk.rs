//! JSON Web Keys (RFC 7517) with public members only, and RFC 7638 thumbprints as `kid`s.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};

use super::{Alg, SignError, VerifyingKey};

/// A public JWK. There are no private members in this type at all, so none can leak (D2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Jwk {
    /// `kty`: `RSA`, `EC` or `OKP`.
    pub kty: String,
    /// `use`: `sig`.
    #[serde(rename = "use")]
    pub use_: String,
    /// `alg`.
    pub alg: String,
    /// `kid`.
    pub kid: String,
    /// RSA modulus, base64url.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub n: Option<String>,
    /// RSA exponent, base64url.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub e: Option<String>,
    /// EC or OKP curve (`P-256`, `Ed25519`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub crv: Option<String>,
    /// EC x coordinate, or the OKP public key, base64url.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub x: Option<String>,
    /// EC y coordinate, base64url.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub y: Option<String>,
}

/// A JWK Set document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JwkSet {
    /// The keys.
    pub keys: Vec<Jwk>,
}

fn b64(b: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(b)
}

impl Jwk {
    /// An RSA public key for RS256 from its big-endian modulus and exponent.
    pub fn rsa(n: &[u8], e: &[u8]) -> Self {
        Self::rsa_for(Alg::RS256, n, e)
    }

    /// An RSA public key for `alg` (RS256 or PS256: each has keys of its own, so a `kid` names
    /// one algorithm).
    pub fn rsa_for(alg: Alg, n: &[u8], e: &[u8]) -> Self {
        let (n, e) = (b64(n), b64(e));
        let kid = thumbprint(&format!(r#"{{"e":"{e}","kty":"RSA","n":"{n}"}}"#));
        Self {
            kty: "RSA".into(),
            use_: "sig".into(),
            alg: alg.as_str().into(),
            kid,
            n: Some(n),
            e: Some(e),
            crv: None,
            x: None,
            y: None,
        }
    }

    /// A P-256 public key from its uncompressed point `04 || x || y`.
    pub fn p256(uncompressed: &[u8]) -> Result<Self, SignError> {
        if uncompressed.len() != 65 || uncompressed[0] != 4 {
            return Err(SignError::Key("not an uncompressed P-256 point".into()));
        }
        let (x, y) = (b64(&uncompressed[1..33]), b64(&uncompressed[33..]));
        let kid = thumbprint(&format!(
            r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#
        ));
        Ok(Self {
            kty: "EC".into(),
            use_: "sig".into(),
            alg: Alg::ES256.as_str().into(),
            kid,
            n: None,
            e: None,
            crv: Some("P-256".into()),
            x: Some(x),
            y: Some(y),
        })
    }

    /// An Ed25519 public key (RFC 8037 §2) from its 32 bytes.
    pub fn ed25519(public: &[u8]) -> Result<Self, SignError> {
        if public.len() != 32 {
            return Err(SignError::Key("not a 32-byte Ed25519 public key".into()));
        }
        let x = b64(public);
        // RFC 8037 §A.3: the thumbprint's members are crv, kty and x.
        let kid = thumbprint(&format!(r#"{{"crv":"Ed25519","kty":"OKP","x":"{x}"}}"#));
        Ok(Self {
            kty: "OKP".into(),
            use_: "sig".into(),
            alg: Alg::EdDSA.as_str().into(),
            kid,
            n: None,
            e: None,
            crv: Some("Ed25519".into()),
            x: Some(x),
            y: None,
        })
    }

    /// jsonwebtoken's decoding key for this JWK.
    pub fn verifying_key(&self) -> Result<VerifyingKey, SignError> {
        let bad = |e: jsonwebtoken::errors::Error| {
            SignError::Key(format!("jwk {}: {e}", self.kid).into())
        };
        let missing = || SignError::Key(format!("jwk {}: missing members", self.kid).into());
        let rsa_alg = match self.alg.as_str() {
            "PS256" => Alg::PS256,
            _ => Alg::RS256,
        };
        let (alg, decoding) = match (self.kty.as_str(), &self.n, &self.e, &self.x, &self.y) {
            ("RSA", Some(n), Some(e), _, _) => (
                rsa_alg,
                jsonwebtoken::DecodingKey::from_rsa_components(n, e).map_err(bad)?,
            ),
            ("OKP", _, _, Some(x), None) if self.crv.as_deref() == Some("Ed25519") => (
                Alg::EdDSA,
                jsonwebtoken::DecodingKey::from_ed_components(x).map_err(bad)?,
            ),
            ("EC", _, _, Some(x), Some(y)) => (
                Alg::ES256,
                jsonwebtoken::DecodingKey::from_ec_components(x, y).map_err(bad)?,
            ),
            _ => return Err(missing()),
        };
        Ok(VerifyingKey {
            jwk: self.clone(),
            alg,
            decoding,
        })
    }
}

/// RFC 7638: base64url(SHA-256(canonical JSON of the required members)).
fn thumbprint(canonical: &str) -> String {
    b64(aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, canonical.as_bytes()).as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc7638_example_thumbprint() {
        // RFC 7638 §3.1's example key.
        let n = URL_SAFE_NO_PAD
            .decode("0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw")
            .unwrap();
        let e = URL_SAFE_NO_PAD.decode("AQAB").unwrap();
        assert_eq!(
            Jwk::rsa(&n, &e).kid,
            "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
        );
    }

    #[test]
    fn rfc8037_example_thumbprint() {
        // RFC 8037 §A.3's example key and thumbprint.
        let x = URL_SAFE_NO_PAD
            .decode("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo")
            .unwrap();
        let jwk = Jwk::ed25519(&x).unwrap();
        assert_eq!(jwk.kid, "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k");
        assert_eq!(jwk.verifying_key().unwrap().alg, Alg::EdDSA);
        assert!(Jwk::ed25519(&[0; 31]).is_err());
    }

    #[test]
    fn p256_rejects_bad_points() {
        assert!(Jwk::p256(&[4; 64]).is_err());
        assert!(Jwk::p256(&[3; 65]).is_err());
    }
}
