//! Rotating the signing keys, one step at a time: what `scanid keys rotate|remove` and the
//! admin API's `POST .../keys/rotate` and `DELETE .../keys/{kid}` both do.
//!
//! 1. **Publish**: no `next` key of the algorithm yet: a new key is made (by the caller's
//!    [`MakeKey`]: the key file's, KMS's, or a key wrapped under the KMS wrapping key) and
//!    published as `next`; it verifies nothing yet and signs nothing.
//! 2. **Activate**: a `next` key published at least [`PUBLISH_BEFORE_ACTIVATE_SECS`] ago
//!    (every JWKS cache has it) signs from now on; the key it replaces is `retired`, still
//!    published for the tokens it signed. Earlier: refused unless `force`.
//! 3. **Remove** a retired key once every token it signed has expired (retired longer ago
//!    than the longest token lifetime); the active key never, a live one only with `force`.
//!
//! The key set is the key file in the data dir (`--signing local`) or the store's key-set
//! record (KMS modes, replaced by compare-and-swap: a concurrent change is refused).

use std::path::Path;

use async_trait::async_trait;
use serde_json::{json, Value};

use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::keys::fresh::PUBLISH_BEFORE_ACTIVATE_SECS;
use crate::keys::local::{new_key, KeySet, StoredKey};
use crate::keys::{Alg, KeyState, SignError};
use crate::store::{Backend, KeySets, StoreError};

/// Where the key set lives.
#[derive(Clone, Copy)]
pub enum KeyHome<'a> {
    /// The key file in this data dir (`--signing local`).
    File(&'a Path),
    /// The key-set record of this store (`kms`, `kms-envelope`).
    Store(&'a dyn Backend),
}

/// Makes the private half of a new `next` key, where the signing mode keeps it.
#[async_trait]
pub trait MakeKey: Send + Sync {
    /// A new key for `alg`, in state `next`.
    async fn make(&self, alg: Alg, now: Timestamp) -> Result<StoredKey, RotationError>;
}

/// Local keys: generated here, kept (PKCS#8) in the key file.
#[derive(Debug, Clone, Copy, Default)]
pub struct LocalKeys;

#[async_trait]
impl MakeKey for LocalKeys {
    async fn make(&self, alg: Alg, now: Timestamp) -> Result<StoredKey, RotationError> {
        Ok(new_key(alg, now)?)
    }
}

/// What a rotation step did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rotated {
    /// Step 1: `kid` is published; it may be activated from `activate_after`.
    Published {
        /// The new key.
        kid: String,
        /// The earliest activation.
        activate_after: Timestamp,
    },
    /// Step 2: `kid` signs; the key it replaced may be removed from `remove_retired_after`.
    Activated {
        /// The key now signing.
        kid: String,
        /// When every token the retired key signed has expired.
        remove_retired_after: Timestamp,
    },
}

impl Rotated {
    /// The key the step concerns.
    pub fn kid(&self) -> &str {
        match self {
            Rotated::Published { kid, .. } | Rotated::Activated { kid, .. } => kid,
        }
    }

    /// The step as the CLI prints it and the admin API answers it: `{step, kid,
    /// activate_after}` or `{step, kid, remove_retired_after}`.
    pub fn to_json(&self) -> Value {
        match self {
            Rotated::Published {
                kid,
                activate_after,
            } => json!({ "step": "published", "kid": kid,
                         "activate_after": activate_after.to_rfc3339_millis() }),
            Rotated::Activated {
                kid,
                remove_retired_after,
            } => json!({ "step": "activated", "kid": kid,
                         "remove_retired_after": remove_retired_after.to_rfc3339_millis() }),
        }
    }
}

/// Why a step was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum RotationError {
    /// The `next` key was published too recently to be activated.
    #[error(
        "next key {kid} was published less than {PUBLISH_BEFORE_ACTIVATE_SECS} s ago; relying \
         parties may not have it yet (activate it from {})", activate_after.to_rfc3339_millis()
    )]
    TooSoon {
        /// The next key.
        kid: String,
        /// When it may be activated.
        activate_after: Timestamp,
    },
    /// No key has this `kid`.
    #[error("no key {0}")]
    UnknownKey(String),
    /// The key signs: activate another first.
    #[error("{0} is active; activate another key first")]
    ActiveKey(String),
    /// A token the retired key signed may still be live.
    #[error("{kid} was retired less than {lifetime} s ago; tokens it signed may be live")]
    MayBeLive {
        /// The retired key.
        kid: String,
        /// The longest token lifetime, seconds.
        lifetime: i64,
    },
    /// This caller cannot make the step here (the reason says what to do instead).
    #[error("{0}")]
    NotHere(String),
    /// The key set was changed by someone else meanwhile.
    #[error("the key set was changed by someone else meanwhile; try again")]
    Changed,
    /// The keys or the store failed.
    #[error(transparent)]
    Key(#[from] SignError),
}

fn store_err(e: StoreError) -> RotationError {
    match e {
        StoreError::ConditionFailed => RotationError::Changed,
        other => RotationError::Key(crate::keys::set::store_err(other)),
    }
}

/// The key set at `home`, with its version in the store (`None` for the key file).
async fn load(home: KeyHome<'_>, now: Timestamp) -> Result<(KeySet, Option<u64>), RotationError> {
    match home {
        // Never created here: a missing key file is not replaced behind a running server.
        KeyHome::File(dir) => match KeySet::load(dir)? {
            Some(set) => Ok((set, None)),
            None => Err(RotationError::Key(SignError::Key(
                format!("no key file in {}", dir.display()).into(),
            ))),
        },
        KeyHome::Store(store) => match store.key_set(now).await.map_err(store_err)? {
            Some((set, version)) => Ok((set, Some(version))),
            None => Err(RotationError::Key(SignError::Key(
                crate::context::NO_KEY_SET.into(),
            ))),
        },
    }
}

async fn save(
    home: KeyHome<'_>,
    set: &KeySet,
    version: Option<u64>,
    now: Timestamp,
) -> Result<(), RotationError> {
    match home {
        KeyHome::File(dir) => Ok(set.save(dir)?),
        KeyHome::Store(store) => store
            .save_key_set(set, version, now)
            .await
            .map_err(store_err),
    }
}

/// One rotation step for `alg`: publish a `next` key (made by `maker`), or activate the one
/// published. `lifetime` is the longest token lifetime (when the retired key may go);
/// `source` names the caller in the audit line (`operator`, `admin`).
pub async fn rotate(
    home: KeyHome<'_>,
    maker: &dyn MakeKey,
    alg: Alg,
    force: bool,
    lifetime: i64,
    now: Timestamp,
    source: &str,
) -> Result<Rotated, RotationError> {
    let (mut set, version) = load(home, now).await?;
    let next = set
        .keys
        .iter()
        .find(|k| k.alg == alg && k.state == KeyState::Next)
        .map(|k| (k.kid.clone(), k.created_at));
    let out = match next {
        None => {
            let key = maker.make(alg, now).await?;
            let kid = set.push_next(key)?.kid.clone();
            Rotated::Published {
                kid,
                activate_after: now.plus_secs(PUBLISH_BEFORE_ACTIVATE_SECS),
            }
        }
        Some((kid, created_at)) => {
            let activate_after = created_at.plus_secs(PUBLISH_BEFORE_ACTIVATE_SECS);
            if !force && now < activate_after {
                return Err(RotationError::TooSoon {
                    kid,
                    activate_after,
                });
            }
            set.activate(&kid, now)?;
            Rotated::Activated {
                kid,
                remove_retired_after: now.plus_secs(lifetime),
            }
        }
    };
    save(home, &set, version, now).await?;
    let step = match out {
        Rotated::Published { .. } => "published",
        Rotated::Activated { .. } => "activated",
    };
    Audit::new(Event::KeyRotated)
        .source(source)
        .detail(step)
        .object(out.kid())
        .emit();
    Ok(out)
}

/// Step 3: forgets the key `kid`. Refused for the active key, and for a retired key while a
/// token it signed may be live (retired less than `lifetime` seconds ago) unless `force`.
pub async fn remove(
    home: KeyHome<'_>,
    kid: &str,
    force: bool,
    lifetime: i64,
    now: Timestamp,
) -> Result<(), RotationError> {
    let (mut set, version) = load(home, now).await?;
    let k = set
        .keys
        .iter()
        .find(|k| k.kid == kid)
        .ok_or_else(|| RotationError::UnknownKey(kid.to_owned()))?;
    match (k.state, k.retired_at) {
        (KeyState::Active, _) => return Err(RotationError::ActiveKey(kid.to_owned())),
        (KeyState::Retired, Some(at)) if !force && now < at.plus_secs(lifetime) => {
            return Err(RotationError::MayBeLive {
                kid: kid.to_owned(),
                lifetime,
            })
        }
        _ => {}
    }
    set.remove(kid, now, lifetime, true)?;
    save(home, &set, version, now).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rs256(set: &KeySet, state: KeyState) -> Vec<String> {
        set.keys
            .iter()
            .filter(|k| k.alg == Alg::RS256 && k.state == state)
            .map(|k| k.kid.clone())
            .collect()
    }

    /// The three steps on a key file, at exact times: the activation waits 300 s (to the
    /// second), the retired key waits the token lifetime, the active key never goes.
    #[tokio::test]
    async fn the_steps_wait_their_times_on_the_key_file() {
        let dir = tempfile::tempdir().unwrap();
        let home = KeyHome::File(dir.path());
        let t0 = Timestamp::from_secs(1_800_000_000);
        let old = rs256(
            &KeySet::load_or_create(dir.path(), t0).unwrap(),
            KeyState::Active,
        );
        let step = rotate(home, &LocalKeys, Alg::RS256, false, 3600, t0, "test")
            .await
            .unwrap();
        let Rotated::Published {
            kid: next,
            activate_after,
        } = step.clone()
        else {
            panic!("{step:?}")
        };
        assert_eq!(activate_after, t0.plus_secs(300));
        assert_eq!(step.to_json()["step"], "published");
        let set = KeySet::load_or_create(dir.path(), t0).unwrap();
        assert_eq!(rs256(&set, KeyState::Next), vec![next.clone()]);
        assert_eq!(rs256(&set, KeyState::Active), old);
        let early = rotate(
            home,
            &LocalKeys,
            Alg::RS256,
            false,
            3600,
            t0.plus_secs(299),
            "test",
        )
        .await
        .unwrap_err();
        assert!(matches!(early, RotationError::TooSoon { .. }), "{early}");
        let step = rotate(
            home,
            &LocalKeys,
            Alg::RS256,
            false,
            3600,
            t0.plus_secs(300),
            "test",
        )
        .await
        .unwrap();
        assert_eq!(
            step,
            Rotated::Activated {
                kid: next.clone(),
                remove_retired_after: t0.plus_secs(3900)
            }
        );
        let set = KeySet::load_or_create(dir.path(), t0).unwrap();
        assert_eq!(rs256(&set, KeyState::Active), vec![next.clone()]);
        assert_eq!(rs256(&set, KeyState::Retired), old);
        let t1 = t0.plus_secs(300);
        assert!(matches!(
            remove(home, &next, true, 3600, t1).await,
            Err(RotationError::ActiveKey(_))
        ));
        assert!(matches!(
            remove(home, &old[0], false, 3600, t1.plus_secs(3599)).await,
            Err(RotationError::MayBeLive { .. })
        ));
        assert!(matches!(
            remove(home, "nope", false, 3600, t1).await,
            Err(RotationError::UnknownKey(_))
        ));
        remove(home, &old[0], false, 3600, t1.plus_secs(3600))
            .await
            .unwrap();
        let set = KeySet::load_or_create(dir.path(), t0).unwrap();
        assert!(set.keys.iter().all(|k| k.kid != old[0]));
    }

    /// In the store: no key set is an error (nothing is created), a key set gets the next key.
    #[tokio::test]
    async fn a_store_key_set_gets_its_next_key() {
        let store = crate::store::memory::MemoryStore::default();
        let t0 = Timestamp::from_secs(1_800_000_000);
        assert!(matches!(
            rotate(
                KeyHome::Store(&store),
                &LocalKeys,
                Alg::ES256,
                false,
                60,
                t0,
                "test"
            )
            .await,
            Err(RotationError::Key(_))
        ));
        let mut set = KeySet::default();
        let mut k = new_key(Alg::ES256, t0).unwrap();
        k.state = KeyState::Active;
        set.keys.push(k);
        store.save_key_set(&set, None, t0).await.unwrap();
        let step = rotate(
            KeyHome::Store(&store),
            &LocalKeys,
            Alg::ES256,
            false,
            60,
            t0,
            "test",
        )
        .await
        .unwrap();
        let (saved, _) = store.key_set(t0).await.unwrap().unwrap();
        assert_eq!(saved.keys.len(), 2);
        assert!(saved
            .keys
            .iter()
            .any(|k| k.kid == step.kid() && k.state == KeyState::Next));
    }
}
