//! Property tests (proptest) for every parser that takes outside input: form and query
//! parsing, HTTP Basic credentials, redirect URI validation and matching, JWS and JWT parsing,
//! cookie parsing, the app API's JSON, source addresses, and finally whole requests through
//! the route table: no input panics, and none is answered with a 5xx.
//!
//! Case counts are fixed per test (`CASES`), so the run is the same size every time; a
//! failure prints the shrunk input that caused it.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use proptest::prelude::*;
use scanid_core::clock::{Clock, SystemClock, Timestamp};
use scanid_core::config::{RawSettings, Settings};
use scanid_core::domain::app_jws;
use scanid_core::domain::authorize::{self, Params};
use scanid_core::domain::client::{
    self, validate_redirect_uri, Client, NewClient, RESPONSE_PARAMETERS,
};
use scanid_core::domain::identity::{self, Registration};
use scanid_core::domain::ratelimit::Source;
use scanid_core::keys::local::KeySet;
use scanid_core::random::{SeededRandom, SystemRandom};
use scanid_core::store::ClientStore;
use scanid_core::Context;
use scanid_http::handlers::token::basic_credentials;
use scanid_http::routes::{self, Matched, ROUTES};
use scanid_http::{cookies, form_pairs, query_pairs};
use scanid_sqlite::EmbeddedStore;

/// Cases per property for the pure parsers (cheap: microseconds each).
const CASES: u32 = 4000;
/// Cases for whole requests through the route table (each touches the embedded store).
const REQUEST_CASES: u32 = 1500;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Text that looks like what attackers send: mostly URL-ish characters, percent escapes,
/// separators, some non-ASCII and control characters.
fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z0-9:/?#@!$&'()*+,;=._~%\\[\\]-]{0,80}",
        2 => any::<String>(),
        1 => "(%[0-9a-fA-F]{2}|[\\x00-\\x1f\\u{202e}\\u{200b}\\u{feff}]|[a-z]){0,40}",
    ]
}

/// A request builder as API Gateway would hand it to a handler.
fn request(
    method: &str,
    path_and_query: &str,
    headers: &[(String, String)],
    body: Vec<u8>,
) -> Option<lambda_http::Request> {
    let mut b = http::Request::builder()
        .method(method)
        .uri(format!("http://127.0.0.1:8080{path_and_query}"));
    for (k, v) in headers {
        b = b.header(k.as_str(), v.as_str());
    }
    b.body(lambda_http::Body::Binary(body)).ok()
}

fn shop() -> Client {
    client::register(
        NewClient {
            name: "Shop".into(),
            redirect_uris: vec![
                "https://shop.example/cb".into(),
                "http://127.0.0.1:8000/cb".into(),
            ],
            client_id: Some("shop".into()),
            ..Default::default()
        },
        Timestamp::from_secs(0),
        &SeededRandom::new(7),
    )
    .unwrap()
    .0
}

proptest! {
    #![proptest_config(config(CASES))]

    /// Form bodies and query strings: any bytes parse into pairs or a 4xx, never a panic,
    /// and the authorization request built from them validates or is refused.
    #[test]
    fn form_and_query_parsing(
        body in proptest::collection::vec(any::<u8>(), 0..300),
        query in hostile_text(),
        content_type in prop_oneof![
            Just("application/x-www-form-urlencoded".to_owned()),
            Just("application/x-www-form-urlencoded; charset=utf-8".to_owned()),
            "[ -~]{0,40}",
        ],
    ) {
        let path = format!("/x?{}", query.replace(['#', ' '], ""));
        if let Some(req) = request("POST", &path, &[("content-type".into(), content_type)], body) {
            let _ = query_pairs(&req);
            if let Ok(pairs) = form_pairs(&req) {
                let params = Params::from_pairs(pairs);
                let _ = authorize::validate(&params, Some(&shop()));
                let _ = authorize::validate(&params, None);
            }
            let params = Params::from_pairs(query_pairs(&req));
            let _ = authorize::validate(&params, Some(&shop()));
        }
    }

    /// HTTP Basic credentials (RFC 6749 App. B): any header decodes or is refused, and
    /// credentials encoded as the RFC says (form-urlencoded, then base64) come back exactly.
    #[test]
    fn basic_credentials_parsing(
        scheme in prop_oneof![Just("Basic".to_owned()), Just("basic".to_owned()), "[A-Za-z]{0,8}"],
        garbage in hostile_text(),
        id in any::<String>(),
        secret in any::<String>(),
    ) {
        if let Some(req) = request("POST", "/t", &[("authorization".into(), format!("{scheme} {garbage}"))], Vec::new()) {
            let _ = basic_credentials(&req);
        }
        use base64::Engine;
        let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        let header = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", enc(&id), enc(&secret)))
        );
        let req = request("POST", "/t", &[("authorization".into(), header)], Vec::new()).unwrap();
        prop_assert_eq!(basic_credentials(&req).unwrap(), Some((id, secret)));
    }

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
        let app = app();
        let r = scanid_core::keys::jwt::verify::<serde_json::Map<String, serde_json::Value>>(
            &runtime().block_on(app.keyring()), &token, &app.settings.issuer(), SystemClock.now(),
        );
        prop_assert!(r.is_err());
    }

    /// Cookie headers: any header parses; a cookie set among others is found exactly.
    #[test]
    fn cookie_parsing(
        header in hostile_text(),
        others in proptest::collection::vec(("[a-z_]{1,10}", "[A-Za-z0-9_-]{0,12}"), 0..4),
        value in "[A-Za-z0-9_-]{1,43}",
    ) {
        let _ = cookies::parse(&header, "scanid_session");
        let mut pairs: Vec<String> = others
            .iter()
            .filter(|(k, _)| k != "scanid_session")
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        pairs.insert(pairs.len() / 2, format!("scanid_session={value}"));
        prop_assert_eq!(cookies::parse(&pairs.join("; "), "scanid_session"), Some(Some(value)));
    }

    /// The app API's JSON: any registration claims and profile update either validate or are
    /// refused with a field error; what validates obeys the field rules.
    #[test]
    fn app_api_json(claims in json_object(), photo_host_allowed in any::<bool>()) {
        let hosts = if photo_host_allowed { vec!["cdn.example.com".to_owned()] } else { Vec::new() };
        if let Ok(reg) = serde_json::from_value::<Registration>(serde_json::Value::Object(claims.clone())) {
            if let Ok(i) = identity::new_identity(&reg, &hosts, Timestamp::from_secs(0), &SystemRandom::new()) {
                prop_assert!(identity::validate_display_name(&i.display_name).is_ok());
                prop_assert!(i.profile_photo.as_deref().is_none_or(|p| identity::validate_photo_url(p, &hosts).is_ok()));
            }
        }
        let base = base_identity();
        if let Ok(next) = identity::apply_update(&base, &claims, &hosts) {
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

proptest! {
    #![proptest_config(config(REQUEST_CASES))]

    /// Whole requests through the route table, as API Gateway would deliver them: any path
    /// parameters, query, headers and body get an answer below 500 (no panic, no internal
    /// error on bad input).
    #[test]
    fn no_request_is_answered_with_a_server_error(
        route in 0..ROUTES.len(),
        segment in prop_oneof![Just("scanid".to_owned()), "[A-Za-z0-9._~%-]{0,70}"],
        pairs in proptest::collection::vec((param_name(), param_value()), 0..8),
        in_body in any::<bool>(),
        content_type in prop_oneof![
            Just("application/x-www-form-urlencoded".to_owned()),
            Just("application/json".to_owned()),
            "[ -~]{0,30}",
        ],
        json_body in json_object(),
        authorization in prop_oneof![Just(String::new()), "(Basic|Bearer|bearer) [ -~]{0,60}"],
        cookie in prop_oneof![Just(String::new()), "[ -~]{0,80}"],
        accept_json in any::<bool>(),
    ) {
        let r = &ROUTES[route];
        // The path: the template with every {param} replaced (realm usually right).
        let mut path = String::new();
        let mut params = HashMap::new();
        for part in r.path.split('/').filter(|p| !p.is_empty()) {
            path.push('/');
            if let Some(name) = part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
                let value = if segment.is_empty() { "x".to_owned() } else { segment.clone() };
                let value = if name == "realm" && !segment.starts_with('%') { "scanid".to_owned() } else { value };
                path.push_str(&value);
                params.insert(name.to_owned(), value);
            } else {
                path.push_str(part);
            }
        }
        let encoded = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&pairs)
            .finish();
        let (query, body) = if in_body && r.method != "GET" {
            let body = if content_type == "application/json" {
                serde_json::Value::Object(json_body).to_string().into_bytes()
            } else {
                encoded.into_bytes()
            };
            (String::new(), body)
        } else {
            (format!("?{encoded}"), Vec::new())
        };
        let mut headers = vec![("content-type".to_owned(), content_type)];
        if !authorization.is_empty() {
            headers.push(("authorization".into(), authorization));
        }
        if !cookie.is_empty() {
            headers.push(("cookie".into(), cookie));
        }
        if accept_json {
            headers.push(("accept".into(), "application/json".into()));
        }
        let Some(req) = request(r.method, &format!("{path}{query}"), &headers, body) else {
            return Ok(());
        };
        // The router must find this very route for the path it was built from.
        if let Matched::Found(found, _) = routes::match_route(r.method, req.uri().path()) {
            prop_assert_eq!(found.handler, r.handler);
        }
        let req = scanid_server::server::with_gateway_context(req, "203.0.113.9".into(), params);
        let status = runtime().block_on(routes::dispatch(r.handler, app(), req)).status().as_u16();
        prop_assert!(status < 500, "{} {} {}: {}", r.method, r.path, path, status);
    }
}

fn param_name() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::sample::select(vec![
            "client_id", "redirect_uri", "response_type", "scope", "state", "nonce",
            "code_challenge", "code_challenge_method", "prompt", "max_age", "response_mode",
            "session", "challenge", "token", "token_type_hint", "grant_type", "code",
            "code_verifier", "refresh_token", "client_secret", "id_token_hint",
            "post_logout_redirect_uri", "csrf", "consent", "access_token",
        ]).prop_map(str::to_owned),
        1 => "[a-z_]{0,12}",
    ]
}

fn param_value() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "shop", "https://shop.example/cb", "http://127.0.0.1:9/cb", "code", "openid",
            "openid profile groups offline_access", "S256", "plain", "none", "login consent",
            "0", "-1", "99999999999999999999", "authorization_code", "refresh_token",
            "client_credentials", "allow", "deny", "form_post", "fragment",
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        ]).prop_map(str::to_owned),
        2 => hostile_text(),
    ]
}

fn json_object() -> impl Strategy<Value = serde_json::Map<String, serde_json::Value>> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f)
            .map_or(serde_json::Value::Null, serde_json::Value::Number)),
        hostile_text().prop_map(serde_json::Value::from),
        Just(serde_json::Value::from("https://cdn.example.com/a.png")),
        Just(serde_json::Value::from("SE")),
    ];
    let value = leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
            proptest::collection::btree_map("[a-z_]{1,8}", inner, 0..4)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    });
    proptest::collection::btree_map(
        prop_oneof![
            prop::sample::select(vec![
                "name",
                "display_name",
                "country_code",
                "profile_photo",
                "public_key",
                "registration",
                "approval",
                "update",
                "rotation",
                "sub",
                "aud",
                "iat",
                "exp",
                "jti",
            ])
            .prop_map(str::to_owned),
            "[a-z_]{1,10}",
        ],
        value,
        0..8,
    )
    .prop_map(|m| m.into_iter().collect())
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
        sub: "2b1a3c4d-0000-4000-8000-000000000000".into(),
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
    }
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    })
}

/// One service for every case: the embedded store in a temporary directory, with a client.
fn app() -> &'static Context {
    static APP: OnceLock<(Context, tempfile::TempDir)> = OnceLock::new();
    &APP.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let settings = Settings::from_raw(&RawSettings {
            public_url: Some("http://127.0.0.1:8080".into()),
            data_dir: Some(dir.path().to_str().unwrap().into()),
            ..Default::default()
        })
        .unwrap();
        let keys = KeySet::load_or_create(dir.path(), SystemClock.now())
            .unwrap()
            .keyring()
            .unwrap();
        let store = Arc::new(EmbeddedStore::open(dir.path()).unwrap());
        runtime()
            .block_on(store.create_client(&shop(), SystemClock.now()))
            .unwrap();
        let app = Context::new(
            settings,
            store,
            Arc::new(keys),
            Arc::new(SystemClock),
            Arc::new(SystemRandom::new()),
        )
        .unwrap();
        (app, dir)
    })
    .0
}
