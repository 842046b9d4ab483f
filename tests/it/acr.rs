//! `amr` and `acr` (issue 26): what the tokens say of how the person authenticated, and what a
//! relying party may demand (`acr_values`, an essential `acr` in `claims`, the client's
//! `--require-acr`), against the real `scanid serve` with the CLI reference app (its plain
//! P-256 device key: `amr` `pop swk`, `acr` `1`). The passkey paths are in the browser tests
//! (`tests/js/passkey-login.test.mjs`).

use scanid_tests::{
    attr, auth_url, code_of, consent_url, create_shop, introspect, jwt_claims, location, login,
    open, params_of, redeem, scanid_json, Browser, TestApp, TestServer, CB,
};
use serde_json::{json, Value};

struct Env {
    s: TestServer,
    shop: String,
    app: TestApp,
    dir: tempfile::TempDir,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let shop = create_shop(dir.path().to_str().unwrap(), &[]);
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "acruser");
    Env { s, shop, app, dir }
}

impl Env {
    fn pairs<'a>(&self, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
        let mut p = vec![
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("scope", "openid"),
            ("state", "st"),
            ("nonce", "n"),
        ];
        p.extend_from_slice(extra);
        p
    }

    /// A login in `b` approved with the app's key, to the tokens.
    fn tokens(&self, b: &mut Browser, extra: &[(&str, &str)]) -> Value {
        let r = login(
            b,
            &self.s,
            &self.app,
            &auth_url(&self.s, &self.pairs(extra)),
        );
        redeem(&self.s, ("shop", &self.shop), &code_of(&r))
    }

    fn client(&self, args: &[&str]) -> Value {
        let d = self.dir.path().to_str().unwrap();
        let mut all = vec!["client"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--data-dir", d]);
        scanid_json(&all)
    }
}

fn id_token(t: &Value) -> Value {
    jwt_claims(t["id_token"].as_str().unwrap())
}

#[test]
fn the_app_s_key_is_pop_swk_at_acr_1_in_the_id_token_the_access_token_and_introspection() {
    let e = env();
    let t = e.tokens(&mut Browser::new(), &[]);
    let id = id_token(&t);
    assert_eq!(id["amr"], json!(["pop", "swk"]));
    assert_eq!(id["acr"], "1");
    let at = jwt_claims(t["access_token"].as_str().unwrap());
    assert_eq!(at["acr"], "1");
    let i = introspect(&e.s, ("shop", &e.shop), t["access_token"].as_str().unwrap());
    assert_eq!(i["acr"], "1");
    // A refresh keeps what the login said.
    let r = scanid_tests::post_form(
        &e.s.oidc("token"),
        Some(("shop", &e.shop)),
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", t["refresh_token"].as_str().unwrap()),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let id = id_token(&r.json());
    assert_eq!(
        (id["acr"].clone(), id["amr"].clone()),
        (json!("1"), json!(["pop", "swk"]))
    );
}

#[test]
fn a_voluntary_acr_is_answered_with_what_was_reached() {
    let e = env();
    let t = e.tokens(&mut Browser::new(), &[("acr_values", "2 3 gold")]);
    assert_eq!(id_token(&t)["acr"], "1");
}

/// The app's approval of the login `url` opens (scan, number, decision): the decision's
/// answer, and the login's payload.
fn approve(e: &Env, b: &mut Browser, url: &str) -> (scanid_tests::Resp, String) {
    let (_, payload) = open(b, url);
    (e.app.decide(b, &payload, "approve"), payload)
}

#[test]
fn an_essential_acr_the_app_s_key_cannot_reach_refuses_the_approval_and_writes_nothing() {
    let e = env();
    let mut b = Browser::new();
    let claims = r#"{"id_token":{"acr":{"essential":true,"values":["2"]}}}"#;
    let url = auth_url(&e.s, &e.pairs(&[("claims", claims)]));
    let (r, payload) = approve(&e, &mut b, &url);
    assert_eq!(r.status, 403, "{}", r.text());
    let body = r.json();
    assert_eq!(body["error"], "acr_not_met");
    assert!(
        body["error_description"]
            .as_str()
            .unwrap()
            .contains("passkey"),
        "{body}"
    );
    // Nothing was approved: the consent step still waits for an approval.
    let page = b.get(&consent_url(&e.s, &payload));
    assert_eq!(page.status, 400, "{}", page.text());
    assert!(page.text().contains("Not approved yet"), "{}", page.text());
}

#[test]
fn an_essential_acr_scanid_never_reaches_is_an_invalid_request() {
    let e = env();
    let claims = r#"{"id_token":{"acr":{"essential":true,"values":["urn:gold"]}}}"#;
    let r = Browser::new().get(&auth_url(&e.s, &e.pairs(&[("claims", claims)])));
    assert_eq!(r.status, 302, "{}", r.text());
    let p = params_of(&location(&r));
    assert_eq!(p["error"], "invalid_request");
    assert!(p["error_description"].contains("acr"), "{p:?}");
}

#[test]
fn a_client_s_require_acr_holds_every_login_and_client_show_says_it() {
    let e = env();
    let shown = e.client(&["update", "--client-id", "shop", "--require-acr", "2"]);
    assert_eq!(shown["require_acr"], "2");
    assert_eq!(shown["refuse_on"], json!([]), "--refuse-on unchanged");
    let mut b = Browser::new();
    let (r, _) = approve(&e, &mut b, &auth_url(&e.s, &e.pairs(&[])));
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(r.json()["error"], "acr_not_met");
    // A request cannot ask for less than the client requires.
    let (r, _) = approve(
        &e,
        &mut b,
        &auth_url(&e.s, &e.pairs(&[("acr_values", "1")])),
    );
    assert_eq!(r.json()["error"], "acr_not_met");
    let shown = e.client(&["update", "--client-id", "shop", "--require-acr", "none"]);
    assert!(shown["require_acr"].is_null(), "{shown}");
    let t = e.tokens(&mut b, &[]);
    assert_eq!(id_token(&t)["acr"], "1");
    // A wrong value is a usage error.
    let d = e.dir.path().to_str().unwrap();
    let out = std::process::Command::new(scanid_tests::scanid_bin())
        .args([
            "client",
            "update",
            "--client-id",
            "shop",
            "--require-acr",
            "gold",
            "--data-dir",
            d,
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--require-acr"));
}

#[test]
fn an_sso_session_below_the_acr_asked_for_is_not_used_unless_voluntary_with_prompt_none() {
    let e = env();
    let mut b = Browser::new();
    e.tokens(&mut b, &[]);
    // The session is at 1: a request for 2 asks the person to log in again (the QR page).
    let r = b.get(&auth_url(&e.s, &e.pairs(&[("acr_values", "2")])));
    assert_eq!(r.status, 200, "the QR page, not a redirect: {}", r.status);
    assert!(attr(&r.text(), "id=\"app-link\"", "data-qr-payload").is_some());
    // Voluntary with prompt=none: the session answers, and says it reached 1.
    let r = b.get(&auth_url(
        &e.s,
        &e.pairs(&[("acr_values", "2"), ("prompt", "none")]),
    ));
    assert_eq!(r.status, 302);
    let t = redeem(&e.s, ("shop", &e.shop), &code_of(&r));
    assert_eq!(id_token(&t)["acr"], "1");
    assert_eq!(id_token(&t)["amr"], json!(["pop", "swk"]));
    // Essential with prompt=none: login_required.
    let claims = r#"{"id_token":{"acr":{"essential":true,"values":["2"]}}}"#;
    let r = b.get(&auth_url(
        &e.s,
        &e.pairs(&[("claims", claims), ("prompt", "none")]),
    ));
    assert_eq!(params_of(&location(&r))["error"], "login_required");
    // A request the session meets uses it (SSO carries the original amr and acr).
    let r = b.get(&auth_url(&e.s, &e.pairs(&[("acr_values", "1")])));
    assert_eq!(r.status, 302, "{}", r.text());
    let t = redeem(&e.s, ("shop", &e.shop), &code_of(&r));
    assert_eq!(id_token(&t)["amr"], json!(["pop", "swk"]));
}
