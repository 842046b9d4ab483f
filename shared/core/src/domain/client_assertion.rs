//! Client authentication by keys: `private_key_jwt` (RFC 7523 §2.2, RFC 7521 §4.2, OIDC Core
//! §9). The client signs a short JWT with a private key whose public half it registered (a
//! JWK Set by value, `jwks`, or by reference, `jwks_uri`); scanid verifies it here.
//!
//! The checks: `alg` one of ES256, PS256, RS256 and EdDSA (Ed25519), or only the one the
//! client registered; the key named by `kid` (without a `kid`, each of the client's keys that
//! fits the algorithm); `iss` = `sub` = the client id; `aud` the issuer, or a list containing
//! it where the caller allows a list (the token endpoint's URL is accepted too where the caller
//! says so, OIDC Core §9; not at the PAR endpoint, where FAPI 2.0 Final §5.3.2.1-8 wants the
//! issuer only, as a string); `exp` required, in the future and
//! at most five minutes ahead; `iat` and `nbf`, when present, at most ten seconds ahead (clock
//! skew); a `jti`, which the caller spends once.
//!
//! And `client_secret_jwt` (RFC 7523 §2.2 with an HMAC keyed by the client secret; HS256,
//! HS384 or HS512, [`verify_hmac`]): the same claims, the MAC compared in constant time. Only
//! a client registered for that method has its secret kept in a form that can be read back
//! ([`SecretJwt`], sealed by the service's sealing key); every other secret is kept as a hash.

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::clock::Timestamp;

/// `client_assertion_type` of a JWT client assertion (RFC 7523 §2.2).
pub const ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/// The algorithms a client may sign its assertions with.
pub const ALGS: &[&str] = &["ES256", "PS256", "RS256", "EdDSA"];
/// The longest an assertion may still live (`exp` - now).
pub const MAX_LIFETIME_SECS: i64 = 300;
/// How far ahead `iat` and `nbf` may be (clock skew).
pub const MAX_SKEW_SECS: i64 = 10;
/// The algorithms of a `client_secret_jwt` assertion.
pub const HMAC_ALGS: &[&str] = &["HS256", "HS384", "HS512"];
/// At most this many keys in a client's JWK Set.
pub const MAX_KEYS: usize = 20;
/// At most this many characters for an assertion.
pub const MAX_LEN: usize = 8 * 1024;

/// A client's registered public keys: how it authenticates by `private_key_jwt`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ClientKeys {
    /// Its JWK Set by value (public members only), as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jwks: Option<Value>,
    /// Where its JWK Set is published (https; fetched with the SSRF guards, cached).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jwks_uri: Option<String>,
    /// The one algorithm it signs with (`token_endpoint_auth_signing_alg`); any of [`ALGS`]
    /// when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alg: Option<String>,
}

/// Why keys were refused at registration.
pub type KeysRefused = &'static str;

impl ClientKeys {
    /// Validates what a client registers: exactly one of `jwks` and `jwks_uri`, the set's
    /// keys public and of a supported type, the URI https (or http on loopback), the
    /// algorithm one of [`ALGS`].
    pub fn new(
        jwks: Option<Value>,
        jwks_uri: Option<String>,
        alg: Option<String>,
    ) -> Result<Self, KeysRefused> {
        match (&jwks, &jwks_uri) {
            (Some(_), Some(_)) => return Err("give jwks or jwks_uri, not both"),
            (None, None) => return Err("private_key_jwt needs jwks or jwks_uri"),
            (Some(set), None) => {
                parse_jwks(set)?;
            }
            (None, Some(uri)) => validate_jwks_uri(uri)?,
        }
        if let Some(a) = &alg {
            if !ALGS.contains(&a.as_str()) {
                return Err("token_endpoint_auth_signing_alg: ES256, PS256, RS256 or EdDSA");
            }
        }
        Ok(Self {
            jwks,
            jwks_uri,
            alg,
        })
    }
}

/// A `client_secret_jwt` client's secret, readable by the service only: sealed (AES-256-GCM)
/// under the service's sealing key, bound to the client id (`keys::seal`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SecretJwt {
    /// The sealed secret; `None` until the secret is sealed (a registration in progress).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealed: Option<String>,
    /// The one algorithm it signs with (`token_endpoint_auth_signing_alg`); any of
    /// [`HMAC_ALGS`] when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alg: Option<String>,
}

impl SecretJwt {
    /// A `client_secret_jwt` registration with `alg` (one of [`HMAC_ALGS`], or any).
    pub fn new(alg: Option<String>) -> Result<Self, KeysRefused> {
        if alg.as_deref().is_some_and(|a| !HMAC_ALGS.contains(&a)) {
            return Err(
                "token_endpoint_auth_signing_alg for client_secret_jwt is HS256, HS384 or HS512",
            );
        }
        Ok(Self { sealed: None, alg })
    }
}

/// Verifies `assertion` as `client_id`'s `client_secret_jwt` assertion, its MAC keyed by
/// `secret`: `alg` one of [`HMAC_ALGS`] (or `only`), the MAC compared in constant time, then
/// the claims as for `private_key_jwt`.
pub fn verify_hmac(
    assertion: &str,
    client_id: &str,
    secret: &[u8],
    only: Option<&str>,
    audience: Audience<'_>,
    now: Timestamp,
) -> Result<Verified, Refused> {
    use aws_lc_rs::hmac;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    use Refused::Invalid;
    if assertion.len() > MAX_LEN {
        return Err(Invalid("the client assertion is too long"));
    }
    let header = jsonwebtoken::decode_header(assertion)
        .map_err(|_| Invalid("the client assertion is not a signed JWT"))?;
    let alg = match header.alg {
        Algorithm::HS256 => hmac::HMAC_SHA256,
        Algorithm::HS384 => hmac::HMAC_SHA384,
        Algorithm::HS512 => hmac::HMAC_SHA512,
        _ => {
            return Err(Invalid(
                "this client authenticates by client_secret_jwt: HS256, HS384 or HS512",
            ))
        }
    };
    let name = format!("{:?}", header.alg);
    if only.is_some_and(|o| o != name) {
        return Err(Invalid(
            "the client assertion's alg is not the one this client registered",
        ));
    }
    let (input, mac) = assertion
        .rsplit_once('.')
        .ok_or(Invalid("the client assertion is not a signed JWT"))?;
    let mac = URL_SAFE_NO_PAD
        .decode(mac)
        .map_err(|_| Invalid("the client assertion is not a signed JWT"))?;
    hmac::verify(&hmac::Key::new(alg, secret), input.as_bytes(), &mac).map_err(|_| {
        Invalid("the client assertion's MAC does not verify with the client secret")
    })?;
    let payload = input
        .split_once('.')
        .and_then(|(_, p)| URL_SAFE_NO_PAD.decode(p).ok())
        .ok_or(Invalid("the client assertion is not a signed JWT"))?;
    let claims: Claims = serde_json::from_slice(&payload)
        .map_err(|_| Invalid("the client assertion's claims are malformed"))?;
    check_claims(&claims, client_id, audience, now)
}

/// A `jwks_uri`: https with a host, or http on loopback (local development); no credentials,
/// no fragment.
pub fn validate_jwks_uri(uri: &str) -> Result<(), KeysRefused> {
    let url = url::Url::parse(uri).map_err(|_| "jwks_uri is not an absolute URL")?;
    if uri.len() > 2000 || url.fragment().is_some() || !url.username().is_empty() {
        return Err("jwks_uri: at most 2000 characters, no credentials, no fragment");
    }
    let loopback = matches!(
        url.host(),
        Some(url::Host::Ipv4(ip)) if ip.is_loopback()
    ) || matches!(url.host(), Some(url::Host::Ipv6(ip)) if ip.is_loopback())
        || url.host_str() == Some("localhost");
    match url.scheme() {
        "https" if url.host_str().is_some_and(|h| !h.is_empty()) => Ok(()),
        "http" if loopback => Ok(()),
        _ => Err("jwks_uri must be https (http only on loopback)"),
    }
}

/// A JWK Set as registered or fetched: at most [`MAX_KEYS`] keys, each RSA, EC P-256 or OKP
/// Ed25519, with no private or symmetric member.
pub fn parse_jwks(set: &Value) -> Result<JwkSet, KeysRefused> {
    let keys = set
        .get("keys")
        .and_then(Value::as_array)
        .ok_or("jwks: a JWK Set ({\"keys\": [...]})")?;
    if keys.is_empty() || keys.len() > MAX_KEYS {
        return Err("jwks: 1 to 20 keys");
    }
    for k in keys {
        let private = ["d", "p", "q", "dp", "dq", "qi", "k"]
            .iter()
            .any(|m| k.get(m).is_some());
        if private {
            return Err("jwks: public keys only (a private or symmetric member was sent)");
        }
        if !matches!(
            k.get("kty").and_then(Value::as_str),
            Some("RSA" | "EC" | "OKP")
        ) {
            return Err("jwks: each key's kty is RSA, EC or OKP");
        }
    }
    let set: JwkSet =
        serde_json::from_value(set.clone()).map_err(|_| "jwks: a key is not a valid JWK")?;
    for k in &set.keys {
        match &k.algorithm {
            AlgorithmParameters::EllipticCurve(p) if p.curve != EllipticCurve::P256 => {
                return Err("jwks: EC keys are P-256")
            }
            AlgorithmParameters::OctetKeyPair(p) if p.curve != EllipticCurve::Ed25519 => {
                return Err("jwks: OKP keys are Ed25519")
            }
            _ => {}
        }
        DecodingKey::from_jwk(k).map_err(|_| "jwks: a key is not a valid public key")?;
    }
    Ok(set)
}

/// Why an assertion was refused (`invalid_client`, with this description), or that its `kid`
/// names no key of the set (then a set fetched from `jwks_uri` is fetched again, once).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The `kid` is not in the set.
    UnknownKey,
    /// Anything else: the description.
    Invalid(&'static str),
}

/// What a verified assertion says the caller must still do: spend its `jti` until `exp`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// The assertion's id, to be accepted once.
    pub jti: String,
    /// Its expiry (Unix seconds).
    pub exp: i64,
}

/// The client an assertion claims to come from (its unverified `iss`, else `sub`), to look
/// the client up by when the request names none.
pub fn claimed_client(assertion: &str) -> Option<String> {
    if assertion.len() > MAX_LEN {
        return None;
    }
    let claims: Value = jsonwebtoken::dangerous::insecure_decode(assertion)
        .ok()?
        .claims;
    claims
        .get("iss")
        .or_else(|| claims.get("sub"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

#[derive(Deserialize)]
struct Claims {
    iss: Option<String>,
    sub: Option<String>,
    aud: Option<Value>,
    exp: Option<i64>,
    iat: Option<i64>,
    nbf: Option<i64>,
    jti: Option<String>,
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

fn fits(jwk: &Jwk, alg: Algorithm) -> bool {
    match (&jwk.algorithm, alg) {
        (AlgorithmParameters::RSA(_), Algorithm::RS256 | Algorithm::PS256) => true,
        (AlgorithmParameters::EllipticCurve(p), Algorithm::ES256) => p.curve == EllipticCurve::P256,
        (AlgorithmParameters::OctetKeyPair(p), Algorithm::EdDSA) => {
            p.curve == EllipticCurve::Ed25519
        }
        _ => false,
    }
}

/// Where a client assertion may be addressed: `accepted` values of `aud`, and whether a list
/// containing one of them will do (`list`: false wants a single string, FAPI 2.0 Final
/// §5.3.2.1-8).
#[derive(Debug, Clone, Copy)]
pub struct Audience<'a> {
    /// The values `aud` may be.
    pub accepted: &'a [&'a str],
    /// Whether a list holding one of them is accepted.
    pub list: bool,
}

/// Verifies `assertion` as `client_id`'s, signed by one of `keys`, for `audience`.
pub fn verify(
    assertion: &str,
    client_id: &str,
    keys: &ClientKeys,
    set: &JwkSet,
    audience: Audience<'_>,
    now: Timestamp,
) -> Result<Verified, Refused> {
    if assertion.len() > MAX_LEN {
        return Err(Refused::Invalid("the client assertion is too long"));
    }
    let claims: Claims = signed_by(assertion, keys.alg.as_deref(), set).map_err(|r| match r {
        Refused::Invalid(_) if jsonwebtoken::decode_header(assertion).is_err() => {
            Refused::Invalid("the client assertion is not a signed JWT")
        }
        r => r,
    })?;
    check_claims(&claims, client_id, audience, now)
}

/// The claims of `jws` once its signature verifies with one of the client's keys in `set`
/// (the key its `kid` names, or each that fits the algorithm): `alg` one of [`ALGS`], or
/// `only` when given. Used for client assertions and for signed request objects (RFC 9101).
pub fn signed_by<T: serde::de::DeserializeOwned>(
    jws: &str,
    only: Option<&str>,
    set: &JwkSet,
) -> Result<T, Refused> {
    use Refused::Invalid;
    let header = jsonwebtoken::decode_header(jws).map_err(|_| Invalid("not a signed JWT"))?;
    let alg_name = serde_json::to_value(header.alg)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let alg = match algorithm(&alg_name) {
        Some(a) if only.is_none_or(|r| r == alg_name) => a,
        _ => {
            return Err(Invalid(
                "the client assertion's alg is not one this client may use",
            ))
        }
    };
    let candidates: Vec<&Jwk> = match &header.kid {
        Some(kid) => match set.find(kid) {
            Some(k) => vec![k],
            None => return Err(Refused::UnknownKey),
        },
        None => set.keys.iter().collect(),
    };
    let mut validation = Validation::new(alg);
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.validate_aud = false;
    validation.required_spec_claims.clear();
    candidates
        .into_iter()
        .filter(|k| fits(k, alg))
        .filter(|k| {
            k.common
                .public_key_use
                .as_ref()
                .is_none_or(|u| *u == jsonwebtoken::jwk::PublicKeyUse::Signature)
        })
        .find_map(|k| {
            let key = DecodingKey::from_jwk(k).ok()?;
            jsonwebtoken::decode::<T>(jws, &key, &validation).ok()
        })
        .map(|d| d.claims)
        .ok_or(Invalid(
            "the client assertion's signature does not verify with the client's keys",
        ))
}

fn check_claims(
    c: &Claims,
    client_id: &str,
    audience: Audience<'_>,
    now: Timestamp,
) -> Result<Verified, Refused> {
    use Refused::Invalid;
    if c.iss.as_deref() != Some(client_id) || c.sub.as_deref() != Some(client_id) {
        return Err(Invalid(
            "the client assertion's iss and sub must be the client_id",
        ));
    }
    let audiences = audience.accepted;
    let aud_ok = match &c.aud {
        Some(Value::String(a)) => audiences.contains(&a.as_str()),
        Some(Value::Array(list)) if audience.list => list
            .iter()
            .any(|a| a.as_str().is_some_and(|a| audiences.contains(&a))),
        _ => false,
    };
    if !aud_ok {
        return Err(Invalid(
            "the client assertion's aud must be the issuer identifier",
        ));
    }
    let t = now.secs();
    match c.exp {
        Some(exp) if exp <= t => return Err(Invalid("the client assertion has expired")),
        Some(exp) if exp > t + MAX_LIFETIME_SECS => {
            return Err(Invalid(
                "the client assertion's exp is more than 5 minutes ahead",
            ))
        }
        Some(_) => {}
        None => return Err(Invalid("the client assertion has no exp")),
    }
    if c.iat.is_some_and(|i| i > t + MAX_SKEW_SECS) || c.nbf.is_some_and(|n| n > t + MAX_SKEW_SECS)
    {
        return Err(Invalid("the client assertion is not valid yet"));
    }
    match &c.jti {
        Some(j) if !j.is_empty() && j.len() <= 256 && !j.chars().any(char::is_control) => {
            Ok(Verified {
                jti: j.clone(),
                exp: c.exp.unwrap_or(t),
            })
        }
        _ => Err(Invalid(
            "the client assertion needs a jti (1 to 256 characters)",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{EncodingKey, Header};

    const ID: &str = "bank";
    const ISS: &str = "https://id.example/realms/r";

    fn es256() -> (EncodingKey, Value) {
        use aws_lc_rs::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
        let pair = EcdsaKeyPair::generate(&ECDSA_P256_SHA256_FIXED_SIGNING).unwrap();
        let pkcs8 = pair.to_pkcs8v1().unwrap();
        let point = pair.public_key().as_ref().to_vec();
        let b =
            |s: &[u8]| base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, s);
        let jwk = serde_json::json!({"kty": "EC", "crv": "P-256", "kid": "k1", "use": "sig",
            "x": b(&point[1..33]), "y": b(&point[33..])});
        (EncodingKey::from_ec_der(pkcs8.as_ref()), jwk)
    }

    fn sign(key: &EncodingKey, kid: Option<&str>, claims: Value) -> String {
        let mut h = Header::new(Algorithm::ES256);
        h.kid = kid.map(str::to_owned);
        jsonwebtoken::encode(&h, &claims, key).unwrap()
    }

    fn good(now: i64) -> Value {
        serde_json::json!({"iss": ID, "sub": ID, "aud": ISS, "exp": now + 60, "iat": now, "jti": "j1"})
    }

    #[test]
    fn an_assertion_verifies_once_every_claim_is_right() {
        let (key, jwk) = es256();
        let set_json = serde_json::json!({ "keys": [jwk] });
        let set = parse_jwks(&set_json).unwrap();
        let keys = ClientKeys::new(Some(set_json), None, None).unwrap();
        let now = Timestamp::from_secs(1_800_000_000);
        let t = now.secs();
        let v = |claims: Value, kid: Option<&str>, auds: &[&str]| {
            let audience = Audience {
                accepted: auds,
                list: true,
            };
            verify(&sign(&key, kid, claims), ID, &keys, &set, audience, now)
        };
        assert_eq!(
            v(good(t), Some("k1"), &[ISS]),
            Ok(Verified {
                jti: "j1".into(),
                exp: t + 60
            })
        );
        assert!(v(good(t), None, &[ISS]).is_ok(), "no kid: each key tried");
        assert_eq!(v(good(t), Some("k2"), &[ISS]), Err(Refused::UnknownKey));
        let mut list = good(t);
        list["aud"] = serde_json::json!(["x", ISS]);
        assert!(
            v(list.clone(), Some("k1"), &[ISS]).is_ok(),
            "aud a list with the issuer"
        );
        let string_only = Audience {
            accepted: &[ISS],
            list: false,
        };
        assert!(
            matches!(
                verify(
                    &sign(&key, Some("k1"), list),
                    ID,
                    &keys,
                    &set,
                    string_only,
                    now
                ),
                Err(Refused::Invalid(_))
            ),
            "a list where only a string will do"
        );
        let mut bad = Vec::new();
        for (k, val) in [
            ("aud", serde_json::json!("https://id.example/token")),
            ("iss", serde_json::json!("other")),
            ("sub", serde_json::json!("other")),
            ("exp", serde_json::json!(t)),
            ("exp", serde_json::json!(t + 301)),
            ("exp", Value::Null),
            ("iat", serde_json::json!(t + 11)),
            ("nbf", serde_json::json!(t + 11)),
            ("jti", Value::Null),
            ("jti", serde_json::json!("")),
        ] {
            let mut c = good(t);
            c[k] = val.clone();
            bad.push((k, val.clone(), v(c, Some("k1"), &[ISS])));
        }
        for (k, val, r) in bad {
            assert!(matches!(r, Err(Refused::Invalid(_))), "{k}={val}: {r:?}");
        }
        let mut skew = good(t);
        skew["iat"] = serde_json::json!(t + 10);
        assert!(v(skew, Some("k1"), &[ISS]).is_ok(), "10 s of skew");
        // Another key, same kid: the signature fails.
        let (other, _) = es256();
        let forged = sign(&other, Some("k1"), good(t));
        assert!(matches!(
            verify(&forged, ID, &keys, &set, string_only, now),
            Err(Refused::Invalid(_))
        ));
        // An algorithm the client did not register.
        let only_ps = ClientKeys {
            alg: Some("PS256".into()),
            ..keys.clone()
        };
        assert!(matches!(
            verify(
                &sign(&key, Some("k1"), good(t)),
                ID,
                &only_ps,
                &set,
                string_only,
                now
            ),
            Err(Refused::Invalid(_))
        ));
        assert_eq!(
            claimed_client(&sign(&key, None, good(t))).as_deref(),
            Some(ID)
        );
    }

    fn hs(alg: &str, secret: &[u8], claims: &Value) -> String {
        use aws_lc_rs::hmac;
        let b =
            |s: &[u8]| base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, s);
        let input = format!(
            "{}.{}",
            b(serde_json::json!({"alg": alg, "typ": "JWT"})
                .to_string()
                .as_bytes()),
            b(claims.to_string().as_bytes())
        );
        let key_alg = match alg {
            "HS384" => hmac::HMAC_SHA384,
            "HS512" => hmac::HMAC_SHA512,
            _ => hmac::HMAC_SHA256,
        };
        let tag = hmac::sign(&hmac::Key::new(key_alg, secret), input.as_bytes());
        format!("{input}.{}", b(tag.as_ref()))
    }

    #[test]
    fn a_client_secret_jwt_verifies_with_its_secret_only() {
        let now = Timestamp::from_secs(1_800_000_000);
        let t = now.secs();
        let aud = Audience {
            accepted: &[ISS],
            list: true,
        };
        let v = |jwt: &str, only: Option<&str>| verify_hmac(jwt, ID, b"the-secret", only, aud, now);
        for alg in HMAC_ALGS {
            assert_eq!(
                v(&hs(alg, b"the-secret", &good(t)), None),
                Ok(Verified {
                    jti: "j1".into(),
                    exp: t + 60
                }),
                "{alg}"
            );
        }
        let refused = |r: Result<Verified, Refused>| matches!(r, Err(Refused::Invalid(_)));
        assert!(
            refused(v(&hs("HS256", b"another", &good(t)), None)),
            "wrong secret"
        );
        assert!(
            refused(v(&hs("HS512", b"the-secret", &good(t)), Some("HS256"))),
            "not its alg"
        );
        // alg none, and an RS256 header over an HMAC keyed by the secret (alg confusion).
        let none = hs("HS256", b"the-secret", &good(t));
        let body = none.split('.').nth(1).unwrap();
        assert!(refused(v(&format!("eyJhbGciOiJub25lIn0.{body}."), None)));
        let rs = hs("RS256", b"the-secret", &good(t));
        assert!(refused(v(&rs, None)));
        for (k, val) in [
            ("exp", serde_json::json!(t - 1)),
            ("exp", serde_json::json!(t + 301)),
            ("aud", serde_json::json!("https://elsewhere.example")),
            ("iss", serde_json::json!("other")),
            ("iat", serde_json::json!(t + 11)),
            ("jti", Value::Null),
        ] {
            let mut c = good(t);
            c[k] = val.clone();
            assert!(
                refused(v(&hs("HS256", b"the-secret", &c), None)),
                "{k}={val}"
            );
        }
        assert!(SecretJwt::new(Some("RS256".into())).is_err());
        assert!(SecretJwt::new(Some("HS384".into())).is_ok());
    }

    #[test]
    fn registration_refuses_private_symmetric_and_odd_keys() {
        for bad in [
            serde_json::json!({"keys": []}),
            serde_json::json!({"keys": [{"kty": "oct", "k": "AAAA"}]}),
            serde_json::json!({"keys": [{"kty": "EC", "crv": "P-256", "x": "a", "y": "b", "d": "c"}]}),
            serde_json::json!([]),
        ] {
            assert!(parse_jwks(&bad).is_err(), "{bad}");
        }
        assert!(ClientKeys::new(None, None, None).is_err());
        assert!(ClientKeys::new(None, Some("http://rp.example/jwks".into()), None).is_err());
        assert!(ClientKeys::new(
            None,
            Some("https://rp.example/jwks".into()),
            Some("HS256".into())
        )
        .is_err());
        assert!(ClientKeys::new(None, Some("http://127.0.0.1:9/jwks".into()), None).is_ok());
    }
}
