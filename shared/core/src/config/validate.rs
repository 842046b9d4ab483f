//! Each concern of the settings validated on its own ([`super::Settings::from_raw`] calls
//! them in the order errors are reported in).

use super::*;

/// The realm, the public URL and the directory URL.
pub(super) fn urls(raw: &RawSettings) -> Result<(String, String, String), ConfigError> {
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
pub(super) fn storage(raw: &RawSettings) -> Result<(PathBuf, StoreSettings), ConfigError> {
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
pub(super) fn signing(raw: &RawSettings) -> Result<SigningMode, ConfigError> {
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
pub(super) fn signing_alg(raw: &RawSettings) -> Result<Alg, ConfigError> {
    let raw_alg = setting::SIGNING_ALG.value(raw).unwrap_or_default();
    Alg::parse(raw_alg).ok_or_else(|| {
        bad(
            "SCANID_SIGNING_ALG",
            format!("{raw_alg:?}: expected RS256, ES256, PS256 or EdDSA"),
        )
    })
}

/// Token and session lifetimes, each within its bounds.
pub(super) fn lifetimes(raw: &RawSettings) -> Result<Lifetimes, ConfigError> {
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
        event_retention: days(&EVENT_RETENTION_DAYS, raw)?,
    })
}

/// Rate limits, each from 1 to 1000000.
pub(super) fn limits(raw: &RawSettings) -> Result<Limits, ConfigError> {
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
        passkey_challenges_per_minute: count(&PASSKEY_CHALLENGE_RATE_PER_MINUTE, raw)?,
        passkey_challenges_per_login: count(&PASSKEY_CHALLENGES_PER_LOGIN, raw)?,
        device_authorizations_per_minute: count(&DEVICE_AUTHORIZATION_RATE_PER_MINUTE, raw)?,
        device_codes_per_client_per_hour: count(&DEVICE_CODES_PER_CLIENT_PER_HOUR, raw)?,
        ciba_requests_per_client_per_hour: count(&CIBA_REQUESTS_PER_CLIENT_PER_HOUR, raw)?,
        ciba_requests_per_person_per_hour: count(&CIBA_REQUESTS_PER_PERSON_PER_HOUR, raw)?,
    })
}

/// The `high_usage` threshold: 1 to [`crate::domain::identity::RECENT_LOGINS`] (the recent
/// logins it is counted in).
pub(super) fn high_usage(raw: &RawSettings) -> Result<u64, ConfigError> {
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

/// The pages' default language: one scanid speaks, by its exact tag.
pub(super) fn default_locale(
    raw: &RawSettings,
) -> Result<crate::domain::locale::Locale, ConfigError> {
    let v = setting::DEFAULT_LOCALE
        .value(raw)
        .unwrap_or_default()
        .trim();
    crate::domain::locale::Locale::from_tag(v).ok_or_else(|| {
        let tags: Vec<&str> = crate::domain::locale::ALL.iter().map(|l| l.tag()).collect();
        bad(
            "SCANID_DEFAULT_LOCALE",
            format!("{v:?}: one of {}", tags.join(", ")),
        )
    })
}

/// The hosts external photos may be on, and the bucket of hosted ones.
pub(super) fn photos(raw: &RawSettings) -> Result<(Vec<String>, Option<String>), ConfigError> {
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
pub(super) fn edge_secret(
    raw: &RawSettings,
) -> Result<Option<crate::protocol::Secret>, ConfigError> {
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

/// Where the QR page polls its status from: unset (or empty), the public URL; else a base URL,
/// over https where the public URL is (the page's token must not cross the network in clear,
/// and a browser would refuse the mixed content anyway), that is not behind the edge (its
/// requests would carry no edge secret, and would go around the edge's WAF).
pub(super) fn login_status_url(raw: &RawSettings) -> Result<Option<String>, ConfigError> {
    let url = match setting::LOGIN_STATUS_URL.raw(raw).map(str::trim) {
        None | Some("") => return Ok(None),
        Some(u) => base_url("SCANID_LOGIN_STATUS_URL", u)?,
    };
    let public_https = setting::PUBLIC_URL
        .raw(raw)
        .is_some_and(|u| u.trim().starts_with("https:"));
    if public_https && !url.starts_with("https:") {
        return Err(bad(
            "SCANID_LOGIN_STATUS_URL",
            "https, as SCANID_PUBLIC_URL is (the page's poll token goes there)",
        ));
    }
    if edge_secret(raw)?.is_some() {
        return Err(bad(
            "SCANID_LOGIN_STATUS_URL",
            "not with SCANID_EDGE_SECRET: the page's polls would go around the edge",
        ));
    }
    Ok(Some(url))
}

/// The DPoP nonce secret: unset, or a random value of at least 32 characters.
pub(super) fn dpop_nonce_secret(
    raw: &RawSettings,
) -> Result<Option<crate::protocol::Secret>, ConfigError> {
    match setting::DPOP_NONCE_SECRET.raw(raw).map(str::trim) {
        None | Some("") => Ok(None),
        Some(v) if v.len() >= 32 && v.bytes().all(|b| b.is_ascii_graphic()) => {
            Ok(Some(crate::protocol::Secret::new(v)))
        }
        Some(_) => Err(bad(
            "SCANID_DPOP_NONCE_SECRET",
            "at least 32 printable ASCII characters (a random value)",
        )),
    }
}

/// Web Push to the app: the VAPID key and the contact the push services see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushSettings {
    /// The VAPID private key (base64url scalar), checked to be a P-256 key.
    pub vapid_key: crate::protocol::Secret,
    /// The VAPID `sub`: a `mailto:` or `https:` URI.
    pub subject: String,
    /// The VAPID public key apps subscribe with (`applicationServerKey`, base64url,
    /// uncompressed P-256), derived once when the settings are read.
    pub application_server_key: String,
}

impl PushSettings {
    /// The VAPID key pair (checked when the settings were read).
    pub fn key(&self) -> Result<crate::webpush::VapidKey, crate::webpush::PushError> {
        crate::webpush::VapidKey::from_b64(self.vapid_key.expose())
    }
}

/// The VAPID key and subject: unset key, no push; a key that is not a P-256 scalar, or a
/// subject that is neither `mailto:` nor `https:`, is refused.
pub(super) fn push(
    raw: &RawSettings,
    public_url: &str,
) -> Result<Option<PushSettings>, ConfigError> {
    let subject = match setting::VAPID_SUBJECT.raw(raw).map(str::trim) {
        None | Some("") => None,
        Some(s) if (s.starts_with("mailto:") && s.len() > 7) || s.starts_with("https://") => {
            Some(s.to_owned())
        }
        Some(s) => {
            return Err(bad(
                "SCANID_VAPID_SUBJECT",
                format!("{s:?}: a mailto: or https: URI"),
            ))
        }
    };
    let key = match setting::VAPID_PRIVATE_KEY.raw(raw).map(str::trim) {
        None | Some("") => return Ok(None),
        Some(k) => k,
    };
    let Ok(pair) = crate::webpush::VapidKey::from_b64(key) else {
        return Err(bad(
            "SCANID_VAPID_PRIVATE_KEY",
            "a P-256 private key: its 32-octet scalar in base64url",
        ));
    };
    let subject = subject.unwrap_or_else(|| {
        if public_url.starts_with("https://") {
            public_url.to_owned()
        } else {
            "mailto:push@localhost".to_owned()
        }
    });
    Ok(Some(PushSettings {
        vapid_key: crate::protocol::Secret::new(key),
        subject,
        application_server_key: pair.public_b64(),
    }))
}

/// A `true`/`false` setting.
pub(super) fn flag(setting: &Setting, raw: &RawSettings) -> Result<bool, ConfigError> {
    match setting.value(raw).map(str::trim) {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(v) => Err(bad(setting.env, format!("{v:?}: true or false"))),
    }
}

/// An absolute http(s) URL without query, fragment or credentials; returned without the
/// trailing slash.
pub(super) fn base_url(setting: &'static str, value: &str) -> Result<String, ConfigError> {
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
pub(super) fn store_url(setting: &Setting, raw: &RawSettings) -> Result<String, ConfigError> {
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
pub(super) fn list(value: Option<&str>) -> impl Iterator<Item = &str> {
    value
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// A rate limit: a whole number from 1 to 1000000, else the setting's default.
pub(super) fn count(setting: &Setting, raw: &RawSettings) -> Result<u64, ConfigError> {
    let v = setting.value(raw).unwrap_or_default();
    match v.trim().parse::<u64>() {
        Ok(n) if (1..=1_000_000).contains(&n) => Ok(n),
        _ => Err(bad(
            setting.env,
            format!("{v:?}: a whole number from 1 to 1000000"),
        )),
    }
}

/// A number of days from 1 to 3650 (ten years), in seconds.
pub(super) fn days(setting: &Setting, raw: &RawSettings) -> Result<i64, ConfigError> {
    let v = setting.value(raw).unwrap_or_default();
    match v.trim().parse::<i64>() {
        Ok(n) if (1..=3650).contains(&n) => Ok(n * 86_400),
        _ => Err(bad(
            setting.env,
            format!("{v:?}: a whole number of days from 1 to 3650"),
        )),
    }
}

/// A lifetime in seconds within `min..=max`, else the setting's default.
pub(super) fn seconds(
    setting: &Setting,
    raw: &RawSettings,
    min: i64,
    max: i64,
) -> Result<i64, ConfigError> {
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

/// The origins that may call the registration endpoint: `scheme://host[:port]` each.
pub(super) fn cors_origins(raw: &RawSettings) -> Result<Vec<String>, ConfigError> {
    list(setting::REGISTRATION_CORS_ORIGINS.raw(raw))
        .map(|o| {
            let ok = url::Url::parse(o).is_ok_and(|u| {
                matches!(u.scheme(), "https" | "http")
                    && u.origin().ascii_serialization() == o.trim_end_matches('/')
            });
            if ok {
                Ok(o.trim_end_matches('/').to_owned())
            } else {
                Err(bad(
                    "SCANID_REGISTRATION_CORS_ORIGINS",
                    format!("{o:?}: an origin, scheme://host[:port]"),
                ))
            }
        })
        .collect()
}

/// The policy for client metadata documents: on or off, and host names (`*.` allowed in
/// front) trusted or refused.
pub(super) fn client_documents(
    raw: &RawSettings,
) -> Result<crate::domain::client_document::Policy, ConfigError> {
    let hosts = |s: &Setting| {
        list(s.raw(raw))
            .map(|h| {
                let bare = h.trim_start_matches("*.");
                if !bare.is_empty()
                    && bare
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b':'))
                {
                    Ok(h.to_ascii_lowercase())
                } else {
                    Err(bad(
                        s.env,
                        format!("{h:?}: a host name, *.domain or an address"),
                    ))
                }
            })
            .collect::<Result<Vec<_>, _>>()
    };
    let min_fresh_secs = seconds(&setting::CLIENT_DOCUMENT_MIN_CACHE_SECS, raw, 0, 3600)?;
    let max_fresh_secs = seconds(&setting::CLIENT_DOCUMENT_MAX_CACHE_SECS, raw, 60, 604_800)?;
    if min_fresh_secs > max_fresh_secs {
        return Err(bad(
            setting::CLIENT_DOCUMENT_MIN_CACHE_SECS.env,
            format!(
                "{min_fresh_secs} is more than SCANID_CLIENT_DOCUMENT_MAX_CACHE_SECS ({max_fresh_secs})"
            ),
        ));
    }
    Ok(crate::domain::client_document::Policy {
        enabled: flag(&setting::CLIENT_ID_METADATA_DOCUMENTS, raw)?,
        trusted_hosts: hosts(&setting::CLIENT_DOCUMENT_TRUSTED_HOSTS)?,
        refused_hosts: hosts(&setting::CLIENT_DOCUMENT_REFUSED_HOSTS)?,
        min_fresh_secs,
        max_fresh_secs,
    })
}
