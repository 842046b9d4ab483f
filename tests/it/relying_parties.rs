//! What relying parties written for Keycloak meet, as raw HTTP: CORS per client's web origins
//! (and none for anyone else), the nonce/state policy with PKCE, Keycloak's introspection path
//! and back-channel `POST logout`, the pages `keycloak-js` loads, and OIDC Back-Channel Logout
//! to a receiver. The real libraries (oidc-client-ts, keycloak-js, oauth4webapi, authlib) drive
//! the same through Chromium in tests/js/rp-matrix.test.mjs.

use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;

use scanid_tests::{
    auth_url, code_of, create_client, jwt_claims, jwt_header, location, login, params_of,
    post_form, post_form_with, pyjwt_verify, redeem, request, scanid_json, secret_of,
    silent_login_error, userinfo, Browser, Resp, TestApp, TestServer, CB, PKCE_CHALLENGE,
    PKCE_VERIFIER,
};
use serde_json::{json, Value};

const SPA_ORIGIN: &str = "http://127.0.0.1:3000";
const SPA_CB: &str = "http://127.0.0.1:3000/callback";

struct Env {
    s: TestServer,
    shop: String,
    app: TestApp,
    _dir: tempfile::TempDir,
}

fn env(extra_serve: &[&str], bcl: Option<&str>) -> Env {
    env_in(tempfile::tempdir().unwrap(), extra_serve, bcl)
}

/// [`env`] in `dir`, which may hold other clients already.
fn env_in(dir: tempfile::TempDir, extra_serve: &[&str], bcl: Option<&str>) -> Env {
    let d = dir.path().to_str().unwrap();
    create_client(
        d,
        &[
            "--name",
            "SPA",
            "--client-id",
            "spa",
            "--public",
            "--redirect-uri",
            SPA_CB,
            "--post-logout-redirect-uri",
            SPA_ORIGIN,
        ],
    );
    let mut shop_args = vec![
        "--name",
        "Shop",
        "--client-id",
        "shop",
        "--redirect-uri",
        CB,
        "--post-logout-redirect-uri",
        "https://shop.example/bye",
    ];
    if let Some(uri) = bcl {
        // A loopback receiver: local development, named by a loopback public URL.
        shop_args.extend_from_slice(&[
            "--backchannel-logout-uri",
            uri,
            "--public-url",
            "http://127.0.0.1",
        ]);
    }
    let shop = secret_of(&create_client(d, &shop_args));
    let s = TestServer::start(dir.path(), extra_serve);
    let app = TestApp::enroll(&s, "rita");
    Env {
        s,
        shop,
        app,
        _dir: dir,
    }
}

/// A login in `b`: through the QR, or (with an SSO session) straight to consent; the
/// response that sends the browser back to the client.
fn sso_or_qr_login(e: &Env, b: &mut Browser, url: &str) -> Resp {
    let first = b.get(url);
    if first.status != 302 {
        return login(b, &e.s, &e.app, url);
    }
    let consent = location(&first);
    let page = b.get(&consent);
    let Some(csrf) = scanid_tests::attr(&page.text(), "name=\"csrf\"", "value") else {
        return page;
    };
    let session = params_of(&consent)["session"].clone();
    b.post_form(
        &format!("{}/login-actions/consent", e.s.issuer),
        &[("session", &session), ("csrf", &csrf), ("consent", "allow")],
    )
}

/// The SPA's code flow: PKCE S256, and (as oidc-client-ts) neither nonce nor state.
fn spa_code(e: &Env, b: &mut Browser) -> String {
    let r = sso_or_qr_login(
        e,
        b,
        &auth_url(
            &e.s,
            &[
                ("client_id", "spa"),
                ("redirect_uri", SPA_CB),
                ("response_type", "code"),
                ("scope", "openid profile"),
                ("code_challenge", PKCE_CHALLENGE),
                ("code_challenge_method", "S256"),
            ],
        ),
    );
    let p = params_of(&location(&r));
    assert!(!p.contains_key("state"), "no state sent, none returned");
    p["code"].clone()
}

fn spa_tokens(e: &Env, b: &mut Browser, origin: &str) -> (Resp, Value) {
    let code = spa_code(e, b);
    let r = post_form_with(
        &e.s.oidc("token"),
        &[("Origin", origin)],
        None,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", "spa"),
            ("code", &code),
            ("redirect_uri", SPA_CB),
            ("code_verifier", PKCE_VERIFIER),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    (r, v)
}

fn no_cors(r: &Resp) {
    for h in [
        "access-control-allow-origin",
        "access-control-allow-credentials",
        "access-control-allow-methods",
    ] {
        assert!(r.header(h).is_none(), "{h}: {:?}", r.headers);
    }
}

fn cors_for(r: &Resp, origin: &str) {
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some(origin),
        "{:?}",
        r.headers
    );
    assert_eq!(r.header("access-control-allow-credentials"), Some("true"));
    assert!(r.header("vary").is_some_and(|v| v.contains("Origin")));
}

#[test]
fn a_single_page_app_logs_in_with_cors_from_its_own_origin_only() {
    let e = env(&[], None);
    let mut b = Browser::new();
    // The public client's default web origin is `+`: its redirect URI's origin.
    let (r, t) = spa_tokens(&e, &mut b, SPA_ORIGIN);
    cors_for(&r, SPA_ORIGIN);
    assert!(jwt_claims(t["id_token"].as_str().unwrap())
        .get("nonce")
        .is_none());
    let at = format!("Bearer {}", t["access_token"].as_str().unwrap());
    let userinfo = e.s.oidc("userinfo");
    let r = request(
        "GET",
        &userinfo,
        &[("Authorization", &at), ("Origin", SPA_ORIGIN)],
        b"",
    );
    assert_eq!(r.status, 200);
    cors_for(&r, SPA_ORIGIN);
    // Another origin: the same calls work for a server, but carry no CORS header.
    let r = request(
        "GET",
        &userinfo,
        &[("Authorization", &at), ("Origin", "http://evil.example")],
        b"",
    );
    assert_eq!(r.status, 200);
    no_cors(&r);
    let r = post_form_with(
        &e.s.oidc("token"),
        &[("Origin", "http://evil.example")],
        None,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", "spa"),
            ("refresh_token", t["refresh_token"].as_str().unwrap()),
        ],
    );
    no_cors(&r);
    // Errors to the registered origin are readable by the page (CORS on the 400 too).
    let r = post_form_with(
        &e.s.oidc("token"),
        &[("Origin", SPA_ORIGIN)],
        None,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", "spa"),
            ("refresh_token", "nope"),
        ],
    );
    assert_eq!(r.status, 400);
    cors_for(&r, SPA_ORIGIN);
    // A confidential client with no web origins registered: none for its own redirect origin.
    let r = post_form_with(
        &e.s.oidc("token"),
        &[("Origin", "https://shop.example")],
        None,
        &[("grant_type", "client_credentials")],
    );
    no_cors(&r);
}

#[test]
fn preflights_answer_registered_origins_only_and_metadata_stays_open() {
    let e = env(&[], None);
    let preflight = |path: &str, origin: &str| {
        request(
            "OPTIONS",
            &e.s.oidc(path),
            &[
                ("Origin", origin),
                ("Access-Control-Request-Method", "POST"),
                (
                    "Access-Control-Request-Headers",
                    "authorization, content-type",
                ),
            ],
            b"",
        )
    };
    for path in ["token", "userinfo", "revoke", "logout"] {
        let r = preflight(path, SPA_ORIGIN);
        assert_eq!(r.status, 204, "{path}");
        cors_for(&r, SPA_ORIGIN);
        let headers = r
            .header("access-control-allow-headers")
            .unwrap()
            .to_ascii_lowercase();
        assert!(headers.contains("authorization") && headers.contains("content-type"));
        assert!(r
            .header("access-control-allow-methods")
            .unwrap()
            .contains("POST"));
        let r = preflight(path, "http://evil.example");
        assert_eq!(r.status, 403, "{path}");
        no_cors(&r);
    }
    // Never `*` on these endpoints; discovery and the JWKS are public documents.
    for doc in [
        ".well-known/openid-configuration",
        "protocol/openid-connect/certs",
    ] {
        let r = request(
            "GET",
            &format!("{}/{doc}", e.s.issuer),
            &[("Origin", "http://evil.example")],
            b"",
        );
        assert_eq!(r.header("access-control-allow-origin"), Some("*"), "{doc}");
    }
    // No CORS at all on the authorization endpoint (docs/requirements.md A13).
    let r = request(
        "GET",
        &auth_url(&e.s, &[("client_id", "spa")]),
        &[("Origin", SPA_ORIGIN)],
        b"",
    );
    no_cors(&r);
}

#[test]
fn web_origins_are_registered_per_client() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let explicit = create_client(
        d,
        &[
            "--name",
            "Web",
            "--redirect-uri",
            "https://web.example/cb",
            "--web-origin",
            "https://app.web.example",
            "--web-origin",
            "+",
        ],
    );
    let listed = scanid_json(&["client", "list", "--data-dir", d]);
    let me = listed["clients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["client_id"] == explicit["client_id"])
        .unwrap()
        .clone();
    assert_eq!(
        me["web_origins"],
        json!(["https://app.web.example", "+"]),
        "{me}"
    );
    for bad in ["*", "https://x.example/", "http://x.example"] {
        let out = scanid_tests::scanid(&[
            "client",
            "create",
            "--data-dir",
            d,
            "--name",
            "Bad",
            "--redirect-uri",
            "https://x.example/cb",
            "--web-origin",
            bad,
        ]);
        assert!(!out.status.success(), "{bad}");
    }
}

#[test]
fn nonce_is_optional_and_state_optional_with_pkce_only_unless_the_realm_requires_them() {
    let e = env(&[], None);
    let mut b = Browser::new();
    let pairs = |missing: &str| {
        let mut pairs = vec![
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("state", "s"),
            ("nonce", "n"),
        ];
        pairs.retain(|(k, _)| *k != missing);
        pairs
    };
    // Without PKCE (a confidential client): state stays required (CSRF)...
    let p = params_of(&location(&b.get(&auth_url(&e.s, &pairs("state")))));
    assert_eq!(p["error"], "invalid_request");
    assert!(p["error_description"].contains("state"));
    // ... and nonce is optional (OIDC Core 3.1.2.1): the QR page.
    assert_eq!(b.get(&auth_url(&e.s, &pairs("nonce"))).status, 200);
    // With PKCE: the SPA flow above needs neither (spa_code asserts no state comes back).
    spa_code(&e, &mut Browser::new());

    let strict = env(&["--require-nonce", "true"], None);
    let r = Browser::new().get(&auth_url(&strict.s, &pairs("nonce")));
    let p = params_of(&location(&r));
    assert_eq!(p["error"], "invalid_request");
    assert!(p["error_description"].contains("nonce"));
    let r = Browser::new().get(&auth_url(
        &strict.s,
        &[
            ("client_id", "spa"),
            ("redirect_uri", SPA_CB),
            ("response_type", "code"),
            ("state", "s"),
            ("code_challenge", PKCE_CHALLENGE),
            ("code_challenge_method", "S256"),
        ],
    ));
    assert_eq!(params_of(&location(&r))["error"], "invalid_request");
}

/// A confidential code flow for shop in browser `b`; the token response.
fn shop_tokens(e: &Env, b: &mut Browser) -> Value {
    let r = login(
        b,
        &e.s,
        &e.app,
        &auth_url(
            &e.s,
            &[
                ("client_id", "shop"),
                ("redirect_uri", CB),
                ("response_type", "code"),
                ("state", "s"),
                ("nonce", "n"),
                ("scope", "openid"),
            ],
        ),
    );
    redeem(&e.s, ("shop", &e.shop), &code_of(&r))
}

#[test]
fn keycloak_introspection_path_and_back_channel_post_logout() {
    let e = env(&[], None);
    let mut b = Browser::new();
    let t = shop_tokens(&e, &mut b);
    let at = t["access_token"].as_str().unwrap();
    let rt = t["refresh_token"].as_str().unwrap();
    let introspect = |path: &str, token: &str| {
        let r = post_form(
            &e.s.oidc(path),
            Some(("shop", &e.shop)),
            &[("token", token)],
        );
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        r.json()
    };
    assert_eq!(introspect("token/introspect", at)["active"], true);
    assert_eq!(introspect("introspect", at)["active"], true);
    // The refresh token is shaped like Keycloak's (keycloak-js decodes it) but verifies with
    // no published key: no resource server can take it for an access token.
    let rc = jwt_claims(rt);
    assert_eq!(rc["typ"], "Refresh");
    assert_eq!(rc["azp"], "shop");
    assert_eq!(jwt_header(rt)["alg"], "HS256");
    let out = pyjwt_verify(&e.s.oidc("certs"), &e.s.issuer, rt);
    assert!(
        !out.status.success(),
        "a refresh token verified against the JWKS"
    );
    assert_eq!(userinfo(&e.s, rt).status, 401, "not an access token");
    // Only an ID token is a logout hint: the access token (same sid and sub) is refused.
    let r = b.get(&format!(
        "{}/protocol/openid-connect/logout?id_token_hint={at}",
        e.s.issuer
    ));
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(jwt_claims(t["id_token"].as_str().unwrap())["typ"], "ID");
    assert_eq!(
        introspect("introspect", at)["active"],
        true,
        "nothing ended"
    );
    let logout = e.s.oidc("logout");
    // Another (public) client, authenticated by its client_id, cannot end shop's grant.
    let r = post_form(
        &logout,
        None,
        &[("client_id", "spa"), ("refresh_token", rt)],
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_grant");
    assert_eq!(introspect("token/introspect", at)["active"], true);
    // Keycloak's back-channel logout: client credentials + refresh_token -> 204.
    let r = post_form(&logout, Some(("shop", &e.shop)), &[("refresh_token", rt)]);
    assert_eq!(r.status, 204, "{}", r.text());
    assert_eq!(
        introspect("token/introspect", at),
        json!({ "active": false })
    );
    assert_eq!(
        introspect("token/introspect", rt),
        json!({ "active": false })
    );
    // The SSO session ended too: prompt=none needs a login again.
    assert_eq!(
        silent_login_error(&mut b, &e.s, "shop", CB),
        "login_required"
    );
    // A second time: the token is dead, invalid_grant (Keycloak's answer).
    let r = post_form(&logout, Some(("shop", &e.shop)), &[("refresh_token", rt)]);
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"], "invalid_grant");
}

#[test]
fn the_pages_keycloak_js_loads_are_served_and_frameable() {
    let e = env(&[], None);
    let discovery =
        scanid_tests::get(&format!("{}/.well-known/openid-configuration", e.s.issuer)).json();
    assert_eq!(
        discovery["check_session_iframe"],
        e.s.oidc("login-status-iframe.html")
    );
    assert_eq!(discovery["backchannel_logout_supported"], true);
    assert_eq!(discovery["backchannel_logout_session_supported"], true);
    assert_eq!(
        discovery["introspection_endpoint"],
        e.s.oidc("introspect"),
        "discovery keeps the spec's paths"
    );
    for page in [
        "3p-cookies/step1.html",
        "3p-cookies/step2.html",
        "login-status-iframe.html",
    ] {
        let r = scanid_tests::get(&e.s.oidc(page));
        assert_eq!(r.status, 200, "{page}");
        assert!(
            r.header("x-frame-options").is_none(),
            "{page} is framed by relying parties"
        );
        let csp = r.header("content-security-policy").unwrap();
        assert!(
            csp.contains("frame-ancestors *") && csp.contains("script-src 'nonce-"),
            "{csp}"
        );
        assert!(r.text().contains("<script nonce="));
    }
    assert!(scanid_tests::get(&e.s.oidc("3p-cookies/step1.html"))
        .text()
        .contains("step2.html"));
    assert!(scanid_tests::get(&e.s.oidc("3p-cookies/step2.html"))
        .text()
        .contains("postMessage('supported'"));
    let init = |client: &str, origin: &str| {
        let q = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("client_id", client)
            .append_pair("origin", origin)
            .finish();
        scanid_tests::get(&format!(
            "{}?{q}",
            e.s.oidc("login-status-iframe.html/init")
        ))
        .status
    };
    assert_eq!(init("spa", SPA_ORIGIN), 204);
    assert_eq!(init("spa", "http://evil.example"), 403);
    assert_eq!(init("nobody", SPA_ORIGIN), 403);
    // After a login the iframe can compare session_state with a script-readable cookie.
    let mut b = Browser::new();
    let (_, t) = spa_tokens(&e, &mut b, SPA_ORIGIN);
    assert_eq!(
        b.jar.get("scanid_session_state").map(String::as_str),
        t["session_state"].as_str()
    );
}

/// A back-channel logout receiver: answers 200 and hands each POST over.
fn receiver() -> (String, mpsc::Receiver<String>) {
    scanid_tests::post_receiver(200)
}

/// The next request the receiver got: a form POST to /bcl; its `logout_token`.
fn logout_token(received: &mpsc::Receiver<String>) -> String {
    let raw = received
        .recv_timeout(Duration::from_secs(5))
        .expect("a logout token");
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("POST /bcl "), "{head}");
    assert!(head
        .to_ascii_lowercase()
        .contains("content-type: application/x-www-form-urlencoded"));
    url::form_urlencoded::parse(body.as_bytes())
        .find(|(k, _)| k == "logout_token")
        .map(|(_, v)| v.into_owned())
        .expect("logout_token")
}

#[test]
fn back_channel_logout_tells_every_client_of_the_session() {
    let (bcl, received) = receiver();
    let e = env(&[], Some(&bcl));
    let mut b = Browser::new();
    let t = shop_tokens(&e, &mut b);
    let sid = t["session_state"].as_str().unwrap().to_owned();
    // The same browser session logs in to the SPA too (SSO), then logs out of shop.
    let (_, spa) = spa_tokens(&e, &mut b, SPA_ORIGIN);
    assert_eq!(spa["session_state"], sid.as_str());
    let url = format!(
        "{}/protocol/openid-connect/logout?id_token_hint={}&post_logout_redirect_uri=https%3A%2F%2Fshop.example%2Fbye",
        e.s.issuer,
        t["id_token"].as_str().unwrap()
    );
    assert_eq!(b.get(&url).status, 302);
    let token = logout_token(&received);
    assert_eq!(jwt_header(&token)["typ"], "logout+jwt");
    let c = jwt_claims(&token);
    assert_eq!(c["iss"], e.s.issuer.as_str());
    assert_eq!(c["aud"], "shop");
    assert_eq!(c["sid"], sid.as_str());
    assert_eq!(c["sub"], e.app.sub.as_str());
    assert!(c["events"]["http://schemas.openid.net/event/backchannel-logout"].is_object());
    assert!(c.get("nonce").is_none() && c["jti"].is_string() && c["iat"].is_i64());
    // The signature verifies against the JWKS with an independent library (PyJWT).
    let out = pyjwt_verify(&e.s.oidc("certs"), &e.s.issuer, &token);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The SPA registered no receiver: nothing else arrives.
    assert!(received.recv_timeout(Duration::from_millis(500)).is_err());

    // Reusing a rotated refresh token revokes the family and ends the session: shop is told.
    let t1 = shop_tokens(&e, &mut Browser::new());
    let old_rt = t1["refresh_token"].as_str().unwrap().to_owned();
    let refresh = |rt: &str| {
        post_form(
            &e.s.oidc("token"),
            Some(("shop", &e.shop)),
            &[("grant_type", "refresh_token"), ("refresh_token", rt)],
        )
    };
    let second = refresh(&old_rt);
    assert_eq!(second.status, 200);
    let second_rt = second.json()["refresh_token"].as_str().unwrap().to_owned();
    assert_eq!(refresh(&second_rt).status, 200);
    // Two generations back: a reuse at once (the grace period covers only the last one).
    let r = refresh(&old_rt);
    assert_eq!(r.json()["error"], "invalid_grant", "{}", r.text());
    let reused = logout_token(&received);
    assert_eq!(jwt_claims(&reused)["sid"], t1["session_state"]);

    // Disabling the identity ends its (new) session, and shop is told.
    let t2 = shop_tokens(&e, &mut Browser::new());
    let sid2 = t2["session_state"].as_str().unwrap().to_owned();
    assert_ne!(sid2, sid);
    let data_dir = e.s.data_dir.to_str().unwrap().to_owned();
    // The logout token names the server's issuer: the operator command is given its public URL.
    scanid_json(&[
        "identity",
        "disable",
        "--data-dir",
        &data_dir,
        "--public-url",
        &e.s.base,
        &e.app.sub,
    ]);
    let token = logout_token(&received);
    assert_eq!(jwt_claims(&token)["sid"], sid2.as_str());
    assert_eq!(jwt_claims(&token)["iss"], e.s.issuer.as_str());
}

/// A back-channel receiver that accepts TCP connections and never answers (nor closes them).
fn silent_receiver() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/bcl", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    url
}

/// Attack (issue 25, item 5): a relying party whose receiver accepts TCP and never answers
/// must not delay the logout tokens of the other clients of the session. Deliveries went one
/// at a time, so every later client waited for the silent one's attempts (7.5 s); each now
/// goes on its own.
#[test]
fn a_silent_receiver_does_not_delay_the_other_clients_logout() {
    let (bcl, received) = receiver();
    let dir = tempfile::tempdir().unwrap();
    // The silent client is registered (and joins the SSO session) first, so it would be
    // told first.
    let silent = secret_of(&create_client(
        dir.path().to_str().unwrap(),
        &[
            "--name",
            "Silent",
            "--client-id",
            "silent",
            "--redirect-uri",
            CB,
            "--backchannel-logout-uri",
            &silent_receiver(),
            "--public-url",
            "http://127.0.0.1",
        ],
    ));
    let e = env_in(dir, &[], Some(&bcl));
    let mut b = Browser::new();
    let url = auth_url(
        &e.s,
        &[
            ("client_id", "silent"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("state", "s"),
            ("nonce", "n"),
            ("scope", "openid"),
        ],
    );
    let r = sso_or_qr_login(&e, &mut b, &url);
    let first = redeem(&e.s, ("silent", &silent), &code_of(&r));
    let t = shop_tokens_sso(&e, &mut b);
    assert_eq!(
        t["session_state"], first["session_state"],
        "one SSO session"
    );
    let logout = format!(
        "{}/protocol/openid-connect/logout?id_token_hint={}&post_logout_redirect_uri=https%3A%2F%2Fshop.example%2Fbye",
        e.s.issuer,
        t["id_token"].as_str().unwrap()
    );
    let started = std::time::Instant::now();
    assert_eq!(b.get(&logout).status, 302);
    let answered = started.elapsed();
    let token = received
        .recv_timeout(Duration::from_secs(10))
        .expect("shop's logout token");
    let told = started.elapsed();
    assert!(token.contains("logout_token="), "{token}");
    assert!(
        answered < Duration::from_millis(500),
        "the logout answered after {answered:?}"
    );
    assert!(
        told < Duration::from_millis(1500),
        "shop was told {told:?} after the logout, behind the silent receiver"
    );
}

/// [`shop_tokens`] in a browser that may already hold an SSO session.
fn shop_tokens_sso(e: &Env, b: &mut Browser) -> Value {
    let url = auth_url(
        &e.s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("state", "s"),
            ("nonce", "n"),
            ("scope", "openid"),
        ],
    );
    let r = sso_or_qr_login(e, b, &url);
    redeem(&e.s, ("shop", &e.shop), &code_of(&r))
}
