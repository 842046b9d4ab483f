//! A software authenticator ([`SoftAuthenticator`]): makes WebAuthn registrations and
//! assertions exactly as a platform authenticator does, with the flags and counter a test sets.
//! For the passkey tests of `scanid-core` and of the other crates (`test-support`); the browser
//! tests use Chromium's virtual one.

use aws_lc_rs::digest::{digest, SHA256};
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_ASN1_SIGNING};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ciborium::value::Value as Cbor;

use crate::domain::passkey::{Assertion, RelyingParty};
use crate::protocol::webauthn::{self, FLAG_AT, FLAG_UP, FLAG_UV};

fn int_key(k: i64) -> Cbor {
    Cbor::Integer(k.into())
}

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
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8.as_ref()).ok()?;
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
        let signed = webauthn::signed_bytes(&authenticator_data, &client_data_json);
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
