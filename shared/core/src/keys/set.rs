//! The key set held in the store (`signing_key#set`, KMS and KMS-envelope modes): the same
//! [`KeySet`] structure as local keys, one record updated by compare-and-swap.

use std::sync::Arc;

use async_trait::async_trait;

use super::local::{KeySet, Material, StoredKey};
use super::Jwk;
use super::{Alg, KeyState, Keyring, SignError};
use crate::clock::Timestamp;
use crate::store::{Backend, KeySets, StoreError};

/// Builds the keyring of a key set: the KMS adapter (signers that call KMS or decrypt an
/// envelope), or [`PublishedOnly`] where nothing signs.
#[async_trait]
pub trait BuildKeyring: Send + Sync {
    /// The signers and verifying keys of `set`.
    async fn keyring(&self, set: &KeySet) -> Result<Keyring, SignError>;

    /// A new `next` key for `alg`, generated here and stored encrypted under the KMS key
    /// `wrapping_key_id` (`kms-envelope`'s rotation through the admin API). A builder with
    /// no KMS client cannot.
    async fn wrap_new_key(
        &self,
        alg: Alg,
        wrapping_key_id: &str,
        now: Timestamp,
    ) -> Result<StoredKey, SignError> {
        let _ = (alg, wrapping_key_id, now);
        Err(SignError::Key(
            "this process holds no KMS client to wrap a new key".into(),
        ))
    }
}

/// The keyring of a function that never signs: every key of the set verifies and is
/// published, none signs, and no KMS client is linked or called.
#[derive(Debug, Clone, Copy, Default)]
pub struct PublishedOnly;

#[async_trait]
impl BuildKeyring for PublishedOnly {
    async fn keyring(&self, set: &KeySet) -> Result<Keyring, SignError> {
        let mut published = Vec::new();
        let mut active = Vec::new();
        for k in &set.keys {
            let public = published_key(k)?;
            if k.state == KeyState::Active {
                active.push(k.alg);
            }
            published.push(public);
        }
        Keyring::publish_only(published, active)
    }
}

/// The public key of a key held in the store's key set (KMS or envelope), checked against
/// its `kid`.
pub fn published_key(k: &StoredKey) -> Result<Jwk, SignError> {
    let public = match &k.material {
        Material::Kms { public, .. } | Material::Envelope { public, .. } => public.clone(),
        Material::Pkcs8(_) => {
            return Err(SignError::Key(
                format!("key {} is a local key in the store's key set", k.kid).into(),
            ))
        }
    };
    if public.kid != k.kid {
        return Err(SignError::Key(
            format!("key {}: kid does not match", k.kid).into(),
        ));
    }
    Ok(public)
}

/// A shared builder.
pub type Builder = Arc<dyn BuildKeyring>;

/// A store failure as a signing failure (unavailable stays unavailable).
pub fn store_err(e: StoreError) -> SignError {
    match e {
        StoreError::Unavailable(d) => SignError::Unavailable(d),
        other => SignError::Key(other.to_string().into()),
    }
}

/// The key set held in the store, with its version (for compare-and-swap), if there is one.
pub async fn load_set(
    store: &dyn Backend,
    now: Timestamp,
) -> Result<Option<(KeySet, u64)>, SignError> {
    store.key_set(now).await.map_err(store_err)
}

/// Saves the key set: creates it (`version` `None`) or replaces version `version`. A concurrent
/// change makes this fail with a message saying to retry.
pub async fn save_set(
    store: &dyn Backend,
    set: &KeySet,
    version: Option<u64>,
    now: Timestamp,
) -> Result<(), SignError> {
    match store.save_key_set(set, version, now).await {
        Err(StoreError::ConditionFailed) => Err(SignError::Key(
            "the key set was changed by someone else meanwhile; run the command again".into(),
        )),
        other => other.map_err(store_err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::local::generate;

    /// A function that never signs still advertises what the signing functions sign with
    /// (discovery's `id_token_signing_alg_values_supported`), and publishes every key.
    #[tokio::test]
    async fn a_publish_only_keyring_advertises_the_active_algorithms() {
        let now = Timestamp::from_secs(1_800_000_000);
        let mut set = KeySet::default();
        for alg in [Alg::RS256, Alg::ES256] {
            let (public, _) = generate(alg).unwrap();
            let kid = public.kid.clone();
            let material = Material::Kms {
                key_id: format!("kms-{}", alg.as_str()),
                public: public.clone(),
            };
            set.push_next(StoredKey::next(public, alg, now, material))
                .unwrap();
            set.activate(&kid, now).unwrap();
        }
        // A published next key that is not active yet is not advertised.
        let (next, _) = generate(Alg::ES256).unwrap();
        let material = Material::Kms {
            key_id: "kms-next".into(),
            public: next.clone(),
        };
        set.push_next(StoredKey::next(next, Alg::ES256, now, material))
            .unwrap();
        let ring = PublishedOnly.keyring(&set).await.unwrap();
        assert_eq!(ring.algs(), vec![Alg::ES256, Alg::RS256]);
        assert!(ring.signer(Alg::RS256).is_err(), "it never signs");
        let jwks: serde_json::Value = serde_json::from_slice(&ring.jwks_json()).unwrap();
        assert_eq!(jwks["keys"].as_array().unwrap().len(), 3);
    }
}
