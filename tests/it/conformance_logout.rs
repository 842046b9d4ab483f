//! The OpenID Foundation's conformance suite, continued (see `conformance.rs`): the modules of
//! the RP-initiated logout plan (`oidcc-rp-initiated-logout-certification-test-plan`) and of
//! the back-channel logout plan (`oidcc-backchannel-rp-initiated-logout-certification-test-plan`)
//! that drive a logout, each named after its module. The suite sends `id_token_hint`,
//! `post_logout_redirect_uri` and a 128-character `state` (never `client_id`), then checks the
//! logout with a `prompt=none` request that must fail with an error that needs the person.
//! Where a module expects "an error screen or a confirmation, never the redirect", scanid
//! shows one of them; which one is asserted.

use std::collections::HashMap;
use std::sync::mpsc;
use std::time::Duration;

use scanid_tests::{
    attr, auth_url, code_of, create_client, location, login, params_of, pyjwt_verify, redeem,
    secret_of, Browser, Resp, TestApp, TestServer, CB,
};
use serde_json::{json, Value};

/// The post-logout redirect URI registered for `shop` (the suite's `/post_logout_redirect`).
const BYE: &str = "https://shop.example/post_logout_redirect";

struct Env {
    s: TestServer,
    shop: String,
    app: TestApp,
    /// The back-channel logout receiver's requests.
    received: mpsc::Receiver<String>,
    _dir: tempfile::TempDir,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let (bcl, received) = scanid_tests::post_receiver(200);
    let shop = secret_of(&create_client(
        dir.path().to_str().unwrap(),
        &[
            "--name",
            "Shop",
            "--client-id",
            "shop",
            "--redirect-uri",
            CB,
            "--post-logout-redirect-uri",
            BYE,
            // A loopback receiver: local development, named by a loopback public URL.
            "--backchannel-logout-uri",
            &bcl,
            "--public-url",
            "http://127.0.0.1",
        ],
    ));
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "logoutuser");
    Env {
        s,
        shop,
        app,
        received,
        _dir: dir,
    }
}

/// The 128-character state the suite sends to the end-session endpoint.
fn long_state() -> String {
    "L".repeat(128)
}

impl Env {
    /// A login in a fresh browser: the browser (holding the SSO session) and the tokens.
    fn logged_in(&self) -> (Browser, Value) {
        let mut b = Browser::new();
        let r = login(
            &mut b,
            &self.s,
            &self.app,
            &auth_url(
                &self.s,
                &[
                    ("client_id", "shop"),
                    ("redirect_uri", CB),
                    ("response_type", "code"),
                    ("scope", "openid"),
                    ("state", "st"),
                    ("nonce", "n"),
                ],
            ),
        );
        let t = redeem(&self.s, ("shop", &self.shop), &code_of(&r));
        (b, t)
    }

    /// The end-session endpoint with `pairs`, in `b`.
    fn end_session(&self, b: &mut Browser, pairs: &[(&str, &str)]) -> Resp {
        let q = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish();
        b.get(&format!("{}?{q}", self.s.oidc("logout")))
    }

    /// The second authorization of every module: `prompt=none` in `b` must come back with
    /// an error that needs the person (OIDC Core 3.1.2.6): the error.
    fn silent_error(&self, b: &mut Browser) -> String {
        let r = b.get(&auth_url(
            &self.s,
            &[
                ("client_id", "shop"),
                ("redirect_uri", CB),
                ("response_type", "code"),
                ("scope", "openid"),
                ("state", "st"),
                ("prompt", "none"),
            ],
        ));
        let p = params_of(&location(&r));
        p.get("error").cloned().unwrap_or_default()
    }

    fn logged_out(&self, b: &mut Browser) {
        let err = self.silent_error(b);
        assert!(
            [
                "login_required",
                "interaction_required",
                "consent_required",
                "account_selection_required"
            ]
            .contains(&err.as_str()),
            "CheckErrorFromAuthorizationEndpointIsOneThatRequiredAUserInterface: {err:?}"
        );
    }

    fn still_logged_in(&self, b: &mut Browser) {
        assert_eq!(self.silent_error(b), "", "the session was not ended");
    }

    /// Confirms on the confirmation page `page` ("Log out of scanid?"): the answer.
    fn confirm(&self, b: &mut Browser, page: &Resp) -> Resp {
        assert_eq!(page.status, 200, "{}", page.text());
        let html = page.text();
        assert!(html.contains("Log out of scanid?"), "{html}");
        let csrf = attr(&html, "name=\"csrf\"", "value").expect("the confirmation form");
        let mut fields: Vec<(String, String)> = vec![("csrf".into(), csrf)];
        for name in ["post_logout_redirect_uri", "state", "client_id"] {
            if let Some(v) = attr(&html, &format!("name=\"{name}\""), "value") {
                fields.push((name.into(), v));
            }
        }
        let pairs: Vec<(&str, &str)> = fields
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        b.post_form(&self.s.oidc("logout"), &pairs)
    }
}

/// The "you are logged out" page: no redirect.
fn logged_out_page(r: &Resp) {
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.header("location").is_none());
    assert!(!r.text().contains("name=\"csrf\""), "not a confirmation");
}

/// An error page (never the redirect).
fn error_page(r: &Resp) {
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.header("location").is_none(), "no redirect");
}

/// The redirect's query parameters (exactly the registered URI's).
fn redirected(r: &Resp) -> HashMap<String, String> {
    assert_eq!(r.status, 302, "{}", r.text());
    let loc = location(r);
    assert!(loc.starts_with(&format!("{BYE}?")) || loc == BYE, "{loc}");
    params_of(&loc)
}

#[test]
fn oidcc_rp_initiated_logout() {
    let e = env();
    let (mut b, t) = e.logged_in();
    let state = long_state();
    let r = e.end_session(
        &mut b,
        &[
            ("id_token_hint", t["id_token"].as_str().unwrap()),
            ("post_logout_redirect_uri", BYE),
            ("state", &state),
        ],
    );
    let p = redirected(&r);
    assert_eq!(p.get("state"), Some(&state), "CheckPostLogoutState");
    assert_eq!(
        p.len(),
        1,
        "CheckForUnexpectedParametersInPostLogoutRedirect: {p:?}"
    );
    e.logged_out(&mut b);
}

#[test]
fn oidcc_rp_initiated_logout_bad_post_logout_redirect_uri() {
    let e = env();
    let (mut b, t) = e.logged_in();
    let r = e.end_session(
        &mut b,
        &[
            ("id_token_hint", t["id_token"].as_str().unwrap()),
            (
                "post_logout_redirect_uri",
                "https://shop.example/not-registered",
            ),
            ("state", &long_state()),
        ],
    );
    error_page(&r);
    assert!(
        r.text().contains("post_logout_redirect_uri"),
        "{}",
        r.text()
    );
    e.still_logged_in(&mut b);
}

#[test]
fn oidcc_rp_initiated_logout_modified_id_token_hint() {
    // The suite's ChangeIdTokenToAlgNone: the same claims, alg none, no signature.
    use base64::Engine;
    let e = env();
    let (mut b, t) = e.logged_in();
    let payload = t["id_token"].as_str().unwrap().split('.').nth(1).unwrap();
    let header = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(json!({ "alg": "none", "typ": "JWT" }).to_string());
    let unsigned = format!("{header}.{payload}.");
    let r = e.end_session(
        &mut b,
        &[
            ("id_token_hint", &unsigned),
            ("post_logout_redirect_uri", BYE),
            ("state", &long_state()),
        ],
    );
    error_page(&r);
    assert!(r.text().contains("id_token_hint"), "{}", r.text());
    e.still_logged_in(&mut b);
}

#[test]
fn oidcc_rp_initiated_logout_bad_id_token_hint() {
    // The suite signs its own ID token (HS256 with the client secret): not scanid's.
    use base64::Engine;
    let e = env();
    let (mut b, t) = e.logged_in();
    let b64 = |v: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v);
    let mut claims = scanid_tests::jwt_claims(t["id_token"].as_str().unwrap());
    claims["iat"] = json!(TestApp::now());
    let input = format!(
        "{}.{}",
        b64(json!({ "alg": "HS256", "typ": "JWT" })
            .to_string()
            .as_bytes()),
        b64(claims.to_string().as_bytes())
    );
    let key = aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, e.shop.as_bytes());
    let forged = format!(
        "{input}.{}",
        b64(aws_lc_rs::hmac::sign(&key, input.as_bytes()).as_ref())
    );
    let r = e.end_session(
        &mut b,
        &[
            ("id_token_hint", &forged),
            ("post_logout_redirect_uri", BYE),
            ("state", &long_state()),
        ],
    );
    error_page(&r);
    e.still_logged_in(&mut b);
}

#[test]
fn oidcc_rp_initiated_logout_no_id_token_hint() {
    // Without a hint (and without client_id) the post_logout_redirect_uri cannot be checked
    // against a client: an error page, nothing ended.
    let e = env();
    let (mut b, _) = e.logged_in();
    let r = e.end_session(
        &mut b,
        &[("post_logout_redirect_uri", BYE), ("state", &long_state())],
    );
    error_page(&r);
    e.still_logged_in(&mut b);
}

#[test]
fn oidcc_rp_initiated_logout_no_params() {
    // No parameters: the person confirms, then sees "logged out".
    let e = env();
    let (mut b, _) = e.logged_in();
    let page = e.end_session(&mut b, &[]);
    assert!(page.header("location").is_none());
    let r = e.confirm(&mut b, &page);
    logged_out_page(&r);
    e.logged_out(&mut b);
}

#[test]
fn oidcc_rp_initiated_logout_no_post_logout_redirect_uri() {
    let e = env();
    let (mut b, t) = e.logged_in();
    let r = e.end_session(
        &mut b,
        &[
            ("id_token_hint", t["id_token"].as_str().unwrap()),
            ("state", &long_state()),
        ],
    );
    logged_out_page(&r);
    e.logged_out(&mut b);
}

#[test]
fn oidcc_rp_initiated_logout_no_state() {
    let e = env();
    let (mut b, t) = e.logged_in();
    let r = e.end_session(
        &mut b,
        &[
            ("id_token_hint", t["id_token"].as_str().unwrap()),
            ("post_logout_redirect_uri", BYE),
        ],
    );
    let p = redirected(&r);
    assert!(p.is_empty(), "CheckNoPostLogoutState: {p:?}");
    e.logged_out(&mut b);
}

#[test]
fn oidcc_rp_initiated_logout_only_state() {
    let e = env();
    let (mut b, _) = e.logged_in();
    let page = e.end_session(&mut b, &[("state", &long_state())]);
    assert!(page.header("location").is_none());
    let r = e.confirm(&mut b, &page);
    logged_out_page(&r);
    e.logged_out(&mut b);
}

#[test]
fn oidcc_rp_initiated_logout_query_added_to_post_logout_redirect_uri() {
    let e = env();
    let (mut b, t) = e.logged_in();
    let r = e.end_session(
        &mut b,
        &[
            ("id_token_hint", t["id_token"].as_str().unwrap()),
            ("post_logout_redirect_uri", &format!("{BYE}?foo=bar")),
            ("state", &long_state()),
        ],
    );
    error_page(&r);
    e.still_logged_in(&mut b);
}

#[test]
fn oidcc_backchannel_rp_initiated_logout() {
    let e = env();
    let (mut b, t) = e.logged_in();
    let id = scanid_tests::jwt_claims(t["id_token"].as_str().unwrap());
    let state = long_state();
    let r = e.end_session(
        &mut b,
        &[
            ("id_token_hint", t["id_token"].as_str().unwrap()),
            ("post_logout_redirect_uri", BYE),
            ("state", &state),
        ],
    );
    let p = redirected(&r);
    assert_eq!(p.get("state"), Some(&state), "CheckPostLogoutState");
    assert_eq!(p.len(), 1);
    // The back-channel request (OIDC Back-Channel Logout 1.0 §2.5).
    let raw = e
        .received
        .recv_timeout(Duration::from_secs(10))
        .expect("the back-channel logout request");
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("POST /bcl "), "{head}");
    assert!(head
        .to_ascii_lowercase()
        .contains("content-type: application/x-www-form-urlencoded"));
    let form: HashMap<String, String> = url::form_urlencoded::parse(body.as_bytes())
        .into_owned()
        .collect();
    assert_eq!(
        form.keys().collect::<Vec<_>>(),
        ["logout_token"],
        "CheckForUnexpectedParametersInBackchannelLogoutRequest"
    );
    let token = &form["logout_token"];
    // ValidateLogoutTokenSignature: an independent library, the JWKS alone.
    let out = pyjwt_verify(&e.s.oidc("certs"), &e.s.issuer, token);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(scanid_tests::jwt_header(token)["typ"], "logout+jwt");
    // ValidateLogoutTokenClaims (§2.4).
    let c = scanid_tests::jwt_claims(token);
    assert_eq!(c["iss"], e.s.issuer);
    assert_eq!(c["aud"], "shop");
    assert!(c["iat"].is_i64() && c["exp"].is_i64() && c["jti"].is_string());
    assert_eq!(
        c["events"],
        json!({ "http://schemas.openid.net/event/backchannel-logout": {} })
    );
    assert_eq!(c["sub"], id["sub"], "CheckIdTokenSubMatchesLogoutToken");
    assert_eq!(c["sid"], id["sid"], "CheckIdTokenSidMatchesLogoutToken");
    assert!(c.get("nonce").is_none(), "CheckLogoutTokenNoNonce");
    e.logged_out(&mut b);
}
