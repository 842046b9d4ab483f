//! The application context: configuration, store, keys, clock and randomness, built once per
//! process (at `scanid serve` start or Lambda cold start) and shared by every handler.

use std::sync::Arc;

use bytes::Bytes;

use crate::clock::{Clock, SystemClock};
use crate::config::{ConfigError, Settings, SigningMode, StoreSettings};
use crate::domain::discovery::openid_configuration;
use crate::keys::local::KeyFile;
use crate::keys::{Keyring, SignError};
use crate::random::{Random, SystemRandom};
use crate::store::embedded::EmbeddedStore;
use crate::store::{Backend, StoreError};

/// Why the service could not start. Each says what to fix.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("store: {0}")]
    Store(#[from] StoreError),
    #[error("signing keys: {0}")]
    Keys(#[from] SignError),
    #[error("{0}")]
    Unsupported(String),
}

/// Everything a handler needs.
pub struct App {
    pub settings: Settings,
    pub store: Arc<dyn Backend>,
    pub keys: Arc<Keyring>,
    pub clock: Arc<dyn Clock>,
    pub random: Arc<dyn Random>,
    /// The discovery document, serialized once.
    pub discovery_json: Bytes,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("issuer", &self.settings.issuer())
            .finish_non_exhaustive()
    }
}

impl App {
    /// Assembles an app from its parts (tests pass a fixed clock and seeded randomness).
    pub fn new(
        settings: Settings,
        store: Arc<dyn Backend>,
        keys: Arc<Keyring>,
        clock: Arc<dyn Clock>,
        random: Arc<dyn Random>,
    ) -> Result<Self, StartError> {
        let discovery = openid_configuration(&settings, &keys.algs());
        let discovery_json = serde_json::to_vec(&discovery)
            .map_err(|e| StartError::Unsupported(format!("discovery: {e}")))?
            .into();
        Ok(Self {
            settings,
            store,
            keys,
            clock,
            random,
            discovery_json,
        })
    }

    /// Builds the store and the keys that `settings` select, with the real clock and CSPRNG.
    pub async fn from_settings(settings: Settings) -> Result<Self, StartError> {
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        let store = open_store(&settings).await?;
        let keys = match &settings.signing {
            SigningMode::Local => {
                KeyFile::load_or_create(&settings.data_dir, clock.now())?.keyring()?
            }
            SigningMode::Kms { .. } | SigningMode::KmsEnvelope { .. } => {
                return Err(StartError::Unsupported(
                    "SCANID_SIGNING: KMS signing is not built into this version".into(),
                ))
            }
        };
        Self::new(
            settings,
            store,
            Arc::new(keys),
            clock,
            Arc::new(SystemRandom::new()),
        )
    }
}

/// Opens the store `settings` select (operator commands use the same store as the server).
pub async fn open_store(settings: &Settings) -> Result<Arc<dyn Backend>, StartError> {
    match &settings.store {
        StoreSettings::Embedded { data_dir } => Ok(Arc::new(EmbeddedStore::open(data_dir)?)),
        StoreSettings::DynamoDb { .. } => Err(StartError::Unsupported(
            "SCANID_TABLE: the DynamoDB store is not built into this version".into(),
        )),
    }
}
