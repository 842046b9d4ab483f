//! The AWS SDK configuration shared by the DynamoDB store and the KMS signers.
//!
//! The standard AWS environment is honoured (region, credentials, `AWS_ENDPOINT_URL` and the
//! per-service `AWS_ENDPOINT_URL_DYNAMODB` / `AWS_ENDPOINT_URL_KMS`, profiles). On top of it,
//! scanid sets the time budget of a request (docs/requirements.md F3): throttling and transient errors
//! are retried by the SDK's standard retry strategy (exponential backoff with jitter), and every
//! call, retries included, ends within [`OPERATION_BUDGET`], so a request that meets a
//! throttled table answers 503 well before API Gateway's 30 s integration timeout.

#![forbid(unsafe_code)]

pub mod dynamo;
#[cfg(any(test, feature = "test-support"))]
pub mod fake;
pub mod kms;
pub mod photos;

use std::sync::Arc;
use std::time::Duration;

use aws_config::retry::RetryConfig;
use aws_config::timeout::TimeoutConfig;
pub use aws_config::SdkConfig;
use aws_config::{BehaviorVersion, Region};

/// The most time one store or KMS call may take, retries included.
pub const OPERATION_BUDGET: Duration = Duration::from_secs(4);
/// The most time one attempt may take.
pub const ATTEMPT_BUDGET: Duration = Duration::from_millis(1500);
/// Attempts per call (the first try and up to three retries).
pub const MAX_ATTEMPTS: u32 = 4;

/// The retry policy: standard mode, short backoff (it is a request path, not a batch job).
pub fn retry_config() -> RetryConfig {
    RetryConfig::standard()
        .with_max_attempts(MAX_ATTEMPTS)
        .with_initial_backoff(Duration::from_millis(20))
        .with_max_backoff(Duration::from_millis(800))
}

/// The time budget of one call.
pub fn timeout_config() -> TimeoutConfig {
    TimeoutConfig::builder()
        .connect_timeout(Duration::from_secs(1))
        .operation_attempt_timeout(ATTEMPT_BUDGET)
        .operation_timeout(OPERATION_BUDGET)
        .build()
}

/// What went wrong in an SDK call, for the logs: the service's error code and message, or the
/// transport failure.
pub fn error_detail<E, R>(e: &aws_sdk_dynamodb::error::SdkError<E, R>) -> String
where
    E: aws_sdk_dynamodb::error::ProvideErrorMetadata + std::error::Error + 'static,
    R: std::fmt::Debug,
{
    use aws_sdk_dynamodb::error::SdkError;
    match e {
        SdkError::ServiceError(se) => format!(
            "{}: {}",
            se.err().code().unwrap_or("error"),
            se.err().message().unwrap_or_default()
        ),
        other => format!("{other}"),
    }
}

/// Loads the SDK configuration from the standard AWS environment. `None` when no region is set
/// (the caller fails fast naming `AWS_REGION`).
pub async fn load() -> Option<SdkConfig> {
    let config = aws_config::defaults(BehaviorVersion::latest())
        .retry_config(retry_config())
        .timeout_config(timeout_config())
        .load()
        .await;
    config.region().is_some().then_some(config)
}

/// A configuration for a local emulator (moto) at `endpoint`, with dummy credentials; for tests.
pub async fn emulator(endpoint: &str) -> SdkConfig {
    aws_config::defaults(BehaviorVersion::latest())
        .retry_config(retry_config())
        .timeout_config(timeout_config())
        .region(Region::new("us-east-1"))
        .credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
            "testing", "testing", None, None, "emulator",
        ))
        .endpoint_url(endpoint)
        .load()
        .await
}

/// The AWS SDK configuration from the standard environment, loaded once per process.
pub async fn config() -> Result<SdkConfig, scanid_core::config::ConfigError> {
    static CONFIG: tokio::sync::OnceCell<Option<SdkConfig>> = tokio::sync::OnceCell::const_new();
    CONFIG
        .get_or_init(load)
        .await
        .clone()
        .ok_or_else(|| scanid_core::config::ConfigError {
            setting: "AWS_REGION",
            reason: "no AWS region is configured (set AWS_REGION, or a region in the AWS \
                     profile); the DynamoDB store and KMS signing need one"
                .into(),
        })
}

/// Opens the DynamoDB table and pays the TLS handshake now, not on the first request; a
/// failure is logged (with its detail) and the requests that need the table answer 503 until
/// it is back.
pub async fn open_table(
    table: &str,
) -> Result<Arc<dynamo::DynamoStore>, scanid_core::config::ConfigError> {
    let store = dynamo::DynamoStore::from_config(&config().await?, table);
    if let Err(e) = store.warm().await {
        tracing::warn!(table = %table, error = %e, "DynamoDB is not reachable yet");
    }
    Ok(Arc::new(store))
}

/// The key set in the store with KMS signers (`kms`, `kms-envelope`), checked again on a short
/// TTL ([`scanid_core::keys::fresh`]); created on the very first start of `scanid serve` or an
/// operator command. (A Lambda function never creates keys: `scanid-lambda` only loads them.)
pub async fn kms_keys(
    mode: &scanid_core::config::SigningMode,
    store: Arc<dyn scanid_core::store::Backend>,
    now: scanid_core::clock::Timestamp,
) -> Result<scanid_core::keys::fresh::FreshKeys, scanid_core::context::StartError> {
    use scanid_core::context::StartError;
    let kms = kms::Kms::from_config(&config().await?);
    if let Some(bootstrap) = kms::Bootstrap::from_mode(mode) {
        kms::load_or_create_set(store.as_ref(), &kms, bootstrap, now).await?;
    }
    scanid_core::keys::fresh::FreshKeys::from_store(store, Arc::new(kms), now)
        .await?
        .ok_or_else(|| StartError::Unsupported(scanid_core::context::NO_KEY_SET.into()))
}
