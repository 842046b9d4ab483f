//! The sealing key of `client_secret_jwt` clients' secrets with `SCANID_SIGNING=kms-envelope`
//! ([`scanid_core::keys::seal`]): 32 random bytes made by scanid, encrypted by the table's KMS
//! wrapping key (the encryption context names the purpose, [`PURPOSE`]), and kept in the table
//! beside the key set (`signing_key#sealing`). The first process that seals a secret (the admin
//! API, client registration, the CLI) creates it with a conditional write, so two processes
//! racing keep the same key; every process decrypts it at most once, on first use (no KMS call
//! at init, none per token after that).

use std::sync::Arc;

use async_trait::async_trait;
use aws_sdk_kms::primitives::Blob;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use scanid_core::clock::Timestamp;
use scanid_core::keys::seal::{SealingKey, SealingKeys};
use scanid_core::keys::SignError;
use scanid_core::random::Random;
use scanid_core::store::{Backend, Cond, Key, Kind, Record, StoreError};

use crate::kms::Kms;

/// The encryption context's key and value on the sealing key's `Encrypt` and `Decrypt` (the
/// template's IAM policy for it asks for them).
pub const PURPOSE: (&str, &str) = ("scanid-purpose", "client-secret-sealing");

/// The sealing key's record id (kind `signing_key`).
const SEALING_ID: &str = "sealing";

/// Encrypts and decrypts small values under a KMS key with [`PURPOSE`] as the encryption
/// context ([`Kms`]; a fake in tests).
#[async_trait]
pub trait Wrap: Send + Sync {
    /// `plain` encrypted under `key_id`.
    async fn wrap(&self, key_id: &str, plain: &[u8]) -> Result<Vec<u8>, SignError>;
    /// What [`Wrap::wrap`] encrypted.
    async fn unwrap(&self, key_id: &str, ciphertext: &[u8]) -> Result<Vec<u8>, SignError>;
}

fn kms_err(op: &'static str, detail: String) -> SignError {
    tracing::error!(op, error = %detail, "kms call failed");
    SignError::Unavailable(format!("kms {op}: {detail}").into())
}

#[async_trait]
impl Wrap for Kms {
    async fn wrap(&self, key_id: &str, plain: &[u8]) -> Result<Vec<u8>, SignError> {
        let out = self
            .client
            .encrypt()
            .key_id(key_id)
            .plaintext(Blob::new(plain))
            .encryption_context(PURPOSE.0, PURPOSE.1)
            .send()
            .await
            .map_err(|e| kms_err("encrypt", crate::error_detail(&e)))?;
        out.ciphertext_blob()
            .map(|b| b.as_ref().to_vec())
            .ok_or_else(|| SignError::Key("Encrypt returned no ciphertext".into()))
    }

    async fn unwrap(&self, key_id: &str, ciphertext: &[u8]) -> Result<Vec<u8>, SignError> {
        let out = self
            .client
            .decrypt()
            .key_id(key_id)
            .ciphertext_blob(Blob::new(ciphertext))
            .encryption_context(PURPOSE.0, PURPOSE.1)
            .send()
            .await
            .map_err(|e| kms_err("decrypt", crate::error_detail(&e)))?;
        out.plaintext()
            .map(|b| b.as_ref().to_vec())
            .ok_or_else(|| SignError::Key("Decrypt returned no plaintext".into()))
    }
}

/// The sealing key in the table, wrapped by KMS, unwrapped once per process.
pub struct KmsSealing {
    wrap: Arc<dyn Wrap>,
    wrapping_key_id: String,
    store: Arc<dyn Backend>,
    random: Arc<dyn Random>,
    now: Timestamp,
    create: bool,
    key: tokio::sync::OnceCell<Arc<SealingKey>>,
}

impl KmsSealing {
    /// The sealing key of `store`, wrapped by `wrapping_key_id` through `wrap`; made with
    /// `random` when there is none yet and `create` (the processes that seal secrets, whose
    /// IAM policy allows `kms:Encrypt`; the others only open what those sealed).
    pub fn new(
        wrap: Arc<dyn Wrap>,
        wrapping_key_id: &str,
        store: Arc<dyn Backend>,
        random: Arc<dyn Random>,
        now: Timestamp,
        create: bool,
    ) -> Self {
        Self {
            wrap,
            wrapping_key_id: wrapping_key_id.to_owned(),
            store,
            random,
            now,
            create,
            key: tokio::sync::OnceCell::new(),
        }
    }

    async fn load_or_create(&self) -> Result<SealingKey, SignError> {
        let key = Key::new(Kind::SigningKey, SEALING_ID);
        let store_err = |e: StoreError| SignError::Unavailable(format!("sealing key: {e}").into());
        if let Some(rec) = self.store.get(&key, self.now).await.map_err(store_err)? {
            return self.open(&rec).await;
        }
        if !self.create {
            return Err(SignError::Key(
                "no sealing key in the table yet (it is made when a client_secret_jwt client \
                 is first created)"
                    .into(),
            ));
        }
        let mut bytes = [0u8; 32];
        self.random.fill(&mut bytes);
        let ciphertext = self.wrap.wrap(&self.wrapping_key_id, &bytes).await?;
        let value = serde_json::json!({
            "wrapping_key_id": self.wrapping_key_id,
            "ciphertext": STANDARD.encode(ciphertext),
        });
        let rec = Record::new(key.clone(), &value, None).map_err(store_err)?;
        match self.store.put(rec, Cond::Absent, self.now).await {
            Ok(()) => SealingKey::from_bytes(&bytes),
            // Another process made it first: keep theirs.
            Err(StoreError::ConditionFailed) => match self.store.get(&key, self.now).await {
                Ok(Some(rec)) => self.open(&rec).await,
                Ok(None) => Err(SignError::Unavailable("sealing key: not found".into())),
                Err(e) => Err(store_err(e)),
            },
            Err(e) => Err(store_err(e)),
        }
    }

    async fn open(&self, rec: &Record) -> Result<SealingKey, SignError> {
        let bad = || SignError::Key("the sealing key's record is malformed".into());
        let value: serde_json::Value = rec.value().map_err(|_| bad())?;
        let wrapping = value["wrapping_key_id"].as_str().ok_or_else(bad)?;
        let ciphertext = value["ciphertext"]
            .as_str()
            .and_then(|c| STANDARD.decode(c).ok())
            .ok_or_else(bad)?;
        let bytes = self.wrap.unwrap(wrapping, &ciphertext).await?;
        SealingKey::from_bytes(&bytes)
    }
}

#[async_trait]
impl SealingKeys for KmsSealing {
    async fn key(&self) -> Result<Arc<SealingKey>, SignError> {
        self.key
            .get_or_try_init(|| async { self.load_or_create().await.map(Arc::new) })
            .await
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scanid_core::random::SystemRandom;
    use scanid_core::store::memory::MemoryStore;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A KMS that XORs with a fixed byte and counts its calls.
    #[derive(Default)]
    struct FakeKms {
        wraps: AtomicUsize,
        unwraps: AtomicUsize,
    }

    #[async_trait]
    impl Wrap for FakeKms {
        async fn wrap(&self, _: &str, plain: &[u8]) -> Result<Vec<u8>, SignError> {
            self.wraps.fetch_add(1, Ordering::SeqCst);
            Ok(plain.iter().map(|b| b ^ 0x5a).collect())
        }
        async fn unwrap(&self, _: &str, ct: &[u8]) -> Result<Vec<u8>, SignError> {
            self.unwraps.fetch_add(1, Ordering::SeqCst);
            Ok(ct.iter().map(|b| b ^ 0x5a).collect())
        }
    }

    fn sealing(kms: &Arc<FakeKms>, store: &Arc<MemoryStore>, create: bool) -> KmsSealing {
        KmsSealing::new(
            kms.clone(),
            "arn:aws:kms:eu-west-1:1:key/wrap",
            store.clone(),
            Arc::new(SystemRandom::new()),
            Timestamp::from_secs(1_800_000_000),
            create,
        )
    }

    /// The process that makes the key wraps it once and never unwraps it; another process
    /// (a second container) unwraps it once, then opens every secret with no KMS call; a
    /// reader finds no key until one is made.
    #[tokio::test]
    async fn one_unwrap_per_process_and_none_per_token() {
        let store = Arc::new(MemoryStore::default());
        let kms = Arc::new(FakeKms::default());
        assert!(sealing(&kms, &store, false).key().await.is_err());
        assert_eq!(kms.wraps.load(Ordering::SeqCst), 0);

        let first = sealing(&kms, &store, true);
        let rng = SystemRandom::new();
        let sealed = first
            .key()
            .await
            .unwrap()
            .seal(b"s3cret", "client-1", &rng)
            .unwrap();
        assert_eq!(kms.wraps.load(Ordering::SeqCst), 1);
        assert_eq!(kms.unwraps.load(Ordering::SeqCst), 0);

        let second = sealing(&kms, &store, false);
        for _ in 0..50 {
            let opened = second.key().await.unwrap().open(&sealed, "client-1");
            assert_eq!(opened.as_deref(), Some(&b"s3cret"[..]));
        }
        assert_eq!(kms.unwraps.load(Ordering::SeqCst), 1);
        assert_eq!(kms.wraps.load(Ordering::SeqCst), 1);

        // A third process that may create keeps the stored key (no new one is made).
        let third = sealing(&kms, &store, true);
        assert!(third
            .key()
            .await
            .unwrap()
            .open(&sealed, "client-1")
            .is_some());
        assert_eq!(kms.wraps.load(Ordering::SeqCst), 1);
        assert_eq!(kms.unwraps.load(Ordering::SeqCst), 2);
    }

    /// Two processes racing to make the key agree on one: the loser's conditional write fails
    /// and it opens the winner's.
    #[tokio::test]
    async fn racing_creators_agree() {
        let store = Arc::new(MemoryStore::default());
        let kms = Arc::new(FakeKms::default());
        let (a, b) = (sealing(&kms, &store, true), sealing(&kms, &store, true));
        let (ka, kb) = tokio::join!(a.key(), b.key());
        let rng = SystemRandom::new();
        let sealed = ka.unwrap().seal(b"x", "c", &rng).unwrap();
        assert_eq!(kb.unwrap().open(&sealed, "c").as_deref(), Some(&b"x"[..]));
    }
}
