//! "Sign in with a passkey" on the login page (issue 26) against the real `scanid serve`: the
//! page's button, `POST .../login-actions/passkey` for the options and the assertion (made by
//! part 1's software authenticator for a passkey put in the server's own store), the consent
//! step and the tokens (`amr` `hwk user pop`, `acr` 3); replay, another login's challenge, UV
//! false, a disabled identity, another browser and bad input refused with a clear 4xx.

use std::sync::Arc;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use scanid_core::clock::Timestamp;
use scanid_core::domain::passkey::{NewCredential, RelyingParty, COSE_ES256};
use scanid_core::store::{Backend, IdentityStore, NewPasskey, Passkeys};
use scanid_core::testing::passkey::SoftAuthenticator;
use scanid_sqlite::EmbeddedStore;
use scanid_tests::{
    attr, auth_url, code_of, consent_url, create_shop, jwt_claims, open, params_of, redeem,
    Browser, Resp, TestApp, TestServer, CB,
};
use serde_json::{json, Value};

struct Env {
    s: TestServer,
    shop: String,
    app: TestApp,
    auth: SoftAuthenticator,
    _dir: tempfile::TempDir,
}

fn now() -> Timestamp {
    Timestamp::from_millis(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64,
    )
}

/// A passkey for `sub` in `store`, made by a new software authenticator for `issuer`.
async fn add_passkey(store: Arc<dyn Backend>, issuer: &str, sub: &str) -> SoftAuthenticator {
    let rp = RelyingParty::for_issuer(issuer).unwrap();
    let auth = SoftAuthenticator::new(&rp, sub.as_bytes()).unwrap();
    let pk = NewCredential {
        credential_id: auth.credential_id.clone(),
        public_key: auth.cose_key(),
        alg: COSE_ES256,
        sign_count: 0,
    }
    .into_passkey(sub, "laptop", vec!["internal".into()], now());
    let (identity, version) = store.identity(sub, now()).await.unwrap().unwrap();
    let added = store
        .add_passkey(&pk, (&identity, version), &[], now())
        .await
        .unwrap();
    assert_eq!(added, NewPasskey::Added);
    auth
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let shop = create_shop(dir.path().to_str().unwrap(), &[]);
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "pkuser");
    let store: Arc<dyn Backend> = Arc::new(EmbeddedStore::open(dir.path()).unwrap());
    let auth = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(add_passkey(store, &s.issuer, &app.sub));
    Env {
        s,
        shop,
        app,
        auth,
        _dir: dir,
    }
}

fn b64(v: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(v)
}

fn post_json(b: &mut Browser, url: &str, body: &[u8]) -> Resp {
    b.send(
        "POST",
        url,
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json"),
        ],
        body,
    )
}

impl Env {
    /// A new login page in `b`: the passkey button's URL and the login's payload.
    fn page(&self, b: &mut Browser) -> (String, String) {
        let url = auth_url(
            &self.s,
            &[
                ("client_id", "shop"),
                ("redirect_uri", CB),
                ("response_type", "code"),
                ("scope", "openid"),
                ("state", "st"),
                ("nonce", "n"),
            ],
        );
        let (page, payload) = open(b, &url);
        let html = page.text();
        assert!(html.contains("Sign in with a passkey"), "{html}");
        let passkey_url = attr(&html, "id=\"passkey\"", "data-passkey-url").unwrap();
        (passkey_url, payload)
    }

    /// The options the button asks for: the challenge's bytes.
    fn challenge(&self, b: &mut Browser, passkey_url: &str) -> Vec<u8> {
        let r = post_json(b, passkey_url, b"{}");
        assert_eq!(r.status, 200, "{}", r.text());
        let o = r.json();
        let pk = &o["publicKey"];
        assert_eq!(pk["userVerification"], "required");
        assert_eq!(pk["allowCredentials"], json!([]));
        assert_eq!(pk["rpId"], "127.0.0.1");
        URL_SAFE_NO_PAD
            .decode(pk["challenge"].as_str().unwrap())
            .unwrap()
    }

    fn assertion(&mut self, challenge: &[u8]) -> Value {
        let a = self.auth.assert(challenge);
        json!({ "assertion": {
            "id": b64(&self.auth.credential_id),
            "authenticator_data": b64(&a.authenticator_data),
            "client_data_json": b64(&a.client_data_json),
            "signature": b64(&a.signature),
            "userHandle": null,
        } })
    }
}

#[test]
fn a_passkey_signs_in_on_the_login_page_to_tokens_with_amr_and_acr_3() {
    let mut e = env();
    let mut b = Browser::new();
    let (url, payload) = e.page(&mut b);
    let c = e.challenge(&mut b, &url);
    let body = e.assertion(&c);
    let r = post_json(&mut b, &url, body.to_string().as_bytes());
    assert_eq!(r.status, 200, "{}", r.text());
    let next = r.json()["next"].as_str().unwrap().to_owned();
    assert_eq!(next, consent_url(&e.s, &payload));
    // The same consent step as after the phone's approval.
    let page = b.get(&next);
    assert_eq!(page.status, 200, "{}", page.text());
    let csrf = attr(&page.text(), "name=\"csrf\"", "value").unwrap();
    let session = params_of(&payload)["session"].clone();
    let done = b.post_form(
        &format!("{}/login-actions/consent", e.s.issuer),
        &[("session", &session), ("csrf", &csrf), ("consent", "allow")],
    );
    let t = redeem(&e.s, ("shop", &e.shop), &code_of(&done));
    let id = jwt_claims(t["id_token"].as_str().unwrap());
    assert_eq!(id["sub"], e.app.sub.as_str());
    assert_eq!(id["amr"], json!(["hwk", "user", "pop"]));
    assert_eq!(id["acr"], "3");
    // The same assertion again: the login is decided.
    let again = post_json(&mut b, &url, body.to_string().as_bytes());
    assert_eq!(again.status, 404, "{}", again.text());
}

#[test]
fn replay_another_login_s_challenge_uv_false_and_another_browser_are_refused() {
    let mut e = env();
    let mut b = Browser::new();
    let (first_url, _) = e.page(&mut b);
    let c1 = e.challenge(&mut b, &first_url);
    let for_first = e.assertion(&c1);
    // Another login in the same browser: the first login's assertion is not for it.
    let (second_url, _) = e.page(&mut b);
    let r = post_json(&mut b, &second_url, for_first.to_string().as_bytes());
    assert_eq!(
        (r.status, r.json()["error"].clone()),
        (400, json!("invalid_challenge"))
    );
    // Another browser (no login cookie): the login is not found for it.
    let r = post_json(
        &mut Browser::new(),
        &first_url,
        for_first.to_string().as_bytes(),
    );
    assert_eq!(r.status, 404, "{}", r.text());
    // UV false: refused (and the challenge is spent).
    let c = e.challenge(&mut b, &second_url);
    let mut no_uv = e.auth.twin().unwrap();
    no_uv.user_verified = false;
    no_uv.counter = e.auth.counter + 10;
    let a = no_uv.assert(&c);
    let body = json!({ "assertion": {
        "id": b64(&e.auth.credential_id), "authenticator_data": b64(&a.authenticator_data),
        "client_data_json": b64(&a.client_data_json), "signature": b64(&a.signature) } });
    let r = post_json(&mut b, &second_url, body.to_string().as_bytes());
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"], "passkey_rejected");
    assert!(r.text().contains("verify the user"), "{}", r.text());
    // The first login's own assertion, replayed after a success elsewhere... first succeed:
    let ok = post_json(&mut b, &first_url, for_first.to_string().as_bytes());
    assert_eq!(ok.status, 200, "{}", ok.text());
    // ...then a replay of the spent challenge on a fresh page of the same login is refused.
    let r = post_json(&mut b, &first_url, for_first.to_string().as_bytes());
    assert!(
        r.status == 409 || r.status == 404,
        "{} {}",
        r.status,
        r.text()
    );
}

#[test]
fn bad_input_gets_a_clear_4xx() {
    let e = env();
    let mut b = Browser::new();
    let (url, _) = e.page(&mut b);
    let cases: &[(&[u8], u16)] = &[
        (b"not json", 400),
        (b"[]", 400),
        (br#"{"assertion": 5}"#, 400),
        (br#"{"assertion": {"id": 1}}"#, 400),
        (br#"{"other": true}"#, 400),
        (
            br#"{"assertion": {"id": "x", "authenticator_data": "***", "client_data_json": "e30", "signature": "AA"}}"#,
            400,
        ),
        (
            br#"{"assertion": {"id": "x", "authenticator_data": "AA", "client_data_json": "e30", "signature": "AA"}}"#,
            400,
        ),
    ];
    for (body, status) in cases {
        let r = post_json(&mut b, &url, body);
        assert_eq!(
            r.status,
            *status,
            "{}: {}",
            String::from_utf8_lossy(body),
            r.text()
        );
        assert!(r.json()["error"].is_string(), "{}", r.text());
    }
    // The wrong content type.
    let r = b.send("POST", &url, &[("Content-Type", "text/plain")], b"{}");
    assert_eq!(r.status, 415, "{}", r.text());
    // A huge body.
    let huge = format!(
        r#"{{"assertion": {{"id": "{}", "authenticator_data": "AA", "client_data_json": "AA", "signature": "AA"}}}}"#,
        "A".repeat(2_000_000)
    );
    let r = post_json(&mut b, &url, huge.as_bytes());
    assert!(r.status == 413 || r.status == 400, "{}", r.status);
    // An unknown credential.
    let c = e.challenge(&mut b, &url);
    let mut stranger = e.auth.twin().unwrap();
    stranger.credential_id = b"someone else".to_vec();
    let a = stranger.assert(&c);
    let body = json!({ "assertion": {
        "id": b64(&stranger.credential_id), "authenticator_data": b64(&a.authenticator_data),
        "client_data_json": b64(&a.client_data_json), "signature": b64(&a.signature) } });
    let r = post_json(&mut b, &url, body.to_string().as_bytes());
    assert_eq!(
        (r.status, r.json()["error"].clone()),
        (403, json!("unknown_passkey"))
    );
}

#[test]
fn a_disabled_identity_s_passkey_is_refused() {
    let mut e = env();
    let d = e._dir.path().to_str().unwrap().to_owned();
    let out = std::process::Command::new(scanid_tests::scanid_bin())
        .args(["identity", "disable", &e.app.sub, "--data-dir", &d])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut b = Browser::new();
    let (url, _) = e.page(&mut b);
    let c = e.challenge(&mut b, &url);
    let body = e.assertion(&c);
    let r = post_json(&mut b, &url, body.to_string().as_bytes());
    assert_eq!(
        (r.status, r.json()["error"].clone()),
        (403, json!("unknown_passkey"))
    );
}

/// Waits, when needed, so the next few seconds stay within one rate-limit window of
/// `window` seconds (fixed windows: a test crossing a boundary would start counting anew).
fn within_one_window(window: u64) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    if secs % window > window - 10 {
        std::thread::sleep(std::time::Duration::from_secs(window - secs % window + 1));
    }
}

/// Issue 38 (2): the login page's passkey challenges are limited per login and per source,
/// on a server started with `--passkey-challenges-per-login 3
/// --passkey-challenge-rate-per-minute 5` and a client `shop` (redirect URI [`CB`]). Before
/// the fix one login took 13,118 from one address in 3 s, each a write. Used on the embedded
/// store here and on DynamoDB in `aws`.
pub fn passkey_challenges_are_limited(s: &TestServer) {
    within_one_window(300);
    within_one_window(60);
    let page = |b: &mut Browser| {
        let url = auth_url(
            s,
            &[
                ("client_id", "shop"),
                ("redirect_uri", CB),
                ("response_type", "code"),
                ("scope", "openid"),
                ("state", "st"),
                ("nonce", "n"),
            ],
        );
        let (page, _) = open(b, &url);
        attr(&page.text(), "id=\"passkey\"", "data-passkey-url").unwrap()
    };
    let limited = |r: &Resp| {
        assert_eq!(r.status, 429, "{}", r.text());
        let wait: i64 = r.header("retry-after").unwrap().parse().unwrap();
        assert!(wait >= 1, "{wait}");
    };
    // One login holds at most 3 challenges.
    let mut b = Browser::new();
    let first = page(&mut b);
    for i in 0..3 {
        let r = post_json(&mut b, &first, b"{}");
        assert_eq!(r.status, 200, "challenge {i}: {}", r.text());
    }
    limited(&post_json(&mut b, &first, b"{}"));
    // A new login from the same address: one more, then the address's 5 a minute are spent.
    let mut other = Browser::new();
    let second = page(&mut other);
    let r = post_json(&mut other, &second, b"{}");
    assert_eq!(r.status, 200, "{}", r.text());
    limited(&post_json(&mut other, &second, b"{}"));
    let third = page(&mut other);
    limited(&post_json(&mut other, &third, b"{}"));
}

#[test]
fn passkey_challenges_are_limited_per_login_and_per_source() {
    let dir = tempfile::tempdir().unwrap();
    create_shop(dir.path().to_str().unwrap(), &[]);
    let s = TestServer::start(
        dir.path(),
        &[
            "--passkey-challenges-per-login",
            "3",
            "--passkey-challenge-rate-per-minute",
            "5",
        ],
    );
    passkey_challenges_are_limited(&s);
}
