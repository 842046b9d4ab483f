//! The application context: configuration, store, keys, clock and randomness, built once per
//! process (at `scanid serve` start or Lambda cold start) and shared by every handler.

use std::sync::Arc;

use bytes::Bytes;

use crate::backchannel::{LogoutDelivery, Undeliverable};
use crate::clock::Clock;
use crate::config::{ConfigError, Settings};
use crate::domain::discovery::openid_configuration;
use crate::keys::fresh::FreshKeys;
use crate::keys::{Keyring, SignError};
use crate::random::Random;
use crate::store::{Backend, StoreError};

/// Why the service could not start. Each says what to fix.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The settings are wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The store cannot be opened or read.
    #[error("store: {0}")]
    Store(#[from] StoreError),
    /// The signing keys cannot be loaded.
    #[error("signing keys: {0}")]
    Keys(#[from] SignError),
    /// The GeoIP databases cannot be opened.
    #[error(transparent)]
    GeoIp(#[from] crate::geoip::GeoIpError),
    /// A combination this build cannot run (e.g. a store it was built without).
    #[error("{0}")]
    Unsupported(String),
}

/// What to do when the store holds no key set yet.
pub const NO_KEY_SET: &str = "no signing keys in the store yet: run `scanid aws init --table \
                              TABLE --signing MODE --kms-key-id ID` once (see infra/README.md)";

/// Everything a handler needs.
pub struct Context {
    /// The settings, validated.
    pub settings: Settings,
    /// The store every repository reads and writes.
    pub store: Arc<dyn Backend>,
    /// The signing keys, kept fresh ([`Context::keyring`]).
    pub keys: FreshKeys,
    /// Where "now" comes from.
    pub clock: Arc<dyn Clock>,
    /// Where random bytes come from.
    pub random: Arc<dyn Random>,
    /// The discovery document, serialized once per set of active signing algorithms
    /// ([`Context::discovery_json`]).
    /// Read without a lock on every request (arc-swap); replaced only when they change.
    pub(crate) discovery: arc_swap::ArcSwap<(Vec<crate::keys::Alg>, Bytes)>,
    /// Every client's web origins, for CORS preflights (read again every minute).
    pub web_origins: crate::store::origins::OriginCache,
    /// Where hosted profile photos live; `None` where photos are not served (a Lambda
    /// function that never touches them links no S3 client).
    pub photos: Option<Arc<dyn crate::store::PhotoStore>>,
    /// Where audit events are stored and queried (the admin API's events); `None` where they
    /// are not (a Lambda function other than the admin API's).
    pub events: Option<Arc<dyn crate::store::EventStore>>,
    /// Where signed back-channel logout tokens go ([`crate::backchannel`]); by default
    /// nowhere (each is logged and audited as given up).
    pub backchannel: Arc<dyn LogoutDelivery>,
    /// Where an address is ([`crate::geoip`]): the configured MaxMind DB files, read once at
    /// start; by default nothing is known.
    pub geoip: Arc<dyn crate::geoip::GeoIp>,
    /// Where a host name points ([`crate::reach`]): the system's resolver in a running
    /// process; by default none (a registration is judged by its URI's spelling alone).
    pub resolver: Arc<dyn crate::reach::Resolver>,
    /// Where clients' `jwks_uri` are fetched from ([`crate::client_jwks`]); by default
    /// nowhere.
    pub jwks_fetch: Arc<dyn crate::client_jwks::JwksFetch>,
    /// The clients' fetched JWK Sets.
    pub client_jwks: crate::client_jwks::JwksCache,
    /// The sealing key of `client_secret_jwt` clients' secrets ([`crate::keys::seal`]);
    /// `None` where none is held (that method is then not offered).
    pub sealing: Option<Arc<dyn crate::keys::seal::SealingKeys>>,
    /// The logins the login page's polls wait on ([`crate::service::login_watch`]); `None`
    /// where the store is not this process's alone (a Lambda function, DynamoDB): the poll is
    /// answered at once.
    pub login_watch: Option<Arc<crate::service::login_watch::LoginWatch>>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("issuer", &self.settings.issuer())
            .finish_non_exhaustive()
    }
}

impl Context {
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
        let discovery_json = discovery_document(&settings, algs)
            .map_err(|e| StartError::Unsupported(format!("discovery: {e}")))?;
        let discovery = arc_swap::ArcSwap::from_pointee((algs.to_vec(), discovery_json));
        // Beside local signing keys, the sealing key is a file of the data dir, made on first
        // use; elsewhere the process gives one (`with_sealing`) or none.
        let local = matches!(settings.signing, crate::config::SigningMode::Local);
        let sealing = local.then(|| {
            Arc::new(crate::keys::seal::LocalSealing::new(
                &settings.data_dir,
                random.clone(),
            )) as Arc<dyn crate::keys::seal::SealingKeys>
        });
        Ok(Self {
            settings,
            store,
            keys,
            clock,
            random,
            discovery,
            web_origins: Default::default(),
            photos: None,
            events: None,
            backchannel: Arc::new(Undeliverable),
            geoip: Arc::new(crate::geoip::NoGeoIp),
            resolver: Arc::new(crate::reach::NoResolver),
            jwks_fetch: Arc::new(crate::client_jwks::NoFetch),
            client_jwks: Default::default(),
            sealing,
            login_watch: None,
        })
    }

    /// A context for a running process: the real clock and CSPRNG, keys kept fresh.
    pub async fn running(
        settings: Settings,
        store: Arc<dyn Backend>,
        keys: FreshKeys,
    ) -> Result<Self, StartError> {
        // The GeoIP files first: a file that cannot be read stops the start.
        let geoip = crate::geoip::open(&settings.geoip_db)?;
        let clock: Arc<dyn Clock> = Arc::new(crate::clock::SystemClock);
        let algs = keys.get(clock.now()).await.algs();
        Ok(Self::with_keys(
            settings,
            store,
            keys,
            &algs,
            clock,
            Arc::new(crate::random::SystemRandom::new()),
        )?
        .with_geoip(geoip)
        .with_resolver(Arc::new(crate::reach::SystemResolver)))
    }

    /// The same context with host names resolved by `resolver`.
    pub fn with_resolver(mut self, resolver: Arc<dyn crate::reach::Resolver>) -> Self {
        self.resolver = resolver;
        self
    }

    /// The same context with clients' `jwks_uri` fetched through `fetch`.
    pub fn with_jwks_fetch(mut self, fetch: Arc<dyn crate::client_jwks::JwksFetch>) -> Self {
        self.jwks_fetch = fetch;
        self
    }

    /// The same context with `client_secret_jwt` clients' secrets sealed by `sealing`.
    pub fn with_sealing(mut self, sealing: Arc<dyn crate::keys::seal::SealingKeys>) -> Self {
        self.sealing = Some(sealing);
        self
    }

    /// The same context with the login page's status polls held until their login changes
    /// ([`crate::service::login_watch`]): only where every write to a login goes through this
    /// process.
    pub fn with_login_watch(mut self) -> Self {
        self.login_watch = Some(Arc::default());
        self
    }

    /// Tells the polls waiting on login `id` that it changed (a scan, a decision, a
    /// cancellation); nothing without a watch.
    pub fn login_changed(&self, id: &str) {
        if let Some(w) = &self.login_watch {
            w.changed(id);
        }
    }

    /// The same context with addresses located by `geoip`.
    pub fn with_geoip(mut self, geoip: Arc<dyn crate::geoip::GeoIp>) -> Self {
        self.geoip = geoip;
        self
    }

    /// The same context with photos stored in `photos`.
    pub fn with_photos(mut self, photos: Arc<dyn crate::store::PhotoStore>) -> Self {
        self.photos = Some(photos);
        self
    }

    /// The same context with audit events kept in `events`.
    pub fn with_events(mut self, events: Arc<dyn crate::store::EventStore>) -> Self {
        self.events = Some(events);
        self
    }

    /// The same context with back-channel logout tokens handed to `port`.
    pub fn with_backchannel(mut self, port: Arc<dyn LogoutDelivery>) -> Self {
        self.backchannel = port;
        self
    }

    /// The signing keys now: checked again when older than a minute, so a rotation or
    /// removal reaches a running process without a restart.
    pub async fn keyring(&self) -> Arc<Keyring> {
        self.keys.get(self.clock.now()).await
    }

    /// The discovery document: made again when the active keys' algorithms changed (a PS256
    /// or EdDSA key activated by a rotation is listed in `id_token_signing_alg_values_supported`
    /// within the keys' reload, not at the next start).
    pub async fn discovery_json(&self) -> Bytes {
        let keys = self.keyring().await;
        let cached = self.discovery.load();
        if cached.0 == keys.active_algs() {
            return cached.1.clone();
        }
        let algs = keys.algs();
        match discovery_document(&self.settings, &algs) {
            Ok(doc) => {
                self.discovery
                    .store(std::sync::Arc::new((algs, doc.clone())));
                doc
            }
            Err(e) => {
                tracing::error!(error = %e, "discovery document");
                cached.1.clone()
            }
        }
    }
}

fn discovery_document(
    settings: &Settings,
    algs: &[crate::keys::Alg],
) -> Result<Bytes, serde_json::Error> {
    Ok(serde_json::to_vec(&openid_configuration(settings, algs))?.into())
}
