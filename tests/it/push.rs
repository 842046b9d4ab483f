//! Web Push of a CIBA request (RFC 8030, RFC 8291, RFC 8292) against the real `scanid serve`
//! and a local push service the test starts itself (tests/py/push_service.py): a raw phone
//! registers a subscription pointing at it, a client starts CIBA for that person, and the push
//! service checks the VAPID JWT with PyJWT (signature by `k`, aud, exp, sub) and decrypts the
//! body with http_ece (PyPI), a library nobody here wrote. A 410 drops the subscription.

use std::io::BufRead;
use std::sync::mpsc;
use std::time::Duration;

use scanid_tests::{create_client, request, secret_of, Resp, TestApp, TestServer};
use serde_json::{json, Value};

use crate::ciba::{start, waiting, CLIENT_FLAGS};

/// The VAPID key the server runs with (RFC 8291 Appendix A's sender key) and its public key.
pub const VAPID_PRIVATE: &str = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";
pub const VAPID_PUBLIC: &str =
    "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8";

/// The local push service: its subscription (endpoint and keys) and the lines it prints,
/// one per request received.
pub(crate) struct PushService {
    child: std::process::Child,
    pub(crate) subscription: Value,
    lines: mpsc::Receiver<String>,
}

impl PushService {
    pub(crate) fn start() -> Self {
        let mut child = std::process::Command::new(scanid_tests::python())
            .arg(scanid_tests::repo_root().join("tests/py/push_service.py"))
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let out = std::io::BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let first = lines
            .recv_timeout(Duration::from_secs(20))
            .expect("the push service started (is http-ece installed?)");
        Self {
            child,
            subscription: serde_json::from_str(&first).unwrap(),
            lines,
        }
    }

    /// The next request it received, within a few seconds.
    pub(crate) fn next(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(10))
            .expect("a push message reached the push service");
        serde_json::from_str(&line).unwrap()
    }
}

impl Drop for PushService {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `POST .../push-subscriptions{suffix}` with `body`.
pub fn push_call(app: &TestApp, suffix: &str, body: Value) -> Resp {
    request(
        "POST",
        &format!(
            "{}/app/identities/{}/push-subscriptions{suffix}",
            app.issuer, app.sub
        ),
        &[("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    )
}

/// A signed `typ` request with `extra` claims, in `field`.
fn signed(app: &TestApp, typ: &str, field: &str, extra: Value) -> Value {
    let mut claims = app.request_claims();
    for (k, v) in extra.as_object().unwrap() {
        claims[k] = v.clone();
    }
    json!({ field: TestApp::sign(&app.key, typ, &claims) })
}

pub fn subscribe(app: &TestApp, endpoint: &str, keys: &Value) -> Resp {
    let body = signed(
        app,
        "push-subscribe+jwt",
        "subscribe",
        json!({ "kind": "webpush", "endpoint": endpoint, "keys": keys }),
    );
    push_call(app, "", body)
}

pub fn withdraw(app: &TestApp, endpoint: &str) -> Resp {
    let body = signed(
        app,
        "push-withdraw+jwt",
        "withdraw",
        json!({ "endpoint": endpoint }),
    );
    push_call(app, "/withdraw", body)
}

/// The whole push: the key, a subscription (and its refusals), a CIBA request pushed and
/// decrypted, a withdrawal, and a 410 that drops the subscription. Used on SQLite here and
/// on DynamoDB in `aws`.
pub fn push_scenario(s: &TestServer, secret: &str) {
    let push = PushService::start();
    let sub = &push.subscription;
    let keys = json!({ "p256dh": sub["p256dh"], "auth": sub["auth"] });
    let endpoint = sub["endpoint"].as_str().unwrap().to_owned();
    let app = TestApp::enroll(s, "push-alice");

    // The key to subscribe with needs no signature.
    let r = push_call(&app, "", json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["application_server_key"], VAPID_PUBLIC);
    assert_eq!(r.json()["subscribed"], false);

    // Refusals: a scheme that is not https (nor http on loopback), keys that are not keys,
    // an unsigned subscription, a replayed one.
    for (bad_endpoint, bad_keys) in [
        ("ftp://push.example/x", keys.clone()),
        (
            "https://push.example/x",
            json!({ "p256dh": "AAAA", "auth": sub["auth"] }),
        ),
        (
            endpoint.as_str(),
            json!({ "p256dh": sub["p256dh"], "auth": "c2hvcnQ" }),
        ),
    ] {
        let r = subscribe(&app, bad_endpoint, &bad_keys);
        assert_eq!(r.status, 400, "{bad_endpoint}: {}", r.text());
        assert_eq!(r.json()["error"], "invalid_request", "{}", r.text());
    }
    let r = push_call(&app, "", json!({ "subscribe": "not.a.jws" }));
    assert_eq!(r.status, 400, "{}", r.text());

    let r = subscribe(&app, &endpoint, &keys);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["subscribed"], true);

    // A client asks for the person: the push names the request the app then opens.
    let client = ("desk", secret);
    let asked = start(
        s,
        client,
        &[
            ("scope", "openid"),
            ("login_hint", "push-alice"),
            ("binding_message", "Secret 42"),
        ],
    );
    assert_eq!(asked.status, 200, "{}", asked.text());
    let got = push.next();
    assert!(got.get("error").is_none(), "{got}");
    let list = waiting(&app);
    assert_eq!(list.len(), 1);
    assert_eq!(
        got["payload"],
        json!({ "kind": "ciba", "request": list[0]["id"] })
    );
    assert_eq!(got["path"], "/push/sub-1");
    assert_eq!(got["headers"]["urgency"], "high");
    assert_eq!(got["headers"]["content-encoding"], "aes128gcm");
    let ttl: i64 = got["headers"]["ttl"].as_str().unwrap().parse().unwrap();
    assert!(ttl > 0 && ttl <= 3600, "{ttl}");
    assert_eq!(got["k"], VAPID_PUBLIC);
    assert_eq!(got["vapid"]["sub"], "mailto:ops@example.com");
    // Nothing personal travels through the push service.
    let raw = got.to_string();
    assert!(
        !raw.contains("Secret 42") && !raw.contains("Call centre"),
        "{raw}"
    );

    // Withdrawn: the next request is not pushed there.
    let r = withdraw(&app, &endpoint);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["withdrawn"], true);

    // A push service that answers 410: the subscription is dropped.
    let gone = endpoint.replace("/sub-1", "/gone");
    let r = subscribe(&app, &gone, &keys);
    assert_eq!(r.status, 200, "{}", r.text());
    let asked = start(
        s,
        client,
        &[("scope", "openid"), ("login_hint", "push-alice")],
    );
    assert_eq!(asked.status, 200, "{}", asked.text());
    let got = push.next();
    assert_eq!(got["path"], "/push/gone", "{got}");
    assert!(got.get("error").is_none(), "{got}");
    // The drop follows the answer at once: after a moment, withdrawing finds nothing.
    std::thread::sleep(Duration::from_millis(1000));
    let r = withdraw(&app, &gone);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.json()["withdrawn"],
        false,
        "the gone subscription was dropped"
    );
}

/// The server flags of the push tests.
pub const SERVER_FLAGS: &[&str] = &[
    "--vapid-private-key",
    VAPID_PRIVATE,
    "--vapid-subject",
    "mailto:ops@example.com",
];

#[test]
fn a_ciba_request_is_pushed_encrypted_with_vapid_and_a_gone_subscription_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap().to_owned();
    let secret = secret_of(&create_client(&data, CLIENT_FLAGS));
    let s = TestServer::start(dir.path(), SERVER_FLAGS);
    push_scenario(&s, &secret);
}

#[test]
fn without_a_vapid_key_there_is_no_push_and_subscribing_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "push-none");
    let r = push_call(&app, "", json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["application_server_key"], Value::Null);
    let r = subscribe(
        &app,
        "https://push.example/x",
        &json!({ "p256dh": VAPID_PUBLIC, "auth": "BTBZMqHH6r4Tts7J_aSIgg" }),
    );
    assert_eq!(r.status, 400, "{}", r.text());
}

/// `scanid keys vapid` makes a key pair: the server runs with the private key it printed and
/// gives apps the public key it printed; two runs make two keys.
#[test]
fn a_vapid_key_made_by_the_cli_is_the_one_apps_are_given() {
    let made = scanid_tests::scanid_json(&["keys", "vapid"]);
    let private = made["vapid_private_key"].as_str().unwrap();
    let public = made["application_server_key"].as_str().unwrap();
    assert_eq!(made["setting"], "SCANID_VAPID_PRIVATE_KEY");
    assert_eq!(private.len(), 43, "{made}");
    assert!(public.starts_with('B') && public.len() == 87, "{made}");
    let again = scanid_tests::scanid_json(&["keys", "vapid"]);
    assert_ne!(again["vapid_private_key"], made["vapid_private_key"]);
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &["--vapid-private-key", private]);
    let app = TestApp::enroll(&s, "push-made");
    let r = push_call(&app, "", json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["application_server_key"], public);
}
