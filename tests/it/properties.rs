//! Property tests (proptest) for whole requests through the route table, as API Gateway
//! would deliver them: no input panics, and none is answered with a 5xx. They need a running
//! service (the embedded store), so they live here; the pure parsers' properties are unit tests
//! next to the parsers (`scanid-core`: `src/properties.rs`, redirect URIs, the app's JWS, JWTs,
//! the app API's JSON, source addresses; `scanid-http`: `src/properties.rs`, forms, queries,
//! Basic credentials, cookies), run by `cargo test -p scanid-core --lib` and
//! `cargo test -p scanid-http --lib`.
//!
//! Case counts are fixed per test (`REQUEST_CASES`), so the run is the same size every time; a
//! failure prints the shrunk input that caused it.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use proptest::prelude::*;
use scanid_core::clock::{Clock, SystemClock};
use scanid_core::config::{RawSettings, Settings};
use scanid_core::keys::local::KeySet;
use scanid_core::random::SystemRandom;
use scanid_core::store::ClientStore;
use scanid_core::strategies::{config, hostile_text, json_object, shop};
use scanid_core::Context;
use scanid_http::routes::{self, Matched, ROUTES};
use scanid_sqlite::EmbeddedStore;

/// Cases for whole requests through the route table (each touches the embedded store).
const REQUEST_CASES: u32 = 1500;

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
