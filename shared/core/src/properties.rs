//! Property tests (proptest) for the pure parsers of outside input in this crate: redirect URI
//! validation and matching, the app's JWS, JWT verification, the app API's JSON and source
//! addresses. No input panics; what is accepted obeys the rules. (The HTTP parsers' properties
//! are in `scanid-http`; whole requests through the route table in `tests/it/properties.rs`.)
//!
//! Case counts are fixed (`CASES`), so the run is the same size every time; a failure prints
//! the shrunk input that caused it.

use std::sync::OnceLock;

use crate::strategies::{config, hostile_text, json_object, shop};
use proptest::prelude::*;

use crate::clock::{Clock, SystemClock, Timestamp};
use crate::domain::app_jws;
use crate::domain::client::{validate_redirect_uri, RESPONSE_PARAMETERS};
use crate::domain::identity::{self, Registration};
use crate::domain::ratelimit::Source;
use crate::keys::local::KeySet;
use crate::keys::Keyring;
use crate::protocol::app_request::ProfileUpdate;
use crate::protocol::Subject;
use crate::random::SystemRandom;

/// Cases per property (cheap: microseconds each).
const CASES: u32 = 4000;

proptest! {
    #![proptest_config(config(CASES))]

    /// Redirect URIs (docs/requirements.md A1, A4, A8): validation never panics; whatever it accepts
    /// has no fragment, no credentials, an allowed scheme and no response parameter; a
    /// registered URI matches only itself (or, on loopback, itself with another port).
    #[test]
    fn redirect_uri_validation_and_matching(
        uri in prop_oneof![
            hostile_text(),
            (
                prop::sample::select(vec!["https", "http", "javascript", "com.example.app", "data"]),
                prop_oneof![
                    prop::sample::select(vec!["shop.example", "127.0.0.1", "[::1]", "shop.example@evil"])
                        .prop_map(str::to_owned),
                    "[a-z.]{0,12}",
                ],
                prop_oneof![Just(String::new()), "(:[0-9]{0,6})"],
                "(/[a-zA-Z0-9%._~-]{0,8}){0,3}",
                prop_oneof![Just(String::new()), "\\?([a-z_]{1,17}=[a-z]{0,3}&?){1,3}"],
                prop_oneof![Just(String::new()), Just("#f".to_owned())],
            ).prop_map(|(s, h, p, path, q, f)| format!("{s}://{h}{p}{path}{q}{f}")),
        ],
    ) {
        if validate_redirect_uri(&uri).is_ok() {
            let u = url::Url::parse(&uri).unwrap();
            prop_assert!(u.fragment().is_none() && !uri.contains('#'));
            prop_assert!(u.username().is_empty() && u.password().is_none());
            prop_assert!(!matches!(u.scheme(), "javascript" | "data" | "file" | "vbscript" | "blob" | "about"));
            prop_assert!(u.scheme() != "http" || matches!(u.host_str(), Some("127.0.0.1" | "[::1]" | "localhost")));
            prop_assert!(!u.query_pairs().any(|(k, _)| RESPONSE_PARAMETERS.contains(&k.as_ref())));
        }
        let c = shop();
        if c.redirect_uri_matches(&uri) {
            let loopback = uri
                .strip_prefix("http://127.0.0.1")
                .and_then(|r| r.strip_suffix("/cb"))
                .is_some_and(|port| port.is_empty() || (port.starts_with(':') && port[1..].bytes().all(|b| b.is_ascii_digit())));
            prop_assert!(uri == "https://shop.example/cb" || loopback, "{uri}");
        }
    }

    /// The app's JWS (app protocol, Keys): any text parses or is refused; a verified one needs
    /// the right key.
    #[test]
    fn app_jws_parsing(
        token in prop_oneof![
            hostile_text(),
            (hostile_text(), hostile_text(), hostile_text()).prop_map(|(a, b, c)| {
                use base64::Engine;
                let e = |s: String| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
                format!("{}.{}.{}", e(a), e(b), e(c))
            }),
            (hostile_text(), any::<i64>(), any::<i64>()).prop_map(|(jti, iat, exp)| {
                use base64::Engine;
                let e = |s: String| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
                format!(
                    "{}.{}.{}",
                    e(r#"{"alg":"ES256","typ":"approval+jwt"}"#.into()),
                    e(serde_json::json!({"aud": "x", "iat": iat, "exp": exp, "jti": jti}).to_string()),
                    e("sig".into())
                )
            }),
        ],
    ) {
        if let Ok(jws) = app_jws::parse(&token, "approval+jwt") {
            let (_, spki) = key();
            prop_assert!(jws.verify(spki, "x", SystemClock.now()).is_err());
        }
    }

    /// Tokens presented to userinfo, introspection and logout: any text is refused without a
    /// panic (jsonwebtoken's parser behind our keyring).
    #[test]
    fn jwt_parsing(token in prop_oneof![
        hostile_text(),
        (hostile_text(), hostile_text()).prop_map(|(h, p)| {
            use base64::Engine;
            let e = |s: String| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
            format!("{}.{}.c2ln", e(h), e(p))
        }),
        hostile_text().prop_map(|p| {
            use base64::Engine;
            let e = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
            format!("{}.{}.", e(r#"{"alg":"none"}"#), e(&p))
        }),
    ]) {
        let r = crate::keys::jwt::verify::<serde_json::Map<String, serde_json::Value>>(
            keyring(), &token, "http://127.0.0.1:8080/realms/scanid", SystemClock.now(),
        );
        prop_assert!(r.is_err());
    }

    /// The app API's JSON: any registration claims and profile update either validate or are
    /// refused with a field error; what validates obeys the field rules.
    #[test]
    fn app_api_json(claims in json_object(), photo_host_allowed in any::<bool>()) {
        let hosts = if photo_host_allowed { vec!["cdn.example.com".to_owned()] } else { Vec::new() };
        if let Ok(reg) = crate::protocol::app_request::read::<Registration>(&claims) {
            if let Ok(i) = identity::new_identity(&reg, &hosts, Timestamp::from_secs(0), &SystemRandom::new()) {
                prop_assert!(identity::validate_display_name(&i.display_name).is_ok());
                prop_assert!(i.profile_photo.as_deref().is_none_or(|p| identity::validate_photo_url(p, &hosts).is_ok()));
            }
        }
        let base = base_identity();
        let mut with_sub = claims.clone();
        with_sub.entry("sub").or_insert_with(|| "s".into());
        let update = crate::protocol::app_request::read::<ProfileUpdate>(&with_sub);
        if let Ok(next) = update.map_err(|_| ()).and_then(|u| identity::apply_update(&base, &u, &hosts).map_err(|_| ())) {
            prop_assert!(identity::validate_display_name(&next.display_name).is_ok());
            prop_assert_eq!(next.public_key, base.public_key);
            prop_assert_eq!(next.name, base.name);
        }
        let _ = identity::parse_public_key(claims.get("public_key").and_then(|v| v.as_str()).unwrap_or(""));
    }

    /// Source addresses for rate limits: any text gives a bounded key; IPv6 hosts of one /64
    /// share it.
    #[test]
    fn source_addresses(addr in hostile_text(), a in any::<u128>(), b in any::<u64>()) {
        prop_assert!(Source::from_addr(&addr).as_str().len() <= 68);
        let prefix = a & !u128::from(u64::MAX);
        let one = std::net::Ipv6Addr::from(prefix | u128::from(b)).to_string();
        let two = std::net::Ipv6Addr::from(prefix | u128::from(b.wrapping_add(1))).to_string();
        let mapped = std::net::Ipv6Addr::from(prefix).to_ipv4_mapped().is_some();
        if !mapped {
            prop_assert_eq!(Source::from_addr(&one), Source::from_addr(&two));
        }
    }
}

fn key() -> &'static (aws_lc_rs::signature::EcdsaKeyPair, Vec<u8>) {
    static KEY: OnceLock<(aws_lc_rs::signature::EcdsaKeyPair, Vec<u8>)> = OnceLock::new();
    KEY.get_or_init(|| {
        use aws_lc_rs::encoding::AsDer;
        use aws_lc_rs::signature::KeyPair;
        let k = aws_lc_rs::signature::EcdsaKeyPair::generate(
            &aws_lc_rs::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
        )
        .unwrap();
        let spki = k.public_key().as_der().unwrap().as_ref().to_vec();
        (k, spki)
    })
}

fn base_identity() -> identity::Identity {
    use base64::Engine;
    identity::Identity {
        sub: Subject::new("2b1a3c4d-0000-4000-8000-000000000000"),
        service_id: "abcdefghjkmn".into(),
        name: "alice".into(),
        display_name: "Alice".into(),
        profile_photo: None,
        created_at: Timestamp::from_secs(0),
        updated_at: None,
        public_key: base64::engine::general_purpose::STANDARD.encode(&key().1),
        country_code: "SE".into(),
        kind: identity::IdentityType::User,
        groups: Vec::new(),
        disabled: false,
        tokens_not_before: None,
        device_key_retired: false,
        admin_roles: Vec::new(),
    }
}

/// The keys of a key set created once in a temporary directory.
fn keyring() -> &'static Keyring {
    static KEYS: OnceLock<Keyring> = OnceLock::new();
    KEYS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        KeySet::load_or_create(dir.path(), SystemClock.now())
            .unwrap()
            .keyring()
            .unwrap()
    })
}
