//! Local signing keys: a key file in the data dir (mode 0600), generated on first start.
//!
//! The file holds PKCS#8 private keys with their state (`next`, `active`, `retired`). Writes
//! replace the file atomically (write a temp file, fsync, rename), and the first creation uses a
//! hard link so two processes starting at once agree on one set of keys.

use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::rsa::KeySize;
use aws_lc_rs::signature::{
    EcdsaKeyPair, Ed25519KeyPair, KeyPair as _, RsaKeyPair, ECDSA_P256_SHA256_FIXED_SIGNING,
    RSA_PKCS1_SHA256, RSA_PSS_SHA256,
};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde::{Deserialize, Serialize};

use super::{Alg, Jwk, KeyState, Keyring, SignError, Signer};
use crate::clock::Timestamp;

/// The key file's name inside the data dir.
pub const KEY_FILE: &str = "signing-keys.json";

/// Creates `dir` (and parents) readable by the owner only.
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir)
}

/// One key as stored.
#[derive(Clone, Serialize, Deserialize)]
pub struct StoredKey {
    /// The key's id.
    pub kid: String,
    /// Its algorithm.
    pub alg: Alg,
    /// Where it is in its rotation.
    pub state: KeyState,
    /// When it was made.
    pub created_at: Timestamp,
    /// When it started signing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activated_at: Option<Timestamp>,
    /// When it stopped signing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired_at: Option<Timestamp>,
    /// Where the private key is.
    #[serde(flatten)]
    pub material: Material,
}

/// Where a key's private half lives.
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Material {
    /// In this file: PKCS#8 DER, standard base64 (`SCANID_SIGNING=local`).
    Pkcs8(String),
    /// In KMS; it never leaves it (`SCANID_SIGNING=kms`). The public key came from
    /// `GetPublicKey` when the key was registered.
    Kms {
        /// The KMS key.
        key_id: String,
        /// Its public key, as published.
        public: Jwk,
    },
    /// PKCS#8 DER encrypted by a KMS key (`SCANID_SIGNING=kms-envelope`); decrypted once per
    /// cold start, and only while the key is active.
    Envelope {
        /// The KMS key that encrypted it.
        wrapping_key_id: String,
        /// The KMS ciphertext blob, standard base64.
        ciphertext: String,
        /// The public key, as published.
        public: Jwk,
    },
}

impl std::fmt::Debug for StoredKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredKey")
            .field("kid", &self.kid)
            .field("alg", &self.alg)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

enum KeyMaterial {
    /// RS256 (PKCS#1 v1.5) or PS256 (PSS) by the flag.
    Rsa(RsaKeyPair, Alg),
    Ec(EcdsaKeyPair),
    Ed(Ed25519KeyPair),
}

fn key_err(e: impl std::fmt::Display) -> SignError {
    SignError::Key(e.to_string().into())
}

impl KeyMaterial {
    fn generate(alg: Alg) -> Result<(Self, Vec<u8>), SignError> {
        match alg {
            Alg::RS256 | Alg::PS256 => {
                let k = RsaKeyPair::generate(KeySize::Rsa2048).map_err(key_err)?;
                let der = k.as_der().map_err(key_err)?.as_ref().to_vec();
                Ok((Self::Rsa(k, alg), der))
            }
            Alg::EdDSA => {
                let k = Ed25519KeyPair::generate().map_err(key_err)?;
                let der = k.to_pkcs8v1().map_err(key_err)?.as_ref().to_vec();
                Ok((Self::Ed(k), der))
            }
            Alg::ES256 => {
                let k =
                    EcdsaKeyPair::generate(&ECDSA_P256_SHA256_FIXED_SIGNING).map_err(key_err)?;
                let der = k.to_pkcs8v1().map_err(key_err)?.as_ref().to_vec();
                Ok((Self::Ec(k), der))
            }
        }
    }

    fn from_pkcs8(alg: Alg, der: &[u8]) -> Result<Self, SignError> {
        match alg {
            Alg::RS256 | Alg::PS256 => Ok(Self::Rsa(
                RsaKeyPair::from_pkcs8(der).map_err(key_err)?,
                alg,
            )),
            Alg::EdDSA => Ok(Self::Ed(Ed25519KeyPair::from_pkcs8(der).map_err(key_err)?)),
            Alg::ES256 => Ok(Self::Ec(
                EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, der).map_err(key_err)?,
            )),
        }
    }

    fn jwk(&self) -> Result<Jwk, SignError> {
        match self {
            Self::Rsa(k, alg) => {
                let p = k.public_key();
                Ok(Jwk::rsa_for(
                    *alg,
                    p.modulus().big_endian_without_leading_zero(),
                    p.exponent().big_endian_without_leading_zero(),
                ))
            }
            Self::Ec(k) => Jwk::p256(k.public_key().as_ref()),
            Self::Ed(k) => Jwk::ed25519(k.public_key().as_ref()),
        }
    }
}

/// A signer holding its private key in memory.
pub struct LocalSigner {
    kid: String,
    alg: Alg,
    key: KeyMaterial,
}

impl LocalSigner {
    /// A signer from PKCS#8 DER (also used by KMS-envelope once the key is decrypted).
    pub fn from_pkcs8(alg: Alg, der: &[u8]) -> Result<(Self, Jwk), SignError> {
        let key = KeyMaterial::from_pkcs8(alg, der)?;
        let jwk = key.jwk()?;
        Ok((
            Self {
                kid: jwk.kid.clone(),
                alg,
                key,
            },
            jwk,
        ))
    }
}

#[async_trait]
impl Signer for LocalSigner {
    fn alg(&self) -> Alg {
        self.alg
    }
    fn kid(&self) -> &str {
        &self.kid
    }
    async fn sign(&self, signing_input: &[u8]) -> Result<Vec<u8>, SignError> {
        let rng = aws_lc_rs::rand::SystemRandom::new();
        match &self.key {
            KeyMaterial::Rsa(k, alg) => {
                let padding = if *alg == Alg::PS256 {
                    &RSA_PSS_SHA256
                } else {
                    &RSA_PKCS1_SHA256
                };
                let mut sig = vec![0u8; k.public_modulus_len()];
                k.sign(padding, &rng, signing_input, &mut sig)
                    .map_err(key_err)?;
                Ok(sig)
            }
            KeyMaterial::Ed(k) => Ok(k
                .try_sign(signing_input)
                .map_err(key_err)?
                .as_ref()
                .to_vec()),
            KeyMaterial::Ec(k) => Ok(k
                .sign(&rng, signing_input)
                .map_err(key_err)?
                .as_ref()
                .to_vec()),
        }
    }
}

/// The key file's content.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct KeySet {
    /// The keys, every state.
    pub keys: Vec<StoredKey>,
}

impl KeySet {
    /// The key file in `data_dir`.
    pub fn path(data_dir: &Path) -> PathBuf {
        data_dir.join(KEY_FILE)
    }

    /// Reads the key file, creating it with one active RS256 and one active ES256 key on
    /// first use.
    pub fn load_or_create(data_dir: &Path, now: Timestamp) -> Result<Self, SignError> {
        Self::load_or_create_with(data_dir, now, Alg::RS256)
    }

    /// [`Self::load_or_create`], a new file also holding an active key for `default` (the
    /// service's `SCANID_SIGNING_ALG`) when it is PS256 or EdDSA.
    pub fn load_or_create_with(
        data_dir: &Path,
        now: Timestamp,
        default: Alg,
    ) -> Result<Self, SignError> {
        let path = Self::path(data_dir);
        match Self::read(&path) {
            Ok(Some(f)) => return Ok(f),
            Ok(None) => {}
            Err(e) => return Err(e),
        }
        create_private_dir(data_dir)
            .map_err(|e| SignError::Key(format!("{}: {e}", data_dir.display()).into()))?;
        let mut file = KeySet::default();
        let extra = (!matches!(default, Alg::RS256 | Alg::ES256)).then_some(default);
        for alg in [Alg::RS256, Alg::ES256].into_iter().chain(extra) {
            let mut k = new_key(alg, now)?;
            k.state = KeyState::Active;
            k.activated_at = Some(now);
            file.keys.push(k);
        }
        let tmp = file.write_temp(data_dir)?;
        // Create-if-absent: a concurrent first start keeps whichever file landed first.
        let linked = std::fs::hard_link(&tmp, &path);
        let _ = std::fs::remove_file(&tmp);
        match linked {
            Ok(()) => Ok(file),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                Self::read(&path)?.ok_or_else(|| SignError::Key("key file vanished".into()))
            }
            Err(e) => Err(SignError::Key(format!("{}: {e}", path.display()).into())),
        }
    }

    /// Reads the key file in `data_dir`, if there is one (never creates it).
    pub fn load(data_dir: &Path) -> Result<Option<Self>, SignError> {
        Self::read(&Self::path(data_dir))
    }

    fn read(path: &Path) -> Result<Option<Self>, SignError> {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| SignError::Key(format!("{}: {e}", path.display()).into())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(SignError::Key(format!("{}: {e}", path.display()).into())),
        }
    }

    fn write_temp(&self, data_dir: &Path) -> Result<PathBuf, SignError> {
        let tmp = data_dir.join(format!(".{KEY_FILE}.{}.tmp", std::process::id()));
        let io = |e: std::io::Error| SignError::Key(format!("{}: {e}", tmp.display()).into());
        let mut opts = OpenOptions::new();
        opts.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
        let mut f = opts.open(&tmp).map_err(io)?;
        let json = serde_json::to_vec_pretty(self).map_err(key_err)?;
        f.write_all(&json).map_err(io)?;
        f.sync_all().map_err(io)?;
        Ok(tmp)
    }

    /// Replaces the key file atomically.
    pub fn save(&self, data_dir: &Path) -> Result<(), SignError> {
        let tmp = self.write_temp(data_dir)?;
        std::fs::rename(&tmp, Self::path(data_dir))
            .map_err(|e| SignError::Key(format!("{}: {e}", Self::path(data_dir).display()).into()))
    }

    /// The keyring: active keys sign; next, active and retired keys are published.
    pub fn keyring(&self) -> Result<Keyring, SignError> {
        let mut signers: Vec<Arc<dyn Signer>> = Vec::new();
        let mut published = Vec::new();
        for k in &self.keys {
            let Material::Pkcs8(pkcs8) = &k.material else {
                return Err(SignError::Key(
                    format!(
                        "key {} is held by KMS; set SCANID_SIGNING to kms or kms-envelope",
                        k.kid
                    )
                    .into(),
                ));
            };
            let der = STANDARD.decode(pkcs8).map_err(key_err)?;
            let (signer, jwk) = LocalSigner::from_pkcs8(k.alg, &der)?;
            if jwk.kid != k.kid {
                return Err(SignError::Key(
                    format!("key {}: kid does not match the key", k.kid).into(),
                ));
            }
            if k.state == KeyState::Active {
                signers.push(Arc::new(signer));
            }
            published.push(jwk);
        }
        Keyring::new(signers, published)
    }

    /// Rotation step 1: a new key for `alg`, published but not yet signing.
    pub fn add_next(&mut self, alg: Alg, now: Timestamp) -> Result<&StoredKey, SignError> {
        self.check_no_next(alg)?;
        self.push_next(new_key(alg, now)?)
    }

    /// Rotation step 1 with a key made elsewhere (in KMS).
    pub fn push_next(&mut self, key: StoredKey) -> Result<&StoredKey, SignError> {
        self.check_no_next(key.alg)?;
        self.keys.push(key);
        self.keys
            .last()
            .ok_or_else(|| SignError::Key("empty".into()))
    }

    fn check_no_next(&self, alg: Alg) -> Result<(), SignError> {
        if self
            .keys
            .iter()
            .any(|k| k.alg == alg && k.state == KeyState::Next)
        {
            return Err(SignError::Key(
                format!(
                    "a next {} key exists already; activate it first",
                    alg.as_str()
                )
                .into(),
            ));
        }
        Ok(())
    }

    /// Rotation step 2: `kid` signs from now on; the key it replaces is retired (still
    /// published, so tokens it signed keep verifying).
    pub fn activate(&mut self, kid: &str, now: Timestamp) -> Result<(), SignError> {
        let alg = self
            .keys
            .iter()
            .find(|k| k.kid == kid)
            .map(|k| k.alg)
            .ok_or_else(|| SignError::Key(format!("no key {kid}").into()))?;
        for k in self.keys.iter_mut().filter(|k| k.alg == alg) {
            if k.kid == kid {
                k.state = KeyState::Active;
                k.activated_at = Some(now);
                k.retired_at = None;
            } else if k.state == KeyState::Active {
                k.state = KeyState::Retired;
                k.retired_at = Some(now);
            }
        }
        Ok(())
    }

    /// Rotation step 3: forget a retired key. Refused while a token it signed may still be
    /// live (retired less than `max_token_lifetime` seconds ago) unless `force`.
    pub fn remove(
        &mut self,
        kid: &str,
        now: Timestamp,
        max_token_lifetime: i64,
        force: bool,
    ) -> Result<(), SignError> {
        let k = self
            .keys
            .iter()
            .find(|k| k.kid == kid)
            .ok_or_else(|| SignError::Key(format!("no key {kid}").into()))?;
        match (k.state, k.retired_at) {
            (KeyState::Active, _) => return Err(SignError::Key(format!("{kid} is active; activate another key first").into())),
            (KeyState::Retired, Some(at)) if !force && now < at.plus_secs(max_token_lifetime) => {
                return Err(SignError::Key(format!(
                    "{kid} was retired less than {max_token_lifetime} s ago; tokens it signed may be live (use --force)"
                ).into()))
            }
            _ => {}
        }
        self.keys.retain(|k| k.kid != kid);
        Ok(())
    }
}

/// A new local key for `alg` (PKCS#8 in the key file), in state `next`.
pub fn new_key(alg: Alg, now: Timestamp) -> Result<StoredKey, SignError> {
    let (jwk, der) = generate(alg)?;
    Ok(StoredKey::next(
        jwk,
        alg,
        now,
        Material::Pkcs8(STANDARD.encode(der)),
    ))
}

/// A fresh key pair: its public JWK and its PKCS#8 DER.
pub fn generate(alg: Alg) -> Result<(Jwk, Vec<u8>), SignError> {
    let (material, der) = KeyMaterial::generate(alg)?;
    Ok((material.jwk()?, der))
}

impl StoredKey {
    /// A key in state `next` (published, not signing).
    pub fn next(public: Jwk, alg: Alg, now: Timestamp, material: Material) -> Self {
        Self {
            kid: public.kid,
            alg,
            state: KeyState::Next,
            created_at: now,
            activated_at: None,
            retired_at: None,
            material,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_start_creates_a_private_key_file_and_reuses_it() {
        let dir = tempfile::tempdir().unwrap();
        let now = Timestamp::from_secs(1000);
        let a = KeySet::load_or_create(dir.path(), now).unwrap();
        let b = KeySet::load_or_create(dir.path(), now).unwrap();
        assert_eq!(
            a.keys.iter().map(|k| &k.kid).collect::<Vec<_>>(),
            b.keys.iter().map(|k| &k.kid).collect::<Vec<_>>()
        );
        assert_eq!(a.keys.len(), 2);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(KeySet::path(dir.path()))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let ring = a.keyring().unwrap();
        assert_eq!(ring.algs(), vec![Alg::ES256, Alg::RS256]);
        let Material::Pkcs8(secret) = &a.keys[0].material else {
            panic!("local keys are PKCS#8")
        };
        assert!(!format!("{:?}", a.keys[0]).contains(secret.as_str()));
    }

    #[test]
    fn rotation_publishes_next_then_activates_then_retires() {
        let dir = tempfile::tempdir().unwrap();
        let t0 = Timestamp::from_secs(1000);
        let mut f = KeySet::load_or_create(dir.path(), t0).unwrap();
        let old = f
            .keys
            .iter()
            .find(|k| k.alg == Alg::RS256)
            .unwrap()
            .kid
            .clone();
        let next = f.add_next(Alg::RS256, t0).unwrap().kid.clone();
        assert!(
            f.add_next(Alg::RS256, t0).is_err(),
            "one next key at a time"
        );
        let ring = f.keyring().unwrap();
        assert_eq!(
            ring.signer(Alg::RS256).unwrap().kid(),
            old,
            "next does not sign yet"
        );
        assert!(ring.verifying_key(&next).is_some(), "next is published");
        f.activate(&next, t0).unwrap();
        let ring = f.keyring().unwrap();
        assert_eq!(ring.signer(Alg::RS256).unwrap().kid(), next);
        assert!(ring.verifying_key(&old).is_some(), "retired still verifies");
        assert!(
            f.remove(&next, t0, 3600, false).is_err(),
            "active cannot be removed"
        );
        assert!(
            f.remove(&old, t0.plus_secs(10), 3600, false).is_err(),
            "too early"
        );
        f.remove(&old, t0.plus_secs(3600), 3600, false).unwrap();
        f.save(dir.path()).unwrap();
        let again = KeySet::load_or_create(dir.path(), t0)
            .unwrap()
            .keyring()
            .unwrap();
        assert!(again.verifying_key(&old).is_none());
        assert_eq!(again.signer(Alg::RS256).unwrap().kid(), next);
    }
}
