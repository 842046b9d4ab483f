//! Typed configuration, loaded once and validated at start (STYLE.md practice 9).
//!
//! The same names mean the same thing everywhere: the CLI flag `--public-url` and the Lambda
//! environment variable `SCANID_PUBLIC_URL` both fill [`RawSettings::public_url`]. A missing or
//! malformed setting fails with a [`ConfigError`] that names it.

use std::path::PathBuf;

use crate::keys::Alg;

pub use crate::domain::issuer::Lifetimes;
pub use crate::domain::ratelimit::Limits;

/// A setting that is missing or malformed.
#[derive(Debug, thiserror::Error)]
#[error("configuration: {setting}: {reason}")]
pub struct ConfigError {
    /// The setting's environment variable name, e.g. `SCANID_PUBLIC_URL`.
    pub setting: &'static str,
    /// What is wrong with its value.
    pub reason: String,
}

fn bad(setting: &'static str, reason: impl Into<String>) -> ConfigError {
    ConfigError {
        setting,
        reason: reason.into(),
    }
}

/// One setting: its environment variable, its `scanid` flag, its default and its help text,
/// declared once in [`SETTINGS`]. The CLI builds its flags from these rows, the Lambda
/// functions read the variables through them, and a test holds the README's configuration
/// table to them.
#[derive(Debug, Clone, Copy)]
pub struct Setting {
    /// The [`RawSettings`] field it fills.
    pub field: &'static str,
    /// The environment variable, e.g. `SCANID_PUBLIC_URL`.
    pub env: &'static str,
    /// The `scanid` flag without `--` (`None`: a Lambda-only setting).
    pub flag: Option<&'static str>,
    /// The value used when it is unset (`None`: unset has a meaning of its own).
    pub default: Option<&'static str>,
    /// A list: the flag is repeatable, the variable comma-separated.
    pub repeatable: bool,
    /// One line for `--help` and the field's documentation, without a final period (`--help`
    /// adds the default).
    pub help: &'static str,
    get: fn(&RawSettings) -> &Option<String>,
    get_mut: fn(&mut RawSettings) -> &mut Option<String>,
}

impl Setting {
    /// The value as given (an empty value counts as unset in the environment).
    pub fn raw<'a>(&self, raw: &'a RawSettings) -> Option<&'a str> {
        (self.get)(raw).as_deref()
    }

    /// The value as given, else the default.
    pub fn value<'a>(&self, raw: &'a RawSettings) -> Option<&'a str> {
        self.raw(raw).or(self.default)
    }

    /// Sets the value (`None`: unset).
    pub fn set(&self, raw: &mut RawSettings, value: Option<String>) {
        *(self.get_mut)(raw) = value;
    }
}

/// Declares every setting once: the [`RawSettings`] field, a [`Setting`] constant and its row
/// in [`SETTINGS`]. Adding a setting is one row here plus its validation in [`Settings`].
macro_rules! settings {
    ($(
        $name:ident $field:ident = $env:literal {
            flag: $flag:expr, default: $default:expr, repeatable: $repeatable:literal,
            help: $help:literal $(,)?
        }
    )*) => {
        /// Every setting, as text, before validation (see [`SETTINGS`] for each variable).
        #[derive(Debug, Clone, Default)]
        pub struct RawSettings {
            $(
                #[doc = concat!("`", $env, "`: ", $help)]
                pub $field: Option<String>,
            )*
        }

        /// One constant per setting, named after its variable without `SCANID_`.
        pub mod setting {
            use super::{RawSettings, Setting};
            $(
                #[doc = concat!("`", $env, "`: ", $help)]
                pub const $name: Setting = Setting {
                    field: stringify!($field),
                    env: $env,
                    flag: $flag,
                    default: $default,
                    repeatable: $repeatable,
                    help: $help,
                    get: |r: &RawSettings| &r.$field,
                    get_mut: |r: &mut RawSettings| &mut r.$field,
                };
            )*
        }

        /// Every setting, in the order of `--help` and the README's configuration table.
        pub const SETTINGS: &[Setting] = &[$(setting::$name),*];
    };
}

settings! {
    REALM realm = "SCANID_REALM" {
        flag: Some("realm"), default: Some("scanid"), repeatable: false,
        help: "Realm name; the issuer is {public-url}/realms/{realm}",
    }
    PUBLIC_URL public_url = "SCANID_PUBLIC_URL" {
        flag: Some("public-url"), default: None, repeatable: false,
        help: "Public base URL ({auth_url}); `serve` defaults to http://{addr}",
    }
    DIRECTORY_URL directory_url = "SCANID_DIRECTORY_URL" {
        flag: Some("directory-url"), default: None, repeatable: false,
        help: "Base URL of the directory API ({base_url}); default the public URL",
    }
    DATA_DIR data_dir = "SCANID_DATA_DIR" {
        flag: Some("data-dir"), default: Some("./.scanid"), repeatable: false,
        help: "Data directory: embedded store and local signing keys",
    }
    TABLE table = "SCANID_TABLE" {
        flag: Some("table"), default: None, repeatable: false,
        help: "DynamoDB table name (selects the DynamoDB store)",
    }
    SIGNING signing = "SCANID_SIGNING" {
        flag: Some("signing"), default: Some("local"), repeatable: false,
        help: "Signing mode: local, kms or kms-envelope",
    }
    KMS_KEY_ID kms_key_id = "SCANID_KMS_KEY_ID" {
        flag: Some("kms-key-id"), default: None, repeatable: false,
        help: "KMS key id or alias for kms and kms-envelope",
    }
    SIGNING_ALG signing_alg = "SCANID_SIGNING_ALG" {
        flag: Some("signing-alg"), default: Some("RS256"), repeatable: false,
        help: "Default token signing algorithm: RS256 or ES256",
    }
    ACCESS_TOKEN_TTL access_token_ttl = "SCANID_ACCESS_TOKEN_TTL" {
        flag: Some("access-token-ttl"), default: Some("300"), repeatable: false,
        help: "Access token lifetime in seconds",
    }
    REFRESH_TOKEN_TTL refresh_token_ttl = "SCANID_REFRESH_TOKEN_TTL" {
        flag: Some("refresh-token-ttl"), default: Some("1800"), repeatable: false,
        help: "Refresh token lifetime in seconds",
    }
    OFFLINE_TOKEN_TTL offline_token_ttl = "SCANID_OFFLINE_TOKEN_TTL" {
        flag: Some("offline-token-ttl"), default: Some("2592000"), repeatable: false,
        help: "Offline (offline_access) token lifetime in seconds",
    }
    CODE_TTL code_ttl = "SCANID_CODE_TTL" {
        flag: Some("code-ttl"), default: Some("60"), repeatable: false,
        help: "Authorization code lifetime in seconds (at most 60)",
    }
    SSO_IDLE_TTL sso_idle_ttl = "SCANID_SSO_IDLE_TTL" {
        flag: Some("sso-idle-ttl"), default: Some("1800"), repeatable: false,
        help: "SSO session idle timeout in seconds",
    }
    SSO_MAX_TTL sso_max_ttl = "SCANID_SSO_MAX_TTL" {
        flag: Some("sso-max-ttl"), default: Some("36000"), repeatable: false,
        help: "SSO session maximum lifetime in seconds",
    }
    LOGIN_TTL login_ttl = "SCANID_LOGIN_TTL" {
        flag: Some("login-ttl"), default: Some("300"), repeatable: false,
        help: "How long a QR login session lives, in seconds",
    }
    QR_CHALLENGE_TTL qr_challenge_ttl = "SCANID_QR_CHALLENGE_TTL" {
        flag: Some("qr-challenge-ttl"), default: Some("3"), repeatable: false,
        help: "Seconds a QR code's challenge is accepted after it was first shown (the code changes every second; 2 to 30)",
    }
    LOGIN_RATE_PER_MINUTE login_rate_per_minute = "SCANID_LOGIN_RATE_PER_MINUTE" {
        flag: Some("login-rate-per-minute"), default: Some("30"), repeatable: false,
        help: "Login requests allowed per client IP and minute",
    }
    DEVICE_CODE_TTL device_code_ttl = "SCANID_DEVICE_CODE_TTL" {
        flag: Some("device-code-ttl"), default: Some("600"), repeatable: false,
        help: "How long a device code (RFC 8628 device grant) lives, in seconds",
    }
    USER_CODE_RATE_PER_MINUTE user_code_rate_per_minute = "SCANID_USER_CODE_RATE_PER_MINUTE" {
        flag: Some("user-code-rate-per-minute"), default: Some("10"), repeatable: false,
        help: "User codes (RFC 8628) looked up per source address and minute",
    }
    DECISION_RATE_PER_MINUTE decision_rate_per_minute = "SCANID_DECISION_RATE_PER_MINUTE" {
        flag: Some("decision-rate-per-minute"), default: Some("10"), repeatable: false,
        help: "App approvals/denials allowed per identity and minute",
    }
    AUTH_FAILURE_RATE_PER_MINUTE auth_failure_rate_per_minute = "SCANID_AUTH_FAILURE_RATE_PER_MINUTE" {
        flag: Some("auth-failure-rate-per-minute"), default: Some("10"), repeatable: false,
        help: "Failed client authentications per source address and minute before 429",
    }
    SIGNUP_RATE_PER_HOUR signup_rate_per_hour = "SCANID_SIGNUP_RATE_PER_HOUR" {
        flag: Some("signup-rate-per-hour"), default: Some("10"), repeatable: false,
        help: "App sign-ups per source address and hour",
    }
    NAME_LOOKUP_RATE_PER_MINUTE name_lookup_rate_per_minute = "SCANID_NAME_LOOKUP_RATE_PER_MINUTE" {
        flag: Some("name-lookup-rate-per-minute"), default: Some("60"), repeatable: false,
        help: "Name availability lookups per source address and minute",
    }
    NAME_QUARANTINE name_quarantine = "SCANID_NAME_QUARANTINE" {
        flag: Some("name-quarantine"), default: Some("2592000"), repeatable: false,
        help: "Seconds a deleted identity's name stays held before anyone may take it (0: at once)",
    }
    PHOTO_UPLOAD_RATE_PER_HOUR photo_upload_rate_per_hour = "SCANID_PHOTO_UPLOAD_RATE_PER_HOUR" {
        flag: Some("photo-upload-rate-per-hour"), default: Some("10"), repeatable: false,
        help: "Photo uploads per identity and hour",
    }
    PHOTO_HOSTS photo_hosts = "SCANID_PHOTO_HOSTS" {
        flag: Some("photo-host"), default: None, repeatable: true,
        help: "A host external profile photos may point at (repeatable; default none)",
    }
    PHOTO_BUCKET photo_bucket = "SCANID_PHOTO_BUCKET" {
        flag: Some("photo-bucket"), default: None, repeatable: false,
        help: "The S3 bucket of hosted profile photos (with --table; the embedded store keeps them in the data dir)",
    }
    REQUIRE_NONCE require_nonce = "SCANID_REQUIRE_NONCE" {
        flag: Some("require-nonce"), default: Some("false"), repeatable: false,
        help: "`true`: nonce and state required on every authorization request (default: nonce optional, state optional with PKCE S256)",
    }
    RESOURCES resources = "SCANID_RESOURCES" {
        flag: Some("resource"), default: None, repeatable: true,
        help: "A resource server access tokens may be issued for (RFC 8707; repeatable absolute URI without fragment; default none)",
    }
    OPEN_CLIENT_REGISTRATION open_client_registration = "SCANID_OPEN_CLIENT_REGISTRATION" {
        flag: Some("open-client-registration"), default: Some("false"), repeatable: false,
        help: "`true`: anyone may register a client (RFC 7591) without an initial access token (default: closed; tokens from `scanid client registration-token create`)",
    }
    REGISTRATION_RATE_PER_HOUR registration_rate_per_hour = "SCANID_REGISTRATION_RATE_PER_HOUR" {
        flag: Some("registration-rate-per-hour"), default: Some("20"), repeatable: false,
        help: "Dynamic client registration requests allowed per source address and hour",
    }
    TRUSTED_PROXIES trusted_proxies = "SCANID_TRUSTED_PROXIES" {
        flag: Some("trusted-proxy"), default: None, repeatable: true,
        help: "A reverse proxy whose X-Forwarded-For is believed (repeatable IP address)",
    }
    EDGE_SECRET edge_secret = "SCANID_EDGE_SECRET" {
        // The CloudFront edge is a Lambda deployment's; `scanid serve` behind a proxy uses
        // --trusted-proxy.
        flag: None, default: None, repeatable: false,
        help: "Behind the template's CloudFront edge: only requests carrying this secret (its X-Scanid-Edge header) are served, and the client address is CloudFront-Viewer-Address",
    }
    GEOIP_DB geoip_db = "SCANID_GEOIP_DB" {
        flag: Some("geoip-db"), default: None, repeatable: true,
        help: "A MaxMind DB file (GeoIP2/GeoLite2 City or Country, and ASN; repeatable) read at start to show where a login came from (default none: the address alone)",
    }
    HIGH_USAGE_LOGINS_PER_HOUR high_usage_logins_per_hour = "SCANID_HIGH_USAGE_LOGINS_PER_HOUR" {
        flag: Some("high-usage-logins-per-hour"), default: Some("10"), repeatable: false,
        help: "More login attempts than this for one identity within an hour raise the `high_usage` flag (1 to 20)",
    }
    APP_STORE_URL_IOS app_store_url_ios = "SCANID_APP_STORE_URL_IOS" {
        flag: Some("app-store-url-ios"), default: Some("https://apps.apple.com/app/scanid"), repeatable: false,
        help: "App Store link shown to people without the app",
    }
    APP_STORE_URL_ANDROID app_store_url_android = "SCANID_APP_STORE_URL_ANDROID" {
        flag: Some("app-store-url-android"), default: Some("https://play.google.com/store/apps/details?id=app.scanid"), repeatable: false,
        help: "Google Play link shown to people without the app",
    }
}

/// Every variable name (the template test holds `template.yaml` to them).
pub const VARIABLES: [&str; SETTINGS.len()] = {
    let mut names = [""; SETTINGS.len()];
    let mut i = 0;
    while i < SETTINGS.len() {
        names[i] = SETTINGS[i].env;
        i += 1;
    }
    names
};

impl RawSettings {
    /// Reads the `SCANID_*` variables through `lookup` (`std::env::var` in Lambda).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let mut raw = Self::default();
        for s in SETTINGS {
            s.set(&mut raw, lookup(s.env).filter(|v| !v.is_empty()));
        }
        raw
    }

    /// The raw settings from the process environment.
    pub fn from_env() -> Self {
        Self::from_lookup(|n| std::env::var(n).ok())
    }
}

/// Where state lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreSettings {
    /// SQLite in the data dir.
    Embedded {
        /// The data dir.
        data_dir: PathBuf,
    },
    /// One DynamoDB table.
    DynamoDb {
        /// The table's name.
        table: String,
    },
}

/// How tokens are signed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SigningMode {
    /// Key files in the data dir.
    Local,
    /// Every signature by KMS `Sign`; the key never leaves KMS. One KMS key per algorithm
    /// (`SCANID_KMS_KEY_ID` is comma-separated); they make the key set on first start.
    Kms {
        /// The KMS keys, one per algorithm.
        key_ids: Vec<String>,
    },
    /// A private key decrypted with KMS once per cold start, then signing locally;
    /// `key_id` is the (symmetric) KMS key that wraps the private keys.
    KmsEnvelope {
        /// The KMS key that wraps the private keys.
        key_id: String,
    },
}

impl SigningMode {
    /// The `SCANID_SIGNING` value that selects this mode.
    pub const fn as_str(&self) -> &'static str {
        match self {
            SigningMode::Local => "local",
            SigningMode::Kms { .. } => "kms",
            SigningMode::KmsEnvelope { .. } => "kms-envelope",
        }
    }
}

/// Validated settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// The realm in the issuer's path (`/realms/{realm}`).
    pub realm: String,
    /// `{auth_url}`, no trailing slash.
    pub public_url: String,
    /// `{base_url}`, no trailing slash.
    pub directory_url: String,
    /// The data dir: the embedded store (when selected) and local key files.
    pub data_dir: PathBuf,
    /// Where state lives.
    pub store: StoreSettings,
    /// How tokens are signed.
    pub signing: SigningMode,
    /// The service's default signing algorithm.
    pub signing_alg: Alg,
    /// Token and session lifetimes.
    pub lifetimes: Lifetimes,
    /// Rate limits.
    pub limits: Limits,
    /// App store links shown to people without the app: (iOS, Android).
    pub app_store_urls: (String, String),
    /// Hosts an external profile photo may live on (lower case); empty: none.
    pub photo_hosts: Vec<String>,
    /// The S3 bucket of hosted photos (DynamoDB deployments).
    pub photo_bucket: Option<String>,
    /// Reverse proxies whose `X-Forwarded-For` is believed.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Behind the CloudFront edge: the secret its requests carry (`SCANID_EDGE_SECRET`).
    pub edge_secret: Option<crate::protocol::Secret>,
    /// `nonce` and `state` required on every authorization request (else: `nonce` optional,
    /// `state` optional with PKCE).
    pub require_nonce: bool,
    /// The resource servers access tokens may be issued for (RFC 8707), as registered.
    pub resources: Vec<String>,
    /// Anyone may register a client (RFC 7591) without an initial access token.
    pub open_client_registration: bool,
    /// The GeoIP databases (MaxMind DB files) read at start ([`crate::geoip`]); empty: none.
    pub geoip_db: Vec<PathBuf>,
    /// More login attempts than this for one identity within an hour raise `high_usage`.
    pub high_usage_logins_per_hour: u64,
}

impl Settings {
    /// Cookies get `Secure` unless the service runs on plain-HTTP (local development).
    pub fn secure_cookies(&self) -> bool {
        self.public_url.starts_with("https://")
    }

    /// Local development: the embedded store, served on a loopback address. Only then may a
    /// client's back-channel logout endpoint be on loopback or link-local addresses (the
    /// service POSTs there: elsewhere that reaches the host's own services).
    pub fn local_development(&self) -> bool {
        let loopback = url::Url::parse(&self.public_url).is_ok_and(|u| {
            u.host()
                .as_ref()
                .is_some_and(crate::domain::client::loopback_host)
        });
        loopback && matches!(self.store, StoreSettings::Embedded { .. })
    }

    /// `{auth_url}/realms/{realm}`, exactly, without a trailing slash (CONTRACT.md, Names).
    pub fn issuer(&self) -> String {
        format!("{}/realms/{}", self.public_url, self.realm)
    }

    /// Validates every setting; the first bad one is named in the error. Each concern is
    /// validated on its own (below); the order is the order errors are reported in.
    pub fn from_raw(raw: &RawSettings) -> Result<Self, ConfigError> {
        let (realm, public_url, directory_url) = urls(raw)?;
        let (data_dir, store) = storage(raw)?;
        let signing = signing(raw)?;
        let signing_alg = signing_alg(raw)?;
        let lifetimes = lifetimes(raw)?;
        let limits = limits(raw)?;
        let (photo_hosts, photo_bucket) = photos(raw)?;
        let trusted_proxies = list(setting::TRUSTED_PROXIES.raw(raw))
            .map(|ip| {
                ip.parse::<std::net::IpAddr>()
                    .map_err(|_| bad("SCANID_TRUSTED_PROXIES", format!("{ip:?}: an IP address")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let app_store_urls = (
            store_url(&setting::APP_STORE_URL_IOS, raw)?,
            store_url(&setting::APP_STORE_URL_ANDROID, raw)?,
        );
        Ok(Self {
            realm,
            public_url,
            directory_url,
            data_dir,
            store,
            signing,
            signing_alg,
            lifetimes,
            limits,
            app_store_urls,
            photo_hosts,
            photo_bucket,
            trusted_proxies,
            edge_secret: edge_secret(raw)?,
            require_nonce: flag(&setting::REQUIRE_NONCE, raw)?,
            resources: crate::domain::resource_indicator::registry(list(
                setting::RESOURCES.raw(raw),
            ))
            .map_err(|(r, why)| bad("SCANID_RESOURCES", format!("{r:?}: {why}")))?,
            open_client_registration: flag(&setting::OPEN_CLIENT_REGISTRATION, raw)?,
            geoip_db: list(setting::GEOIP_DB.raw(raw))
                .map(PathBuf::from)
                .collect(),
            high_usage_logins_per_hour: high_usage(raw)?,
        })
    }
}

impl crate::domain::issuer::Issuer for Settings {
    fn issuer(&self) -> String {
        Settings::issuer(self)
    }

    fn lifetimes(&self) -> &Lifetimes {
        &self.lifetimes
    }
}

/// The realm, the public URL and the directory URL.
fn urls(raw: &RawSettings) -> Result<(String, String, String), ConfigError> {
    let realm = setting::REALM.value(raw).unwrap_or_default().to_owned();
    if realm.is_empty()
        || realm.len() > 64
        || !realm
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(bad("SCANID_REALM", "1 to 64 of A-Z a-z 0-9 - _"));
    }
    let public_url = match setting::PUBLIC_URL.raw(raw) {
        Some(u) => base_url("SCANID_PUBLIC_URL", u)?,
        None => return Err(bad("SCANID_PUBLIC_URL", "missing")),
    };
    let directory_url = match setting::DIRECTORY_URL.raw(raw) {
        Some(u) => base_url("SCANID_DIRECTORY_URL", u)?,
        None => public_url.clone(),
    };
    Ok((realm, public_url, directory_url))
}

/// The data dir and the store: the embedded one in it, or a DynamoDB table.
fn storage(raw: &RawSettings) -> Result<(PathBuf, StoreSettings), ConfigError> {
    let data_dir = PathBuf::from(setting::DATA_DIR.value(raw).unwrap_or_default());
    let store = match setting::TABLE.raw(raw) {
        Some(t) => {
            if t.len() < 3
                || t.len() > 255
                || !t
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
            {
                return Err(bad(
                    "SCANID_TABLE",
                    "a DynamoDB table name: 3 to 255 of A-Z a-z 0-9 _ - .",
                ));
            }
            StoreSettings::DynamoDb {
                table: t.to_owned(),
            }
        }
        None => StoreSettings::Embedded {
            data_dir: data_dir.clone(),
        },
    };
    Ok((data_dir, store))
}

/// The signing mode with its KMS keys.
fn signing(raw: &RawSettings) -> Result<SigningMode, ConfigError> {
    let key_id = || {
        setting::KMS_KEY_ID
            .raw(raw)
            .map(str::to_owned)
            .ok_or_else(|| {
                bad(
                    "SCANID_KMS_KEY_ID",
                    "required with SCANID_SIGNING=kms or kms-envelope",
                )
            })
    };
    let signing = match setting::SIGNING.value(raw).unwrap_or_default() {
        "local" => SigningMode::Local,
        "kms" => SigningMode::Kms {
            key_ids: list(Some(&key_id()?)).map(str::to_owned).collect(),
        },
        "kms-envelope" => {
            let key_id = key_id()?;
            if key_id.contains(',') || key_id.trim().is_empty() {
                return Err(bad(
                    "SCANID_KMS_KEY_ID",
                    "kms-envelope takes one (symmetric) KMS key",
                ));
            }
            SigningMode::KmsEnvelope { key_id }
        }
        other => {
            return Err(bad(
                "SCANID_SIGNING",
                format!("{other:?}: expected local, kms or kms-envelope"),
            ))
        }
    };
    Ok(signing)
}

/// The default token signing algorithm.
fn signing_alg(raw: &RawSettings) -> Result<Alg, ConfigError> {
    let alg = match setting::SIGNING_ALG.value(raw).unwrap_or_default() {
        "RS256" => Alg::RS256,
        "ES256" => Alg::ES256,
        other => {
            return Err(bad(
                "SCANID_SIGNING_ALG",
                format!("{other:?}: expected RS256 or ES256"),
            ))
        }
    };
    Ok(alg)
}

/// Token and session lifetimes, each within its bounds.
fn lifetimes(raw: &RawSettings) -> Result<Lifetimes, ConfigError> {
    use setting::*;
    Ok(Lifetimes {
        access_token: seconds(&ACCESS_TOKEN_TTL, raw, 30, 86_400)?,
        refresh_token: seconds(&REFRESH_TOKEN_TTL, raw, 60, 31_536_000)?,
        offline_token: seconds(&OFFLINE_TOKEN_TTL, raw, 60, 315_360_000)?,
        code: seconds(&CODE_TTL, raw, 5, 60)?,
        sso_idle: seconds(&SSO_IDLE_TTL, raw, 60, 31_536_000)?,
        sso_max: seconds(&SSO_MAX_TTL, raw, 60, 31_536_000)?,
        login: seconds(&LOGIN_TTL, raw, 10, 600)?,
        qr_challenge: seconds(&QR_CHALLENGE_TTL, raw, 2, 30)?,
        device_code: seconds(&DEVICE_CODE_TTL, raw, 10, 1800)?,
        name_quarantine: seconds(&NAME_QUARANTINE, raw, 0, 10 * 31_536_000)?,
    })
}

/// Rate limits, each from 1 to 1000000.
fn limits(raw: &RawSettings) -> Result<Limits, ConfigError> {
    use setting::*;
    Ok(Limits {
        logins_per_minute: count(&LOGIN_RATE_PER_MINUTE, raw)?,
        decisions_per_minute: count(&DECISION_RATE_PER_MINUTE, raw)?,
        auth_failures_per_minute: count(&AUTH_FAILURE_RATE_PER_MINUTE, raw)?,
        signups_per_hour: count(&SIGNUP_RATE_PER_HOUR, raw)?,
        name_lookups_per_minute: count(&NAME_LOOKUP_RATE_PER_MINUTE, raw)?,
        photo_uploads_per_hour: count(&PHOTO_UPLOAD_RATE_PER_HOUR, raw)?,
        registrations_per_hour: count(&REGISTRATION_RATE_PER_HOUR, raw)?,
        user_codes_per_minute: count(&USER_CODE_RATE_PER_MINUTE, raw)?,
    })
}

/// The `high_usage` threshold: 1 to [`crate::domain::identity::RECENT_LOGINS`] (the recent
/// logins it is counted in).
fn high_usage(raw: &RawSettings) -> Result<u64, ConfigError> {
    let max = crate::domain::identity::RECENT_LOGINS as u64;
    let v = setting::HIGH_USAGE_LOGINS_PER_HOUR
        .value(raw)
        .unwrap_or_default();
    match v.trim().parse::<u64>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(bad(
            "SCANID_HIGH_USAGE_LOGINS_PER_HOUR",
            format!("{v:?}: a whole number from 1 to {max}"),
        )),
    }
}

/// The hosts external photos may be on, and the bucket of hosted ones.
fn photos(raw: &RawSettings) -> Result<(Vec<String>, Option<String>), ConfigError> {
    let hosts = list(setting::PHOTO_HOSTS.raw(raw))
        .map(|h| {
            let h = h.to_ascii_lowercase();
            match url::Host::parse(&h) {
                Ok(url::Host::Domain(d)) if d == h && d.contains('.') => Ok(h),
                _ => Err(bad(
                    "SCANID_PHOTO_HOSTS",
                    format!("{h:?}: a DNS host name such as photos.example.com"),
                )),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let bucket = match setting::PHOTO_BUCKET.raw(raw).map(str::trim) {
        None | Some("") => None,
        Some(b)
            if (3..=63).contains(&b.len())
                && b.bytes().all(|c| {
                    c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'.' || c == b'-'
                }) =>
        {
            Some(b.to_owned())
        }
        Some(b) => {
            return Err(bad(
                "SCANID_PHOTO_BUCKET",
                format!("{b:?}: an S3 bucket name, 3 to 63 of a-z 0-9 . -"),
            ))
        }
    };
    Ok((hosts, bucket))
}

/// The CloudFront edge's secret: unset, or a random value of at least 32 characters.
fn edge_secret(raw: &RawSettings) -> Result<Option<crate::protocol::Secret>, ConfigError> {
    match setting::EDGE_SECRET.raw(raw).map(str::trim) {
        None | Some("") => Ok(None),
        Some(v) if v.len() >= 32 && v.bytes().all(|b| b.is_ascii_graphic()) => {
            Ok(Some(crate::protocol::Secret::new(v)))
        }
        Some(_) => Err(bad(
            "SCANID_EDGE_SECRET",
            "at least 32 printable ASCII characters (a random value)",
        )),
    }
}

/// A `true`/`false` setting.
fn flag(setting: &Setting, raw: &RawSettings) -> Result<bool, ConfigError> {
    match setting.value(raw).map(str::trim) {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(v) => Err(bad(setting.env, format!("{v:?}: true or false"))),
    }
}

/// An absolute http(s) URL without query, fragment or credentials; returned without the
/// trailing slash.
fn base_url(setting: &'static str, value: &str) -> Result<String, ConfigError> {
    let url =
        url::Url::parse(value).map_err(|e| bad(setting, format!("{value:?} is not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad(
            setting,
            format!("{value:?}: the scheme must be http or https"),
        ));
    }
    if url.query().is_some()
        || url.fragment().is_some()
        || !url.username().is_empty()
        || url.password().is_some()
    {
        return Err(bad(
            setting,
            format!("{value:?}: no query, fragment or credentials"),
        ));
    }
    if url.host_str().is_none() {
        return Err(bad(setting, format!("{value:?}: a host is required")));
    }
    Ok(value.trim_end_matches('/').to_owned())
}

/// An app store link: an https URL.
fn store_url(setting: &Setting, raw: &RawSettings) -> Result<String, ConfigError> {
    let Some(u) = setting.value(raw) else {
        return Err(bad(setting.env, "missing"));
    };
    let parsed = url::Url::parse(u).map_err(|_| bad(setting.env, format!("{u:?} is not a URL")))?;
    if parsed.scheme() != "https" {
        return Err(bad(setting.env, "must be an https URL"));
    }
    Ok(u.to_owned())
}

/// The non-empty items of a comma-separated setting.
fn list(value: Option<&str>) -> impl Iterator<Item = &str> {
    value
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// A rate limit: a whole number from 1 to 1000000, else the setting's default.
fn count(setting: &Setting, raw: &RawSettings) -> Result<u64, ConfigError> {
    let v = setting.value(raw).unwrap_or_default();
    match v.trim().parse::<u64>() {
        Ok(n) if (1..=1_000_000).contains(&n) => Ok(n),
        _ => Err(bad(
            setting.env,
            format!("{v:?}: a whole number from 1 to 1000000"),
        )),
    }
}

/// A lifetime in seconds within `min..=max`, else the setting's default.
fn seconds(setting: &Setting, raw: &RawSettings, min: i64, max: i64) -> Result<i64, ConfigError> {
    let v = setting.value(raw).unwrap_or_default();
    let n: i64 = v.trim().parse().map_err(|_| {
        bad(
            setting.env,
            format!("{v:?} is not a whole number of seconds"),
        )
    })?;
    if n < min || n > max {
        return Err(bad(
            setting.env,
            format!("{n} is outside {min}..={max} seconds"),
        ));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw() -> RawSettings {
        RawSettings {
            public_url: Some("http://127.0.0.1:8080/".into()),
            ..Default::default()
        }
    }

    #[test]
    fn defaults_are_the_contract() {
        let s = Settings::from_raw(&raw()).unwrap();
        assert_eq!(s.realm, "scanid");
        assert_eq!(s.issuer(), "http://127.0.0.1:8080/realms/scanid");
        assert_eq!(s.directory_url, "http://127.0.0.1:8080");
        assert_eq!(s.signing, SigningMode::Local);
        assert_eq!(s.signing_alg, Alg::RS256);
        assert_eq!(s.lifetimes, Lifetimes::default());
        assert!(matches!(s.store, StoreSettings::Embedded { .. }));
        assert!(
            !s.open_client_registration,
            "registration is closed by default"
        );
        assert_eq!(s.limits.registrations_per_hour, 20);
        assert!(s.geoip_db.is_empty(), "no GeoIP database by default");
        assert_eq!(s.high_usage_logins_per_hour, 10);
    }

    #[test]
    fn geoip_files_and_the_high_usage_threshold() {
        let mut r = raw();
        r.geoip_db = Some("/srv/city.mmdb, /srv/asn.mmdb".into());
        r.high_usage_logins_per_hour = Some("20".into());
        let s = Settings::from_raw(&r).unwrap();
        assert_eq!(
            s.geoip_db,
            vec![
                PathBuf::from("/srv/city.mmdb"),
                PathBuf::from("/srv/asn.mmdb")
            ]
        );
        assert_eq!(s.high_usage_logins_per_hour, 20);
        for bad in ["0", "21", "ten"] {
            r.high_usage_logins_per_hour = Some(bad.into());
            let e = Settings::from_raw(&r).unwrap_err();
            assert_eq!(e.setting, "SCANID_HIGH_USAGE_LOGINS_PER_HOUR", "{bad}");
        }
    }

    #[test]
    fn each_bad_setting_is_named() {
        type Mutation = Box<dyn Fn(&mut RawSettings)>;
        let cases: Vec<(&str, Mutation)> = vec![
            ("SCANID_PUBLIC_URL", Box::new(|r| r.public_url = None)),
            (
                "SCANID_PUBLIC_URL",
                Box::new(|r| r.public_url = Some("ftp://x".into())),
            ),
            (
                "SCANID_PUBLIC_URL",
                Box::new(|r| r.public_url = Some("not a url".into())),
            ),
            (
                "SCANID_PUBLIC_URL",
                Box::new(|r| r.public_url = Some("https://u:p@x".into())),
            ),
            (
                "SCANID_DIRECTORY_URL",
                Box::new(|r| r.directory_url = Some("https://x/?q".into())),
            ),
            ("SCANID_REALM", Box::new(|r| r.realm = Some("a/b".into()))),
            ("SCANID_TABLE", Box::new(|r| r.table = Some("x".into()))),
            (
                "SCANID_SIGNING",
                Box::new(|r| r.signing = Some("hsm".into())),
            ),
            (
                "SCANID_KMS_KEY_ID",
                Box::new(|r| r.signing = Some("kms".into())),
            ),
            (
                "SCANID_SIGNING_ALG",
                Box::new(|r| r.signing_alg = Some("HS256".into())),
            ),
            (
                "SCANID_ACCESS_TOKEN_TTL",
                Box::new(|r| r.access_token_ttl = Some("5m".into())),
            ),
            (
                "SCANID_CODE_TTL",
                Box::new(|r| r.code_ttl = Some("600".into())),
            ),
            (
                "SCANID_RESOURCES",
                Box::new(|r| r.resources = Some("https://api.example/#f".into())),
            ),
            (
                "SCANID_RESOURCES",
                Box::new(|r| r.resources = Some("https://api.example,/relative".into())),
            ),
            (
                "SCANID_OPEN_CLIENT_REGISTRATION",
                Box::new(|r| r.open_client_registration = Some("yes".into())),
            ),
            (
                "SCANID_REGISTRATION_RATE_PER_HOUR",
                Box::new(|r| r.registration_rate_per_hour = Some("0".into())),
            ),
        ];
        for (setting, mutate) in cases {
            let mut r = raw();
            mutate(&mut r);
            let err = Settings::from_raw(&r).unwrap_err();
            assert_eq!(err.setting, setting, "{err}");
            assert!(err.to_string().contains(setting));
        }
    }

    #[test]
    fn resources_are_a_list_of_absolute_uris() {
        let mut r = raw();
        assert!(Settings::from_raw(&r).unwrap().resources.is_empty());
        r.resources =
            Some(" https://api.example/v1 , urn:example:mcp,https://api.example/v1".into());
        assert_eq!(
            Settings::from_raw(&r).unwrap().resources,
            vec!["https://api.example/v1", "urn:example:mcp"]
        );
    }

    /// The README's configuration table lists exactly the rows of [`SETTINGS`], in order,
    /// with their flag, variable and default (the `serve` flags, the AWS environment and the
    /// other rows below are not settings of the core).
    #[test]
    fn the_readme_configuration_table_is_the_settings_table() {
        const NOT_SETTINGS: &[&str] = &["SCANID_LOG_FORMAT"];
        let readme = include_str!("../../../README.md");
        let section = readme
            .split("### Configuration")
            .nth(1)
            .and_then(|s| s.split("\n## ").next())
            .expect("README has a configuration section");
        let rows: Vec<Vec<&str>> = section
            .lines()
            .filter(|l| l.starts_with("| "))
            .map(|l| l.trim_matches('|').split(" | ").map(str::trim).collect())
            .filter(|cells: &Vec<&str>| {
                cells[1].starts_with("`SCANID_")
                    && !cells[0].starts_with("`serve ")
                    && !NOT_SETTINGS.iter().any(|n| cells[1] == format!("`{n}`"))
            })
            .collect();
        let documented: Vec<(String, String)> = rows
            .iter()
            .map(|c| (c[0].to_owned(), c[1].to_owned()))
            .collect();
        let declared: Vec<(String, String)> = SETTINGS
            .iter()
            .map(|s| {
                let (flag_note, env_note) = match s.repeatable {
                    true => (" (repeatable)", " (comma-separated)"),
                    false => ("", ""),
                };
                let flag = s
                    .flag
                    .map_or(String::new(), |f| format!("`--{f}`{flag_note}"));
                (flag, format!("`{}`{env_note}", s.env))
            })
            .collect();
        assert_eq!(documented, declared);
        for (s, cells) in SETTINGS.iter().zip(&rows) {
            if let Some(default) = s.default {
                assert_eq!(cells[2], format!("`{default}`"), "{}'s default", s.env);
            }
        }
    }

    /// The template sets only variables something reads: settings, or the few the Lambda
    /// runtime reads itself (telemetry, the back-channel queue).
    #[test]
    fn the_template_sets_only_declared_variables() {
        const LAMBDA_ONLY: &[&str] = &[
            "SCANID_BACKCHANNEL_QUEUE_URL",
            "SCANID_METRICS_NAMESPACE",
            "SCANID_LOG_FORMAT",
        ];
        let template = include_str!("../../../template.yaml");
        let mut names: Vec<&str> = template
            .match_indices("SCANID_")
            .map(|(i, _)| {
                let rest = &template[i..];
                let end = rest
                    .find(|c: char| !(c.is_ascii_uppercase() || c == '_'))
                    .unwrap_or(rest.len());
                &rest[..end]
            })
            .collect();
        names.dedup();
        assert!(names.contains(&"SCANID_PUBLIC_URL"), "{names:?}");
        for name in names {
            assert!(
                VARIABLES.contains(&name) || LAMBDA_ONLY.contains(&name),
                "template.yaml sets {name}, which nothing reads"
            );
        }
    }

    #[test]
    fn each_setting_is_declared_once() {
        for (i, s) in SETTINGS.iter().enumerate() {
            assert_eq!(s.env, format!("SCANID_{}", s.field.to_ascii_uppercase()));
            assert!(!s.help.ends_with('.'), "{}: --help adds the default", s.env);
            for t in &SETTINGS[i + 1..] {
                assert_ne!(s.env, t.env);
                assert!(s.flag.is_none() || s.flag != t.flag, "{}", s.env);
            }
            // Each row reads and writes its own field.
            let mut raw = RawSettings::default();
            s.set(&mut raw, Some(s.env.into()));
            for t in SETTINGS {
                let expected = (t.env == s.env).then_some(s.env);
                assert_eq!(t.raw(&raw), expected, "{} vs {}", s.env, t.env);
            }
        }
    }

    #[test]
    fn env_lookup_uses_the_documented_names() {
        let r = RawSettings::from_lookup(|n| match n {
            "SCANID_PUBLIC_URL" => Some("https://id.example.com".into()),
            "SCANID_TABLE" => Some("scanid-prod".into()),
            "SCANID_SIGNING" => Some("kms-envelope".into()),
            "SCANID_KMS_KEY_ID" => Some("alias/scanid".into()),
            "SCANID_REALM" => Some(String::new()),
            _ => None,
        });
        let s = Settings::from_raw(&r).unwrap();
        assert_eq!(s.realm, "scanid");
        assert_eq!(
            s.store,
            StoreSettings::DynamoDb {
                table: "scanid-prod".into()
            }
        );
        assert_eq!(
            s.signing,
            SigningMode::KmsEnvelope {
                key_id: "alias/scanid".into()
            }
        );
    }
}
