//! KMS-backed keys: `SCANID_SIGNING=kms` (every JWT signed by KMS `Sign`; the private key never
//! leaves KMS) and `SCANID_SIGNING=kms-envelope` (a private key stored encrypted under a KMS key,
//! decrypted once per cold start, then signing locally: zero KMS calls per token).
//!
//! In both modes the key set (the same [`KeySet`] structure as local keys: `next`, `active`,
//! `retired`) is one record in the store (`signing_key#set`), updated by compare-and-swap. The
//! first process to start with an empty set creates it from `SCANID_KMS_KEY_ID`:
//!
//! * `kms`: the configured key(s) (comma-separated; `RSA_2048` signs RS256, `ECC_NIST_P256`
//!   signs ES256) become the active keys. Their public keys come from `GetPublicKey` when they
//!   are registered and are kept with the set, so a cold start makes no KMS call at all.
//! * `kms-envelope`: an RS256 and an ES256 key are generated, encrypted with the configured
//!   (symmetric) KMS key, and stored; a cold start makes one `Decrypt` per active key.

use std::sync::Arc;

use async_trait::async_trait;
use aws_lc_rs::digest::{digest, SHA256};
use aws_sdk_kms::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_kms::primitives::Blob;
use aws_sdk_kms::types::{KeySpec, KeyUsageType, MessageType, SigningAlgorithmSpec, Tag};
use aws_sdk_kms::Client;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use scanid_core::clock::Timestamp;
use scanid_core::config::SigningMode;
use scanid_core::keys::local::{generate, KeySet, LocalSigner, Material, StoredKey};
use scanid_core::keys::set::{load_set, published_key, save_set, BuildKeyring};
use scanid_core::keys::{Alg, Jwk, KeyState, Keyring, SignError, Signer};
use scanid_core::store::Backend;

/// KMS takes at most 4096 bytes as a raw message; longer signing inputs are sent as a digest.
const MAX_RAW_MESSAGE: usize = 4096;
/// The tag scanid puts on the KMS keys it creates; the template's IAM policies allow signing
/// and decrypting only with keys that carry it (with the table's name as the value).
pub const KEY_TAG: &str = "scanid-table";

/// A KMS client with the operations scanid uses.
#[derive(Clone, Debug)]
pub struct Kms {
    pub(crate) client: Client,
}

fn kms_err<E, R>(op: &'static str, e: SdkError<E, R>) -> SignError
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
    R: std::fmt::Debug,
{
    let detail = crate::error_detail(&e);
    tracing::error!(op, error = %detail, "kms call failed");
    SignError::Unavailable(format!("kms {op}: {detail}").into())
}

/// The public key in a DER `SubjectPublicKeyInfo` (what `GetPublicKey` returns) as a JWK.
pub fn spki_to_jwk(alg: Alg, spki: &[u8]) -> Result<Jwk, SignError> {
    match alg {
        Alg::RS256 | Alg::PS256 => {
            let k = aws_lc_rs::rsa::PublicKey::from_der(spki)
                .map_err(|e| SignError::Key(format!("RSA public key: {e}").into()))?;
            Ok(Jwk::rsa_for(
                alg,
                k.modulus().big_endian_without_leading_zero(),
                k.exponent().big_endian_without_leading_zero(),
            ))
        }
        Alg::ES256 => {
            // SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING (0 unused) 04||x||y }
            const P256_SPKI_PREFIX: [u8; 26] = [
                0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06,
                0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
            ];
            match spki.strip_prefix(&P256_SPKI_PREFIX[..]) {
                Some(point) => Jwk::p256(point),
                None => Err(SignError::Key("not a P-256 SubjectPublicKeyInfo".into())),
            }
        }
        Alg::EdDSA => Err(no_kms_eddsa()),
    }
}

/// EdDSA is not signed by KMS here: AWS KMS has Ed25519 keys (`ECC_NIST_EDWARDS25519`,
/// `ED25519_SHA_512`, since 2025), but the emulator the tests run against (moto) has not, so
/// scanid cannot test it and refuses it. `kms-envelope` signs EdDSA (the key is wrapped by KMS
/// and signs in memory).
fn no_kms_eddsa() -> SignError {
    SignError::Key(
        "EdDSA keys held by KMS are not supported (untested: the AWS emulator has no Ed25519); \
         use SCANID_SIGNING=kms-envelope for EdDSA"
            .into(),
    )
}

/// One DER TLV: (tag, value, rest).
fn tlv(b: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, b) = b.split_first()?;
    let (&len, b) = b.split_first()?;
    let (len, b) = match len {
        l if l < 0x80 => (usize::from(l), b),
        0x81 => {
            let (&l, b) = b.split_first()?;
            (usize::from(l), b)
        }
        _ => return None,
    };
    (b.len() >= len).then(|| (tag, &b[..len], &b[len..]))
}

/// KMS returns ECDSA signatures as DER `SEQUENCE { INTEGER r, INTEGER s }`; JWS (RFC 7518
/// section 3.4) wants the raw `r || s`, each left-padded to 32 bytes.
pub fn ecdsa_der_to_raw(der: &[u8]) -> Result<[u8; 64], SignError> {
    let bad = || SignError::Key("malformed ECDSA signature from KMS".into());
    let (0x30, seq, []) = tlv(der).ok_or_else(bad)? else {
        return Err(bad());
    };
    let (0x02, r, rest) = tlv(seq).ok_or_else(bad)? else {
        return Err(bad());
    };
    let (0x02, s, []) = tlv(rest).ok_or_else(bad)? else {
        return Err(bad());
    };
    let mut out = [0u8; 64];
    for (int, slot) in [(r, 0..32), (s, 32..64)] {
        let start = int.iter().position(|&b| b != 0).unwrap_or(int.len());
        let int = &int[start..];
        if int.len() > 32 {
            return Err(bad());
        }
        let at = slot.end - int.len();
        out[at..slot.end].copy_from_slice(int);
    }
    Ok(out)
}

fn key_spec(alg: Alg) -> Result<KeySpec, SignError> {
    match alg {
        Alg::RS256 | Alg::PS256 => Ok(KeySpec::Rsa2048),
        Alg::ES256 => Ok(KeySpec::EccNistP256),
        Alg::EdDSA => Err(no_kms_eddsa()),
    }
}

/// KMS's name for a JWS algorithm: PS256 is `RSASSA_PSS_SHA_256` (KMS salts with the digest's
/// length, 32 bytes, as RFC 7518 §3.5 wants).
fn signing_algorithm(alg: Alg) -> Result<SigningAlgorithmSpec, SignError> {
    match alg {
        Alg::RS256 => Ok(SigningAlgorithmSpec::RsassaPkcs1V15Sha256),
        Alg::PS256 => Ok(SigningAlgorithmSpec::RsassaPssSha256),
        Alg::ES256 => Ok(SigningAlgorithmSpec::EcdsaSha256),
        Alg::EdDSA => Err(no_kms_eddsa()),
    }
}

impl Kms {
    /// KMS through `client`.
    pub fn new(client: Client) -> Self {
        Self { client }
    }

    /// From an SDK configuration (see [`crate`]).
    pub fn from_config(config: &crate::SdkConfig) -> Self {
        Self::new(Client::new(config))
    }

    /// A signing key's ARN, algorithm and public JWK (`GetPublicKey`). An `RSA_2048` key signs
    /// `rsa` (RS256, or PS256 when a PS256 key is asked for).
    pub async fn public_key(
        &self,
        key_id: &str,
        rsa: Alg,
    ) -> Result<(String, Alg, Jwk), SignError> {
        let out = self
            .client
            .get_public_key()
            .key_id(key_id)
            .send()
            .await
            .map_err(|e| kms_err("get_public_key", e))?;
        // `KeySpec` (older emulators only fill the deprecated `CustomerMasterKeySpec`).
        let spec = out.key_spec().map(|k| k.as_str().to_owned()).or_else(|| {
            #[allow(deprecated)]
            out.customer_master_key_spec()
                .map(|k| k.as_str().to_owned())
        });
        let alg = match spec.as_deref() {
            Some("RSA_2048") => rsa,
            Some("ECC_NIST_P256") => Alg::ES256,
            Some("ECC_NIST_EDWARDS25519") => return Err(no_kms_eddsa()),
            other => {
                return Err(SignError::Key(
                    format!(
                        "KMS key {key_id}: key spec {other:?}; scanid signs with RSA_2048 (RS256, \
                     PS256) or ECC_NIST_P256 (ES256)"
                    )
                    .into(),
                ))
            }
        };
        if out.key_usage() != Some(&KeyUsageType::SignVerify) {
            return Err(SignError::Key(
                format!("KMS key {key_id}: key usage must be SIGN_VERIFY").into(),
            ));
        }
        let spki = out
            .public_key()
            .ok_or_else(|| SignError::Key(format!("KMS key {key_id}: no public key").into()))?;
        let arn = out.key_id().unwrap_or(key_id).to_owned();
        Ok((arn, alg, spki_to_jwk(alg, spki.as_ref())?))
    }

    /// Creates a KMS key for `alg` signatures (or, with `None`, a symmetric encryption key for
    /// `kms-envelope`), tagged for `table`. Returns its ARN.
    pub async fn create_key(&self, alg: Option<Alg>, table: &str) -> Result<String, SignError> {
        let tag = Tag::builder()
            .tag_key(KEY_TAG)
            .tag_value(table)
            .build()
            .map_err(|e| SignError::Key(e.to_string().into()))?;
        let req = self.client.create_key().tags(tag);
        let req = match alg {
            Some(alg) => req
                .key_spec(key_spec(alg)?)
                .key_usage(KeyUsageType::SignVerify)
                .description(format!("scanid {} signing key ({table})", alg.as_str())),
            None => req
                .key_spec(KeySpec::SymmetricDefault)
                .key_usage(KeyUsageType::EncryptDecrypt)
                .description(format!("scanid key-wrapping key ({table})")),
        };
        let out = req.send().await.map_err(|e| kms_err("create_key", e))?;
        out.key_metadata()
            .and_then(|m| m.arn())
            .map(str::to_owned)
            .ok_or_else(|| SignError::Key("CreateKey returned no ARN".into()))
    }

    async fn encrypt(&self, key_id: &str, plaintext: &[u8]) -> Result<Vec<u8>, SignError> {
        let out = self
            .client
            .encrypt()
            .key_id(key_id)
            .plaintext(Blob::new(plaintext))
            .send()
            .await
            .map_err(|e| kms_err("encrypt", e))?;
        out.ciphertext_blob()
            .map(|b| b.as_ref().to_vec())
            .ok_or_else(|| SignError::Key("Encrypt returned no ciphertext".into()))
    }

    async fn decrypt(&self, key_id: &str, ciphertext: &[u8]) -> Result<Vec<u8>, SignError> {
        let out = self
            .client
            .decrypt()
            .key_id(key_id)
            .ciphertext_blob(Blob::new(ciphertext))
            .send()
            .await
            .map_err(|e| kms_err("decrypt", e))?;
        out.plaintext()
            .map(|b| b.as_ref().to_vec())
            .ok_or_else(|| SignError::Key("Decrypt returned no plaintext".into()))
    }

    /// An existing KMS signing key as a `next` key (its public key from `GetPublicKey`); an RSA
    /// key signs `rsa` (RS256 or PS256).
    pub async fn kms_key(
        &self,
        key_id: &str,
        rsa: Alg,
        now: Timestamp,
    ) -> Result<StoredKey, SignError> {
        let (arn, alg, public) = self.public_key(key_id, rsa).await?;
        Ok(StoredKey::next(
            public.clone(),
            alg,
            now,
            Material::Kms {
                key_id: arn,
                public,
            },
        ))
    }

    /// A `next` key held by KMS for `alg`: `key_id` if given, else a new KMS key created for
    /// `table`.
    pub async fn new_kms_key(
        &self,
        alg: Alg,
        key_id: Option<&str>,
        table: &str,
        now: Timestamp,
    ) -> Result<StoredKey, SignError> {
        if alg == Alg::EdDSA {
            return Err(no_kms_eddsa());
        }
        let key_id = match key_id {
            Some(k) => k.to_owned(),
            None => self.create_key(Some(alg), table).await?,
        };
        let rsa = if alg == Alg::PS256 {
            Alg::PS256
        } else {
            Alg::RS256
        };
        let k = self.kms_key(&key_id, rsa, now).await?;
        if k.alg != alg {
            return Err(SignError::Key(
                format!(
                    "KMS key {key_id} signs {}, not {}",
                    k.alg.as_str(),
                    alg.as_str()
                )
                .into(),
            ));
        }
        Ok(k)
    }

    /// A `next` key generated here and stored encrypted under `wrapping_key_id`.
    pub async fn new_envelope_key(
        &self,
        alg: Alg,
        wrapping_key_id: &str,
        now: Timestamp,
    ) -> Result<StoredKey, SignError> {
        let (public, der) = generate(alg)?;
        let ciphertext = self.encrypt(wrapping_key_id, &der).await?;
        Ok(StoredKey::next(
            public.clone(),
            alg,
            now,
            Material::Envelope {
                wrapping_key_id: wrapping_key_id.to_owned(),
                ciphertext: STANDARD.encode(ciphertext),
                public,
            },
        ))
    }

    /// The keyring of a key set: every key is published; active keys sign (KMS keys through
    /// KMS, envelope keys locally once decrypted).
    pub async fn keyring(&self, set: &KeySet) -> Result<Keyring, SignError> {
        let mut signers: Vec<Arc<dyn Signer>> = Vec::new();
        let mut published = Vec::new();
        for k in &set.keys {
            let public = published_key(k)?;
            if k.state == KeyState::Active {
                let signer: Arc<dyn Signer> = match &k.material {
                    Material::Kms { key_id, .. } => Arc::new(KmsSigner {
                        kms: self.clone(),
                        key_id: key_id.clone(),
                        alg: k.alg,
                        kid: k.kid.clone(),
                    }),
                    Material::Envelope {
                        wrapping_key_id,
                        ciphertext,
                        ..
                    } => Arc::new(EnvelopeSigner {
                        kms: self.clone(),
                        wrapping_key_id: wrapping_key_id.clone(),
                        ciphertext: STANDARD
                            .decode(ciphertext)
                            .map_err(|e| SignError::Key(format!("key {}: {e}", k.kid).into()))?,
                        alg: k.alg,
                        kid: k.kid.clone(),
                        key: tokio::sync::OnceCell::new(),
                    }),
                    Material::Pkcs8(_) => continue,
                };
                signers.push(signer);
            }
            published.push(public);
        }
        Keyring::new(signers, published)
    }
}

/// Signs locally with a key that KMS decrypts on first use (or at [`Signer::warm`]): one
/// `Decrypt` per cold start, and none at all in functions that never sign, which therefore
/// need no KMS permission.
pub struct EnvelopeSigner {
    kms: Kms,
    wrapping_key_id: String,
    ciphertext: Vec<u8>,
    alg: Alg,
    kid: String,
    key: tokio::sync::OnceCell<LocalSigner>,
}

impl EnvelopeSigner {
    async fn key(&self) -> Result<&LocalSigner, SignError> {
        self.key
            .get_or_try_init(|| async {
                let der = self
                    .kms
                    .decrypt(&self.wrapping_key_id, &self.ciphertext)
                    .await?;
                let (signer, jwk) = LocalSigner::from_pkcs8(self.alg, &der)?;
                if jwk.kid != self.kid {
                    return Err(SignError::Key(
                        format!("key {}: the decrypted key does not match its kid", self.kid)
                            .into(),
                    ));
                }
                Ok(signer)
            })
            .await
    }
}

#[async_trait]
impl Signer for EnvelopeSigner {
    fn alg(&self) -> Alg {
        self.alg
    }
    fn kid(&self) -> &str {
        &self.kid
    }
    async fn warm(&self) -> Result<(), SignError> {
        self.key().await.map(|_| ())
    }
    async fn sign(&self, signing_input: &[u8]) -> Result<Vec<u8>, SignError> {
        self.key().await?.sign(signing_input).await
    }
}

/// Signs with KMS `Sign`; the private key never leaves KMS.
pub struct KmsSigner {
    kms: Kms,
    key_id: String,
    alg: Alg,
    kid: String,
}

#[async_trait]
impl Signer for KmsSigner {
    fn alg(&self) -> Alg {
        self.alg
    }
    fn kid(&self) -> &str {
        &self.kid
    }
    async fn sign(&self, signing_input: &[u8]) -> Result<Vec<u8>, SignError> {
        // moto mishandles MessageType=DIGEST, and RAW is what KMS hashes itself; JWTs are far
        // below the 4 KiB RAW limit, a longer input is sent as its SHA-256 digest.
        let req = self
            .kms
            .client
            .sign()
            .key_id(&self.key_id)
            .signing_algorithm(signing_algorithm(self.alg)?);
        let req = if signing_input.len() <= MAX_RAW_MESSAGE {
            req.message_type(MessageType::Raw)
                .message(Blob::new(signing_input))
        } else {
            req.message_type(MessageType::Digest)
                .message(Blob::new(digest(&SHA256, signing_input).as_ref()))
        };
        let out = req.send().await.map_err(|e| kms_err("sign", e))?;
        let sig = out
            .signature()
            .ok_or_else(|| SignError::Unavailable("kms sign: no signature".into()))?;
        match self.alg {
            Alg::RS256 | Alg::PS256 => Ok(sig.as_ref().to_vec()),
            Alg::ES256 => Ok(ecdsa_der_to_raw(sig.as_ref())?.to_vec()),
            Alg::EdDSA => Err(no_kms_eddsa()),
        }
    }
}

/// What a first start creates the key set from.
#[derive(Debug, Clone)]
pub enum Bootstrap<'a> {
    /// `kms`: these KMS signing keys (ids, ARNs or aliases) become the active keys.
    Kms(&'a [String]),
    /// `kms-envelope`: fresh RS256 and ES256 keys, encrypted under this KMS key.
    Envelope(&'a str),
}

impl<'a> Bootstrap<'a> {
    /// What a signing mode creates its key set from; `None` for local key files.
    pub fn from_mode(mode: &'a SigningMode) -> Option<Self> {
        match mode {
            SigningMode::Local => None,
            SigningMode::Kms { key_ids } => Some(Self::Kms(key_ids)),
            SigningMode::KmsEnvelope { key_id } => Some(Self::Envelope(key_id)),
        }
    }
}

/// The key set in the store with its version; on the very first start, creates it (of
/// concurrent first starts, one creates it and the others read it).
pub async fn load_or_create_set(
    store: &dyn Backend,
    kms: &Kms,
    bootstrap: Bootstrap<'_>,
    now: Timestamp,
) -> Result<(KeySet, u64), SignError> {
    if let Some(found) = load_set(store, now).await? {
        return Ok(found);
    }
    let mut set = KeySet::default();
    let fresh = match bootstrap {
        Bootstrap::Kms(ids) => {
            let mut keys = Vec::new();
            for id in ids {
                keys.push(kms.kms_key(id, Alg::RS256, now).await?);
            }
            keys
        }
        Bootstrap::Envelope(wrapping) => {
            let mut keys = Vec::new();
            for alg in [Alg::RS256, Alg::ES256] {
                keys.push(kms.new_envelope_key(alg, wrapping, now).await?);
            }
            keys
        }
    };
    for k in fresh {
        if set.keys.iter().any(|o| o.alg == k.alg) {
            return Err(SignError::Key(
                format!(
                    "SCANID_KMS_KEY_ID names two {} keys; give at most one per algorithm",
                    k.alg.as_str()
                )
                .into(),
            ));
        }
        let kid = k.kid.clone();
        set.push_next(k)?;
        set.activate(&kid, now)?;
    }
    match save_set(store, &set, None, now).await {
        Ok(()) => Ok((set, 1)),
        Err(SignError::Key(_)) => load_set(store, now)
            .await?
            .ok_or_else(|| SignError::Key("the key set vanished".into())),
        Err(e) => Err(e),
    }
}

#[async_trait]
impl BuildKeyring for Kms {
    async fn keyring(&self, set: &KeySet) -> Result<Keyring, SignError> {
        Kms::keyring(self, set).await
    }

    async fn wrap_new_key(
        &self,
        alg: Alg,
        wrapping_key_id: &str,
        now: Timestamp,
    ) -> Result<StoredKey, SignError> {
        self.new_envelope_key(alg, wrapping_key_id, now).await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use aws_lc_rs::encoding::AsDer;
    use aws_lc_rs::signature::{
        EcdsaKeyPair, KeyPair as _, UnparsedPublicKey, ECDSA_P256_SHA256_ASN1_SIGNING,
        ECDSA_P256_SHA256_FIXED,
    };
    use serde_json::{json, Value};

    use super::*;
    use crate::fake::{self, FakeAws};
    use scanid_core::keys::jwt;
    use scanid_core::store::memory::MemoryStore;

    const ISS: &str = "https://id.example.com/realms/scanid";
    const T0: Timestamp = Timestamp::from_secs(1_800_000_000);

    async fn sign_and_verify(ring: &Keyring, alg: Alg) {
        let claims = json!({ "iss": ISS, "sub": "s", "exp": T0.secs() + 60 });
        let t = jwt::encode(ring.signer(alg).unwrap().as_ref(), "JWT", &claims)
            .await
            .unwrap();
        let got: Value = jwt::verify(ring, &t, ISS, T0).unwrap();
        assert_eq!(got, claims);
    }

    #[test]
    fn der_signatures_become_raw_r_s() {
        let rng = aws_lc_rs::rand::SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &rng).unwrap();
        let key =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8.as_ref()).unwrap();
        let public = UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, key.public_key().as_ref());
        // Many signatures, so short r or s (leading zeros dropped in DER) and 33-byte ones
        // (a leading zero added) both occur.
        for i in 0..200u32 {
            let msg = i.to_be_bytes();
            let der = key.sign(&rng, &msg).unwrap();
            let raw = ecdsa_der_to_raw(der.as_ref()).unwrap();
            public.verify(&msg, &raw).unwrap();
        }
        for bad in [
            &[][..],
            &[0x30, 0x02, 0x02, 0x00],
            &[0x31, 0x00],
            &[0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x02, 0x01],
        ] {
            assert!(ecdsa_der_to_raw(bad).is_err(), "{bad:?}");
        }
        let too_long = [
            &[0x30, 0x26, 0x02, 0x21][..],
            &[1u8; 33],
            &[0x02, 0x01, 0x01],
        ]
        .concat();
        assert!(ecdsa_der_to_raw(&too_long).is_err());
    }

    #[test]
    fn spki_public_keys_become_jwks_with_the_same_kid_as_local_keys() {
        for alg in [Alg::RS256, Alg::ES256, Alg::PS256] {
            let (jwk, der) = generate(alg).unwrap();
            let spki: Vec<u8> = match alg {
                Alg::RS256 | Alg::PS256 => aws_lc_rs::signature::RsaKeyPair::from_pkcs8(&der)
                    .unwrap()
                    .public_key()
                    .as_der()
                    .unwrap()
                    .as_ref()
                    .to_vec(),
                Alg::ES256 => EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &der)
                    .unwrap()
                    .public_key()
                    .as_der()
                    .unwrap()
                    .as_ref()
                    .to_vec(),
                Alg::EdDSA => unreachable!(),
            };
            assert_eq!(spki_to_jwk(alg, &spki).unwrap(), jwk);
        }
        assert!(spki_to_jwk(Alg::ES256, b"junk").is_err());
        assert!(spki_to_jwk(Alg::RS256, b"junk").is_err());
    }

    async fn emulator_kms() -> Kms {
        let endpoint = crate::dynamo::testing::endpoint();
        Kms::from_config(&crate::emulator(&endpoint).await)
    }

    #[tokio::test]
    async fn kms_mode_signs_with_kms_and_the_jwks_verifies() {
        let kms = emulator_kms().await;
        let rsa = kms.create_key(Some(Alg::RS256), "t").await.unwrap();
        let ec = kms.create_key(Some(Alg::ES256), "t").await.unwrap();
        let store = MemoryStore::default();
        let ids = [rsa.clone(), ec];
        let set = load_or_create_set(&store, &kms, Bootstrap::Kms(&ids), T0)
            .await
            .unwrap()
            .0;
        let ring = kms.keyring(&set).await.unwrap();
        assert_eq!(ring.algs(), vec![Alg::ES256, Alg::RS256]);
        sign_and_verify(&ring, Alg::RS256).await;
        sign_and_verify(&ring, Alg::ES256).await;
        // A second start reads the same set (no new keys).
        let again = load_or_create_set(&store, &kms, Bootstrap::Kms(&[]), T0)
            .await
            .unwrap()
            .0;
        assert_eq!(
            again.keys.iter().map(|k| &k.kid).collect::<Vec<_>>(),
            set.keys.iter().map(|k| &k.kid).collect::<Vec<_>>()
        );
        // Two keys of one algorithm are refused.
        let store2 = MemoryStore::default();
        let twice = [rsa.clone(), rsa];
        assert!(
            load_or_create_set(&store2, &kms, Bootstrap::Kms(&twice), T0)
                .await
                .is_err()
        );
    }

    /// PS256 on an `RSA_2048` KMS key (`RSASSA_PSS_SHA_256`); EdDSA held by KMS is refused with
    /// the reason, before any KMS call.
    #[tokio::test]
    async fn kms_mode_signs_ps256_and_refuses_eddsa() {
        let kms = emulator_kms().await;
        let first = kms.create_key(Some(Alg::RS256), "t").await.unwrap();
        let store = MemoryStore::default();
        let (mut set, _) = load_or_create_set(&store, &kms, Bootstrap::Kms(&[first]), T0)
            .await
            .unwrap();
        let ps = kms.new_kms_key(Alg::PS256, None, "t", T0).await.unwrap();
        assert_eq!(ps.alg, Alg::PS256);
        let kid = ps.kid.clone();
        set.push_next(ps).unwrap();
        set.activate(&kid, T0).unwrap();
        let ring = kms.keyring(&set).await.unwrap();
        assert_eq!(ring.algs(), vec![Alg::PS256, Alg::RS256]);
        assert_eq!(ring.verifying_key(&kid).unwrap().jwk.alg, "PS256");
        let sig = ring.signer(Alg::PS256).unwrap().sign(b"x.y").await.unwrap();
        // moto signs RSASSA_PSS_SHA_256 with the longest salt (222 bytes), not the 32 bytes of
        // AWS KMS and RFC 7518 §3.5, so its signatures do not verify as JWS PS256: here only
        // that KMS signed with the key; the JWS verification of PS256 is the local keys' test.
        assert_eq!(sig.len(), 256, "an RSA-2048 signature");
        for err in [
            kms.create_key(Some(Alg::EdDSA), "t").await.unwrap_err(),
            kms.new_kms_key(Alg::EdDSA, Some("alias/x"), "t", T0)
                .await
                .unwrap_err(),
        ] {
            assert!(err.to_string().contains("kms-envelope"), "{err}");
        }
    }

    /// kms-envelope signs PS256 and EdDSA in memory like the others.
    #[tokio::test]
    async fn envelope_mode_signs_ps256_and_eddsa() {
        let fake = fake_kms(0).await;
        let kms = Kms::from_config(&crate::emulator(&fake.endpoint).await);
        let mut set = KeySet::default();
        for alg in [Alg::PS256, Alg::EdDSA] {
            let k = kms.new_envelope_key(alg, "wrap", T0).await.unwrap();
            let kid = k.kid.clone();
            set.push_next(k).unwrap();
            set.activate(&kid, T0).unwrap();
        }
        let ring = kms.keyring(&set).await.unwrap();
        sign_and_verify(&ring, Alg::PS256).await;
        sign_and_verify(&ring, Alg::EdDSA).await;
    }

    #[tokio::test]
    async fn a_symmetric_key_cannot_sign() {
        let kms = emulator_kms().await;
        let sym = kms.create_key(None, "t").await.unwrap();
        let err = kms.public_key(&sym, Alg::RS256).await.unwrap_err();
        assert!(
            err.to_string().contains("key spec") || err.to_string().contains("kms"),
            "{err}"
        );
    }

    #[tokio::test]
    async fn kms_rotation_pre_publishes_activates_and_retires() {
        let kms = emulator_kms().await;
        let first = kms.create_key(Some(Alg::RS256), "t").await.unwrap();
        let store = MemoryStore::default();
        load_or_create_set(&store, &kms, Bootstrap::Kms(&[first]), T0)
            .await
            .unwrap();
        let (mut set, v) = load_set(&store, T0).await.unwrap().unwrap();
        let old = set.keys[0].kid.clone();
        let next = kms.new_kms_key(Alg::RS256, None, "t", T0).await.unwrap();
        let next_kid = next.kid.clone();
        set.push_next(next).unwrap();
        save_set(&store, &set, Some(v), T0).await.unwrap();
        // A stale version is refused (two operators at once).
        assert!(save_set(&store, &set, Some(v), T0).await.is_err());
        let ring = kms.keyring(&set).await.unwrap();
        assert_eq!(ring.signer(Alg::RS256).unwrap().kid(), old);
        assert!(ring.verifying_key(&next_kid).is_some(), "pre-published");
        set.activate(&next_kid, T0).unwrap();
        let ring = kms.keyring(&set).await.unwrap();
        assert_eq!(ring.signer(Alg::RS256).unwrap().kid(), next_kid);
        assert!(ring.verifying_key(&old).is_some(), "retired still verifies");
        sign_and_verify(&ring, Alg::RS256).await;
    }

    #[tokio::test]
    async fn envelope_mode_decrypts_once_and_signs_locally() {
        let kms = emulator_kms().await;
        let wrapping = kms.create_key(None, "t").await.unwrap();
        let store = MemoryStore::default();
        let set = load_or_create_set(&store, &kms, Bootstrap::Envelope(&wrapping), T0)
            .await
            .unwrap()
            .0;
        let stored = serde_json::to_string(&set).unwrap();
        assert!(
            !stored.contains("pkcs8"),
            "no plaintext private key is stored"
        );
        let ring = kms.keyring(&set).await.unwrap();
        sign_and_verify(&ring, Alg::RS256).await;
        sign_and_verify(&ring, Alg::ES256).await;
    }

    /// A fake KMS: `Encrypt`/`Decrypt` are the identity, `Sign` signs with a local P-256 key
    /// (DER, as KMS does) after `throttle` throttled calls, `GetPublicKey` gives its SPKI.
    async fn fake_kms(throttle: usize) -> FakeAws {
        let rng = aws_lc_rs::rand::SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &rng).unwrap();
        let key =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8.as_ref()).unwrap();
        let spki = STANDARD.encode(key.public_key().as_der().unwrap().as_ref());
        let signs = AtomicUsize::new(0);
        FakeAws::start(move |target, body| {
            let req: Value = serde_json::from_slice(body).unwrap_or_default();
            let blob = |name: &str| STANDARD.decode(req[name].as_str().unwrap_or_default()).unwrap_or_default();
            match target.rsplit('.').next().unwrap_or_default() {
                "Encrypt" => (200, json!({ "CiphertextBlob": STANDARD.encode(blob("Plaintext")), "KeyId": req["KeyId"] }).to_string()),
                "Decrypt" => (200, json!({ "Plaintext": STANDARD.encode(blob("CiphertextBlob")), "KeyId": req["KeyId"] }).to_string()),
                "GetPublicKey" => (200, json!({ "KeyId": "arn:aws:kms:us-east-1:1:key/fake", "KeySpec": "ECC_NIST_P256", "KeyUsage": "SIGN_VERIFY", "PublicKey": spki }).to_string()),
                "Sign" if signs.fetch_add(1, Ordering::SeqCst) < throttle => {
                    (400, fake::error("ThrottlingException", "Rate exceeded"))
                }
                "Sign" => {
                    let sig = key.sign(&aws_lc_rs::rand::SystemRandom::new(), &blob("Message")).unwrap();
                    (200, json!({ "Signature": STANDARD.encode(sig.as_ref()), "KeyId": req["KeyId"] }).to_string())
                }
                _ => (400, fake::error("UnsupportedOperationException", "not faked")),
            }
        })
        .await
        .unwrap()
    }

    #[tokio::test]
    async fn envelope_mode_makes_zero_kms_calls_per_token() {
        let fake = fake_kms(0).await;
        let kms = Kms::from_config(&crate::emulator(&fake.endpoint).await);
        let store = MemoryStore::default();
        let set = load_or_create_set(&store, &kms, Bootstrap::Envelope("wrap"), T0)
            .await
            .unwrap()
            .0;
        assert_eq!(fake.count("Encrypt"), 2);
        let ring = kms.keyring(&set).await.unwrap();
        assert_eq!(
            fake.count("Decrypt"),
            0,
            "nothing decrypted until a key signs"
        );
        ring.warm().await.unwrap();
        assert_eq!(
            fake.count("Decrypt"),
            2,
            "one Decrypt per active key per cold start"
        );
        let before = fake.calls().len();
        for _ in 0..100 {
            sign_and_verify(&ring, Alg::RS256).await;
            sign_and_verify(&ring, Alg::ES256).await;
        }
        assert_eq!(fake.calls().len(), before, "200 tokens, zero KMS calls");
    }

    #[tokio::test]
    async fn kms_throttling_is_retried_and_an_outage_is_unavailable() {
        let fake = fake_kms(2).await;
        let kms = Kms::from_config(&crate::emulator(&fake.endpoint).await);
        let store = MemoryStore::default();
        let ids = ["alias/fake".to_owned()];
        let set = load_or_create_set(&store, &kms, Bootstrap::Kms(&ids), T0)
            .await
            .unwrap()
            .0;
        let ring = kms.keyring(&set).await.unwrap();
        sign_and_verify(&ring, Alg::ES256).await;
        assert_eq!(fake.count("Sign"), 3, "two throttled, then signed");

        let down = FakeAws::start(|_, _| (500, fake::error("KMSInternalException", "boom")))
            .await
            .unwrap();
        let kms_down = Kms::from_config(&crate::emulator(&down.endpoint).await);
        let ring = kms_down.keyring(&set).await.unwrap();
        let err = jwt::encode(ring.signer(Alg::ES256).unwrap().as_ref(), "JWT", &json!({}))
            .await
            .unwrap_err();
        assert!(matches!(err, SignError::Unavailable(_)), "{err:?}");
    }
}
