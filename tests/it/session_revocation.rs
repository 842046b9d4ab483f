//! Ending sessions after the fact, through `scanid serve` with a relying party's view: "this
//! wasn't me" on one login and a device key replaced with "end every session" revoke the
//! tokens (refresh refused, introspection inactive, userinfo 401) and send the relying party a
//! valid back-channel logout token; the same on DynamoDB (`aws` calls [`wasnt_me_flow`]); the
//! reference app's `rotate-key --end-sessions`, `activity` and `report`; the operator's
//! `identity replace-key`.

use std::collections::HashMap;
use std::sync::mpsc;
use std::time::Duration;

use scanid_tests::{
    auth_url, code_of, consent_url, create_client, introspect, login, open, post_form,
    pyjwt_verify, redeem, request, scanid, secret_of, userinfo, Browser, Resp, TestApp, TestServer,
    CB,
};
use serde_json::{json, Value};

/// Shop, receiving back-channel logout at a loopback receiver: its secret and what the
/// receiver gets.
pub fn shop_with_receiver(dir: &str, extra: &[&str]) -> (String, mpsc::Receiver<String>) {
    let (bcl, received) = scanid_tests::post_receiver(200);
    let mut args = vec![
        "--name",
        "Shop",
        "--client-id",
        "shop",
        "--redirect-uri",
        CB,
        "--backchannel-logout-uri",
        &bcl,
        "--public-url",
        "http://127.0.0.1",
    ];
    args.extend_from_slice(extra);
    (secret_of(&create_client(dir, &args)), received)
}

/// A login to Shop in a fresh browser with `scope`: the tokens.
fn shop_login(s: &TestServer, app: &TestApp, secret: &str, scope: &str) -> Value {
    let mut b = Browser::new();
    let r = login(
        &mut b,
        s,
        app,
        &auth_url(
            s,
            &[
                ("client_id", "shop"),
                ("redirect_uri", CB),
                ("response_type", "code"),
                ("scope", scope),
                ("state", "st"),
                ("nonce", "n"),
            ],
        ),
    );
    redeem(s, ("shop", secret), &code_of(&r))
}

fn app_post(app: &TestApp, path: &str, body: &Value) -> Resp {
    request(
        "POST",
        &format!("{}/app/identities/{}{path}", app.issuer, app.sub),
        &[("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    )
}

/// The identity's recent logins, as its app reads them.
fn activity(app: &TestApp) -> Vec<Value> {
    let jws = TestApp::sign(&app.key, "activity+jwt", &app.request_claims());
    let r = app_post(app, "/activity", &json!({ "activity": jws }));
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["logins"].as_array().unwrap().clone()
}

/// A signed "this wasn't me" on login `id`.
fn report_jws(app: &TestApp, id: &str) -> String {
    let mut claims = app.request_claims();
    claims["login"] = json!(id);
    TestApp::sign(&app.key, "report+jwt", &claims)
}

fn post_report(app: &TestApp, id: &str, jws: &str) -> Resp {
    app_post(
        app,
        &format!("/logins/{id}/report"),
        &json!({ "report": jws }),
    )
}

fn refresh(s: &TestServer, secret: &str, t: &Value) -> Resp {
    post_form(
        &s.oidc("token"),
        Some(("shop", secret)),
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", t["refresh_token"].as_str().unwrap()),
        ],
    )
}

/// What the relying party sees of dead tokens: refresh refused, introspection inactive,
/// userinfo 401.
fn dead(s: &TestServer, secret: &str, t: &Value) {
    let r = refresh(s, secret, t);
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_grant");
    let at = t["access_token"].as_str().unwrap();
    assert_eq!(
        introspect(s, ("shop", secret), at),
        json!({ "active": false })
    );
    assert_eq!(userinfo(s, at).status, 401);
}

fn live(s: &TestServer, secret: &str, t: &Value) {
    let at = t["access_token"].as_str().unwrap();
    assert_eq!(introspect(s, ("shop", secret), at)["active"], true);
    assert_eq!(userinfo(s, at).status, 200);
}

fn claims_of(token: &str) -> Value {
    scanid_tests::jwt_claims(token)
}

/// The back-channel logout tokens received within `wait`, each checked as a relying party
/// library would: PyJWT with the JWKS alone, `typ`, issuer, audience, event.
fn logout_tokens(
    s: &TestServer,
    received: &mpsc::Receiver<String>,
    n: usize,
    wait: Duration,
) -> Vec<Value> {
    let mut out = Vec::new();
    while out.len() < n {
        let raw = received
            .recv_timeout(wait)
            .unwrap_or_else(|_| panic!("only {} of {n} back-channel logouts", out.len()));
        let (head, body) = raw.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("POST /bcl "), "{head}");
        let form: HashMap<String, String> = url::form_urlencoded::parse(body.as_bytes())
            .into_owned()
            .collect();
        let token = &form["logout_token"];
        let verified = pyjwt_verify(&s.oidc("certs"), &s.issuer, token);
        assert!(
            verified.status.success(),
            "{}",
            String::from_utf8_lossy(&verified.stderr)
        );
        assert_eq!(scanid_tests::jwt_header(token)["typ"], "logout+jwt");
        let c = claims_of(token);
        assert_eq!(c["iss"], s.issuer);
        assert_eq!(c["aud"], "shop");
        assert_eq!(
            c["events"],
            json!({ "http://schemas.openid.net/event/backchannel-logout": {} })
        );
        out.push(c);
    }
    out
}

/// "This wasn't me" end to end on a running server whose Shop receives its back-channel
/// logouts at `received` (none on DynamoDB, which refuses loopback receivers; its queue and
/// sender are tested in `aws`): the reported login's tokens die (its offline one too), the other login's
/// live on, Shop is told about that session only; replays, other identities and unknown ids
/// are refused. Used on the embedded store here and on DynamoDB in `aws`.
pub fn wasnt_me_flow(s: &TestServer, secret: &str, received: Option<&mpsc::Receiver<String>>) {
    let app = TestApp::enroll(s, "victim");
    let mine = shop_login(s, &app, secret, "openid profile");
    let theirs = shop_login(s, &app, secret, "openid offline_access");
    let their_sid = claims_of(theirs["id_token"].as_str().unwrap())["sid"].clone();
    live(s, secret, &theirs);

    let logins = activity(&app);
    assert_eq!(logins.len(), 2, "{logins:?}");
    let entry = &logins[0];
    assert_eq!(entry["method"], "qr");
    assert_eq!(entry["reported"], false);
    let id = entry["id"].as_str().unwrap().to_owned();
    assert!(!id.is_empty());

    // A JWS naming another entry than the path, or unknown ids: refused, nothing ends.
    let other = report_jws(&app, logins[1]["id"].as_str().unwrap());
    assert_eq!(post_report(&app, &id, &other).status, 400);
    let r = post_report(&app, "nope", &report_jws(&app, "nope"));
    assert_eq!(r.status, 404, "{}", r.text());
    live(s, secret, &theirs);

    let jws = report_jws(&app, &id);
    let r = post_report(&app, &id, &jws);
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    assert_eq!(body["status"], "reported");
    assert_eq!(body["session_ended"], true);
    assert_eq!(body["login"]["id"], id.as_str());
    assert_eq!(body["login"]["reported"], true);

    dead(s, secret, &theirs);
    live(s, secret, &mine);
    let r = refresh(s, secret, &mine);
    assert_eq!(r.status, 200, "{}", r.text());
    if let Some(received) = received {
        let told = logout_tokens(s, received, 1, Duration::from_secs(15));
        assert_eq!(told[0]["sid"], their_sid);
        assert_eq!(told[0]["sub"], app.sub.as_str());
    }

    // The same request again: a replay (400). A new one: 200, nothing more to end.
    assert_eq!(post_report(&app, &id, &jws).status, 400);
    let again = post_report(&app, &id, &report_jws(&app, &id));
    assert_eq!(again.status, 200, "{}", again.text());
    assert_eq!(
        again.json()["login"]["reported_at"],
        body["login"]["reported_at"]
    );
    if let Some(received) = received {
        assert!(received.recv_timeout(Duration::from_millis(500)).is_err());
    }
    let logins = activity(&app);
    assert_eq!(logins[0]["reported"], true);
    assert_eq!(logins[1]["reported"], false);

    // Another identity's login: 404, for its own key and path.
    let other_app = TestApp::enroll(s, "bystander");
    let r = post_report(&other_app, &id, &report_jws(&other_app, &id));
    assert_eq!(r.status, 404, "{}", r.text());
}

#[test]
fn this_wasnt_me_revokes_the_login_for_the_relying_party() {
    let dir = tempfile::tempdir().unwrap();
    let (secret, received) = shop_with_receiver(dir.path().to_str().unwrap(), &[]);
    let s = TestServer::start_with_audit(dir.path(), &[]);
    wasnt_me_flow(&s, &secret, Some(&received));
    let events = s.audit_events_until(|e| e.iter().any(|v| v["event"] == "login.reported"));
    let reported: Vec<&Value> = events
        .iter()
        .filter(|v| v["event"] == "login.reported")
        .collect();
    assert_eq!(reported.len(), 2, "{events:?}");
    assert_eq!(reported[0]["outcome"], "session_ended");
    assert_eq!(reported[0]["client_id"], "shop");
}

/// A key rotation signed by `app`'s key to a new key, with `extra` claims: the answer and
/// the app with its new key.
fn rotate(app: &TestApp, extra: Value) -> (Resp, TestApp) {
    let (new_key, new_pk) = TestApp::key();
    let proof = TestApp::sign(&new_key, "key-proof+jwt", &app.request_claims());
    let mut claims = app.request_claims();
    claims["public_key"] = json!(new_pk);
    claims["proof"] = json!(proof);
    if let (Some(c), Value::Object(e)) = (claims.as_object_mut(), extra) {
        c.extend(e);
    }
    let jws = TestApp::sign(&app.key, "key-rotation+jwt", &claims);
    let r = app_post(app, "/key", &json!({ "rotation": jws }));
    let next = TestApp {
        key: new_key,
        public_key: new_pk,
        sub: app.sub.clone(),
        service_id: app.service_id.clone(),
        issuer: app.issuer.clone(),
    };
    (r, next)
}

#[test]
fn a_key_replaced_with_end_sessions_signs_out_everywhere_and_an_sso_login_shows_in_activity() {
    let dir = tempfile::tempdir().unwrap();
    let (secret, received) = shop_with_receiver(dir.path().to_str().unwrap(), &[]);
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "rotator");

    // A login, then a second one in the same browser through its SSO session (no QR step).
    let mut b = Browser::new();
    let url = auth_url(
        &s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("scope", "openid"),
            ("state", "st"),
            ("nonce", "n"),
        ],
    );
    let first = redeem(
        &s,
        ("shop", &secret),
        &code_of(&login(&mut b, &s, &app, &url)),
    );
    let again = b.get(&url);
    assert_eq!(again.status, 302, "{}", again.text());
    let second = redeem(&s, ("shop", &secret), &code_of(&again));
    let offline = shop_login(&s, &app, &secret, "openid offline_access");
    let logins = activity(&app);
    assert_eq!(logins.len(), 3, "{logins:?}");
    assert_eq!(logins[0]["method"], "qr");
    assert_eq!(logins[1]["method"], "sso");
    assert_eq!(logins[2]["method"], "qr");

    // Without end_sessions: all live on.
    let (r, app) = rotate(&app, json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    for t in [&first, &second, &offline] {
        live(&s, &secret, t);
    }
    // With it: every session and token ends, each session's logout reaches Shop.
    let (r, app) = rotate(&app, json!({ "end_sessions": true }));
    assert_eq!(r.status, 200, "{}", r.text());
    for t in [&first, &second, &offline] {
        dead(&s, &secret, t);
    }
    let told = logout_tokens(&s, &received, 2, Duration::from_secs(15));
    let mut sids: Vec<String> = told.iter().map(|c| c["sid"].to_string()).collect();
    sids.sort();
    let mut expected: Vec<String> = [&first, &offline]
        .iter()
        .map(|t| claims_of(t["id_token"].as_str().unwrap())["sid"].to_string())
        .collect();
    expected.sort();
    assert_eq!(sids, expected);
    // The browser's session is gone: the next login asks for the QR again, and its tokens
    // (approved with the new key) live.
    let page = b.get(&url);
    assert_eq!(page.status, 200, "the QR page again");
    let fresh = shop_login(&s, &app, &secret, "openid");
    live(&s, &secret, &fresh);
}

/// Runs the reference app: its JSON answer (panics unless it succeeded).
fn app_cli(args: &[&str]) -> Value {
    let out = scanid(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_reference_app_reports_a_login_and_rotates_with_end_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let (secret, received) = shop_with_receiver(dir.path().to_str().unwrap(), &[]);
    let s = TestServer::start(dir.path(), &[]);
    let key = dir.path().join("phone.key");
    let key = key.to_str().unwrap();
    let enrolled = app_cli(&[
        "app",
        "enroll",
        "--key-file",
        key,
        "--name",
        "clia",
        "--display-name",
        "Cli A",
        "--country",
        "SE",
        "--server",
        &s.base,
    ]);
    let sub = enrolled["sub"].as_str().unwrap();
    // Logins approved by the reference app.
    let cli_login = || {
        let mut b = Browser::new();
        let url = auth_url(
            &s,
            &[
                ("client_id", "shop"),
                ("redirect_uri", CB),
                ("response_type", "code"),
                ("scope", "openid"),
                ("state", "st"),
                ("nonce", "n"),
            ],
        );
        let (_, payload) = scanid_tests::open(&mut b, &url);
        let args = [
            "app",
            "approve",
            "--key-file",
            key,
            "--server",
            &s.base,
            &payload,
        ];
        let out = scanid_tests::approve_picking(&args, &mut b, &payload);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let r = login_after_approval(&mut b, &s, &payload);
        redeem(&s, ("shop", &secret), &code_of(&r))
    };
    let a = cli_login();
    let b = cli_login();
    let listed = app_cli(&["app", "activity", "--key-file", key, "--server", &s.base]);
    let logins = listed["logins"].as_array().unwrap();
    assert_eq!(logins.len(), 2, "{listed}");
    let id = logins[0]["id"].as_str().unwrap();
    let reported = app_cli(&["app", "report", "--key-file", key, "--server", &s.base, id]);
    assert_eq!(reported["status"], "reported", "{reported}");
    dead(&s, &secret, &b);
    live(&s, &secret, &a);
    let told = logout_tokens(&s, &received, 1, Duration::from_secs(15));
    assert_eq!(told[0]["sub"], sub);
    // An unknown id: the app says so and fails.
    let out = scanid(&[
        "app",
        "report",
        "--key-file",
        key,
        "--server",
        &s.base,
        "nope",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("404"));

    let rotated = app_cli(&[
        "app",
        "rotate-key",
        "--end-sessions",
        "--key-file",
        key,
        "--server",
        &s.base,
    ]);
    assert_eq!(rotated["sessions_ended"], true, "{rotated}");
    dead(&s, &secret, &a);
    logout_tokens(&s, &received, 1, Duration::from_secs(15));
    // The new key in the file signs.
    app_cli(&["app", "activity", "--key-file", key, "--server", &s.base]);
}

/// The consent step after the phone approved `payload`: the redirect to Shop.
fn login_after_approval(b: &mut Browser, s: &TestServer, payload: &str) -> Resp {
    let page = b.get(&scanid_tests::consent_url(s, payload));
    let html = page.text();
    let Some(csrf) = scanid_tests::attr(&html, "name=\"csrf\"", "value") else {
        return page;
    };
    let session = scanid_tests::params_of(payload)["session"].clone();
    b.post_form(
        &format!("{}/login-actions/consent", s.issuer),
        &[("session", &session), ("csrf", &csrf), ("consent", "allow")],
    )
}

#[test]
fn the_operator_replaces_a_lost_key_and_everything_ends() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let (secret, received) = shop_with_receiver(data, &[]);
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "lostphone");
    let t = shop_login(&s, &app, &secret, "openid offline_access");
    let (_, new_pk) = TestApp::key();
    let out = scanid(&[
        "identity",
        "replace-key",
        "lostphone",
        "--public-key",
        &new_pk,
        "--data-dir",
        data,
        // The logout tokens it signs name the server's issuer.
        "--public-url",
        &s.base,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sessions_ended"], 1, "{v}");
    assert_eq!(v["public_key"], new_pk.as_str());
    dead(&s, &secret, &t);
    logout_tokens(&s, &received, 1, Duration::from_secs(15));
    // The lost phone's key signs nothing any more.
    let jws = TestApp::sign(&app.key, "activity+jwt", &app.request_claims());
    assert_eq!(
        app_post(&app, "/activity", &json!({ "activity": jws })).status,
        400
    );
    // A malformed key: a usage error, nothing changes.
    let out = scanid(&[
        "identity",
        "replace-key",
        "lostphone",
        "--public-key",
        "bad",
        "--data-dir",
        data,
    ]);
    assert!(!out.status.success());
    let out = scanid(&[
        "identity",
        "revoke-sessions",
        "lostphone",
        "--data-dir",
        data,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A device grant's tokens as `client` (confidential) sees them after "this wasn't me":
/// refresh refused, introspection inactive, userinfo 401.
fn device_tokens_dead(s: &TestServer, client: (&str, &str), t: &Value) {
    let r = post_form(
        &s.oidc("token"),
        Some(client),
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", t["refresh_token"].as_str().unwrap()),
        ],
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_grant");
    let at = t["access_token"].as_str().unwrap();
    assert_eq!(introspect(s, client, at), json!({ "active": false }));
    assert_eq!(userinfo(s, at).status, 401);
}

/// Issue 38 (3): "this wasn't me" on a device grant's approval with `offline_access`,
/// reported after the approval's SSO session idled out (a server with `--sso-idle-ttl 60`):
/// the attacker's offline refresh token (rotated since) and its access token die, and the
/// answer says what happened: no live session ended, the tokens revoked. Before the fix the
/// session was looked up among the live ones only: `session_ended: false`, and the offline
/// token kept working and rotating. `client` is a confidential client allowed the device
/// grant. Used on the embedded store here and on DynamoDB in `aws`.
pub fn wasnt_me_after_the_session_idled(s: &TestServer, client: (&str, &str)) {
    let d = crate::device_grant::start(s, (client.0, Some(client.1)), "openid offline_access");
    assert_eq!(d.status, 200, "{}", d.text());
    let d = d.json();
    let app = TestApp::enroll(s, "dana");
    let scan = app.scan(&format!(
        "{}/app/scan?user_code={}",
        s.issuer,
        d["user_code"].as_str().unwrap()
    ));
    assert_eq!(scan.status, 200, "{}", scan.text());
    let v = scan.json();
    let payload = format!(
        "{}/app/scan?session={}&challenge={}",
        s.issuer,
        v["session"].as_str().unwrap(),
        v["challenge"].as_str().unwrap()
    );
    let session = v["session"].as_str().unwrap();
    let r = app.post_decision(session, &app.approval(&payload, "approve", None));
    assert_eq!(r.status, 200, "{}", r.text());
    let r = crate::device_grant::poll(
        s,
        (client.0, Some(client.1)),
        d["device_code"].as_str().unwrap(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let first = r.json();

    // The session idles out (60 s without use); the offline grant outlives it and rotates.
    std::thread::sleep(Duration::from_secs(62));
    let r = post_form(
        &s.oidc("token"),
        Some(client),
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", first["refresh_token"].as_str().unwrap()),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let rotated = r.json();
    let at = rotated["access_token"].as_str().unwrap();
    assert_eq!(introspect(s, client, at)["active"], true);

    let logins = activity(&app);
    assert_eq!(logins.len(), 1, "{logins:?}");
    let id = logins[0]["id"].as_str().unwrap().to_owned();
    let r = post_report(&app, &id, &report_jws(&app, &id));
    assert_eq!(r.status, 200, "{}", r.text());
    device_tokens_dead(s, client, &rotated);
    device_tokens_dead(s, client, &first);
    let body = r.json();
    assert_eq!(body["session_ended"], false, "it had idled out: {body}");
    assert_eq!(body["tokens_revoked"], true, "{body}");
}

#[test]
fn this_wasnt_me_revokes_a_device_grants_offline_tokens_after_its_session_idled() {
    let dir = tempfile::tempdir().unwrap();
    let created = create_client(
        dir.path().to_str().unwrap(),
        &[
            "--name",
            "Living room TV",
            "--client-id",
            "tv",
            "--grant",
            "device_code",
        ],
    );
    let secret = secret_of(&created);
    let s = TestServer::start(dir.path(), &["--sso-idle-ttl", "60"]);
    wasnt_me_after_the_session_idled(&s, ("tv", &secret));
}

/// Issue 38 (3), the device's race: a device authorization approved on the phone and
/// reported before the device's next poll. The report denies it: the poll gets
/// `access_denied`, so no token and no session come of it. Before, the device's next poll got
/// tokens whose access token lived on in a session the report never saw.
#[test]
fn this_wasnt_me_before_the_device_polled_denies_its_authorization() {
    let dir = tempfile::tempdir().unwrap();
    let created = create_client(
        dir.path().to_str().unwrap(),
        &[
            "--name",
            "TV",
            "--client-id",
            "tv",
            "--grant",
            "device_code",
        ],
    );
    let secret = secret_of(&created);
    let s = TestServer::start(dir.path(), &[]);
    let client = ("tv", Some(secret.as_str()));
    let d = crate::device_grant::start(&s, client, "openid offline_access").json();
    let app = TestApp::enroll(&s, "gina");
    let scan = app.scan(&format!(
        "{}/app/scan?user_code={}",
        s.issuer,
        d["user_code"].as_str().unwrap()
    ));
    assert_eq!(scan.status, 200, "{}", scan.text());
    let v = scan.json();
    let payload = format!(
        "{}/app/scan?session={}&challenge={}",
        s.issuer,
        v["session"].as_str().unwrap(),
        v["challenge"].as_str().unwrap()
    );
    let r = app.post_decision(
        v["session"].as_str().unwrap(),
        &app.approval(&payload, "approve", None),
    );
    assert_eq!(r.status, 200, "{}", r.text());

    let id = activity(&app)[0]["id"].as_str().unwrap().to_owned();
    let r = post_report(&app, &id, &report_jws(&app, &id));
    assert_eq!(r.status, 200, "{}", r.text());
    let r = crate::device_grant::poll(&s, client, d["device_code"].as_str().unwrap());
    assert_eq!(r.status, 400, "no tokens after the report: {}", r.text());
    assert_eq!(r.json()["error"], "access_denied", "{}", r.text());
}

/// Issue 38 (3), the QR path: whoever holds a login's offline grant logs its browser out
/// (RP-initiated logout), so the session is gone before the person says "this wasn't me";
/// the report still names the session (its `sid` comes from the QR login) and the offline
/// grant, rotated since, dies. Before the fix the report found no live session and revoked
/// nothing.
#[test]
fn this_wasnt_me_after_the_browser_logged_out_revokes_the_offline_grant() {
    let dir = tempfile::tempdir().unwrap();
    let (secret, _received) = shop_with_receiver(dir.path().to_str().unwrap(), &[]);
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "erin");
    let mut b = Browser::new();
    let r = login(
        &mut b,
        &s,
        &app,
        &auth_url(
            &s,
            &[
                ("client_id", "shop"),
                ("redirect_uri", CB),
                ("response_type", "code"),
                ("scope", "openid offline_access"),
                ("state", "st"),
                ("nonce", "n"),
            ],
        ),
    );
    let t = redeem(&s, ("shop", &secret), &code_of(&r));
    let hint = t["id_token"].as_str().unwrap();
    let out = b.get(&format!("{}?id_token_hint={hint}", s.oidc("logout")));
    assert!(out.status < 400, "{} {}", out.status, out.text());
    let r = refresh(&s, &secret, &t);
    assert_eq!(
        r.status,
        200,
        "the offline grant outlives its session: {}",
        r.text()
    );
    let rotated = r.json();

    let id = activity(&app)[0]["id"].as_str().unwrap().to_owned();
    let r = post_report(&app, &id, &report_jws(&app, &id));
    assert_eq!(r.status, 200, "{}", r.text());
    dead(&s, &secret, &rotated);
    assert_eq!(
        r.json()["session_ended"],
        false,
        "logged out before: {}",
        r.text()
    );
    assert_eq!(r.json()["tokens_revoked"], true);
}

/// Issue 38 (3), the race the report can close: a QR login approved on the phone and reported
/// before its browser went on to the consent step (and the code). The report closes it:
/// the browser gets no code, so no session and no token come of it afterwards.
#[test]
fn this_wasnt_me_before_the_browser_finished_closes_the_login() {
    let dir = tempfile::tempdir().unwrap();
    let (_secret, _received) = shop_with_receiver(dir.path().to_str().unwrap(), &[]);
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "frank");
    let mut b = Browser::new();
    let url = auth_url(
        &s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("scope", "openid offline_access"),
            ("state", "st"),
            ("nonce", "n"),
        ],
    );
    let (_, payload) = open(&mut b, &url);
    let r = app.decide(&mut b, &payload, "approve");
    assert_eq!(r.status, 200, "{}", r.text());
    let id = activity(&app)[0]["id"].as_str().unwrap().to_owned();
    let r = post_report(&app, &id, &report_jws(&app, &id));
    assert_eq!(r.status, 200, "{}", r.text());
    let page = b.get(&consent_url(&s, &payload));
    let gave_a_code = page.header("location").is_some_and(|l| l.contains("code="))
        || page.text().contains("code=");
    assert!(
        !gave_a_code,
        "{} {:?} {}",
        page.status,
        page.header("location"),
        page.text()
    );
    assert!(page.status >= 400, "{} {}", page.status, page.text());
}
