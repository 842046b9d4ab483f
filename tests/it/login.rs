//! The QR login as a browser and the app drive it, against the real `scanid serve`:
//! docs/requirements.md A1-A13, B1-B4, Q1-Q4 with the requests they name.

use scanid_tests::{
    attr, auth_url, codes_ahead, consent_url, create_client, location, login, login_status,
    number_shown, open, page_codes, params_of, race, request, rfc3339_millis, Browser, Resp,
    TestApp, TestServer, CB, PKCE_CHALLENGE,
};

struct Env {
    s: TestServer,
    _dir: tempfile::TempDir,
}

fn env(extra: &[&str]) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    create_client(
        d,
        &[
            "--name",
            "Shop <script>x</script>",
            "--client-id",
            "shop",
            "--redirect-uri",
            CB,
            "--redirect-uri",
            "http://127.0.0.1/cb",
        ],
    );
    create_client(
        d,
        &["--name", "One", "--client-id", "one", "--redirect-uri", CB],
    );
    create_client(
        d,
        &[
            "--name",
            "Mobile",
            "--client-id",
            "spa",
            "--public",
            "--redirect-uri",
            CB,
        ],
    );
    let s = TestServer::start(dir.path(), extra);
    Env { s, _dir: dir }
}

fn good(state: &str) -> Vec<(&'static str, String)> {
    vec![
        ("client_id", "shop".into()),
        ("redirect_uri", CB.into()),
        ("response_type", "code".into()),
        ("state", state.into()),
        ("nonce", "n-123".into()),
        ("scope", "openid profile".into()),
    ]
}

fn with(
    mut v: Vec<(&'static str, String)>,
    k: &'static str,
    val: &str,
) -> Vec<(&'static str, String)> {
    v.retain(|(n, _)| *n != k);
    v.push((k, val.into()));
    v
}

#[test]
fn qr_login_consent_then_sso_and_prompts() {
    let e = env(&[]);
    let s = &e.s;
    let alice = TestApp::enroll(s, "alice");
    let mut b = Browser::new();
    let done = login(&mut b, s, &alice, &auth_url(s, &good("st-1")));
    assert_eq!(done.status, 303, "A12: a redirect after POST is 303");
    let loc = location(&done);
    assert!(loc.starts_with("https://shop.example/cb?"), "{loc}");
    let p = params_of(&loc);
    assert_eq!(p["state"], "st-1", "A8");
    assert_eq!(p["iss"], s.issuer, "A7");
    assert!(p["code"].len() >= 43, "T8: 256-bit code");
    assert_eq!(p["session_state"].len(), 36);
    assert!(b.jar.contains_key("scanid_session"), "SSO cookie set");
    // A8: no parameter twice.
    let q = loc.split_once('?').unwrap().1;
    let names: Vec<&str> = q
        .split('&')
        .map(|kv| kv.split('=').next().unwrap())
        .collect();
    let mut dedup = names.clone();
    dedup.dedup();
    assert_eq!(names.len(), dedup.len());

    // SSO + remembered consent: straight back with a new code, same session.
    let again = b.get(&auth_url(s, &good("st-2")));
    assert_eq!(again.status, 302);
    let p2 = params_of(&location(&again));
    assert_eq!(p2["state"], "st-2");
    assert_eq!(p2["session_state"], p["session_state"]);
    assert_ne!(p2["code"], p["code"]);

    // A9: prompt=none with a session succeeds silently...
    let silent = b.get(&auth_url(s, &with(good("st-3"), "prompt", "none")));
    assert!(params_of(&location(&silent)).contains_key("code"));
    // ...and without one redirects login_required.
    let mut fresh = Browser::new();
    let none = fresh.get(&auth_url(s, &with(good("st-4"), "prompt", "none")));
    let p4 = params_of(&location(&none));
    assert_eq!(p4["error"], "login_required");
    assert_eq!(p4["state"], "st-4");
    assert_eq!(p4["iss"], s.issuer);

    // A10: prompt=login shows the QR page again despite the session.
    let (_, payload) = open(&mut b, &auth_url(s, &with(good("st-5"), "prompt", "login")));
    assert!(payload.contains("/app/scan?session="));
    // prompt=consent asks again for consent with an SSO session.
    let r = b.get(&auth_url(s, &with(good("st-6"), "prompt", "consent")));
    assert_eq!(r.status, 302);
    assert!(location(&r).contains("/login-actions/consent?session="));
    let page = b.get(&location(&r));
    assert!(page.text().contains("name=\"consent\" value=\"allow\""));
    // A consent for fewer scopes does not cover more: a new scope asks again.
    let more = b.get(&auth_url(
        s,
        &with(good("st-7"), "scope", "openid profile groups"),
    ));
    assert!(location(&more).contains("/login-actions/consent?session="));
    // max_age=0 forces the QR again.
    let (_, _) = open(&mut b, &auth_url(s, &with(good("st-8"), "max_age", "0")));
}

#[test]
fn the_page_polls_every_3_s_until_the_app_scans_then_every_second() {
    let e = env(&[]);
    let s = &e.s;
    let carol = TestApp::enroll(s, "carol");
    let mut b = Browser::new();
    let (page, payload) = open(&mut b, &auth_url(s, &good("p-1")));
    // `scanid serve` holds the page's polls (see below): its first one is sent at once. A page
    // that does not say what it shows (`seen`) is answered at once, paced as on Lambda.
    assert_eq!(
        attr(&page.text(), "id=\"state\"", "data-poll-ms").as_deref(),
        Some("0")
    );
    let status_url = format!(
        "{}/login-actions/status?session={}",
        s.issuer,
        params_of(&payload)["session"]
    );
    let before = b.get(&status_url).json();
    assert_eq!(
        (&before["status"], &before["scanned"], &before["poll_ms"]),
        (&"pending".into(), &false.into(), &3000.into())
    );
    assert_eq!(carol.scan(&payload).status, 200);
    let scanned = b.get(&status_url).json();
    assert_eq!(
        (&scanned["status"], &scanned["scanned"], &scanned["poll_ms"]),
        (&"pending".into(), &true.into(), &1000.into())
    );
    // The page shows the number to pick, and no more codes; it asks again once the person
    // has had time to pick it on the phone.
    assert_eq!(scanned["pick_ms"], 2000, "{scanned}");
    let n = scanned["number"].as_u64().unwrap();
    assert!((10..=99).contains(&n), "{scanned}");
    assert!(scanned.get("challenges").is_none(), "{scanned}");
    let approval = carol.approval(&payload, "approve", u8::try_from(n).ok());
    let r = carol.post_decision(&params_of(&payload)["session"], &approval);
    assert_eq!(r.status, 200, "{}", r.text());
    let after = b.get(&status_url).json();
    assert_eq!(after["status"], "approved");
    assert!(after.get("poll_ms").is_none(), "nothing left to poll for");
}

/// A poll held in a thread: its answer and how long it took.
fn held(
    b: &Browser,
    url: &str,
) -> std::thread::JoinHandle<(serde_json::Value, std::time::Duration)> {
    let (mut b, url) = (b.clone(), url.to_owned());
    std::thread::spawn(move || {
        let t = std::time::Instant::now();
        let r = b.get(&url);
        assert_eq!(r.status, 200, "{}", r.text());
        (r.json(), t.elapsed())
    })
}

#[test]
fn a_held_poll_answers_when_the_phone_scans_and_when_it_decides() {
    use std::time::Duration;
    let e = env(&[]);
    let s = &e.s;
    let carol = TestApp::enroll(s, "carol");
    let mut b = Browser::new();
    let (page, payload) = open(&mut b, &auth_url(s, &good("h-1")));
    let codes = page_codes(&page.text());
    let after = codes.last().unwrap().0.div_euclid(1000);
    let status = format!(
        "{}/login-actions/status?session={}",
        s.issuer,
        params_of(&payload)["session"]
    );
    // The page shows its code: the poll waits for the scan, which comes 0.4 s later (before
    // the page would need new codes: at least a second after it loaded).
    let poll = held(&b, &format!("{status}&seen=code&after={after}"));
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(carol.scan(&payload).status, 200);
    let (scanned, took) = poll.join().unwrap();
    assert_eq!(scanned["status"], "pending", "{scanned}");
    let n = scanned["number"].as_u64().expect("the number, at once");
    assert!(
        took >= Duration::from_millis(350),
        "held until the scan: {took:?}"
    );
    // Held polls say: ask again at once (the next one waits too).
    assert_eq!(
        (&scanned["poll_ms"], &scanned["pick_ms"]),
        (&0.into(), &0.into())
    );
    // The page shows the number: the poll waits for the decision.
    let poll = held(&b, &format!("{status}&seen=number"));
    std::thread::sleep(Duration::from_millis(1000));
    let approval = carol.approval(&payload, "approve", u8::try_from(n).ok());
    let r = carol.post_decision(&params_of(&payload)["session"], &approval);
    assert_eq!(r.status, 200, "{}", r.text());
    let (approved, took) = poll.join().unwrap();
    assert_eq!(approved["status"], "approved", "{approved}");
    assert!(approved["next"].as_str().unwrap().contains("consent"));
    assert!(
        took >= Duration::from_millis(900),
        "held until the decision: {took:?}"
    );
    // A page whose view is already out of date is answered at once.
    let t = std::time::Instant::now();
    let r = b.get(&format!("{status}&seen=number")).json();
    assert_eq!(r["status"], "approved");
    assert!(
        t.elapsed() < Duration::from_millis(900),
        "{:?}",
        t.elapsed()
    );
}

#[test]
fn a_held_poll_without_a_scan_returns_in_time_for_new_codes() {
    use std::time::Duration;
    let e = env(&[]);
    let s = &e.s;
    let mut b = Browser::new();
    let (page, payload) = open(&mut b, &auth_url(s, &good("h-2")));
    let codes = page_codes(&page.text());
    let last_ms = codes.last().unwrap().0;
    let status = format!(
        "{}/login-actions/status?session={}",
        s.issuer,
        params_of(&payload)["session"]
    );
    let (r, took) = held(
        &b,
        &format!("{status}&seen=code&after={}", last_ms.div_euclid(1000)),
    )
    .join()
    .unwrap();
    // Nothing changed: it returned 2 s before the page's last code is due, with the codes
    // after it, so the page never runs out.
    assert_eq!(
        (&r["status"], &r["scanned"]),
        (&"pending".into(), &false.into())
    );
    let fresh = codes_ahead(&r);
    assert!(!fresh.is_empty(), "{r}");
    assert!(
        fresh[0].0 > last_ms - 1000,
        "only the codes the page lacks: {r}"
    );
    let answered = rfc3339_millis(r["server_time"].as_str().unwrap()).unwrap();
    assert!(
        answered <= last_ms - 1000,
        "in time: answered {answered}, last code {last_ms}"
    );
    assert!(took >= Duration::from_millis(300), "it was held: {took:?}");
    // A page that does not say which codes it has is answered at once, and told to wait as
    // on Lambda (its next poll would not be held either).
    let r = b.get(&format!("{status}&seen=code")).json();
    assert_eq!(r["poll_ms"], 3000, "{r}");
    // What the page shows, in a form it does not know, is refused.
    for bad in ["&seen=qr", "&seen=code&seen=number"] {
        let r = b.get(&format!("{status}{bad}"));
        assert_eq!(r.status, 400, "{bad}: {}", r.text());
    }
    // Another browser's poll is not held: it is refused, as without `seen`.
    let r = Browser::new().get(&format!("{status}&seen=code&after=1"));
    assert_eq!(r.status, 404, "{}", r.text());
}

#[test]
fn a_held_poll_does_not_hold_the_shutdown() {
    use std::time::Duration;
    let Env { s, _dir } = env(&[]);
    let carol = TestApp::enroll(&s, "carol");
    let mut b = Browser::new();
    let (_, payload) = open(&mut b, &auth_url(&s, &good("h-3")));
    assert_eq!(carol.scan(&payload).status, 200);
    // The page shows the number; nobody decides: the poll would wait 20 s.
    let poll = held(
        &b,
        &format!(
            "{}/login-actions/status?session={}&seen=number",
            s.issuer,
            params_of(&payload)["session"]
        ),
    );
    std::thread::sleep(Duration::from_millis(500));
    let t = std::time::Instant::now();
    // SIGTERM: `stop` fails the test unless the server exits within 5 s.
    assert!(s.stop().success());
    let (r, _) = poll.join().unwrap();
    assert_eq!(r["status"], "pending", "answered as it was: {r}");
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
}

#[test]
fn deny_on_the_phone_or_the_page_redirects_access_denied() {
    let e = env(&[]);
    let s = &e.s;
    let bob = TestApp::enroll(s, "bob");
    // Denied on the phone: the page moves on and ends with access_denied.
    let mut b = Browser::new();
    let (_, payload) = open(&mut b, &auth_url(s, &good("d-1")));
    let r = bob.decide(&mut b, &payload, "deny");
    assert_eq!(r.json()["status"], "denied");
    let status = b
        .get(&format!(
            "{}/login-actions/status?session={}",
            s.issuer,
            params_of(&payload)["session"]
        ))
        .json();
    assert_eq!(status["status"], "denied");
    let end = b.get(status["next"].as_str().unwrap());
    let p = params_of(&location(&end));
    assert_eq!(p["error"], "access_denied");
    assert_eq!(p["state"], "d-1");
    assert_eq!(p["iss"], s.issuer);
    assert!(!p.contains_key("code"));
    // Denied on the consent page.
    let mut b = Browser::new();
    let (_, payload) = open(&mut b, &auth_url(s, &good("d-2")));
    bob.decide(&mut b, &payload, "approve");
    let page = b.get(&consent_url(s, &payload)).text();
    let csrf = attr(&page, "name=\"csrf\"", "value").unwrap();
    let session = params_of(&payload)["session"].clone();
    let r = b.post_form(
        &format!("{}/login-actions/consent", s.issuer),
        &[("session", &session), ("csrf", &csrf), ("consent", "deny")],
    );
    assert_eq!(r.status, 303);
    assert_eq!(params_of(&location(&r))["error"], "access_denied");
    // The session is over: allow afterwards gets nothing (its binding cookie was cleared when
    // it ended, so this browser no longer holds it: 403, no redirect, no code).
    assert!(!b.jar.keys().any(|k| k.starts_with("scanid_login_")));
    let r = b.post_form(
        &format!("{}/login-actions/consent", s.issuer),
        &[("session", &session), ("csrf", &csrf), ("consent", "allow")],
    );
    assert_eq!(r.status, 403);
    assert!(r.header("location").is_none());
}

#[test]
fn response_modes_fragment_and_form_post() {
    let e = env(&[]);
    let s = &e.s;
    let app = TestApp::enroll(s, "carol");
    let mut b = Browser::new();
    let r = login(
        &mut b,
        s,
        &app,
        &auth_url(s, &with(good("f-1"), "response_mode", "fragment")),
    );
    let loc = location(&r);
    assert!(loc.starts_with("https://shop.example/cb#code="), "{loc}");
    assert_eq!(params_of(&loc)["state"], "f-1");
    let mut b = Browser::new();
    let r = login(
        &mut b,
        s,
        &app,
        &auth_url(s, &with(good("f-2"), "response_mode", "form_post")),
    );
    assert_eq!(r.status, 200);
    let html = r.text();
    assert!(html.contains("action=\"https://shop.example/cb\""));
    assert_eq!(
        attr(&html, "name=\"state\"", "value").as_deref(),
        Some("f-2")
    );
    assert!(attr(&html, "name=\"code\"", "value").unwrap().len() >= 43);
    assert!(r
        .header("content-security-policy")
        .unwrap()
        .contains("form-action 'self' https://shop.example"));
}

fn assert_error_page(r: &Resp, why: &str) {
    assert_eq!(r.status, 400, "{why}: {}", r.status);
    assert!(r.header("location").is_none(), "{why}: redirected");
    assert!(
        r.header("content-type").unwrap().starts_with("text/html"),
        "{why}"
    );
}

#[test]
fn a1_a3_bad_client_or_redirect_uri_never_redirects() {
    let e = env(&[]);
    let s = &e.s;
    let mut b = Browser::new();
    let bad_rt = with(good("x"), "response_type", "token");
    for uri in [
        "https://shop.example/cb/",
        "https://SHOP.example/cb",
        "https://shop.example/cb?x=1",
        "https://shop.example/cb#f",
        "https://shop.example/cb/..;/",
        "https://shop.example/cb/%2E%2E/x",
        "https://shop.example/cb%252F",
        "https://shop.example.evil/cb",
        "https://shop.example@evil/cb",
        "https://shop.example@@evil/cb",
        "http://127.0.0.1:5000/cb/",
    ] {
        assert_error_page(
            &b.get(&auth_url(s, &with(bad_rt.clone(), "redirect_uri", uri))),
            uri,
        );
    }
    // A loopback redirect may vary only its port.
    let ok = b.get(&auth_url(
        s,
        &with(good("lb"), "redirect_uri", "http://127.0.0.1:53111/cb"),
    ));
    assert_eq!(ok.status, 200);
    assert_error_page(
        &b.get(&auth_url(s, &with(bad_rt.clone(), "client_id", "nobody"))),
        "unknown client",
    );
    let mut no_redirect = bad_rt.clone();
    no_redirect.retain(|(k, _)| *k != "redirect_uri");
    assert_error_page(
        &b.get(&auth_url(s, &no_redirect)),
        "A3: redirect_uri missing",
    );
    let mut one = with(no_redirect, "client_id", "one");
    one.retain(|(k, _)| *k != "redirect_uri");
    assert_error_page(
        &b.get(&auth_url(s, &one)),
        "redirect_uri is required by the spec even for one URI",
    );
    // B4: the reason is escaped; nothing of the request is reflected raw.
    let r = b.get(&auth_url(
        s,
        &with(good("x"), "client_id", "<script>alert(1)</script>"),
    ));
    assert_error_page(&r, "script client id");
    assert!(!r.text().contains("<script>alert"));
}

#[test]
fn a5_a7_errors_after_the_redirect_is_trusted_carry_iss_and_state() {
    let e = env(&[]);
    let s = &e.s;
    let mut b = Browser::new();
    let cases: Vec<(Vec<(&'static str, String)>, &str)> = vec![
        (
            with(good("e"), "response_type", "token"),
            "unsupported_response_type",
        ),
        (
            with(
                with(good("e"), "code_challenge", PKCE_CHALLENGE),
                "code_challenge_method",
                "plain",
            ),
            "invalid_request",
        ),
        (
            with(
                with(good("e"), "code_challenge", "tooshort"),
                "code_challenge_method",
                "S256",
            ),
            "invalid_request",
        ),
        (
            with(with(good("e"), "client_id", "spa"), "redirect_uri", CB),
            "invalid_request",
        ),
        (with(good("e"), "prompt", "none login"), "invalid_request"),
        (with(good("e"), "max_age", "soon"), "invalid_request"),
    ];
    for (pairs, want) in cases {
        let r = b.get(&auth_url(s, &pairs));
        assert_eq!(r.status, 302, "{pairs:?}");
        let p = params_of(&location(&r));
        assert_eq!(p["error"], want, "{pairs:?}");
        assert_eq!(p["state"], "e");
        assert_eq!(p["iss"], s.issuer, "A7");
        assert!(!p["error_description"].is_empty());
    }
    // state is required without PKCE (CSRF); the error says so. nonce is optional in the
    // code flow (OIDC Core 3.1.2.1): a request without it shows the QR page.
    let mut no_state = good("e");
    no_state.retain(|(k, _)| *k != "state");
    let p = params_of(&location(&b.get(&auth_url(s, &no_state))));
    assert_eq!(p["error"], "invalid_request");
    assert!(p["error_description"].contains("state"));
    assert!(!p.contains_key("state"));
    let mut no_nonce = good("e");
    no_nonce.retain(|(k, _)| *k != "nonce");
    assert_eq!(b.get(&auth_url(s, &no_nonce)).status, 200);
    // A6: a repeated parameter is invalid_request; an unknown one is ignored.
    let mut dup = good("e");
    dup.push(("scope", "openid".into()));
    assert_eq!(
        params_of(&location(&b.get(&auth_url(s, &dup))))["error"],
        "invalid_request"
    );
    assert_eq!(
        b.get(&auth_url(s, &with(good("e"), "unknown_param", "1")))
            .status,
        200
    );
    // So is an unknown scope value (OIDC Core 3.1.2.1): the QR page, not invalid_scope.
    assert_eq!(
        b.get(&auth_url(s, &with(good("e"), "scope", "openid admin")))
            .status,
        200
    );
    // A public client with S256 is fine.
    let spa = with(
        with(
            with(good("e"), "client_id", "spa"),
            "code_challenge",
            PKCE_CHALLENGE,
        ),
        "code_challenge_method",
        "S256",
    );
    assert_eq!(b.get(&auth_url(s, &spa)).status, 200);
    // POST to the authorization endpoint works like GET.
    let owned = good("post");
    let pairs: Vec<(&str, &str)> = owned.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let r = b.post_form(
        &format!("{}/protocol/openid-connect/auth", s.issuer),
        &pairs,
    );
    assert_eq!(r.status, 200);
    // A13: no CORS on the authorization endpoint.
    let r = b.send(
        "GET",
        &auth_url(s, &good("c")),
        &[("Origin", "https://evil.example")],
        b"",
    );
    assert!(r.header("access-control-allow-origin").is_none());
}

#[test]
fn b1_b4_page_headers_csrf_and_escaping() {
    let e = env(&[]);
    let s = &e.s;
    let app = TestApp::enroll(s, "dave");
    let mut b = Browser::new();
    let (page, payload) = open(&mut b, &auth_url(s, &good("b")));
    let error_page = b.get(&auth_url(s, &with(good("b"), "client_id", "nobody")));
    for r in [&page, &error_page] {
        let csp = r.header("content-security-policy").unwrap();
        assert!(csp.contains("frame-ancestors 'none'"), "B1");
        assert_eq!(r.header("x-frame-options"), Some("DENY"));
        assert_eq!(r.header("referrer-policy"), Some("no-referrer"), "B2");
        assert!(!r.text().contains("<script src="), "no third-party scripts");
    }
    let cookie = page
        .headers
        .iter()
        .find(|(k, v)| k == "set-cookie" && v.starts_with("scanid_login_"))
        .unwrap()
        .1
        .clone();
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"));
    let html = page.text();
    assert!(
        html.contains("Shop &lt;script&gt;x&lt;/script&gt;"),
        "B4: client name escaped"
    );
    assert!(!html.contains("<script>x</script>"));
    assert!(html.contains("<svg"), "inline SVG QR");
    assert!(
        html.contains("apps.apple.com") && html.contains("play.google.com"),
        "store links"
    );

    app.decide(&mut b, &payload, "approve");
    let consent = b.get(&consent_url(s, &payload));
    assert_eq!(consent.header("x-frame-options"), Some("DENY"));
    assert!(consent.text().contains("Shop &lt;script&gt;"));
    let session = params_of(&payload)["session"].clone();
    // B3: no token, or a token from elsewhere: 403 and no code.
    let consent_post = format!("{}/login-actions/consent", s.issuer);
    let r = b.post_form(
        &consent_post,
        &[("session", &session), ("consent", "allow")],
    );
    assert_eq!(r.status, 403);
    assert!(r.header("location").is_none());
    let r = b.post_form(
        &consent_post,
        &[
            ("session", &session),
            ("csrf", "forged"),
            ("consent", "allow"),
        ],
    );
    assert_eq!(r.status, 403);
    // The real token still works afterwards.
    let csrf = attr(&consent.text(), "name=\"csrf\"", "value").unwrap();
    let r = b.post_form(
        &consent_post,
        &[("session", &session), ("csrf", &csrf), ("consent", "allow")],
    );
    assert!(params_of(&location(&r)).contains_key("code"));
}

#[test]
fn q1_only_the_opening_browser_can_complete() {
    let e = env(&[]);
    let s = &e.s;
    let app = TestApp::enroll(s, "erin");
    let mut victim = Browser::new();
    let (_, payload) = open(&mut victim, &auth_url(s, &good("q1")));
    let session = params_of(&payload)["session"].clone();
    app.decide(&mut victim, &payload, "approve");
    let mut attacker = Browser::new();
    attacker.get(&auth_url(s, &good("other"))); // has a browser cookie of its own
    let r = attacker.get(&consent_url(s, &payload));
    assert_eq!(r.status, 403);
    assert!(r.header("location").is_none());
    let r = attacker.post_form(
        &format!("{}/login-actions/consent", s.issuer),
        &[("session", &session), ("csrf", "x"), ("consent", "allow")],
    );
    assert_eq!(r.status, 403);
    assert!(r.header("location").is_none());
    let r = attacker.get(&format!(
        "{}/login-actions/status?session={session}",
        s.issuer
    ));
    assert_eq!(r.status, 404, "status is private to the browser too");
    // The right browser still completes.
    let page = victim.get(&consent_url(s, &payload));
    assert_eq!(page.status, 200);
}

#[test]
fn q2_q3_payloads_are_single_use_and_signed() {
    let e = env(&[]);
    let s = &e.s;
    let app = TestApp::enroll(s, "frank");
    let mallory = TestApp::enroll(s, "mallory");
    let mut b = Browser::new();
    let (_, payload) = open(&mut b, &auth_url(s, &good("q")));
    let session = params_of(&payload)["session"].clone();
    // Q3: what the app is shown.
    let info = app.scan(&payload).json();
    assert_eq!(info["client"]["name"], "Shop <script>x</script>");
    assert_eq!(info["client"]["redirect_host"], "shop.example");
    assert_eq!(info["scopes"], serde_json::json!(["openid", "profile"]));
    assert_eq!(info["browser"]["ip"], "127.0.0.1");
    assert_eq!(info["browser"]["user_agent"], "scanid-test-browser/1.0");
    // A browser (no JSON) gets the get-the-app page.
    let page = request("GET", &payload, &[], b"");
    assert_eq!(page.status, 200);
    assert!(page.text().contains("App Store"));
    // A wrong challenge is the same 404 as an unknown session.
    let wrong = payload.replace(&params_of(&payload)["challenge"], "AAAAAAAAAAAAAAAAAAAAAA");
    let r = app.scan(&wrong);
    assert_eq!(r.status, 404);
    let unknown = app.scan(&format!(
        "{}/app/scan?session=nope&challenge=AAAA",
        s.issuer
    ));
    assert_eq!(unknown.status, 404);
    assert_eq!(r.text(), unknown.text(), "one answer for all");
    // Forged: mallory signs an approval naming frank.
    let forged = {
        let p = params_of(&payload);
        let now = TestApp::now();
        TestApp::sign(
            &mallory.key,
            "approval+jwt",
            &serde_json::json!({
            "sub": app.sub, "session": p["session"], "challenge": p["challenge"], "decision": "approve",
            "aud": s.issuer, "iat": now, "exp": now + 60, "jti": TestApp::jti()}),
        )
    };
    let r = app.post_decision(&session, &forged);
    assert_eq!(r.status, 400, "{}", r.text());
    // Approved once; a replay of the very same JWS is refused, and so is a second approval.
    let number = number_shown(&mut b, &payload);
    let jws = app.approval(&payload, "approve", number);
    assert_eq!(app.post_decision(&session, &jws).status, 200);
    let replay = app.post_decision(&session, &jws);
    assert_eq!(
        replay.status,
        409,
        "a replay of a used approval is refused: {}",
        replay.text()
    );
    let again = app.post_decision(&session, &app.approval(&payload, "approve", number));
    assert_eq!(again.status, 409);
    assert_eq!(again.json()["error"], "already_decided");
    // Q2: a decided payload is dead for scanning.
    assert_eq!(app.scan(&payload).status, 404);
    // A used jti is refused even on a session still pending.
    let now = TestApp::now();
    let sign_for = |payload: &str, number: Option<u8>, jti: &str| {
        let p = params_of(payload);
        TestApp::sign(
            &app.key,
            "approval+jwt",
            &serde_json::json!({
            "sub": app.sub, "session": p["session"], "challenge": p["challenge"], "decision": "approve",
            "number": number, "aud": s.issuer, "iat": now, "exp": now + 60, "jti": jti}),
        )
    };
    let (_, payload2) = open(&mut b, &auth_url(s, &good("q-2")));
    assert_eq!(app.scan(&payload2).status, 200);
    assert_eq!(
        app.post_decision(
            &params_of(&payload2)["session"],
            &sign_for(&payload2, number_shown(&mut b, &payload2), "fixed-jti")
        )
        .status,
        200
    );
    let (_, payload3) = open(&mut b, &auth_url(s, &good("q-3")));
    assert_eq!(app.scan(&payload3).status, 200);
    let n3 = number_shown(&mut b, &payload3);
    let r = app.post_decision(
        &params_of(&payload3)["session"],
        &sign_for(&payload3, n3, "fixed-jti"),
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("jti"));
    assert_eq!(
        login_status(&mut b, &payload3).json()["status"],
        "pending",
        "the refused replay changed nothing"
    );
}

#[test]
fn concurrent_approvals_have_exactly_one_winner() {
    let e = env(&[]);
    let s = &e.s;
    let app = TestApp::enroll(s, "gina");
    let mut b = Browser::new();
    let (_, payload) = open(&mut b, &auth_url(s, &good("race")));
    assert_eq!(app.scan(&payload).status, 200);
    let session = params_of(&payload)["session"].clone();
    let number = number_shown(&mut b, &payload);
    let jwss: Vec<String> = (0..8)
        .map(|_| app.approval(&payload, "approve", number))
        .collect();
    let answers = race(8, |i| app.post_decision(&session, &jwss[i]));
    let mut statuses: Vec<u16> = answers.iter().map(|r| r.status).collect();
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 409, 409, 409, 409, 409, 409, 409]);
    for r in answers.iter().filter(|r| r.status == 409) {
        assert_eq!(r.json()["error"], "already_decided", "{}", r.text());
    }
}

// Q2 expiry (a QR login past its TTL refuses scans and decisions, yet its record still says
// "expired") is walked at exact times with a fixed clock in scanid-core's
// usecase::tests::an_expired_login_refuses_scans_and_decisions_but_still_says_expired; the
// page's "expired" state and its fresh start, through a real browser, in
// tests/js/browser.test.mjs.

#[test]
fn q4_rate_limits_logins_per_ip_and_decisions_per_identity() {
    let e = env(&[
        "--login-rate-per-minute",
        "3",
        "--decision-rate-per-minute",
        "2",
    ]);
    let s = &e.s;
    let mut b = Browser::new();
    let statuses: Vec<u16> = (0..4)
        .map(|i| b.get(&auth_url(s, &good(&format!("r{i}")))).status)
        .collect();
    assert_eq!(statuses, vec![200, 200, 200, 429]);
    let app = TestApp::enroll(s, "ivan");
    let session = "nope";
    let r: Vec<u16> = (0..3)
        .map(|_| {
            app.post_decision(
                session,
                &app.approval(
                    &format!("{}/app/scan?session=nope&challenge=x", s.issuer),
                    "approve",
                    Some(42),
                ),
            )
            .status
        })
        .collect();
    assert_eq!(r, vec![404, 404, 429]);
}
