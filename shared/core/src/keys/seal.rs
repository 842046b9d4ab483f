//! The sealing key: AES-256-GCM over the secrets scanid must be able to read back, today only
//! those of `client_secret_jwt` clients (RFC 7523 §2.2: an HMAC keyed with the client secret,
//! which a hash of the secret cannot check). A sealed secret is bound to its client (the
//! client id is the additional data), so a sealed value copied to another client does not
//! open.
//!
//! The key is held as the signing keys are, never in the clear in the store: `scanid serve`
//! and the CLI keep it in a file of the data dir beside `signing-keys.json` ([`LocalSealing`],
//! created on first use, readable by the owner only); on AWS (`SCANID_SIGNING=kms-envelope`)
//! it is encrypted by the KMS key and kept in the table (`scanid_aws::seal::KmsSealing`),
//! decrypted at most once per process. A copy of the store alone reveals no secret.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use aws_lc_rs::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM, NONCE_LEN};
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;

use super::SignError;
use crate::random::Random;

/// The sealing key file's name inside the data dir.
pub const SEAL_FILE: &str = "sealing-key";

/// What a sealed value starts with (its format and algorithm).
const PREFIX: &str = "A256GCM.";

/// An AES-256-GCM key that seals and opens values bound to a context string.
pub struct SealingKey(LessSafeKey);

impl std::fmt::Debug for SealingKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SealingKey(<redacted>)")
    }
}

impl SealingKey {
    /// The key of 32 raw bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, SignError> {
        UnboundKey::new(&AES_256_GCM, bytes)
            .map(|k| Self(LessSafeKey::new(k)))
            .map_err(|_| SignError::Key("the sealing key is not 32 bytes".into()))
    }

    /// `plain` sealed for `context` (a fresh 96-bit nonce from `rng`): `A256GCM.<nonce>.<ct>`.
    pub fn seal(&self, plain: &[u8], context: &str, rng: &dyn Random) -> Result<String, SignError> {
        let mut nonce = [0u8; NONCE_LEN];
        rng.fill(&mut nonce);
        let mut out = plain.to_vec();
        self.0
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(context.as_bytes()),
                &mut out,
            )
            .map_err(|_| SignError::Key("sealing failed".into()))?;
        Ok(format!(
            "{PREFIX}{}.{}",
            URL_SAFE_NO_PAD.encode(nonce),
            URL_SAFE_NO_PAD.encode(out)
        ))
    }

    /// What [`SealingKey::seal`] sealed for `context`; `None` if it was sealed for another
    /// context or by another key, or altered.
    pub fn open(&self, sealed: &str, context: &str) -> Option<Vec<u8>> {
        let (nonce, ct) = sealed.strip_prefix(PREFIX)?.split_once('.')?;
        let nonce: [u8; NONCE_LEN] = URL_SAFE_NO_PAD.decode(nonce).ok()?.try_into().ok()?;
        let mut buf = URL_SAFE_NO_PAD.decode(ct).ok()?;
        let plain = self
            .0
            .open_in_place(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(context.as_bytes()),
                &mut buf,
            )
            .ok()?;
        Some(plain.to_vec())
    }
}

/// Where the sealing key comes from: read (and made, the first time) when first needed.
#[async_trait]
pub trait SealingKeys: Send + Sync {
    /// The sealing key.
    async fn key(&self) -> Result<Arc<SealingKey>, SignError>;
}

/// The sealing key in the data dir (`scanid serve` and the CLI with local signing keys): 32
/// random bytes, standard base64, in [`SEAL_FILE`] (mode 0600), read once.
pub struct LocalSealing {
    path: PathBuf,
    random: Arc<dyn Random>,
    key: tokio::sync::OnceCell<Arc<SealingKey>>,
}

impl LocalSealing {
    /// The sealing key of `data_dir`, created with `random` when there is none yet.
    pub fn new(data_dir: &Path, random: Arc<dyn Random>) -> Self {
        Self {
            path: data_dir.join(SEAL_FILE),
            random,
            key: tokio::sync::OnceCell::new(),
        }
    }

    fn load_or_create(&self) -> Result<SealingKey, SignError> {
        let err =
            |e: std::io::Error| SignError::Key(format!("{}: {e}", self.path.display()).into());
        match std::fs::read_to_string(&self.path) {
            Ok(text) => {
                let bytes = STANDARD.decode(text.trim()).map_err(|_| {
                    SignError::Key(format!("{}: not base64", self.path.display()).into())
                })?;
                return SealingKey::from_bytes(&bytes);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(err(e)),
        }
        if let Some(dir) = self.path.parent() {
            super::local::create_private_dir(dir).map_err(err)?;
        }
        let mut bytes = [0u8; 32];
        self.random.fill(&mut bytes);
        let mut opts = std::fs::OpenOptions::new();
        // create_new: two processes starting together keep the first one's key.
        opts.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
        match opts.open(&self.path) {
            Ok(mut f) => {
                f.write_all(STANDARD.encode(bytes).as_bytes())
                    .map_err(err)?;
                f.sync_all().map_err(err)?;
                SealingKey::from_bytes(&bytes)
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => self.load_or_create(),
            Err(e) => Err(err(e)),
        }
    }
}

#[async_trait]
impl SealingKeys for LocalSealing {
    async fn key(&self) -> Result<Arc<SealingKey>, SignError> {
        self.key
            .get_or_try_init(|| async { self.load_or_create().map(Arc::new) })
            .await
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::SeededRandom;

    #[tokio::test]
    async fn a_sealed_secret_opens_only_for_its_client_and_key() {
        let dir = tempfile::tempdir().unwrap();
        let rng: Arc<dyn Random> = Arc::new(SeededRandom::new(7));
        let local = LocalSealing::new(dir.path(), rng.clone());
        let key = local.key().await.unwrap();
        let sealed = key.seal(b"s3cret", "bank", rng.as_ref()).unwrap();
        assert!(!sealed.contains("s3cret"));
        assert_eq!(key.open(&sealed, "bank").as_deref(), Some(&b"s3cret"[..]));
        assert_eq!(key.open(&sealed, "other"), None, "bound to its client");
        let mut altered = sealed.clone();
        altered.pop();
        altered.push('A');
        assert_eq!(key.open(&altered, "bank"), None);
        // The file is reused by the next process; another data dir has another key.
        let again = LocalSealing::new(dir.path(), rng.clone())
            .key()
            .await
            .unwrap();
        assert_eq!(again.open(&sealed, "bank").as_deref(), Some(&b"s3cret"[..]));
        let other_dir = tempfile::tempdir().unwrap();
        let other = LocalSealing::new(other_dir.path(), Arc::new(SeededRandom::new(8)));
        assert_eq!(other.key().await.unwrap().open(&sealed, "bank"), None);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(SEAL_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
