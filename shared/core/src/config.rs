//! Typed configuration, loaded once and validated at start (STYLE.md practice 9).
//!
//! The same names mean the same thing everywhere: the CLI flag `--public-url` and the Lambda
//! environment variable `SCANID_PUBLIC_URL` both fill [`RawSettings::public_url`]. A missing or
//! malformed setting fails with a [`ConfigError`] that names it.

use std::path::PathBuf;

use crate::keys::Alg;

/// A setting that is missing or malformed.
#[derive(Debug, thiserror::Error)]
#[error("configuration: {setting}: {reason}")]
pub struct ConfigError {
    /// The setting's environment variable name, e.g. `SCANID_PUBLIC_URL`.
    pub setting: &'static str,
    pub reason: String,
}

fn bad(setting: &'static str, reason: impl Into<String>) -> ConfigError {
    ConfigError {
        setting,
        reason: reason.into(),
    }
}

/// Every setting, as text, before validation. Each field's doc names its variable.
#[derive(Debug, Clone, Default)]
pub struct RawSettings {
    /// `SCANID_REALM`, default `scanid`.
    pub realm: Option<String>,
    /// `SCANID_PUBLIC_URL`: `{auth_url}`, e.g. `https://id.example.com`. Required in Lambda;
    /// `scanid serve` defaults to `http://{addr}`.
    pub public_url: Option<String>,
    /// `SCANID_DIRECTORY_URL`: `{base_url}`, default the public URL.
    pub directory_url: Option<String>,
    /// `SCANID_DATA_DIR`: the embedded store and local keys, default `./.scanid`.
    pub data_dir: Option<String>,
    /// `SCANID_TABLE`: a DynamoDB table name; selects the DynamoDB store.
    pub table: Option<String>,
    /// `SCANID_SIGNING`: `local` (default), `kms` or `kms-envelope`.
    pub signing: Option<String>,
    /// `SCANID_KMS_KEY_ID`: the KMS key for `kms` and `kms-envelope`.
    pub kms_key_id: Option<String>,
    /// `SCANID_SIGNING_ALG`: the default token signing algorithm, `RS256` (default) or `ES256`.
    pub signing_alg: Option<String>,
    /// `SCANID_ACCESS_TOKEN_TTL`: seconds, default 300.
    pub access_token_ttl: Option<String>,
    /// `SCANID_REFRESH_TOKEN_TTL`: seconds, default 1800.
    pub refresh_token_ttl: Option<String>,
    /// `SCANID_OFFLINE_TOKEN_TTL`: seconds, default 2592000 (30 days).
    pub offline_token_ttl: Option<String>,
    /// `SCANID_CODE_TTL`: seconds, default 60 (docs/requirements.md T3: at most 60).
    pub code_ttl: Option<String>,
    /// `SCANID_SSO_IDLE_TTL`: seconds, default 1800.
    pub sso_idle_ttl: Option<String>,
    /// `SCANID_SSO_MAX_TTL`: seconds, default 36000.
    pub sso_max_ttl: Option<String>,
    /// `SCANID_LOGIN_TTL`: how long a QR login session lives, seconds, default 300.
    pub login_ttl: Option<String>,
    /// `SCANID_LOGIN_RATE_PER_MINUTE`: login requests per client IP and minute, default 30.
    pub login_rate_per_minute: Option<String>,
    /// `SCANID_DEVICE_CODE_TTL`: how long a device code (RFC 8628) lives, seconds, default 600.
    pub device_code_ttl: Option<String>,
    /// `SCANID_USER_CODE_RATE_PER_MINUTE`: user codes (RFC 8628) looked up per source address
    /// and minute (typed in a browser or scanned by the app), default 10.
    pub user_code_rate_per_minute: Option<String>,
    /// `SCANID_DECISION_RATE_PER_MINUTE`: app approvals/denials per identity and minute,
    /// default 10.
    pub decision_rate_per_minute: Option<String>,
    /// `SCANID_AUTH_FAILURE_RATE_PER_MINUTE`: failed client authentications per source
    /// address and minute before that source gets 429, default 10. A correct secret is always
    /// accepted: failures never lock a client out.
    pub auth_failure_rate_per_minute: Option<String>,
    /// `SCANID_SIGNUP_RATE_PER_HOUR`: app sign-ups per source address and hour, default 10.
    pub signup_rate_per_hour: Option<String>,
    /// `SCANID_NAME_LOOKUP_RATE_PER_MINUTE`: name availability lookups per source address and
    /// minute, default 60.
    pub name_lookup_rate_per_minute: Option<String>,
    /// `SCANID_NAME_QUARANTINE`: seconds a deleted identity's name stays held before anyone
    /// may take it, default 2592000 (30 days); 0 frees it at once.
    pub name_quarantine: Option<String>,
    /// `SCANID_PHOTO_UPLOAD_RATE_PER_HOUR`: photo uploads per identity and hour, default 10.
    pub photo_upload_rate_per_hour: Option<String>,
    /// `SCANID_PHOTO_HOSTS`: comma-separated hosts an identity's external `profile_photo` URL
    /// may point at; default none (the avatar endpoint never redirects elsewhere).
    pub photo_hosts: Option<String>,
    /// `SCANID_PHOTO_BUCKET`: the S3 bucket of hosted profile photos (with `SCANID_TABLE`;
    /// the embedded store keeps them in the data dir).
    pub photo_bucket: Option<String>,
    /// `SCANID_TRUSTED_PROXIES`: comma-separated IP addresses of reverse proxies in front of
    /// `scanid serve`; from those, the client address is taken from `X-Forwarded-For`.
    pub trusted_proxies: Option<String>,
    /// `SCANID_REQUIRE_NONCE`: `true` requires `nonce` and `state` on every authorization
    /// request; default `false`: `nonce` optional, `state` optional with PKCE S256 only.
    pub require_nonce: Option<String>,
    /// `SCANID_RESOURCES`: comma-separated resource servers (RFC 8707 resource indicators,
    /// absolute URIs without fragment) a client may ask access tokens for; default none.
    pub resources: Option<String>,
    /// `SCANID_EDGE_SECRET`: set when the functions sit behind the template's CloudFront edge
    /// (WAF rate rules per address): only requests carrying it (the edge's `X-Scanid-Edge`
    /// header) are served, and their client address is CloudFront's `CloudFront-Viewer-Address`.
    pub edge_secret: Option<String>,
    /// `SCANID_OPEN_CLIENT_REGISTRATION`: `true` lets anyone register a client (RFC 7591)
    /// without an initial access token; default `false`: registration needs a token from
    /// `scanid client registration-token create`.
    pub open_client_registration: Option<String>,
    /// `SCANID_REGISTRATION_RATE_PER_HOUR`: dynamic client registration requests per source
    /// address and hour, default 20.
    pub registration_rate_per_hour: Option<String>,
    /// `SCANID_APP_STORE_URL_IOS`: where people without the app get it (iOS).
    pub app_store_url_ios: Option<String>,
    /// `SCANID_APP_STORE_URL_ANDROID`: where people without the app get it (Android).
    pub app_store_url_android: Option<String>,
}

/// Every variable name, for `--help` texts, docs and the template test.
pub const VARIABLES: &[&str] = &[
    "SCANID_REALM",
    "SCANID_PUBLIC_URL",
    "SCANID_DIRECTORY_URL",
    "SCANID_DATA_DIR",
    "SCANID_TABLE",
    "SCANID_SIGNING",
    "SCANID_KMS_KEY_ID",
    "SCANID_SIGNING_ALG",
    "SCANID_ACCESS_TOKEN_TTL",
    "SCANID_REFRESH_TOKEN_TTL",
    "SCANID_OFFLINE_TOKEN_TTL",
    "SCANID_CODE_TTL",
    "SCANID_SSO_IDLE_TTL",
    "SCANID_SSO_MAX_TTL",
    "SCANID_LOGIN_TTL",
    "SCANID_LOGIN_RATE_PER_MINUTE",
    "SCANID_DEVICE_CODE_TTL",
    "SCANID_USER_CODE_RATE_PER_MINUTE",
    "SCANID_DECISION_RATE_PER_MINUTE",
    "SCANID_AUTH_FAILURE_RATE_PER_MINUTE",
    "SCANID_SIGNUP_RATE_PER_HOUR",
    "SCANID_NAME_LOOKUP_RATE_PER_MINUTE",
    "SCANID_NAME_QUARANTINE",
    "SCANID_PHOTO_UPLOAD_RATE_PER_HOUR",
    "SCANID_PHOTO_HOSTS",
    "SCANID_PHOTO_BUCKET",
    "SCANID_TRUSTED_PROXIES",
    "SCANID_REQUIRE_NONCE",
    "SCANID_RESOURCES",
    "SCANID_EDGE_SECRET",
    "SCANID_OPEN_CLIENT_REGISTRATION",
    "SCANID_REGISTRATION_RATE_PER_HOUR",
    "SCANID_APP_STORE_URL_IOS",
    "SCANID_APP_STORE_URL_ANDROID",
];

impl RawSettings {
    /// Reads the `SCANID_*` variables through `lookup` (`std::env::var` in Lambda).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let get = |name: &str| lookup(name).filter(|v| !v.is_empty());
        Self {
            realm: get("SCANID_REALM"),
            public_url: get("SCANID_PUBLIC_URL"),
            directory_url: get("SCANID_DIRECTORY_URL"),
            data_dir: get("SCANID_DATA_DIR"),
            table: get("SCANID_TABLE"),
            signing: get("SCANID_SIGNING"),
            kms_key_id: get("SCANID_KMS_KEY_ID"),
            signing_alg: get("SCANID_SIGNING_ALG"),
            access_token_ttl: get("SCANID_ACCESS_TOKEN_TTL"),
            refresh_token_ttl: get("SCANID_REFRESH_TOKEN_TTL"),
            offline_token_ttl: get("SCANID_OFFLINE_TOKEN_TTL"),
            code_ttl: get("SCANID_CODE_TTL"),
            sso_idle_ttl: get("SCANID_SSO_IDLE_TTL"),
            sso_max_ttl: get("SCANID_SSO_MAX_TTL"),
            login_ttl: get("SCANID_LOGIN_TTL"),
            login_rate_per_minute: get("SCANID_LOGIN_RATE_PER_MINUTE"),
            device_code_ttl: get("SCANID_DEVICE_CODE_TTL"),
            user_code_rate_per_minute: get("SCANID_USER_CODE_RATE_PER_MINUTE"),
            decision_rate_per_minute: get("SCANID_DECISION_RATE_PER_MINUTE"),
            auth_failure_rate_per_minute: get("SCANID_AUTH_FAILURE_RATE_PER_MINUTE"),
            signup_rate_per_hour: get("SCANID_SIGNUP_RATE_PER_HOUR"),
            name_lookup_rate_per_minute: get("SCANID_NAME_LOOKUP_RATE_PER_MINUTE"),
            name_quarantine: get("SCANID_NAME_QUARANTINE"),
            photo_upload_rate_per_hour: get("SCANID_PHOTO_UPLOAD_RATE_PER_HOUR"),
            photo_hosts: get("SCANID_PHOTO_HOSTS"),
            photo_bucket: get("SCANID_PHOTO_BUCKET"),
            trusted_proxies: get("SCANID_TRUSTED_PROXIES"),
            require_nonce: get("SCANID_REQUIRE_NONCE"),
            resources: get("SCANID_RESOURCES"),
            edge_secret: get("SCANID_EDGE_SECRET"),
            open_client_registration: get("SCANID_OPEN_CLIENT_REGISTRATION"),
            registration_rate_per_hour: get("SCANID_REGISTRATION_RATE_PER_HOUR"),
            app_store_url_ios: get("SCANID_APP_STORE_URL_IOS"),
            app_store_url_android: get("SCANID_APP_STORE_URL_ANDROID"),
        }
    }

    pub fn from_env() -> Self {
        Self::from_lookup(|n| std::env::var(n).ok())
    }
}

/// Where state lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreSettings {
    /// SQLite in the data dir.
    Embedded { data_dir: PathBuf },
    /// One DynamoDB table.
    DynamoDb { table: String },
}

/// How tokens are signed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SigningMode {
    /// Key files in the data dir.
    Local,
    /// Every signature by KMS `Sign`; the key never leaves KMS. One KMS key per algorithm
    /// (`SCANID_KMS_KEY_ID` is comma-separated); they make the key set on first start.
    Kms { key_ids: Vec<String> },
    /// A private key decrypted with KMS once per cold start, then signing locally;
    /// `key_id` is the (symmetric) KMS key that wraps the private keys.
    KmsEnvelope { key_id: String },
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

/// Token and session lifetimes, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifetimes {
    pub access_token: i64,
    pub refresh_token: i64,
    pub offline_token: i64,
    pub code: i64,
    pub sso_idle: i64,
    pub sso_max: i64,
    pub login: i64,
    /// How long a device code (RFC 8628) lives.
    pub device_code: i64,
    /// How long a deleted identity's name stays held (0: free at once).
    pub name_quarantine: i64,
}

impl Default for Lifetimes {
    fn default() -> Self {
        Self {
            access_token: 300,
            refresh_token: 1800,
            offline_token: 30 * 24 * 3600,
            code: 60,
            sso_idle: 1800,
            sso_max: 36000,
            login: 300,
            device_code: crate::domain::device_grant::DEVICE_CODE_TTL_SECS,
            name_quarantine: 30 * 24 * 3600,
        }
    }
}

/// Rate limits (docs/requirements.md Q4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Login requests per source and minute.
    pub logins_per_minute: u64,
    /// Verified app decisions per identity and minute; unverified ones per source and minute.
    pub decisions_per_minute: u64,
    /// Failed client authentications per source and minute (docs/requirements.md T2).
    pub auth_failures_per_minute: u64,
    /// App sign-ups per source and hour.
    pub signups_per_hour: u64,
    /// Name availability lookups per source and minute.
    pub name_lookups_per_minute: u64,
    /// Photo uploads per identity and hour.
    pub photo_uploads_per_hour: u64,
    /// Dynamic client registration requests per source and hour.
    pub registrations_per_hour: u64,
    /// User code look-ups (RFC 8628 §5.1: brute force) per source and minute.
    pub user_codes_per_minute: u64,
}

/// Validated settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub realm: String,
    /// `{auth_url}`, no trailing slash.
    pub public_url: String,
    /// `{base_url}`, no trailing slash.
    pub directory_url: String,
    /// The data dir: the embedded store (when selected) and local key files.
    pub data_dir: PathBuf,
    pub store: StoreSettings,
    pub signing: SigningMode,
    pub signing_alg: Alg,
    pub lifetimes: Lifetimes,
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

    /// Validates every setting; the first bad one is named in the error.
    pub fn from_raw(raw: &RawSettings) -> Result<Self, ConfigError> {
        let realm = raw.realm.clone().unwrap_or_else(|| "scanid".to_owned());
        if realm.is_empty()
            || realm.len() > 64
            || !realm
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(bad("SCANID_REALM", "1 to 64 of A-Z a-z 0-9 - _"));
        }
        let public_url = match &raw.public_url {
            Some(u) => base_url("SCANID_PUBLIC_URL", u)?,
            None => return Err(bad("SCANID_PUBLIC_URL", "missing")),
        };
        let directory_url = match &raw.directory_url {
            Some(u) => base_url("SCANID_DIRECTORY_URL", u)?,
            None => public_url.clone(),
        };
        let data_dir = PathBuf::from(raw.data_dir.clone().unwrap_or_else(|| "./.scanid".into()));
        let store = match &raw.table {
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
                StoreSettings::DynamoDb { table: t.clone() }
            }
            None => StoreSettings::Embedded {
                data_dir: data_dir.clone(),
            },
        };
        let key_id = || {
            raw.kms_key_id.clone().ok_or_else(|| {
                bad(
                    "SCANID_KMS_KEY_ID",
                    "required with SCANID_SIGNING=kms or kms-envelope",
                )
            })
        };
        let signing = match raw.signing.as_deref().unwrap_or("local") {
            "local" => SigningMode::Local,
            "kms" => SigningMode::Kms {
                key_ids: key_id()?
                    .split(',')
                    .map(str::trim)
                    .filter(|k| !k.is_empty())
                    .map(str::to_owned)
                    .collect(),
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
        let signing_alg = match raw.signing_alg.as_deref().unwrap_or("RS256") {
            "RS256" => Alg::RS256,
            "ES256" => Alg::ES256,
            other => {
                return Err(bad(
                    "SCANID_SIGNING_ALG",
                    format!("{other:?}: expected RS256 or ES256"),
                ))
            }
        };
        let d = Lifetimes::default();
        let lifetimes = Lifetimes {
            access_token: seconds(
                "SCANID_ACCESS_TOKEN_TTL",
                &raw.access_token_ttl,
                d.access_token,
                30,
                86_400,
            )?,
            refresh_token: seconds(
                "SCANID_REFRESH_TOKEN_TTL",
                &raw.refresh_token_ttl,
                d.refresh_token,
                60,
                31_536_000,
            )?,
            offline_token: seconds(
                "SCANID_OFFLINE_TOKEN_TTL",
                &raw.offline_token_ttl,
                d.offline_token,
                60,
                315_360_000,
            )?,
            code: seconds("SCANID_CODE_TTL", &raw.code_ttl, d.code, 5, 60)?,
            sso_idle: seconds(
                "SCANID_SSO_IDLE_TTL",
                &raw.sso_idle_ttl,
                d.sso_idle,
                60,
                31_536_000,
            )?,
            sso_max: seconds(
                "SCANID_SSO_MAX_TTL",
                &raw.sso_max_ttl,
                d.sso_max,
                60,
                31_536_000,
            )?,
            login: seconds("SCANID_LOGIN_TTL", &raw.login_ttl, d.login, 10, 600)?,
            device_code: seconds(
                "SCANID_DEVICE_CODE_TTL",
                &raw.device_code_ttl,
                d.device_code,
                10,
                1800,
            )?,
            name_quarantine: seconds(
                "SCANID_NAME_QUARANTINE",
                &raw.name_quarantine,
                d.name_quarantine,
                0,
                10 * 31_536_000,
            )?,
        };
        let limits = Limits {
            logins_per_minute: count(
                "SCANID_LOGIN_RATE_PER_MINUTE",
                &raw.login_rate_per_minute,
                30,
            )?,
            decisions_per_minute: count(
                "SCANID_DECISION_RATE_PER_MINUTE",
                &raw.decision_rate_per_minute,
                10,
            )?,
            auth_failures_per_minute: count(
                "SCANID_AUTH_FAILURE_RATE_PER_MINUTE",
                &raw.auth_failure_rate_per_minute,
                10,
            )?,
            signups_per_hour: count("SCANID_SIGNUP_RATE_PER_HOUR", &raw.signup_rate_per_hour, 10)?,
            name_lookups_per_minute: count(
                "SCANID_NAME_LOOKUP_RATE_PER_MINUTE",
                &raw.name_lookup_rate_per_minute,
                60,
            )?,
            photo_uploads_per_hour: count(
                "SCANID_PHOTO_UPLOAD_RATE_PER_HOUR",
                &raw.photo_upload_rate_per_hour,
                10,
            )?,
            registrations_per_hour: count(
                "SCANID_REGISTRATION_RATE_PER_HOUR",
                &raw.registration_rate_per_hour,
                20,
            )?,
            user_codes_per_minute: count(
                "SCANID_USER_CODE_RATE_PER_MINUTE",
                &raw.user_code_rate_per_minute,
                10,
            )?,
        };
        let photo_hosts = list(&raw.photo_hosts)
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
        let photo_bucket = match raw.photo_bucket.as_deref().map(str::trim) {
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
        let trusted_proxies = list(&raw.trusted_proxies)
            .map(|ip| {
                ip.parse::<std::net::IpAddr>()
                    .map_err(|_| bad("SCANID_TRUSTED_PROXIES", format!("{ip:?}: an IP address")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let app_store_urls = (
            store_url(
                "SCANID_APP_STORE_URL_IOS",
                &raw.app_store_url_ios,
                "https://apps.apple.com/app/scanid",
            )?,
            store_url(
                "SCANID_APP_STORE_URL_ANDROID",
                &raw.app_store_url_android,
                "https://play.google.com/store/apps/details?id=app.scanid",
            )?,
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
            edge_secret: match raw.edge_secret.as_deref().map(str::trim) {
                None | Some("") => None,
                Some(v) if v.len() >= 32 && v.bytes().all(|b| b.is_ascii_graphic()) => {
                    Some(crate::protocol::Secret::new(v))
                }
                Some(_) => {
                    return Err(bad(
                        "SCANID_EDGE_SECRET",
                        "at least 32 printable ASCII characters (a random value)",
                    ))
                }
            },
            require_nonce: match raw.require_nonce.as_deref().map(str::trim) {
                None | Some("false") => false,
                Some("true") => true,
                Some(v) => {
                    return Err(bad("SCANID_REQUIRE_NONCE", format!("{v:?}: true or false")))
                }
            },
            resources: crate::domain::resource_indicator::registry(list(&raw.resources))
                .map_err(|(r, why)| bad("SCANID_RESOURCES", format!("{r:?}: {why}")))?,
            open_client_registration: match raw.open_client_registration.as_deref().map(str::trim) {
                None | Some("false") => false,
                Some("true") => true,
                Some(v) => {
                    return Err(bad(
                        "SCANID_OPEN_CLIENT_REGISTRATION",
                        format!("{v:?}: true or false"),
                    ))
                }
            },
        })
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

fn store_url(
    setting: &'static str,
    v: &Option<String>,
    default: &str,
) -> Result<String, ConfigError> {
    match v {
        Some(u) => {
            let parsed =
                url::Url::parse(u).map_err(|_| bad(setting, format!("{u:?} is not a URL")))?;
            if parsed.scheme() != "https" {
                return Err(bad(setting, "must be an https URL"));
            }
            Ok(u.clone())
        }
        None => Ok(default.to_owned()),
    }
}

/// The non-empty items of a comma-separated setting.
fn list(value: &Option<String>) -> impl Iterator<Item = &str> {
    value
        .as_deref()
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

fn count(setting: &'static str, value: &Option<String>, default: u64) -> Result<u64, ConfigError> {
    let Some(v) = value else { return Ok(default) };
    match v.trim().parse::<u64>() {
        Ok(n) if (1..=1_000_000).contains(&n) => Ok(n),
        _ => Err(bad(
            setting,
            format!("{v:?}: a whole number from 1 to 1000000"),
        )),
    }
}

fn seconds(
    setting: &'static str,
    value: &Option<String>,
    default: i64,
    min: i64,
    max: i64,
) -> Result<i64, ConfigError> {
    let Some(v) = value else { return Ok(default) };
    let n: i64 = v
        .trim()
        .parse()
        .map_err(|_| bad(setting, format!("{v:?} is not a whole number of seconds")))?;
    if n < min || n > max {
        return Err(bad(
            setting,
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
