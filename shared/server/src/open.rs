//! Opening what a configuration selects, for the processes that may use any of it (`scanid
//! serve`, the operator commands). A Lambda function opens only DynamoDB (`scanid-lambda`).

use std::sync::Arc;

use scanid_core::backchannel::RetryPolicy;
use scanid_core::clock::{Clock, SystemClock, Timestamp};
use scanid_core::config::{Settings, SigningMode, StoreSettings};
use scanid_core::context::StartError;
use scanid_core::keys::fresh::FreshKeys;
use scanid_core::store::{Backend, PhotoStore};
use scanid_core::Context;

/// The context `settings` select, with the real clock and CSPRNG; a missing key set is
/// created. Back-channel logout tokens are delivered from this process, each relying party
/// in parallel ([`scanid_backchannel::InProcess`]).
pub async fn context(settings: Settings) -> Result<Context, StartError> {
    let store = open_store(&settings).await?;
    let keys = fresh_keys(&settings, store.clone(), SystemClock.now()).await?;
    let photos = open_photos(&settings).await?;
    let ctx = Context::running(settings, store, keys).await?;
    let clock = ctx.clock.clone();
    let ctx = ctx.with_backchannel(Arc::new(scanid_backchannel::InProcess::new(
        clock,
        RetryPolicy::DEFAULT,
    )));
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
        SigningMode::Local => Ok(FreshKeys::local(settings.data_dir.clone(), now)?),
        mode @ (SigningMode::Kms { .. } | SigningMode::KmsEnvelope { .. }) => {
            scanid_aws::kms_keys(&scanid_aws::profile_config().await?, mode, store, now).await
        }
    }
}

/// Opens the store `settings` select (operator commands use the same store as the server).
pub async fn open_store(settings: &Settings) -> Result<Arc<dyn Backend>, StartError> {
    match &settings.store {
        StoreSettings::Embedded { data_dir } => {
            Ok(Arc::new(scanid_sqlite::EmbeddedStore::open(data_dir)?))
        }
        StoreSettings::DynamoDb { table } => {
            Ok(scanid_aws::open_table(&scanid_aws::profile_config().await?, table).await)
        }
    }
}
