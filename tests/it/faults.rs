//! Fault injection (SECURITY.md F1, F2): with the store failing, every endpoint that needs it
//! answers 503 with `Retry-After` (`temporarily_unavailable` on OAuth endpoints, an HTML page
//! on the authorization endpoint, never a redirect), issues no token, and leaves nothing
//! half-written: after recovery the same code and the same name still work.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use lambda_http::Body;
use scanid::clock::{Clock, SystemClock};
use scanid::config::{RawSettings, Settings};
use scanid::domain::client::{register, NewClient};
use scanid::domain::login::{self, AuthCode, SsoSession};
use scanid::keys::local::KeyFile;
use scanid::random::SystemRandom;
use scanid::routes::{self, Matched};
use scanid::store::embedded::EmbeddedStore;
use scanid::store::faulty::{Faults, FaultyStore};
use scanid::store::{Backend, ClientStore, Cond, Key, Kind, Record};
use scanid::App;
use scanid_tests::TestApp;
use serde_json::{json, Value};

const ISS: &str = "https://id.example.com/realms/scanid";

struct Env {
    app: App,
    inner: Arc<dyn Backend>,
    faults: Arc<Faults>,
    secret: String,
    _dir: tempfile::TempDir,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let settings = Settings::from_raw(&RawSettings {
        public_url: Some("https://id.example.com".into()),
        data_dir: Some(dir.path().to_str().unwrap().into()),
        ..Default::default()
    })
    .unwrap();
    let inner: Arc<dyn Backend> = Arc::new(EmbeddedStore::open(dir.path()).unwrap());
    let faults = Arc::new(Faults::default());
    let store = Arc::new(FaultyStore {
        inner: inner.clone(),
        faults: faults.clone(),
    });
    let keys = KeyFile::load_or_create(dir.path(), SystemClock.now())
        .unwrap()
        .keyring()
        .unwrap();
    let app = App::new(
        settings,
        store,
        Arc::new(keys),
        Arc::new(SystemClock),
        Arc::new(SystemRandom::new()),
    )
    .unwrap();
    Env {
        app,
        inner,
        faults,
        secret: String::new(),
        _dir: dir,
    }
}

async fn call(
    app: &App,
    method: &str,
    uri: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> http::Response<Body> {
    let path = uri.split('?').next().unwrap();
    let (route, params) = match routes::match_route(method, path) {
        Matched::Found(r, p) => (r, p),
        other => panic!("{method} {path}: {other:?}"),
    };
    let mut b = http::Request::builder().method(method).uri(uri);
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let req = b
        .body(if body.is_empty() {
            Body::Empty
        } else {
            Body::Text(body.into())
        })
        .unwrap();
    let req = scanid::http::server::with_gateway_context(req, "203.0.113.7".into(), params);
    routes::dispatch(route.handler, app, req).await
}

fn json_of(r: &http::Response<Body>) -> Value {
    serde_json::from_slice(r.body().as_ref()).unwrap_or(Value::Null)
}

fn assert_503(r: &http::Response<Body>, what: &str) {
    assert_eq!(r.status(), 503, "{what}");
    assert!(
        r.headers().get("retry-after").is_some(),
        "{what}: Retry-After"
    );
    assert!(
        r.headers().get("location").is_none(),
        "{what}: never a redirect"
    );
    let text = String::from_utf8_lossy(r.body().as_ref()).to_string();
    assert!(
        !text.contains("injected fault") && !text.contains("sqlite"),
        "{what}: no internal detail: {text}"
    );
}

async fn setup(e: &mut Env) -> String {
    let now = SystemClock.now();
    let (client, secret) = register(
        NewClient {
            name: "Shop".into(),
            redirect_uris: vec!["https://shop.example/cb".into()],
            client_id: Some("shop".into()),
            ..Default::default()
        },
        now,
        &SystemRandom::new(),
    )
    .unwrap();
    e.inner.create_client(&client, now).await.unwrap();
    e.secret = secret.unwrap().expose().to_owned();
    // An identity through the real sign-up.
    let (key, pk) = TestApp::key();
    let t = TestApp::now();
    let reg = TestApp::sign(
        &key,
        "registration+jwt",
        &json!({ "name": "fay", "display_name": "Fay", "country_code": "SE",
        "public_key": pk, "aud": ISS, "iat": t, "exp": t + 120, "jti": TestApp::jti() }),
    );
    let r = call(
        &e.app,
        "POST",
        "/realms/scanid/app/identities",
        &[("content-type", "application/json")],
        &json!({ "registration": reg }).to_string(),
    )
    .await;
    assert_eq!(r.status(), 201);
    let sub = json_of(&r)["sub"].as_str().unwrap().to_owned();
    // A code as the consent step leaves it, with its SSO session.
    let (sso, _) = SsoSession::new(&sub, now, now, &SystemRandom::new());
    e.inner
        .put(
            Record::new(Key::new(Kind::Sso, &sso.sid), &sso, Some(now.secs() + 600)).unwrap(),
            Cond::Absent,
            now,
        )
        .await
        .unwrap();
    let code = "fault-test-code-0123456789-abcdefghijklmnop";
    let grant = AuthCode {
        client_id: "shop".into(),
        redirect_uri: "https://shop.example/cb".into(),
        scopes: vec!["openid".into()],
        nonce: "n".into(),
        code_challenge: None,
        sub,
        sid: sso.sid,
        auth_time: now,
        issued_at: now,
    };
    e.inner
        .put(
            Record::new(
                Key::new(Kind::Code, login::hash(code)),
                &grant,
                Some(now.secs() + 60),
            )
            .unwrap(),
            Cond::Absent,
            now,
        )
        .await
        .unwrap();
    code.to_owned()
}

#[tokio::test]
async fn outages_are_503_with_retry_after_and_nothing_half_written() {
    let mut e = env();
    let code = setup(&mut e).await;
    let basic = format!("Basic {}", {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(format!("shop:{}", e.secret))
    });
    let form = [
        ("content-type", "application/x-www-form-urlencoded"),
        ("authorization", basic.as_str()),
    ];
    let exchange = format!(
        "grant_type=authorization_code&code={code}&redirect_uri=https%3A%2F%2Fshop.example%2Fcb"
    );

    // Writes fail: the code exchange is refused with 503 and issues nothing...
    e.faults.set(false, true);
    let r = call(
        &e.app,
        "POST",
        "/realms/scanid/protocol/openid-connect/token",
        &form,
        &exchange,
    )
    .await;
    assert_503(&r, "token, writes down");
    assert_eq!(json_of(&r)["error"], "temporarily_unavailable");
    assert!(json_of(&r).get("access_token").is_none());
    // ...and did not consume the code: after recovery it still redeems (F2).
    e.faults.set(false, false);
    let r = call(
        &e.app,
        "POST",
        "/realms/scanid/protocol/openid-connect/token",
        &form,
        &exchange,
    )
    .await;
    assert_eq!(r.status(), 200, "{:?}", json_of(&r));
    let at = json_of(&r)["access_token"].as_str().unwrap().to_owned();

    // Reads fail: every endpoint that needs the store says 503; metadata still answers.
    e.faults.set(true, true);
    let bearer = format!("Bearer {at}");
    type Case<'a> = (&'a str, String, Vec<(&'a str, &'a str)>, String);
    let cases: Vec<Case> = vec![
        ("POST", "/realms/scanid/protocol/openid-connect/token".into(), form.to_vec(), "grant_type=client_credentials".into()),
        ("POST", "/realms/scanid/protocol/openid-connect/introspect".into(), form.to_vec(), format!("token={at}")),
        ("GET", "/realms/scanid/protocol/openid-connect/userinfo".into(), vec![("authorization", bearer.as_str())], String::new()),
        ("GET", "/realms/scanid/protocol/openid-connect/auth?client_id=shop&redirect_uri=https%3A%2F%2Fshop.example%2Fcb&response_type=code&state=s&nonce=n".into(), vec![], String::new()),
        ("GET", "/v1/directory/7c1a4b9e-3f2d-4e8a-9b6c-1d2e3f4a5b6c".into(), vec![], String::new()),
        ("GET", "/realms/scanid/app/scan?session=x&challenge=y".into(), vec![("accept", "application/json")], String::new()),
    ];
    for (method, uri, headers, body) in &cases {
        let r = call(&e.app, method, uri, headers, body).await;
        assert_503(&r, uri);
    }
    let r = call(&e.app, "GET", "/realms/scanid/protocol/openid-connect/auth?client_id=shop&redirect_uri=https%3A%2F%2Fshop.example%2Fcb&response_type=code&state=s&nonce=n", &[], "").await;
    assert!(
        r.headers()
            .get("content-type")
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("text/html"),
        "the login page answers HTML"
    );
    for uri in [
        "/realms/scanid/.well-known/openid-configuration",
        "/realms/scanid/protocol/openid-connect/certs",
    ] {
        assert_eq!(
            call(&e.app, "GET", uri, &[], "").await.status(),
            200,
            "{uri} needs no store"
        );
    }

    // A sign-up during a write outage leaves no marker behind: the name is free afterwards.
    e.faults.set(false, true);
    let (key, pk) = TestApp::key();
    let t = TestApp::now();
    let reg = |jti: String| {
        TestApp::sign(
            &key,
            "registration+jwt",
            &json!({ "name": "gil", "display_name": "Gil", "country_code": "SE",
        "public_key": pk, "aud": ISS, "iat": t, "exp": t + 120, "jti": jti }),
        )
    };
    let r = call(
        &e.app,
        "POST",
        "/realms/scanid/app/identities",
        &[("content-type", "application/json")],
        &json!({ "registration": reg(TestApp::jti()) }).to_string(),
    )
    .await;
    assert_503(&r, "sign-up, writes down");
    e.faults.set(false, false);
    let r = call(
        &e.app,
        "POST",
        "/realms/scanid/app/identities",
        &[("content-type", "application/json")],
        &json!({ "registration": reg(TestApp::jti()) }).to_string(),
    )
    .await;
    assert_eq!(r.status(), 201, "{:?}", json_of(&r));
}
