//! WebAuthn's wire format (Web Authentication Level 2, §5.8.1, §6.1, §6.5; COSE, RFC 9052/9053):
//! the browser's `clientDataJSON` ([`client_data`]), the authenticator data ([`AuthData`]) and
//! the attested credential it may carry, the attestation object ([`AttestationObject`]), and
//! COSE public keys ([`CoseKey`]: parsed, checked as usable, and a signature verified with one).
//! Parsing only: what is accepted (the challenge, the origin, the RP ID, UP and UV, attestation
//! `none`, the signature counter) is decided in `domain::passkey`.
//!
//! **Why not the crate.** `webauthn-rs`'s core (`webauthn-rs-core`) links OpenSSL
//! unconditionally (`openssl`, `openssl-sys`); the Lambda functions are cross-built for arm64
//! with cargo-lambda and zig, where OpenSSL means cross-compiling its C sources or an arm64
//! sysroot, and CI must build on a fresh Debian machine (docs/security.md, "Passkeys"). What
//! scanid needs is small: a registration with attestation `none` and an ES256 or RS256
//! assertion. So CBOR is `ciborium` (pure Rust, with its own limits on declared lengths and
//! nesting: the bombs in the tests are refused at once) and the signatures `aws-lc-rs`, which
//! every JWS and signing key uses already. Measured after the passkey merge on 2026-11-25
//! (infra/README.md, "Passkeys"; `infra/sizes.py --build`, arm64, `lambda-release`): the two
//! new functions `app-passkeys` 7.19 MB bootstrap / 2.96 MB zipped and `login-passkey` 7.22 /
//! 2.97 MB, under the 5 MB bar, cold starts 76 and 73 ms in the test harness, no C but
//! aws-lc's.

use aws_lc_rs::digest::{digest, SHA256};
use aws_lc_rs::signature::{
    ParsedPublicKey, RsaPublicKeyComponents, UnparsedPublicKey, ECDSA_P256_SHA256_ASN1,
    RSA_PKCS1_2048_8192_SHA256,
};
use ciborium::value::Value as Cbor;
use serde::Deserialize;

/// COSE algorithm ES256 (ECDSA P-256 with SHA-256).
pub const COSE_ES256: i64 = -7;
/// COSE algorithm RS256 (RSASSA-PKCS1-v1_5 with SHA-256).
pub const COSE_RS256: i64 = -257;
/// The longest credential id accepted (WebAuthn allows up to 1023 bytes).
pub const MAX_CREDENTIAL_ID_BYTES: usize = 1023;

/// The authenticator data's flag: the user was present (UP).
pub const FLAG_UP: u8 = 0x01;
/// The authenticator data's flag: the user was verified (UV).
pub const FLAG_UV: u8 = 0x04;
/// The authenticator data's flag: attested credential data follows (AT).
pub const FLAG_AT: u8 = 0x40;

/// Why WebAuthn bytes could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum WebauthnError {
    /// The bytes do not parse as WebAuthn says they must (what is wrong, named).
    #[error("malformed WebAuthn data: {0}")]
    Malformed(&'static str),
    /// A COSE key of another algorithm than ES256 (P-256) or RS256.
    #[error("the credential's algorithm must be ES256 or RS256")]
    Algorithm,
}

/// The client data's fields that are checked (`CollectedClientData`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ClientData {
    /// `type`: `webauthn.create` or `webauthn.get`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The challenge, base64url as the browser wrote it.
    pub challenge: String,
    /// The origin of the page that made the ceremony.
    pub origin: String,
    /// Whether the ceremony ran in a cross-origin frame.
    #[serde(rename = "crossOrigin", default)]
    pub cross_origin: bool,
}

/// The browser's `clientDataJSON`, read.
pub fn client_data(json: &[u8]) -> Result<ClientData, WebauthnError> {
    serde_json::from_slice(json).map_err(|_| WebauthnError::Malformed("clientDataJSON"))
}

/// The authenticator data: its fixed part read (RP ID hash, flags, counter), the attested
/// credential read on demand ([`AuthData::attested_credential`]).
#[derive(Debug, Clone, Copy)]
pub struct AuthData<'a> {
    bytes: &'a [u8],
    /// SHA-256 of the RP ID the authenticator signed for.
    pub rp_id_hash: &'a [u8],
    /// The flags ([`FLAG_UP`], [`FLAG_UV`], [`FLAG_AT`], ...).
    pub flags: u8,
    /// The signature counter.
    pub sign_count: u32,
}

/// The credential a registration's authenticator data carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttestedCredential {
    /// The credential id.
    pub credential_id: Vec<u8>,
    /// The COSE public key, its bytes as the authenticator data carried them.
    pub public_key: Vec<u8>,
}

impl<'a> AuthData<'a> {
    /// The fixed part of `bytes` (37 bytes at least).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, WebauthnError> {
        if bytes.len() < 37 {
            return Err(WebauthnError::Malformed("authenticatorData"));
        }
        Ok(Self {
            bytes,
            rp_id_hash: &bytes[..32],
            flags: bytes[32],
            sign_count: u32::from_be_bytes([bytes[33], bytes[34], bytes[35], bytes[36]]),
        })
    }

    /// Whether `flag` is set.
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// The attested credential (AAGUID, credential id, COSE key), which a registration's
    /// authenticator data carries. The key is read as CBOR here, not as a COSE key
    /// ([`CoseKey::parse`]).
    pub fn attested_credential(&self) -> Result<AttestedCredential, WebauthnError> {
        let auth = self.bytes;
        if !self.has(FLAG_AT) || auth.len() < 55 {
            return Err(WebauthnError::Malformed(
                "authData has no attested credential",
            ));
        }
        let id_len = usize::from(u16::from_be_bytes([auth[53], auth[54]]));
        if id_len == 0 || id_len > MAX_CREDENTIAL_ID_BYTES || auth.len() < 55 + id_len {
            return Err(WebauthnError::Malformed("credential id"));
        }
        let credential_id = auth[55..55 + id_len].to_vec();
        let key_start = 55 + id_len;
        let mut rest: &[u8] = &auth[key_start..];
        let _: Cbor =
            ciborium::from_reader(&mut rest).map_err(|_| WebauthnError::Malformed("COSE key"))?;
        let public_key = auth[key_start..auth.len() - rest.len()].to_vec();
        Ok(AttestedCredential {
            credential_id,
            public_key,
        })
    }
}

/// A registration's attestation object (`fmt`, `attStmt`, `authData`), read.
#[derive(Debug, Clone, PartialEq)]
pub struct AttestationObject {
    /// The attestation statement's format (`none`, `packed`, ...).
    pub fmt: String,
    /// Whether the attestation statement is empty (as `none`'s is).
    pub statement_empty: bool,
    auth_data: Option<Vec<u8>>,
}

impl AttestationObject {
    /// Reads the CBOR map; its `fmt` must be text and its `attStmt` a map.
    pub fn parse(bytes: &[u8]) -> Result<Self, WebauthnError> {
        let malformed = WebauthnError::Malformed("attestationObject");
        let v: Cbor = ciborium::from_reader(bytes).map_err(|_| malformed)?;
        let Cbor::Map(m) = v else {
            return Err(malformed);
        };
        let text = |k: &str| cbor_map_get(&m, &Cbor::Text(k.into()));
        let (fmt, statement_empty) = match (text("fmt"), text("attStmt")) {
            (Some(Cbor::Text(f)), Some(Cbor::Map(s))) => (f.clone(), s.is_empty()),
            _ => return Err(malformed),
        };
        let auth_data = match text("authData") {
            Some(Cbor::Bytes(b)) => Some(b.clone()),
            _ => None,
        };
        Ok(Self {
            fmt,
            statement_empty,
            auth_data,
        })
    }

    /// The authenticator data's bytes.
    pub fn auth_data(&self) -> Result<&[u8], WebauthnError> {
        self.auth_data
            .as_deref()
            .ok_or(WebauthnError::Malformed("attestationObject authData"))
    }
}

/// What an assertion's signature covers: the authenticator data, then SHA-256 of the
/// `clientDataJSON`.
pub fn signed_bytes(authenticator_data: &[u8], client_data_json: &[u8]) -> Vec<u8> {
    let mut signed = authenticator_data.to_vec();
    signed.extend_from_slice(digest(&SHA256, client_data_json).as_ref());
    signed
}

fn cbor_map_get<'a>(map: &'a [(Cbor, Cbor)], key: &Cbor) -> Option<&'a Cbor> {
    map.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn int_key(k: i64) -> Cbor {
    Cbor::Integer(k.into())
}

/// A COSE public key of an accepted algorithm, with its parts, checked as usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CoseKey {
    /// ES256: the uncompressed P-256 point (`04 || x || y`), on the curve.
    Es256 {
        /// The point.
        point: Vec<u8>,
    },
    /// RS256: the modulus (2048 to 8192 bits) and the public exponent.
    Rs256 {
        /// The modulus, big-endian.
        n: Vec<u8>,
        /// The public exponent, big-endian.
        e: Vec<u8>,
    },
}

impl CoseKey {
    /// Reads a COSE key: EC2 on P-256 with ES256, or RSA with RS256. A key no signature could
    /// ever verify with (a point off the curve, a modulus out of range, a bad exponent) is
    /// malformed.
    pub fn parse(cose: &[u8]) -> Result<Self, WebauthnError> {
        let v: Cbor =
            ciborium::from_reader(cose).map_err(|_| WebauthnError::Malformed("COSE key"))?;
        let Cbor::Map(m) = v else {
            return Err(WebauthnError::Malformed("COSE key"));
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
                    return Err(WebauthnError::Malformed("COSE EC2 key"));
                };
                if x.len() != 32 || y.len() != 32 {
                    return Err(WebauthnError::Malformed("COSE EC2 key"));
                }
                let mut point = Vec::with_capacity(65);
                point.push(4);
                point.extend_from_slice(&x);
                point.extend_from_slice(&y);
                // A point off the curve could never verify: refused when registered.
                let spki = [P256_SPKI_PREFIX.as_slice(), &point].concat();
                ParsedPublicKey::new(&ECDSA_P256_SHA256_ASN1, &spki)
                    .map_err(|_| WebauthnError::Malformed("COSE EC2 key"))?;
                Ok(Self::Es256 { point })
            }
            // kty RSA, alg RS256.
            (Some(3), Some(-257)) => {
                let (Some(n), Some(e)) = (bytes(-1), bytes(-2)) else {
                    return Err(WebauthnError::Malformed("COSE RSA key"));
                };
                if !rsa_key_ok(&n, &e) {
                    return Err(WebauthnError::Malformed("COSE RSA key"));
                }
                Ok(Self::Rs256 { n, e })
            }
            _ => Err(WebauthnError::Algorithm),
        }
    }

    /// Its COSE algorithm ([`COSE_ES256`] or [`COSE_RS256`]).
    pub fn alg(&self) -> i64 {
        match self {
            Self::Es256 { .. } => COSE_ES256,
            Self::Rs256 { .. } => COSE_RS256,
        }
    }

    /// Whether `signature` (ASN.1 DER for ES256) over `message` verifies with this key.
    pub fn verifies(&self, message: &[u8], signature: &[u8]) -> bool {
        match self {
            Self::Es256 { point } => UnparsedPublicKey::new(&ECDSA_P256_SHA256_ASN1, point)
                .verify(message, signature)
                .is_ok(),
            Self::Rs256 { n, e } => RsaPublicKeyComponents { n, e }
                .verify(&RSA_PKCS1_2048_8192_SHA256, message, signature)
                .is_ok(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use aws_lc_rs::rand::SystemRandom;
    use aws_lc_rs::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_ASN1_SIGNING};

    fn cbor(v: &Cbor) -> Vec<u8> {
        let mut out = Vec::new();
        ciborium::into_writer(v, &mut out).unwrap();
        out
    }

    fn es256_key() -> (EcdsaKeyPair, Vec<u8>) {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &rng).unwrap();
        let key =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8.as_ref()).unwrap();
        let point = key.public_key().as_ref().to_vec();
        let cose = cbor(&Cbor::Map(vec![
            (int_key(1), int_key(2)),
            (int_key(3), int_key(-7)),
            (int_key(-1), int_key(1)),
            (int_key(-2), Cbor::Bytes(point[1..33].to_vec())),
            (int_key(-3), Cbor::Bytes(point[33..65].to_vec())),
        ]));
        (key, cose)
    }

    /// Authenticator data: RP ID hash, `flags`, counter 7, then `rest`.
    fn auth_data(flags: u8, rest: &[u8]) -> Vec<u8> {
        let mut d = vec![0xab; 32];
        d.push(flags);
        d.extend_from_slice(&7u32.to_be_bytes());
        d.extend_from_slice(rest);
        d
    }

    /// The attested credential part: AAGUID, the id's length as written, the id, the key.
    fn attested(id_len: u16, id: &[u8], key: &[u8]) -> Vec<u8> {
        [&[0u8; 16][..], &id_len.to_be_bytes(), id, key].concat()
    }

    #[test]
    fn the_fixed_part_of_the_authenticator_data() {
        let d = auth_data(FLAG_UP | FLAG_UV, &[]);
        let a = AuthData::parse(&d).unwrap();
        assert_eq!(a.rp_id_hash, &[0xab; 32][..]);
        assert!(a.has(FLAG_UP) && a.has(FLAG_UV) && !a.has(FLAG_AT));
        assert_eq!(a.sign_count, 7);
        assert_eq!(
            AuthData::parse(&d[..36]).map(|a| a.flags),
            Err(WebauthnError::Malformed("authenticatorData"))
        );
    }

    #[test]
    fn the_attested_credential_is_its_id_and_its_keys_bytes() {
        let (_, cose) = es256_key();
        // Extensions may follow the key: they are not part of it.
        let extensions = cbor(&Cbor::Map(vec![(Cbor::Text("x".into()), Cbor::Bool(true))]));
        let d = auth_data(
            FLAG_UP | FLAG_AT,
            &[attested(2, b"id", &cose), extensions].concat(),
        );
        let c = AuthData::parse(&d).unwrap().attested_credential().unwrap();
        assert_eq!(c.credential_id, b"id");
        assert_eq!(c.public_key, cose);
        let refused = |flags: u8, rest: Vec<u8>| {
            let d = auth_data(flags, &rest);
            AuthData::parse(&d).unwrap().attested_credential()
        };
        let cases = [
            (
                "no AT flag",
                refused(FLAG_UP, attested(2, b"id", &cose)),
                "authData has no attested credential",
            ),
            (
                "cut short",
                refused(FLAG_AT, vec![0; 17]),
                "authData has no attested credential",
            ),
            (
                "empty id",
                refused(FLAG_AT, attested(0, b"", &cose)),
                "credential id",
            ),
            (
                "id over 1023 bytes",
                refused(FLAG_AT, attested(1024, &[1; 1024], &cose)),
                "credential id",
            ),
            (
                "id longer than the data",
                refused(FLAG_AT, attested(9, b"id", &[])),
                "credential id",
            ),
            (
                "no key",
                refused(FLAG_AT, attested(2, b"id", &[])),
                "COSE key",
            ),
            (
                "key not CBOR",
                refused(FLAG_AT, attested(2, b"id", &[0xff])),
                "COSE key",
            ),
        ];
        for (name, got, want) in cases {
            assert_eq!(got, Err(WebauthnError::Malformed(want)), "{name}");
        }
    }

    #[test]
    fn an_attestation_object_and_its_auth_data() {
        let text = |s: &str| Cbor::Text(s.into());
        let att = |fmt: Cbor, stmt: Cbor, auth: Option<Vec<u8>>| {
            let mut m = vec![(text("fmt"), fmt), (text("attStmt"), stmt)];
            if let Some(a) = auth {
                m.push((text("authData"), Cbor::Bytes(a)));
            }
            AttestationObject::parse(&cbor(&Cbor::Map(m)))
        };
        let none = att(text("none"), Cbor::Map(vec![]), Some(vec![1, 2])).unwrap();
        assert_eq!((none.fmt.as_str(), none.statement_empty), ("none", true));
        assert_eq!(none.auth_data(), Ok(&[1u8, 2][..]));
        let packed = att(
            text("packed"),
            Cbor::Map(vec![(text("alg"), int_key(-7))]),
            Some(vec![]),
        )
        .unwrap();
        assert_eq!(
            (packed.fmt.as_str(), packed.statement_empty),
            ("packed", false)
        );
        let no_auth = att(text("none"), Cbor::Map(vec![]), None).unwrap();
        assert_eq!(
            no_auth.auth_data(),
            Err(WebauthnError::Malformed("attestationObject authData"))
        );
        let malformed = Err(WebauthnError::Malformed("attestationObject"));
        assert_eq!(att(int_key(1), Cbor::Map(vec![]), Some(vec![])), malformed);
        assert_eq!(att(text("none"), Cbor::Null, Some(vec![])), malformed);
        assert_eq!(
            AttestationObject::parse(&cbor(&Cbor::Array(vec![]))),
            malformed
        );
        assert_eq!(AttestationObject::parse(b"\xff"), malformed);
    }

    #[test]
    fn client_data_is_read_with_cross_origin_false_by_default() {
        let cd = client_data(
            br#"{"type":"webauthn.get","challenge":"Yw","origin":"https://a.example"}"#,
        )
        .unwrap();
        assert_eq!(
            cd,
            ClientData {
                kind: "webauthn.get".into(),
                challenge: "Yw".into(),
                origin: "https://a.example".into(),
                cross_origin: false,
            }
        );
        for junk in [&b"{"[..], b"[]", br#"{"type":"webauthn.get"}"#] {
            assert_eq!(
                client_data(junk),
                Err(WebauthnError::Malformed("clientDataJSON"))
            );
        }
    }

    #[test]
    fn an_es256_key_verifies_what_it_signed() {
        let (key, cose) = es256_key();
        let k = CoseKey::parse(&cose).unwrap();
        assert_eq!(k.alg(), COSE_ES256);
        let signed = signed_bytes(b"authenticator data", b"{}");
        assert_eq!(signed.len(), 18 + 32);
        let sig = key.sign(&SystemRandom::new(), &signed).unwrap();
        assert!(k.verifies(&signed, sig.as_ref()));
        assert!(!k.verifies(&signed_bytes(b"authenticator data", b"[]"), sig.as_ref()));
        assert!(!k.verifies(&signed, &[]));
        let spki = es256_spki(&cose).unwrap();
        assert_eq!(spki.len(), 91);
        assert!(spki.ends_with(key.public_key().as_ref()));
        let okp = cbor(&Cbor::Map(vec![
            (int_key(1), int_key(1)),
            (int_key(3), int_key(-8)),
        ]));
        assert_eq!(CoseKey::parse(&okp), Err(WebauthnError::Algorithm));
        assert_eq!(es256_spki(&okp), None);
    }

    /// CBOR that claims huge lengths or nests deeply is refused at once by each reader.
    #[test]
    fn cbor_bombs_are_refused_by_every_reader() {
        let started = std::time::Instant::now();
        let deep = |open: u8| [vec![open; 100_000], vec![0x00]].concat();
        let bombs = [
            [vec![0x5b], vec![0xff; 8]].concat(),
            [vec![0x9b], vec![0xff; 8]].concat(),
            [vec![0xbb], vec![0xff; 8]].concat(),
            deep(0x81),
            deep(0xc6),
            vec![0x5f; 100_000],
        ];
        for bomb in &bombs {
            assert!(CoseKey::parse(bomb).is_err());
            assert!(AttestationObject::parse(bomb).is_err());
            let d = auth_data(FLAG_AT, &attested(2, b"id", bomb));
            assert!(AuthData::parse(&d).unwrap().attested_credential().is_err());
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }
}
