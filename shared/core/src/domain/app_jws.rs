//! The app's signed requests (app protocol, Keys): compact JWS, ES256 with the identity's
//! P-256 device key, with `typ`, `aud` = issuer, `iat`, `exp` (at most 5 minutes after `iat`)
//! and a `jti` the caller records so it is refused the second time.

use aws_lc_rs::signature::{ParsedPublicKey, ECDSA_P256_SHA256_FIXED};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::clock::Timestamp;

/// How far in the future `iat` may be (clock skew between phone and server).
pub const MAX_SKEW_SECS: i64 = 60;
/// The longest a signed request may live.
pub const MAX_LIFETIME_SECS: i64 = 300;

/// Why a signed request was refused (the text goes to the app).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AppJwsError {
    /// Not three base64url parts of JSON, or too long.
    #[error("not a compact JWS")]
    Malformed,
    /// The header's `alg` is not ES256.
    #[error("alg must be ES256")]
    Alg,
    /// The header's `typ` is not the request's.
    #[error("wrong typ")]
    Typ,
    /// The signature does not verify with the identity's key.
    #[error("bad signature")]
    Signature,
    /// `aud` is not this issuer.
    #[error("aud must be the issuer")]
    Audience,
    /// `iat` or `exp` missing, or outside the allowed window.
    #[error("expired or not yet valid (exp must be within 5 minutes of iat)")]
    Time,
    /// `jti` missing, empty, too long or with control characters.
    #[error("jti is required (1 to 128 characters)")]
    Jti,
}

/// A JWS whose structure parsed; not yet verified.
#[derive(Debug, Clone)]
pub struct Unverified {
    signing_input: String,
    signature: Vec<u8>,
    /// The payload's claims.
    pub claims: Map<String, Value>,
}

#[derive(Deserialize)]
struct Header {
    alg: String,
    typ: Option<String>,
}

/// The three dot-separated parts of a compact serialization of at most `max` bytes.
fn compact_parts(token: &str, max: usize) -> Result<[&str; 3], AppJwsError> {
    if token.len() > max {
        return Err(AppJwsError::Malformed);
    }
    let mut parts = token.split('.');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(h), Some(p), Some(s), None) => Ok([h, p, s]),
        _ => Err(AppJwsError::Malformed),
    }
}

/// base64url without padding, as JWS encodes each part.
fn decode(part: &str) -> Result<Vec<u8>, AppJwsError> {
    URL_SAFE_NO_PAD
        .decode(part)
        .map_err(|_| AppJwsError::Malformed)
}

/// Parses the JWS and checks its header (`alg` ES256, `typ`).
pub fn parse(token: &str, typ: &str) -> Result<Unverified, AppJwsError> {
    let [h, p, s] = compact_parts(token, 8192)?;
    let header: Header = serde_json::from_slice(&decode(h)?).map_err(|_| AppJwsError::Malformed)?;
    if header.alg != "ES256" {
        return Err(AppJwsError::Alg);
    }
    if header.typ.as_deref() != Some(typ) {
        return Err(AppJwsError::Typ);
    }
    let claims: Map<String, Value> =
        serde_json::from_slice(&decode(p)?).map_err(|_| AppJwsError::Malformed)?;
    let signature = decode(s)?;
    Ok(Unverified {
        signing_input: format!("{h}.{p}"),
        signature,
        claims,
    })
}

/// What a verified request carries besides its own claims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// The payload's claims, read into a request's struct by `protocol::app_request::read`.
    pub claims: Map<String, Value>,
    /// The request's `jti`, for the caller to spend.
    pub jti: String,
    /// The request's `exp`: how long its `jti` must be remembered.
    pub exp: i64,
}

impl Unverified {
    /// A string claim.
    pub fn str_claim(&self, name: &str) -> Option<&str> {
        self.claims.get(name).and_then(Value::as_str)
    }

    /// Verifies the signature with the P-256 SubjectPublicKeyInfo `spki`, then `aud`, the
    /// times and `jti`.
    pub fn verify(
        self,
        spki: &[u8],
        issuer: &str,
        now: Timestamp,
    ) -> Result<Verified, AppJwsError> {
        let key = ParsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, spki)
            .map_err(|_| AppJwsError::Signature)?;
        key.verify_sig(self.signing_input.as_bytes(), &self.signature)
            .map_err(|_| AppJwsError::Signature)?;
        check_claims(self.claims, issuer, now)
    }
}

/// The claims every signed request carries, checked: `aud` the issuer, the times, `jti`
/// (after its signature, ES256 or a passkey's assertion, verified).
pub fn check_claims(
    claims: Map<String, Value>,
    issuer: &str,
    now: Timestamp,
) -> Result<Verified, AppJwsError> {
    let this = Unverified {
        signing_input: String::new(),
        signature: Vec::new(),
        claims,
    };
    this.checked_claims(issuer, now)
}

impl Unverified {
    fn checked_claims(self, issuer: &str, now: Timestamp) -> Result<Verified, AppJwsError> {
        if self.str_claim("aud") != Some(issuer) {
            return Err(AppJwsError::Audience);
        }
        let int = |n: &str| self.claims.get(n).and_then(Value::as_i64);
        let (Some(iat), Some(exp)) = (int("iat"), int("exp")) else {
            return Err(AppJwsError::Time);
        };
        if !lifetime_ok(iat, exp, now.secs()) {
            return Err(AppJwsError::Time);
        }
        let jti = match self.str_claim("jti") {
            Some(j) if (1..=128).contains(&j.len()) && !j.chars().any(char::is_control) => {
                j.to_owned()
            }
            _ => return Err(AppJwsError::Jti),
        };
        Ok(Verified {
            claims: self.claims,
            jti,
            exp,
        })
    }
}

/// `iat` not in the future beyond the skew and not older than the longest lifetime; `exp`
/// after `now` and at most [`MAX_LIFETIME_SECS`] after `iat`. Checked arithmetic: claims are
/// outside input and may be any `i64`.
fn lifetime_ok(iat: i64, exp: i64, now: i64) -> bool {
    let (Some(latest_iat), Some(earliest_iat)) = (
        now.checked_add(MAX_SKEW_SECS),
        now.checked_sub(MAX_LIFETIME_SECS),
    ) else {
        return false;
    };
    exp > now
        && (earliest_iat..=latest_iat).contains(&iat)
        && exp
            .checked_sub(iat)
            .is_some_and(|life| (0..=MAX_LIFETIME_SECS).contains(&life))
}

/// A signed app request: ES256 with the device key (a compact JWS), or a passkey's
/// WebAuthn assertion or registration over the same header and claims (`alg` `webauthn`,
/// docs/app-protocol.md, "Passkeys").
#[derive(Debug, Clone)]
pub enum Signed {
    /// An ES256 compact JWS signed with the device key.
    Es256(Unverified),
    /// A passkey's WebAuthn assertion or registration over the header and claims.
    Passkey(PasskeySigned),
}

/// A request signed by a passkey, parsed; not yet verified.
#[derive(Debug, Clone)]
pub struct PasskeySigned {
    /// The header's `kid`: the credential id (base64url) of an assertion.
    pub credential_id: Option<String>,
    /// What the WebAuthn challenge must be: SHA-256 of `base64url(header).base64url(claims)`.
    pub challenge: Vec<u8>,
    /// The request's claims (checked against the WebAuthn challenge before use).
    pub claims: Map<String, Value>,
    /// The WebAuthn response that signs them.
    pub proof: PasskeyProof,
}

/// The WebAuthn response a passkey-signed request carries (base64url fields, decoded).
#[derive(Debug, Clone)]
pub enum PasskeyProof {
    /// An assertion by a registered passkey (every request but sign-up and adding a passkey).
    Assertion(crate::domain::passkey::Assertion),
    /// A new credential's registration (sign-up with a passkey, adding a passkey).
    Registration {
        /// The browser's `clientDataJSON`, decoded.
        client_data_json: Vec<u8>,
        /// The authenticator's `attestationObject` (CBOR), decoded.
        attestation_object: Vec<u8>,
        /// The transports the browser reported (`internal`, `hybrid`, ...).
        transports: Vec<String>,
    },
}

impl PasskeySigned {
    /// The claim `name` if it is a string.
    pub fn str_claim(&self, name: &str) -> Option<&str> {
        self.claims.get(name).and_then(Value::as_str)
    }
}

impl Signed {
    /// The claim `name` if it is a string, whichever way the request is signed.
    pub fn str_claim(&self, name: &str) -> Option<&str> {
        match self {
            Self::Es256(u) => u.str_claim(name),
            Self::Passkey(p) => p.str_claim(name),
        }
    }
}

#[derive(Deserialize)]
struct PasskeyHeader {
    typ: Option<String>,
    kid: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProofFields {
    #[serde(rename = "clientDataJSON")]
    client_data_json: String,
    authenticator_data: Option<String>,
    signature: Option<String>,
    attestation_object: Option<String>,
    #[serde(default)]
    transports: Vec<String>,
}

/// Parses a signed request of type `typ`: an ES256 JWS ([`parse`]) or a passkey-signed one.
pub fn parse_signed(token: &str, typ: &str) -> Result<Signed, AppJwsError> {
    let [h, p, s] = compact_parts(token, 16384)?;
    let header: Value = serde_json::from_slice(&decode(h)?).map_err(|_| AppJwsError::Malformed)?;
    if header.get("alg").and_then(Value::as_str) != Some("webauthn") {
        return parse(token, typ).map(Signed::Es256);
    }
    let header: PasskeyHeader =
        serde_json::from_value(header).map_err(|_| AppJwsError::Malformed)?;
    if header.typ.as_deref() != Some(typ) {
        return Err(AppJwsError::Typ);
    }
    let claims: Map<String, Value> =
        serde_json::from_slice(&decode(p)?).map_err(|_| AppJwsError::Malformed)?;
    let f: ProofFields = serde_json::from_slice(&decode(s)?).map_err(|_| AppJwsError::Malformed)?;
    let b = |x: &str| decode(x.trim_end_matches('='));
    let proof = match (f.authenticator_data, f.signature, f.attestation_object) {
        (Some(a), Some(sig), None) => PasskeyProof::Assertion(crate::domain::passkey::Assertion {
            authenticator_data: b(&a)?,
            client_data_json: b(&f.client_data_json)?,
            signature: b(&sig)?,
        }),
        (None, None, Some(att)) => PasskeyProof::Registration {
            client_data_json: b(&f.client_data_json)?,
            attestation_object: b(&att)?,
            transports: f.transports,
        },
        _ => return Err(AppJwsError::Malformed),
    };
    let challenge =
        aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, format!("{h}.{p}").as_bytes())
            .as_ref()
            .to_vec();
    Ok(Signed::Passkey(PasskeySigned {
        credential_id: header.kid,
        challenge,
        claims,
        proof,
    }))
}

/// Builds a passkey-signed request (the tests' and tools' counterpart of [`parse_signed`]):
/// `sign` gets the WebAuthn challenge and returns the proof's JSON fields.
pub fn passkey_signed(
    typ: &str,
    kid: Option<&str>,
    claims: &Value,
    sign: impl FnOnce(&[u8]) -> Value,
) -> String {
    let mut header = serde_json::json!({ "alg": "webauthn", "typ": typ });
    if let Some(k) = kid {
        header["kid"] = k.into();
    }
    let h = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&header).unwrap_or_default());
    let p = URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims).unwrap_or_default());
    let challenge =
        aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, format!("{h}.{p}").as_bytes());
    let proof = sign(challenge.as_ref());
    let s = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&proof).unwrap_or_default());
    format!("{h}.{p}.{s}")
}

/// Signs `claims` as the app does (the reference app and tests use this).
pub fn sign(
    key: &aws_lc_rs::signature::EcdsaKeyPair,
    typ: &str,
    claims: &Value,
) -> Result<String, AppJwsError> {
    let header = serde_json::json!({ "alg": "ES256", "typ": typ });
    let h =
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(&header).map_err(|_| AppJwsError::Malformed)?);
    let p = URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims).map_err(|_| AppJwsError::Malformed)?);
    let input = format!("{h}.{p}");
    let sig = key
        .sign(&aws_lc_rs::rand::SystemRandom::new(), input.as_bytes())
        .map_err(|_| AppJwsError::Signature)?;
    Ok(format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig.as_ref())))
}

#[cfg(test)]
mod lifetime_tests {
    use super::*;

    #[test]
    fn extreme_values_never_pass_or_panic() {
        let now = 1_800_000_000;
        for iat in [i64::MIN, i64::MIN + 1, -1, 0, now - 301, now + 61, i64::MAX] {
            for exp in [i64::MIN, -1, 0, now, now + 1, now + 300, i64::MAX] {
                let ok = lifetime_ok(iat, exp, now);
                let expected = (now - 300..=now + 60).contains(&iat)
                    && exp > now
                    && exp >= iat
                    && exp - iat <= 300;
                assert_eq!(ok, expected, "iat {iat} exp {exp}");
            }
        }
        assert!(!lifetime_ok(0, 1, i64::MAX));
        assert!(!lifetime_ok(0, 1, i64::MIN));
        assert!(lifetime_ok(now, now + 300, now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_lc_rs::encoding::AsDer;
    use aws_lc_rs::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
    use serde_json::json;

    const ISS: &str = "http://127.0.0.1:8080/realms/scanid";

    fn key() -> (EcdsaKeyPair, Vec<u8>) {
        let k = EcdsaKeyPair::generate(&ECDSA_P256_SHA256_FIXED_SIGNING).unwrap();
        let spki = k.public_key().as_der().unwrap().as_ref().to_vec();
        (k, spki)
    }

    #[test]
    fn verifies_and_refuses_every_bad_case() {
        let now = Timestamp::from_secs(1_800_000_000);
        let t = now.secs();
        let (k, spki) = key();
        let (_, other) = key();
        assert_eq!(spki.len(), 91);
        let good = json!({ "aud": ISS, "iat": t, "exp": t + 120, "jti": "j1", "x": 1 });
        let tok = sign(&k, "approval+jwt", &good).unwrap();
        let v = parse(&tok, "approval+jwt")
            .unwrap()
            .verify(&spki, ISS, now)
            .unwrap();
        assert_eq!(v.jti, "j1");
        assert_eq!(v.claims["x"], 1);

        assert_eq!(
            parse(&tok, "registration+jwt").unwrap_err(),
            AppJwsError::Typ
        );
        assert_eq!(
            parse(&tok, "approval+jwt")
                .unwrap()
                .verify(&other, ISS, now)
                .unwrap_err(),
            AppJwsError::Signature
        );
        assert_eq!(
            parse("a.b", "approval+jwt").unwrap_err(),
            AppJwsError::Malformed
        );
        assert_eq!(
            parse("", "approval+jwt").unwrap_err(),
            AppJwsError::Malformed
        );
        let cases = [
            (
                json!({ "aud": "https://evil", "iat": t, "exp": t + 60, "jti": "j" }),
                AppJwsError::Audience,
            ),
            (
                json!({ "aud": ISS, "iat": t - 400, "exp": t - 1, "jti": "j" }),
                AppJwsError::Time,
            ),
            (
                json!({ "aud": ISS, "iat": t, "exp": t + 301, "jti": "j" }),
                AppJwsError::Time,
            ),
            (
                json!({ "aud": ISS, "iat": t + 120, "exp": t + 200, "jti": "j" }),
                AppJwsError::Time,
            ),
            (
                json!({ "aud": ISS, "exp": t + 60, "jti": "j" }),
                AppJwsError::Time,
            ),
            // exp - iat would overflow (it wrapped to a small number in release builds).
            (
                json!({ "aud": ISS, "iat": i64::MIN, "exp": i64::MAX, "jti": "j" }),
                AppJwsError::Time,
            ),
            (
                json!({ "aud": ISS, "iat": i64::MIN, "exp": t + 60, "jti": "j" }),
                AppJwsError::Time,
            ),
            // iat older than a request may live, exp still in the future.
            (
                json!({ "aud": ISS, "iat": t - 1000, "exp": t + 60, "jti": "j" }),
                AppJwsError::Time,
            ),
            (
                json!({ "aud": ISS, "iat": t, "exp": t + 60 }),
                AppJwsError::Jti,
            ),
            (
                json!({ "aud": ISS, "iat": t, "exp": t + 60, "jti": "" }),
                AppJwsError::Jti,
            ),
        ];
        for (claims, want) in cases {
            let tok = sign(&k, "approval+jwt", &claims).unwrap();
            assert_eq!(
                parse(&tok, "approval+jwt")
                    .unwrap()
                    .verify(&spki, ISS, now)
                    .unwrap_err(),
                want,
                "{claims}"
            );
        }
        // A tampered payload fails the signature.
        let tok = sign(&k, "approval+jwt", &good).unwrap();
        let (h, rest) = tok.split_once('.').unwrap();
        let (_, s) = rest.split_once('.').unwrap();
        let mut changed = good.clone();
        changed["x"] = json!(2);
        let forged = format!(
            "{h}.{}.{s}",
            URL_SAFE_NO_PAD.encode(serde_json::to_vec(&changed).unwrap())
        );
        assert_eq!(
            parse(&forged, "approval+jwt")
                .unwrap()
                .verify(&spki, ISS, now)
                .unwrap_err(),
            AppJwsError::Signature
        );
        // alg none.
        let none = format!(
            "{}.{}.",
            URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"approval+jwt"}"#),
            URL_SAFE_NO_PAD.encode(good.to_string())
        );
        assert_eq!(parse(&none, "approval+jwt").unwrap_err(), AppJwsError::Alg);
    }
}
