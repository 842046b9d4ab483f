//! What every `functions/<name>/src/main.rs` calls: JSON logs, configuration from the
//! environment (failing at init with the setting's name), one context per cold start on the
//! DynamoDB table, then the function's handler for every request.
//!
//! Entry points, so that a function links only what it uses: [`run`] for functions that
//! never sign (their keyring verifies and publishes from the key set; no KMS client is linked),
//! [`run_signing`] for those that sign (KMS or KMS-envelope); [`run_photos`] and
//! [`run_signing_photos`] also link the S3 client of hosted photos. The functions that end
//! sessions put back-channel logout deliveries on the queue `SCANID_BACKCHANNEL_QUEUE_URL`
//! names; [`sender::run`] is the function that reads it. [`events_writer::run`] is the function
//! that writes the audit lines CloudWatch Logs hands it to the events table.
#![forbid(unsafe_code)]
#![warn(unreachable_pub)]
#![warn(missing_docs)]

pub mod events_writer;
pub mod sender;
pub mod telemetry;

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant};

use lambda_http::service_fn;
use scanid_core::clock::{Clock, SystemClock};
use scanid_core::config::{RawSettings, Settings, StoreSettings};
use scanid_core::context::StartError;
use scanid_core::keys::fresh::FreshKeys;
use scanid_core::keys::set::{Builder, PublishedOnly};
use scanid_core::store::read_only::ReadOnly;
use scanid_core::store::{Backend, PhotoStore};
use scanid_core::Context;
use scanid_http::routes::{self, Access, Endpoint, Handler};

/// The functions that are not HTTP routes (the route table names the others): triggered by a
/// queue (`backchannel-sender`) or by a CloudWatch Logs subscription (`events-writer`).
pub const QUEUE_FUNCTIONS: &[&str] = &["backchannel-sender", "events-writer"];

/// Every handler as a value: `main.rs` names its own, so its binary links no other handler.
pub use scanid_http::routes::endpoints;

/// Runs the Lambda function of `endpoint`, which never signs.
pub async fn run(endpoint: Endpoint) -> Result<(), lambda_http::Error> {
    telemetry::init();
    if endpoint.handler.access() == Access::Sign {
        return Err(wrong_entry(endpoint, "signs", "run_signing"));
    }
    if endpoint.handler.photos() {
        return Err(wrong_entry(endpoint, "handles photos", "run_photos"));
    }
    if endpoint.handler.ends_sessions() {
        return Err(wrong_entry(endpoint, "ends sessions", "run_signing"));
    }
    if endpoint.handler.queues_deliveries() {
        return Err(wrong_entry(endpoint, "queues deliveries", "run_queueing"));
    }
    if endpoint.handler.authenticates_clients() || endpoint.handler.seals_client_secrets() {
        return Err(wrong_entry(
            endpoint,
            "authenticates clients or seals their secrets",
            "run_clients",
        ));
    }
    serve(endpoint, publish_only, None, None, None, None).await
}

/// As [`run`], for a function that authenticates clients and never signs (introspection,
/// revocation, device authorization, pushed requests), or fetches a client's metadata
/// document (the authorization endpoint), or seals `client_secret_jwt` clients' secrets
/// (client registration): it links the HTTP client that fetches a client's `jwks_uri` and
/// client ID metadata documents, and the KMS client that opens the sealing key
/// (`kms-envelope`; on first use, never at init).
pub async fn run_clients(endpoint: Endpoint) -> Result<(), lambda_http::Error> {
    telemetry::init();
    if endpoint.handler.access() == Access::Sign {
        return Err(wrong_entry(endpoint, "signs", "run_signing"));
    }
    if endpoint.handler.photos() {
        return Err(wrong_entry(endpoint, "handles photos", "run_photos"));
    }
    if endpoint.handler.ends_sessions() {
        return Err(wrong_entry(endpoint, "ends sessions", "run_signing"));
    }
    if endpoint.handler.queues_deliveries() {
        return Err(wrong_entry(
            endpoint,
            "queues deliveries",
            "run_clients_queueing",
        ));
    }
    serve(
        endpoint,
        publish_only,
        None,
        None,
        Some(jwks_http),
        Some(kms_sealing),
    )
    .await
}

/// As [`run`], for a function that never signs but hands deliveries to the back-channel
/// queue (the app's decision: a CIBA ping): it links the SQS client
/// (`SCANID_BACKCHANNEL_QUEUE_URL`).
pub async fn run_queueing(endpoint: Endpoint) -> Result<(), lambda_http::Error> {
    telemetry::init();
    if endpoint.handler.access() == Access::Sign || endpoint.handler.photos() {
        return Err(wrong_entry(
            endpoint,
            "signs or handles photos",
            "run_signing",
        ));
    }
    serve(endpoint, publish_only, None, Some(sqs_queue), None, None).await
}

/// As [`run_clients`], for a function that also hands deliveries to the back-channel queue
/// (the CIBA endpoint: a Web Push to the person's apps).
pub async fn run_clients_queueing(endpoint: Endpoint) -> Result<(), lambda_http::Error> {
    telemetry::init();
    if endpoint.handler.access() == Access::Sign || endpoint.handler.photos() {
        return Err(wrong_entry(
            endpoint,
            "signs or handles photos",
            "run_signing",
        ));
    }
    serve(
        endpoint,
        publish_only,
        None,
        Some(sqs_queue),
        Some(jwks_http),
        Some(kms_sealing),
    )
    .await
}

/// Runs the Lambda function of `endpoint`, which never signs but reads or writes hosted
/// photos: it links the S3 client (`SCANID_PHOTO_BUCKET`).
pub async fn run_photos(endpoint: Endpoint) -> Result<(), lambda_http::Error> {
    telemetry::init();
    if endpoint.handler.access() == Access::Sign {
        return Err(wrong_entry(endpoint, "signs", "run_signing_photos"));
    }
    if endpoint.handler.ends_sessions() {
        return Err(wrong_entry(endpoint, "ends sessions", "run_signing_photos"));
    }
    serve(endpoint, publish_only, Some(s3_photos), None, None, None).await
}

/// As [`run_signing`], for a function that also removes hosted photos (identity deletion).
pub async fn run_signing_photos(endpoint: Endpoint) -> Result<(), lambda_http::Error> {
    telemetry::init();
    serve(endpoint, kms, Some(s3_photos), Some(sqs_queue), None, None).await
}

/// A main.rs that called the wrong entry point for its handler.
fn wrong_entry(endpoint: Endpoint, does: &str, call: &str) -> lambda_http::Error {
    format!(
        "{:?} {does}: its main.rs must call {call}",
        endpoint.handler
    )
    .into()
}

/// The keyring of a function that never signs: verifies and publishes from the key set.
fn publish_only(_: &scanid_aws::SdkConfig) -> Builder {
    Arc::new(PublishedOnly)
}

/// The keyring of a function that signs: through KMS, or with a key KMS decrypts once.
fn kms(config: &scanid_aws::SdkConfig) -> Builder {
    Arc::new(scanid_aws::kms::Kms::from_config(config))
}

/// The photo bucket's store.
fn s3_photos(
    config: &scanid_aws::SdkConfig,
    settings: &Settings,
) -> Result<Arc<dyn PhotoStore>, StartError> {
    let bucket = settings.photo_bucket.as_deref().ok_or_else(|| {
        StartError::Config(scanid_core::config::ConfigError {
            setting: "SCANID_PHOTO_BUCKET",
            reason: "this function stores photos: set the photo bucket".into(),
        })
    })?;
    Ok(Arc::new(scanid_aws::photos::S3Photos::from_config(
        config, bucket,
    )))
}

/// How a function that handles photos opens their store.
type PhotosOpener =
    fn(&scanid_aws::SdkConfig, &Settings) -> Result<Arc<dyn PhotoStore>, StartError>;

/// The back-channel logout queue at `url` (`SCANID_BACKCHANNEL_QUEUE_URL`).
fn sqs_queue(
    config: &scanid_aws::SdkConfig,
    url: &str,
) -> Arc<dyn scanid_core::backchannel::LogoutDelivery> {
    let queue = scanid_aws::queue::Queue::from_config(config, url);
    Arc::new(scanid_aws::queue::SqsDelivery(queue))
}

/// How a function that queues deliveries reaches the back-channel queue. Only the signing and
/// queueing entry points pass one, so only those functions link the SQS client.
type QueueOpener =
    fn(&scanid_aws::SdkConfig, &str) -> Arc<dyn scanid_core::backchannel::LogoutDelivery>;

/// The fetcher of clients' `jwks_uri` (`private_key_jwt`), with the SSRF guards of back-channel
/// delivery; `None` (logged) when no HTTP client can be built: such clients then fail to
/// authenticate.
fn jwks_http() -> Option<Arc<dyn scanid_core::client_jwks::JwksFetch>> {
    match scanid_backchannel::http_client() {
        Ok(http) => Some(Arc::new(scanid_backchannel::JwksHttp::new(http))),
        Err(e) => {
            tracing::error!(error = %e, "no HTTP client: clients' jwks_uri cannot be fetched");
            None
        }
    }
}

/// The sealing key of `client_secret_jwt` clients' secrets (`kms-envelope`): in the table,
/// wrapped by the KMS key, decrypted on first use; made where `create` (the functions that
/// seal secrets).
fn kms_sealing(
    config: &scanid_aws::SdkConfig,
    key_id: &str,
    store: Arc<dyn Backend>,
    now: scanid_core::clock::Timestamp,
    create: bool,
) -> Arc<dyn scanid_core::keys::seal::SealingKeys> {
    Arc::new(scanid_aws::seal::KmsSealing::new(
        Arc::new(scanid_aws::kms::Kms::from_config(config)),
        key_id,
        store,
        Arc::new(scanid_core::random::SystemRandom::new()),
        now,
        create,
    ))
}

/// How a function that authenticates clients or seals their secrets opens the sealing key.
/// Only their entry points pass one, so only those functions link the KMS client for it.
type SealingOpener = fn(
    &scanid_aws::SdkConfig,
    &str,
    Arc<dyn Backend>,
    scanid_core::clock::Timestamp,
    bool,
) -> Arc<dyn scanid_core::keys::seal::SealingKeys>;

/// How a function that authenticates clients fetches their keys. Only their entry points pass
/// one, so only those functions link the HTTP client.
type JwksOpener = fn() -> Option<Arc<dyn scanid_core::client_jwks::JwksFetch>>;

/// Runs the Lambda function of `endpoint`, which signs tokens: its keyring signs through KMS
/// (`kms`) or with a key KMS decrypts once (`kms-envelope`).
pub async fn run_signing(endpoint: Endpoint) -> Result<(), lambda_http::Error> {
    telemetry::init();
    serve(
        endpoint,
        kms,
        None,
        Some(sqs_queue),
        Some(jwks_http),
        Some(kms_sealing),
    )
    .await
}

async fn serve(
    endpoint: Endpoint,
    build: impl FnOnce(&scanid_aws::SdkConfig) -> Builder,
    photos: Option<PhotosOpener>,
    queue: Option<QueueOpener>,
    jwks: Option<JwksOpener>,
    sealing: Option<SealingOpener>,
) -> Result<(), lambda_http::Error> {
    let started = Instant::now();
    let handler = endpoint.handler;
    let mut init = InitTimes::default();
    let ctx = context(handler, build, photos, queue, jwks, sealing, &mut init)
        .await
        .inspect_err(|e| {
            tracing::error!(error = %e, "init failed");
        })?;
    // Decrypt the envelope key now (init), not on the first token request; a failure here is
    // retried at the first signature (503 until KMS answers). A function that signs only on a
    // client's request (JARM, signed introspection) pays it at its first signature instead.
    if handler.access() == Access::Sign && !handler.signs_on_request() {
        let t = Instant::now();
        if let Err(e) = ctx.keyring().await.warm().await {
            tracing::warn!(error = %e, "signing keys not ready yet");
        }
        init.kms = t.elapsed();
    }
    // What init cost, and how much of it was waiting on AWS (the cold-start harness,
    // infra/coldstart.py, reads this line).
    tracing::info!(
        handler = ?handler,
        init_ms = ms(started.elapsed()),
        table_ms = ms(init.table),
        key_set_ms = ms(init.key_set),
        kms_ms = ms(init.kms),
        "init"
    );
    let ctx = Arc::new(ctx);
    let function = routes::function_of(handler);
    let namespace: Arc<str> = telemetry::namespace().into();
    lambda_http::run(service_fn(move |req| {
        let (ctx, namespace) = (ctx.clone(), namespace.clone());
        async move {
            let started = Instant::now();
            let resp = match routes::routed(endpoint, req) {
                Some(req) => routes::serve(endpoint, &ctx, req).await,
                None => scanid_http::HttpError::NotFound.into_response(),
            };
            #[allow(
                clippy::disallowed_methods,
                reason = "the request line's timestamp is wall time, as CloudWatch reads it"
            )]
            let at = std::time::SystemTime::now();
            telemetry::emit(&telemetry::request_line(
                &namespace,
                at,
                function,
                resp.status().as_u16(),
                started.elapsed(),
                resp.extensions()
                    .get::<scanid_http::error::ErrorKind>()
                    .map(|k| k.0),
            ));
            Ok::<_, Infallible>(resp)
        }
    }))
    .await
}

/// Where init time goes: the AWS calls a cold start makes.
#[derive(Default)]
struct InitTimes {
    /// Opening the table: one `GetItem`, which pays the TLS handshake.
    table: Duration,
    /// Reading the key set (one `GetItem`) and building the keyring.
    key_set: Duration,
    /// Decrypting the envelope keys (`kms-envelope` signing functions only).
    kms: Duration,
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 10_000.0).round() / 10.0
}

/// The context of one cold start: the DynamoDB table (read-only where the function only
/// reads, as the template's IAM policies), and the key set held in it.
async fn context(
    handler: Handler,
    build: impl FnOnce(&scanid_aws::SdkConfig) -> Builder,
    photos: Option<PhotosOpener>,
    queue: Option<QueueOpener>,
    jwks: Option<JwksOpener>,
    sealing: Option<SealingOpener>,
    init: &mut InitTimes,
) -> Result<Context, StartError> {
    let settings = Settings::from_raw(&RawSettings::from_env())?;
    let StoreSettings::DynamoDb { table } = &settings.store else {
        return Err(StartError::Unsupported(
            "a Lambda function needs SCANID_TABLE (the embedded store is for `scanid serve`)"
                .into(),
        ));
    };
    if settings.signing == scanid_core::config::SigningMode::Local {
        return Err(StartError::Unsupported(
            "a Lambda function signs with SCANID_SIGNING=kms or kms-envelope (local key files \
             are for `scanid serve`)"
                .into(),
        ));
    }
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let config = scanid_aws::env_config()?;
    let t = Instant::now();
    let mut store: Arc<dyn Backend> = scanid_aws::open_table(&config, table).await;
    init.table = t.elapsed();
    let builder = build(&config);
    let photos = photos.map(|open| open(&config, &settings)).transpose()?;
    let t = Instant::now();
    let keys = FreshKeys::from_store(store.clone(), builder, clock.now())
        .await?
        .ok_or_else(|| StartError::Unsupported(scanid_core::context::NO_KEY_SET.into()))?;
    init.key_set = t.elapsed();
    if handler.access() == Access::Read {
        store = Arc::new(ReadOnly(store));
    }
    // The events table: only the admin API's function is given one (SCANID_EVENTS_TABLE) to
    // query; audit events reach it from the log, never from a request (the book's admin-api.md).
    let events = settings
        .events_table
        .as_deref()
        .map(|t| Arc::new(scanid_aws::events::DynamoEvents::new(&config, t)));
    // The sealing key of client_secret_jwt clients' secrets (kms-envelope): decrypted by KMS on
    // first use, not here; only the functions that authenticate clients or seal secrets.
    let sealing = match (&settings.signing, sealing) {
        (scanid_core::config::SigningMode::KmsEnvelope { key_id }, Some(open))
            if handler.holds_sealing_key() =>
        {
            Some(open(
                &config,
                key_id,
                store.clone(),
                clock.now(),
                handler.seals_client_secrets(),
            ))
        }
        _ => None,
    };
    let mut ctx = Context::running(settings, store, keys).await?;
    if let Some(sealing) = sealing {
        ctx = ctx.with_sealing(sealing);
    }
    // Clients' jwks_uri (private_key_jwt), where the function authenticates clients.
    if let Some(fetch) = jwks.and_then(|open| open()) {
        ctx = ctx.with_jwks_fetch(fetch);
    }
    if let Some(events) = events {
        ctx = ctx.with_events(events);
    }
    // Back-channel logout tokens go on the queue (the sender function POSTs them), so the
    // request that ended a session returns at once and a frozen function loses none.
    let url = std::env::var(sender::QUEUE_URL)
        .ok()
        .filter(|v| !v.is_empty());
    if let (Some(open), Some(url)) = (queue, url) {
        ctx = ctx.with_backchannel(open(&config, &url));
    }
    Ok(match photos {
        Some(p) => ctx.with_photos(p),
        None => ctx,
    })
}
