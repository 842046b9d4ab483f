//! Attacks from outside, as raw HTTP requests against the real `scanid serve`, each asserting
//! the fixed behaviour: client lockout by wrong secrets, approval rate-limit exhaustion, logout
//! CSRF, avatar open redirect, browser-binding fixation, JWS lifetime overflow, claims without
//! scope, cross-client introspection, tokens in URLs, reserved response parameters in redirect
//! URIs, slow/large/many connections, sign-up abuse and deceptive names, deleted clients, key
//! rotation with one `jti`, HSTS; and the audit events these leave behind.
//!
//! Distinct attacker and victim source addresses come from one process through
//! `--trusted-proxy 127.0.0.1` and an `X-Forwarded-For` header.

use std::io::Write;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use aws_lc_rs::signature::EcdsaKeyPair;
use scanid_tests::{
    attr, auth_url, code_of, consent_url, create_client, get, introspect, jwt_claims, location,
    login, open, params_of, post_form, post_form_with, raw_request, read_raw, redeem,
    registration_body, request, scanid, scanid_json, signup, userinfo, Browser, Resp, TestApp,
    TestServer, CB, DISCOVERY,
};
use serde_json::{json, Value};

const BYE: &str = "https://shop.example/bye";
/// The attacker's source address (documentation range, RFC 5737).
const ATTACKER: &str = "203.0.113.7";
/// Another, innocent source address.
const BYSTANDER: &str = "198.51.100.20";
const TRUST_LOCAL_PROXY: [&str; 2] = ["--trusted-proxy", "127.0.0.1"];

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// Registers client `id` (name = id, redirect URI [`CB`]) with `extra` flags; its secret, if
/// confidential.
fn client(d: &str, id: &str, extra: &[&str]) -> Option<String> {
    let mut args = vec!["--name", id, "--client-id", id, "--redirect-uri", CB];
    args.extend_from_slice(extra);
    create_client(d, &args)["client_secret"]
        .as_str()
        .map(str::to_owned)
}

/// The parameters of an authorization request of client `shop`.
fn shop_auth(scope: &str) -> Vec<(&'static str, String)> {
    vec![
        ("client_id", "shop".into()),
        ("redirect_uri", CB.into()),
        ("response_type", "code".into()),
        ("state", "st-1".into()),
        ("nonce", "n-1".into()),
        ("scope", scope.into()),
    ]
}

fn shop_auth_url(s: &TestServer, scope: &str) -> String {
    auth_url(s, &shop_auth(scope))
}

/// Posts a form from `source` (sent as `X-Forwarded-For`; the server trusts 127.0.0.1 as a
/// proxy) with optional HTTP Basic client authentication.
fn post_from(
    url: &str,
    source: Option<&str>,
    client: Option<(&str, &str)>,
    pairs: &[(&str, &str)],
) -> Resp {
    let xff: Vec<(&str, &str)> = source
        .map(|src| ("X-Forwarded-For", src))
        .into_iter()
        .collect();
    post_form_with(url, &xff, client, pairs)
}

/// Logs `app` in to `shop` in browser `b` (QR, approval, consent unless remembered): the code.
fn code_in(s: &TestServer, app: &TestApp, b: &mut Browser, scope: &str) -> String {
    code_of(&login(b, s, app, &shop_auth_url(s, scope)))
}

/// Logs `app` in to `shop` in a fresh browser, asking for consent: the consent page's HTML and
/// the code.
fn consent_page_and_code(s: &TestServer, app: &TestApp, scope: &str) -> (String, String) {
    let mut b = Browser::new();
    let (_, payload) = open(&mut b, &shop_auth_url(s, scope));
    assert_eq!(app.decide(&mut b, &payload, "approve").status, 200);
    let page = b.get(&consent_url(s, &payload));
    assert_eq!(page.status, 200, "{scope}: {}", page.text());
    let html = page.text();
    let csrf = attr(&html, "name=\"csrf\"", "value").expect("a consent form");
    let session = params_of(&payload)["session"].clone();
    let r = b.post_form(
        &format!("{}/login-actions/consent", s.issuer),
        &[("session", &session), ("csrf", &csrf), ("consent", "allow")],
    );
    (html, code_of(&r))
}

fn str_field(v: &Value, k: &str) -> String {
    v[k].as_str()
        .unwrap_or_else(|| panic!("no {k} in {v}"))
        .to_owned()
}

/// Waits, if needed, so that a burst of requests starting now stays inside one rate-limit
/// window (fixed windows start on the minute; an hour starts on a minute too).
fn clear_of_window_edge() {
    let into = TestApp::now().rem_euclid(60);
    if into >= 50 {
        std::thread::sleep(Duration::from_secs(u64::try_from(61 - into).unwrap()));
    }
}

/// Does `events` hold an event `name` with every `fields` value?
fn has_event(events: &[Value], name: &str, fields: &[(&str, &str)]) -> bool {
    events
        .iter()
        .any(|e| e["event"] == name && fields.iter().all(|(k, v)| e[*k] == *v))
}

/// The position of the first event `name` with every `fields` value.
fn event_at(events: &[Value], name: &str, fields: &[(&str, &str)]) -> usize {
    events
        .iter()
        .position(|e| e["event"] == name && fields.iter().all(|(k, v)| e[*k] == *v))
        .unwrap_or_else(|| panic!("no audit event {name} with {fields:?} in {events:#?}"))
}

/// `(name, value)` of every `<input type="hidden">` in `html`, unescaped.
fn hidden_inputs(html: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find("<input") {
        let from = &rest[at..];
        let end = from.find('>').unwrap_or(from.len());
        let tag = &from[..end];
        if tag.contains("type=\"hidden\"") {
            if let Some(name) = tag_attr(tag, "name") {
                out.push((name, tag_attr(tag, "value").unwrap_or_default()));
            }
        }
        rest = &from[end..];
    }
    out
}

fn tag_attr(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let v = tag.find(&key)? + key.len();
    let value = &tag[v..v + tag[v..].find('"')?];
    Some(
        value
            .replace("&quot;", "\"")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&#39;", "'")
            .replace("&amp;", "&"),
    )
}

fn set_cookies(r: &Resp) -> Vec<String> {
    r.headers
        .iter()
        .filter(|(k, _)| k == "set-cookie")
        .map(|(_, v)| v.clone())
        .collect()
}

fn cookie_name(set_cookie: &str) -> &str {
    set_cookie
        .split(';')
        .next()
        .unwrap_or("")
        .split('=')
        .next()
        .unwrap_or("")
        .trim()
}

/// The attributes after `name=value`, trimmed.
fn cookie_attrs(set_cookie: &str) -> Vec<String> {
    set_cookie
        .split(';')
        .skip(1)
        .map(|a| a.trim().to_owned())
        .collect()
}

/// A registration JWS body for `name`, signed by `key`, after `edit`.
fn registration(
    s: &TestServer,
    key: &EcdsaKeyPair,
    public_key: &str,
    name: &str,
    edit: impl FnOnce(&mut Value),
) -> Vec<u8> {
    let mut claims = TestApp::registration_claims(s, public_key, name);
    edit(&mut claims);
    registration_body(key, &claims)
}

/// Signs up `name` with a fresh key, from 127.0.0.1.
fn signup_named(s: &TestServer, name: &str, edit: impl FnOnce(&mut Value)) -> Resp {
    let (key, pk) = TestApp::key();
    signup(s, None, &registration(s, &key, &pk, name, edit))
}

fn assert_invalid_request(r: &Resp, why: &str) {
    assert_eq!(r.status, 400, "{why}: {}", r.text());
    assert_eq!(r.json()["error"], "invalid_request", "{why}");
}

fn discovery_get(s: &TestServer) -> String {
    format!(
        "GET {DISCOVERY} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        s.addr()
    )
}

/// The head of a token request announcing `length` body bytes.
fn post_head(s: &TestServer, length: usize) -> String {
    format!(
        "POST /realms/scanid/protocol/openid-connect/token HTTP/1.1\r\nHost: {}\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {length}\r\n\
         Connection: close\r\n\r\n",
        s.addr()
    )
}

// ---------------------------------------------------------------------------------------------
// 1. Client lockout
// ---------------------------------------------------------------------------------------------

#[test]
fn wrong_secrets_limit_the_source_and_never_lock_out_the_client() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let shop = client(d, "shop", &["--client-credentials"]).unwrap();
    client(d, "spa", &["--public"]);
    let s = TestServer::start_with_audit(dir.path(), &TRUST_LOCAL_PROXY);
    let token = s.oidc("token");
    let cc = [("grant_type", "client_credentials")];
    clear_of_window_edge();
    for i in 0..15 {
        let r = post_from(&token, Some(ATTACKER), Some(("shop", "wrong-secret")), &cc);
        if i < 10 {
            assert_eq!(r.status, 401, "attempt {i}: {}", r.text());
            assert!(
                r.header("www-authenticate")
                    .is_some_and(|h| h.starts_with("Basic")),
                "attempt {i}: {:?}",
                r.headers
            );
        } else {
            assert_eq!(r.status, 429, "attempt {i}: {}", r.text());
            assert!(r.header("retry-after").is_some(), "attempt {i}");
        }
        assert_eq!(r.json()["error"], "invalid_client", "attempt {i}");
    }
    // The right secret works at once: from the attacker's own source, another, and directly.
    let mut access_token = String::new();
    for source in [Some(ATTACKER), Some(BYSTANDER), None] {
        let r = post_from(&token, source, Some(("shop", &shop)), &cc);
        assert_eq!(r.status, 200, "from {source:?}: {}", r.text());
        access_token = str_field(&r.json(), "access_token");
    }
    // Introspection and revocation: wrong secrets refused, the right one always works.
    let introspect_url = s.oidc("introspect");
    let revoke_url = s.oidc("revoke");
    for url in [&introspect_url, &revoke_url] {
        for _ in 0..3 {
            let r = post_from(
                url,
                Some(ATTACKER),
                Some(("shop", "wrong-secret")),
                &[("token", &access_token)],
            );
            // The source is past its failure budget (the 15 attempts above, one window).
            assert_eq!(r.status, 429, "{url}: {}", r.text());
            assert!(r.header("retry-after").is_some(), "{url}");
            assert_eq!(r.json()["error"], "invalid_client", "{url}");
        }
    }
    let r = post_from(
        &introspect_url,
        Some(ATTACKER),
        Some(("shop", &shop)),
        &[("token", &access_token)],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.json()["active"],
        true,
        "the wrong-secret revocations did nothing"
    );
    let r = post_from(
        &revoke_url,
        Some(ATTACKER),
        Some(("shop", &shop)),
        &[("token", &access_token)],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        introspect(&s, ("shop", &shop), &access_token),
        json!({ "active": false })
    );
    // A public client (no secret) is refused by introspection but never counted.
    let fresh = "192.0.2.55";
    for i in 0..30 {
        let r = post_from(
            &introspect_url,
            Some(fresh),
            None,
            &[("token", &access_token), ("client_id", "spa")],
        );
        assert_eq!(r.status, 401, "public request {i}: {}", r.text());
    }
    let r = post_from(&token, Some(fresh), Some(("shop", "wrong-secret")), &cc);
    assert_eq!(
        r.status,
        401,
        "the public client's requests did not count against its source: {}",
        r.text()
    );
    let events = s.audit_events_until(|ev| {
        has_event(
            ev,
            "client_auth.failed",
            &[("client_id", "shop"), ("source", ATTACKER)],
        ) && has_event(ev, "rate_limited", &[("source", ATTACKER)])
    });
    event_at(
        &events,
        "client_auth.failed",
        &[("client_id", "shop"), ("source", ATTACKER)],
    );
    event_at(&events, "rate_limited", &[("source", ATTACKER)]);
    let log = s.log_text();
    assert!(!log.contains(&shop), "the client secret was logged");
    assert!(
        !log.contains("wrong-secret"),
        "a presented secret was logged"
    );
}

// ---------------------------------------------------------------------------------------------
// 2. Approval rate limit
// ---------------------------------------------------------------------------------------------

#[test]
fn forged_approvals_cannot_use_up_the_victims_decisions() {
    let dir = tempfile::tempdir().unwrap();
    client(dir.path().to_str().unwrap(), "shop", &[]);
    let mut extra = TRUST_LOCAL_PROXY.to_vec();
    extra.extend_from_slice(&["--decision-rate-per-minute", "10"]);
    let s = TestServer::start_with_audit(dir.path(), &extra);
    let victim = TestApp::enroll(&s, "victim");
    // Before the QR: its challenge is fresh for only a few seconds.
    clear_of_window_edge();
    let mut b = Browser::new();
    let (_, payload) = open(&mut b, &shop_auth_url(&s, "openid profile"));
    let p = params_of(&payload);
    let session = p["session"].clone();
    let (mallory_key, _) = TestApp::key();
    let statuses: Vec<u16> = (0..15)
        .map(|_| {
            let now = TestApp::now();
            let forged = TestApp::sign(
                &mallory_key,
                "approval+jwt",
                &json!({
                    "sub": victim.sub, "session": session, "challenge": p["challenge"],
                    "decision": "approve", "aud": s.issuer, "iat": now, "exp": now + 60,
                    "jti": TestApp::jti(),
                }),
            );
            request(
                "POST",
                &format!("{}/app/login-sessions/{session}", s.issuer),
                &[
                    ("Content-Type", "application/json"),
                    ("X-Forwarded-For", ATTACKER),
                ],
                json!({ "approval": forged }).to_string().as_bytes(),
            )
            .status
        })
        .collect();
    // Unverified (the attacker's key): counted against the attacker's source, 10 a minute.
    assert_eq!(statuses[..10], [400; 10], "{statuses:?}");
    assert_eq!(
        statuses[10..],
        [429; 5],
        "the attacker's source is limited: {statuses:?}"
    );
    // The victim's own approval still goes through, and the browser reaches consent.
    let r = victim.decide(&mut b, &payload, "approve");
    assert_eq!(r.status, 200, "{}", r.text());
    let page = b.get(&consent_url(&s, &payload));
    assert_eq!(page.status, 200, "{}", page.text());
    assert!(attr(&page.text(), "name=\"csrf\"", "value").is_some());
    let events = s.audit_events_until(|ev| has_event(ev, "rate_limited", &[("source", ATTACKER)]));
    event_at(&events, "rate_limited", &[("source", ATTACKER)]);
}

// ---------------------------------------------------------------------------------------------
// 3. Logout CSRF
// ---------------------------------------------------------------------------------------------

#[test]
fn logout_needs_the_browsers_own_hint_or_a_confirmed_form() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let shop = client(d, "shop", &["--post-logout-redirect-uri", BYE]).unwrap();
    let s = TestServer::start_with_audit(dir.path(), &[]);
    let victim = TestApp::enroll(&s, "victim");
    let attacker = TestApp::enroll(&s, "attacker");
    let mut vb = Browser::new();
    let tv = redeem(
        &s,
        ("shop", &shop),
        &code_in(&s, &victim, &mut vb, "openid profile"),
    );
    let mut ab = Browser::new();
    let ta = redeem(
        &s,
        ("shop", &shop),
        &code_in(&s, &attacker, &mut ab, "openid profile"),
    );
    let (v_at, a_at) = (
        str_field(&tv, "access_token"),
        str_field(&ta, "access_token"),
    );
    let logout = s.oidc("logout");

    // (a) The attacker's id_token_hint in the victim's browser: only a confirmation page.
    let page = vb.get(&format!(
        "{logout}?id_token_hint={}",
        str_field(&ta, "id_token")
    ));
    assert_eq!(page.status, 200, "{}", page.text());
    let html = page.text();
    assert!(html.contains("<form"), "{html}");
    let csrf = attr(&html, "name=\"csrf\"", "value").expect("a csrf field on the confirmation");
    assert!(!csrf.is_empty());
    assert_eq!(userinfo(&s, &v_at).status, 200, "the victim is still in");
    assert_eq!(
        userinfo(&s, &a_at).status,
        200,
        "the attacker's session is not ended either"
    );

    // (b) The form without its csrf, or with a wrong one: 403, nothing ended.
    let fields: Vec<(String, String)> = hidden_inputs(&html)
        .into_iter()
        .filter(|(k, _)| k != "csrf")
        .collect();
    let mut pairs: Vec<(&str, &str)> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let r = vb.post_form(&logout, &pairs);
    assert_eq!(r.status, 403, "no csrf: {}", r.text());
    let mut forged = pairs.clone();
    forged.push(("csrf", "forged"));
    let r = vb.post_form(&logout, &forged);
    assert_eq!(r.status, 403, "wrong csrf: {}", r.text());
    assert_eq!(
        userinfo(&s, &v_at).status,
        200,
        "still in after the forgeries"
    );
    // Audit lines may land just after the response: give them a moment before the negative.
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        !s.audit_events().iter().any(|e| e["event"] == "logout"),
        "no logout was audited for the refused attempts"
    );

    // (c) The confirmed form logs the victim out.
    pairs.push(("csrf", csrf.as_str()));
    let r = vb.post_form(&logout, &pairs);
    // No post_logout_redirect_uri was asked for: the logged-out page.
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(userinfo(&s, &v_at).status, 401, "logged out");
    let events = s.audit_events_until(|ev| has_event(ev, "logout", &[("sub", &victim.sub)]));
    assert_eq!(
        events.iter().filter(|e| e["event"] == "logout").count(),
        1,
        "one logout, the victim's: {events:#?}"
    );
    assert!(!has_event(&events, "logout", &[("sub", &attacker.sub)]));

    // (d) The browser's own id_token_hint with a registered post_logout_redirect_uri: at once.
    let tv2 = redeem(
        &s,
        ("shop", &shop),
        &code_in(&s, &victim, &mut vb, "openid profile"),
    );
    let v_at2 = str_field(&tv2, "access_token");
    assert_eq!(userinfo(&s, &v_at2).status, 200);
    let bye: String = url::form_urlencoded::byte_serialize(BYE.as_bytes()).collect();
    let r = vb.get(&format!(
        "{logout}?id_token_hint={}&post_logout_redirect_uri={bye}",
        str_field(&tv2, "id_token")
    ));
    assert_eq!(r.status, 302, "{}", r.text());
    assert!(location(&r).starts_with(BYE), "{}", location(&r));
    assert_eq!(userinfo(&s, &v_at2).status, 401, "the session ended");
}

// ---------------------------------------------------------------------------------------------
// 4. Avatar open redirect
// ---------------------------------------------------------------------------------------------

#[test]
fn avatar_photos_must_be_on_an_allowed_host_when_written_and_when_read() {
    // Default: no photo host is allowed.
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = signup_named(&s, "evilphoto", |c| {
        c["profile_photo"] = json!("https://evil.example/x.png");
    });
    assert_invalid_request(&r, "sign-up with a photo elsewhere");
    let app = TestApp::enroll(&s, "plainuser");
    let mut claims = app.request_claims();
    claims["profile_photo"] = json!("https://evil.example/x.png");
    assert_eq!(
        app.patch_profile(&claims).status,
        400,
        "update to a photo elsewhere"
    );
    assert_eq!(
        get(&format!("{}/v1/directory/{}/avatar", s.base, app.sub)).status,
        404
    );

    // With --photo-host cdn.example.
    let dir2 = tempfile::tempdir().unwrap();
    let s2 = TestServer::start(dir2.path(), &["--photo-host", "cdn.example"]);
    let r = signup_named(&s2, "cdnphoto", |c| {
        c["profile_photo"] = json!("https://cdn.example/a.png");
    });
    assert_eq!(r.status, 201, "{}", r.text());
    let sub = str_field(&r.json(), "sub");
    let r = get(&format!("{}/v1/directory/{sub}/avatar", s2.base));
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(r.header("location"), Some("https://cdn.example/a.png"));
    let r = signup_named(&s2, "evilphoto", |c| {
        c["profile_photo"] = json!("https://evil.example/x.png");
    });
    assert_invalid_request(&r, "a host not allowed");

    // Restarted without the allow-list: the stored photo no longer redirects.
    assert!(s2.stop().success());
    let s3 = TestServer::start(dir2.path(), &[]);
    let r = get(&format!("{}/v1/directory/{sub}/avatar", s3.base));
    assert_eq!(r.status, 404, "{:?}", r.header("location"));
    assert!(r.header("location").is_none());
}

// ---------------------------------------------------------------------------------------------
// 5. Browser-binding fixation
// ---------------------------------------------------------------------------------------------

#[test]
fn a_planted_browser_cookie_is_never_adopted() {
    let dir = tempfile::tempdir().unwrap();
    let shop = client(dir.path().to_str().unwrap(), "shop", &[]).unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let victim = TestApp::enroll(&s, "victim");
    let planted = "A".repeat(43);
    let mut vb = Browser::new();
    vb.jar.insert("scanid_browser".into(), planted.clone());
    let (page, payload) = open(&mut vb, &shop_auth_url(&s, "openid profile"));
    let cookies = set_cookies(&page);
    assert!(
        cookies
            .iter()
            .any(|c| cookie_name(c).starts_with("scanid_login_")),
        "a server-issued login cookie: {cookies:?}"
    );
    assert!(
        !cookies.iter().any(|c| c.contains(&planted)),
        "the planted value was adopted: {cookies:?}"
    );
    assert_eq!(victim.decide(&mut vb, &payload, "approve").status, 200);

    // The attacker's browser carries the planted value under every name the victim's has.
    let mut ab = Browser::new();
    ab.jar.insert("scanid_browser".into(), planted.clone());
    for name in vb.jar.keys() {
        ab.jar.insert(name.clone(), planted.clone());
    }
    let r = ab.get(&consent_url(&s, &payload));
    assert_eq!(r.status, 403, "{}", r.text());
    assert!(r.header("location").is_none());
    assert!(!r.text().contains("code="));
    let session = params_of(&payload)["session"].clone();
    let r = ab.post_form(
        &format!("{}/login-actions/consent", s.issuer),
        &[("session", &session), ("csrf", "x"), ("consent", "allow")],
    );
    assert_eq!(r.status, 403);
    assert!(r.header("location").is_none());

    // The victim's own browser completes.
    let page = vb.get(&consent_url(&s, &payload));
    assert_eq!(page.status, 200, "{}", page.text());
    let csrf = attr(&page.text(), "name=\"csrf\"", "value").expect("a consent form");
    let r = vb.post_form(
        &format!("{}/login-actions/consent", s.issuer),
        &[("session", &session), ("csrf", &csrf), ("consent", "allow")],
    );
    let loc = location(&r);
    assert!(loc.starts_with(CB), "{loc}");
    let code = params_of(&loc)
        .remove("code")
        .unwrap_or_else(|| panic!("no code in {loc}"));
    assert!(vb.jar.contains_key("scanid_session"), "{:?}", vb.jar);
    redeem(&s, ("shop", &shop), &code);
}

#[test]
fn login_cookies_on_https_are_host_prefixed_and_locked_down() {
    let dir = tempfile::tempdir().unwrap();
    client(dir.path().to_str().unwrap(), "shop", &[]);
    let s = TestServer::start(dir.path(), &["--public-url", "https://idp.example"]);
    assert_eq!(s.issuer, "https://idp.example/realms/scanid");
    let q = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(shop_auth("openid profile"))
        .finish();
    let mut b = Browser::new();
    let page = b.get(&format!(
        "{}/realms/scanid/protocol/openid-connect/auth?{q}",
        s.base
    ));
    assert_eq!(page.status, 200, "{}", page.text());
    let cookies = set_cookies(&page);
    assert!(
        cookies
            .iter()
            .any(|c| cookie_name(c).starts_with("__Host-scanid_login_")),
        "{cookies:?}"
    );
    // Every cookie set (a deletion of an old one aside) is a __Host- cookie.
    for c in cookies.iter().filter(|c| !c.contains("Max-Age=0")) {
        assert!(cookie_name(c).starts_with("__Host-"), "{c}");
        let attrs = cookie_attrs(c);
        let has = |want: &str| attrs.iter().any(|a| a.eq_ignore_ascii_case(want));
        assert!(has("Path=/"), "{c}");
        assert!(has("Secure"), "{c}");
        assert!(has("HttpOnly"), "{c}");
        assert!(has("SameSite=Lax"), "{c}");
        assert!(
            !attrs
                .iter()
                .any(|a| a.to_ascii_lowercase().starts_with("domain")),
            "{c}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 6. JWS lifetime overflow
// ---------------------------------------------------------------------------------------------

#[test]
fn registration_times_cannot_overflow_or_stretch_the_lifetime() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = signup_named(&s, "overflow", |c| {
        c["iat"] = json!(i64::MIN);
        c["exp"] = json!(i64::MAX);
    });
    assert_invalid_request(&r, "iat i64::MIN, exp i64::MAX");
    let now = TestApp::now();
    let r = signup_named(&s, "overflow", |c| {
        c["iat"] = json!(now - 1000);
        c["exp"] = json!(now + 60);
    });
    assert_invalid_request(&r, "a lifetime of 1060 s");
    // The name was not taken by either.
    let r = signup_named(&s, "overflow", |_| {});
    assert_eq!(r.status, 201, "{}", r.text());
}

// ---------------------------------------------------------------------------------------------
// 7. Claims without scope
// ---------------------------------------------------------------------------------------------

#[test]
fn groups_and_names_are_released_only_for_their_scopes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let shop = client(d, "shop", &[]).unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "claimuser");
    let shown = scanid_json(&["identity", "add-group", "--data-dir", d, &app.sub, "staff"]);
    assert_eq!(shown["groups"], json!(["staff"]));

    // scope=openid: no groups, no names.
    let (html, code) = consent_page_and_code(&s, &app, "openid");
    assert!(!html.contains("The groups you belong to"), "{html}");
    assert!(!html.contains("Your name"), "{html}");
    let t = redeem(&s, ("shop", &shop), &code);
    let at = jwt_claims(&str_field(&t, "access_token"));
    assert!(at.get("groups").is_none(), "{at}");
    assert!(at.get("preferred_username").is_none(), "{at}");
    let u = userinfo(&s, &str_field(&t, "access_token"));
    assert_eq!(u.status, 200, "{}", u.text());
    let u = u.json();
    assert_eq!(u["sub"], app.sub.as_str());
    assert_eq!(u["service_id"], app.service_id.as_str());
    for k in [
        "groups",
        "preferred_username",
        "peferred_username",
        "username",
    ] {
        assert!(u.get(k).is_none(), "{k} without its scope: {u}");
    }
    // Introspection by the token's own client releases no more than userinfo.
    let i = introspect(&s, ("shop", &shop), &str_field(&t, "access_token"));
    assert_eq!(i["active"], true);
    for k in ["groups", "username", "preferred_username"] {
        assert!(
            i.get(k).is_none(),
            "introspection: {k} without its scope: {i}"
        );
    }

    // scope=openid groups: the consent page names the groups.
    let (html, _) = consent_page_and_code(&s, &app, "openid groups");
    assert!(html.contains("The groups you belong to"), "{html}");

    // scope=openid profile groups: everything.
    let (_, code) = consent_page_and_code(&s, &app, "openid profile groups");
    let t = redeem(&s, ("shop", &shop), &code);
    let u = userinfo(&s, &str_field(&t, "access_token"));
    assert_eq!(u.status, 200, "{}", u.text());
    let u = u.json();
    assert_eq!(u["sub"], app.sub.as_str());
    assert_eq!(u["preferred_username"], "claimuser");
    assert_eq!(u["peferred_username"], "claimuser");
    assert_eq!(u["username"], "claimuser");
    assert!(
        u["groups"]
            .as_array()
            .is_some_and(|g| g.contains(&json!("staff"))),
        "{u}"
    );
}

// ---------------------------------------------------------------------------------------------
// 8. Cross-client introspection
// ---------------------------------------------------------------------------------------------

#[test]
fn only_the_owner_or_a_resource_server_introspects_a_token() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let shop = client(d, "shop", &[]).unwrap();
    let other = client(d, "other", &[]).unwrap();
    let rs = client(d, "rs", &["--resource-server"]).unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "introuser");
    let mut b = Browser::new();
    let t = redeem(
        &s,
        ("shop", &shop),
        &code_in(&s, &app, &mut b, "openid profile"),
    );
    let at = str_field(&t, "access_token");
    let rt = str_field(&t, "refresh_token");
    assert_eq!(
        introspect(&s, ("other", &other), &at),
        json!({ "active": false }),
        "another client"
    );
    assert_eq!(introspect(&s, ("rs", &rs), &at)["active"], true);
    assert_eq!(introspect(&s, ("shop", &shop), &at)["active"], true);
    assert_eq!(
        introspect(&s, ("rs", &rs), &rt),
        json!({ "active": false }),
        "a refresh token is for its own client only"
    );
    assert_eq!(
        introspect(&s, ("other", &other), &rt),
        json!({ "active": false })
    );
    assert_eq!(introspect(&s, ("shop", &shop), &rt)["active"], true);
}

// ---------------------------------------------------------------------------------------------
// 9. Userinfo token in the URL
// ---------------------------------------------------------------------------------------------

#[test]
fn userinfo_refuses_a_token_in_the_query_string() {
    let dir = tempfile::tempdir().unwrap();
    let shop = client(dir.path().to_str().unwrap(), "shop", &[]).unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "urluser");
    let mut b = Browser::new();
    let t = redeem(
        &s,
        ("shop", &shop),
        &code_in(&s, &app, &mut b, "openid profile"),
    );
    let at = str_field(&t, "access_token");
    let r = get(&format!("{}?access_token={at}", s.oidc("userinfo")));
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_request");
    assert!(!r.text().contains(&app.sub), "user data: {}", r.text());
    assert!(!r.text().contains("urluser"), "user data: {}", r.text());
    assert_eq!(userinfo(&s, &at).status, 200, "the header still works");
    let r = post_form(&s.oidc("userinfo"), None, &[("access_token", &at)]);
    assert_eq!(r.status, 200, "the form body still works: {}", r.text());
}

// ---------------------------------------------------------------------------------------------
// 10. Duplicate response parameters
// ---------------------------------------------------------------------------------------------

#[test]
fn redirect_uris_cannot_carry_authorization_response_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    for uri in [
        "https://a.example/cb?error_description=x",
        "https://a.example/cb?error_uri=x",
        "https://a.example/cb?session_state=x",
    ] {
        let out = scanid(&[
            "client",
            "create",
            "--data-dir",
            d,
            "--name",
            "Reserved",
            "--redirect-uri",
            uri,
        ]);
        assert!(
            !out.status.success(),
            "{uri} was registered: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let ok = scanid_json(&[
        "client",
        "create",
        "--data-dir",
        d,
        "--name",
        "Tenant",
        "--redirect-uri",
        "https://a.example/cb?tenant=1",
    ]);
    assert!(ok["client_id"].is_string());
}

// ---------------------------------------------------------------------------------------------
// 11. Slow, large and too many connections
// ---------------------------------------------------------------------------------------------

#[test]
fn slow_and_oversized_requests_are_cut_off_and_shutdown_does_not_wait_for_them() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(
        dir.path(),
        &[
            "--request-timeout-secs",
            "1",
            "--max-body-bytes",
            "1024",
            "--max-connections",
            "4",
        ],
    );
    assert_eq!(get(&s.url(DISCOVERY)).status, 200);

    // (a) A body that never finishes: 408 and a closed connection, not a hang.
    let mut stalled = TcpStream::connect(s.addr()).unwrap();
    stalled
        .write_all(format!("{}grant_type", post_head(&s, 100)).as_bytes())
        .unwrap();
    let started = Instant::now();
    let (answer, ended) = read_raw(&mut stalled, Duration::from_secs(5));
    let answer = String::from_utf8_lossy(&answer).into_owned();
    assert!(
        ended,
        "the stalled request was still open after {:?}",
        started.elapsed()
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    // The head arrived whole: the body's timeout answers 408 before closing.
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");

    // (b) A body over --max-body-bytes: 413.
    let mut big = post_head(&s, 2000).into_bytes();
    big.extend_from_slice(&[b'x'; 2000]);
    let (answer, _) = raw_request(&s, &big, Duration::from_secs(5));
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");

    // The server still serves.
    assert_eq!(get(&s.url(DISCOVERY)).status, 200);

    // (d) SIGTERM with a half-sent request open: a clean, prompt exit.
    let mut half = TcpStream::connect(s.addr()).unwrap();
    half.write_all(format!("{}grant_type", post_head(&s, 100)).as_bytes())
        .unwrap();
    let status = s.stop();
    assert!(status.success(), "{status:?}");
    drop(half);
}

#[test]
fn connections_beyond_the_cap_get_503_at_once() {
    let dir = tempfile::tempdir().unwrap();
    // A request timeout long enough that the idle connections below stay open meanwhile.
    let s = TestServer::start(
        dir.path(),
        &["--max-connections", "4", "--request-timeout-secs", "10"],
    );
    assert_eq!(get(&s.url(DISCOVERY)).status, 200);
    // That connection's slot is freed when the server's connection task ends, just after the
    // client saw EOF: let it end before the idle connections arrive.
    std::thread::sleep(Duration::from_millis(300));
    let idle: Vec<TcpStream> = (0..4)
        .map(|_| TcpStream::connect(s.addr()).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    let (answer, ended) = raw_request(&s, discovery_get(&s).as_bytes(), Duration::from_secs(5));
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(
        answer
            .split("\r\n\r\n")
            .next()
            .unwrap_or("")
            .lines()
            .any(|l| l.to_ascii_lowercase().starts_with("retry-after:")),
        "{answer}"
    );
    assert!(
        ended && started.elapsed() < Duration::from_secs(3),
        "answered and closed at once"
    );
    drop(idle);
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let (answer, _) = raw_request(&s, discovery_get(&s).as_bytes(), Duration::from_secs(5));
        if answer.starts_with("HTTP/1.1 200") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "still refused after the idle connections closed: {answer}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

// ---------------------------------------------------------------------------------------------
// 12. Sign-up abuse
// ---------------------------------------------------------------------------------------------

#[test]
fn signups_are_limited_per_source() {
    let dir = tempfile::tempdir().unwrap();
    let mut extra = TRUST_LOCAL_PROXY.to_vec();
    extra.extend_from_slice(&["--signup-rate-per-hour", "3"]);
    let s = TestServer::start_with_audit(dir.path(), &extra);
    clear_of_window_edge();
    for i in 0..4 {
        let (key, pk) = TestApp::key();
        let r = signup(
            &s,
            Some(ATTACKER),
            &registration(&s, &key, &pk, &format!("bulk{i}"), |_| {}),
        );
        if i < 3 {
            assert_eq!(r.status, 201, "sign-up {i}: {}", r.text());
        } else {
            assert_eq!(r.status, 429, "sign-up {i}: {}", r.text());
            assert!(r.header("retry-after").is_some());
        }
    }
    let (key, pk) = TestApp::key();
    let r = signup(
        &s,
        Some(BYSTANDER),
        &registration(&s, &key, &pk, "bystander", |_| {}),
    );
    assert_eq!(r.status, 201, "another source: {}", r.text());
    let events = s.audit_events_until(|ev| {
        has_event(
            ev,
            "rate_limited",
            &[("source", ATTACKER), ("detail", "signup")],
        )
    });
    event_at(
        &events,
        "rate_limited",
        &[("source", ATTACKER), ("detail", "signup")],
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| e["event"] == "identity.created")
            .count(),
        4,
        "three from the attacker's address, one from another"
    );
}

#[test]
fn invisible_and_bidi_characters_are_refused_in_names() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let s = TestServer::start(dir.path(), &["--signup-rate-per-hour", "100"]);
    let app = TestApp::enroll(&s, "honest");
    for (i, c) in ['\u{202E}', '\u{200B}', '\u{2066}', '\u{FEFF}']
        .into_iter()
        .enumerate()
    {
        let display = format!("Ali{c}ce");
        let why = format!("U+{:04X}", u32::from(c));
        let r = signup_named(&s, &format!("sneaky{i}"), |cl| {
            cl["display_name"] = json!(display);
        });
        assert_invalid_request(&r, &format!("sign-up {why}"));
        let mut claims = app.request_claims();
        claims["display_name"] = json!(display);
        assert_invalid_request(&app.patch_profile(&claims), &format!("update {why}"));
    }
    assert_eq!(
        get(&format!("{}/v1/directory/{}", s.base, app.sub)).json()["display_name"],
        "honest display"
    );
    let out = scanid(&[
        "client",
        "create",
        "--data-dir",
        d,
        "--name",
        "Shop\u{202E}gpj.exe",
        "--redirect-uri",
        CB,
    ]);
    assert!(
        !out.status.success(),
        "registered: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

// ---------------------------------------------------------------------------------------------
// 13. Deleted client
// ---------------------------------------------------------------------------------------------

#[test]
fn a_deleted_clients_tokens_die_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let shop = client(d, "shop", &[]).unwrap();
    let rs = client(d, "rs", &["--resource-server"]).unwrap();
    let s = TestServer::start_with_audit(dir.path(), &[]);
    let app = TestApp::enroll(&s, "orphan");
    let mut b = Browser::new();
    let t = redeem(
        &s,
        ("shop", &shop),
        &code_in(&s, &app, &mut b, "openid profile"),
    );
    let at = str_field(&t, "access_token");
    let rt = str_field(&t, "refresh_token");
    assert_eq!(userinfo(&s, &at).status, 200);
    assert_eq!(introspect(&s, ("rs", &rs), &at)["active"], true);
    let deleted = scanid_json(&["client", "delete", "--data-dir", d, "--client-id", "shop"]);
    assert_eq!(deleted["deleted"], true);
    assert_eq!(userinfo(&s, &at).status, 401);
    assert_eq!(introspect(&s, ("rs", &rs), &at), json!({ "active": false }));
    let r = post_form(
        &s.oidc("token"),
        Some(("shop", &shop)),
        &[("grant_type", "refresh_token"), ("refresh_token", &rt)],
    );
    assert_eq!(r.status, 401, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_client");
    let events =
        s.audit_events_until(|ev| has_event(ev, "client_auth.failed", &[("client_id", "shop")]));
    event_at(&events, "client_auth.failed", &[("client_id", "shop")]);
    // Registering the same client_id again does not bring the old tokens back. (Timestamps are
    // in seconds: let the new registration be strictly later.)
    std::thread::sleep(Duration::from_millis(1100));
    let again = client(d, "shop", &[]).unwrap();
    assert_eq!(userinfo(&s, &at).status, 401, "the old token stays dead");
    assert_eq!(introspect(&s, ("rs", &rs), &at), json!({ "active": false }));
    let r = post_form(
        &s.oidc("token"),
        Some(("shop", &again)),
        &[("grant_type", "refresh_token"), ("refresh_token", &rt)],
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_grant");
}

// ---------------------------------------------------------------------------------------------
// 14. Key rotation with one jti for both signatures
// ---------------------------------------------------------------------------------------------

#[test]
fn key_rotation_with_one_jti_for_both_signatures_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "rotator");
    let r = app.rotate_key_sharing_one_jti();
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(
        get(&format!("{}/v1/directory/{}", s.base, app.sub)).json()["public_key"],
        app.public_key.as_str(),
        "the key is unchanged"
    );
}

// ---------------------------------------------------------------------------------------------
// 15. HSTS
// ---------------------------------------------------------------------------------------------

#[test]
fn hsts_only_when_served_as_https() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &["--public-url", "https://idp.example"]);
    let r = get(&s.url(DISCOVERY));
    assert_eq!(r.status, 200);
    assert!(
        r.header("strict-transport-security")
            .is_some_and(|h| h.contains("max-age=")),
        "{:?}",
        r.headers
    );
    let dir2 = tempfile::tempdir().unwrap();
    let plain = TestServer::start(dir2.path(), &[]);
    let r = get(&plain.url(DISCOVERY));
    assert_eq!(r.status, 200);
    assert!(r.header("strict-transport-security").is_none());
}

// ---------------------------------------------------------------------------------------------
// Audit events
// ---------------------------------------------------------------------------------------------

#[test]
fn audit_events_of_a_full_login() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let shop = client(d, "shop", &["--post-logout-redirect-uri", BYE]).unwrap();
    let s = TestServer::start_with_audit(dir.path(), &[]);
    let app = TestApp::enroll(&s, "audited");
    let mut b = Browser::new();
    let code = code_in(&s, &app, &mut b, "openid profile");
    let t = redeem(&s, ("shop", &shop), &code);
    let rt1 = str_field(&t, "refresh_token");
    let r = post_form(
        &s.oidc("token"),
        Some(("shop", &shop)),
        &[("grant_type", "refresh_token"), ("refresh_token", &rt1)],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let t2 = r.json();
    let bye: String = url::form_urlencoded::byte_serialize(BYE.as_bytes()).collect();
    let r = b.get(&format!(
        "{}?id_token_hint={}&post_logout_redirect_uri={bye}",
        &s.oidc("logout"),
        str_field(&t2, "id_token")
    ));
    assert_eq!(r.status, 302, "{}", r.text());

    let sub = app.sub.as_str();
    let both = [("client_id", "shop"), ("sub", sub)];
    let events = s.audit_events_until(|ev| has_event(ev, "logout", &[("sub", sub)]));
    let created = event_at(&events, "identity.created", &[("sub", sub)]);
    let started = event_at(&events, "login.started", &[("client_id", "shop")]);
    let approved = event_at(&events, "login.approved", &both);
    let granted = event_at(&events, "consent.granted", &both);
    let issued = event_at(&events, "code.issued", &both);
    let redeemed = event_at(&events, "code.redeemed", &both);
    let rotated = event_at(&events, "refresh.rotated", &both);
    let logout = event_at(&events, "logout", &[("sub", sub)]);
    assert!(created < started && started < approved, "{events:#?}");
    assert!(
        approved < granted.min(issued) && granted.max(issued) < redeemed,
        "{events:#?}"
    );
    assert!(redeemed < rotated && rotated < logout, "{events:#?}");
    // Never a secret, code or token.
    let log = s.log_text();
    for (what, secret) in [
        ("client secret", shop.clone()),
        ("code", code.clone()),
        ("refresh token", rt1.clone()),
        ("rotated refresh token", str_field(&t2, "refresh_token")),
        ("access token", str_field(&t, "access_token")),
        ("id token", str_field(&t2, "id_token")),
    ] {
        assert!(!log.contains(&secret), "the {what} was logged");
    }
}

#[test]
fn a_replayed_code_is_refused_and_audited() {
    let dir = tempfile::tempdir().unwrap();
    let shop = client(dir.path().to_str().unwrap(), "shop", &[]).unwrap();
    let s = TestServer::start_with_audit(dir.path(), &[]);
    let app = TestApp::enroll(&s, "replayed");
    let mut b = Browser::new();
    let code = code_in(&s, &app, &mut b, "openid profile");
    let t = redeem(&s, ("shop", &shop), &code);
    let r = post_form(
        &s.oidc("token"),
        Some(("shop", &shop)),
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", CB),
        ],
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_grant");
    assert_eq!(
        userinfo(&s, &str_field(&t, "access_token")).status,
        401,
        "the replay revoked the first tokens"
    );
    let events =
        s.audit_events_until(|ev| has_event(ev, "code.replayed", &[("client_id", "shop")]));
    event_at(&events, "code.replayed", &[("client_id", "shop")]);
    assert!(!s.log_text().contains(&code), "the code was logged");
}

// ---------------------------------------------------------------------------------------------
// Hosted photos (issue 25, items 2 and 3)
// ---------------------------------------------------------------------------------------------

/// Where `s` serves `image` of identity `sub`, were it stored.
fn photo_url_of(s: &TestServer, sub: &str, image: &[u8]) -> String {
    format!(
        "{}/v1/photos/{sub}/{}",
        s.base,
        scanid_core::domain::photo::content_hash(image)
    )
}

/// Deletes `app`'s identity, signed by its device key; panics unless 200.
fn delete_identity(app: &TestApp) {
    let jws = TestApp::sign(&app.key, "deletion+jwt", &app.request_claims());
    let r = request(
        "DELETE",
        &format!("{}/app/identities/{}", app.issuer, app.sub),
        &[("Content-Type", "application/json")],
        json!({ "deletion": jws }).to_string().as_bytes(),
    );
    assert_eq!(r.status, 200, "deletion: {}", r.text());
}

/// Waits past the end of the hour when fewer than 30 s of it are left (an hourly limit's
/// window must not split a burst).
fn clear_of_hour_edge() {
    let into = TestApp::now().rem_euclid(3600);
    if into >= 3570 {
        std::thread::sleep(Duration::from_secs(u64::try_from(3601 - into).unwrap()));
    }
}

/// Issue 25.2: an upload the service refuses (its `jti` spent already: 409) stored its bytes
/// before the refusal, and `GET /v1/photos/{sub}/{hash}` served them publicly. Now nothing
/// of a refused upload is stored, and only the identity's current photo is served.
#[test]
fn a_refused_photo_upload_leaves_nothing_served_at_its_url() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "refused.upload");
    let first = scanid_tests::png(32, 32);
    let mut claims = app.request_claims();
    claims["sha256"] = json!(scanid_tests::sha256_of(&first));
    let r = app.upload_photo_signed(&claims, &first);
    assert_eq!(r.status, 200, "{}", r.text());
    let current = r.json()["profile_photo"].as_str().unwrap().to_owned();
    // The same jti again, now signing other bytes: refused as a replay.
    let smuggled = scanid_tests::png(48, 48);
    claims["sha256"] = json!(scanid_tests::sha256_of(&smuggled));
    let r = app.upload_photo_signed(&claims, &smuggled);
    assert_eq!(r.status, 409, "{}", r.text());
    let r = get(&photo_url_of(&s, &app.sub, &smuggled));
    assert_eq!(r.status, 404, "a refused upload is served: {}", r.status);
    assert!(
        !dir.path()
            .join("photos")
            .join(&app.sub)
            .join(scanid_core::domain::photo::content_hash(&smuggled))
            .exists(),
        "a refused upload is stored"
    );
    assert_eq!(get(&current).status, 200, "the accepted one is");
    // A refused image (too large) is not stored either.
    let big = scanid_tests::png(5000, 10);
    assert_eq!(app.upload_photo(&big, None).status, 400);
    assert_eq!(get(&photo_url_of(&s, &app.sub, &big)).status, 404);
}

/// Issue 25.2: a photo is served only while it is its live identity's current photo: not
/// once replaced, not while the identity is disabled, not after it is deleted; deleting an
/// identity removes every object under its name, also one no record names (left by a crash
/// between an upload's commit and its store, simulated here by writing it directly).
#[test]
fn a_photo_is_gone_once_replaced_disabled_or_its_identity_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "photo.gone");
    let first = scanid_tests::png(20, 20);
    let r = app.upload_photo(&first, None);
    assert_eq!(r.status, 200, "{}", r.text());
    let first_url = r.json()["profile_photo"].as_str().unwrap().to_owned();
    let second = scanid_tests::png(24, 24);
    let r = app.upload_photo(&second, None);
    assert_eq!(r.status, 200, "{}", r.text());
    let second_url = r.json()["profile_photo"].as_str().unwrap().to_owned();
    assert_eq!(get(&first_url).status, 404, "replaced");
    let ok = get(&second_url);
    assert_eq!(ok.status, 200);
    // Cached briefly, so that a deletion takes effect in caches too.
    assert_eq!(ok.header("cache-control"), Some("public, max-age=300"));
    // An object no record names (a crash's leftover) is never served.
    let stray = scanid_tests::png(28, 28);
    let stray_file = dir
        .path()
        .join("photos")
        .join(&app.sub)
        .join(scanid_core::domain::photo::content_hash(&stray));
    std::fs::write(&stray_file, &stray).unwrap();
    assert_eq!(get(&photo_url_of(&s, &app.sub, &stray)).status, 404);
    // Disabled: not served; enabled again: served.
    scanid_json(&["identity", "disable", "--data-dir", d, &app.sub]);
    assert_eq!(get(&second_url).status, 404, "a disabled identity's photo");
    scanid_json(&["identity", "enable", "--data-dir", d, &app.sub]);
    assert_eq!(get(&second_url).status, 200);
    // Deleted: nothing served (not even a 304 to a cache that holds it), nothing left under
    // its name.
    let etag = ok.header("etag").unwrap_or("\"x\"").to_owned();
    delete_identity(&app);
    assert_eq!(get(&second_url).status, 404);
    assert_eq!(
        request("GET", &second_url, &[("If-None-Match", &etag)], b"").status,
        404
    );
    assert_eq!(get(&photo_url_of(&s, &app.sub, &stray)).status, 404);
    assert!(
        !dir.path().join("photos").join(&app.sub).exists(),
        "a deleted identity's photos are left: {:?}",
        std::fs::read_dir(dir.path().join("photos").join(&app.sub))
            .map(|d| d.count())
            .ok()
    );
    // Its device uploads nothing more.
    let late = scanid_tests::png(30, 30);
    assert_eq!(app.upload_photo(&late, None).status, 404);
    assert!(!dir.path().join("photos").join(&app.sub).exists());
}

/// Issue 25.2: uploads are limited per identity and hour (429 with `Retry-After`); another
/// identity is not affected.
#[test]
fn photo_uploads_are_limited_per_identity_and_hour() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "many.uploads");
    let other = TestApp::enroll(&s, "one.upload");
    clear_of_hour_edge();
    // The default: 10 an hour.
    for i in 0..10u32 {
        let r = app.upload_photo(&scanid_tests::png(10 + i, 10), None);
        assert_eq!(r.status, 200, "upload {i}: {}", r.text());
    }
    let r = app.upload_photo(&scanid_tests::png(64, 64), None);
    assert_eq!(r.status, 429, "the 11th upload: {}", r.text());
    let wait: i64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=3600).contains(&wait), "{wait}");
    assert_eq!(
        get(&photo_url_of(&s, &app.sub, &scanid_tests::png(64, 64))).status,
        404
    );
    let r = other.upload_photo(&scanid_tests::png(64, 64), None);
    assert_eq!(r.status, 200, "another identity: {}", r.text());
    // The setting.
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &["--photo-upload-rate-per-hour", "1"]);
    let app = TestApp::enroll(&s, "one.an.hour");
    clear_of_hour_edge();
    assert_eq!(app.upload_photo(&scanid_tests::png(8, 8), None).status, 200);
    assert_eq!(app.upload_photo(&scanid_tests::png(9, 9), None).status, 429);
}

/// Issue 25.3: a 65 KB JPEG whose 20000 × 20000 frame header hides behind a standalone
/// marker (a decompression bomb for every browser showing the avatar) is refused as too
/// large a picture, measured as libjpeg measures it.
#[test]
fn a_jpeg_hiding_its_size_behind_a_standalone_marker_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "jpeg.bomb");
    let bomb = scanid_tests::jpeg_bomb();
    assert!(bomb.len() < 70_000);
    let r = app.upload_photo(&bomb, None);
    assert_eq!(r.status, 400, "the bomb: {}", r.text());
    assert!(
        r.json()["error_description"]
            .as_str()
            .unwrap()
            .contains("4096"),
        "{}",
        r.text()
    );
    assert_eq!(get(&photo_url_of(&s, &app.sub, &bomb)).status, 404);
}
