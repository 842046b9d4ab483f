//! DPoP (RFC 9449): proofs of possession of a key, sent in the `DPoP` header, that bind
//! access tokens (and a public client's refresh tokens) to that key.
//!
//! A proof is a JWT whose header has `typ: dpop+jwt`, an asymmetric `alg` ([`ALGS`]) and the
//! public key itself (`jwk`, no private member); it is signed by that key and claims the
//! request it goes with: `htm` (the method), `htu` (the endpoint's URL, compared without
//! query and fragment), `iat` (at most [`MAX_AGE_SECS`] old, at most [`MAX_SKEW_SECS`]
//! ahead), a `jti` the caller spends once (until [`replay_expiry`]), `ath` (the access
//! token's hash) when it goes with an access token, and `nonce` when the server asks for one.
//!
//! Server nonces (§8) keep no state: a nonce is a time step and an HMAC of it under a
//! server-held secret ([`nonce`]); it is good in its step and the next ([`nonce_is_fresh`]),
//! 2 to 4 minutes.

use aws_lc_rs::{digest, hmac};
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use serde_json::Value;

use crate::clock::Timestamp;

/// The algorithms a proof may be signed with (discovery's `dpop_signing_alg_values_supported`).
pub const ALGS: &[&str] = &["ES256", "PS256", "RS256", "EdDSA"];
/// The oldest a proof's `iat` may be.
pub const MAX_AGE_SECS: i64 = 60;
/// How far ahead a proof's `iat` may be (clock skew).
pub const MAX_SKEW_SECS: i64 = 10;
/// At most this many characters for a proof.
pub const MAX_LEN: usize = 8 * 1024;
/// The length of a nonce's time step.
pub const NONCE_STEP_SECS: i64 = 120;

/// Why a proof was refused: `invalid_dpop_proof` with the description, or `use_dpop_nonce`
/// (its nonce is missing, stale or not ours: the answer carries a fresh one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// `invalid_dpop_proof`.
    Invalid(&'static str),
    /// `use_dpop_nonce`.
    UseNonce(&'static str),
}

impl Refused {
    /// The error code (RFC 9449 §12.2).
    pub fn code(self) -> &'static str {
        match self {
            Refused::Invalid(_) => "invalid_dpop_proof",
            Refused::UseNonce(_) => "use_dpop_nonce",
        }
    }

    /// The description.
    pub fn description(self) -> &'static str {
        match self {
            Refused::Invalid(d) | Refused::UseNonce(d) => d,
        }
    }
}

/// What the request a proof goes with is.
#[derive(Debug, Clone, Copy)]
pub struct Expected<'a> {
    /// The HTTP method.
    pub htm: &'a str,
    /// The endpoint's public URL (without query).
    pub htu: &'a str,
    /// The access token presented with it, if any (then `ath` is required).
    pub access_token: Option<&'a str>,
    /// The nonce secret, when the server requires nonces here.
    pub nonce_secret: Option<&'a [u8]>,
}

/// A verified proof: the key's thumbprint, and the `jti` the caller spends once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proof {
    /// The JWK SHA-256 thumbprint of its key (RFC 7638), base64url: `cnf.jkt`.
    pub jkt: String,
    /// Its id.
    pub jti: String,
    /// When it was made.
    pub iat: i64,
}

/// Until when a proof's `jti` must be remembered: past it, its `iat` is too old anyway.
pub fn replay_expiry(iat: i64, now: Timestamp) -> i64 {
    iat.max(now.secs()) + MAX_AGE_SECS + MAX_SKEW_SECS
}

#[derive(Deserialize)]
struct Claims {
    jti: Option<String>,
    htm: Option<String>,
    htu: Option<String>,
    iat: Option<i64>,
    ath: Option<String>,
    nonce: Option<String>,
}

fn algorithm(name: &str) -> Option<Algorithm> {
    match name {
        "ES256" => Some(Algorithm::ES256),
        "PS256" => Some(Algorithm::PS256),
        "RS256" => Some(Algorithm::RS256),
        "EdDSA" => Some(Algorithm::EdDSA),
        _ => None,
    }
}

/// Whether `jwk`'s type and curve fit `alg`.
fn fits(jwk: &Value, alg: &str) -> bool {
    let s = |m: &str| jwk.get(m).and_then(Value::as_str);
    matches!(
        (s("kty"), s("crv"), alg),
        (Some("RSA"), _, "RS256" | "PS256")
            | (Some("EC"), Some("P-256"), "ES256")
            | (Some("OKP"), Some("Ed25519"), "EdDSA")
    )
}

/// The JWK SHA-256 thumbprint (RFC 7638) of a public key: its required members in
/// lexicographic order, no whitespace.
pub fn thumbprint(jwk: &Value) -> Option<String> {
    let s = |m: &str| jwk.get(m).and_then(Value::as_str).map(Value::from);
    let mut members: Vec<(&str, Value)> = match jwk.get("kty").and_then(Value::as_str)? {
        "EC" => vec![
            ("crv", s("crv")?),
            ("kty", "EC".into()),
            ("x", s("x")?),
            ("y", s("y")?),
        ],
        "RSA" => vec![("e", s("e")?), ("kty", "RSA".into()), ("n", s("n")?)],
        "OKP" => vec![("crv", s("crv")?), ("kty", "OKP".into()), ("x", s("x")?)],
        _ => return None,
    };
    members.sort_by(|a, b| a.0.cmp(b.0));
    let body: Vec<String> = members
        .iter()
        .map(|(k, v)| format!("\"{k}\":{v}"))
        .collect();
    let canonical = format!("{{{}}}", body.join(","));
    Some(B64.encode(digest::digest(&digest::SHA256, canonical.as_bytes())))
}

/// `ath`: base64url(SHA-256(access token)).
pub fn ath(access_token: &str) -> String {
    B64.encode(digest::digest(&digest::SHA256, access_token.as_bytes()))
}

/// `htu` names `endpoint`: the same URL once query and fragment are dropped (RFC 9449 §4.3),
/// compared after parsing (so `HTTPS://Host` and a default port match).
pub fn htu_matches(htu: &str, endpoint: &str) -> bool {
    let strip = |u: &str| {
        url::Url::parse(u).ok().map(|mut u| {
            u.set_query(None);
            u.set_fragment(None);
            u
        })
    };
    match (strip(htu), strip(endpoint)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// The header of a compact JWS, as JSON.
fn header_json(proof: &str) -> Option<Value> {
    let first = proof.split('.').next()?;
    serde_json::from_slice(&B64.decode(first).ok()?).ok()
}

/// Verifies `proof` for the request `expected` at `now`.
pub fn verify(proof: &str, expected: &Expected<'_>, now: Timestamp) -> Result<Proof, Refused> {
    use Refused::Invalid;
    if proof.len() > MAX_LEN || proof.split('.').count() != 3 {
        return Err(Invalid("the DPoP proof is not a signed JWT"));
    }
    let header = header_json(proof).ok_or(Invalid("the DPoP proof's header is unreadable"))?;
    if header.get("typ").and_then(Value::as_str) != Some("dpop+jwt") {
        return Err(Invalid("the DPoP proof's typ must be dpop+jwt"));
    }
    let alg_name = header.get("alg").and_then(Value::as_str).unwrap_or("");
    let alg = algorithm(alg_name).ok_or(Invalid(
        "the DPoP proof's alg must be one of ES256, PS256, RS256, EdDSA",
    ))?;
    let jwk = header
        .get("jwk")
        .filter(|j| j.is_object())
        .ok_or(Invalid("the DPoP proof's header has no jwk"))?;
    if ["d", "p", "q", "dp", "dq", "qi", "k"]
        .iter()
        .any(|m| jwk.get(m).is_some())
    {
        return Err(Invalid("the DPoP proof's jwk must be a public key"));
    }
    if !fits(jwk, alg_name) {
        return Err(Invalid("the DPoP proof's jwk does not fit its alg"));
    }
    let key: Jwk = serde_json::from_value(jwk.clone())
        .map_err(|_| Invalid("the DPoP proof's jwk is not a valid key"))?;
    let key = DecodingKey::from_jwk(&key)
        .map_err(|_| Invalid("the DPoP proof's jwk is not a valid key"))?;
    let mut validation = Validation::new(alg);
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.validate_aud = false;
    validation.required_spec_claims.clear();
    let claims = jsonwebtoken::decode::<Claims>(proof, &key, &validation)
        .map_err(|_| Invalid("the DPoP proof's signature does not verify with its jwk"))?
        .claims;
    let jkt = thumbprint(jwk).ok_or(Invalid("the DPoP proof's jwk is not a valid key"))?;
    check_claims(&claims, expected, now).map(|(jti, iat)| Proof { jkt, jti, iat })
}

fn check_claims(
    c: &Claims,
    expected: &Expected<'_>,
    now: Timestamp,
) -> Result<(String, i64), Refused> {
    use Refused::Invalid;
    let jti = match &c.jti {
        Some(j) if !j.is_empty() && j.len() <= 256 && !j.chars().any(char::is_control) => j,
        _ => return Err(Invalid("the DPoP proof needs a jti (1 to 256 characters)")),
    };
    if c.htm.as_deref() != Some(expected.htm) {
        return Err(Invalid("the DPoP proof's htm is not this request's method"));
    }
    if !c
        .htu
        .as_deref()
        .is_some_and(|u| htu_matches(u, expected.htu))
    {
        return Err(Invalid("the DPoP proof's htu is not this endpoint's URL"));
    }
    let t = now.secs();
    match c.iat {
        None => return Err(Invalid("the DPoP proof has no iat")),
        Some(i) if i > t + MAX_SKEW_SECS => {
            return Err(Invalid("the DPoP proof's iat is in the future"))
        }
        Some(i) if i < t - MAX_AGE_SECS => return Err(Invalid("the DPoP proof is too old (iat)")),
        Some(_) => {}
    }
    if let Some(token) = expected.access_token {
        match &c.ath {
            Some(a) if a.as_bytes() == ath(token).as_bytes() => {}
            Some(_) => {
                return Err(Invalid(
                    "the DPoP proof's ath is not the access token's hash",
                ))
            }
            None => return Err(Invalid("the DPoP proof needs ath with an access token")),
        }
    }
    if let Some(secret) = expected.nonce_secret {
        match &c.nonce {
            None => return Err(Refused::UseNonce("a DPoP nonce is required (DPoP-Nonce)")),
            Some(n) if !nonce_is_fresh(secret, n, now) => {
                return Err(Refused::UseNonce("the DPoP nonce is stale or not ours"))
            }
            Some(_) => {}
        }
    }
    Ok((jti.clone(), c.iat.unwrap_or(t)))
}

fn nonce_tag(secret: &[u8], step: i64) -> hmac::Tag {
    let key = hmac::Key::new(hmac::HMAC_SHA256, secret);
    let mut msg = b"scanid dpop nonce ".to_vec();
    msg.extend_from_slice(&step.to_be_bytes());
    hmac::sign(&key, &msg)
}

fn nonce_for_step(secret: &[u8], step: i64) -> String {
    let mut raw = step.to_be_bytes().to_vec();
    raw.extend_from_slice(&nonce_tag(secret, step).as_ref()[..16]);
    B64.encode(raw)
}

/// The server's nonce now (sent as `DPoP-Nonce`).
pub fn nonce(secret: &[u8], now: Timestamp) -> String {
    nonce_for_step(secret, now.secs().div_euclid(NONCE_STEP_SECS))
}

/// Whether `nonce` is one of ours, of this time step or the one before.
pub fn nonce_is_fresh(secret: &[u8], nonce: &str, now: Timestamp) -> bool {
    let Ok(raw) = B64.decode(nonce) else {
        return false;
    };
    if raw.len() != 24 {
        return false;
    }
    let mut step = [0u8; 8];
    step.copy_from_slice(&raw[..8]);
    let step = i64::from_be_bytes(step);
    let current = now.secs().div_euclid(NONCE_STEP_SECS);
    if step != current && step != current - 1 {
        return false;
    }
    aws_lc_rs::constant_time::verify_slices_are_equal(
        &raw[8..],
        &nonce_tag(secret, step).as_ref()[..16],
    )
    .is_ok()
}

/// The `DPoP` header of a request: absent, or exactly one value (RFC 9449 §4.3 check 1).
pub fn one_header<'a>(values: &[&'a str]) -> Result<Option<&'a str>, Refused> {
    match values {
        [] => Ok(None),
        [one] => Ok(Some(one)),
        _ => Err(Refused::Invalid("send one DPoP header")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{EncodingKey, Header};
    use serde_json::json;

    const URL: &str = "https://id.example/realms/r/protocol/openid-connect/token";

    fn es256() -> (EncodingKey, Value) {
        use aws_lc_rs::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
        let pair = EcdsaKeyPair::generate(&ECDSA_P256_SHA256_FIXED_SIGNING).unwrap();
        let pkcs8 = pair.to_pkcs8v1().unwrap();
        let point = pair.public_key().as_ref().to_vec();
        let jwk = json!({"kty": "EC", "crv": "P-256",
            "x": B64.encode(&point[1..33]), "y": B64.encode(&point[33..])});
        (EncodingKey::from_ec_der(pkcs8.as_ref()), jwk)
    }

    fn sign(key: &EncodingKey, jwk: &Value, typ: &str, claims: Value) -> String {
        let mut h = Header::new(Algorithm::ES256);
        h.typ = Some(typ.into());
        h.jwk = Some(serde_json::from_value(jwk.clone()).unwrap());
        jsonwebtoken::encode(&h, &claims, key).unwrap()
    }

    fn expected<'a>(token: Option<&'a str>, secret: Option<&'a [u8]>) -> Expected<'a> {
        Expected {
            htm: "POST",
            htu: URL,
            access_token: token,
            nonce_secret: secret,
        }
    }

    #[test]
    fn a_proof_verifies_once_every_claim_is_right() {
        let (key, jwk) = es256();
        let now = Timestamp::from_secs(1_800_000_000);
        let t = now.secs();
        let good = json!({"jti": "j1", "htm": "POST", "htu": format!("{URL}?x=1"), "iat": t});
        let p = verify(
            &sign(&key, &jwk, "dpop+jwt", good.clone()),
            &expected(None, None),
            now,
        )
        .unwrap();
        assert_eq!(p.jkt, thumbprint(&jwk).unwrap());
        assert_eq!((p.jti.as_str(), p.iat), ("j1", t));
        let refused = |claims: Value, typ: &str, exp: Expected<'_>| {
            verify(&sign(&key, &jwk, typ, claims), &exp, now).unwrap_err()
        };
        assert!(matches!(
            refused(good.clone(), "JWT", expected(None, None)),
            Refused::Invalid(_)
        ));
        for (k, v) in [
            ("htm", json!("GET")),
            (
                "htu",
                json!("https://id.example/realms/r/protocol/openid-connect/userinfo"),
            ),
            ("iat", json!(t - 120)),
            ("iat", json!(t + 11)),
            ("iat", Value::Null),
            ("jti", Value::Null),
        ] {
            let mut c = good.clone();
            c[k] = v.clone();
            assert!(
                matches!(
                    refused(c, "dpop+jwt", expected(None, None)),
                    Refused::Invalid(_)
                ),
                "{k}={v}"
            );
        }
        // With an access token: ath required and right.
        assert!(matches!(
            refused(good.clone(), "dpop+jwt", expected(Some("at"), None)),
            Refused::Invalid(_)
        ));
        let mut with_ath = good.clone();
        with_ath["ath"] = json!(ath("at"));
        assert!(verify(
            &sign(&key, &jwk, "dpop+jwt", with_ath.clone()),
            &expected(Some("at"), None),
            now
        )
        .is_ok());
        assert!(matches!(
            refused(with_ath, "dpop+jwt", expected(Some("other"), None)),
            Refused::Invalid(_)
        ));
        // A private key in the header, or a symmetric alg.
        let mut private = jwk.clone();
        private["d"] = json!("AAAA");
        let mut h = Header::new(Algorithm::ES256);
        h.typ = Some("dpop+jwt".into());
        let mut hv = serde_json::to_value(&h).unwrap();
        hv["jwk"] = private;
        let forged = format!(
            "{}.{}",
            B64.encode(hv.to_string()),
            sign(&key, &jwk, "dpop+jwt", good.clone())
                .split_once('.')
                .unwrap()
                .1
        );
        assert!(verify(&forged, &expected(None, None), now).is_err());
        let hs = jsonwebtoken::encode(
            &Header {
                typ: Some("dpop+jwt".into()),
                ..Header::new(Algorithm::HS256)
            },
            &good,
            &EncodingKey::from_secret(b"s"),
        )
        .unwrap();
        assert!(verify(&hs, &expected(None, None), now).is_err());
        // Signed by another key than its jwk.
        let (other, _) = es256();
        assert!(matches!(
            verify(
                &sign(&other, &jwk, "dpop+jwt", good),
                &expected(None, None),
                now
            ),
            Err(Refused::Invalid(_))
        ));
    }

    /// A compact JWS over `header` and `claims`, signed by `sign`.
    fn jws(header: &Value, claims: &Value, sign: impl Fn(&[u8]) -> Vec<u8>) -> String {
        let input = format!(
            "{}.{}",
            B64.encode(header.to_string()),
            B64.encode(claims.to_string())
        );
        let sig = sign(input.as_bytes());
        format!("{input}.{}", B64.encode(sig))
    }

    #[test]
    fn an_eddsa_proof_verifies_and_malformed_ones_are_refused_without_a_panic() {
        use aws_lc_rs::signature::{Ed25519KeyPair, KeyPair};
        let ed = Ed25519KeyPair::generate().unwrap();
        let jwk =
            json!({"kty": "OKP", "crv": "Ed25519", "x": B64.encode(ed.public_key().as_ref())});
        let now = Timestamp::from_secs(1_800_000_000);
        let claims = json!({"jti": "e", "htm": "POST", "htu": URL, "iat": now.secs()});
        let header = json!({"typ": "dpop+jwt", "alg": "EdDSA", "jwk": jwk});
        let sign = |m: &[u8]| ed.sign(m).as_ref().to_vec();
        let p = verify(&jws(&header, &claims, sign), &expected(None, None), now).unwrap();
        assert_eq!(Some(p.jkt), thumbprint(&jwk));
        // The header's alg and key must fit each other; alg none and HMAC are refused.
        for (alg, key) in [
            ("ES256", jwk.clone()),
            ("none", jwk.clone()),
            ("HS256", json!({"kty": "oct", "k": "AAAA"})),
            (
                "EdDSA",
                json!({"kty": "OKP", "crv": "X25519", "x": jwk["x"]}),
            ),
            ("EdDSA", json!("a string")),
            (
                "EdDSA",
                json!({"kty": "OKP", "crv": "Ed25519", "x": "not base64!"}),
            ),
        ] {
            let h = json!({"typ": "dpop+jwt", "alg": alg, "jwk": key});
            let r = verify(&jws(&h, &claims, sign), &expected(None, None), now);
            assert!(matches!(r, Err(Refused::Invalid(_))), "{alg} {key}: {r:?}");
        }
        for garbage in ["", ".", "..", "a.b.c", "e30.e30.", "e30.e30.e30", "x.y.z.w"] {
            assert!(
                verify(garbage, &expected(None, None), now).is_err(),
                "{garbage}"
            );
        }
        let long = "a".repeat(MAX_LEN + 1);
        assert!(verify(&long, &expected(None, None), now).is_err());
    }

    #[test]
    fn nonces_are_the_servers_and_last_two_steps() {
        let (key, jwk) = es256();
        let secret = b"0123456789abcdef0123456789abcdef".as_slice();
        let now = Timestamp::from_secs(1_800_000_000);
        let n = nonce(secret, now);
        assert!(nonce_is_fresh(secret, &n, now));
        assert!(nonce_is_fresh(secret, &n, now.plus_secs(NONCE_STEP_SECS)));
        assert!(
            !nonce_is_fresh(secret, &n, now.plus_secs(3 * NONCE_STEP_SECS)),
            "expired"
        );
        let future = nonce(secret, now.plus_secs(2 * NONCE_STEP_SECS));
        assert!(!nonce_is_fresh(secret, &future, now), "from the future");
        assert!(!nonce_is_fresh(
            b"another secret of 32 bytes......",
            &n,
            now
        ));
        assert!(!nonce_is_fresh(secret, "not-a-nonce", now));
        let t = now.secs();
        let claims = |nonce: Option<&str>| {
            let mut c = json!({"jti": "j", "htm": "POST", "htu": URL, "iat": t});
            if let Some(n) = nonce {
                c["nonce"] = json!(n);
            }
            sign(&key, &jwk, "dpop+jwt", c)
        };
        let e = expected(None, Some(secret));
        assert!(matches!(
            verify(&claims(None), &e, now),
            Err(Refused::UseNonce(_))
        ));
        assert!(matches!(
            verify(&claims(Some(&future)), &e, now),
            Err(Refused::UseNonce(_))
        ));
        assert!(verify(&claims(Some(&n)), &e, now).is_ok());
    }

    #[test]
    fn thumbprints_follow_rfc_7638() {
        // RFC 7638 §3.1's example key and thumbprint.
        let jwk = json!({"kty": "RSA", "e": "AQAB", "alg": "RS256", "kid": "2011-04-29",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"});
        assert_eq!(
            thumbprint(&jwk).as_deref(),
            Some("NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        );
        assert!(htu_matches(
            "HTTPS://id.example:443/a#f",
            "https://id.example/a"
        ));
        assert!(!htu_matches("https://id.example/b", "https://id.example/a"));
        assert_eq!(one_header(&[]), Ok(None));
        assert!(one_header(&["a", "b"]).is_err());
    }
}
