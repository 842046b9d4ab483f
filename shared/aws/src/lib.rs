//! The AWS SDK configuration shared by the DynamoDB store and the KMS signers.
//!
//! Two ways to load it, so that a Lambda function links no more of the SDK than it uses:
//!
//! - [`env_config`] (Lambda): region, credentials and endpoint from the environment variables
//!   Lambda sets (`AWS_REGION`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
//!   `AWS_SESSION_TOKEN`), `AWS_USE_FIPS_ENDPOINT` and `AWS_USE_DUALSTACK_ENDPOINT`, plus
//!   `AWS_ENDPOINT_URL` for an emulator (not the per-service `AWS_ENDPOINT_URL_<SERVICE>`).
//!   It does not link `aws-config` (profiles, SSO, STS, IMDS, container credentials), which
//!   is about a fifth of a function's code; an environment that delivers credentials only
//!   through `AWS_CONTAINER_CREDENTIALS_FULL_URI` fails at init, naming `AWS_ACCESS_KEY_ID`.
//! - `profile_config` (feature `profiles`: `scanid serve` and the operator commands): the
//!   standard AWS chain, profiles and per-service endpoints included.
//!
//! Both call AWS through [`http::AwsHttp`] (HTTP/1.1, rustls on aws-lc-rs), not the SDK's
//! default client, which links HTTP/2 as well.
//!
//! On top of either, scanid sets the time budget of a request (docs/requirements.md F3):
//! throttling and transient errors are retried by the SDK's standard retry strategy
//! (exponential backoff with jitter), and every call, retries included, ends within
//! [`OPERATION_BUDGET`], so a request that meets a throttled table answers 503 well before API
//! Gateway's 30 s integration timeout.

#![forbid(unsafe_code)]
#![warn(unreachable_pub)]
#![warn(missing_docs)]

pub mod dynamo;
pub mod events;
#[cfg(any(test, feature = "test-support"))]
pub mod fake;
pub mod http;
pub mod kms;
pub mod photos;
pub mod queue;
pub mod seal;

use std::sync::Arc;
use std::time::Duration;

use aws_credential_types::provider::SharedCredentialsProvider;
use aws_credential_types::Credentials;
use aws_smithy_types::retry::RetryConfig;
use aws_smithy_types::timeout::TimeoutConfig;
use aws_types::region::Region;
pub use aws_types::SdkConfig;
use scanid_core::config::ConfigError;

use aws_sdk_dynamodb::config::BehaviorVersion;

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
        .connect_timeout(http::CONNECT_TIMEOUT)
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

/// The SDK configuration from the environment a Lambda function runs in (see [`crate`]).
pub fn env_config() -> Result<SdkConfig, ConfigError> {
    env_config_from(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
}

fn env_config_from(var: impl Fn(&str) -> Option<String>) -> Result<SdkConfig, ConfigError> {
    let missing = |setting: &'static str, reason: &str| ConfigError {
        setting,
        reason: reason.into(),
    };
    let region = var("AWS_REGION")
        .or_else(|| var("AWS_DEFAULT_REGION"))
        .ok_or_else(|| {
            missing(
                "AWS_REGION",
                "no AWS region is configured; the DynamoDB store and KMS signing need one",
            )
        })?;
    let key = var("AWS_ACCESS_KEY_ID").ok_or_else(|| {
        missing(
            "AWS_ACCESS_KEY_ID",
            "no AWS credentials in the environment (Lambda sets them from the function's role)",
        )
    })?;
    let secret = var("AWS_SECRET_ACCESS_KEY").ok_or_else(|| {
        missing(
            "AWS_SECRET_ACCESS_KEY",
            "AWS_ACCESS_KEY_ID is set without its secret key",
        )
    })?;
    let credentials = Credentials::new(key, secret, var("AWS_SESSION_TOKEN"), None, "environment");
    let flag = |name: &str| var(name).is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let mut config = base(
        Region::new(region),
        credentials,
        var("AWS_ENDPOINT_URL").as_deref(),
    );
    config.set_use_fips(Some(flag("AWS_USE_FIPS_ENDPOINT")));
    config.set_use_dual_stack(Some(flag("AWS_USE_DUALSTACK_ENDPOINT")));
    Ok(config.build())
}

/// Region, credentials, endpoint and scanid's time budget.
fn base(
    region: Region,
    credentials: Credentials,
    endpoint: Option<&str>,
) -> aws_types::sdk_config::Builder {
    let mut config = SdkConfig::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(region)
        .credentials_provider(SharedCredentialsProvider::new(credentials))
        .http_client(http::AwsHttp::new().shared())
        .retry_config(retry_config())
        .timeout_config(timeout_config());
    if let Some(endpoint) = endpoint {
        config = config.endpoint_url(endpoint);
    }
    config
}

/// The SDK configuration from the standard AWS chain (environment, profiles, SSO, web
/// identity, container and instance credentials; per-service endpoints), loaded once per
/// process; for `scanid serve` and the operator commands.
#[cfg(feature = "profiles")]
pub async fn profile_config() -> Result<SdkConfig, ConfigError> {
    static CONFIG: tokio::sync::OnceCell<Option<SdkConfig>> = tokio::sync::OnceCell::const_new();
    CONFIG
        .get_or_init(|| async {
            let config = aws_config::defaults(BehaviorVersion::latest())
                .http_client(http::AwsHttp::new().shared())
                .retry_config(retry_config())
                .timeout_config(timeout_config())
                .load()
                .await;
            config.region().is_some().then_some(config)
        })
        .await
        .clone()
        .ok_or_else(|| ConfigError {
            setting: "AWS_REGION",
            reason: "no AWS region is configured (set AWS_REGION, or a region in the AWS \
                     profile); the DynamoDB store and KMS signing need one"
                .into(),
        })
}

/// A configuration for a local emulator (moto) at `endpoint`, with dummy credentials; for tests.
pub async fn emulator(endpoint: &str) -> SdkConfig {
    base(
        Region::new("us-east-1"),
        Credentials::new("testing", "testing", None, None, "emulator"),
        Some(endpoint),
    )
    .build()
}

/// Opens the DynamoDB table and pays the TLS handshake now, not on the first request; a
/// failure is logged (with its detail) and the requests that need the table answer 503 until
/// it is back.
pub async fn open_table(config: &SdkConfig, table: &str) -> Arc<dynamo::DynamoStore> {
    let store = dynamo::DynamoStore::from_config(config, table);
    if let Err(e) = store.warm().await {
        tracing::warn!(table = %table, error = %e, "DynamoDB is not reachable yet");
    }
    Arc::new(store)
}

/// The key set in the store with KMS signers (`kms`, `kms-envelope`), checked again on a short
/// TTL ([`scanid_core::keys::fresh`]); created on the very first start of `scanid serve` or an
/// operator command. (A Lambda function never creates keys: `scanid-lambda` only loads them.)
pub async fn kms_keys(
    config: &SdkConfig,
    mode: &scanid_core::config::SigningMode,
    store: Arc<dyn scanid_core::store::Backend>,
    now: scanid_core::clock::Timestamp,
) -> Result<scanid_core::keys::fresh::FreshKeys, scanid_core::context::StartError> {
    use scanid_core::context::StartError;
    let kms = kms::Kms::from_config(config);
    if let Some(bootstrap) = kms::Bootstrap::from_mode(mode) {
        kms::load_or_create_set(store.as_ref(), &kms, bootstrap, now).await?;
    }
    scanid_core::keys::fresh::FreshKeys::from_store(store, Arc::new(kms), now)
        .await?
        .ok_or_else(|| StartError::Unsupported(scanid_core::context::NO_KEY_SET.into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn from(vars: &[(&str, &str)]) -> Result<SdkConfig, ConfigError> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        env_config_from(|name| vars.get(name).cloned())
    }

    #[test]
    fn the_lambda_environment_gives_region_credentials_and_the_time_budget() {
        let config = from(&[
            ("AWS_REGION", "eu-west-1"),
            ("AWS_ACCESS_KEY_ID", "AKIA"),
            ("AWS_SECRET_ACCESS_KEY", "secret"),
            ("AWS_SESSION_TOKEN", "token"),
        ])
        .unwrap();
        assert_eq!(config.region().map(|r| r.as_ref()), Some("eu-west-1"));
        assert_eq!(config.endpoint_url(), None);
        assert!(config.credentials_provider().is_some());
        assert_eq!(
            config.retry_config().map(|r| r.max_attempts()),
            Some(MAX_ATTEMPTS)
        );
        assert_eq!(
            config.timeout_config().and_then(|t| t.operation_timeout()),
            Some(OPERATION_BUDGET)
        );
    }

    #[test]
    fn an_emulator_endpoint_and_the_default_region_are_honoured() {
        let config = from(&[
            ("AWS_DEFAULT_REGION", "us-east-1"),
            ("AWS_ACCESS_KEY_ID", "testing"),
            ("AWS_SECRET_ACCESS_KEY", "testing"),
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:5000"),
        ])
        .unwrap();
        assert_eq!(config.region().map(|r| r.as_ref()), Some("us-east-1"));
        assert_eq!(config.endpoint_url(), Some("http://127.0.0.1:5000"));
        assert_eq!(config.use_fips(), Some(false));
    }

    #[test]
    fn fips_and_dual_stack_endpoints_are_honoured() {
        let config = from(&[
            ("AWS_REGION", "us-gov-west-1"),
            ("AWS_ACCESS_KEY_ID", "a"),
            ("AWS_SECRET_ACCESS_KEY", "b"),
            ("AWS_USE_FIPS_ENDPOINT", "true"),
            ("AWS_USE_DUALSTACK_ENDPOINT", "TRUE"),
        ])
        .unwrap();
        assert_eq!(config.use_fips(), Some(true));
        assert_eq!(config.use_dual_stack(), Some(true));
    }

    #[test]
    fn a_missing_setting_is_named() {
        let e = from(&[("AWS_ACCESS_KEY_ID", "a"), ("AWS_SECRET_ACCESS_KEY", "b")]).unwrap_err();
        assert_eq!(e.setting, "AWS_REGION");
        let e = from(&[("AWS_REGION", "eu-west-1")]).unwrap_err();
        assert_eq!(e.setting, "AWS_ACCESS_KEY_ID");
        let e = from(&[("AWS_REGION", "eu-west-1"), ("AWS_ACCESS_KEY_ID", "a")]).unwrap_err();
        assert_eq!(e.setting, "AWS_SECRET_ACCESS_KEY");
    }
}
