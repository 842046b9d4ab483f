//! Passkeys (issue 26): WebAuthn credentials an identity signs its app requests with, and the
//! checks of a registration (`navigator.credentials.create`, attestation `none`) and of an
//! assertion (`navigator.credentials.get`). The bytes are read by
//! [`crate::protocol::webauthn`] (CBOR, COSE keys, authenticator data, `clientDataJSON`, and why
//! that is ours and not `webauthn-rs`); what is accepted is decided here.
//!
//! Every check refuses with its own [`PasskeyError`]: the client data's `type`, `challenge`,
//! `origin` (the issuer's origin, never cross-origin), the authenticator data's RP ID hash (the
//! RP ID is the issuer's host), the user-present and user-verified flags (UV is required), the
//! attestation format (`none` only), the signature, the signature counter (it must grow when
//! the authenticator keeps one; 0 and 0 is fine), and that the credential belongs to the
//! identity the request names. ES256 (COSE -7) and RS256 (COSE -257) keys are accepted.

use aws_lc_rs::digest::{digest, SHA256};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;
use crate::domain::authn::Method;
use crate::protocol::webauthn::{
    self, AttestationObject, AuthData, CoseKey, WebauthnError, FLAG_UP, FLAG_UV,
};
pub use crate::protocol::webauthn::{es256_spki, COSE_ES256, COSE_RS256, MAX_CREDENTIAL_ID_BYTES};

/// How long a server-issued WebAuthn challenge lives.
pub const CHALLENGE_TTL_SECS: i64 = 300;
/// The most passkeys one identity may hold.
pub const MAX_PASSKEYS: usize = 10;

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

impl From<WebauthnError> for PasskeyError {
    fn from(e: WebauthnError) -> Self {
        match e {
            WebauthnError::Malformed(what) => PasskeyError::Malformed(what),
            WebauthnError::Algorithm => PasskeyError::Algorithm,
        }
    }
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
    /// Enrolled by a request the device key signed (or a passkey so enrolled): its logins
    /// stay at the device key's level ([`Self::level`]), since the device key alone (no user
    /// verification) could make it (issue 38).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub enrolled_by_device_key: bool,
}

impl Passkey {
    /// What a login with this passkey is: `best` ([`Method::PasskeyUv`] in the app,
    /// [`Method::PasskeySignIn`] on the login page), or [`Method::DeviceKey`] for a passkey
    /// the device key enrolled.
    pub fn level(&self, best: Method) -> Method {
        if self.enrolled_by_device_key {
            Method::DeviceKey
        } else {
            best
        }
    }
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
            enrolled_by_device_key: false,
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

/// The client data, checked: the ceremony's `type`, this request's challenge, the issuer's
/// origin (never cross-origin).
fn check_client_data(
    rp: &RelyingParty,
    json: &[u8],
    kind: &'static str,
    challenge: &[u8],
) -> Result<(), PasskeyError> {
    let cd = webauthn::client_data(json)?;
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

/// The authenticator data's fixed part, checked: RP ID hash, UP, UV.
fn check_authenticator_data<'a>(
    rp: &RelyingParty,
    data: &'a [u8],
) -> Result<AuthData<'a>, PasskeyError> {
    let auth = AuthData::parse(data)?;
    let rp_hash = digest(&SHA256, rp.id.as_bytes());
    if auth.rp_id_hash != rp_hash.as_ref() {
        return Err(PasskeyError::RpId);
    }
    if !auth.has(FLAG_UP) {
        return Err(PasskeyError::UserPresent);
    }
    if !auth.has(FLAG_UV) {
        return Err(PasskeyError::UserVerified);
    }
    Ok(auth)
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
    let att = AttestationObject::parse(attestation_object)?;
    if att.fmt != "none" || !att.statement_empty {
        return Err(PasskeyError::Attestation);
    }
    let auth = check_authenticator_data(rp, att.auth_data()?)?;
    let credential = auth.attested_credential()?;
    let alg = CoseKey::parse(&credential.public_key)?.alg();
    Ok(NewCredential {
        credential_id: credential.credential_id,
        public_key: credential.public_key,
        alg,
        sign_count: auth.sign_count,
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
    let count = check_authenticator_data(rp, &assertion.authenticator_data)?.sign_count;
    let cose = URL_SAFE_NO_PAD
        .decode(&key.public_key)
        .map_err(|_| PasskeyError::Malformed("stored key"))?;
    let cose = CoseKey::parse(&cose)?;
    let signed = webauthn::signed_bytes(&assertion.authenticator_data, &assertion.client_data_json);
    if !cose.verifies(&signed, &assertion.signature) {
        return Err(PasskeyError::Signature);
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::webauthn::FLAG_AT;
    use crate::testing::passkey::SoftAuthenticator;
    use aws_lc_rs::signature::KeyPair;
    use ciborium::value::Value as Cbor;

    fn int_key(k: i64) -> Cbor {
        Cbor::Integer(k.into())
    }

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
