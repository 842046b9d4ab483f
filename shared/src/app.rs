//! The application context: configuration, store, keys, clock and randomness, built once per
//! process (at `scanid serve` start or Lambda cold start) and shared by every handler.

use std::sync::Arc;

use bytes::Bytes;

use crate::clock::Timestamp;
use crate::clock::{Clock, SystemClock};
use crate::config::{ConfigError, Settings, SigningMode, StoreSettings};
use crate::domain::discovery::openid_configuration;
use crate::keys::fresh::{FreshKeys, Source};
use crate::keys::kms::{load_or_create_set, load_set, Bootstrap, Kms};
use crate::keys::{Keyring, SignError};
use crate::random::{Random, SystemRandom};
use crate::store::dynamo::DynamoStore;
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
    /// The signing keys, kept fresh ([`App::keyring`]).
    pub keys: FreshKeys,
    pub clock: Arc<dyn Clock>,
    pub random: Arc<dyn Random>,
    /// The discovery document, serialized once.
    pub discovery_json: Bytes,
    /// Every client's web origins, for CORS preflights (read again every minute).
    pub web_origins: crate::http::cors::OriginCache,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("issuer", &self.settings.issuer())
            .finish_non_exhaustive()
    }
}

impl App {
    /// Assembles an app from its parts (tests pass a fixed clock and seeded randomness); the
    /// keys never change.
    pub fn new(
        settings: Settings,
        store: Arc<dyn Backend>,
        keys: Arc<Keyring>,
        clock: Arc<dyn Clock>,
        random: Arc<dyn Random>,
    ) -> Result<Self, StartError> {
        let algs = keys.algs();
        Self::with_keys(
            settings,
            store,
            FreshKeys::fixed(keys),
            &algs,
            clock,
            random,
        )
    }

    /// Assembles an app whose keys are reloaded on a short TTL.
    pub fn with_keys(
        settings: Settings,
        store: Arc<dyn Backend>,
        keys: FreshKeys,
        algs: &[crate::keys::Alg],
        clock: Arc<dyn Clock>,
        random: Arc<dyn Random>,
    ) -> Result<Self, StartError> {
        let discovery = openid_configuration(&settings, algs);
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
            web_origins: Default::default(),
        })
    }

    /// Builds the store and the keys that `settings` select, with the real clock and CSPRNG.
    pub async fn from_settings(settings: Settings) -> Result<Self, StartError> {
        Self::from_settings_with(settings, KeySetup::CreateIfMissing).await
    }

    /// As [`App::from_settings`], saying whether a missing key set may be created.
    pub async fn from_settings_with(
        settings: Settings,
        keys: KeySetup,
    ) -> Result<Self, StartError> {
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        let store = open_store(&settings).await?;
        let keys = fresh_keys(&settings, store.clone(), clock.now(), keys).await?;
        let algs = keys.get(clock.now()).await.algs();
        Self::with_keys(
            settings,
            store,
            keys,
            &algs,
            clock,
            Arc::new(SystemRandom::new()),
        )
    }

    /// The signing keys now: checked again when older than a minute, so a rotation or
    /// removal reaches a running process without a restart.
    pub async fn keyring(&self) -> Arc<Keyring> {
        self.keys.get(self.clock.now()).await
    }
}

/// Whether a start may create the key set in the store when there is none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySetup {
    /// `scanid serve` and the operator commands (`scanid aws init` makes it explicitly).
    CreateIfMissing,
    /// Lambda functions: they may not write keys (least privilege); the operator runs
    /// `scanid aws init` once after the first deploy.
    MustExist,
}

/// The signing keys `settings` select: the local key file, or the key set in the store with
/// KMS; either is checked again on a short TTL ([`crate::keys::fresh`]).
pub async fn fresh_keys(
    settings: &Settings,
    store: Arc<dyn Backend>,
    now: Timestamp,
    setup: KeySetup,
) -> Result<FreshKeys, StartError> {
    Ok(match &settings.signing {
        SigningMode::Local => FreshKeys::local(settings.data_dir.clone(), now)?,
        SigningMode::Kms { .. } | SigningMode::KmsEnvelope { .. } => {
            let kms = Kms::from_config(&aws_config().await?);
            let found = match (setup, Bootstrap::from_mode(&settings.signing)) {
                (KeySetup::CreateIfMissing, Some(bootstrap)) => {
                    Some(load_or_create_set(store.as_ref(), &kms, bootstrap, now).await?)
                }
                _ => load_set(store.as_ref(), now).await?,
            };
            let Some((set, version)) = found else {
                return Err(StartError::Unsupported(
                    "no signing keys in the store yet: run `scanid aws init --table TABLE \
                     --signing MODE --kms-key-id ID` once (see infra/README.md)"
                        .into(),
                ));
            };
            let ring = kms.keyring(&set).await?;
            FreshKeys::new(
                Arc::new(ring),
                Some(version.to_string()),
                Source::Store { store, kms },
                now,
            )
        }
    })
}

/// Opens the store `settings` select (operator commands use the same store as the server).
pub async fn open_store(settings: &Settings) -> Result<Arc<dyn Backend>, StartError> {
    match &settings.store {
        StoreSettings::Embedded { data_dir } => Ok(Arc::new(EmbeddedStore::open(data_dir)?)),
        StoreSettings::DynamoDb { table } => {
            let config = aws_config().await?;
            let store = DynamoStore::from_config(&config, table);
            // Pay the TLS handshake now, not on the first request; a failure is logged (with
            // its detail) and the requests that need the table answer 503 until it is back.
            if let Err(e) = store.warm().await {
                tracing::warn!(table = %table, error = %e, "DynamoDB is not reachable yet");
            }
            Ok(Arc::new(store))
        }
    }
}

/// The AWS SDK configuration from the standard environment, loaded once per process.
pub async fn aws_config() -> Result<aws_config::SdkConfig, StartError> {
    static CONFIG: tokio::sync::OnceCell<Option<aws_config::SdkConfig>> =
        tokio::sync::OnceCell::const_new();
    CONFIG
        .get_or_init(crate::aws::load)
        .await
        .clone()
        .ok_or_else(|| {
            StartError::Config(ConfigError {
                setting: "AWS_REGION",
                reason: "no AWS region is configured (set AWS_REGION, or a region in the AWS \
                         profile); the DynamoDB store and KMS signing need one"
                    .into(),
            })
        })
}
