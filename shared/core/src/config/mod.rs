//! Typed configuration, loaded once and validated at start (STYLE.md practice 9).
//!
//! The same names mean the same thing everywhere: the CLI flag `--public-url` and the Lambda
//! environment variable `SCANID_PUBLIC_URL` both fill [`RawSettings::public_url`]. A missing or
//! malformed setting fails with a [`ConfigError`] that names it.

use std::path::PathBuf;

use crate::keys::Alg;

mod table;
mod validate;

pub use table::{setting, RawSettings, Setting, SETTINGS, VARIABLES};
pub use validate::PushSettings;
use validate::*;

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
    /// The DynamoDB table of audit events (`SCANID_EVENTS_TABLE`), with `--table`.
    pub events_table: Option<String>,
    /// Reverse proxies whose `X-Forwarded-For` is believed.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Where the QR page polls its status from when not the public URL
    /// (`SCANID_LOGIN_STATUS_URL`, no trailing `/`): the login-status function's URL.
    pub login_status_url: Option<String>,
    /// Behind the CloudFront edge: the secret its requests carry (`SCANID_EDGE_SECRET`).
    pub edge_secret: Option<crate::protocol::Secret>,
    /// `nonce` and `state` required on every authorization request (else: `nonce` optional,
    /// `state` optional with PKCE).
    pub require_nonce: bool,
    /// Every client must use pushed authorization requests (RFC 9126).
    pub require_par: bool,
    /// The secret of DPoP server nonces (`SCANID_DPOP_NONCE_SECRET`): set, every proof at the
    /// token and PAR endpoints carries a nonce (RFC 9449 §8).
    pub dpop_nonce_secret: Option<crate::protocol::Secret>,
    /// Web Push to the app (`SCANID_VAPID_PRIVATE_KEY`, `SCANID_VAPID_SUBJECT`): the VAPID
    /// key (checked at start) and the contact; `None`: no push.
    pub push: Option<PushSettings>,
    /// The resource servers access tokens may be issued for (RFC 8707), as registered.
    pub resources: Vec<String>,
    /// Anyone may register a client (RFC 7591) without an initial access token.
    pub open_client_registration: bool,
    /// Browser origins that may call the client registration endpoint (CORS).
    pub registration_cors_origins: Vec<String>,
    /// Client ID Metadata Documents: on or off, and the hosts trusted or refused.
    pub client_documents: crate::domain::client_document::Policy,
    /// The GeoIP databases (MaxMind DB files) read at start ([`crate::geoip`]); empty: none.
    pub geoip_db: Vec<PathBuf>,
    /// More login attempts than this for one identity within an hour raise `high_usage`.
    pub high_usage_logins_per_hour: u64,
    /// The pages' language when nothing in a request names one scanid speaks.
    pub default_locale: crate::domain::locale::Locale,
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
        let push = push(raw, &public_url)?;
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
            events_table: setting::EVENTS_TABLE
                .raw(raw)
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_owned),
            trusted_proxies,
            login_status_url: login_status_url(raw)?,
            edge_secret: edge_secret(raw)?,
            require_nonce: flag(&setting::REQUIRE_NONCE, raw)?,
            require_par: flag(&setting::REQUIRE_PUSHED_AUTHORIZATION_REQUESTS, raw)?,
            dpop_nonce_secret: dpop_nonce_secret(raw)?,
            push,
            resources: crate::domain::resource_indicator::registry(list(
                setting::RESOURCES.raw(raw),
            ))
            .map_err(|(r, why)| bad("SCANID_RESOURCES", format!("{r:?}: {why}")))?,
            open_client_registration: flag(&setting::OPEN_CLIENT_REGISTRATION, raw)?,
            registration_cors_origins: cors_origins(raw)?,
            client_documents: client_documents(raw)?,
            geoip_db: list(setting::GEOIP_DB.raw(raw))
                .map(PathBuf::from)
                .collect(),
            high_usage_logins_per_hour: high_usage(raw)?,
            default_locale: default_locale(raw)?,
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

    fn require_pushed_requests(&self) -> bool {
        self.require_par
    }

    fn client_id_metadata_documents(&self) -> bool {
        self.client_documents.enabled
    }

    fn client_secret_jwt(&self) -> bool {
        self.sealing_offered()
    }
}

impl Settings {
    /// Whether a sealing key for `client_secret_jwt` clients' secrets is held (`keys::seal`):
    /// beside local signing keys (a file of the data dir) and with `kms-envelope` (a key
    /// wrapped by the KMS key, in the table). Not with `kms` (asymmetric KMS keys wrap nothing).
    pub fn sealing_offered(&self) -> bool {
        matches!(
            self.signing,
            SigningMode::Local | SigningMode::KmsEnvelope { .. }
        )
    }
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
        assert_eq!(s.default_locale, crate::domain::locale::Locale::En);
        r.default_locale = Some("pt-BR".into());
        assert_eq!(
            Settings::from_raw(&r).unwrap().default_locale,
            crate::domain::locale::Locale::PtBr
        );
        for bad in ["pt", "tlh", ""] {
            r.default_locale = Some(bad.into());
            let e = Settings::from_raw(&r).unwrap_err();
            assert_eq!(e.setting, "SCANID_DEFAULT_LOCALE", "{bad}");
        }
        r.default_locale = None;
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
            (
                "SCANID_LOGIN_STATUS_URL",
                Box::new(|r| r.login_status_url = Some("https://x.lambda-url.example/#f".into())),
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
    fn the_login_status_url_is_a_base_url_never_behind_the_edge() {
        let mut r = raw();
        assert_eq!(Settings::from_raw(&r).unwrap().login_status_url, None);
        r.login_status_url = Some(" ".into());
        assert_eq!(Settings::from_raw(&r).unwrap().login_status_url, None);
        // What CloudFormation's `FunctionUrl` attribute gives: the trailing slash goes.
        r.login_status_url = Some("https://abc.lambda-url.eu-west-1.on.aws/".into());
        assert_eq!(
            Settings::from_raw(&r).unwrap().login_status_url.as_deref(),
            Some("https://abc.lambda-url.eu-west-1.on.aws")
        );
        for bad in [
            "abc.lambda-url.eu-west-1.on.aws",
            "ftp://x",
            "https://u:p@x",
        ] {
            r.login_status_url = Some(bad.into());
            let e = Settings::from_raw(&r).unwrap_err();
            assert_eq!(e.setting, "SCANID_LOGIN_STATUS_URL", "{bad}");
        }
        // Over https where the public URL is: the token must not go in clear.
        let public = r.public_url.clone();
        r.public_url = Some("https://id.example.com".into());
        r.login_status_url = Some("http://abc.lambda-url.eu-west-1.on.aws/".into());
        let e = Settings::from_raw(&r).unwrap_err();
        assert_eq!(e.setting, "SCANID_LOGIN_STATUS_URL");
        r.login_status_url = Some("https://abc.lambda-url.eu-west-1.on.aws/".into());
        assert!(Settings::from_raw(&r).is_ok());
        r.public_url = public;
        // Behind the edge every request must carry its secret: the polls would not.
        r.login_status_url = Some("https://abc.lambda-url.eu-west-1.on.aws/".into());
        r.edge_secret = Some("e".repeat(32));
        let e = Settings::from_raw(&r).unwrap_err();
        assert_eq!(e.setting, "SCANID_LOGIN_STATUS_URL");
        assert!(e.to_string().contains("SCANID_EDGE_SECRET"), "{e}");
    }
}
