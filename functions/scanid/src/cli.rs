//! Command-line arguments. Every setting flag has the environment variable of the same name
//! that the Lambda functions read (`--public-url` / `SCANID_PUBLIC_URL`).

use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use scanid_core::config::{ConfigError, RawSettings, Settings};
use scanid_core::context::StartError;

#[derive(Debug, Parser)]
#[command(
    name = "scanid",
    version,
    about = "scanid: OpenID Connect login by QR code, and a public identity directory"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run every endpoint in one process on the embedded store.
    Serve(crate::serve::ServeArgs),
    /// Manage registered clients (relying parties).
    #[command(subcommand)]
    Client(crate::operator::ClientCommand),
    /// Manage signing keys: list, rotate (publish next, then activate), remove retired keys.
    #[command(subcommand)]
    Keys(crate::keys::KeysCommand),
    /// The reference app: enroll a device key, approve or deny a QR login, update the profile.
    #[command(subcommand)]
    App(crate::reference_app::AppCommand),
    /// Manage identities: list, show, groups, disable.
    #[command(subcommand)]
    Identity(crate::identity::IdentityCommand),
    /// AWS resources for operators not deploying with SAM (and for the emulator).
    #[command(subcommand)]
    Aws(crate::aws::AwsCommand),
}

/// The settings shared by `serve` and the operator commands.
#[derive(Debug, Clone, Args)]
pub struct ConfigArgs {
    /// Realm name; the issuer is {public-url}/realms/{realm}.
    #[arg(long, env = "SCANID_REALM", global = true)]
    pub realm: Option<String>,
    /// Public base URL ({auth_url}); `serve` defaults to http://{addr}.
    #[arg(long, env = "SCANID_PUBLIC_URL", global = true)]
    pub public_url: Option<String>,
    /// Base URL of the directory API ({base_url}); default the public URL.
    #[arg(long, env = "SCANID_DIRECTORY_URL", global = true)]
    pub directory_url: Option<String>,
    /// Data directory: embedded store and local signing keys.
    #[arg(long, env = "SCANID_DATA_DIR", global = true)]
    pub data_dir: Option<String>,
    /// DynamoDB table name (selects the DynamoDB store).
    #[arg(long, env = "SCANID_TABLE", global = true)]
    pub table: Option<String>,
    /// Signing mode: local, kms or kms-envelope.
    #[arg(long, env = "SCANID_SIGNING", global = true)]
    pub signing: Option<String>,
    /// KMS key id or alias for kms and kms-envelope.
    #[arg(long, env = "SCANID_KMS_KEY_ID", global = true)]
    pub kms_key_id: Option<String>,
    /// Default token signing algorithm: RS256 or ES256.
    #[arg(long, env = "SCANID_SIGNING_ALG", global = true)]
    pub signing_alg: Option<String>,
    /// Access token lifetime in seconds.
    #[arg(long, env = "SCANID_ACCESS_TOKEN_TTL", global = true)]
    pub access_token_ttl: Option<String>,
    /// Refresh token lifetime in seconds.
    #[arg(long, env = "SCANID_REFRESH_TOKEN_TTL", global = true)]
    pub refresh_token_ttl: Option<String>,
    /// Offline (offline_access) token lifetime in seconds.
    #[arg(long, env = "SCANID_OFFLINE_TOKEN_TTL", global = true)]
    pub offline_token_ttl: Option<String>,
    /// Authorization code lifetime in seconds (at most 60).
    #[arg(long, env = "SCANID_CODE_TTL", global = true)]
    pub code_ttl: Option<String>,
    /// SSO session idle timeout in seconds.
    #[arg(long, env = "SCANID_SSO_IDLE_TTL", global = true)]
    pub sso_idle_ttl: Option<String>,
    /// SSO session maximum lifetime in seconds.
    #[arg(long, env = "SCANID_SSO_MAX_TTL", global = true)]
    pub sso_max_ttl: Option<String>,
    /// How long a QR login session lives, in seconds.
    #[arg(long, env = "SCANID_LOGIN_TTL", global = true)]
    pub login_ttl: Option<String>,
    /// Login requests allowed per client IP and minute.
    #[arg(long, env = "SCANID_LOGIN_RATE_PER_MINUTE", global = true)]
    pub login_rate_per_minute: Option<String>,
    /// How long a device code (RFC 8628 device grant) lives, seconds (default 600).
    #[arg(long, env = "SCANID_DEVICE_CODE_TTL", global = true)]
    pub device_code_ttl: Option<String>,
    /// User codes (RFC 8628) looked up per source address and minute (default 10).
    #[arg(long, env = "SCANID_USER_CODE_RATE_PER_MINUTE", global = true)]
    pub user_code_rate_per_minute: Option<String>,
    /// App approvals/denials allowed per identity and minute.
    #[arg(long, env = "SCANID_DECISION_RATE_PER_MINUTE", global = true)]
    pub decision_rate_per_minute: Option<String>,
    /// Failed client authentications per source address and minute before 429.
    #[arg(long, env = "SCANID_AUTH_FAILURE_RATE_PER_MINUTE", global = true)]
    pub auth_failure_rate_per_minute: Option<String>,
    /// App sign-ups per source address and hour.
    #[arg(long, env = "SCANID_SIGNUP_RATE_PER_HOUR", global = true)]
    pub signup_rate_per_hour: Option<String>,
    /// Name availability lookups per source address and minute.
    #[arg(long, env = "SCANID_NAME_LOOKUP_RATE_PER_MINUTE", global = true)]
    pub name_lookup_rate_per_minute: Option<String>,
    /// Seconds a deleted identity's name stays held before anyone may take it (0: at once).
    #[arg(long, env = "SCANID_NAME_QUARANTINE", global = true)]
    pub name_quarantine: Option<String>,
    /// Photo uploads per identity and hour.
    #[arg(long, env = "SCANID_PHOTO_UPLOAD_RATE_PER_HOUR", global = true)]
    pub photo_upload_rate_per_hour: Option<String>,
    /// A host external profile photos may point at (repeatable; default none).
    #[arg(
        long = "photo-host",
        env = "SCANID_PHOTO_HOSTS",
        value_delimiter = ',',
        global = true
    )]
    pub photo_hosts: Vec<String>,
    /// The S3 bucket of hosted profile photos (with --table; the embedded store keeps them
    /// in the data dir).
    #[arg(long, env = "SCANID_PHOTO_BUCKET", global = true)]
    pub photo_bucket: Option<String>,
    /// A reverse proxy whose X-Forwarded-For is believed (repeatable IP address).
    #[arg(
        long = "trusted-proxy",
        env = "SCANID_TRUSTED_PROXIES",
        value_delimiter = ',',
        global = true
    )]
    pub trusted_proxies: Vec<String>,
    /// `true`: nonce and state required on every authorization request (default: nonce
    /// optional, state optional with PKCE S256).
    #[arg(long, env = "SCANID_REQUIRE_NONCE", global = true)]
    pub require_nonce: Option<String>,
    /// A resource server access tokens may be issued for (RFC 8707; repeatable absolute URI
    /// without fragment; default none).
    #[arg(
        long = "resource",
        env = "SCANID_RESOURCES",
        value_delimiter = ',',
        global = true
    )]
    pub resources: Vec<String>,
    /// `true`: anyone may register a client (RFC 7591) without an initial access token
    /// (default: closed; tokens from `scanid client registration-token create`).
    #[arg(long, env = "SCANID_OPEN_CLIENT_REGISTRATION", global = true)]
    pub open_client_registration: Option<String>,
    /// Dynamic client registration requests allowed per source address and hour.
    #[arg(long, env = "SCANID_REGISTRATION_RATE_PER_HOUR", global = true)]
    pub registration_rate_per_hour: Option<String>,
    /// App Store link shown to people without the app.
    #[arg(long, env = "SCANID_APP_STORE_URL_IOS", global = true)]
    pub app_store_url_ios: Option<String>,
    /// Google Play link shown to people without the app.
    #[arg(long, env = "SCANID_APP_STORE_URL_ANDROID", global = true)]
    pub app_store_url_android: Option<String>,
}

impl ConfigArgs {
    /// Validated settings; `default_public_url` fills a missing public URL.
    pub fn settings(&self, default_public_url: &str) -> Result<Settings, CliError> {
        let raw = RawSettings {
            realm: self.realm.clone(),
            public_url: Some(
                self.public_url
                    .clone()
                    .unwrap_or_else(|| default_public_url.to_owned()),
            ),
            directory_url: self.directory_url.clone(),
            data_dir: self.data_dir.clone(),
            table: self.table.clone(),
            signing: self.signing.clone(),
            kms_key_id: self.kms_key_id.clone(),
            signing_alg: self.signing_alg.clone(),
            access_token_ttl: self.access_token_ttl.clone(),
            refresh_token_ttl: self.refresh_token_ttl.clone(),
            offline_token_ttl: self.offline_token_ttl.clone(),
            code_ttl: self.code_ttl.clone(),
            sso_idle_ttl: self.sso_idle_ttl.clone(),
            sso_max_ttl: self.sso_max_ttl.clone(),
            login_ttl: self.login_ttl.clone(),
            login_rate_per_minute: self.login_rate_per_minute.clone(),
            device_code_ttl: self.device_code_ttl.clone(),
            user_code_rate_per_minute: self.user_code_rate_per_minute.clone(),
            decision_rate_per_minute: self.decision_rate_per_minute.clone(),
            auth_failure_rate_per_minute: self.auth_failure_rate_per_minute.clone(),
            signup_rate_per_hour: self.signup_rate_per_hour.clone(),
            name_lookup_rate_per_minute: self.name_lookup_rate_per_minute.clone(),
            name_quarantine: self.name_quarantine.clone(),
            photo_upload_rate_per_hour: self.photo_upload_rate_per_hour.clone(),
            photo_hosts: Some(self.photo_hosts.join(",")),
            photo_bucket: self.photo_bucket.clone(),
            trusted_proxies: Some(self.trusted_proxies.join(",")),
            require_nonce: self.require_nonce.clone(),
            resources: Some(self.resources.join(",")),
            open_client_registration: self.open_client_registration.clone(),
            registration_rate_per_hour: self.registration_rate_per_hour.clone(),
            // The CloudFront edge is a Lambda deployment's; `scanid serve` behind a proxy
            // uses --trusted-proxy.
            edge_secret: None,
            app_store_url_ios: self.app_store_url_ios.clone(),
            app_store_url_android: self.app_store_url_android.clone(),
        };
        Ok(Settings::from_raw(&raw)?)
    }
}

/// Why a command failed, with its exit code: 2 for bad input or configuration, 1 otherwise.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("{0}")]
    Start(#[from] StartError),
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Failed(String),
}

impl CliError {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Config(_) | CliError::Usage(_) => ExitCode::from(2),
            CliError::Start(StartError::Config(_)) => ExitCode::from(2),
            CliError::Start(_) | CliError::Failed(_) => ExitCode::FAILURE,
        }
    }
}

impl From<scanid_core::store::StoreError> for CliError {
    fn from(e: scanid_core::store::StoreError) -> Self {
        CliError::Failed(format!("store: {e}"))
    }
}

impl From<scanid_core::keys::SignError> for CliError {
    fn from(e: scanid_core::keys::SignError) -> Self {
        CliError::Failed(format!("signing keys: {e}"))
    }
}

/// Prints one JSON object on stdout.
pub fn print_json(value: &serde_json::Value) {
    println!("{value}");
}

pub async fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Serve(args) => crate::serve::run(args).await,
        Command::Client(cmd) => crate::operator::run(cmd).await,
        Command::Keys(cmd) => crate::keys::run(cmd).await,
        Command::App(cmd) => crate::reference_app::run(cmd).await,
        Command::Identity(cmd) => crate::identity::run(cmd).await,
        Command::Aws(cmd) => crate::aws::run(cmd).await,
    }
}
