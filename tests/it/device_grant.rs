//! The device authorization grant (RFC 8628) against the real `scanid serve`: a device asks
//! for codes, the reference app (or a browser with the QR login) approves, the device polls the
//! token endpoint; and every way it can go wrong (refusal, polling too soon, expiry, a second
//! redemption, another client, bad input, guessing user codes).

use base64::Engine;
use scanid_tests::{
    attr, create_client, number_shown, one_redemption_wins, params_of, post_form, race, request,
    scanid, secret_of, Browser, Resp, TestApp, TestServer,
};
use serde_json::Value;

pub const DEVICE_GRANT: &str = "urn:ietf:params:oauth:grant-type:device_code";

/// A public TV client allowed the device grant (no redirect URI), registered as `client_id`.
fn tv(s: &TestServer, client_id: &str) {
    create_client(
        s.data_dir.to_str().unwrap(),
        &[
            "--name",
            "Living room TV",
            "--client-id",
            client_id,
            "--public",
            "--grant",
            "device_code",
        ],
    );
}

/// `POST .../auth/device` as `client_id` (public) asking for `scope`.
pub fn start(s: &TestServer, client: (&str, Option<&str>), scope: &str) -> Resp {
    let (id, secret) = client;
    match secret {
        Some(secret) => post_form(
            &s.oidc("auth/device"),
            Some((id, secret)),
            &[("scope", scope)],
        ),
        None => post_form(
            &s.oidc("auth/device"),
            None,
            &[("client_id", id), ("scope", scope)],
        ),
    }
}

/// A person types `user_code` at `{issuer}/device` in `b`, as a browser does: the form (its
/// anti-CSRF token and cookie), then the post, with `extra` headers on both (an address by
/// `X-Forwarded-For`). The answer to the post.
pub fn type_code(b: &mut Browser, s: &TestServer, user_code: &str, extra: &[(&str, &str)]) -> Resp {
    let url = format!("{}/device", s.issuer);
    let form = b.send("GET", &url, extra, b"");
    assert_eq!(form.status, 200, "{}", form.text());
    let csrf = attr(&form.text(), "name=\"csrf\"", "value").expect("the form's token");
    let body = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("csrf", &csrf)
        .append_pair("user_code", user_code)
        .finish();
    let mut headers = vec![("Content-Type", "application/x-www-form-urlencoded")];
    headers.extend_from_slice(extra);
    b.send("POST", &url, &headers, body.as_bytes())
}

/// The device's poll of the token endpoint.
pub fn poll(s: &TestServer, client: (&str, Option<&str>), device_code: &str) -> Resp {
    let (id, secret) = client;
    let mut pairs = vec![("grant_type", DEVICE_GRANT), ("device_code", device_code)];
    if secret.is_none() {
        pairs.push(("client_id", id));
    }
    post_form(&s.oidc("token"), secret.map(|sec| (id, sec)), &pairs)
}

fn error_of(r: &Resp) -> String {
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.header("cache-control"), Some("no-store"));
    r.json()["error"].as_str().unwrap_or_default().to_owned()
}

/// A JWT's claims (unverified; the signature is the JWKS tests' business).
fn claims(jwt: &str) -> Value {
    let payload = jwt.split('.').nth(1).unwrap();
    serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(payload)
            .unwrap(),
    )
    .unwrap()
}

/// Enrolls `name` with the reference app; the key file.
pub(crate) fn enroll(s: &TestServer, dir: &std::path::Path, name: &str) -> String {
    let key = dir.join(format!("{name}.key"));
    let out = scanid(&[
        "app",
        "enroll",
        "--key-file",
        key.to_str().unwrap(),
        "--name",
        name,
        "--display-name",
        name,
        "--country",
        "SE",
        "--server",
        &s.base,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    key.to_str().unwrap().to_owned()
}

/// `scanid app approve [--deny] PAYLOAD`: its JSON answer.
pub(crate) fn app_approve(s: &TestServer, key: &str, payload: &str, deny: bool) -> Value {
    let mut args = vec!["app", "approve", "--key-file", key, "--server", &s.base];
    if deny {
        args.push("--deny");
    }
    args.push(payload);
    let out = scanid(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The whole grant with the reference app approving on the phone: checks the answers field by
/// field and returns the tokens. Used on the embedded store here and on DynamoDB in `aws`.
pub fn approve_with_the_reference_app(
    s: &TestServer,
    client: (&str, Option<&str>),
    dir: &std::path::Path,
) -> Value {
    let r = start(s, client, "openid profile offline_access unknown-scope");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let d = r.json();
    let user_code = d["user_code"].as_str().unwrap().to_owned();
    assert_eq!(user_code.len(), 9, "{user_code}");
    assert_eq!(&user_code[4..5], "-");
    assert!(user_code
        .chars()
        .filter(|c| *c != '-')
        .all(|c| "BCDFGHJKLMNPQRSTVWXZ".contains(c)));
    assert_eq!(d["verification_uri"], format!("{}/device", s.issuer));
    let complete = d["verification_uri_complete"].as_str().unwrap().to_owned();
    assert_eq!(
        complete,
        format!("{}/device?user_code={user_code}", s.issuer)
    );
    assert_eq!(d["expires_in"], 600);
    assert_eq!(d["interval"], 5);
    let device_code = d["device_code"].as_str().unwrap().to_owned();
    assert!(device_code.len() >= 43);

    assert_eq!(
        error_of(&poll(s, client, &device_code)),
        "authorization_pending"
    );
    let name = format!("tina{}", client.0.replace('-', ""));
    let key = enroll(s, dir, &name);
    let approved = app_approve(s, &key, &complete, false);
    assert_eq!(approved["status"], "approved", "{approved}");
    assert_eq!(
        approved["user_code"],
        user_code.as_str(),
        "shown to compare"
    );
    assert_eq!(approved["client"]["name"], "Living room TV");
    assert_eq!(
        approved["scopes"],
        serde_json::json!(["openid", "profile", "offline_access"]),
        "unknown scopes are ignored"
    );

    let r = poll(s, client, &device_code);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let t = r.json();
    assert_eq!(t["token_type"], "Bearer");
    assert!(t["refresh_token"].is_string());
    let id = claims(t["id_token"].as_str().unwrap());
    assert_eq!(id["aud"], client.0);
    assert_eq!(id["iss"], s.issuer.as_str());
    assert_eq!(id["preferred_username"], name.as_str());
    let at = claims(t["access_token"].as_str().unwrap());
    assert_eq!(at["azp"], client.0);
    assert_eq!(at["sub"], id["sub"]);
    assert!(at["sid"].is_string(), "the tokens have a session");

    // Spent by that one poll: the next gets invalid_grant.
    assert_eq!(error_of(&poll(s, client, &device_code)), "invalid_grant");
    // The refresh token works as the code flow's.
    let mut pairs = vec![
        ("grant_type", "refresh_token"),
        ("refresh_token", t["refresh_token"].as_str().unwrap()),
    ];
    if client.1.is_none() {
        pairs.push(("client_id", client.0));
    }
    let r = post_form(
        &s.oidc("token"),
        client.1.map(|sec| (client.0, sec)),
        &pairs,
    );
    assert_eq!(r.status, 200, "refresh: {}", r.text());
    t
}

#[test]
fn rfc8628_the_reference_app_approves_and_the_device_gets_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    tv(&s, "tv");
    approve_with_the_reference_app(&s, ("tv", None), dir.path());
    // A confidential client authenticates at both endpoints, as at the token endpoint.
    let created = create_client(
        s.data_dir.to_str().unwrap(),
        &[
            "--name",
            "Living room TV",
            "--client-id",
            "tv-secret",
            "--grant",
            "device_code",
        ],
    );
    let secret = secret_of(&created);
    let keys = tempfile::tempdir().unwrap();
    approve_with_the_reference_app(&s, ("tv-secret", Some(&secret)), keys.path());
    assert_eq!(
        start(&s, ("tv-secret", Some("wrong")), "openid").status,
        401
    );
}

#[test]
fn rfc8628_a_refusal_on_the_phone_is_access_denied() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    tv(&s, "tv");
    let d = start(&s, ("tv", None), "openid").json();
    let key = enroll(&s, dir.path(), "ulla");
    let complete = d["verification_uri_complete"].as_str().unwrap();
    let out = app_approve(&s, &key, complete, true);
    assert_eq!(out["status"], "denied");
    let code = d["device_code"].as_str().unwrap();
    assert_eq!(error_of(&poll(&s, ("tv", None), code)), "access_denied");
    // Decided: the code cannot be scanned again.
    let again = scanid(&[
        "app",
        "approve",
        "--key-file",
        &key,
        "--server",
        &s.base,
        complete,
    ]);
    assert!(!again.status.success());
}

#[test]
fn rfc8628_polling_sooner_than_the_interval_slows_down() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    tv(&s, "tv");
    let d = start(&s, ("tv", None), "openid").json();
    let code = d["device_code"].as_str().unwrap();
    assert_eq!(
        error_of(&poll(&s, ("tv", None), code)),
        "authorization_pending"
    );
    assert_eq!(error_of(&poll(&s, ("tv", None), code)), "slow_down");
    assert_eq!(error_of(&poll(&s, ("tv", None), code)), "slow_down");
}

#[test]
fn rfc8628_an_expired_device_code_is_expired_token() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &["--device-code-ttl", "10"]);
    tv(&s, "tv");
    let d = start(&s, ("tv", None), "openid").json();
    assert_eq!(d["expires_in"], 10);
    std::thread::sleep(std::time::Duration::from_millis(10_300));
    let code = d["device_code"].as_str().unwrap();
    assert_eq!(error_of(&poll(&s, ("tv", None), code)), "expired_token");
    // Nobody can approve it any more, with the app or in a browser.
    let app = TestApp::enroll(&s, "vera");
    let user_code = d["user_code"].as_str().unwrap();
    let r = app.scan(&format!("{}/app/scan?user_code={user_code}", s.issuer));
    assert_eq!(r.status, 404, "{}", r.text());
    let mut b = Browser::new();
    let r = type_code(&mut b, &s, user_code, &[]);
    assert_eq!(r.status, 400);
}

/// The app's scan of a user code: the login session and challenge to decide.
fn app_scan(s: &TestServer, app: &TestApp, user_code: &str) -> (Value, String) {
    let r = app.scan(&format!("{}/app/scan?user_code={user_code}", s.issuer));
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let payload = format!(
        "{}/app/scan?session={}&challenge={}",
        s.issuer,
        v["session"].as_str().unwrap(),
        v["challenge"].as_str().unwrap()
    );
    (v, payload)
}

#[test]
fn rfc8628_a_device_code_is_redeemed_once_among_racing_polls() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    tv(&s, "tv");
    let d = start(&s, ("tv", None), "openid").json();
    let app = TestApp::enroll(&s, "wilma");
    let (_, payload) = app_scan(&s, &app, d["user_code"].as_str().unwrap());
    let session = params_of(&payload)["session"].clone();
    let r = app.post_decision(&session, &app.approval(&payload, "approve", None));
    assert_eq!(r.status, 200, "{}", r.text());
    let code = d["device_code"].as_str().unwrap();
    let answers = race(6, |_| poll(&s, ("tv", None), code));
    one_redemption_wins(&answers);
}

#[test]
fn rfc8628_another_client_or_an_unknown_code_is_invalid_grant() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    tv(&s, "tv");
    tv(&s, "radio");
    let d = start(&s, ("tv", None), "openid").json();
    let code = d["device_code"].as_str().unwrap();
    assert_eq!(error_of(&poll(&s, ("radio", None), code)), "invalid_grant");
    assert_eq!(error_of(&poll(&s, ("tv", None), "nope")), "invalid_grant");
    assert_eq!(
        error_of(&poll(&s, ("tv", None), &"x".repeat(5000))),
        "invalid_grant"
    );
    // The other client's poll changed nothing: the owner's first poll is not "too soon".
    assert_eq!(
        error_of(&poll(&s, ("tv", None), code)),
        "authorization_pending"
    );
    // A client not allowed the grant: at the device endpoint and at the token endpoint.
    create_client(
        s.data_dir.to_str().unwrap(),
        &[
            "--name",
            "Shop",
            "--client-id",
            "shop",
            "--public",
            "--redirect-uri",
            "https://shop.example/cb",
        ],
    );
    assert_eq!(
        error_of(&start(&s, ("shop", None), "openid")),
        "unauthorized_client"
    );
    assert_eq!(
        error_of(&poll(&s, ("shop", None), code)),
        "unauthorized_client"
    );
}

/// RFC 8707 with RFC 8628: a device authorization grants no resource, so a poll naming one is
/// `invalid_target` (not a token for the client), and it does not count as a poll.
#[test]
fn rfc8707_a_resource_with_a_device_code_is_invalid_target() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &["--resource", "https://api.example/"]);
    tv(&s, "tv");
    let d = start(&s, ("tv", None), "openid").json();
    let code = d["device_code"].as_str().unwrap();
    let r = post_form(
        &s.oidc("token"),
        None,
        &[
            ("grant_type", DEVICE_GRANT),
            ("device_code", code),
            ("client_id", "tv"),
            ("resource", "https://api.example/"),
        ],
    );
    assert_eq!(error_of(&r), "invalid_target");
    assert_eq!(
        error_of(&poll(&s, ("tv", None), code)),
        "authorization_pending"
    );
}

#[test]
fn rfc8628_bad_input_gets_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &["--user-code-rate-per-minute", "4"]);
    tv(&s, "tv");
    // No client at all, an unknown one.
    let r = post_form(&s.oidc("auth/device"), None, &[("scope", "openid")]);
    assert_eq!(r.status, 401, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_client");
    assert_eq!(start(&s, ("nobody", None), "openid").status, 401);
    // A repeated parameter; not a form.
    let r = post_form(
        &s.oidc("auth/device"),
        None,
        &[
            ("client_id", "tv"),
            ("scope", "openid"),
            ("scope", "profile"),
        ],
    );
    assert_eq!(error_of(&r), "invalid_request");
    let r = request(
        "POST",
        &s.oidc("auth/device"),
        &[("Content-Type", "application/json")],
        b"{}",
    );
    assert!(
        r.status == 400 || r.status == 401 || r.status == 415,
        "{}",
        r.status
    );
    // The token endpoint without a device_code.
    let r = post_form(
        &s.oidc("token"),
        None,
        &[("grant_type", DEVICE_GRANT), ("client_id", "tv")],
    );
    assert_eq!(error_of(&r), "invalid_request");
    // A wrong code typed in the browser: a clear page, the code as typed kept in the form.
    let mut b = Browser::new();
    let form = b.get(&format!("{}/device?user_code=BCDF-GHJK", s.issuer));
    assert_eq!(form.status, 200);
    assert!(form.header("content-security-policy").is_some());
    assert_eq!(form.header("x-frame-options"), Some("DENY"));
    assert_eq!(
        attr(&form.text(), "id=\"user_code\"", "value").as_deref(),
        Some("BCDF-GHJK")
    );
    let r = type_code(&mut b, &s, "<script>x</script>", &[]);
    assert_eq!(r.status, 400);
    assert!(r.text().contains("not valid"));
    assert!(!r.text().contains("<script>x"), "never echoed as markup");
    assert!(
        !r.text().contains("web-app-link"),
        "a refused code is not offered to the app"
    );
    assert!(form.text().contains("web-app-link"), "a prefilled one is");
    let r = type_code(&mut b, &s, "BCDF-GHJK", &[]);
    assert_eq!(r.status, 400);
    // RFC 8628 §5.1: guessing is rate limited per source (the app's scan counts too).
    let app = TestApp::enroll(&s, "xena");
    let r = app.scan(&format!("{}/app/scan?user_code=BCDF-GHJK", s.issuer));
    assert_eq!(r.status, 404);
    let r = type_code(&mut b, &s, "BCDF-GHJL", &[]);
    assert_eq!(r.status, 400);
    let r = type_code(&mut b, &s, "BCDF-GHJM", &[]);
    assert_eq!(r.status, 429, "{}", r.text());
    assert!(r.header("retry-after").is_some());
}

#[test]
fn rfc8628_a_person_types_the_code_in_a_browser_and_logs_in_with_the_qr() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    tv(&s, "tv");
    let d = start(&s, ("tv", None), "openid profile").json();
    let user_code = d["user_code"].as_str().unwrap().to_lowercase();
    let mut b = Browser::new();
    // Typed in lower case without the dash: normalized.
    let page = type_code(&mut b, &s, &user_code.replace('-', ""), &[]);
    assert_eq!(page.status, 200, "{}", page.text());
    assert!(page.text().contains("Living room TV"));
    let payload = attr(&page.text(), "id=\"app-link\"", "data-qr-payload").expect("the QR");
    let app = TestApp::enroll(&s, "yrsa");
    let scanned = app.scan(&payload);
    assert_eq!(scanned.status, 200);
    assert_eq!(
        scanned.json()["user_code"],
        d["user_code"],
        "the phone shows the code to compare"
    );
    // The QR page shows the number to pick, as for any login.
    let number = number_shown(&mut b, &payload);
    assert!(number.is_some());
    let jws = app.approval(&payload, "approve", number);
    let r = app.post_decision(&params_of(&payload)["session"], &jws);
    assert_eq!(r.status, 200, "{}", r.text());
    // The page's poll says approved and sends the browser on; the page says connected.
    let status = b.get(&format!(
        "{}/login-actions/status?session={}",
        s.issuer,
        params_of(&payload)["session"]
    ));
    let next = status.json()["next"].as_str().unwrap().to_owned();
    let done = b.get(&next);
    assert_eq!(done.status, 200);
    assert!(done.text().contains("Device connected"), "{}", done.text());
    let r = poll(&s, ("tv", None), d["device_code"].as_str().unwrap());
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(claims(r.json()["id_token"].as_str().unwrap())["aud"], "tv");
    // Another browser cannot use that login.
    let mut other = Browser::new();
    assert_eq!(other.get(&next).status, 403);
}
