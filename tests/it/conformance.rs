//! The OpenID Foundation's conformance suite (`openid-certification/conformance-suite`), module by
//! module, for the modules whose checks scanid's own behaviour decides: each test is named after
//! its module (`oidcc-scope-profile` -> `oidcc_scope_profile`) and asserts what the module checks,
//! with the suite's severities (a FAILURE there is an assertion here; where scanid deliberately
//! differs and the suite would WARN, the test asserts scanid's answer and docs/relying-parties.md
//! says why). The Basic plan's modules (`OIDCCBasicTestPlan`) and the Config plan's
//! (`OIDCCConfigTestPlan`: `oidcc-discovery-endpoint-verification`).

use scanid_tests::{
    auth_url, code_of, create_client, get, introspect, jwt_claims, location, login, params_of,
    redeem, request, secret_of, userinfo, Browser, TestApp, TestServer, CB, DISCOVERY,
};
use serde_json::{json, Value};

struct Env {
    s: TestServer,
    shop: String,
    app: TestApp,
    _dir: tempfile::TempDir,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let shop = secret_of(&create_client(
        d,
        &[
            "--name",
            "Shop",
            "--client-id",
            "shop",
            "--redirect-uri",
            CB,
        ],
    ));
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "certuser");
    Env {
        s,
        shop,
        app,
        _dir: dir,
    }
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
        let mut pairs = vec![
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("scope", "openid"),
            ("state", "st"),
            ("nonce", "n"),
        ];
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
        json!(["none"])
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
    assert!(u.get("locale").is_none(), "scanid knows no locale");
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
    ] {
        assert!(
            claims.contains(&c.to_owned()),
            "{c} not in claims_supported"
        );
    }
    for c in ["locale", "email", "phone_number", "given_name"] {
        assert!(!claims.contains(&c.to_owned()), "{c} is never released");
    }
    assert_eq!(d["request_parameter_supported"], true);
    assert_eq!(
        d["request_object_signing_alg_values_supported"],
        json!(["none"])
    );
    assert_eq!(d["request_uri_parameter_supported"], false);
    assert_eq!(d["claims_parameter_supported"], false);
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
    // modules, the logout flow itself, are covered by tokens::logout_ends_the_session_and_its_tokens
    // and the JS relying-party matrix, not module by module here).
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
