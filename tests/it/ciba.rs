//! OpenID CIBA (poll mode) against the real `scanid serve`: a client asks for a person by a
//! hint at the backchannel authentication endpoint, a raw app-protocol phone lists the
//! requests waiting for it, opens one and approves or denies it with the same signed approval
//! as a QR login, and the client polls the token endpoint. Every refusal is checked, and the
//! answers for an unknown hint are compared byte for byte with a known person's who does not
//! answer. The same scenario runs on DynamoDB in `aws`.

use base64::Engine;
use scanid_tests::{create_client, get, post_form, request, secret_of, Resp, TestApp, TestServer};
use serde_json::{json, Value};

pub const CIBA_GRANT: &str = "urn:openid:params:grant-type:ciba";

/// The client flags of the CIBA client the scenario uses (no redirect URI: it only asks by
/// the back channel).
pub const CLIENT_FLAGS: &[&str] = &[
    "--name",
    "Call centre",
    "--client-id",
    "desk",
    "--grant",
    "ciba",
];

/// `POST .../ext/ciba/auth` as `client` with `pairs`.
pub fn start(s: &TestServer, client: (&str, &str), pairs: &[(&str, &str)]) -> Resp {
    post_form(&s.oidc("ext/ciba/auth"), Some(client), pairs)
}

/// The client's poll of the token endpoint.
pub fn poll(s: &TestServer, client: (&str, &str), auth_req_id: &str) -> Resp {
    post_form(
        &s.oidc("token"),
        Some(client),
        &[("grant_type", CIBA_GRANT), ("auth_req_id", auth_req_id)],
    )
}

fn error_of(r: &Resp) -> String {
    assert!(
        r.status == 400 || r.status == 401,
        "{}: {}",
        r.status,
        r.text()
    );
    r.json()["error"].as_str().unwrap_or_default().to_owned()
}

fn claims(jwt: &str) -> Value {
    let payload = jwt.split('.').nth(1).unwrap();
    serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(payload)
            .unwrap(),
    )
    .unwrap()
}

/// A signed app request of type `typ` to `.../backchannel-requests{suffix}`, the JWS in
/// `field`, with `extra` claims.
pub fn app_call(app: &TestApp, suffix: &str, (typ, field): (&str, &str), extra: Value) -> Resp {
    let mut claims = app.request_claims();
    for (k, v) in extra.as_object().unwrap() {
        claims[k] = v.clone();
    }
    let jws = TestApp::sign(&app.key, typ, &claims);
    request(
        "POST",
        &format!(
            "{}/app/identities/{}/backchannel-requests{suffix}",
            app.issuer, app.sub
        ),
        &[("Content-Type", "application/json")],
        json!({ field: jws }).to_string().as_bytes(),
    )
}

/// The requests waiting for `app`'s identity.
pub fn waiting(app: &TestApp) -> Vec<Value> {
    let r = app_call(app, "", ("backchannel+jwt", "requests"), json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["requests"].as_array().unwrap().clone()
}

/// Opens request `id` and decides it as the phone does: the same `approval+jwt` as a QR
/// login, naming the session and challenge the opening gave.
pub fn decide(app: &TestApp, id: &str, decision: &str) -> (Value, Resp) {
    let opened = app_call(
        app,
        "/open",
        ("backchannel-open+jwt", "open"),
        json!({ "request": id }),
    );
    assert_eq!(opened.status, 200, "{}", opened.text());
    let o = opened.json();
    let payload = format!(
        "https://x/?session={}&challenge={}",
        o["session"].as_str().unwrap(),
        o["challenge"].as_str().unwrap()
    );
    let jws = app.approval(&payload, decision, None);
    let r = app.post_decision(o["session"].as_str().unwrap(), &jws);
    (o, r)
}

/// The whole poll mode with a raw phone: approve gives tokens for the person, once; deny
/// gives `access_denied`; polling too soon `slow_down`. Used on SQLite here and on DynamoDB.
pub fn approve_and_deny(s: &TestServer, secret: &str) {
    let client = ("desk", secret);
    let alice = TestApp::enroll(s, "ciba-alice");
    let r = start(
        s,
        client,
        &[
            ("scope", "openid profile"),
            ("login_hint", "ciba-alice"),
            ("binding_message", "Call 4711: change address"),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let started = r.json();
    let id = started["auth_req_id"].as_str().unwrap().to_owned();
    assert_eq!(started["interval"], 5);
    assert!(started["expires_in"].as_i64().unwrap() > 60, "{started}");
    assert!(started.get("binding_message").is_none(), "echoed nowhere");
    assert_eq!(error_of(&poll(s, client, &id)), "authorization_pending");
    assert_eq!(error_of(&poll(s, client, &id)), "slow_down");

    let list = waiting(&alice);
    assert_eq!(list.len(), 1, "{list:?}");
    let w = &list[0];
    assert_eq!(w["client"]["name"], "Call centre");
    assert_eq!(w["binding_message"], "Call 4711: change address");
    assert_eq!(w["scopes"], json!(["openid", "profile"]));
    assert_eq!(w["from"]["ip"], "127.0.0.1");
    // Another identity neither sees nor opens it.
    let bob = TestApp::enroll(s, "ciba-bob");
    assert!(waiting(&bob).is_empty());
    let stranger = app_call(
        &bob,
        "/open",
        ("backchannel-open+jwt", "open"),
        json!({ "request": w["id"] }),
    );
    assert_eq!(stranger.status, 404, "{}", stranger.text());

    let (opened, decided) = decide(&alice, w["id"].as_str().unwrap(), "approve");
    assert_eq!(opened["binding_message"], "Call 4711: change address");
    assert_eq!(opened["backchannel"], true);
    assert_eq!(decided.status, 200, "{}", decided.text());
    assert!(waiting(&alice).is_empty(), "decided: no longer waiting");

    let tokens = poll(s, client, &id);
    assert_eq!(tokens.status, 200, "{}", tokens.text());
    let t = tokens.json();
    let idt = claims(t["id_token"].as_str().unwrap());
    assert_eq!(idt["sub"], alice.sub.as_str());
    assert_eq!(idt["aud"], "desk");
    assert!(idt.get("nonce").is_none());
    assert_eq!(
        claims(t["access_token"].as_str().unwrap())["sub"],
        alice.sub.as_str()
    );
    assert!(t["refresh_token"].is_string());
    // Single use.
    assert_eq!(error_of(&poll(s, client, &id)), "invalid_grant");

    // Denied, by the id_token_hint of the tokens just issued.
    let r = start(
        s,
        client,
        &[
            ("scope", "openid"),
            ("id_token_hint", t["id_token"].as_str().unwrap()),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let id2 = r.json()["auth_req_id"].as_str().unwrap().to_owned();
    let list = waiting(&alice);
    assert_eq!(list.len(), 1);
    let (_, decided) = decide(&alice, list[0]["id"].as_str().unwrap(), "deny");
    assert_eq!(decided.status, 200, "{}", decided.text());
    assert_eq!(error_of(&poll(s, client, &id2)), "access_denied");
}

/// An unknown hint gets, at every step, the very answer a known person who never answers
/// gets: 200 with the same fields at the start, `authorization_pending` while it lives,
/// `expired_token` after.
pub fn unknown_hint_is_no_oracle(s: &TestServer, secret: &str) {
    let client = ("desk", secret);
    let _carol = TestApp::enroll(s, "ciba-carol");
    let ask = |hint: &str| {
        let r = start(
            s,
            client,
            &[
                ("scope", "openid"),
                ("login_hint", hint),
                ("requested_expiry", "2"),
            ],
        );
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()
    };
    let known = ask("ciba-carol");
    let unknown = ask("ciba-nobody-at-all");
    let shape = |v: &Value| {
        let mut keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        (keys, v["expires_in"].clone(), v["interval"].clone())
    };
    assert_eq!(shape(&known), shape(&unknown));
    assert_eq!(known["expires_in"], 2);
    let id = |v: &Value| v["auth_req_id"].as_str().unwrap().to_owned();
    let (k, u) = (poll(s, client, &id(&known)), poll(s, client, &id(&unknown)));
    assert_eq!((k.status, k.body.clone()), (u.status, u.body.clone()));
    assert_eq!(error_of(&k), "authorization_pending");
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let (k, u) = (poll(s, client, &id(&known)), poll(s, client, &id(&unknown)));
    assert_eq!((k.status, k.body.clone()), (u.status, u.body.clone()));
    assert_eq!(error_of(&k), "expired_token");
}

/// The per-person limit (3 an hour in these servers): the fourth request for a known person
/// and the fourth for an unknown hint are refused with the same answer; another person is
/// still reachable.
pub fn flood_is_refused(s: &TestServer, secret: &str) {
    let client = ("desk", secret);
    let _dave = TestApp::enroll(s, "ciba-dave");
    let _erin = TestApp::enroll(s, "ciba-erin");
    let ask = |hint: &str| start(s, client, &[("scope", "openid"), ("login_hint", hint)]);
    for _ in 0..3 {
        assert_eq!(ask("ciba-dave").status, 200);
        assert_eq!(ask("ciba-nobody-flood").status, 200);
    }
    let (k, u) = (ask("ciba-dave"), ask("ciba-nobody-flood"));
    assert_eq!(error_of(&k), "access_denied", "{}", k.text());
    assert_eq!((k.status, k.body.clone()), (u.status, u.body.clone()));
    assert_eq!(
        ask("ciba-erin").status,
        200,
        "another person is still reachable"
    );
}

/// The server flags these tests run with.
pub const SERVER_FLAGS: &[&str] = &["--ciba-requests-per-person-per-hour", "3"];

fn server() -> (tempfile::TempDir, TestServer, String) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap().to_owned();
    let secret = secret_of(&create_client(&data, CLIENT_FLAGS));
    let s = TestServer::start(dir.path(), SERVER_FLAGS);
    (dir, s, secret)
}

#[test]
fn poll_mode_with_a_raw_phone_approves_and_denies() {
    let (_d, s, secret) = server();
    approve_and_deny(&s, &secret);
}

#[test]
fn an_unknown_hint_gets_the_answers_of_a_person_who_does_not_answer() {
    let (_d, s, secret) = server();
    unknown_hint_is_no_oracle(&s, &secret);
}

#[test]
fn a_flood_for_one_person_is_refused() {
    let (_d, s, secret) = server();
    flood_is_refused(&s, &secret);
}

#[test]
fn discovery_and_every_refusal_of_the_endpoint() {
    let (dir, s, secret) = server();
    let d = get(&format!("{}/.well-known/openid-configuration", s.issuer)).json();
    assert_eq!(
        d["backchannel_authentication_endpoint"],
        s.oidc("ext/ciba/auth")
    );
    assert_eq!(
        d["backchannel_token_delivery_modes_supported"],
        json!(["poll", "ping"])
    );
    assert_eq!(d["backchannel_user_code_parameter_supported"], false);
    assert!(d
        .get("backchannel_authentication_request_signing_alg_values_supported")
        .is_none());
    assert!(d["grant_types_supported"]
        .as_array()
        .unwrap()
        .contains(&json!(CIBA_GRANT)));
    let client = ("desk", secret.as_str());
    let _f = TestApp::enroll(&s, "ciba-frank");
    let refused = |pairs: &[(&str, &str)]| error_of(&start(&s, client, pairs));
    assert_eq!(refused(&[("login_hint", "ciba-frank")]), "invalid_scope");
    assert_eq!(refused(&[("scope", "openid")]), "invalid_request");
    assert_eq!(
        refused(&[("scope", "openid"), ("login_hint_token", "x")]),
        "invalid_request"
    );
    assert_eq!(
        refused(&[("scope", "openid"), ("id_token_hint", "not.a.token")]),
        "invalid_request"
    );
    assert_eq!(
        refused(&[
            ("scope", "openid"),
            ("login_hint", "ciba-frank"),
            ("binding_message", "two\nlines")
        ]),
        "invalid_binding_message"
    );
    assert_eq!(
        refused(&[
            ("scope", "openid"),
            ("login_hint", "ciba-frank"),
            ("requested_expiry", "-1")
        ]),
        "invalid_request"
    );
    // A wrong secret, and a client the operator did not allow CIBA.
    assert_eq!(
        error_of(&start(
            &s,
            ("desk", "wrong"),
            &[("scope", "openid"), ("login_hint", "x")]
        )),
        "invalid_client"
    );
    let other = secret_of(&create_client(
        dir.path().to_str().unwrap(),
        &[
            "--name",
            "Shop",
            "--client-id",
            "shop",
            "--redirect-uri",
            "https://shop.example/cb",
        ],
    ));
    assert_eq!(
        error_of(&start(
            &s,
            ("shop", &other),
            &[("scope", "openid"), ("login_hint", "x")]
        )),
        "unauthorized_client"
    );
    assert_eq!(
        error_of(&poll(&s, ("shop", &other), "anything")),
        "unauthorized_client"
    );
    // An auth_req_id is no device code, and the reverse; another client's is nobody's.
    let r = start(
        &s,
        client,
        &[("scope", "openid"), ("login_hint", "ciba-frank")],
    );
    let id = r.json()["auth_req_id"].as_str().unwrap().to_owned();
    let as_device = post_form(
        &s.oidc("token"),
        Some(client),
        &[
            ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
            ("device_code", &id),
        ],
    );
    assert_eq!(error_of(&as_device), "unauthorized_client");
    assert_eq!(error_of(&poll(&s, client, "unknown")), "invalid_grant");
}

/// The operator allows CIBA per client through Keycloak's admin API too
/// (`oidc.ciba.grant.enabled`), and takes it back.
#[test]
fn the_admin_api_allows_ciba_with_keycloaks_attribute() {
    let (dir, s, _) = server();
    let robot = secret_of(&create_client(
        dir.path().to_str().unwrap(),
        &[
            "--name",
            "Robot",
            "--client-id",
            "robot",
            "--client-credentials",
            "--admin-role",
            "manage-clients",
        ],
    ));
    let t = post_form(
        &s.oidc("token"),
        Some(("robot", &robot)),
        &[("grant_type", "client_credentials")],
    );
    let bearer = format!("Bearer {}", t.json()["access_token"].as_str().unwrap());
    let clients = s.url("/admin/realms/scanid/clients");
    let h = [
        ("Authorization", bearer.as_str()),
        ("Content-Type", "application/json"),
    ];
    let secret = "a-secret-the-operator-chose-0123456789";
    let rep = |value: &str| {
        json!({"clientId": "till", "name": "Till", "standardFlowEnabled": false,
            "secret": secret, "attributes": {"oidc.ciba.grant.enabled": value}})
        .to_string()
    };
    let bad = request("POST", &clients, &h, rep("yes").as_bytes());
    assert_eq!(bad.status, 400, "{}", bad.text());
    let created = request("POST", &clients, &h, rep("true").as_bytes());
    assert_eq!(created.status, 201, "{}", created.text());
    let shown = request("GET", &format!("{clients}/till"), &h[..1], b"").json();
    assert_eq!(
        shown["attributes"]["oidc.ciba.grant.enabled"], "true",
        "{shown}"
    );
    let ask = || {
        start(
            &s,
            ("till", secret),
            &[("scope", "openid"), ("login_hint", "someone")],
        )
    };
    assert_eq!(ask().status, 200, "{}", ask().text());
    assert_eq!(
        shown["attributes"]["ciba.backchannel.token.delivery.mode"],
        "poll"
    );
    // Ping mode by Keycloak's attribute: the endpoint is checked as at the CLI.
    let mut ping = serde_json::from_str::<Value>(&rep("true")).unwrap();
    ping["attributes"]["ciba.backchannel.client.notification.endpoint"] =
        json!("http://10.0.0.1/notify");
    let bad = request(
        "PUT",
        &format!("{clients}/till"),
        &h,
        ping.to_string().as_bytes(),
    );
    assert_eq!(bad.status, 400, "{}", bad.text());
    ping["attributes"]["ciba.backchannel.client.notification.endpoint"] =
        json!("https://till.example/notify");
    let set = request(
        "PUT",
        &format!("{clients}/till"),
        &h,
        ping.to_string().as_bytes(),
    );
    assert!(set.status == 204 || set.status == 200, "{}", set.text());
    let shown = request("GET", &format!("{clients}/till"), &h[..1], b"").json();
    assert_eq!(
        shown["attributes"]["ciba.backchannel.token.delivery.mode"],
        "ping"
    );
    assert_eq!(
        error_of(&ask()),
        "invalid_request",
        "a ping client sends its token"
    );
    // Without CIBA it needs another grant (a service account), and no notification endpoint.
    let mut without = serde_json::from_str::<Value>(&rep("false")).unwrap();
    without["serviceAccountsEnabled"] = json!(true);
    let kept = request(
        "PUT",
        &format!("{clients}/till"),
        &h,
        without.to_string().as_bytes(),
    );
    assert!(
        kept.text().contains("only a CIBA client"),
        "{}",
        kept.text()
    );
    without["attributes"]["ciba.backchannel.client.notification.endpoint"] = json!("");
    let off = request(
        "PUT",
        &format!("{clients}/till"),
        &h,
        without.to_string().as_bytes(),
    );
    assert!(off.status == 204 || off.status == 200, "{}", off.text());
    assert_eq!(error_of(&ask()), "unauthorized_client");
}

/// Ping mode (CIBA Core §10.2): a client registered with a notification endpoint must send a
/// `client_notification_token`; once the person decides, scanid POSTs `{"auth_req_id"}` with
/// that token as a bearer to the endpoint (a local receiver here: loopback is allowed only to
/// a client registered under a loopback --public-url), and the client then polls the tokens.
#[test]
fn ping_mode_tells_the_notification_endpoint() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap().to_owned();
    let (url, received) = scanid_tests::post_receiver(204);
    let mut args = vec!["client", "create", "--data-dir", &data];
    args.extend_from_slice(&["--name", "Till", "--client-id", "till", "--grant", "ciba"]);
    args.extend_from_slice(&["--ciba-notification-endpoint", &url]);
    let refused = scanid_tests::scanid(&args);
    assert!(
        !refused.status.success(),
        "a loopback endpoint outside local development"
    );
    assert!(String::from_utf8_lossy(&refused.stderr).contains("ciba_notification_endpoint"));
    args.extend_from_slice(&["--public-url", "http://127.0.0.1"]);
    let secret = secret_of(&scanid_tests::scanid_json(&args));
    let s = TestServer::start(dir.path(), SERVER_FLAGS);
    let d = get(&format!("{}/.well-known/openid-configuration", s.issuer)).json();
    assert_eq!(
        d["backchannel_token_delivery_modes_supported"],
        json!(["poll", "ping"])
    );
    let client = ("till", secret.as_str());
    let app = TestApp::enroll(&s, "ciba-pinged");
    let ask = |token: Option<&str>| {
        let mut pairs = vec![("scope", "openid"), ("login_hint", "ciba-pinged")];
        if let Some(t) = token {
            pairs.push(("client_notification_token", t));
        }
        start(&s, client, &pairs)
    };
    assert_eq!(error_of(&ask(None)), "invalid_request");
    assert_eq!(error_of(&ask(Some("bad token"))), "invalid_request");
    for (decision, token) in [("approve", "tok-approve.1"), ("deny", "tok-deny.2")] {
        let r = ask(Some(token));
        assert_eq!(r.status, 200, "{}", r.text());
        let id = r.json()["auth_req_id"].as_str().unwrap().to_owned();
        assert!(
            received
                .recv_timeout(std::time::Duration::from_millis(300))
                .is_err(),
            "nothing before the person decides"
        );
        let list = waiting(&app);
        let (_, decided) = decide(&app, list[0]["id"].as_str().unwrap(), decision);
        assert_eq!(decided.status, 200, "{}", decided.text());
        let got = received
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("the ping");
        let lower = got.to_ascii_lowercase();
        assert!(got.starts_with("POST /bcl "), "{got}");
        assert!(
            lower.contains(&format!(
                "authorization: bearer {}",
                token.to_ascii_lowercase()
            )),
            "{got}"
        );
        assert!(lower.contains("content-type: application/json"), "{got}");
        let body: Value = serde_json::from_str(got.split_once("\r\n\r\n").unwrap().1).unwrap();
        assert_eq!(body, json!({ "auth_req_id": id }));
        let polled = poll(&s, client, &id);
        if decision == "approve" {
            assert_eq!(polled.status, 200, "{}", polled.text());
        } else {
            assert_eq!(error_of(&polled), "access_denied");
        }
    }
}

/// requests-oauth2client (PyPI) runs CIBA poll mode (tests/py/requests_oauth2client_ciba.py):
/// its backchannel_authentication_request reaches the raw phone as a Web Push (received and
/// decrypted by the test's push service, tests/py/push_service.py, with http-ece), the phone
/// opens the request the push names and approves while the library's ciba() polls; it
/// verifies the ID token (signature by the JWKS, aud, sub) itself.
#[test]
fn requests_oauth2client_runs_poll_mode() {
    use crate::push::{subscribe, PushService};
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap().to_owned();
    let secret = secret_of(&create_client(&data, CLIENT_FLAGS));
    let flags: Vec<&str> = SERVER_FLAGS
        .iter()
        .chain(crate::push::SERVER_FLAGS)
        .copied()
        .collect();
    let s = TestServer::start(dir.path(), &flags);
    let app = TestApp::enroll(&s, "ciba-py");
    let push = PushService::start();
    let sub = &push.subscription;
    let keys = json!({ "p256dh": sub["p256dh"], "auth": sub["auth"] });
    let r = subscribe(&app, sub["endpoint"].as_str().unwrap(), &keys);
    assert_eq!(r.status, 200, "{}", r.text());
    let mut child = std::process::Command::new(scanid_tests::python())
        .arg(scanid_tests::repo_root().join("tests/py/requests_oauth2client_ciba.py"))
        .args([&s.issuer, "desk", &secret, "ciba-py", &app.sub])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    if line.trim() != r#"{"started": true}"# {
        let done = child.wait_with_output().unwrap();
        panic!("{line}\n{}", String::from_utf8_lossy(&done.stderr));
    }
    // The push names the request, and nothing else: the phone opens the one it names.
    let got = push.next();
    assert!(got.get("error").is_none(), "{got}");
    assert_eq!(got["payload"]["kind"], "ciba", "{got}");
    assert!(!got.to_string().contains("Py 42"), "{got}");
    let list = waiting(&app);
    assert_eq!(list[0]["binding_message"], "Py 42");
    assert_eq!(got["payload"]["request"], list[0]["id"]);
    let (_, decided) = decide(&app, got["payload"]["request"].as_str().unwrap(), "approve");
    assert_eq!(decided.status, 200, "{}", decided.text());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    let done = child.wait_with_output().unwrap();
    assert!(
        done.status.success(),
        "{rest}\n{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let result: Value = serde_json::from_str(rest.trim()).unwrap();
    assert_eq!(result["result"]["sub"], app.sub.as_str());
}
