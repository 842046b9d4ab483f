//! Passkeys (issue 26): WebAuthn credentials an identity signs its app requests with, and the
//! checks of a registration (`navigator.credentials.create`, attestation `none`) and of an
//! assertion (`navigator.credentials.get`).
//!
//! Pure Rust: CBOR with `ciborium`, signatures with `aws-lc-rs` (already what the JWS and
//! signing keys use); no OpenSSL, so the Lambda functions still cross-build for arm64
//! (docs/security.md, "Passkeys"). ES256 (COSE -7) and RS256 (COSE -257) keys are accepted.
//!
//! Every check refuses with its own [`PasskeyError`]: the client data's `type`, `challenge`,
//! `origin` (the issuer's origin, never cross-origin), the authenticator data's RP ID hash (the
//! RP ID is the issuer's host), the user-present and user-verified flags (UV is required), the
//! signature, the signature counter (it must grow when the authenticator keeps one; 0 and 0
//! is fine), and that the credential belongs to the identity the request names.

use aws_lc_rs::digest::{digest, SHA256};
use aws_lc_rs::signature::{
    ParsedPublicKey, RsaPublicKeyComponents, UnparsedPublicKey, ECDSA_P256_SHA256_ASN1,
    RSA_PKCS1_2048_8192_SHA256,
};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ciborium::value::Value as Cbor;
use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;

/// COSE algorithm ES256 (ECDSA P-256 with SHA-256).
pub const COSE_ES256: i64 = -7;
/// COSE algorithm RS256 (RSASSA-PKCS1-v1_5 with SHA-256).
pub const COSE_RS256: i64 = -257;
/// How long a server-issued WebAuthn challenge lives.
pub const CHALLENGE_TTL_SECS: i64 = 300;
/// The most passkeys one identity may hold.
pub const MAX_PASSKEYS: usize = 10;
/// The longest credential id accepted (WebAuthn allows up to 1023 bytes).
pub const MAX_CREDENTIAL_ID_BYTES: usize = 1023;

const FLAG_UP: u8 = 0x01;
const FLAG_UV: u8 = 0x04;
const FLAG_AT: u8 = 0x40;

/// Why a registration or an assertion was refused (the text goes to the app).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PasskeyError {
    #[error("malformed WebAuthn data: {0}")]
    /// The bytes do not parse as WebAuthn says they must (what is wrong, named).
    Malformed(&'static str),
    #[error("clientDataJSON type must be {0}")]
    /// `clientDataJSON.type` is not the ceremony's.
    Type(&'static str),
    #[error("clientDataJSON challenge is not this request's")]
    /// The signed challenge is not the one this request commits to.
    Challenge,
    #[error("clientDataJSON origin is not the issuer's origin")]
    /// The origin is not exactly the issuer's, or the request was cross-origin.
    Origin,
    #[error("the credential was made or used for another RP ID")]
    /// The RP ID hash is not SHA-256 of the issuer's host.
    RpId,
    #[error("the authenticator did not test the user's presence (UP)")]
    /// The UP flag is not set.
    UserPresent,
    #[error("the authenticator did not verify the user (UV is required)")]
    /// The UV flag is not set.
    UserVerified,
    #[error("only attestation none is accepted")]
    /// The registration's attestation format is not `none`.
    Attestation,
    #[error("the credential's algorithm must be ES256 or RS256")]
    /// The credential's key is neither ES256 (P-256) nor RS256 (2048 to 8192 bits).
    Algorithm,
    #[error("bad signature")]
    /// The signature does not verify with the stored key.
    Signature,
    #[error("the signature counter did not grow: the credential may be cloned")]
    /// The counter did not grow past the stored one.
    Counter,
    #[error("this passkey does not belong to this identity")]
    /// The credential is registered to another identity.
    NotThisIdentity,
}

/// The relying party every passkey is bound to: the issuer's origin and host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelyingParty {
    /// The RP ID: the issuer's host (no port).
    pub id: String,
    /// The issuer's origin: `scheme://host[:port]`.
    pub origin: String,
}

impl RelyingParty {
    /// The relying party of `issuer` (`None` when the issuer has no host).
    pub fn for_issuer(issuer: &str) -> Option<Self> {
        let u = url::Url::parse(issuer).ok()?;
        let id = u.host_str()?.to_owned();
        let origin = u.origin().ascii_serialization();
        Some(Self { id, origin })
    }
}

/// A passkey as stored: one WebAuthn credential of one identity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Passkey {
    /// The credential id, base64url.
    pub credential_id: String,
    /// The identity it belongs to.
    pub sub: String,
    /// The COSE public key, base64url (as the authenticator data carried it).
    pub public_key: String,
    /// The COSE algorithm of `public_key`.
    pub alg: i64,
    /// The last signature counter seen (0: the authenticator keeps none).
    pub sign_count: u32,
    /// The transports the browser reported at registration (`internal`, `hybrid`, ...).
    #[serde(default)]
    pub transports: Vec<String>,
    /// A name the person chose, or one derived at registration.
    pub name: String,
    /// When it was registered.
    pub created_at: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// When it last signed a request that was accepted.
    pub last_used_at: Option<Timestamp>,
    /// Where it was last used: the request's place (city, country) or address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_used_from: Option<String>,
}

/// A credential a registration created, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCredential {
    /// The credential id the authenticator chose.
    pub credential_id: Vec<u8>,
    /// The COSE public key's bytes.
    pub public_key: Vec<u8>,
    /// Its COSE algorithm (-7 ES256, -257 RS256).
    pub alg: i64,
    /// The signature counter at registration.
    pub sign_count: u32,
}

impl NewCredential {
    /// The passkey to store for identity `sub`.
    pub fn into_passkey(
        self,
        sub: &str,
        name: &str,
        transports: Vec<String>,
        now: Timestamp,
    ) -> Passkey {
        Passkey {
            credential_id: URL_SAFE_NO_PAD.encode(&self.credential_id),
            sub: sub.to_owned(),
            public_key: URL_SAFE_NO_PAD.encode(&self.public_key),
            alg: self.alg,
            sign_count: self.sign_count,
            transports: transports
                .into_iter()
                .filter(|t| {
                    t.len() <= 32 && t.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                })
                .take(8)
                .collect(),
            name: name.to_owned(),
            created_at: now,
            last_used_at: None,
            last_used_from: None,
        }
    }
}

/// What a verified assertion says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AssertionOk {
    /// The counter to store.
    pub sign_count: u32,
    /// Always `true` (UV is required); kept for the login's record.
    pub user_verified: bool,
}

/// One assertion (`navigator.credentials.get`'s response), decoded from base64url.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assertion {
    /// The authenticator data (RP ID hash, flags, counter).
    pub authenticator_data: Vec<u8>,
    /// The browser's `clientDataJSON`.
    pub client_data_json: Vec<u8>,
    /// The signature over the authenticator data and the hash of `clientDataJSON`.
    pub signature: Vec<u8>,
}

/// The client data's fields that are checked.
#[derive(Deserialize)]
struct ClientData {
    #[serde(rename = "type")]
    kind: String,
    challenge: String,
    origin: String,
    #[serde(rename = "crossOrigin", default)]
    cross_origin: bool,
}

fn check_client_data(
    rp: &RelyingParty,
    json: &[u8],
    kind: &'static str,
    challenge: &[u8],
) -> Result<(), PasskeyError> {
    let cd: ClientData =
        serde_json::from_slice(json).map_err(|_| PasskeyError::Malformed("clientDataJSON"))?;
    if cd.kind != kind {
        return Err(PasskeyError::Type(kind));
    }
    let got = URL_SAFE_NO_PAD
        .decode(cd.challenge.trim_end_matches('='))
        .map_err(|_| PasskeyError::Challenge)?;
    if got != challenge {
        return Err(PasskeyError::Challenge);
    }
    if cd.origin != rp.origin || cd.cross_origin {
        return Err(PasskeyError::Origin);
    }
    Ok(())
}

/// The authenticator data's fixed part, checked: RP ID hash, UP, UV. Returns the flags and
/// the counter.
fn check_authenticator_data(rp: &RelyingParty, data: &[u8]) -> Result<(u8, u32), PasskeyError> {
    if data.len() < 37 {
        return Err(PasskeyError::Malformed("authenticatorData"));
    }
    let rp_hash = digest(&SHA256, rp.id.as_bytes());
    if &data[..32] != rp_hash.as_ref() {
        return Err(PasskeyError::RpId);
    }
    let flags = data[32];
    if flags & FLAG_UP == 0 {
        return Err(PasskeyError::UserPresent);
    }
    if flags & FLAG_UV == 0 {
        return Err(PasskeyError::UserVerified);
    }
    let count = u32::from_be_bytes([data[33], data[34], data[35], data[36]]);
    Ok((flags, count))
}

fn cbor_map_get<'a>(map: &'a [(Cbor, Cbor)], key: &Cbor) -> Option<&'a Cbor> {
    map.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn int_key(k: i64) -> Cbor {
    Cbor::Integer(k.into())
}

/// A COSE public key's algorithm, checked to be one accepted and to have its parts.
fn cose_alg(cose: &[u8]) -> Result<i64, PasskeyError> {
    let key = CoseKey::parse(cose)?;
    Ok(key.alg())
}

enum CoseKey {
    Es256 { point: Vec<u8> },
    Rs256 { n: Vec<u8>, e: Vec<u8> },
}

impl CoseKey {
    fn parse(cose: &[u8]) -> Result<Self, PasskeyError> {
        let v: Cbor =
            ciborium::from_reader(cose).map_err(|_| PasskeyError::Malformed("COSE key"))?;
        let Cbor::Map(m) = v else {
            return Err(PasskeyError::Malformed("COSE key"));
        };
        let int = |k: i64| -> Option<i128> {
            match cbor_map_get(&m, &int_key(k)) {
                Some(Cbor::Integer(i)) => Some(i128::from(*i)),
                _ => None,
            }
        };
        let bytes = |k: i64| -> Option<Vec<u8>> {
            match cbor_map_get(&m, &int_key(k)) {
                Some(Cbor::Bytes(b)) => Some(b.clone()),
                _ => None,
            }
        };
        match (int(1), int(3)) {
            // kty EC2, alg ES256, crv P-256.
            (Some(2), Some(-7)) => {
                let (Some(1), Some(x), Some(y)) = (int(-1), bytes(-2), bytes(-3)) else {
                    return Err(PasskeyError::Malformed("COSE EC2 key"));
                };
                if x.len() != 32 || y.len() != 32 {
                    return Err(PasskeyError::Malformed("COSE EC2 key"));
                }
                let mut point = Vec::with_capacity(65);
                point.push(4);
                point.extend_from_slice(&x);
                point.extend_from_slice(&y);
                // A point off the curve could never verify: refused when registered.
                let spki = [P256_SPKI_PREFIX.as_slice(), &point].concat();
                ParsedPublicKey::new(&ECDSA_P256_SHA256_ASN1, &spki)
                    .map_err(|_| PasskeyError::Malformed("COSE EC2 key"))?;
                Ok(Self::Es256 { point })
            }
            // kty RSA, alg RS256.
            (Some(3), Some(-257)) => {
                let (Some(n), Some(e)) = (bytes(-1), bytes(-2)) else {
                    return Err(PasskeyError::Malformed("COSE RSA key"));
                };
                if !rsa_key_ok(&n, &e) {
                    return Err(PasskeyError::Malformed("COSE RSA key"));
                }
                Ok(Self::Rs256 { n, e })
            }
            _ => Err(PasskeyError::Algorithm),
        }
    }

    fn alg(&self) -> i64 {
        match self {
            Self::Es256 { .. } => COSE_ES256,
            Self::Rs256 { .. } => COSE_RS256,
        }
    }

    fn verify(&self, message: &[u8], signature: &[u8]) -> Result<(), PasskeyError> {
        match self {
            Self::Es256 { point } => UnparsedPublicKey::new(&ECDSA_P256_SHA256_ASN1, point)
                .verify(message, signature)
                .map_err(|_| PasskeyError::Signature),
            Self::Rs256 { n, e } => RsaPublicKeyComponents { n, e }
                .verify(&RSA_PKCS1_2048_8192_SHA256, message, signature)
                .map_err(|_| PasskeyError::Signature),
        }
    }
}

/// An RSA key the verification accepts: a modulus of 2048 to 8192 bits (what
/// `RSA_PKCS1_2048_8192_SHA256` verifies with; leading zero bytes do not count), and an odd
/// public exponent from 3 to 2^32 - 1.
fn rsa_key_ok(n: &[u8], e: &[u8]) -> bool {
    fn significant(b: &[u8]) -> &[u8] {
        let start = b.iter().position(|&x| x != 0).unwrap_or(b.len());
        &b[start..]
    }
    let (n, e) = (significant(n), significant(e));
    let n_bits = match n.first() {
        Some(top) => n.len() * 8 - top.leading_zeros() as usize,
        None => 0,
    };
    let e_odd = e.last().is_some_and(|last| last & 1 == 1);
    let e_at_least_3 = e.len() > 1 || e.first().is_some_and(|&x| x >= 3);
    (2048..=8192).contains(&n_bits) && e.len() <= 4 && e_odd && e_at_least_3
}

/// The DER prefix of a P-256 SubjectPublicKeyInfo, before the 65-byte uncompressed point.
const P256_SPKI_PREFIX: [u8; 26] = [
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
    0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
];

/// The P-256 SubjectPublicKeyInfo (DER) of an ES256 COSE key; `None` for another algorithm.
/// A passkey identity publishes its first passkey's key as its `public_key`.
pub fn es256_spki(cose: &[u8]) -> Option<Vec<u8>> {
    match CoseKey::parse(cose).ok()? {
        CoseKey::Es256 { point } => {
            let mut der = P256_SPKI_PREFIX.to_vec();
            der.extend_from_slice(&point);
            Some(der)
        }
        CoseKey::Rs256 { .. } => None,
    }
}

/// Checks a registration (`navigator.credentials.create` with attestation `none` and user
/// verification required) made for `challenge`, and returns the new credential.
pub fn verify_registration(
    rp: &RelyingParty,
    client_data_json: &[u8],
    attestation_object: &[u8],
    challenge: &[u8],
) -> Result<NewCredential, PasskeyError> {
    check_client_data(rp, client_data_json, "webauthn.create", challenge)?;
    let v: Cbor = ciborium::from_reader(attestation_object)
        .map_err(|_| PasskeyError::Malformed("attestationObject"))?;
    let Cbor::Map(m) = v else {
        return Err(PasskeyError::Malformed("attestationObject"));
    };
    let text = |k: &str| cbor_map_get(&m, &Cbor::Text(k.into()));
    match (text("fmt"), text("attStmt")) {
        (Some(Cbor::Text(f)), Some(Cbor::Map(s))) if f == "none" && s.is_empty() => {}
        (Some(Cbor::Text(_)), Some(Cbor::Map(_))) => return Err(PasskeyError::Attestation),
        _ => return Err(PasskeyError::Malformed("attestationObject")),
    }
    let Some(Cbor::Bytes(auth)) = text("authData") else {
        return Err(PasskeyError::Malformed("attestationObject authData"));
    };
    let (flags, sign_count) = check_authenticator_data(rp, auth)?;
    if flags & FLAG_AT == 0 || auth.len() < 55 {
        return Err(PasskeyError::Malformed(
            "authData has no attested credential",
        ));
    }
    let id_len = usize::from(u16::from_be_bytes([auth[53], auth[54]]));
    if id_len == 0 || id_len > MAX_CREDENTIAL_ID_BYTES || auth.len() < 55 + id_len {
        return Err(PasskeyError::Malformed("credential id"));
    }
    let credential_id = auth[55..55 + id_len].to_vec();
    let key_start = 55 + id_len;
    let mut rest: &[u8] = &auth[key_start..];
    let _: Cbor =
        ciborium::from_reader(&mut rest).map_err(|_| PasskeyError::Malformed("COSE key"))?;
    let public_key = auth[key_start..auth.len() - rest.len()].to_vec();
    let alg = cose_alg(&public_key)?;
    Ok(NewCredential {
        credential_id,
        public_key,
        alg,
        sign_count,
    })
}

/// Checks an assertion by the stored passkey `key` made for `challenge`, for identity `sub`.
pub fn verify_assertion(
    rp: &RelyingParty,
    key: &Passkey,
    sub: &str,
    assertion: &Assertion,
    challenge: &[u8],
) -> Result<AssertionOk, PasskeyError> {
    if key.sub != sub {
        return Err(PasskeyError::NotThisIdentity);
    }
    check_client_data(rp, &assertion.client_data_json, "webauthn.get", challenge)?;
    let (_, count) = check_authenticator_data(rp, &assertion.authenticator_data)?;
    let cose = URL_SAFE_NO_PAD
        .decode(&key.public_key)
        .map_err(|_| PasskeyError::Malformed("stored key"))?;
    let cose = CoseKey::parse(&cose)?;
    let mut signed = assertion.authenticator_data.clone();
    signed.extend_from_slice(digest(&SHA256, &assertion.client_data_json).as_ref());
    cose.verify(&signed, &assertion.signature)?;
    if !counter_ok(key.sign_count, count) {
        return Err(PasskeyError::Counter);
    }
    Ok(AssertionOk {
        sign_count: count,
        user_verified: true,
    })
}

/// A counter must grow, unless the authenticator keeps none (0 stored and 0 now).
fn counter_ok(stored: u32, now: u32) -> bool {
    (stored == 0 && now == 0) || now > stored
}

/// A software authenticator (tests and the reference tooling): makes registrations and
/// assertions exactly as a platform authenticator does.
#[cfg(any(test, feature = "test-support"))]
pub mod soft {
    use super::*;
    use aws_lc_rs::rand::SystemRandom;
    use aws_lc_rs::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_ASN1_SIGNING};

    /// A software authenticator for tests: makes registrations and assertions as a platform authenticator would, with the flags and counter a test sets.
    pub struct SoftAuthenticator {
        /// Its P-256 key.
        pub key: EcdsaKeyPair,
        pkcs8: Vec<u8>,
        /// The credential id it registered under.
        pub credential_id: Vec<u8>,
        /// The RP ID it signs for (a test may set another).
        pub rp_id: String,
        /// The origin its client data names (a test may set another).
        pub origin: String,
        /// Its signature counter.
        pub counter: u32,
        /// Whether it keeps a counter (adds one per assertion).
        pub counts: bool,
        /// Whether it sets the UV flag.
        pub user_verified: bool,
    }

    impl SoftAuthenticator {
        /// A new authenticator for `rp`, or `None` if no key could be generated.
        pub fn new(rp: &RelyingParty, credential_id: &[u8]) -> Option<Self> {
            let rng = SystemRandom::new();
            let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &rng).ok()?;
            let key =
                EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8.as_ref()).ok()?;
            Some(Self {
                key,
                pkcs8: pkcs8.as_ref().to_vec(),
                credential_id: credential_id.to_vec(),
                rp_id: rp.id.clone(),
                origin: rp.origin.clone(),
                counter: 0,
                counts: true,
                user_verified: true,
            })
        }

        /// Another authenticator holding the same key and state (a clone, or a variant to
        /// craft refusals with).
        pub fn twin(&self) -> Option<Self> {
            Some(Self {
                key: EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &self.pkcs8).ok()?,
                pkcs8: self.pkcs8.clone(),
                credential_id: self.credential_id.clone(),
                rp_id: self.rp_id.clone(),
                origin: self.origin.clone(),
                counter: self.counter,
                counts: self.counts,
                user_verified: self.user_verified,
            })
        }

        /// The COSE key.
        pub fn cose_key(&self) -> Vec<u8> {
            let point = self.key.public_key().as_ref();
            let m = Cbor::Map(vec![
                (int_key(1), int_key(2)),
                (int_key(3), int_key(-7)),
                (int_key(-1), int_key(1)),
                (int_key(-2), Cbor::Bytes(point[1..33].to_vec())),
                (int_key(-3), Cbor::Bytes(point[33..65].to_vec())),
            ]);
            let mut out = Vec::new();
            let _ = ciborium::into_writer(&m, &mut out);
            out
        }

        fn auth_data(&self, attested: bool) -> Vec<u8> {
            let mut d = digest(&SHA256, self.rp_id.as_bytes()).as_ref().to_vec();
            let mut flags = FLAG_UP;
            if self.user_verified {
                flags |= FLAG_UV;
            }
            if attested {
                flags |= FLAG_AT;
            }
            d.push(flags);
            d.extend_from_slice(&self.counter.to_be_bytes());
            if attested {
                d.extend_from_slice(&[0; 16]);
                d.extend_from_slice(&(self.credential_id.len() as u16).to_be_bytes());
                d.extend_from_slice(&self.credential_id);
                d.extend_from_slice(&self.cose_key());
            }
            d
        }

        /// The `clientDataJSON` a browser would send for `kind` (`webauthn.create`/`webauthn.get`) and `challenge`.
        pub fn client_data(&self, kind: &str, challenge: &[u8]) -> Vec<u8> {
            serde_json::to_vec(&serde_json::json!({
                "type": kind,
                "challenge": URL_SAFE_NO_PAD.encode(challenge),
                "origin": self.origin,
                "crossOrigin": false,
            }))
            .unwrap_or_default()
        }

        /// `(clientDataJSON, attestationObject)` of a registration for `challenge`.
        pub fn register(&self, challenge: &[u8]) -> (Vec<u8>, Vec<u8>) {
            let att = Cbor::Map(vec![
                (Cbor::Text("fmt".into()), Cbor::Text("none".into())),
                (Cbor::Text("attStmt".into()), Cbor::Map(vec![])),
                (
                    Cbor::Text("authData".into()),
                    Cbor::Bytes(self.auth_data(true)),
                ),
            ]);
            let mut out = Vec::new();
            let _ = ciborium::into_writer(&att, &mut out);
            (self.client_data("webauthn.create", challenge), out)
        }

        /// An assertion for `challenge` (the counter grows first when it keeps one).
        pub fn assert(&mut self, challenge: &[u8]) -> Assertion {
            let cd = self.client_data("webauthn.get", challenge);
            self.assert_with_client_data(cd)
        }

        /// An assertion over any client data (to craft refusals).
        pub fn assert_with_client_data(&mut self, client_data_json: Vec<u8>) -> Assertion {
            if self.counts {
                self.counter += 1;
            }
            let authenticator_data = self.auth_data(false);
            let mut signed = authenticator_data.clone();
            signed.extend_from_slice(digest(&SHA256, &client_data_json).as_ref());
            let signature = self
                .key
                .sign(&SystemRandom::new(), &signed)
                .map(|s| s.as_ref().to_vec())
                .unwrap_or_default();
            Assertion {
                authenticator_data,
                client_data_json,
                signature,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::soft::SoftAuthenticator;
    use super::*;
    use aws_lc_rs::signature::KeyPair;

    fn rp() -> RelyingParty {
        RelyingParty::for_issuer("http://localhost:8080/realms/scanid")
            .unwrap_or_else(|| panic!("rp"))
    }

    fn authenticator() -> SoftAuthenticator {
        SoftAuthenticator::new(&rp(), b"cred-1").unwrap_or_else(|| panic!("key"))
    }

    fn registered(a: &SoftAuthenticator) -> Passkey {
        let (cd, att) = a.register(b"reg-challenge");
        verify_registration(&rp(), &cd, &att, b"reg-challenge")
            .unwrap_or_else(|e| panic!("{e}"))
            .into_passkey(
                "sub-1",
                "phone",
                vec!["internal".into()],
                Timestamp::from_secs(1),
            )
    }

    #[test]
    fn the_relying_party_is_the_issuers_origin_and_host() {
        let rp = rp();
        assert_eq!(rp.id, "localhost");
        assert_eq!(rp.origin, "http://localhost:8080");
        let rp =
            RelyingParty::for_issuer("https://id.example.com/realms/x").unwrap_or_else(|| panic!());
        assert_eq!(
            (rp.id.as_str(), rp.origin.as_str()),
            ("id.example.com", "https://id.example.com")
        );
    }

    #[test]
    fn a_registration_yields_the_credential_and_its_key() {
        let a = authenticator();
        let pk = registered(&a);
        assert_eq!(pk.credential_id, URL_SAFE_NO_PAD.encode(b"cred-1"));
        assert_eq!(pk.alg, COSE_ES256);
        assert_eq!(pk.transports, vec!["internal".to_owned()]);
        let cose = URL_SAFE_NO_PAD.decode(&pk.public_key).unwrap_or_default();
        let spki = es256_spki(&cose).unwrap_or_default();
        assert_eq!(spki.len(), 91);
        assert!(crate::domain::identity::parse_public_key(
            &base64::engine::general_purpose::STANDARD.encode(&spki)
        )
        .is_ok());
    }

    #[test]
    fn every_refused_registration() {
        let rp = rp();
        let good = authenticator();
        let (cd, att) = good.register(b"c");
        assert!(verify_registration(&rp, &cd, &att, b"c").is_ok());
        let mut no_uv = authenticator();
        no_uv.user_verified = false;
        let (cd_nouv, att_nouv) = no_uv.register(b"c");
        let other_rp = RelyingParty {
            id: "evil.example".into(),
            origin: rp.origin.clone(),
        };
        let mut elsewhere = SoftAuthenticator::new(&other_rp, b"x").unwrap_or_else(|| panic!());
        elsewhere.origin = rp.origin.clone();
        let (cd_rp, att_rp) = elsewhere.register(b"c");
        let packed = {
            let v: Cbor = ciborium::from_reader(att.as_slice()).unwrap_or(Cbor::Null);
            let Cbor::Map(mut m) = v else { panic!() };
            for (k, v) in m.iter_mut() {
                if k == &Cbor::Text("fmt".into()) {
                    *v = Cbor::Text("packed".into());
                }
            }
            let mut out = Vec::new();
            let _ = ciborium::into_writer(&Cbor::Map(m), &mut out);
            out
        };
        let get_type = good.client_data("webauthn.get", b"c");
        let cases: Vec<(&str, Vec<u8>, Vec<u8>, PasskeyError)> = vec![
            (
                "wrong type",
                get_type,
                att.clone(),
                PasskeyError::Type("webauthn.create"),
            ),
            (
                "another challenge",
                good.client_data("webauthn.create", b"d"),
                att.clone(),
                PasskeyError::Challenge,
            ),
            (
                "not JSON",
                b"{".to_vec(),
                att.clone(),
                PasskeyError::Malformed("clientDataJSON"),
            ),
            (
                "not CBOR",
                cd.clone(),
                b"\xff".to_vec(),
                PasskeyError::Malformed("attestationObject"),
            ),
            (
                "attestation packed",
                cd.clone(),
                packed,
                PasskeyError::Attestation,
            ),
            (
                "no user verification",
                cd_nouv,
                att_nouv,
                PasskeyError::UserVerified,
            ),
            ("another RP ID", cd_rp, att_rp, PasskeyError::RpId),
        ];
        for (name, cd, att, want) in cases {
            assert_eq!(
                verify_registration(&rp, &cd, &att, b"c"),
                Err(want),
                "{name}"
            );
        }
        let other_origin = RelyingParty {
            id: rp.id.clone(),
            origin: "http://localhost:9999".into(),
        };
        assert_eq!(
            verify_registration(&other_origin, &cd, &att, b"c"),
            Err(PasskeyError::Origin)
        );
    }

    #[test]
    fn every_refused_assertion() {
        let rp = rp();
        let mut a = authenticator();
        let key = registered(&a);
        let ok = a.assert(b"ch");
        assert_eq!(
            verify_assertion(&rp, &key, "sub-1", &ok, b"ch"),
            Ok(AssertionOk {
                sign_count: 1,
                user_verified: true
            })
        );
        let tamper = |f: &dyn Fn(&mut Assertion)| {
            let mut x = ok.clone();
            f(&mut x);
            x
        };
        let twin = || a.twin().unwrap_or_else(|| panic!("twin"));
        let mut b = twin();
        b.user_verified = false;
        let nouv = b.assert(b"ch");
        let client_data = |f: &dyn Fn(&mut serde_json::Value)| {
            let mut v = serde_json::from_slice::<serde_json::Value>(&ok.client_data_json)
                .unwrap_or_default();
            f(&mut v);
            twin().assert_with_client_data(serde_json::to_vec(&v).unwrap_or_default())
        };
        let cross = client_data(&|v| v["crossOrigin"] = true.into());
        let evil = client_data(&|v| v["origin"] = "https://evil.example".into());
        let other_rp = {
            let mut b = twin();
            b.rp_id = "evil.example".into();
            b.assert(b"ch")
        };
        let no_up = tamper(&|x| x.authenticator_data[32] &= !FLAG_UP);
        let cases: Vec<(&str, Assertion, &str, &[u8], PasskeyError)> = vec![
            (
                "another challenge",
                ok.clone(),
                "sub-1",
                b"other",
                PasskeyError::Challenge,
            ),
            (
                "another identity",
                ok.clone(),
                "sub-2",
                b"ch",
                PasskeyError::NotThisIdentity,
            ),
            (
                "a create, not a get",
                tamper(&|x| x.client_data_json = a.client_data("webauthn.create", b"ch")),
                "sub-1",
                b"ch",
                PasskeyError::Type("webauthn.get"),
            ),
            ("another origin", evil, "sub-1", b"ch", PasskeyError::Origin),
            ("cross-origin", cross, "sub-1", b"ch", PasskeyError::Origin),
            (
                "another RP ID",
                other_rp,
                "sub-1",
                b"ch",
                PasskeyError::RpId,
            ),
            (
                "user not present",
                no_up,
                "sub-1",
                b"ch",
                PasskeyError::UserPresent,
            ),
            (
                "user not verified",
                nouv,
                "sub-1",
                b"ch",
                PasskeyError::UserVerified,
            ),
            (
                "signature of other bytes",
                tamper(&|x| x.authenticator_data[36] ^= 1),
                "sub-1",
                b"ch",
                PasskeyError::Signature,
            ),
            (
                "no signature",
                tamper(&|x| x.signature.clear()),
                "sub-1",
                b"ch",
                PasskeyError::Signature,
            ),
            (
                "short authenticator data",
                tamper(&|x| x.authenticator_data.truncate(36)),
                "sub-1",
                b"ch",
                PasskeyError::Malformed("authenticatorData"),
            ),
        ];
        for (name, x, sub, ch, want) in cases {
            assert_eq!(
                verify_assertion(&rp, &key, sub, &x, ch),
                Err(want),
                "{name}"
            );
        }
        // Another key's signature.
        let mut stranger = authenticator();
        let s = stranger.assert(b"ch");
        assert_eq!(
            verify_assertion(&rp, &key, "sub-1", &s, b"ch"),
            Err(PasskeyError::Signature)
        );
    }

    #[test]
    fn the_counter_must_grow_unless_the_authenticator_keeps_none() {
        let rp = rp();
        let mut a = authenticator();
        let mut key = registered(&a);
        let first = a.assert(b"ch");
        let ok =
            verify_assertion(&rp, &key, "sub-1", &first, b"ch").unwrap_or_else(|e| panic!("{e}"));
        key.sign_count = ok.sign_count;
        // The same assertion again (a replay): the counter did not grow.
        assert_eq!(
            verify_assertion(&rp, &key, "sub-1", &first, b"ch"),
            Err(PasskeyError::Counter)
        );
        // A clone that lags behind.
        a.counter = 0;
        let lagging = a.assert(b"ch");
        assert_eq!(
            verify_assertion(&rp, &key, "sub-1", &lagging, b"ch"),
            Err(PasskeyError::Counter)
        );
        // One that keeps no counter: 0 and 0 is fine.
        a.counts = false;
        a.counter = 0;
        key.sign_count = 0;
        let zero = a.assert(b"ch");
        assert!(verify_assertion(&rp, &key, "sub-1", &zero, b"ch").is_ok());
        assert!(counter_ok(0, 0) && counter_ok(0, 1) && counter_ok(7, 8));
        assert!(!counter_ok(7, 7) && !counter_ok(7, 0) && !counter_ok(u32::MAX, 0));
    }

    /// `(clientDataJSON, attestationObject)` of a registration for `challenge` whose
    /// attested credential carries `cose` (whatever it is) as its public key.
    fn registration_with_key(cose: &[u8], challenge: &[u8]) -> (Vec<u8>, Vec<u8>) {
        let a = authenticator();
        let mut auth = digest(&SHA256, rp().id.as_bytes()).as_ref().to_vec();
        auth.push(FLAG_UP | FLAG_UV | FLAG_AT);
        auth.extend_from_slice(&[0; 4]);
        auth.extend_from_slice(&[0; 16]);
        auth.extend_from_slice(&2u16.to_be_bytes());
        auth.extend_from_slice(b"id");
        auth.extend_from_slice(cose);
        let att = Cbor::Map(vec![
            (Cbor::Text("fmt".into()), Cbor::Text("none".into())),
            (Cbor::Text("attStmt".into()), Cbor::Map(vec![])),
            (Cbor::Text("authData".into()), Cbor::Bytes(auth)),
        ]);
        let mut out = Vec::new();
        let _ = ciborium::into_writer(&att, &mut out);
        (a.client_data("webauthn.create", challenge), out)
    }

    fn cbor(v: &Cbor) -> Vec<u8> {
        let mut out = Vec::new();
        let _ = ciborium::into_writer(v, &mut out);
        out
    }

    fn rsa_key(n: Vec<u8>, e: Vec<u8>) -> Vec<u8> {
        cbor(&Cbor::Map(vec![
            (int_key(1), int_key(3)),
            (int_key(3), int_key(-257)),
            (int_key(-1), Cbor::Bytes(n)),
            (int_key(-2), Cbor::Bytes(e)),
        ]))
    }

    fn ec_key(crv: i64, x: Vec<u8>, y: Vec<u8>) -> Vec<u8> {
        cbor(&Cbor::Map(vec![
            (int_key(1), int_key(2)),
            (int_key(3), int_key(-7)),
            (int_key(-1), int_key(crv)),
            (int_key(-2), Cbor::Bytes(x)),
            (int_key(-3), Cbor::Bytes(y)),
        ]))
    }

    /// A key no assertion could ever verify with is refused when it is registered, not
    /// stored: an upgrade that retires the device key for it would lock the person out.
    #[test]
    fn a_registration_with_an_unusable_key_is_refused() {
        let rp = rp();
        // A modulus of `bits` bits (top bit set, odd).
        let modulus = |bits: usize| {
            let mut n = vec![0xffu8; bits / 8];
            n[0] = 0x80 | 0x55;
            n
        };
        let f4 = vec![1, 0, 1];
        let point = authenticator().key.public_key().as_ref().to_vec();
        let (x, y) = (point[1..33].to_vec(), point[33..65].to_vec());
        let mut off_curve_y = y.clone();
        off_curve_y[31] ^= 1;
        let cases: Vec<(&str, Vec<u8>, PasskeyError)> = vec![
            (
                "RSA 512 bits",
                rsa_key(modulus(512), f4.clone()),
                PasskeyError::Malformed("COSE RSA key"),
            ),
            (
                "RSA 1024 bits",
                rsa_key(modulus(1024), f4.clone()),
                PasskeyError::Malformed("COSE RSA key"),
            ),
            (
                "RSA 16384 bits",
                rsa_key(modulus(16384), f4.clone()),
                PasskeyError::Malformed("COSE RSA key"),
            ),
            (
                "RSA 2048 bits written with leading zeros to look longer",
                rsa_key([vec![0; 8], modulus(1024)].concat(), f4.clone()),
                PasskeyError::Malformed("COSE RSA key"),
            ),
            (
                "RSA exponent 1",
                rsa_key(modulus(2048), vec![1]),
                PasskeyError::Malformed("COSE RSA key"),
            ),
            (
                "RSA even exponent",
                rsa_key(modulus(2048), vec![1, 0, 0]),
                PasskeyError::Malformed("COSE RSA key"),
            ),
            (
                "RSA empty exponent",
                rsa_key(modulus(2048), vec![]),
                PasskeyError::Malformed("COSE RSA key"),
            ),
            (
                "RSA exponent of 64 bytes",
                rsa_key(modulus(2048), vec![0xff; 64]),
                PasskeyError::Malformed("COSE RSA key"),
            ),
            (
                "EC point not on P-256",
                ec_key(1, x.clone(), off_curve_y),
                PasskeyError::Malformed("COSE EC2 key"),
            ),
            (
                "EC point all zeros",
                ec_key(1, vec![0; 32], vec![0; 32]),
                PasskeyError::Malformed("COSE EC2 key"),
            ),
            (
                "EC curve P-384",
                ec_key(2, x.clone(), y.clone()),
                PasskeyError::Malformed("COSE EC2 key"),
            ),
            (
                "OKP Ed25519",
                cbor(&Cbor::Map(vec![
                    (int_key(1), int_key(1)),
                    (int_key(3), int_key(-8)),
                    (int_key(-1), int_key(6)),
                    (int_key(-2), Cbor::Bytes(vec![0; 32])),
                ])),
                PasskeyError::Algorithm,
            ),
        ];
        for (name, cose, want) in cases {
            let (cd, att) = registration_with_key(&cose, b"c");
            assert_eq!(
                verify_registration(&rp, &cd, &att, b"c"),
                Err(want),
                "{name}"
            );
        }
        // The good ones still pass: a P-256 key, and RSA 2048 and 8192 bits with e = 65537.
        for cose in [
            ec_key(1, x, y),
            rsa_key(modulus(2048), f4.clone()),
            rsa_key(modulus(8192), f4),
        ] {
            let (cd, att) = registration_with_key(&cose, b"c");
            assert!(verify_registration(&rp, &cd, &att, b"c").is_ok());
        }
    }

    /// CBOR that claims huge lengths or nests deeply is refused at once, without a panic,
    /// an abort on a huge allocation, or a stack overflow.
    #[test]
    fn cbor_bombs_are_refused_quickly() {
        let rp = rp();
        let started = std::time::Instant::now();
        let deep = |open: u8| {
            let mut v = vec![open; 100_000];
            v.push(0x00);
            v
        };
        let bombs: Vec<(&str, Vec<u8>)> = vec![
            (
                "byte string of 2^64-1 bytes",
                [vec![0x5b], vec![0xff; 8]].concat(),
            ),
            (
                "text string of 2^63 bytes",
                [vec![0x7b, 0x80], vec![0; 7]].concat(),
            ),
            (
                "array of 2^64-1 items",
                [vec![0x9b], vec![0xff; 8]].concat(),
            ),
            ("map of 2^64-1 pairs", [vec![0xbb], vec![0xff; 8]].concat()),
            ("map of 2^32-1 pairs", [vec![0xba], vec![0xff; 4]].concat()),
            ("arrays nested 100000 deep", deep(0x81)),
            ("maps nested 100000 deep", {
                let mut v = Vec::new();
                for _ in 0..100_000 {
                    v.extend_from_slice(&[0xa1, 0x00]);
                }
                v.push(0x00);
                v
            }),
            ("tags nested 100000 deep", deep(0xc6)),
            ("indefinite byte string never ended", vec![0x5f; 100_000]),
        ];
        let cd = authenticator().client_data("webauthn.create", b"c");
        for (name, bomb) in &bombs {
            assert!(
                verify_registration(&rp, &cd, bomb, b"c").is_err(),
                "{name}: attestationObject"
            );
            let (cd, att) = registration_with_key(bomb, b"c");
            assert!(
                verify_registration(&rp, &cd, &att, b"c").is_err(),
                "{name}: COSE key"
            );
            assert!(CoseKey::parse(bomb).is_err(), "{name}: stored key");
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(2),
            "took {:?}",
            started.elapsed()
        );
    }

    #[test]
    fn garbage_never_panics() {
        let rp = rp();
        let a = authenticator();
        let key = registered(&a);
        for junk in [vec![], vec![0xa0], vec![0xff; 100], vec![0x5f; 3]] {
            assert!(verify_registration(&rp, &junk, &junk, b"c").is_err());
            let x = Assertion {
                authenticator_data: junk.clone(),
                client_data_json: junk.clone(),
                signature: junk,
            };
            assert!(verify_assertion(&rp, &key, "sub-1", &x, b"c").is_err());
        }
        assert!(CoseKey::parse(&[0xa1, 0x01, 0x02]).is_err());
    }
}
