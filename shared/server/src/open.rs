//! Opening what a configuration selects, for the processes that may use any of it (`scanid
//! serve`, the operator commands). A Lambda function opens only DynamoDB (`scanid-lambda`).

use std::sync::Arc;

use scanid_core::backchannel::RetryPolicy;
use scanid_core::clock::{Clock, SystemClock, Timestamp};
use scanid_core::config::{Settings, SigningMode, StoreSettings};
use scanid_core::context::StartError;
use scanid_core::keys::fresh::FreshKeys;
use scanid_core::store::{Backend, EventStore, PhotoStore};
use scanid_core::Context;

/// The context `settings` select, with the real clock and CSPRNG; a missing key set is
/// created. Back-channel logout tokens are delivered from this process, each relying party
/// in parallel ([`scanid_backchannel::InProcess`]).
pub async fn context(settings: Settings) -> Result<Context, StartError> {
    let (store, events) = open_stores(&settings).await?;
    let keys = fresh_keys(&settings, store.clone(), SystemClock.now()).await?;
    let photos = open_photos(&settings).await?;
    let sealing = match settings.signing {
        SigningMode::KmsEnvelope { .. } => sealing_on(&settings, Some(store.clone())).await?,
        _ => None,
    };
    let ctx = Context::running(settings, store, keys).await?;
    let ctx = match sealing {
        Some(s) => ctx.with_sealing(s),
        None => ctx,
    };
    let (clock, store) = (ctx.clock.clone(), ctx.store.clone());
    let ctx = ctx.with_backchannel(Arc::new(
        scanid_backchannel::InProcess::new(clock, RetryPolicy::DEFAULT).with_store(store),
    ));
    let ctx = match scanid_backchannel::http_client() {
        Ok(http) => ctx.with_jwks_fetch(Arc::new(scanid_backchannel::JwksHttp::new(http))),
        Err(e) => {
            tracing::error!(error = %e, "no HTTP client: clients' jwks_uri cannot be fetched");
            ctx
        }
    };
    let ctx = match events {
        Some(e) => ctx.with_events(e),
        None => ctx,
    };
    // The embedded store is this process's: every scan and decision goes through it, so the
    // login page's polls can wait for them. Another process may write a DynamoDB table.
    let ctx = match ctx.settings.store {
        StoreSettings::Embedded { .. } => ctx.with_login_watch(),
        StoreSettings::DynamoDb { .. } => ctx,
    };
    Ok(match photos {
        Some(p) => ctx.with_photos(p),
        None => ctx,
    })
}

/// Where hosted photos live: the data dir for the embedded store, the S3 bucket
/// (`SCANID_PHOTO_BUCKET`) with DynamoDB; `None` on a table without a bucket.
pub async fn open_photos(settings: &Settings) -> Result<Option<Arc<dyn PhotoStore>>, StartError> {
    match (&settings.store, &settings.photo_bucket) {
        (StoreSettings::Embedded { data_dir }, _) => {
            Ok(Some(Arc::new(scanid_sqlite::DirPhotos::new(data_dir))))
        }
        (StoreSettings::DynamoDb { .. }, Some(bucket)) => Ok(Some(Arc::new(
            scanid_aws::photos::S3Photos::from_config(&scanid_aws::profile_config().await?, bucket),
        ))),
        (StoreSettings::DynamoDb { .. }, None) => Ok(None),
    }
}

/// The signing keys `settings` select: the local key file, or the key set in the store with
/// KMS; either is created on first use and checked again on a short TTL
/// ([`scanid_core::keys::fresh`]).
pub async fn fresh_keys(
    settings: &Settings,
    store: Arc<dyn Backend>,
    now: Timestamp,
) -> Result<FreshKeys, StartError> {
    match &settings.signing {
        SigningMode::Local => Ok(FreshKeys::local_with(
            settings.data_dir.clone(),
            now,
            settings.signing_alg,
        )?),
        mode @ (SigningMode::Kms { .. } | SigningMode::KmsEnvelope { .. }) => {
            scanid_aws::kms_keys(&scanid_aws::profile_config().await?, mode, store, now).await
        }
    }
}

/// The sealing key of `client_secret_jwt` clients' secrets `settings` select
/// ([`scanid_core::keys::seal`]): with local signing keys, a file of the data dir; with
/// `kms-envelope`, a key wrapped by the KMS key in the table (made on first use); `None`
/// where none is held (`kms`).
pub async fn sealing(
    settings: &Settings,
) -> Result<Option<Arc<dyn scanid_core::keys::seal::SealingKeys>>, StartError> {
    sealing_on(settings, None).await
}

/// [`sealing`] on `store` when it is already open.
async fn sealing_on(
    settings: &Settings,
    store: Option<Arc<dyn Backend>>,
) -> Result<Option<Arc<dyn scanid_core::keys::seal::SealingKeys>>, StartError> {
    let random = Arc::new(scanid_core::random::SystemRandom::new());
    Ok(match &settings.signing {
        SigningMode::Local => Some(Arc::new(scanid_core::keys::seal::LocalSealing::new(
            &settings.data_dir,
            random,
        ))),
        SigningMode::KmsEnvelope { key_id } => {
            let kms = scanid_aws::kms::Kms::from_config(&scanid_aws::profile_config().await?);
            Some(Arc::new(scanid_aws::seal::KmsSealing::new(
                Arc::new(kms),
                key_id,
                match store {
                    Some(s) => s,
                    None => open_store(settings).await?,
                },
                random,
                SystemClock.now(),
                true,
            )))
        }
        SigningMode::Kms { .. } => None,
    })
}

/// A `client_secret_jwt` client's secret sealed by the sealing key `settings` select
/// (nothing to do for any other client); why not.
pub async fn seal_secret(
    settings: &Settings,
    c: &mut scanid_core::domain::client::Client,
    secret: &scanid_core::domain::client::ClientSecret,
) -> Result<(), String> {
    let Some(jwt) = c.secret_jwt.as_mut() else {
        return Ok(());
    };
    let sealing = sealing(settings)
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| scanid_core::service::client_secrets::NOT_OFFERED.to_owned())?;
    let key = sealing.key().await.map_err(|e| e.to_string())?;
    let rng = scanid_core::random::SystemRandom::new();
    let sealed = key
        .seal(secret.expose().as_bytes(), c.client_id.as_str(), &rng)
        .map_err(|e| e.to_string())?;
    jwt.sealed = Some(sealed);
    Ok(())
}

/// Opens the store `settings` select (operator commands use the same store as the server).
pub async fn open_store(settings: &Settings) -> Result<Arc<dyn Backend>, StartError> {
    Ok(open_stores(settings).await?.0)
}

/// The store `settings` select and where audit events are kept: the embedded store's own
/// events table; on DynamoDB the events table (`SCANID_EVENTS_TABLE`), if one is named.
pub async fn open_stores(settings: &Settings) -> Result<Stores, StartError> {
    match &settings.store {
        StoreSettings::Embedded { data_dir } => {
            let store = Arc::new(scanid_sqlite::EmbeddedStore::open(data_dir)?);
            Ok((store.clone(), Some(store)))
        }
        StoreSettings::DynamoDb { table } => {
            let config = scanid_aws::profile_config().await?;
            let events = settings.events_table.as_deref().map(|t| {
                Arc::new(scanid_aws::events::DynamoEvents::new(&config, t)) as Arc<dyn EventStore>
            });
            Ok((scanid_aws::open_table(&config, table).await, events))
        }
    }
}

/// A store and where its events go.
pub type Stores = (Arc<dyn Backend>, Option<Arc<dyn EventStore>>);
