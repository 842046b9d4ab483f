//! Signing keys: the async [`Signer`] trait (local key files now; KMS `Sign` and KMS-envelope
//! implement it too), the [`Keyring`] of keys that sign and keys that still verify, the JWKS,
//! and JWT encoding and verification.
//!
//! Rotation (docs/requirements.md D2): a key is `next` (published, not yet signing), then `active`
//! (signing and published), then `retired` (published so live tokens still verify, not
//! signing), then removed. The JWKS lists every `next`, `active` and `retired` key.

pub mod fresh;
pub(crate) mod jwk;
pub mod jwt;
pub mod local;
pub mod seal;
pub mod set;

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

pub use crate::protocol::Alg;
pub use jwk::{Jwk, JwkSet};

/// The JSON Web Token crate's name for an algorithm.
fn jsonwebtoken_alg(alg: Alg) -> jsonwebtoken::Algorithm {
    match alg {
        Alg::RS256 => jsonwebtoken::Algorithm::RS256,
        Alg::ES256 => jsonwebtoken::Algorithm::ES256,
        Alg::PS256 => jsonwebtoken::Algorithm::PS256,
        Alg::EdDSA => jsonwebtoken::Algorithm::EdDSA,
    }
}

/// Where a key is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyState {
    /// Published in the JWKS, not signing yet (relying parties learn it first).
    Next,
    /// Signing, and published.
    Active,
    /// No longer signing; published while tokens it signed may still be alive.
    Retired,
}

/// The signing layer's errors.
#[derive(Debug, thiserror::Error)]
pub enum SignError {
    /// The signing service (KMS) could not be reached; retry later (503).
    #[error("signer unavailable: {0}")]
    Unavailable(#[source] crate::Cause),
    /// The key material is unusable.
    #[error("key error: {0}")]
    Key(#[source] crate::Cause),
    /// No key for the algorithm asked for.
    #[error("no active {0:?} key")]
    NoKey(Alg),
}

/// Produces JWS signatures (RFC 7515) for one key.
#[async_trait]
pub trait Signer: Send + Sync {
    /// The key's algorithm.
    fn alg(&self) -> Alg;
    /// The key's id (the JWS header's `kid`).
    fn kid(&self) -> &str;
    /// The JWS signature of `signing_input` (for ES256 the raw `r || s`, 64 bytes; for EdDSA
    /// the 64-byte Ed25519 signature).
    async fn sign(&self, signing_input: &[u8]) -> Result<Vec<u8>, SignError>;
    /// Prepares to sign (KMS-envelope: decrypts the key), so the first request does not wait.
    async fn warm(&self) -> Result<(), SignError> {
        Ok(())
    }
}

/// A key that verifies: its public JWK and jsonwebtoken's decoding key.
#[derive(Clone)]
pub struct VerifyingKey {
    /// The public key as published.
    pub jwk: Jwk,
    /// Its algorithm.
    pub alg: Alg,
    /// The key for jsonwebtoken's verification.
    pub decoding: jsonwebtoken::DecodingKey,
}

/// The keys of a running service: one active signer per algorithm, every key that may still
/// verify a live token, and the JWKS document prepared once.
pub struct Keyring {
    signers: HashMap<Alg, Arc<dyn Signer>>,
    /// The algorithms of the active keys (what discovery advertises), whether or not this
    /// process holds their signers.
    active: Vec<Alg>,
    verifiers: HashMap<String, VerifyingKey>,
    jwks_json: bytes::Bytes,
}

impl std::fmt::Debug for Keyring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keyring")
            .field(
                "signing",
                &self
                    .signers
                    .values()
                    .map(|s| s.kid().to_owned())
                    .collect::<Vec<_>>(),
            )
            .field("verifying", &self.verifiers.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Keyring {
    /// Builds the keyring from the active signers and every published public key.
    pub fn new(signers: Vec<Arc<dyn Signer>>, published: Vec<Jwk>) -> Result<Self, SignError> {
        let mut verifiers = HashMap::new();
        for jwk in &published {
            let vk = jwk.verifying_key()?;
            verifiers.insert(jwk.kid.clone(), vk);
        }
        for s in &signers {
            if !verifiers.contains_key(s.kid()) {
                return Err(SignError::Key(
                    format!("active key {} is not published", s.kid()).into(),
                ));
            }
        }
        let jwks_json = serde_json::to_vec(&JwkSet { keys: published })
            .map_err(|e| SignError::Key(e.to_string().into()))?
            .into();
        let mut active: Vec<Alg> = signers.iter().map(|s| s.alg()).collect();
        active.sort_by_key(|a| a.as_str());
        active.dedup();
        let signers = signers.into_iter().map(|s| (s.alg(), s)).collect();
        Ok(Self {
            signers,
            active,
            verifiers,
            jwks_json,
        })
    }

    /// A keyring that verifies and publishes but never signs (a Lambda function that does not
    /// sign): `active` are the algorithms of the key set's active keys, for discovery.
    pub fn publish_only(published: Vec<Jwk>, mut active: Vec<Alg>) -> Result<Self, SignError> {
        let mut ring = Self::new(Vec::new(), published)?;
        active.sort_by_key(|a| a.as_str());
        active.dedup();
        ring.active = active;
        Ok(ring)
    }

    /// Prepares every active signer (see [`Signer::warm`]).
    pub async fn warm(&self) -> Result<(), SignError> {
        for s in self.signers.values() {
            s.warm().await?;
        }
        Ok(())
    }

    /// The active signer for `alg`.
    pub fn signer(&self, alg: Alg) -> Result<&Arc<dyn Signer>, SignError> {
        self.signers.get(&alg).ok_or(SignError::NoKey(alg))
    }

    /// The algorithms that have an active key.
    /// The algorithms of the active keys, sorted.
    pub fn algs(&self) -> Vec<Alg> {
        self.active.clone()
    }

    /// [`Self::algs`] without a copy.
    pub fn active_algs(&self) -> &[Alg] {
        &self.active
    }

    /// The published key with id `kid`, if any.
    pub fn verifying_key(&self, kid: &str) -> Option<&VerifyingKey> {
        self.verifiers.get(kid)
    }

    /// The JWKS document (public members only), serialized once.
    pub fn jwks_json(&self) -> bytes::Bytes {
        self.jwks_json.clone()
    }
}
