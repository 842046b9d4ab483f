//! The OpenID Foundation's `fapi2-message-signing-final-test-plan` (conformance-suite,
//! `fapi2spfinal/FAPI2MessageSigningFinalTestPlan.java`), variant `private_key_jwt` × `dpop` ×
//! `plain_fapi` × `openid_connect`, request method `signed_non_repudiation` and response mode
//! `jarm`: one test per module this work covers (the request objects, JARM and discovery),
//! named after it, against the real `scanid serve`. Each keeps the module's expectation: a
//! refused request object is `invalid_request_object` at the PAR endpoint
//! (`EnsurePARInvalidRequestObjectError`), a request without one `invalid_request`
//! (`EnsurePARInvalidRequestError`), and a JARM response is checked as `ValidateJARMResponse`,
//! `FAPI2ValidateJarmSigningAlg`, `ValidateJARMExpRecommendations` and
//! `ValidateJARMSignatureUsingKid` do (PyJWT with the JWKS and the `kid`). The plan's other
//! modules (DPoP, PKCE, PAR, client assertions) are the Security Profile's and tested there.

use scanid_tests::{
    auth_url, get, jwt_claims, jwt_header, location, login, open, params_of, post_form,
    post_form_with, pyjwt_verify_for, Browser, Resp, TestApp, TestServer, PKCE_CHALLENGE,
    PKCE_VERIFIER,
};
use serde_json::{json, Value};

use crate::client_keys::{jwks_file, Key, JWT_BEARER, LENIENT};

const CB: &str = "https://bank.example/cb";

/// A server with `bank` (FAPI 2.0, signed request objects required, key `bank-1`) and `bank2`
/// (the plan's second client, key `bank2-1`).
struct Plan {
    s: TestServer,
    key: Key,
    other: Key,
    _dir: tempfile::TempDir,
}

fn plan() -> Plan {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap().to_owned();
    let (key, other) = (Key::new("bank-1"), Key::new("bank2-1"));
    for (id, k) in [("bank", &key), ("bank2", &other)] {
        let jwks = jwks_file(dir.path(), &[k]);
        scanid_tests::create_client(
            &data,
            &[
                "--name",
                id,
                "--client-id",
                id,
                "--redirect-uri",
                CB,
                "--jwks",
                &jwks,
                "--profile",
                "fapi2",
                "--require-signed-request-object",
            ],
        );
    }
    let s = TestServer::start(dir.path(), LENIENT);
    Plan {
        s,
        key,
        other,
        _dir: dir,
    }
}

impl Plan {
    /// The suite's request object for `bank` (CreateAuthorizationRequestSteps then
    /// ConvertAuthorizationEndpointRequestToRequestObject): all parameters inside, iss, aud,
    /// nbf now, exp in 5 minutes, response_mode jwt.
    fn claims(&self) -> Value {
        let now = TestApp::now();
        json!({"iss": "bank", "aud": self.s.issuer, "nbf": now, "exp": now + 300, "iat": now,
            "jti": TestApp::jti(), "client_id": "bank", "response_type": "code",
            "scope": "openid", "redirect_uri": CB, "state": "st-inside", "nonce": "n-inside",
            "code_challenge": PKCE_CHALLENGE, "code_challenge_method": "S256",
            "response_mode": "jwt"})
    }

    /// PAR for `bank` with `request` (when given) and `outside` parameters.
    fn push(&self, request: Option<&str>, outside: &[(&str, &str)]) -> Resp {
        let assertion = self.key.assertion("bank", json!(self.s.issuer));
        let mut pairs = vec![
            ("client_id", "bank"),
            ("client_assertion_type", JWT_BEARER),
            ("client_assertion", assertion.as_str()),
        ];
        pairs.extend_from_slice(outside);
        if let Some(r) = request {
            pairs.push(("request", r));
        }
        post_form(&self.s.oidc("ext/par/request"), None, &pairs)
    }

    /// The authorization URL of a pushed request (201 asserted).
    fn pushed_url(&self, r: &Resp) -> String {
        assert_eq!(r.status, 201, "{}", r.text());
        let uri = r.json()["request_uri"].as_str().unwrap().to_owned();
        auth_url(
            &self.s,
            &[("client_id", "bank"), ("request_uri", uri.as_str())],
        )
    }

    /// A pushed request refused by the PAR endpoint with `error`.
    fn refused(&self, request: Option<&str>, outside: &[(&str, &str)], error: &str) {
        let r = self.push(request, outside);
        assert_eq!(r.status, 400, "{}", r.text());
        assert_eq!(r.json()["error"], error, "{}", r.text());
    }

    /// A login through the QR page ending at the client: the verified JARM response's claims.
    fn login_jarm(&self, url: &str) -> Value {
        let app = TestApp::enroll(&self.s, &format!("u{}", &TestApp::jti()[..8]));
        let back = login(&mut Browser::new(), &self.s, &app, url);
        self.jarm(&location(&back))
    }

    /// The JARM checks of the suite's processCallbackForJARM: only `response` in the query
    /// (RejectNonJarmResponsesInUrlQuery), signed with a FAPI algorithm by the key its `kid`
    /// names (FAPI2ValidateJarmSigningAlg, ValidateJARMSignatureUsingKid), iss, aud the
    /// client, exp within 10 minutes and at least 10 seconds ahead (ValidateJARMResponse,
    /// ValidateJARMExpRecommendations).
    fn jarm(&self, loc: &str) -> Value {
        assert!(loc.starts_with(CB), "{loc}");
        let p = params_of(loc);
        assert_eq!(p.keys().collect::<Vec<_>>(), vec!["response"], "{loc}");
        let token = &p["response"];
        let h = jwt_header(token);
        assert!(
            ["PS256", "ES256", "EdDSA"].contains(&h["alg"].as_str().unwrap()),
            "{h}"
        );
        let jwks = get(&self.s.oidc("certs")).json();
        assert!(jwks["keys"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k["kid"] == h["kid"]));
        let certs = self.s.oidc("certs");
        let out = pyjwt_verify_for(&certs, &self.s.issuer, token, "bank", "exp,iss,aud");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let claims: Value = serde_json::from_slice(&out.stdout).unwrap();
        let ahead = claims["exp"].as_i64().unwrap() - TestApp::now();
        assert!((10..=600).contains(&ahead), "exp {ahead} s ahead");
        claims
    }

    /// Redeems a JARM response's code with DPoP: the token response.
    fn redeem(&self, code: &str) -> Value {
        let dpop = crate::dpop::DpopKey::new();
        let proof = dpop.proof("POST", &self.s.oidc("token"), &[]);
        let a = self.key.assertion("bank", json!(self.s.issuer));
        let t = post_form_with(
            &self.s.oidc("token"),
            &[("DPoP", &proof)],
            None,
            &[
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", CB),
                ("code_verifier", PKCE_VERIFIER),
                ("client_assertion_type", JWT_BEARER),
                ("client_assertion", &a),
            ],
        );
        assert_eq!(t.status, 200, "{}", t.text());
        t.json()
    }
}

/// `claims` with `changes` (`Value::Null` removes one).
fn with(mut claims: Value, changes: &[(&str, Value)]) -> Value {
    for (k, v) in changes {
        match v {
            Value::Null => {
                claims.as_object_mut().unwrap().remove(*k);
            }
            v => claims[*k] = v.clone(),
        }
    }
    claims
}

#[test]
fn fapi2_security_profile_final_discovery_end_point_verification() {
    let p = plan();
    let d = get(&p.s.url(scanid_tests::DISCOVERY)).json();
    for m in ["jwt", "query.jwt"] {
        assert!(d["response_modes_supported"]
            .as_array()
            .unwrap()
            .contains(&json!(m)));
    }
    for name in [
        "request_object_signing_alg_values_supported",
        "authorization_signing_alg_values_supported",
    ] {
        assert!(
            d[name].as_array().unwrap().contains(&json!("ES256")),
            "{name}"
        );
    }
    assert_eq!(d["request_parameter_supported"], true);
    assert!(d["pushed_authorization_request_endpoint"].is_string());
}

#[test]
fn fapi2_security_profile_final_happy_flow() {
    let p = plan();
    let url = p.pushed_url(&p.push(Some(&p.key.sign(&p.claims())), &[]));
    let claims = p.login_jarm(&url);
    assert_eq!(claims["state"], "st-inside");
    let t = p.redeem(claims["code"].as_str().unwrap());
    assert_eq!(t["token_type"], "DPoP");
    let id = jwt_claims(t["id_token"].as_str().unwrap());
    assert_eq!(id["nonce"], "n-inside");
}

#[test]
fn fapi2_security_profile_final_user_rejects_authentication() {
    let p = plan();
    let url = p.pushed_url(&p.push(Some(&p.key.sign(&p.claims())), &[]));
    let app = TestApp::enroll(&p.s, "rejecter");
    let mut b = Browser::new();
    let (_, payload) = open(&mut b, &url);
    assert_eq!(
        app.decide(&mut b, &payload, "deny").json()["status"],
        "denied"
    );
    let session = &params_of(&payload)["session"];
    let status = b
        .get(&format!(
            "{}/login-actions/status?session={session}",
            p.s.issuer
        ))
        .json();
    let end = b.get(status["next"].as_str().unwrap());
    let e = p.jarm(&location(&end));
    assert_eq!(e["error"], "access_denied");
    assert_eq!(e["state"], "st-inside");
    assert!(e.get("code").is_none());
}

#[test]
fn fapi2_security_profile_final_ensure_request_object_with_multiple_aud_succeeds() {
    let p = plan();
    let claims = with(
        p.claims(),
        &[("aud", json!(["https://other.example/", p.s.issuer]))],
    );
    assert_eq!(p.push(Some(&p.key.sign(&claims)), &[]).status, 201);
}

#[test]
fn fapi2_security_profile_final_ensure_request_object_with_nbf_8_seconds_in_the_future_is_accepted()
{
    let p = plan();
    let claims = with(p.claims(), &[("nbf", json!(TestApp::now() + 8))]);
    assert_eq!(p.push(Some(&p.key.sign(&claims)), &[]).status, 201);
}

#[test]
fn fapi2_security_profile_final_ensure_different_nonce_inside_and_outside_request_object() {
    // One of the module's three outcomes: success, the nonce inside in the id_token.
    let p = plan();
    let r = p.push(Some(&p.key.sign(&p.claims())), &[("nonce", "n-outside")]);
    let claims = p.login_jarm(&p.pushed_url(&r));
    let t = p.redeem(claims["code"].as_str().unwrap());
    assert_eq!(
        jwt_claims(t["id_token"].as_str().unwrap())["nonce"],
        "n-inside"
    );
}

#[test]
fn fapi2_security_profile_final_ensure_different_state_inside_and_outside_request_object() {
    let p = plan();
    let r = p.push(Some(&p.key.sign(&p.claims())), &[("state", "st-outside")]);
    assert_eq!(p.login_jarm(&p.pushed_url(&r))["state"], "st-inside");
}

#[test]
fn fapi2_security_profile_final_state_only_outside_request_object_not_used() {
    let p = plan();
    let claims = with(p.claims(), &[("state", Value::Null)]);
    let r = p.push(Some(&p.key.sign(&claims)), &[("state", "st-outside")]);
    let back = p.login_jarm(&p.pushed_url(&r));
    assert!(back.get("state").is_none(), "{back}");
    assert!(back["code"].is_string());
}

#[test]
fn fapi2_security_profile_final_ensure_request_object_without_exp_fails() {
    let p = plan();
    let claims = with(p.claims(), &[("exp", Value::Null)]);
    p.refused(Some(&p.key.sign(&claims)), &[], "invalid_request_object");
}

#[test]
fn fapi2_security_profile_final_ensure_request_object_without_nbf_fails() {
    let p = plan();
    let claims = with(p.claims(), &[("nbf", Value::Null)]);
    p.refused(Some(&p.key.sign(&claims)), &[], "invalid_request_object");
}

#[test]
fn fapi2_security_profile_final_ensure_request_object_without_redirect_uri_fails() {
    // The module accepts invalid_request or invalid_request_object from the PAR endpoint.
    let p = plan();
    let claims = with(p.claims(), &[("redirect_uri", Value::Null)]);
    let r = p.push(Some(&p.key.sign(&claims)), &[("redirect_uri", CB)]);
    assert_eq!(r.status, 400, "{}", r.text());
    let e = r.json()["error"].as_str().unwrap().to_owned();
    assert!(
        e == "invalid_request" || e == "invalid_request_object",
        "{e}"
    );
}

#[test]
fn fapi2_security_profile_final_ensure_expired_request_object_fails() {
    let p = plan();
    let now = TestApp::now();
    let claims = with(
        p.claims(),
        &[("exp", json!(now - 60)), ("nbf", json!(now - 600))],
    );
    p.refused(Some(&p.key.sign(&claims)), &[], "invalid_request_object");
}

#[test]
fn fapi2_security_profile_final_ensure_request_object_with_bad_aud_fails() {
    let p = plan();
    let claims = with(p.claims(), &[("aud", json!("https://www.example.com/"))]);
    p.refused(Some(&p.key.sign(&claims)), &[], "invalid_request_object");
}

#[test]
fn fapi2_security_profile_final_ensure_request_object_with_exp_over_60_fails() {
    let p = plan();
    let now = TestApp::now();
    let claims = with(
        p.claims(),
        &[("nbf", json!(now)), ("exp", json!(now + 3660))],
    );
    p.refused(Some(&p.key.sign(&claims)), &[], "invalid_request_object");
}

#[test]
fn fapi2_security_profile_final_ensure_request_object_with_nbf_over_60_fails() {
    let p = plan();
    let now = TestApp::now();
    let claims = with(
        p.claims(),
        &[("nbf", json!(now - 3660)), ("exp", json!(now + 60))],
    );
    p.refused(Some(&p.key.sign(&claims)), &[], "invalid_request_object");
}

/// `ensure-signed-request-object-with-RS256-fails`: refused by its `alg` for a FAPI client
/// before any key is looked at (the suite signs with an RSA key of the client's; the header
/// decides here).
#[test]
fn fapi2_security_profile_final_ensure_signed_request_object_with_rs256_fails() {
    let p = plan();
    let header = base64url(&json!({"alg": "RS256", "kid": "bank-1"}));
    let object = format!("{header}.{}.c2lnbmF0dXJl", base64url(&p.claims()));
    p.refused(Some(&object), &[], "invalid_request_object");
}

#[test]
fn fapi2_security_profile_final_ensure_request_object_signature_algorithm_is_not_none() {
    let p = plan();
    let object = scanid_core::domain::request_object::unsigned(&p.claims());
    p.refused(Some(&object), &[], "invalid_request_object");
}

#[test]
fn fapi2_security_profile_final_ensure_request_object_with_invalid_signature_fails() {
    let p = plan();
    let signed = p.key.sign(&p.claims());
    let (body, sig) = signed.rsplit_once('.').unwrap();
    let flipped: String = sig.chars().rev().collect::<String>().replace('A', "B");
    p.refused(
        Some(&format!("{body}.{flipped}")),
        &[],
        "invalid_request_object",
    );
}

#[test]
fn fapi2_security_profile_final_ensure_matching_key_in_authorization_request() {
    // bank's request object, signed by bank2's key (under bank's kid, and under its own).
    let p = plan();
    p.refused(
        Some(&p.other.sign(&p.claims())),
        &[],
        "invalid_request_object",
    );
}

#[test]
fn fapi2_security_profile_final_ensure_unsigned_request_at_par_endpoint_fails() {
    let p = plan();
    let plain = [
        ("response_type", "code"),
        ("scope", "openid"),
        ("redirect_uri", CB),
        ("state", "st"),
        ("code_challenge", PKCE_CHALLENGE),
        ("code_challenge_method", "S256"),
        ("response_mode", "jwt"),
    ];
    p.refused(None, &plain, "invalid_request");
}

#[test]
fn fapi2_security_profile_final_ensure_unsigned_authorization_request_without_using_par_fails() {
    // The plain request (BuildPlainRedirectToAuthorizationEndpoint): invalid_request at the
    // redirect URI (here as a JARM response, the mode it asked for).
    let p = plan();
    let r = Browser::new().get(&auth_url(
        &p.s,
        &[
            ("client_id", "bank"),
            ("response_type", "code"),
            ("scope", "openid"),
            ("redirect_uri", CB),
            ("state", "st-plain"),
            ("code_challenge", PKCE_CHALLENGE),
            ("code_challenge_method", "S256"),
            ("response_mode", "jwt"),
        ],
    ));
    let e = p.jarm(&location(&r));
    assert_eq!(e["error"], "invalid_request", "{e}");
    assert_eq!(e["state"], "st-plain");
}

fn base64url(v: &Value) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string())
}
