//! Fault injection (docs/requirements.md F1, F2): with the store failing, every endpoint that needs it
//! answers 503 with `Retry-After` (`temporarily_unavailable` on OAuth endpoints, an HTML page
//! on the authorization endpoint, never a redirect), issues no token, and leaves nothing
//! half-written: after recovery the same code and the same name still work.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use lambda_http::Body;
use scanid_core::clock::{Clock, SystemClock};
use scanid_core::config::{RawSettings, Settings};
use scanid_core::domain::client::{register, NewClient};
use scanid_core::domain::login::{self, AuthCode, SsoSession};
use scanid_core::keys::local::KeySet;
use scanid_core::keys::{Alg, JwkSet, Keyring, SignError, Signer};
use scanid_core::protocol::{ClientId, RedirectUri, Scopes, Subject};
use scanid_core::random::SystemRandom;
use scanid_core::store::faulty::{Faults, FaultyStore};
use scanid_core::store::{Backend, ClientStore, Cond, Key, Kind, Record};
use scanid_core::Context;
use scanid_http::routes::{self, Matched};
use scanid_sqlite::EmbeddedStore;
use scanid_tests::{
    attr, auth_url, consent_url, create_client, create_shop, exchange_code, location, login_status,
    params_of, post_form, Browser, Resp, TestApp, TestServer, CB,
};
use serde_json::{json, Value};

const ISS: &str = "https://id.example.com/realms/scanid";

struct Env {
    app: Context,
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
    let keys = KeySet::load_or_create(dir.path(), SystemClock.now())
        .unwrap()
        .keyring()
        .unwrap();
    let app = Context::new(
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
    app: &Context,
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
    let req = scanid_server::server::with_gateway_context(req, "203.0.113.7".into(), params);
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
        client_id: ClientId::new("shop"),
        redirect_uri: RedirectUri::new("https://shop.example/cb"),
        scopes: Scopes::from_stored(["openid"]),
        nonce: Some("n".into()),
        claims: Default::default(),
        code_challenge: None,
        dpop_jkt: None,
        resources: Vec::new(),
        sub: Subject::new(sub),
        sid: sso.sid,
        auth_time: now,
        issued_at: now,
        method: Default::default(),
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

/// A signer that fails (as KMS does when it is down) while told to.
struct FlakySigner {
    inner: Arc<dyn Signer>,
    down: Arc<AtomicBool>,
}

#[async_trait::async_trait]
impl Signer for FlakySigner {
    fn alg(&self) -> Alg {
        self.inner.alg()
    }
    fn kid(&self) -> &str {
        self.inner.kid()
    }
    async fn sign(&self, input: &[u8]) -> Result<Vec<u8>, SignError> {
        if self.down.load(Ordering::SeqCst) {
            return Err(SignError::Unavailable("injected KMS fault".into()));
        }
        self.inner.sign(input).await
    }
}

/// The real HTTP server in this process, on a store and a signer that fail on demand.
struct Live {
    s: TestServer,
    faults: Arc<Faults>,
    kms_down: Arc<AtomicBool>,
    secret: String,
    app: TestApp,
    _dir: tempfile::TempDir,
}

fn live() -> Live {
    let dir = tempfile::tempdir().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let settings = Settings::from_raw(&RawSettings {
        public_url: Some(base.clone()),
        data_dir: Some(dir.path().to_str().unwrap().into()),
        // One identity logs in once per injected fault, and again to recover.
        decision_rate_per_minute: Some("1000".into()),
        // And scans a device's user code once per injected fault, and again to recover.
        user_code_rate_per_minute: Some("1000".into()),
        ..Default::default()
    })
    .unwrap();
    let issuer = settings.issuer();
    let inner: Arc<dyn Backend> = Arc::new(EmbeddedStore::open(dir.path()).unwrap());
    let faults = Arc::new(Faults::default());
    let store = Arc::new(FaultyStore {
        inner,
        faults: faults.clone(),
    });
    let ring = KeySet::load_or_create(dir.path(), SystemClock.now())
        .unwrap()
        .keyring()
        .unwrap();
    let kms_down = Arc::new(AtomicBool::new(false));
    let signers: Vec<Arc<dyn Signer>> = [Alg::RS256, Alg::ES256]
        .into_iter()
        .map(|alg| {
            Arc::new(FlakySigner {
                inner: ring.signer(alg).unwrap().clone(),
                down: kms_down.clone(),
            }) as Arc<dyn Signer>
        })
        .collect();
    let published: JwkSet = serde_json::from_slice(&ring.jwks_json()).unwrap();
    let keys = Keyring::new(signers, published.keys).unwrap();
    let app = Context::new(
        settings,
        store,
        Arc::new(keys),
        Arc::new(SystemClock),
        Arc::new(SystemRandom::new()),
    )
    .unwrap();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            scanid_server::server::serve(
                Arc::new(app),
                scanid_server::server::Site::Issuer,
                listener,
                scanid_server::server::Limits::default(),
                std::future::pending(),
            )
            .await
            .unwrap();
        });
    });
    let d = dir.path().to_str().unwrap();
    let secret = create_shop(d, &[]);
    let s = TestServer::in_process(&base, &issuer, dir.path());
    create_client(
        d,
        &[
            "--name",
            "TV",
            "--client-id",
            "tv",
            "--public",
            "--grant",
            "device_code",
        ],
    );
    let app = TestApp::enroll(&s, "flow-user");
    Live {
        s,
        faults,
        kms_down,
        secret,
        app,
        _dir: dir,
    }
}

/// A step of the login and token flows that failed: its name and response.
#[derive(Debug)]
struct Failed {
    step: usize,
    resp: Resp,
}

/// Where a flow is, so a failed step can be tried again (with fresh app signatures, as the
/// app would) from where it stopped.
#[derive(Default)]
struct Progress {
    payload: String,
    csrf: String,
    code: String,
}

const STEPS: [&str; 6] = [
    "authorize",
    "app scan",
    "app decision",
    "consent page",
    "consent",
    "token",
];

/// Runs the flow from step `from`; on success returns the token response.
fn flow(l: &Live, b: &mut Browser, p: &mut Progress, from: usize) -> Result<Value, Failed> {
    let fail = |step: usize, resp: Resp| Err(Failed { step, resp });
    let url = auth_url(
        &l.s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("state", "st"),
            ("nonce", "n"),
            ("scope", "openid"),
            ("prompt", "login consent"),
        ],
    );
    for step in from..STEPS.len() {
        match step {
            0 => {
                let page = b.get(&url);
                if page.status != 200 {
                    return fail(step, page);
                }
                p.payload = attr(&page.text(), "id=\"app-link\"", "data-qr-payload").unwrap();
            }
            1 => {
                // The code the page shows now (it changes every second; a scanned code is
                // spent): the page's poll says which.
                let s = login_status(b, &p.payload);
                if s.status != 200 {
                    return fail(step, s);
                }
                p.payload = s.json()["app_link"].as_str().unwrap().to_owned();
                let r = l.app.scan(&p.payload);
                if r.status != 200 {
                    return fail(step, r);
                }
            }
            2 => {
                // The number the page shows.
                let s = login_status(b, &p.payload);
                if s.status != 200 {
                    return fail(step, s);
                }
                let n = s.json()["number"].as_u64().map(|n| n as u8);
                let jws = l.app.approval(&p.payload, "approve", n);
                let r = l.app.post_decision(&params_of(&p.payload)["session"], &jws);
                if r.status != 200 {
                    return fail(step, r);
                }
            }
            3 => {
                let page = b.get(&consent_url(&l.s, &p.payload));
                match page.status {
                    200 => p.csrf = attr(&page.text(), "name=\"csrf\"", "value").unwrap(),
                    // Remembered consent: straight back to the client.
                    302 | 303 => {
                        p.code = params_of(&location(&page))["code"].clone();
                        p.csrf.clear();
                    }
                    _ => return fail(step, page),
                }
            }
            4 => {
                if p.csrf.is_empty() {
                    continue;
                }
                let session = params_of(&p.payload)["session"].clone();
                let r = b.post_form(
                    &format!("{}/login-actions/consent", l.s.issuer),
                    &[
                        ("session", &session),
                        ("csrf", &p.csrf),
                        ("consent", "allow"),
                    ],
                );
                // The consent form's answer: 303 to the client.
                if r.status != 303 {
                    return fail(step, r);
                }
                p.code = params_of(&location(&r))
                    .get("code")
                    .cloned()
                    .unwrap_or_else(|| panic!("no code: {}", location(&r)));
            }
            _ => {
                let r = exchange_code(&l.s, ("shop", &l.secret), &p.code);
                if r.status != 200 {
                    return fail(step, r);
                }
                return Ok(r.json());
            }
        }
    }
    unreachable!("the last step returns")
}

fn assert_outage(f: &Failed, what: &str) {
    let r = &f.resp;
    assert_eq!(
        r.status,
        503,
        "{what}: {} answered {}",
        STEPS[f.step],
        r.text()
    );
    assert!(r.header("retry-after").is_some(), "{what}: Retry-After");
    assert!(r.header("location").is_none(), "{what}: never a redirect");
    let text = r.text();
    assert!(
        !text.contains("access_token") && !text.contains("id_token"),
        "{what}: no token"
    );
    assert!(
        !text.contains("injected") && !text.contains("sqlite"),
        "{what}: no internal detail: {text}"
    );
    if STEPS[f.step] == "token" {
        assert_eq!(r.json()["error"], "temporarily_unavailable", "{what}");
    }
}

#[test]
fn every_write_of_the_login_and_token_flows_failing_gives_503_and_nothing_half_written() {
    let l = live();
    // A clean run counts the writes.
    let before = l.faults.writes_seen.load(Ordering::SeqCst);
    let mut p = Progress::default();
    flow(&l, &mut Browser::new(), &mut p, 0).unwrap();
    let writes = l.faults.writes_seen.load(Ordering::SeqCst) - before;
    assert!(writes >= 6, "the flow writes at every step ({writes})");

    let mut steps_hit = std::collections::BTreeSet::new();
    for n in 1..=writes {
        let what = format!("write {n} of {writes} failing");
        let b = &mut Browser::new();
        let mut p = Progress::default();
        l.faults.fail_nth_write(n);
        let failed = match flow(&l, b, &mut p, 0) {
            Err(failed) => failed,
            Ok(_) => {
                // Only a best-effort index may fail without failing the login: the list of
                // an identity's sessions (for back-channel logout when it is disabled), and
                // its recent logins (what its app lists).
                let failed = *l.faults.last_failed.lock().unwrap();
                assert!(
                    matches!(
                        failed,
                        Some(Kind::IdentitySessions | Kind::IdentityActivity)
                    ),
                    "{what}: the flow succeeded although a write failed ({failed:?})"
                );
                continue;
            }
        };
        assert_outage(&failed, &what);
        steps_hit.insert(STEPS[failed.step]);
        // Nothing half-written: the same step, tried again, carries the flow to its tokens
        // (for the token step: the very same code, which the failure did not consume).
        let tokens = flow(&l, b, &mut p, failed.step).unwrap_or_else(|f| {
            panic!("{what}: retrying {} gave {}", STEPS[f.step], f.resp.text())
        });
        assert!(tokens["access_token"].is_string(), "{what}");
    }
    // Every step that writes was hit (the consent page itself only reads).
    assert_eq!(
        steps_hit.into_iter().collect::<Vec<_>>(),
        ["app decision", "app scan", "authorize", "consent", "token"]
    );

    // KMS down at the signature: 503, and the code is still unredeemed afterwards.
    let b = &mut Browser::new();
    let mut p = Progress::default();
    l.kms_down.store(true, Ordering::SeqCst);
    let failed = flow(&l, b, &mut p, 0).expect_err("KMS down");
    assert_eq!(STEPS[failed.step], "token");
    assert_outage(&failed, "KMS down");
    l.kms_down.store(false, Ordering::SeqCst);
    let tokens = flow(&l, b, &mut p, failed.step).unwrap();
    assert!(tokens["id_token"].is_string());
}

const DEVICE_STEPS: [&str; 4] = ["device authorization", "app scan", "app decision", "poll"];

/// Where a device grant is: its codes, and the login session the app scanned.
#[derive(Default)]
struct DeviceProgress {
    device_code: String,
    user_code: String,
    payload: String,
}

/// The device grant (RFC 8628) from step `from`; on success the token response.
fn device_flow(l: &Live, p: &mut DeviceProgress, from: usize) -> Result<Value, Failed> {
    let fail = |step: usize, resp: Resp| Err(Failed { step, resp });
    for step in from..DEVICE_STEPS.len() {
        match step {
            0 => {
                let r = post_form(
                    &l.s.oidc("auth/device"),
                    None,
                    &[("client_id", "tv"), ("scope", "openid")],
                );
                if r.status != 200 {
                    return fail(step, r);
                }
                p.device_code = r.json()["device_code"].as_str().unwrap().to_owned();
                p.user_code = r.json()["user_code"].as_str().unwrap().to_owned();
            }
            1 => {
                let r = l.app.scan(&format!(
                    "{}/app/scan?user_code={}",
                    l.s.issuer, p.user_code
                ));
                if r.status != 200 {
                    return fail(step, r);
                }
                let v = r.json();
                p.payload = format!(
                    "{}/app/scan?session={}&challenge={}",
                    l.s.issuer,
                    v["session"].as_str().unwrap(),
                    v["challenge"].as_str().unwrap()
                );
            }
            2 => {
                // Scanned by its user code: the code is the matching, no number.
                let jws = l.app.approval(&p.payload, "approve", None);
                let r = l.app.post_decision(&params_of(&p.payload)["session"], &jws);
                if r.status != 200 {
                    return fail(step, r);
                }
            }
            _ => {
                let r = post_form(
                    &l.s.oidc("token"),
                    None,
                    &[
                        ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                        ("device_code", &p.device_code),
                        ("client_id", "tv"),
                    ],
                );
                if r.status != 200 {
                    return fail(step, r);
                }
                return Ok(r.json());
            }
        }
    }
    unreachable!("the last step returns")
}

#[test]
fn every_write_of_the_device_grant_failing_gives_503_and_nothing_half_written() {
    let l = live();
    let before = l.faults.writes_seen.load(Ordering::SeqCst);
    device_flow(&l, &mut DeviceProgress::default(), 0).unwrap();
    let writes = l.faults.writes_seen.load(Ordering::SeqCst) - before;
    assert!(writes >= 4, "the grant writes at every step ({writes})");
    let mut steps_hit = std::collections::BTreeSet::new();
    for n in 1..=writes {
        let what = format!("write {n} of {writes} failing");
        let mut p = DeviceProgress::default();
        l.faults.fail_nth_write(n);
        let failed = match device_flow(&l, &mut p, 0) {
            Err(failed) => failed,
            Ok(_) => {
                // Only best-effort indexes may fail without failing the grant.
                let failed = *l.faults.last_failed.lock().unwrap();
                assert!(
                    matches!(
                        failed,
                        Some(Kind::IdentitySessions | Kind::IdentityActivity)
                    ),
                    "{what}: the grant succeeded although a write failed ({failed:?})"
                );
                continue;
            }
        };
        let r = &failed.resp;
        assert_eq!(
            r.status,
            503,
            "{what}: {} answered {}",
            DEVICE_STEPS[failed.step],
            r.text()
        );
        assert!(r.header("retry-after").is_some(), "{what}: Retry-After");
        assert!(!r.text().contains("access_token"), "{what}: no token");
        steps_hit.insert(DEVICE_STEPS[failed.step]);
        // Nothing half-written: the same step again carries the grant to its tokens (the poll:
        // with the very same device code, which the failure did not spend).
        let tokens = device_flow(&l, &mut p, failed.step).unwrap_or_else(|f| {
            panic!(
                "{what}: retrying {} gave {}",
                DEVICE_STEPS[f.step],
                f.resp.text()
            )
        });
        assert!(tokens["access_token"].is_string(), "{what}");
    }
    assert_eq!(
        steps_hit.into_iter().collect::<Vec<_>>(),
        ["app decision", "app scan", "device authorization", "poll"]
    );
}
