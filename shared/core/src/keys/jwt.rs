//! Compact JWS/JWT encoding through a [`Signer`], and verification against the [`Keyring`].
//!
//! Verification checks the signature with the key named by `kid` and only with that key's
//! algorithm (no `none`, no algorithm confusion), then `exp` and `iss` against the injected
//! clock and the configured issuer.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{Keyring, SignError, Signer};
use crate::clock::Timestamp;

/// Encodes and signs `claims` as a compact JWS with header `{alg, kid, typ}`.
pub async fn encode<T: Serialize + ?Sized>(
    signer: &dyn Signer,
    typ: &str,
    claims: &T,
) -> Result<String, SignError> {
    // The fields in the order a JSON object's keys were sorted in (no map is built).
    #[derive(Serialize)]
    struct Header<'a> {
        alg: &'a str,
        kid: &'a str,
        typ: &'a str,
    }
    let header = Header {
        alg: signer.alg().as_str(),
        kid: signer.kid(),
        typ,
    };
    let header = serde_json::to_vec(&header).map_err(|e| SignError::Key(Box::new(e)))?;
    let payload = serde_json::to_vec(claims).map_err(|e| SignError::Key(e.to_string().into()))?;
    let mut token = String::with_capacity(header.len() * 4 / 3 + payload.len() * 4 / 3 + 400);
    URL_SAFE_NO_PAD.encode_string(&header, &mut token);
    token.push('.');
    URL_SAFE_NO_PAD.encode_string(&payload, &mut token);
    let sig = signer.sign(token.as_bytes()).await?;
    token.push('.');
    URL_SAFE_NO_PAD.encode_string(&sig, &mut token);
    Ok(token)
}

/// Why a token did not verify. Callers usually answer all of them the same way.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// Not a JWT, or its claims are not what was expected.
    #[error("malformed token")]
    Malformed,
    /// Its `kid` names no key of the key set.
    #[error("unknown key")]
    UnknownKey,
    /// The signature does not verify.
    #[error("bad signature")]
    BadSignature,
    /// Past its `exp`.
    #[error("expired")]
    Expired,
    /// Its `iss` is not this issuer.
    #[error("wrong issuer")]
    WrongIssuer,
}

#[derive(serde::Deserialize)]
struct Registered {
    exp: Option<i64>,
    iss: Option<String>,
}

/// Verifies `token` and returns its claims.
pub fn verify<T: DeserializeOwned>(
    keys: &Keyring,
    token: &str,
    issuer: &str,
    now: Timestamp,
) -> Result<T, VerifyError> {
    verify_inner(keys, token, issuer, Some(now))
}

/// Like [`verify`] but accepts an expired token (an `id_token_hint` at logout may be expired,
/// OIDC RP-Initiated Logout §2).
pub fn verify_ignoring_expiry<T: DeserializeOwned>(
    keys: &Keyring,
    token: &str,
    issuer: &str,
) -> Result<T, VerifyError> {
    verify_inner(keys, token, issuer, None)
}

fn verify_inner<T: DeserializeOwned>(
    keys: &Keyring,
    token: &str,
    issuer: &str,
    now: Option<Timestamp>,
) -> Result<T, VerifyError> {
    if token.len() > 16 * 1024 {
        return Err(VerifyError::Malformed);
    }
    let header = jsonwebtoken::decode_header(token).map_err(|_| VerifyError::Malformed)?;
    let kid = header.kid.ok_or(VerifyError::UnknownKey)?;
    let vk = keys.verifying_key(&kid).ok_or(VerifyError::UnknownKey)?;
    let mut v = jsonwebtoken::Validation::new(super::jsonwebtoken_alg(vk.alg));
    v.validate_exp = false;
    v.validate_nbf = false;
    v.validate_aud = false;
    v.required_spec_claims.clear();
    let data =
        jsonwebtoken::decode::<serde_json::Value>(token, &vk.decoding, &v).map_err(|e| match e
            .kind()
        {
            jsonwebtoken::errors::ErrorKind::InvalidSignature
            | jsonwebtoken::errors::ErrorKind::InvalidAlgorithm => VerifyError::BadSignature,
            _ => VerifyError::Malformed,
        })?;
    let reg: Registered =
        serde_json::from_value(data.claims.clone()).map_err(|_| VerifyError::Malformed)?;
    match (reg.exp, now) {
        (Some(exp), Some(now)) if now.secs() < exp => {}
        (Some(_), None) => {}
        _ => return Err(VerifyError::Expired),
    }
    if reg.iss.as_deref() != Some(issuer) {
        return Err(VerifyError::WrongIssuer);
    }
    serde_json::from_value(data.claims).map_err(|_| VerifyError::Malformed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::local::KeySet;
    use crate::keys::Alg;

    const ISS: &str = "http://127.0.0.1:8080/realms/scanid";

    #[tokio::test]
    async fn round_trip_every_alg_and_every_failure() {
        let dir = tempfile::tempdir().unwrap();
        let now = Timestamp::from_secs(1_800_000_000);
        let mut set = KeySet::load_or_create(dir.path(), now).unwrap();
        for alg in [Alg::PS256, Alg::EdDSA] {
            let kid = set.add_next(alg, now).unwrap().kid.clone();
            set.activate(&kid, now).unwrap();
        }
        let ring = set.keyring().unwrap();
        assert_eq!(ring.algs().len(), 4);
        for alg in Alg::ALL {
            let signer = ring.signer(alg).unwrap();
            let claims = serde_json::json!({ "iss": ISS, "sub": "s", "exp": now.secs() + 60 });
            let t = encode(signer.as_ref(), "JWT", &claims).await.unwrap();
            let header = URL_SAFE_NO_PAD
                .decode(t.split('.').next().unwrap())
                .unwrap();
            assert_eq!(
                String::from_utf8(header).unwrap(),
                format!(
                    r#"{{"alg":"{}","kid":"{}","typ":"JWT"}}"#,
                    alg.as_str(),
                    signer.kid()
                ),
                "the header's bytes as they always were"
            );
            let got: serde_json::Value = verify(&ring, &t, ISS, now).unwrap();
            assert_eq!(got, claims);
            assert_eq!(
                verify::<serde_json::Value>(&ring, &t, ISS, now.plus_secs(60)),
                Err(VerifyError::Expired)
            );
            assert_eq!(
                verify::<serde_json::Value>(&ring, &t, "https://evil", now),
                Err(VerifyError::WrongIssuer)
            );
            let mut tampered = t.clone();
            tampered.replace_range(
                t.len() - 5..t.len() - 4,
                if &t[t.len() - 5..t.len() - 4] == "A" {
                    "B"
                } else {
                    "A"
                },
            );
            assert_eq!(
                verify::<serde_json::Value>(&ring, &tampered, ISS, now),
                Err(VerifyError::BadSignature)
            );
        }
        assert_eq!(
            verify::<serde_json::Value>(&ring, "a.b", ISS, now),
            Err(VerifyError::Malformed)
        );
        assert_eq!(
            verify::<serde_json::Value>(&ring, "", ISS, now),
            Err(VerifyError::Malformed)
        );
        // alg none with a known kid is refused.
        let kid = ring.signer(Alg::RS256).unwrap().kid().to_owned();
        let h = URL_SAFE_NO_PAD.encode(format!(r#"{{"alg":"none","kid":"{kid}"}}"#));
        let p = URL_SAFE_NO_PAD.encode(format!(r#"{{"iss":"{ISS}","exp":{}}}"#, now.secs() + 60));
        assert!(verify::<serde_json::Value>(&ring, &format!("{h}.{p}."), ISS, now).is_err());
        // An ES256 header on the RS256 key is refused (algorithm confusion).
        let h = URL_SAFE_NO_PAD.encode(format!(r#"{{"alg":"ES256","kid":"{kid}"}}"#));
        assert!(verify::<serde_json::Value>(&ring, &format!("{h}.{p}.AAAA"), ISS, now).is_err());
    }
}
