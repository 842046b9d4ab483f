//! The keys a running process holds, kept fresh: the key set is checked again when it is
//! older than [`RELOAD_SECS`], so `scanid keys rotate|remove` reach warm Lambda functions and a
//! running `scanid serve` within a minute, without a redeploy or restart.
//!
//! The check is cheap and off the common path: requests read the current [`Keyring`] through
//! an `ArcSwap` (no lock); once a minute one request (the others go on with the current keys)
//! reads the key set's version (the store) or the key file's digest (local) and rebuilds the
//! keyring only when it changed. A failed check keeps the keys it has and is retried a minute
//! later. Rebuilding creates signers anew; in kms-envelope mode the new active signer decrypts
//! its key once, at its first signature: zero KMS calls per token still holds.
//!
//! Timing (docs/requirements.md D2): a `next` key is published [`PUBLISH_BEFORE_ACTIVATE_SECS`] before
//! it may sign; every process sees it within [`RELOAD_SECS`], and relying parties cache the
//! JWKS for at most [`JWKS_MAX_AGE_SECS`], so `RELOAD + MAX_AGE <= PUBLISH_BEFORE_ACTIVATE`.

use std::path::PathBuf;
use std::sync::Arc;

use arc_swap::ArcSwap;

use crate::clock::Timestamp;
use crate::keys::local::KeySet;
use crate::keys::set::{load_set, Builder};
use crate::keys::{Keyring, SignError};
use crate::store::Backend;

/// How old the held key set may get before it is checked again.
pub const RELOAD_SECS: i64 = 60;
/// How long a `next` key is published before `scanid keys rotate` may activate it.
pub const PUBLISH_BEFORE_ACTIVATE_SECS: i64 = 300;
/// How long relying parties may cache the JWKS.
pub const JWKS_MAX_AGE_SECS: i64 = PUBLISH_BEFORE_ACTIVATE_SECS - RELOAD_SECS;
const _: () = assert!(RELOAD_SECS + JWKS_MAX_AGE_SECS <= PUBLISH_BEFORE_ACTIVATE_SECS);

/// Where the key set comes from.
pub enum Source {
    /// Keys handed in whole (tests, tools): never reloaded.
    Fixed,
    /// The local key file in the data dir.
    LocalFile {
        /// The data dir holding the key file.
        data_dir: PathBuf,
    },
    /// The key set record in the store (kms or kms-envelope), built into signers by `build`.
    Store {
        /// The store holding the key set record.
        store: Arc<dyn Backend>,
        /// Makes signers of the key set.
        build: Builder,
    },
}

struct Held {
    ring: Arc<Keyring>,
    checked_at: Timestamp,
    /// What the ring was built from: the key file's digest or the record's version.
    fingerprint: Option<String>,
}

/// The current keyring, reloaded on a short TTL.
pub struct FreshKeys {
    held: ArcSwap<Held>,
    checking: tokio::sync::Mutex<()>,
    source: Source,
}

impl std::fmt::Debug for FreshKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FreshKeys")
            .field("ring", &self.held.load().ring)
            .finish_non_exhaustive()
    }
}

impl FreshKeys {
    /// Keys that never change.
    pub fn fixed(ring: Arc<Keyring>) -> Self {
        Self::new(ring, None, Source::Fixed, Timestamp::from_secs(0))
    }

    /// Keys built at `now` from `source` as it was at `fingerprint`.
    pub fn new(
        ring: Arc<Keyring>,
        fingerprint: Option<String>,
        source: Source,
        now: Timestamp,
    ) -> Self {
        Self {
            held: ArcSwap::from_pointee(Held {
                ring,
                checked_at: now,
                fingerprint,
            }),
            checking: tokio::sync::Mutex::new(()),
            source,
        }
    }

    /// The local key file's keys, with their digest.
    pub fn local(data_dir: PathBuf, now: Timestamp) -> Result<Self, SignError> {
        Self::local_with(data_dir, now, crate::keys::Alg::RS256)
    }

    /// [`Self::local`], a new key file also holding a key for `default` (the service's
    /// default algorithm: PS256 or EdDSA then signs from the first start).
    pub fn local_with(
        data_dir: PathBuf,
        now: Timestamp,
        default: crate::keys::Alg,
    ) -> Result<Self, SignError> {
        let file = KeySet::load_or_create_with(&data_dir, now, default)?;
        let fingerprint = file_digest(&data_dir)?;
        Ok(Self::new(
            Arc::new(file.keyring()?),
            fingerprint,
            Source::LocalFile { data_dir },
            now,
        ))
    }

    /// The key set in the store, built into a keyring by `build`; `None` when the store has
    /// no key set yet.
    pub async fn from_store(
        store: Arc<dyn Backend>,
        build: Builder,
        now: Timestamp,
    ) -> Result<Option<Self>, SignError> {
        let Some((set, version)) = load_set(store.as_ref(), now).await? else {
            return Ok(None);
        };
        let ring = build.keyring(&set).await?;
        Ok(Some(Self::new(
            Arc::new(ring),
            Some(version.to_string()),
            Source::Store { store, build },
            now,
        )))
    }

    /// Where the keys come from.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// Checks the key set again now, whatever its age: the process that just changed it
    /// (the admin API's rotation) uses the change at once; the others within [`RELOAD_SECS`].
    pub async fn reload(&self, now: Timestamp) -> Result<(), SignError> {
        let _checking = self.checking.lock().await;
        let held = self.held.load_full();
        if let Some((ring, fingerprint)) = self.check(held.fingerprint.as_deref(), now).await? {
            tracing::info!(?fingerprint, "signing keys changed; reloaded");
            self.held.store(Arc::new(Held {
                ring: Arc::new(ring),
                checked_at: now,
                fingerprint,
            }));
        }
        Ok(())
    }

    /// The keyring to use now (checked again first if it is older than [`RELOAD_SECS`]).
    pub async fn get(&self, now: Timestamp) -> Arc<Keyring> {
        let held = self.held.load();
        if matches!(self.source, Source::Fixed) || now.secs() - held.checked_at.secs() < RELOAD_SECS
        {
            return held.ring.clone();
        }
        // One check at a time; everyone else goes on with the keys they have.
        let Ok(_checking) = self.checking.try_lock() else {
            return held.ring.clone();
        };
        let held = self.held.load_full();
        if now.secs() - held.checked_at.secs() < RELOAD_SECS {
            return held.ring.clone();
        }
        let next = match self.check(held.fingerprint.as_deref(), now).await {
            Ok(Some((ring, fingerprint))) => {
                tracing::info!(?fingerprint, "signing keys changed; reloaded");
                Held {
                    ring: Arc::new(ring),
                    checked_at: now,
                    fingerprint,
                }
            }
            Ok(None) => Held {
                ring: held.ring.clone(),
                checked_at: now,
                fingerprint: held.fingerprint.clone(),
            },
            Err(e) => {
                tracing::warn!(error = %e, "checking the signing keys failed; keeping the current ones");
                Held {
                    ring: held.ring.clone(),
                    checked_at: now,
                    fingerprint: held.fingerprint.clone(),
                }
            }
        };
        let ring = next.ring.clone();
        self.held.store(Arc::new(next));
        ring
    }

    /// A new keyring if the source changed since `seen`.
    async fn check(
        &self,
        seen: Option<&str>,
        now: Timestamp,
    ) -> Result<Option<(Keyring, Option<String>)>, SignError> {
        match &self.source {
            Source::Fixed => Ok(None),
            Source::LocalFile { data_dir } => {
                let digest = file_digest(data_dir)?;
                if digest.as_deref() == seen {
                    return Ok(None);
                }
                let ring = KeySet::load_or_create(data_dir, now)?.keyring()?;
                Ok(Some((ring, digest)))
            }
            Source::Store { store, build } => {
                let Some((set, version)) = load_set(store.as_ref(), now).await? else {
                    return Err(SignError::Key("the key set is gone from the store".into()));
                };
                let version = Some(version.to_string());
                if version.as_deref() == seen {
                    return Ok(None);
                }
                Ok(Some((build.keyring(&set).await?, version)))
            }
        }
    }
}

/// SHA-256 of the key file (`None` if there is none).
fn file_digest(data_dir: &std::path::Path) -> Result<Option<String>, SignError> {
    match std::fs::read(KeySet::path(data_dir)) {
        Ok(bytes) => {
            use base64::Engine;
            let d = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, &bytes);
            Ok(Some(
                base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(d.as_ref()),
            ))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(SignError::Key(format!("key file: {e}").into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::Alg;

    fn kids(ring: &Arc<Keyring>) -> Vec<String> {
        let set: crate::keys::JwkSet =
            serde_json::from_slice(&ring.jwks_json()).unwrap_or_else(|e| panic!("{e}"));
        set.keys.into_iter().map(|k| k.kid).collect()
    }

    #[tokio::test]
    async fn a_rotation_on_disk_is_seen_within_a_minute_and_not_before() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let t0 = Timestamp::from_secs(1_800_000_000);
        let keys = FreshKeys::local(dir.path().to_owned(), t0).unwrap_or_else(|e| panic!("{e}"));
        let before = kids(&keys.get(t0).await);
        assert_eq!(before.len(), 2);
        // The operator publishes a next key (what `scanid keys rotate` does).
        let mut file = KeySet::load_or_create(dir.path(), t0).unwrap_or_else(|e| panic!("{e}"));
        let next = file
            .add_next(Alg::ES256, t0)
            .unwrap_or_else(|e| panic!("{e}"))
            .kid
            .clone();
        file.save(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(kids(&keys.get(t0.plus_secs(RELOAD_SECS - 1)).await), before);
        let after = kids(&keys.get(t0.plus_secs(RELOAD_SECS)).await);
        assert!(after.contains(&next), "{after:?}");
        assert_eq!(after.len(), 3);
        // A broken file keeps the keys the process has.
        std::fs::write(KeySet::path(dir.path()), b"{").unwrap_or_else(|e| panic!("{e}"));
        let kept = kids(&keys.get(t0.plus_secs(3 * RELOAD_SECS)).await);
        assert_eq!(kept, after);
    }

    #[tokio::test]
    async fn fixed_keys_never_reload() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let t0 = Timestamp::from_secs(1_800_000_000);
        let ring = KeySet::load_or_create(dir.path(), t0)
            .and_then(|f| f.keyring())
            .unwrap_or_else(|e| panic!("{e}"));
        let keys = FreshKeys::fixed(Arc::new(ring));
        std::fs::remove_file(KeySet::path(dir.path())).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            kids(&keys.get(t0.plus_secs(10 * RELOAD_SECS)).await).len(),
            2
        );
    }
}
