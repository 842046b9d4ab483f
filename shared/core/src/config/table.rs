//! The settings table: each setting declared once (its variable, flag, default and help),
//! the raw settings it fills, and reading them from the environment.

/// One setting: its environment variable, its `scanid` flag, its default and its help text,
/// declared once in [`SETTINGS`]. The CLI builds its flags from these rows, the Lambda
/// functions read the variables through them, and a test holds the book's configuration
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

        /// Every setting, in the order of `--help` and the book's configuration table.
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
    LOGIN_STATUS_URL login_status_url = "SCANID_LOGIN_STATUS_URL" {
        flag: Some("login-status-url"), default: None, repeatable: false,
        help: "Base URL the QR page polls its status from, with a read-only token in place of the cookie (the template's Lambda function URL: no API Gateway charge per poll); default the public URL, with the cookie",
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
        help: "Default token signing algorithm: RS256, ES256, PS256 or EdDSA",
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
    PASSKEY_CHALLENGE_RATE_PER_MINUTE passkey_challenge_rate_per_minute = "SCANID_PASSKEY_CHALLENGE_RATE_PER_MINUTE" {
        flag: Some("passkey-challenge-rate-per-minute"), default: Some("30"), repeatable: false,
        help: "The login page's passkey challenges per source address and minute",
    }
    PASSKEY_CHALLENGES_PER_LOGIN passkey_challenges_per_login = "SCANID_PASSKEY_CHALLENGES_PER_LOGIN" {
        flag: Some("passkey-challenges-per-login"), default: Some("10"), repeatable: false,
        help: "Passkey challenges one QR login may be issued per 5-minute window (a challenge's life)",
    }
    DEVICE_AUTHORIZATION_RATE_PER_MINUTE device_authorization_rate_per_minute = "SCANID_DEVICE_AUTHORIZATION_RATE_PER_MINUTE" {
        flag: Some("device-authorization-rate-per-minute"), default: Some("30"), repeatable: false,
        help: "Device authorizations (RFC 8628) per source address and minute",
    }
    DEVICE_CODES_PER_CLIENT_PER_HOUR device_codes_per_client_per_hour = "SCANID_DEVICE_CODES_PER_CLIENT_PER_HOUR" {
        flag: Some("device-codes-per-client-per-hour"), default: Some("1000"), repeatable: false,
        help: "Device codes (RFC 8628) one client may start per hour (bounds what it holds pending)",
    }
    CIBA_REQUESTS_PER_CLIENT_PER_HOUR ciba_requests_per_client_per_hour = "SCANID_CIBA_REQUESTS_PER_CLIENT_PER_HOUR" {
        flag: Some("ciba-requests-per-client-per-hour"), default: Some("1000"), repeatable: false,
        help: "Backchannel authentication requests (OpenID CIBA) one client may start per hour",
    }
    CIBA_REQUESTS_PER_PERSON_PER_HOUR ciba_requests_per_person_per_hour = "SCANID_CIBA_REQUESTS_PER_PERSON_PER_HOUR" {
        flag: Some("ciba-requests-per-person-per-hour"), default: Some("10"), repeatable: false,
        help: "Backchannel authentication requests (OpenID CIBA) for one person (one hint), from all clients, per hour",
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
    EVENT_RETENTION_DAYS event_retention_days = "SCANID_EVENT_RETENTION_DAYS" {
        flag: Some("event-retention-days"), default: Some("30"), repeatable: false,
        help: "Days a stored audit event (the admin API's events) is kept before it is deleted",
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
    EVENTS_TABLE events_table = "SCANID_EVENTS_TABLE" {
        flag: Some("events-table"), default: None, repeatable: false,
        help: "The DynamoDB table of stored audit events (with --table; the embedded store keeps them in its file)",
    }
    REQUIRE_NONCE require_nonce = "SCANID_REQUIRE_NONCE" {
        flag: Some("require-nonce"), default: Some("false"), repeatable: false,
        help: "`true`: nonce and state required on every authorization request (default: nonce optional, state optional with PKCE S256)",
    }
    REQUIRE_PUSHED_AUTHORIZATION_REQUESTS require_pushed_authorization_requests = "SCANID_REQUIRE_PUSHED_AUTHORIZATION_REQUESTS" {
        flag: Some("require-pushed-authorization-requests"), default: Some("false"), repeatable: false,
        help: "`true`: every client must push its authorization requests (RFC 9126) first; a request to the authorization endpoint without a request_uri is refused",
    }
    DPOP_NONCE_SECRET dpop_nonce_secret = "SCANID_DPOP_NONCE_SECRET" {
        flag: Some("dpop-nonce-secret"), default: None, repeatable: false,
        help: "A random value of at least 32 characters: every DPoP proof at the token and PAR endpoints must then carry a server nonce (RFC 9449 §8; `use_dpop_nonce`), made and checked with this secret without server state (default unset: no nonces)",
    }
    VAPID_PRIVATE_KEY vapid_private_key = "SCANID_VAPID_PRIVATE_KEY" {
        flag: Some("vapid-private-key"), default: None, repeatable: false,
        help: "The VAPID key (RFC 8292) of Web Push to the scanid app: a P-256 private key, its 32-octet scalar in base64url; default unset: no push, the app lists waiting requests when it opens",
    }
    VAPID_SUBJECT vapid_subject = "SCANID_VAPID_SUBJECT" {
        flag: Some("vapid-subject"), default: None, repeatable: false,
        help: "The contact push services see in the VAPID token's `sub`: a mailto: or https: URI (default: the public URL when it is https, else mailto:push@localhost)",
    }
    RESOURCES resources = "SCANID_RESOURCES" {
        flag: Some("resource"), default: None, repeatable: true,
        help: "A resource server access tokens may be issued for (RFC 8707; repeatable absolute URI without fragment; default none)",
    }
    OPEN_CLIENT_REGISTRATION open_client_registration = "SCANID_OPEN_CLIENT_REGISTRATION" {
        flag: Some("open-client-registration"), default: Some("false"), repeatable: false,
        help: "`true`: anyone may register a client (RFC 7591) without an initial access token (default: closed; tokens from `scanid client registration-token create`)",
    }
    REGISTRATION_CORS_ORIGINS registration_cors_origins = "SCANID_REGISTRATION_CORS_ORIGINS" {
        flag: Some("registration-cors-origin"), default: None, repeatable: true,
        help: "A browser origin (scheme://host or scheme://host:port) that may call the client registration endpoint (CORS; repeatable; default none)",
    }
    CLIENT_ID_METADATA_DOCUMENTS client_id_metadata_documents = "SCANID_CLIENT_ID_METADATA_DOCUMENTS" {
        flag: Some("client-id-metadata-documents"), default: Some("true"), repeatable: false,
        help: "`true`: an https client_id is a Client ID Metadata Document, fetched and used as the client without registration; `false`: only registered clients",
    }
    CLIENT_DOCUMENT_TRUSTED_HOSTS client_document_trusted_hosts = "SCANID_CLIENT_DOCUMENT_TRUSTED_HOSTS" {
        flag: Some("client-document-trusted-host"), default: None, repeatable: true,
        help: "A host (with its subdomains) that may serve client metadata documents; when any is given, only these (repeatable; default any host)",
    }
    CLIENT_DOCUMENT_REFUSED_HOSTS client_document_refused_hosts = "SCANID_CLIENT_DOCUMENT_REFUSED_HOSTS" {
        flag: Some("client-document-refused-host"), default: None, repeatable: true,
        help: "A host (with its subdomains) whose client metadata documents are refused (repeatable; default none)",
    }
    CLIENT_DOCUMENT_MIN_CACHE_SECS client_document_min_cache_secs = "SCANID_CLIENT_DOCUMENT_MIN_CACHE_SECS" {
        flag: Some("client-document-min-cache-secs"), default: Some("0"), repeatable: false,
        help: "The least time, in seconds, a fetched client metadata document is used before it is fetched again, whatever its caching headers say (0 to 3600; default 0: no-store and no-cache are honoured)",
    }
    CLIENT_DOCUMENT_MAX_CACHE_SECS client_document_max_cache_secs = "SCANID_CLIENT_DOCUMENT_MAX_CACHE_SECS" {
        flag: Some("client-document-max-cache-secs"), default: Some("86400"), repeatable: false,
        help: "The longest time, in seconds, a fetched client metadata document is used before it is fetched (or revalidated) again, whatever its max-age or Expires (60 to 604800; default a day)",
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
    DEFAULT_LOCALE default_locale = "SCANID_DEFAULT_LOCALE" {
        flag: Some("default-locale"), default: Some("en"), repeatable: false,
        help: "The language of the pages when neither the person, the application nor the browser names one scanid speaks (en, sv, de, fr, es, pt-BR, it, nl, pl, ja, zh-Hans, ko, ar, hi or uk)",
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Settings, SigningMode, StoreSettings};

    /// The book's configuration table (docs/book/src/configuration.md) lists exactly the rows of
    /// [`SETTINGS`], in order,
    /// with their flag, variable and default (the `serve` flags, the AWS environment and the
    /// other rows below are not settings of the core).
    #[test]
    fn the_readme_configuration_table_is_the_settings_table() {
        const NOT_SETTINGS: &[&str] = &["SCANID_LOG_FORMAT"];
        let readme = include_str!("../../../../docs/book/src/configuration.md");
        let section = readme
            .split("# Configuration")
            .nth(1)
            .and_then(|s| s.split("\n## ").next())
            .expect("the book has a configuration chapter");
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
        let template = include_str!("../../../../template.yaml");
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
