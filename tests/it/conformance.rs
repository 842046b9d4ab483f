//! The OpenID Foundation's conformance suite (`openid-certification/conformance-suite`), module by
//! module, for the modules whose checks scanid's own behaviour decides: each test is named after
//! its module (`oidcc-scope-profile` -> `oidcc_scope_profile`) and asserts what the module checks,
//! with the suite's severities (a FAILURE there is an assertion here; where scanid deliberately
//! differs and the suite would WARN, the test asserts scanid's answer and docs/relying-parties.md
//! says why). The Basic plan's modules (`OIDCCBasicTestPlan`), the Config plan's
//! (`OIDCCConfigTestPlan`: `oidcc-discovery-endpoint-verification`) and the logout plans'
//! discovery modules; the logout plans' other modules are in `conformance_logout.rs`. Which
//! module is not applicable, and why: docs/relying-parties.md.

use std::collections::HashMap;
use std::time::Duration;

use scanid_tests::{
    attr, auth_url, code_of, consent_url, create_client, create_shop, exchange_code, get,
    introspect, jwt_claims, jwt_header, location, login, params_of, post_form, pyjwt_verify,
    redeem, request, secret_of, userinfo, Browser, Resp, TestApp, TestServer, CB, DISCOVERY,
    PKCE_CHALLENGE, PKCE_VERIFIER,
};
use serde_json::{json, Value};

struct Env {
    s: TestServer,
    shop: String,
    /// A second client (`oidcc-refresh-token` binds refresh tokens to their client).
    other: String,
    app: TestApp,
    _dir: tempfile::TempDir,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let shop = create_shop(d, &[]);
    let other = secret_of(&create_client(
        d,
        &[
            "--name",
            "Other",
            "--client-id",
            "other",
            "--redirect-uri",
            CB,
        ],
    ));
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "certuser");
    Env {
        s,
        shop,
        other,
        app,
        _dir: dir,
    }
}

/// The Basic plan's authorization request (`client_secret_basic`, no PKCE): `scope`,
/// `state=st`, `nonce`, then `extra`.
fn basic_pairs<'a>(scope: &'a str, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut pairs = vec![
        ("client_id", "shop"),
        ("redirect_uri", CB),
        ("response_type", "code"),
        ("scope", scope),
        ("state", "st"),
        ("nonce", "n-1"),
    ];
    pairs.extend_from_slice(extra);
    pairs
}

impl Env {
    fn shop(&self) -> (&str, &str) {
        ("shop", &self.shop)
    }

    /// A confidential code flow without PKCE (the Basic plan's `client_secret_basic` variant),
    /// in a fresh browser, with `scope`, `state=st` and the `extra` parameters (`("nonce", ..)`
    /// among them when wanted): the token response.
    fn tokens(&self, scope: &str, extra: &[(&str, &str)]) -> Value {
        let mut pairs = vec![
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("scope", scope),
            ("state", "st"),
        ];
        pairs.extend_from_slice(extra);
        let r = login(
            &mut Browser::new(),
            &self.s,
            &self.app,
            &auth_url(&self.s, &pairs),
        );
        let p = params_of(&location(&r));
        assert_eq!(p["state"], "st", "VerifyState");
        assert_eq!(p["iss"], self.s.issuer, "RFC 9207 iss");
        redeem(&self.s, self.shop(), &code_of(&r))
    }

    /// Follows an authorization request in `b` to the redirect back to the client, whatever
    /// the browser already holds: straight back (SSO and a remembered consent), through the
    /// consent page (SSO), or through the QR page (approved on the phone, then consent).
    /// `first` is the authorization endpoint's answer; `qr` says whether a QR page was shown.
    fn follow(&self, b: &mut Browser, first: Resp) -> (Resp, bool) {
        if first.status == 302 {
            let loc = location(&first);
            if loc.starts_with(CB) {
                return (first, false);
            }
            let page = b.get(&loc);
            return (self.allow(b, &page, &params_of(&loc)["session"]), false);
        }
        assert_eq!(first.status, 200, "{}", first.text());
        let payload =
            attr(&first.text(), "id=\"app-link\"", "data-qr-payload").expect("the QR page");
        assert_eq!(self.app.decide(b, &payload, "approve").status, 200);
        let page = b.get(&consent_url(&self.s, &payload));
        if page.status == 302 {
            return (page, true);
        }
        (self.allow(b, &page, &params_of(&payload)["session"]), true)
    }

    /// Allows on the consent page `page` of login `session`.
    fn allow(&self, b: &mut Browser, page: &Resp, session: &str) -> Resp {
        assert_eq!(page.status, 200, "{}", page.text());
        let csrf = attr(&page.text(), "name=\"csrf\"", "value").expect("the consent form");
        b.post_form(
            &format!("{}/login-actions/consent", self.s.issuer),
            &[("session", session), ("csrf", &csrf), ("consent", "allow")],
        )
    }

    /// An authorization request (GET) in `b` followed to the client: the redirect's
    /// parameters, and whether the QR login was asked for.
    fn authorize_in(
        &self,
        b: &mut Browser,
        pairs: &[(&str, &str)],
    ) -> (HashMap<String, String>, bool) {
        let first = b.get(&auth_url(&self.s, pairs));
        let (r, qr) = self.follow(b, first);
        let p = params_of(&location(&r));
        assert_eq!(p["iss"], self.s.issuer, "RFC 9207 iss");
        (p, qr)
    }

    /// [`Env::authorize_in`] then the code redeemed (`client_secret_basic`): the tokens,
    /// and whether the QR login was asked for.
    fn tokens_in(&self, b: &mut Browser, pairs: &[(&str, &str)]) -> (Value, bool) {
        let (p, qr) = self.authorize_in(b, pairs);
        assert_eq!(p.get("state").map(String::as_str), Some("st"), "{p:?}");
        (redeem(&self.s, self.shop(), &p["code"]), qr)
    }

    /// The userinfo answer for the access token of `t` (asserting 200).
    fn userinfo(&self, t: &Value) -> Value {
        let r = userinfo(&self.s, t["access_token"].as_str().unwrap());
        assert_eq!(r.status, 200, "{}", r.text());
        assert!(r
            .header("content-type")
            .unwrap()
            .starts_with("application/json"));
        r.json()
    }

    /// An authorization request's redirect back to the client: its parameters.
    fn redirected_error(
        &self,
        extra: &[(&str, &str)],
    ) -> std::collections::HashMap<String, String> {
        self.redirected_error_without(&[], extra)
    }

    /// [`Env::redirected_error`] with the parameters named in `drop` left out.
    fn redirected_error_without(
        &self,
        drop: &[&str],
        extra: &[(&str, &str)],
    ) -> std::collections::HashMap<String, String> {
        let mut pairs = vec![
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("scope", "openid"),
            ("state", "st"),
            ("nonce", "n"),
        ];
        pairs.retain(|(k, _)| !drop.contains(k));
        pairs.extend_from_slice(extra);
        let r = Browser::new().get(&auth_url(&self.s, &pairs));
        assert_eq!(r.status, 302, "{}", r.text());
        let loc = location(&r);
        assert!(loc.starts_with(CB), "{loc}");
        params_of(&loc)
    }
}

/// The profile claims the suite's `oidcc-scope-profile` looks for, of which scanid releases these
/// (the others it does not know; `locale` neither).
const PROFILE_RELEASED: [&str; 3] = ["name", "preferred_username", "updated_at"];

#[test]
fn oidcc_server_test_code_flow_with_nonce() {
    let e = env();
    let t = e.tokens("openid", &[("nonce", "n-1")]);
    assert_eq!(t["token_type"], "Bearer");
    assert_eq!(t["scope"], "openid");
    let id = jwt_claims(t["id_token"].as_str().unwrap());
    assert_eq!(id["iss"], e.s.issuer);
    assert_eq!(id["aud"], "shop");
    assert_eq!(id["nonce"], "n-1", "OP-nonce-code");
    assert!(id["sub"].is_string() && id["iat"].is_i64() && id["exp"].is_i64());
    assert!(id["at_hash"].is_string());
    // openid alone releases no user claim.
    for c in [
        "name",
        "preferred_username",
        "groups",
        "address",
        "updated_at",
    ] {
        assert!(id.get(c).is_none(), "{c} in {id}");
    }
}

#[test]
fn oidcc_ensure_request_without_nonce_succeeds_for_code_flow() {
    let e = env();
    // No nonce, no PKCE: OIDC Core 3.1.2.1 makes nonce optional in the code flow.
    let t = e.tokens("openid", &[]);
    let id = jwt_claims(t["id_token"].as_str().unwrap());
    assert!(id.get("nonce").is_none(), "no nonce was sent: {id}");
    assert_eq!(id["aud"], "shop");
}

#[test]
fn oidcc_unsigned_request_object_supported_correctly_or_rejected_as_unsupported() {
    let e = env();
    let d = get(&e.s.url(DISCOVERY)).json();
    assert_eq!(d["request_parameter_supported"], true);
    assert_eq!(
        d["request_object_signing_alg_values_supported"],
        json!(["none", "ES256", "PS256", "RS256", "EdDSA"])
    );
    // The suite's request (AbstractOIDCCRequestObjectServerTest): every parameter in an
    // unsigned request object with iss (the client) and aud (the issuer); response_type,
    // client_id, scope and redirect_uri repeated in the query, state and nonce only inside.
    let object = scanid_core::domain::request_object::unsigned(&json!({
        "iss": "shop", "aud": e.s.issuer, "client_id": "shop", "redirect_uri": CB,
        "response_type": "code", "scope": "openid", "state": "st-ro", "nonce": "n-ro"
    }));
    let url = auth_url(
        &e.s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("scope", "openid"),
            ("request", object.as_str()),
        ],
    );
    let r = login(&mut Browser::new(), &e.s, &e.app, &url);
    let p = params_of(&location(&r));
    assert_eq!(
        p["state"], "st-ro",
        "VerifyState: the request object's state"
    );
    assert_eq!(p["iss"], e.s.issuer);
    let t = redeem(&e.s, e.shop(), &code_of(&r));
    let id = jwt_claims(t["id_token"].as_str().unwrap());
    assert_eq!(id["nonce"], "n-ro", "the request object's nonce");
    assert_eq!(id["aud"], "shop");
}

#[test]
fn oidcc_request_uri_unsigned_supported_correctly_or_rejected_as_unsupported() {
    let e = env();
    let d = get(&e.s.url(DISCOVERY)).json();
    assert_eq!(d["request_uri_parameter_supported"], false);
    let p = e.redirected_error(&[("request_uri", "https://shop.example/request.jwt")]);
    assert_eq!(p["error"], "request_uri_not_supported", "OIDC Core 3.1.2.6");
    assert_eq!(p["state"], "st");
}

#[test]
fn oidcc_scope_profile() {
    let e = env();
    let t = e.tokens("openid profile", &[]);
    assert_eq!(t["scope"], "openid profile");
    let u = e.userinfo(&t);
    for c in PROFILE_RELEASED {
        assert!(u.get(c).is_some(), "{c} missing from {u}");
    }
    assert!(u["updated_at"].is_i64(), "seconds since the epoch: {u}");
    // The language the login's pages spoke (no ui_locales, no Accept-Language: the default).
    assert_eq!(u["locale"], "en", "{u}");
    // The spec's fields (2.4): groups, [] when none, and its spellings.
    assert_eq!(u["groups"], json!([]));
    assert_eq!(u["peferred_username"], "certuser");
    assert_eq!(u["username"], "certuser");
    assert_eq!(u["preferred_username"], "certuser");
    // The same in the id_token, and groups in introspection (spec 2.3).
    let id = jwt_claims(t["id_token"].as_str().unwrap());
    assert_eq!(id["preferred_username"], "certuser");
    assert_eq!(id["groups"], json!([]));
    let i = introspect(&e.s, e.shop(), t["access_token"].as_str().unwrap());
    assert_eq!(i["groups"], json!([]));
    // And with openid alone, none of it.
    let u = e.userinfo(&e.tokens("openid", &[]));
    for c in PROFILE_RELEASED.iter().chain(&["groups", "username"]) {
        assert!(u.get(*c).is_none(), "{c} with openid alone: {u}");
    }
}

#[test]
fn oidcc_scope_email() {
    // scanid knows no e-mail address: the scope is ignored, not refused (OIDC Core 3.1.2.1), and
    // the granted scope says so. The suite warns here (email absent): a deliberate difference.
    let e = env();
    let t = e.tokens("openid email", &[]);
    assert_eq!(t["scope"], "openid");
    let u = e.userinfo(&t);
    assert!(u.get("email").is_none());
}

#[test]
fn oidcc_scope_address() {
    let e = env();
    let t = e.tokens("openid address", &[]);
    assert_eq!(t["scope"], "openid address");
    let u = e.userinfo(&t);
    assert_eq!(u["address"], json!({ "country": "SE" }), "ISO 3166-1 code");
    assert!(u.get("name").is_none(), "address releases no profile claim");
}

#[test]
fn oidcc_scope_phone() {
    // No phone number either: ignored (the suite warns).
    let e = env();
    let t = e.tokens("openid phone", &[]);
    assert_eq!(t["scope"], "openid");
    assert!(e.userinfo(&t).get("phone_number").is_none());
}

#[test]
fn oidcc_scope_all() {
    let e = env();
    let t = e.tokens("openid profile email address phone", &[]);
    assert_eq!(t["scope"], "openid profile address");
    let u = e.userinfo(&t);
    for c in PROFILE_RELEASED.iter().chain(&["address", "groups"]) {
        assert!(u.get(*c).is_some(), "{c} missing from {u}");
    }
}

#[test]
fn oidcc_ensure_other_scope_order_succeeds() {
    let e = env();
    let t = e.tokens("email openid", &[]);
    assert_eq!(t["scope"], "openid");
    assert!(t["id_token"].is_string());
}

#[test]
fn oidcc_ensure_request_with_unknown_parameter_succeeds() {
    let e = env();
    let t = e.tokens("openid", &[("extra_parameter", "x")]);
    assert!(t["id_token"].is_string());
}

#[test]
fn oidcc_discovery_endpoint_verification() {
    let e = env();
    let r = get(&e.s.url(DISCOVERY));
    assert_eq!(r.status, 200);
    assert!(r
        .header("content-type")
        .unwrap()
        .starts_with("application/json"));
    let d = r.json();
    assert_eq!(d["issuer"], e.s.issuer, "the issuer it was fetched under");
    for (field, path) in [
        ("authorization_endpoint", "auth"),
        ("token_endpoint", "token"),
        ("userinfo_endpoint", "userinfo"),
        ("jwks_uri", "certs"),
    ] {
        assert_eq!(d[field], e.s.oidc(path), "{field}");
    }
    let list = |f: &str| -> Vec<String> {
        serde_json::from_value(d[f].clone()).unwrap_or_else(|_| panic!("{f}: {d}"))
    };
    assert!(list("response_types_supported").contains(&"code".to_owned()));
    assert_eq!(list("subject_types_supported"), vec!["public"]);
    assert!(list("id_token_signing_alg_values_supported").contains(&"RS256".to_owned()));
    assert!(!list("id_token_signing_alg_values_supported").contains(&"none".to_owned()));
    assert!(list("token_endpoint_auth_methods_supported").contains(&"client_secret_basic".into()));
    // Exactly what is released.
    assert_eq!(
        list("scopes_supported"),
        vec!["openid", "profile", "groups", "address", "offline_access"]
    );
    let claims = list("claims_supported");
    for c in [
        "sub",
        "name",
        "preferred_username",
        "picture",
        "updated_at",
        "address",
        "groups",
        "locale",
    ] {
        assert!(
            claims.contains(&c.to_owned()),
            "{c} not in claims_supported"
        );
    }
    for c in ["email", "phone_number", "given_name"] {
        assert!(!claims.contains(&c.to_owned()), "{c} is never released");
    }
    assert_eq!(d["request_parameter_supported"], true);
    assert_eq!(
        d["request_object_signing_alg_values_supported"],
        json!(["none", "ES256", "PS256", "RS256", "EdDSA"])
    );
    assert_eq!(d["request_uri_parameter_supported"], false);
    assert_eq!(d["claims_parameter_supported"], true, "OIDC Core 5.5");
    // The JWKS it names serves keys.
    let jwks = get(d["jwks_uri"].as_str().unwrap()).json();
    assert!(!jwks["keys"].as_array().unwrap().is_empty());
}

#[test]
fn head_answers_like_get_without_a_body_on_discovery_and_jwks() {
    // RFC 9110 §9.1 (issue 28: HEAD answered 405).
    let e = env();
    for url in [e.s.url(DISCOVERY), e.s.oidc("certs")] {
        let g = get(&url);
        let h = request("HEAD", &url, &[], b"");
        assert_eq!(h.status, 200, "{url}");
        assert!(h.body.is_empty(), "{url}: HEAD has no body");
        assert_eq!(
            h.header("content-length"),
            Some(g.body.len().to_string().as_str()),
            "{url}"
        );
        for name in [
            "content-type",
            "cache-control",
            "access-control-allow-origin",
        ] {
            assert_eq!(h.header(name), g.header(name), "{url}: {name}");
        }
    }
}

#[test]
fn oidcc_rp_initiated_logout_discovery_endpoint_verification() {
    // The RP-initiated logout plan's discovery module: end_session_endpoint (the plan's other
    // modules, the logout flow itself, are in conformance_logout.rs).
    let e = env();
    let d = get(&e.s.url(DISCOVERY)).json();
    assert_eq!(d["end_session_endpoint"], e.s.oidc("logout"));
}

#[test]
fn oidcc_backchannel_logout_discovery_endpoint_verification() {
    // The back-channel logout plan's discovery module.
    let e = env();
    let d = get(&e.s.url(DISCOVERY)).json();
    assert_eq!(d["backchannel_logout_supported"], true);
    assert_eq!(d["backchannel_logout_session_supported"], true);
    assert_eq!(d["frontchannel_logout_supported"], false);
}

// ---------------------------------------------------------------------------------------------
// The rest of the Basic plan (`oidcc-basic-certification-test-plan`), module by module.
// ---------------------------------------------------------------------------------------------

/// The suite's checks of an ID token from the code flow (`AbstractOIDCCServerTest`'s
/// `performIdTokenValidation`): signed by a key of the JWKS (an independent library verifies
/// it), `kid` in the header, `iss`, `aud`, `azp`, `sub`, `iat`, `exp`, `nonce` and `at_hash`.
fn valid_id_token(e: &Env, t: &Value, nonce: Option<&str>) -> Value {
    let token = t["id_token"].as_str().expect("an id_token");
    let out = pyjwt_verify(&e.s.oidc("certs"), &e.s.issuer, token);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(jwt_header(token)["kid"].is_string(), "OIDCC-10.1 kid");
    let id = jwt_claims(token);
    assert_eq!(id["iss"], e.s.issuer);
    assert_eq!(id["aud"], "shop");
    assert_eq!(id["azp"], "shop");
    assert!(id["sub"].is_string() && id["iat"].is_i64() && id["exp"].is_i64());
    assert!(id["exp"].as_i64() > id["iat"].as_i64());
    assert_eq!(id.get("nonce").and_then(Value::as_str), nonce);
    assert!(id["at_hash"].is_string());
    id
}

#[test]
fn oidcc_response_type_missing() {
    // RFC 6749 3.1.1: invalid_request or unsupported_response_type, back to the client.
    let e = env();
    let p = e.redirected_error_without(&["response_type"], &[]);
    assert!(
        ["invalid_request", "unsupported_response_type"].contains(&p["error"].as_str()),
        "{p:?}"
    );
    assert_eq!(p["state"], "st");
    assert_eq!(p["iss"], e.s.issuer);
    assert!(!p.contains_key("code"));
}

#[test]
fn oidcc_idtoken_signature() {
    // The suite runs this module with dynamic registration only; with the default signature
    // (no id_token_signed_response_alg registered) it checks kid and RS256.
    let e = env();
    let t = e.tokens("openid", &[("nonce", "n-1")]);
    valid_id_token(&e, &t, Some("n-1"));
    assert_eq!(
        jwt_header(t["id_token"].as_str().unwrap())["alg"],
        "RS256",
        "OIDCC-3.1.3.7: RS256 by default"
    );
}

#[test]
fn oidcc_idtoken_unsigned() {
    // Not applicable: the suite skips the module when discovery does not offer `none`, which
    // scanid never does (and it needs dynamic registration). What it reads:
    let e = env();
    let d = get(&e.s.url(DISCOVERY)).json();
    let algs = d["id_token_signing_alg_values_supported"]
        .as_array()
        .unwrap();
    assert!(!algs.contains(&json!("none")), "{algs:?}");
    assert!(algs.contains(&json!("RS256")));
}

#[test]
fn oidcc_userinfo_get() {
    let e = env();
    let t = e.tokens("openid profile", &[]);
    let id = valid_id_token(&e, &t, None);
    let u = e.userinfo(&t);
    assert_eq!(u["sub"], id["sub"], "OIDCC-5.3.2: the ID token's sub");
    assert!(u["updated_at"].is_i64(), "OIDCC-5.1 updated_at: a number");
}

#[test]
fn oidcc_userinfo_post_header() {
    let e = env();
    let t = e.tokens("openid", &[]);
    let auth = format!("Bearer {}", t["access_token"].as_str().unwrap());
    let r = request(
        "POST",
        &e.s.oidc("userinfo"),
        &[("Authorization", &auth)],
        b"",
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r
        .header("content-type")
        .unwrap()
        .starts_with("application/json"));
    assert_eq!(
        r.json()["sub"],
        jwt_claims(t["id_token"].as_str().unwrap())["sub"]
    );
}

#[test]
fn oidcc_userinfo_post_body() {
    // RFC 6750 2.2 (optional; the suite warns without it): the token in a form body.
    let e = env();
    let t = e.tokens("openid", &[]);
    let r = post_form(
        &e.s.oidc("userinfo"),
        None,
        &[("access_token", t["access_token"].as_str().unwrap())],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r
        .header("content-type")
        .unwrap()
        .starts_with("application/json"));
    assert_eq!(
        r.json()["sub"],
        jwt_claims(t["id_token"].as_str().unwrap())["sub"]
    );
}

#[test]
fn oidcc_alternate_happy_flow() {
    // oidcc-scope-email with the scope reversed and the parameters in another order (RFC 6749
    // 3.3): the same answer (the suite warns about the absent email, as for oidcc-scope-email).
    let e = env();
    let pairs = [
        ("nonce", "n-1"),
        ("state", "st"),
        ("scope", "email openid"),
        ("response_type", "code"),
        ("redirect_uri", CB),
        ("client_id", "shop"),
    ];
    let (t, _) = e.tokens_in(&mut Browser::new(), &pairs);
    assert_eq!(t["scope"], "openid");
    valid_id_token(&e, &t, Some("n-1"));
    assert!(e.userinfo(&t).get("email").is_none());
}

#[test]
fn oidcc_display_page() {
    let e = env();
    let t = e.tokens("openid", &[("display", "page")]);
    assert!(t["id_token"].is_string());
}

#[test]
fn oidcc_display_popup() {
    let e = env();
    let t = e.tokens("openid", &[("display", "popup")]);
    assert!(t["id_token"].is_string());
}

#[test]
fn oidcc_prompt_login() {
    let e = env();
    let mut b = Browser::new();
    let (first, qr) = e.tokens_in(&mut b, &basic_pairs("openid", &[]));
    assert!(qr);
    let first = valid_id_token(&e, &first, Some("n-1"));
    std::thread::sleep(Duration::from_millis(1100));
    // The browser holds an SSO session, yet prompt=login shows the login (QR) page again.
    let (second, qr) = e.tokens_in(&mut b, &basic_pairs("openid", &[("prompt", "login")]));
    assert!(
        qr,
        "OIDCC-3.1.2.1: prompt=login asks the person to log in again"
    );
    let second = valid_id_token(&e, &second, Some("n-1"));
    assert!(
        second["auth_time"].as_i64() > first["auth_time"].as_i64(),
        "CheckSecondIdTokenAuthTimeIsLaterIfPresent: {first} {second}"
    );
    assert_eq!(second["sub"], first["sub"]);
}

#[test]
fn oidcc_prompt_none_not_logged_in() {
    // A 128-character state survives (the module asks for one that long).
    let e = env();
    let state = "s".repeat(128);
    let p = e.redirected_error_without(&["state"], &[("prompt", "none"), ("state", &state)]);
    assert_eq!(p["error"], "login_required", "OIDCC-3.1.2.6");
    assert_eq!(p["state"], state);
    assert!(!p.contains_key("code"));
}

#[test]
fn oidcc_prompt_none_logged_in() {
    let e = env();
    let mut b = Browser::new();
    let (first, _) = e.tokens_in(&mut b, &basic_pairs("openid", &[]));
    let first = valid_id_token(&e, &first, Some("n-1"));
    let (second, qr) = e.tokens_in(&mut b, &basic_pairs("openid", &[("prompt", "none")]));
    assert!(!qr, "no login asked for");
    let second = valid_id_token(&e, &second, Some("n-1"));
    assert_eq!(second["auth_time"], first["auth_time"]);
    assert_eq!(second["sub"], first["sub"]);
}

#[test]
fn oidcc_max_age_1() {
    let e = env();
    let mut b = Browser::new();
    let (first, _) = e.tokens_in(&mut b, &basic_pairs("openid", &[]));
    let first = valid_id_token(&e, &first, Some("n-1"));
    std::thread::sleep(Duration::from_secs(2));
    let (second, qr) = e.tokens_in(&mut b, &basic_pairs("openid", &[("max_age", "1")]));
    assert!(qr, "OIDCC-3.1.2.1: an older login is asked for again");
    let second = valid_id_token(&e, &second, Some("n-1"));
    let auth_time = second["auth_time"]
        .as_i64()
        .expect("auth_time (max_age was sent)");
    assert!(auth_time > first["auth_time"].as_i64().unwrap());
    let now = TestApp::now();
    assert!((now - auth_time).abs() < 60, "recent: {auth_time} vs {now}");
}

#[test]
fn oidcc_max_age_10000() {
    let e = env();
    let mut b = Browser::new();
    let (first, _) = e.tokens_in(&mut b, &basic_pairs("openid", &[("max_age", "15000")]));
    let first = valid_id_token(&e, &first, Some("n-1"));
    assert!(first["auth_time"].is_i64());
    let (second, qr) = e.tokens_in(&mut b, &basic_pairs("openid", &[("max_age", "10000")]));
    assert!(!qr, "a login within max_age is not asked for again");
    let second = valid_id_token(&e, &second, Some("n-1"));
    assert_eq!(second["auth_time"], first["auth_time"]);
    assert_eq!(second["sub"], first["sub"]);
}

#[test]
fn oidcc_id_token_hint() {
    let e = env();
    let mut b = Browser::new();
    let (first, _) = e.tokens_in(&mut b, &basic_pairs("openid", &[]));
    let hint = first["id_token"].as_str().unwrap().to_owned();
    let first = valid_id_token(&e, &first, Some("n-1"));
    let (second, qr) = e.tokens_in(
        &mut b,
        &basic_pairs("openid", &[("prompt", "none"), ("id_token_hint", &hint)]),
    );
    assert!(!qr);
    let second = valid_id_token(&e, &second, Some("n-1"));
    assert_eq!(second["auth_time"], first["auth_time"]);
    assert_eq!(second["sub"], first["sub"]);
}

#[test]
fn oidcc_login_hint() {
    let e = env();
    let hint = format!("buffy@{}", e.s.addr());
    let t = e.tokens("openid", &[("login_hint", &hint)]);
    assert!(t["id_token"].is_string());
}

#[test]
fn oidcc_ui_locales() {
    let e = env();
    let t = e.tokens("openid", &[("ui_locales", "se")]);
    assert!(t["id_token"].is_string());
}

#[test]
fn oidcc_claims_locales() {
    // OIDC Core 15.1: must not cause an error (scanid releases no localized claim).
    let e = env();
    let t = e.tokens("openid profile", &[("claims_locales", "se")]);
    assert!(t["id_token"].is_string());
    assert!(e.userinfo(&t)["name"].is_string());
}

#[test]
fn oidcc_ensure_request_with_acr_values_succeeds() {
    // The suite sends the first two of acr_values_supported ("1 2"); the ID token's acr
    // should be one of them (WARNING): a login with the app's device key reaches "1" (the
    // request is voluntary, so nothing refuses it), and amr says how (RFC 8176).
    let e = env();
    let d = get(&e.s.url(DISCOVERY)).json();
    assert_eq!(
        d["acr_values_supported"],
        serde_json::json!(["1", "2", "3"])
    );
    let t = e.tokens("openid", &[("acr_values", "1 2")]);
    let id = valid_id_token(&e, &t, None);
    assert_eq!(id["acr"], "1");
    assert_eq!(id["amr"], serde_json::json!(["pop", "swk"]));
}

#[test]
fn oidcc_codereuse() {
    let e = env();
    let mut b = Browser::new();
    let (p, _) = e.authorize_in(&mut b, &basic_pairs("openid", &[]));
    redeem(&e.s, e.shop(), &p["code"]);
    let again = exchange_code(&e.s, e.shop(), &p["code"]);
    assert_eq!(again.status, 400, "{}", again.text());
    assert_eq!(again.json()["error"], "invalid_grant");
}

#[test]
fn oidcc_codereuse_30seconds() {
    // The module waits 30 seconds before the second use: the code is still refused, and the
    // access token issued for it should be revoked (WARNING; scanid revokes it).
    let e = env();
    let mut b = Browser::new();
    let (p, _) = e.authorize_in(&mut b, &basic_pairs("openid", &[]));
    let t = redeem(&e.s, e.shop(), &p["code"]);
    std::thread::sleep(Duration::from_secs(30));
    let again = exchange_code(&e.s, e.shop(), &p["code"]);
    assert_eq!(again.status, 400, "{}", again.text());
    assert_eq!(again.json()["error"], "invalid_grant");
    let u = userinfo(&e.s, t["access_token"].as_str().unwrap());
    assert!((400..500).contains(&u.status), "{}", u.status);
}

#[test]
fn oidcc_ensure_registered_redirect_uri() {
    // An error page, never a redirect to the unregistered (nor to the registered) URI.
    let e = env();
    let bad = format!("{CB}/oidcc-{}", TestApp::jti());
    let mut pairs = basic_pairs("openid", &[]);
    pairs.retain(|(k, _)| *k != "redirect_uri");
    pairs.push(("redirect_uri", &bad));
    let r = Browser::new().get(&auth_url(&e.s, &pairs));
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.header("location").is_none());
    assert!(r.text().contains("redirect_uri"), "{}", r.text());
}

#[test]
fn oidcc_ensure_post_request_succeeds() {
    // OIDC Core 3.1.2.1: the authorization request as a form POST.
    let e = env();
    let mut b = Browser::new();
    let first = b.post_form(&e.s.oidc("auth"), &basic_pairs("openid", &[]));
    let (r, qr) = e.follow(&mut b, first);
    assert!(qr);
    let p = params_of(&location(&r));
    assert_eq!(p["state"], "st");
    let t = redeem(&e.s, e.shop(), &p["code"]);
    valid_id_token(&e, &t, Some("n-1"));
}

#[test]
fn oidcc_server_client_secret_post() {
    let e = env();
    let mut b = Browser::new();
    let (p, _) = e.authorize_in(&mut b, &basic_pairs("openid", &[]));
    let r = post_form(
        &e.s.oidc("token"),
        None,
        &[
            ("grant_type", "authorization_code"),
            ("code", &p["code"]),
            ("redirect_uri", CB),
            ("client_id", "shop"),
            ("client_secret", &e.shop),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("cache-control"), Some("no-store"));
    valid_id_token(&e, &r.json(), Some("n-1"));
}

#[test]
fn oidcc_ensure_request_with_valid_pkce_succeeds() {
    // A confidential client with PKCE S256 (RFC 7636 4.5): the verifier with the code.
    let e = env();
    let mut b = Browser::new();
    let (p, _) = e.authorize_in(
        &mut b,
        &basic_pairs(
            "openid",
            &[
                ("code_challenge", PKCE_CHALLENGE),
                ("code_challenge_method", "S256"),
            ],
        ),
    );
    let r = post_form(
        &e.s.oidc("token"),
        Some(e.shop()),
        &[
            ("grant_type", "authorization_code"),
            ("code", &p["code"]),
            ("redirect_uri", CB),
            ("code_verifier", PKCE_VERIFIER),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    valid_id_token(&e, &r.json(), Some("n-1"));
}

#[test]
fn oidcc_refresh_token() {
    // Discovery offers offline_access, so the suite asks for `openid offline_access` with
    // prompt=consent; it refreshes (with the scope) a second later and compares the ID
    // tokens (OIDC Core 12.2), then presents the refresh token as the other client.
    let e = env();
    let d = get(&e.s.url(DISCOVERY)).json();
    assert!(d["grant_types_supported"]
        .as_array()
        .unwrap()
        .contains(&json!("refresh_token")));
    let pairs = basic_pairs("openid offline_access", &[("prompt", "consent")]);
    let (t, _) = e.tokens_in(&mut Browser::new(), &pairs);
    let rt = t["refresh_token"].as_str().expect("a refresh token");
    assert!(
        rt.bytes().all(|b| (0x20..=0x7e).contains(&b)),
        "RFC 6749 A.17"
    );
    let first = valid_id_token(&e, &t, Some("n-1"));
    std::thread::sleep(Duration::from_millis(1100));
    let r = post_form(
        &e.s.oidc("token"),
        Some(e.shop()),
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", rt),
            ("scope", "openid offline_access"),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r
        .header("content-type")
        .unwrap()
        .starts_with("application/json"));
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let t2 = r.json();
    assert_eq!(t2["token_type"], "Bearer");
    assert!(t2["expires_in"].is_i64());
    assert_ne!(t2["access_token"], t["access_token"]);
    let second = jwt_claims(t2["id_token"].as_str().expect("an id_token on refresh"));
    for c in ["iss", "sub", "aud", "auth_time", "azp"] {
        assert_eq!(second[c], first[c], "CompareIdTokenClaims: {c}");
    }
    assert_ne!(second["iat"], first["iat"], "a new iat");
    assert_eq!(e.userinfo(&t2)["sub"], first["sub"]);
    // Bound to its client: the other client gets invalid_grant.
    let stolen = post_form(
        &e.s.oidc("token"),
        Some(("other", &e.other)),
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", t2["refresh_token"].as_str().unwrap()),
        ],
    );
    assert_eq!(stolen.status, 400, "{}", stolen.text());
    assert_eq!(stolen.json()["error"], "invalid_grant");
}

#[test]
fn oidcc_ensure_request_object_with_redirect_uri() {
    // An unsigned request object carrying the registered redirect_uri, and an unregistered
    // redirect_uri (`..._invalid`) as a plain parameter: the OP must use the request object's
    // (and succeed) or show an error page; redirecting an error to the registered URI fails.
    use base64::Engine;
    let e = env();
    let b64 = |v: &Value| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string().as_bytes())
    };
    let object = format!(
        "{}.{}.",
        b64(&json!({ "alg": "none" })),
        b64(&json!({
            "client_id": "shop", "redirect_uri": CB, "response_type": "code",
            "scope": "openid", "state": "st", "nonce": "n-1",
        }))
    );
    let invalid = format!("{CB}_invalid");
    let r = Browser::new().get(&auth_url(
        &e.s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", invalid.as_str()),
            ("response_type", "code"),
            ("scope", "openid"),
            ("request", object.as_str()),
        ],
    ));
    match r.header("location") {
        None => {
            assert!(
                r.status == 400 || r.status == 200,
                "an error page or the login: {} {}",
                r.status,
                r.text()
            );
            if r.status == 400 {
                assert!(r.text().contains("redirect_uri"), "{}", r.text());
            }
        }
        Some(loc) => {
            assert!(!loc.starts_with(&invalid), "{loc}");
            assert!(
                !params_of(loc).contains_key("error"),
                "EnsureOPDoesNotUseDefaultRedirectUriInCaseOfInvalidRedirectUri: {loc}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The `claims` request parameter (OIDC Core 5.5): oidcc-claims-essential and beyond.
// ---------------------------------------------------------------------------------------------

#[test]
fn oidcc_claims_essential() {
    // `name` as essential at userinfo, with `openid` alone: released at userinfo (after the
    // consent page listed it), not in the ID token (both WARNING in the suite).
    let e = env();
    let claims = r#"{"userinfo":{"name":{"essential":true}}}"#;
    let mut b = Browser::new();
    let first = b.get(&auth_url(
        &e.s,
        &basic_pairs("openid", &[("claims", claims)]),
    ));
    let payload = attr(&first.text(), "id=\"app-link\"", "data-qr-payload").unwrap();
    assert_eq!(e.app.decide(&mut b, &payload, "approve").status, 200);
    let page = b.get(&consent_url(&e.s, &payload));
    assert!(
        page.text().contains("<li>Your display name</li>"),
        "the consent page lists the claim: {}",
        page.text()
    );
    let r = e.allow(&mut b, &page, &params_of(&payload)["session"]);
    let t = redeem(&e.s, e.shop(), &code_of(&r));
    assert_eq!(t["scope"], "openid");
    let u = e.userinfo(&t);
    assert_eq!(u["name"], "certuser display", "EnsureUserInfoContainsName");
    assert!(
        u.get("preferred_username").is_none(),
        "only what was asked for: {u}"
    );
    let id = valid_id_token(&e, &t, Some("n-1"));
    assert!(
        id.get("name").is_none(),
        "EnsureIdTokenDoesNotContainName: {id}"
    );
}

#[test]
fn claims_requested_for_the_id_token_are_there_and_survive_the_refresh() {
    let e = env();
    let claims = r#"{"id_token":{"address":null,"preferred_username":{"essential":true},"email":null},"userinfo":{"groups":null}}"#;
    let (t, _) = e.tokens_in(
        &mut Browser::new(),
        &basic_pairs("openid", &[("claims", claims)]),
    );
    let id = valid_id_token(&e, &t, Some("n-1"));
    assert_eq!(id["address"], json!({ "country": "SE" }));
    assert_eq!(id["preferred_username"], "certuser");
    for c in ["groups", "name", "email"] {
        assert!(id.get(c).is_none(), "{c} in the id_token: {id}");
    }
    let u = e.userinfo(&t);
    assert_eq!(u["groups"], json!([]));
    assert!(u.get("address").is_none() && u.get("name").is_none(), "{u}");
    // The refresh keeps what was asked for, in the same places.
    let r = post_form(
        &e.s.oidc("token"),
        Some(e.shop()),
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", t["refresh_token"].as_str().unwrap()),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let t2 = r.json();
    let id2 = jwt_claims(t2["id_token"].as_str().unwrap());
    assert_eq!(id2["address"], id["address"]);
    assert_eq!(id2["preferred_username"], "certuser");
    assert!(id2.get("groups").is_none());
    assert_eq!(e.userinfo(&t2)["groups"], json!([]));
}

#[test]
fn a_malformed_claims_parameter_is_invalid_request() {
    let e = env();
    for claims in [
        "{",
        "[]",
        r#"{"userinfo":{"name":"yes"}}"#,
        r#"{"id_token":1}"#,
    ] {
        let p = e.redirected_error(&[("claims", claims)]);
        assert_eq!(p["error"], "invalid_request", "{claims}: {p:?}");
        assert!(p["error_description"].contains("claims"), "{p:?}");
        assert_eq!(p["state"], "st");
    }
}

#[test]
fn a_remembered_consent_does_not_cover_claims_asked_for_later() {
    // Consent to `openid` is remembered; asking for `address` by name asks the person again,
    // and once allowed, the same request is answered at once.
    let e = env();
    let mut b = Browser::new();
    let (_, qr) = e.tokens_in(&mut b, &basic_pairs("openid", &[]));
    assert!(qr);
    let (_, qr) = e.tokens_in(&mut b, &basic_pairs("openid", &[("prompt", "none")]));
    assert!(!qr);
    let claims = r#"{"userinfo":{"address":null}}"#;
    let silent = b.get(&auth_url(
        &e.s,
        &basic_pairs("openid", &[("prompt", "none"), ("claims", claims)]),
    ));
    assert_eq!(
        params_of(&location(&silent))["error"],
        "consent_required",
        "the remembered consent does not cover address"
    );
    let first = b.get(&auth_url(
        &e.s,
        &basic_pairs("openid", &[("claims", claims)]),
    ));
    assert_eq!(first.status, 302);
    let consent = location(&first);
    let page = b.get(&consent);
    assert!(
        page.text().contains("<li>Your country</li>"),
        "{}",
        page.text()
    );
    let r = e.allow(&mut b, &page, &params_of(&consent)["session"]);
    let t = redeem(&e.s, e.shop(), &code_of(&r));
    assert_eq!(e.userinfo(&t)["address"], json!({ "country": "SE" }));
    let again = b.get(&auth_url(
        &e.s,
        &basic_pairs("openid", &[("prompt", "none"), ("claims", claims)]),
    ));
    assert!(params_of(&location(&again)).contains_key("code"));
}

#[test]
fn a_request_naming_its_subject_gives_tokens_to_that_person_only() {
    // OIDC Core 5.5.1: `sub` with a value in `id_token`.
    let e = env();
    let mut b = Browser::new();
    let (t, _) = e.tokens_in(&mut b, &basic_pairs("openid", &[]));
    let sub = jwt_claims(t["id_token"].as_str().unwrap())["sub"]
        .as_str()
        .unwrap()
        .to_owned();
    let naming = |who: &str| json!({ "id_token": { "sub": { "value": who } } }).to_string();
    // The browser's session is this person's: silent for them, login_required for another.
    let mine = naming(&sub);
    let (p, qr) = e.authorize_in(
        &mut b,
        &basic_pairs("openid", &[("prompt", "none"), ("claims", &mine)]),
    );
    assert!(!qr && p.contains_key("code"), "{p:?}");
    let theirs = naming("someone-else");
    let silent = b.get(&auth_url(
        &e.s,
        &basic_pairs("openid", &[("prompt", "none"), ("claims", &theirs)]),
    ));
    assert_eq!(params_of(&location(&silent))["error"], "login_required");
    // Interactively, the QR login is asked for, and this person's approval ends denied.
    let first = b.get(&auth_url(
        &e.s,
        &basic_pairs("openid", &[("claims", &theirs)]),
    ));
    let payload = attr(&first.text(), "id=\"app-link\"", "data-qr-payload").expect("the QR page");
    assert_eq!(e.app.decide(&mut b, &payload, "approve").status, 200);
    let r = b.get(&consent_url(&e.s, &payload));
    let p = params_of(&location(&r));
    assert_eq!(p["error"], "access_denied", "{p:?}");
    assert!(!p.contains_key("code"));
    assert_eq!(p["state"], "st");
}
