//! The OpenID Foundation's `fapi2-security-profile-final-test-plan` (conformance-suite,
//! `fapi2spfinal/FAPI2SPFinalTestPlan.java`: the Message Signing plan's modules less the 16
//! that need signed requests), variant `private_key_jwt` × `dpop` × `plain_fapi`, request
//! method `unsigned`, response mode `plain_response`, for `openid_connect` (and `plain_oauth`
//! where the module says so): one test per module that applies, named after it, against the
//! real `scanid serve`. Each keeps what the module asserts and its severity: an authorization
//! response carries `iss` (RFC 9207, `ValidateIssInAuthorizationResponse`), PAR answers 201
//! with `expires_in` under 600, the token response is `token_type: DPoP` with `cnf.jkt` the
//! proof key's thumbprint, a refused PAR request is 400 `invalid_request` (or the error the
//! module's condition lists), a refused client assertion 400/401 `invalid_client`. What a
//! module checks of the deployment (TLS versions and ciphers) is not checked against a plain
//! HTTP loopback server. The modules of other profiles (UK Open Banking, Brazil, Australia)
//! do not apply to `plain_fapi`; `fapi2-security-profile-final-ensure-registered-redirect-uri`
//! is excluded by the suite for `plain_fapi` (it runs
//! `plain-fapi-tolerate-unregistered-redirect-uri` instead).

use std::thread::sleep;
use std::time::Duration;

use scanid_tests::{
    auth_url, get, jwt_claims, location, login, open, params_of, post_form_with, request, Browser,
    Resp, TestApp, TestServer, DISCOVERY, PKCE_CHALLENGE, PKCE_VERIFIER,
};
use serde_json::{json, Value};

use crate::client_keys::{jwks_file, Key, JWT_BEARER, LENIENT};
use crate::dpop::DpopKey;

const CB: &str = "https://bank.example/cb";
/// The scope of the `openid_connect` variant; `plain_oauth` asks for `profile` without
/// `openid` (no ID token).
const OPENID: &str = "openid profile";
const PLAIN: &str = "profile";

/// A server with `bank` and `bank2` (the plan's second client), both `--profile fapi2`
/// (private_key_jwt, PAR, PKCE S256, DPoP, no refresh rotation), each with its own key.
struct Plan {
    s: TestServer,
    key: Key,
    other: Key,
    _dir: tempfile::TempDir,
}

fn plan_with(extra: &[&str]) -> Plan {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap().to_owned();
    let create = |args: &[&str]| {
        scanid_tests::create_client(&data, args);
    };
    plan_on(dir, &create, extra)
}

/// The plan's clients made by `create` (`scanid client create` arguments), the server
/// started with `flags`.
fn plan_on(dir: tempfile::TempDir, create: &dyn Fn(&[&str]), flags: &[&str]) -> Plan {
    let (key, other) = (Key::new("bank-1"), Key::new("bank2-1"));
    for (id, k) in [("bank", &key), ("bank2", &other)] {
        let jwks = jwks_file(dir.path(), &[k]);
        create(&[
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
        ]);
    }
    let mut args = LENIENT.to_vec();
    args.extend_from_slice(flags);
    let s = TestServer::start(dir.path(), &args);
    Plan {
        s,
        key,
        other,
        _dir: dir,
    }
}

fn plan() -> Plan {
    plan_with(&[])
}

impl Plan {
    fn key_of(&self, client: &str) -> &Key {
        if client == "bank" {
            &self.key
        } else {
            &self.other
        }
    }

    /// A fresh assertion of `client` for the issuer.
    fn assertion(&self, client: &str) -> String {
        self.key_of(client).assertion(client, json!(self.s.issuer))
    }

    /// The suite's pushed request (CreateAuthorizationRequestSteps) with `scope`, `changes`
    /// over it (an empty value removes one), authenticated by `assertion`, with a DPoP proof
    /// when `dpop` is given.
    fn push_full(
        &self,
        client: &str,
        assertion: &str,
        scope: &str,
        changes: &[(&str, &str)],
        dpop: Option<&DpopKey>,
    ) -> Resp {
        let mut pairs = vec![
            ("client_id", client),
            ("response_type", "code"),
            ("scope", scope),
            ("redirect_uri", CB),
            ("state", "st-fapi"),
            ("code_challenge", PKCE_CHALLENGE),
            ("code_challenge_method", "S256"),
            ("client_assertion_type", JWT_BEARER),
            ("client_assertion", assertion),
        ];
        if scope.contains("openid") {
            pairs.push(("nonce", "n-fapi"));
        }
        for (k, v) in changes {
            pairs.retain(|(n, _)| n != k);
            if !v.is_empty() {
                pairs.push((k, v));
            }
        }
        let par = self.s.oidc("ext/par/request");
        let proof = dpop.map(|d| d.proof("POST", &par, &[]));
        let headers: Vec<(&str, &str)> = proof.iter().map(|p| ("DPoP", p.as_str())).collect();
        post_form_with(&par, &headers, None, &pairs)
    }

    /// `bank`'s pushed request with `changes`, for the openid_connect variant.
    fn push(&self, changes: &[(&str, &str)]) -> Resp {
        self.push_full("bank", &self.assertion("bank"), OPENID, changes, None)
    }

    /// The authorization URL of a pushed request (201 and `expires_in` under 600 asserted):
    /// only `client_id` and `request_uri` (BuildRequestObjectByReferenceRedirectToAuthorization
    /// EndpointWithoutDuplicates), plus `extra`.
    fn pushed_url(&self, r: &Resp, client: &str, extra: &[(&str, &str)]) -> String {
        assert_eq!(r.status, 201, "{}", r.text());
        let j = r.json();
        let expires = j["expires_in"].as_i64().unwrap();
        assert!((1..600).contains(&expires), "expires_in {expires}");
        let uri = j["request_uri"].as_str().unwrap().to_owned();
        let mut q = vec![("client_id", client), ("request_uri", uri.as_str())];
        q.extend_from_slice(extra);
        auth_url(&self.s, &q)
    }

    /// A QR login at `url`; the authorization response's parameters, `iss` checked (RFC 9207,
    /// ValidateIssInAuthorizationResponse).
    fn login(&self, url: &str) -> std::collections::HashMap<String, String> {
        let name = format!("u{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
        let app = TestApp::enroll(&self.s, &name);
        let back = login(&mut Browser::new(), &self.s, &app, url);
        self.response(&back)
    }

    /// The authorization response `r` sends the browser to, `iss` checked.
    fn response(&self, r: &Resp) -> std::collections::HashMap<String, String> {
        let loc = location(r);
        assert!(loc.starts_with(CB), "{loc}");
        let p = params_of(&loc);
        assert_eq!(p.get("iss"), Some(&self.s.issuer), "{loc}");
        p
    }

    /// Pushes `bank`'s request (with `changes`), logs in and returns the code.
    fn code(&self, changes: &[(&str, &str)]) -> String {
        let url = self.pushed_url(&self.push(changes), "bank", &[]);
        self.login(&url)["code"].clone()
    }

    /// A token request of `client` with `pairs`, authenticated by a fresh assertion, with a
    /// proof by `dpop` when given.
    fn token(&self, client: &str, dpop: Option<&DpopKey>, pairs: &[(&str, &str)]) -> Resp {
        let url = self.s.oidc("token");
        let proof = dpop.map(|d| d.proof("POST", &url, &[]));
        self.token_with_proof(client, proof.as_deref(), pairs)
    }

    fn token_with_proof(&self, client: &str, proof: Option<&str>, pairs: &[(&str, &str)]) -> Resp {
        let a = self.assertion(client);
        let mut all = pairs.to_vec();
        all.extend_from_slice(&[
            ("client_assertion_type", JWT_BEARER),
            ("client_assertion", a.as_str()),
        ]);
        let headers: Vec<(&str, &str)> = proof.iter().map(|p| ("DPoP", *p)).collect();
        post_form_with(&self.s.oidc("token"), &headers, None, &all)
    }

    /// `code` redeemed by `bank` with a proof by `dpop`.
    fn redeem(&self, code: &str, dpop: Option<&DpopKey>) -> Resp {
        self.token("bank", dpop, &code_grant(code, PKCE_VERIFIER))
    }

    /// The token response of a good redemption, checked as ValidateTokenEndpointResponseWith
    /// Dpop does: `token_type` DPoP, `cnf.jkt` the proof key's, `expires_in`.
    fn tokens(&self, code: &str, dpop: &DpopKey) -> Value {
        let t = self.redeem(code, Some(dpop));
        assert_eq!(t.status, 200, "{}", t.text());
        let t = t.json();
        assert_eq!(t["token_type"], "DPoP", "{t}");
        assert!(t["expires_in"].as_i64().unwrap() > 0, "{t}");
        let at = t["access_token"].as_str().unwrap();
        assert_eq!(jwt_claims(at)["cnf"]["jkt"], dpop.jkt(), "{t}");
        t
    }

    /// Userinfo with the access token in `scheme` and a proof by `dpop` (`ath` set).
    fn userinfo(&self, scheme: &str, token: &str, dpop: &DpopKey) -> Resp {
        let url = self.s.oidc("userinfo");
        let proof = dpop.proof("GET", &url, &[("ath", ath(token))]);
        self.userinfo_with(&format!("{scheme} {token}"), &[("DPoP", &proof)])
    }

    fn userinfo_with(&self, authorization: &str, extra: &[(&str, &str)]) -> Resp {
        let mut headers = vec![("Authorization", authorization)];
        headers.extend_from_slice(extra);
        request("GET", &self.s.oidc("userinfo"), &headers, b"")
    }
}

fn code_grant<'a>(code: &'a str, verifier: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", CB),
        ("code_verifier", verifier),
    ]
}

fn ath(token: &str) -> Value {
    use base64::Engine;
    json!(
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(aws_lc_rs::digest::digest(
            &aws_lc_rs::digest::SHA256,
            token.as_bytes()
        ))
    )
}

/// A refusal with one of `errors` and a status in `statuses`.
fn refused(r: &Resp, statuses: &[u16], errors: &[&str], what: &str) {
    assert!(
        statuses.contains(&r.status),
        "{what}: {} {}",
        r.status,
        r.text()
    );
    let e = r.json()["error"].as_str().unwrap_or_default().to_owned();
    assert!(errors.contains(&e.as_str()), "{what}: {}", r.text());
}

/// A refused authorization request: either an error page (no redirect), or `error` back at
/// the redirect URI with `iss` (the suite's placeholder-or-callback modules allow both).
fn refused_at_authorization(p: &Plan, url: &str, errors: &[&str]) {
    let r = Browser::new().get(url);
    match r.header("location") {
        Some(loc) if loc.starts_with(CB) => {
            let q = p.response(&r);
            assert!(errors.contains(&q["error"].as_str()), "{q:?}");
            assert!(!q.contains_key("code"), "{q:?}");
        }
        _ => assert!((400..500).contains(&r.status), "{}: {}", r.status, r.text()),
    }
}

// ---- Normal well behaved client cases ----

#[test]
fn fapi2_security_profile_final_discovery_end_point_verification() {
    let p = plan();
    let d = get(&p.s.url(DISCOVERY)).json();
    let has = |name: &str, v: &str| {
        d[name]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: {d}"))
            .contains(&json!(v))
    };
    assert_eq!(d["issuer"], p.s.issuer);
    assert!(has(
        "token_endpoint_auth_methods_supported",
        "private_key_jwt"
    ));
    assert!(has("code_challenge_methods_supported", "S256"));
    assert!(has("response_types_supported", "code"));
    assert!(has("grant_types_supported", "authorization_code"));
    // FAPI2Check...AlgValuesSupported: at least one of PS256, ES256, EdDSA (FAILURE).
    for name in [
        "dpop_signing_alg_values_supported",
        "token_endpoint_auth_signing_alg_values_supported",
        "id_token_signing_alg_values_supported",
    ] {
        assert!(
            ["PS256", "ES256", "EdDSA"].iter().any(|a| has(name, a)),
            "{name}: {d}"
        );
    }
    assert!(d["pushed_authorization_request_endpoint"].is_string());
    assert_eq!(d["authorization_response_iss_parameter_supported"], true);
    assert!(d["jwks_uri"].is_string());
    assert!(has("scopes_supported", "openid"));
}

#[test]
fn fapi2_security_profile_final_happy_flow() {
    let p = plan();
    for scope in [OPENID, PLAIN] {
        let dpop = DpopKey::new();
        let r = p.push_full("bank", &p.assertion("bank"), scope, &[], Some(&dpop));
        // CheckPAREndpointResponse201WithNoError, EnsureMinimumRequestUriEntropy (128 bits).
        assert!(r
            .header("content-type")
            .unwrap_or_default()
            .starts_with("application/json"));
        let uri = r.json()["request_uri"].as_str().unwrap().to_owned();
        let random = uri.rsplit(':').next().unwrap();
        assert!(random.len() >= 22, "{uri}");
        let url = p.pushed_url(&r, "bank", &[]);
        let back = p.login(&url);
        assert_eq!(back["state"], "st-fapi");
        // EnsureMinimumAuthorizationCodeLength/Entropy (128 bits).
        assert!(back["code"].len() >= 22, "{back:?}");
        let t = p.tokens(&back["code"], &dpop);
        let at = t["access_token"].as_str().unwrap();
        // EnsureMinimumAccessTokenLength/Entropy (FAPI 2.0 §5.4.1-4).
        assert!(at.len() >= 22);
        if scope == OPENID {
            let id_token = t["id_token"].as_str().unwrap();
            // EnsureIdTokenContainsKid (a key of the JWKS), FAPI2's algorithms only.
            let h = scanid_tests::jwt_header(id_token);
            assert!(
                ["PS256", "ES256", "EdDSA"].contains(&h["alg"].as_str().unwrap()),
                "{h}"
            );
            let jwks = get(&p.s.oidc("certs")).json();
            let keys = jwks["keys"].as_array().unwrap();
            assert!(keys.iter().any(|k| k["kid"] == h["kid"]), "{h}");
            // FAPI2FinalEnsureMinimumServerKeyLength: RSA 2048 bits, EC 256.
            for k in keys {
                if k["kty"] == "RSA" {
                    assert!(k["n"].as_str().unwrap().len() >= 342, "{k}");
                }
                if k["kty"] == "EC" {
                    assert!(["P-256", "P-384", "P-521"].contains(&k["crv"].as_str().unwrap()));
                }
            }
            let id = jwt_claims(id_token);
            assert_eq!(id["nonce"], "n-fapi");
            assert_eq!(id["aud"], "bank");
            assert_eq!(id["iss"], p.s.issuer);
            let u = p.userinfo("DPoP", at, &dpop);
            assert_eq!(u.status, 200, "{}", u.text());
            assert_eq!(u.json()["sub"], id["sub"]);
            // CheckForDateHeaderInResourceResponse, EnsureContentTypeJson (FAILURE).
            assert!(u.header("date").is_some(), "no Date header at userinfo");
            assert!(u
                .header("content-type")
                .unwrap_or_default()
                .starts_with("application/json"));
        } else {
            assert!(t.get("id_token").is_none(), "plain_oauth: {t}");
        }
    }
}

#[test]
fn fapi2_security_profile_final_user_rejects_authentication() {
    let p = plan();
    let url = p.pushed_url(&p.push(&[]), "bank", &[]);
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
    let e = p.response(&end);
    assert_eq!(e["error"], "access_denied");
    assert_eq!(e["state"], "st-fapi");
    assert!(!e.contains_key("code"));
}

#[test]
fn fapi2_security_profile_final_ensure_authorization_request_without_state_success() {
    let p = plan();
    let url = p.pushed_url(&p.push(&[("state", "")]), "bank", &[]);
    let back = p.login(&url);
    assert!(!back.contains_key("state"), "{back:?}");
    p.tokens(&back["code"], &DpopKey::new());
}

#[test]
fn fapi2_security_profile_final_ensure_authorization_request_without_nonce_success() {
    let p = plan();
    let dpop = DpopKey::new();
    let t = p.tokens(&p.code(&[("nonce", "")]), &dpop);
    let id = jwt_claims(t["id_token"].as_str().unwrap());
    assert!(id.get("nonce").is_none(), "{id}");
}

#[test]
fn fapi2_security_profile_final_ensure_authorization_request_with_64_char_nonce_success() {
    let p = plan();
    let nonce = "n".repeat(64);
    let t = p.tokens(&p.code(&[("nonce", &nonce)]), &DpopKey::new());
    assert_eq!(jwt_claims(t["id_token"].as_str().unwrap())["nonce"], nonce);
}

#[test]
fn fapi2_security_profile_final_ensure_other_scope_order_succeeds() {
    let p = plan();
    let t = p.tokens(&p.code(&[("scope", "profile openid")]), &DpopKey::new());
    let scopes: Vec<&str> = t["scope"].as_str().unwrap().split(' ').collect();
    assert!(
        scopes.contains(&"openid") && scopes.contains(&"profile"),
        "{t}"
    );
}

#[test]
fn fapi2_security_profile_final_test_claims_parameter_identity_claims() {
    // The suite asks for `name` in the ID token and at userinfo (claims parameter at PAR);
    // a claim the OP does not release is not a failure.
    let p = plan();
    let claims = r#"{"id_token":{"name":null},"userinfo":{"name":null}}"#;
    let dpop = DpopKey::new();
    let t = p.tokens(&p.code(&[("claims", claims)]), &dpop);
    let id = jwt_claims(t["id_token"].as_str().unwrap());
    assert!(id["name"].is_string(), "{id}");
    let u = p.userinfo("DPoP", t["access_token"].as_str().unwrap(), &dpop);
    assert_eq!(u.status, 200, "{}", u.text());
    assert!(u.json()["name"].is_string(), "{}", u.text());
}

#[test]
fn fapi2_security_profile_final_access_token_type_header_case_sensitivity() {
    // RFC 9110 §11.1: the scheme is case-insensitive (SetAccessTokenTypeToInvertedCase).
    let p = plan();
    let dpop = DpopKey::new();
    let t = p.tokens(&p.code(&[]), &dpop);
    let at = t["access_token"].as_str().unwrap();
    for scheme in ["dPoP", "dpop", "DPOP"] {
        let u = p.userinfo(scheme, at, &dpop);
        assert_eq!(u.status, 200, "{scheme}: {}", u.text());
    }
}

// ---- DPoP ----

#[test]
fn fapi2_security_profile_final_check_dpop_proof_nbf_exp() {
    // Proofs with nbf now and exp in 5 minutes (SetDpopNbfToNow, SetDpopExpToFiveMinutesInFuture)
    // at the token endpoint and the resource: accepted.
    let p = plan();
    let dpop = DpopKey::new();
    let now = TestApp::now();
    let times = [("nbf", json!(now)), ("exp", json!(now + 300))];
    let proof = dpop.proof("POST", &p.s.oidc("token"), &times);
    let code = p.code(&[]);
    let t = p.token_with_proof("bank", Some(&proof), &code_grant(&code, PKCE_VERIFIER));
    assert_eq!(t.status, 200, "{}", t.text());
    let at = t.json()["access_token"].as_str().unwrap().to_owned();
    let mut claims = times.to_vec();
    claims.push(("ath", ath(&at)));
    let proof = dpop.proof("GET", &p.s.oidc("userinfo"), &claims);
    let u = p.userinfo_with(&format!("DPoP {at}"), &[("DPoP", &proof)]);
    assert_eq!(u.status, 200, "{}", u.text());
}

/// A token request whose proof's `iat` is `offset` seconds from now: accepted.
fn iat_offset_succeeds(offset: i64) {
    let p = plan();
    let dpop = DpopKey::new();
    let iat = [("iat", json!(TestApp::now() + offset))];
    let proof = dpop.proof("POST", &p.s.oidc("token"), &iat);
    let code = p.code(&[]);
    let t = p.token_with_proof("bank", Some(&proof), &code_grant(&code, PKCE_VERIFIER));
    assert_eq!(t.status, 200, "iat {offset}: {}", t.text());
    let at = t.json()["access_token"].as_str().unwrap().to_owned();
    let claims = [("iat", json!(TestApp::now() + offset)), ("ath", ath(&at))];
    let proof = dpop.proof("GET", &p.s.oidc("userinfo"), &claims);
    let u = p.userinfo_with(&format!("DPoP {at}"), &[("DPoP", &proof)]);
    assert_eq!(u.status, 200, "iat {offset} at userinfo: {}", u.text());
}

#[test]
fn fapi2_security_profile_final_ensure_dpopproof_with_iat_10seconds_before_succeeds() {
    iat_offset_succeeds(-10);
}

#[test]
fn fapi2_security_profile_final_ensure_dpopproof_with_iat_10seconds_after_succeeds() {
    iat_offset_succeeds(10);
}

#[test]
fn fapi2_security_profile_final_ensure_mismatched_dpop_jkt_fails() {
    // dpop_jkt of one key, the PAR proof by another: EnsurePARInvalidRequestOrInvalidDpopProof.
    let p = plan();
    let (named, signer) = (DpopKey::new(), DpopKey::new());
    let jkt = named.jkt();
    let r = p.push_full(
        "bank",
        &p.assertion("bank"),
        OPENID,
        &[("dpop_jkt", &jkt)],
        Some(&signer),
    );
    refused(
        &r,
        &[400],
        &["invalid_request", "invalid_dpop_proof"],
        "PAR",
    );
}

#[test]
fn fapi2_security_profile_final_ensure_token_endpoint_fails_with_mismatched_dpop_proof_jkt() {
    // The PAR proof by one key binds the code; the token proof by another is refused
    // (CheckTokenEndpointReturnedInvalidRequestGrantOrDPopProofError).
    let p = plan();
    let (first, second) = (DpopKey::new(), DpopKey::new());
    let r = p.push_full("bank", &p.assertion("bank"), OPENID, &[], Some(&first));
    let code = p.login(&p.pushed_url(&r, "bank", &[]))["code"].clone();
    let t = p.redeem(&code, Some(&second));
    refused(
        &t,
        &[400],
        &["invalid_request", "invalid_grant", "invalid_dpop_proof"],
        "token",
    );
}

#[test]
fn fapi2_security_profile_final_ensure_token_endpoint_fails_with_mismatched_dpop_jkt() {
    // A dpop_jkt at PAR that is not the token proof's key.
    let p = plan();
    let jkt = DpopKey::new().jkt();
    let code = p.code(&[("dpop_jkt", &jkt)]);
    let t = p.redeem(&code, Some(&DpopKey::new()));
    refused(
        &t,
        &[400],
        &["invalid_request", "invalid_grant", "invalid_dpop_proof"],
        "token",
    );
}

#[test]
fn fapi2_security_profile_final_ensure_dpopproof_at_par_endpoint_binding_success() {
    let p = plan();
    let dpop = DpopKey::new();
    let r = p.push_full("bank", &p.assertion("bank"), OPENID, &[], Some(&dpop));
    let code = p.login(&p.pushed_url(&r, "bank", &[]))["code"].clone();
    p.tokens(&code, &dpop);
}

#[test]
fn fapi2_security_profile_final_ensure_dpop_auth_code_binding_success() {
    let p = plan();
    let dpop = DpopKey::new();
    let jkt = dpop.jkt();
    let r = p.push_full(
        "bank",
        &p.assertion("bank"),
        OPENID,
        &[("dpop_jkt", &jkt)],
        Some(&dpop),
    );
    let code = p.login(&p.pushed_url(&r, "bank", &[]))["code"].clone();
    p.tokens(&code, &dpop);
}

#[test]
fn fapi2_security_profile_final_dpop_negative_tests() {
    // At the resource (userinfo): the scheme in capitals is accepted; each malformed proof
    // is refused with 400 or 401 (EnsureHttpStatusCodeIs400or401, FAILURE).
    let p = plan();
    let dpop = DpopKey::new();
    let t = p.tokens(&p.code(&[]), &dpop);
    let at = t["access_token"].as_str().unwrap().to_owned();
    let url = p.s.oidc("userinfo");
    let auth = format!("DPoP {at}");
    let ok = p.userinfo("DPOP", &at, &dpop);
    assert_eq!(ok.status, 200, "all capitals: {}", ok.text());
    let good = || json!({"jti": TestApp::jti(), "htm": "GET", "htu": url, "iat": TestApp::now(), "ath": ath(&at)});
    let without = |claim: &str| {
        let mut c = good();
        c.as_object_mut().unwrap().remove(claim);
        dpop.sign("dpop+jwt", &c)
    };
    let no_alg = {
        let proof = dpop.sign("dpop+jwt", &good());
        let (h, rest) = proof.split_once('.').unwrap();
        let mut header: Value = jwt_part(h);
        header.as_object_mut().unwrap().remove("alg");
        format!("{}.{rest}", b64(&header))
    };
    let no_jwk = {
        let proof = dpop.sign("dpop+jwt", &good());
        let (h, rest) = proof.split_once('.').unwrap();
        let mut header: Value = jwt_part(h);
        header.as_object_mut().unwrap().remove("jwk");
        format!("{}.{rest}", b64(&header))
    };
    let cases: Vec<(&str, Vec<String>)> = vec![
        (
            "two proofs",
            vec![
                dpop.sign("dpop+jwt", &good()),
                dpop.sign("dpop+jwt", &good()),
            ],
        ),
        ("not a JWT", vec!["not.a-jwt".to_owned()]),
        ("no typ", vec![dpop.sign("", &good())]),
        ("no alg", vec![no_alg]),
        ("no jwk", vec![no_jwk]),
        ("no jti", vec![without("jti")]),
        ("no htm", vec![without("htm")]),
        ("no htu", vec![without("htu")]),
        ("no iat", vec![without("iat")]),
        ("no ath", vec![without("ath")]),
        ("typ JWT", vec![dpop.sign("JWT", &good())]),
        (
            "iat 5 minutes ago",
            vec![dpop.sign("dpop+jwt", &{
                let mut c = good();
                c["iat"] = json!(TestApp::now() - 300);
                c
            })],
        ),
        (
            "iat 5 minutes ahead",
            vec![dpop.sign("dpop+jwt", &{
                let mut c = good();
                c["iat"] = json!(TestApp::now() + 300);
                c
            })],
        ),
        (
            "htm POST",
            vec![dpop.sign("dpop+jwt", &{
                let mut c = good();
                c["htm"] = json!("POST");
                c
            })],
        ),
        (
            "another htu",
            vec![dpop.sign("dpop+jwt", &{
                let mut c = good();
                c["htu"] = json!("https://rs.example/accounts");
                c
            })],
        ),
        (
            "another key",
            vec![DpopKey::new().sign("dpop+jwt", &good())],
        ),
    ];
    let with = |k: &str, v: Value| {
        let mut c = good();
        c[k] = v;
        dpop.sign("dpop+jwt", &c)
    };
    let signed_header = |extra: (&str, Value)| {
        let mut h = json!({"alg": "ES256", "typ": "dpop+jwt", "jwk": dpop.jwk()});
        h[extra.0] = extra.1;
        dpop.sign_with_header(&h, &good())
    };
    let private_jwk = {
        let mut jwk = dpop.jwk();
        jwk["d"] = json!(b64(&json!("a private key's d")));
        signed_header(("jwk", jwk))
    };
    let none_alg = {
        let proof = dpop.sign("dpop+jwt", &good());
        let mut parts = proof.split('.');
        let mut header: Value = jwt_part(parts.next().unwrap());
        header["alg"] = json!("none");
        format!("{}.{}.", b64(&header), parts.next().unwrap())
    };
    let bad_signature = {
        let proof = dpop.sign("dpop+jwt", &good());
        let (body, sig) = proof.rsplit_once('.').unwrap();
        let flipped = if sig.starts_with('A') { "B" } else { "A" };
        format!("{body}.{flipped}{}", &sig[1..])
    };
    let cases: Vec<(&str, Vec<String>)> = cases
        .into_iter()
        .chain([
            ("alg none", vec![none_alg]),
            ("a bad signature", vec![bad_signature]),
            ("a private key in jwk", vec![private_jwk]),
            ("htm PUT", vec![with("htm", json!("PUT"))]),
            ("a wrong ath", vec![with("ath", ath("another token"))]),
        ])
        .collect();
    for (what, proofs) in cases {
        let mut headers = vec![("Authorization", auth.as_str())];
        headers.extend(proofs.iter().map(|p| ("DPoP", p.as_str())));
        let r = request("GET", &url, &headers, b"");
        assert!(
            [400, 401].contains(&r.status),
            "{what}: {} {}",
            r.status,
            r.text()
        );
    }
    // Accepted (FAILURE if refused): htu with a query and fragment (ignored, RFC 9449 §4.3),
    // unknown header parameters and claims (§7.2). Accepted at WARNING: the scheme in capitals
    // (RFC 3986 §6.2.2 normalization; the default-port case needs a server on port 80).
    let htu_query = with("htu", json!(format!("{url}?x=1#frag")));
    let extra = signed_header(("x-extra", json!("ignored")));
    let extra_claims = with("x-extra", json!("ignored"));
    for (what, proof) in [
        ("htu with a query and fragment", htu_query),
        ("an unknown header parameter", extra),
        ("an unknown claim", extra_claims),
    ] {
        let r = p.userinfo_with(&auth, &[("DPoP", &proof)]);
        assert_eq!(r.status, 200, "{what}: {}", r.text());
    }
    let upper = url.replacen("http://127.0.0.1", "HTTP://127.0.0.1", 1);
    let r = p.userinfo_with(&auth, &[("DPoP", &with("htu", json!(upper)))]);
    assert_eq!(r.status, 200, "htu in capitals: {}", r.text());
    // No DPoP header with the DPoP scheme (FAPI2-BASE-4.3.3).
    let none = p.userinfo_with(&auth, &[]);
    assert!(
        [400, 401].contains(&none.status),
        "no proof: {}",
        none.text()
    );
    // A replayed proof, and the DPoP token as a bearer token (CallProtectedResourceForceBearer).
    let once = dpop.sign("dpop+jwt", &good());
    assert_eq!(p.userinfo_with(&auth, &[("DPoP", &once)]).status, 200);
    let again = p.userinfo_with(&auth, &[("DPoP", &once)]);
    assert!(
        [400, 401].contains(&again.status),
        "replay: {}",
        again.text()
    );
    let bearer = p.userinfo_with(&format!("Bearer {at}"), &[]);
    assert_eq!(bearer.status, 401, "bearer: {}", bearer.text());
}

fn b64(v: &Value) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string())
}

fn jwt_part(s: &str) -> Value {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(s)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

// ---- Possible failure cases (unsigned: the pushed request is the "request object") ----

#[test]
fn fapi2_security_profile_final_ensure_different_nonce_inside_and_outside_request_object() {
    // A nonce at the authorization endpoint beside the request_uri is ignored: the pushed
    // one is in the ID token (one of the module's allowed outcomes).
    let p = plan();
    let url = p.pushed_url(&p.push(&[]), "bank", &[("nonce", "n-outside")]);
    let code = p.login(&url)["code"].clone();
    let t = p.tokens(&code, &DpopKey::new());
    assert_eq!(
        jwt_claims(t["id_token"].as_str().unwrap())["nonce"],
        "n-fapi"
    );
}

#[test]
fn fapi2_security_profile_final_ensure_different_state_inside_and_outside_request_object() {
    let p = plan();
    let url = p.pushed_url(&p.push(&[]), "bank", &[("state", "st-outside")]);
    assert_eq!(p.login(&url)["state"], "st-fapi");
}

#[test]
fn fapi2_security_profile_final_ensure_authorization_request_with_long_nonce() {
    // 384 characters: success (the module also allows an error; scanid takes it).
    let p = plan();
    let nonce = "n".repeat(384);
    let t = p.tokens(&p.code(&[("nonce", &nonce)]), &DpopKey::new());
    assert_eq!(jwt_claims(t["id_token"].as_str().unwrap())["nonce"], nonce);
}

#[test]
fn fapi2_security_profile_final_ensure_authorization_request_with_long_state() {
    let p = plan();
    let state = "s".repeat(384);
    let url = p.pushed_url(&p.push(&[("state", &state)]), "bank", &[]);
    assert_eq!(p.login(&url)["state"], state);
}

#[test]
fn fapi2_security_profile_final_state_only_outside_request_object_not_used() {
    let p = plan();
    let url = p.pushed_url(
        &p.push(&[("state", "")]),
        "bank",
        &[("state", "st-outside")],
    );
    let back = p.login(&url);
    assert!(!back.contains_key("state"), "{back:?}");
    assert!(back.contains_key("code"));
}

#[test]
fn fapi2_security_profile_final_ensure_request_object_without_redirect_uri_fails() {
    // FAPI 2.0 §5.3.2.2-6: redirect_uri is required in the pushed request.
    let p = plan();
    let r = p.push(&[("redirect_uri", "")]);
    refused(
        &r,
        &[400],
        &["invalid_request", "invalid_request_object"],
        "PAR",
    );
}

// ---- Negative tests for the authorization request ----

#[test]
fn fapi2_security_profile_final_plain_fapi_tolerate_unregistered_redirect_uri() {
    // RFC 9126 §2.4 allows an unregistered redirect_uri at PAR; scanid refuses it at PAR
    // with invalid_request (EnsurePARInvalidRequestOrInvalidRequestObjectError), never
    // calling the registered one.
    let p = plan();
    let r = p.push(&[("redirect_uri", "https://bank.example/cb/unregistered")]);
    refused(
        &r,
        &[400],
        &["invalid_request", "invalid_request_object"],
        "PAR",
    );
}

#[test]
fn fapi2_security_profile_final_ensure_unsigned_authorization_request_without_using_par_fails() {
    let p = plan();
    let url = auth_url(
        &p.s,
        &[
            ("client_id", "bank"),
            ("response_type", "code"),
            ("scope", OPENID),
            ("redirect_uri", CB),
            ("state", "st-plain"),
            ("nonce", "n"),
            ("code_challenge", PKCE_CHALLENGE),
            ("code_challenge_method", "S256"),
        ],
    );
    refused_at_authorization(&p, &url, &["invalid_request"]);
}

#[test]
fn fapi2_security_profile_final_ensure_redirect_uri_in_authorization_request() {
    let p = plan();
    let r = p.push(&[("redirect_uri", "")]);
    refused(
        &r,
        &[400],
        &["invalid_request", "invalid_request_object"],
        "PAR",
    );
}

#[test]
fn fapi2_security_profile_final_ensure_response_type_code_idtoken_fails() {
    // Refused at PAR (or, the module allows, at the authorization endpoint).
    let p = plan();
    let r = p.push(&[("response_type", "code id_token")]);
    refused(
        &r,
        &[400],
        &[
            "invalid_request",
            "unsupported_response_type",
            "unauthorized_client",
        ],
        "PAR",
    );
}

#[test]
fn fapi2_security_profile_final_ensure_response_type_token_fails() {
    let p = plan();
    let r = p.push(&[("response_type", "token")]);
    refused(
        &r,
        &[400],
        &[
            "invalid_request",
            "unsupported_response_type",
            "unauthorized_client",
        ],
        "PAR",
    );
}

// ---- Negative tests for the token endpoint ----

#[test]
fn fapi2_security_profile_final_ensure_client_id_in_token_endpoint() {
    // bank's code, redeemed with client_id and authentication of bank2:
    // CheckTokenEndpointHttpStatusIs400Allowing401ForInvalidClientError and
    // CheckErrorFromTokenEndpointResponseErrorInvalidClientOrInvalidGrant.
    let p = plan();
    let code = p.code(&[]);
    let mut pairs = code_grant(&code, PKCE_VERIFIER);
    pairs.push(("client_id", "bank2"));
    let t = p.token("bank2", Some(&DpopKey::new()), &pairs);
    refused(
        &t,
        &[400, 401],
        &["invalid_client", "invalid_grant"],
        "token",
    );
    assert!(t
        .header("content-type")
        .unwrap_or_default()
        .starts_with("application/json"));
}

#[test]
fn fapi2_security_profile_final_ensure_holder_of_key_required() {
    // Without a DPoP proof the token endpoint refuses (the TLS checks concern a deployment).
    let p = plan();
    let code = p.code(&[]);
    let t = p.redeem(&code, None);
    refused(
        &t,
        &[400, 401],
        &[
            "invalid_request",
            "invalid_dpop_proof",
            "invalid_client",
            "invalid_grant",
        ],
        "token without DPoP",
    );
}

#[test]
fn fapi2_security_profile_final_ensure_authorization_code_is_bound_to_client() {
    let p = plan();
    let code = p.code(&[]);
    let t = p.token(
        "bank2",
        Some(&DpopKey::new()),
        &code_grant(&code, PKCE_VERIFIER),
    );
    refused(&t, &[400], &["invalid_grant"], "another client's code");
}

#[test]
fn fapi2_security_profile_final_attempt_reuse_authorization_code_after_one_second() {
    let p = plan();
    let dpop = DpopKey::new();
    let code = p.code(&[]);
    let t = p.tokens(&code, &dpop);
    sleep(Duration::from_secs(1));
    let again = p.redeem(&code, Some(&dpop));
    refused(&again, &[400], &["invalid_grant"], "reused code");
    // The tokens of the first redemption are revoked (OAuth 2.0 Security BCP §4.5; the
    // module's WARNING-level check).
    let u = p.userinfo("DPoP", t["access_token"].as_str().unwrap(), &dpop);
    assert_eq!(u.status, 401, "{}", u.text());
}

#[test]
fn fapi2_security_profile_final_ensure_token_endpoint_fails_with_expired_auth_code() {
    // The suite waits for the code to expire; here the code lives 5 s (`--code-ttl 5`, the
    // least the setting takes).
    let p = plan_with(&["--code-ttl", "5"]);
    let code = p.code(&[]);
    sleep(Duration::from_secs(7));
    refused(
        &p.redeem(&code, Some(&DpopKey::new())),
        &[400],
        &["invalid_grant"],
        "expired code",
    );
}

// ---- Client assertions (private_key_jwt) ----

/// A token request of `bank` for a fresh code, authenticated by `assertion`.
fn redeem_with_assertion(p: &Plan, assertion: &str) -> Resp {
    let code = p.code(&[]);
    let url = p.s.oidc("token");
    let proof = DpopKey::new().proof("POST", &url, &[]);
    let mut pairs = code_grant(&code, PKCE_VERIFIER);
    pairs.extend_from_slice(&[
        ("client_assertion_type", JWT_BEARER),
        ("client_assertion", assertion),
    ]);
    post_form_with(&url, &[("DPoP", &proof)], None, &pairs)
}

/// `bank`'s assertion claims with `changes` (Null removes one), signed by its key.
fn assertion_with(p: &Plan, changes: &[(&str, Value)]) -> String {
    let now = TestApp::now();
    let mut c = json!({"iss": "bank", "sub": "bank", "aud": p.s.issuer, "iat": now,
        "exp": now + 60, "jti": TestApp::jti()});
    for (k, v) in changes {
        if v.is_null() {
            c.as_object_mut().unwrap().remove(*k);
        } else {
            c[*k] = v.clone();
        }
    }
    p.key.sign(&c)
}

fn invalid_client(r: &Resp, what: &str) {
    refused(r, &[400, 401], &["invalid_client"], what);
}

#[test]
fn fapi2_security_profile_final_ensure_signed_client_assertion_with_rs256_fails() {
    // Refused by its alg for a FAPI 2.0 client (FAPI 2.0 §5.4.1): an RS256 header.
    let p = plan();
    let now = TestApp::now();
    let claims = json!({"iss": "bank", "sub": "bank", "aud": p.s.issuer, "iat": now,
        "exp": now + 60, "jti": TestApp::jti()});
    let rs256 = format!(
        "{}.{}.c2lnbmF0dXJl",
        b64(&json!({"alg": "RS256", "kid": "bank-1"})),
        b64(&claims)
    );
    invalid_client(&redeem_with_assertion(&p, &rs256), "RS256");
}

#[test]
fn fapi2_security_profile_final_ensure_client_assertion_in_token_endpoint() {
    // A good assertion at the token endpoint succeeds; the same request without any client
    // authentication is refused.
    let p = plan();
    let a = assertion_with(&p, &[]);
    assert_eq!(redeem_with_assertion(&p, &a).status, 200);
    let code = p.code(&[]);
    let url = p.s.oidc("token");
    let proof = DpopKey::new().proof("POST", &url, &[]);
    let mut pairs = code_grant(&code, PKCE_VERIFIER);
    pairs.push(("client_id", "bank"));
    invalid_client(
        &post_form_with(&url, &[("DPoP", &proof)], None, &pairs),
        "no assertion",
    );
}

#[test]
fn fapi2_security_profile_final_ensure_client_assertion_with_exp_is_5_minutes_in_past_fails() {
    let p = plan();
    let now = TestApp::now();
    let a = assertion_with(&p, &[("exp", json!(now - 300)), ("iat", json!(now - 360))]);
    invalid_client(&redeem_with_assertion(&p, &a), "exp 5 minutes ago");
}

#[test]
fn fapi2_security_profile_final_ensure_client_assertion_with_wrong_aud_fails() {
    let p = plan();
    let a = assertion_with(&p, &[("aud", json!("https://www.example.com/"))]);
    invalid_client(&redeem_with_assertion(&p, &a), "wrong aud");
}

#[test]
fn fapi2_security_profile_final_ensure_client_assertion_with_no_sub_fails() {
    let p = plan();
    let a = assertion_with(&p, &[("sub", Value::Null)]);
    invalid_client(&redeem_with_assertion(&p, &a), "no sub");
}

// ---- Refresh ----

#[test]
fn fapi2_security_profile_final_refresh_token() {
    refresh_token(&plan());
}

/// The SQLite tests' refresh and PAR audience modules, on DynamoDB (moto).
#[test]
fn fapi2_security_profile_final_refresh_token_and_par_audience_on_dynamodb() {
    let aws = crate::aws::Aws::init("kms-envelope");
    let create = |args: &[&str]| {
        let mut all = vec!["client", "create"];
        all.extend_from_slice(args);
        aws.cli(&all);
    };
    let p = plan_on(tempfile::tempdir().unwrap(), &create, &aws.flags());
    refresh_token(&p);
    let a = assertion_with(
        &p,
        &[("aud", json!([p.s.issuer, "https://other.example/"]))],
    );
    let r = p.push_full("bank", &a, OPENID, &[], None);
    refused(&r, &[400, 401], &["invalid_client"], "list aud");
}

/// Both variants: a refresh with the DPoP key succeeds, DPoP-bound, and does not rotate
/// (FAPI 2.0 §5.3.2.1-9); the same refresh token used again later succeeds; another client
/// (bank2) gets invalid_grant; a refresh without a proof is refused.
fn refresh_token(p: &Plan) {
    for scope in [OPENID, PLAIN] {
        let dpop = DpopKey::new();
        let scope_with_offline = format!("{scope} offline_access");
        let r = p.push_full(
            "bank",
            &p.assertion("bank"),
            &scope_with_offline,
            &[("prompt", "consent")],
            Some(&dpop),
        );
        let code = p.login(&p.pushed_url(&r, "bank", &[]))["code"].clone();
        let t = p.tokens(&code, &dpop);
        let rt = t["refresh_token"]
            .as_str()
            .unwrap_or_else(|| panic!("no refresh token: {t}"))
            .to_owned();
        assert!(
            rt.chars().all(|c| (' '..='~').contains(&c)),
            "RFC 6749 A.17: {rt}"
        );
        let grant = [
            ("grant_type", "refresh_token"),
            ("refresh_token", rt.as_str()),
        ];
        let first = p.token("bank", Some(&dpop), &grant);
        assert_eq!(first.status, 200, "{}", first.text());
        let first = first.json();
        assert_eq!(first["token_type"], "DPoP");
        assert_eq!(
            jwt_claims(first["access_token"].as_str().unwrap())["cnf"]["jkt"],
            dpop.jkt()
        );
        if let Some(new) = first["refresh_token"].as_str() {
            assert_eq!(new, rt, "rotated for a FAPI 2.0 client");
        }
        if scope == OPENID {
            assert!(first["id_token"].is_string(), "{first}");
        } else {
            assert!(first.get("id_token").is_none(), "{first}");
        }
        sleep(Duration::from_secs(1));
        let again = p.token("bank", Some(&dpop), &grant);
        assert_eq!(
            again.status,
            200,
            "the same refresh token again: {}",
            again.text()
        );
        let other = p.token("bank2", Some(&dpop), &grant);
        refused(
            &other,
            &[400],
            &["invalid_grant"],
            "another client's refresh token",
        );
        let no_proof = p.token("bank", None, &grant);
        assert!(
            [400, 401].contains(&no_proof.status),
            "refresh without a proof: {}",
            no_proof.text()
        );
    }
}

// ---- PAR ----

/// Deviation (the module's severity is WARNING: FAPI 2.0 §5.3.2.2 Note 3 recommends spending a
/// `request_uri` when the login completes): scanid spends it at the first visit, which opens
/// the login (the QR page); a second visit gets the error page, while the login begun at the
/// first visit still completes.
#[test]
fn fapi2_security_profile_final_par_ensure_reused_request_uri_prior_to_auth_completion_succeeds() {
    let p = plan();
    let url = p.pushed_url(&p.push(&[]), "bank", &[]);
    let name = format!("u{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let app = TestApp::enroll(&p.s, &name);
    let mut b = Browser::new();
    let (_, payload) = open(&mut b, &url);
    let second = Browser::new().get(&url);
    assert_eq!(second.status, 400, "the second visit: {}", second.text());
    assert!(second.header("location").is_none());
    assert_eq!(app.decide(&mut b, &payload, "approve").status, 200);
    let page = b.get(&scanid_tests::consent_url(&p.s, &payload));
    let back = match scanid_tests::attr(&page.text(), "name=\"csrf\"", "value") {
        None => page,
        Some(csrf) => {
            let session = params_of(&payload)["session"].clone();
            b.post_form(
                &format!("{}/login-actions/consent", p.s.issuer),
                &[("session", &session), ("csrf", &csrf), ("consent", "allow")],
            )
        }
    };
    let code = p.response(&back)["code"].clone();
    p.tokens(&code, &DpopKey::new());
}

#[test]
fn fapi2_security_profile_final_par_attempt_reuse_request_uri() {
    let p = plan();
    let url = p.pushed_url(&p.push(&[]), "bank", &[]);
    p.login(&url);
    refused_at_authorization(&p, &url, &["invalid_request_uri"]);
}

#[test]
fn fapi2_security_profile_final_par_attempt_to_use_expired_request_uri() {
    // expires_in is 60 s: the suite waits for it to pass, and so does this test.
    let p = plan();
    let r = p.push(&[]);
    let wait = r.json()["expires_in"].as_u64().unwrap() + 2;
    let url = p.pushed_url(&r, "bank", &[]);
    sleep(Duration::from_secs(wait));
    refused_at_authorization(&p, &url, &["invalid_request_uri"]);
}

#[test]
fn fapi2_security_profile_final_par_ensure_jwt_client_assertions_nbf_8_seconds_in_the_future_is_accepted(
) {
    let p = plan();
    let now = TestApp::now();
    let a = assertion_with(&p, &[("iat", json!(now + 8)), ("nbf", json!(now + 8))]);
    let r = p.push_full("bank", &a, OPENID, &[], None);
    assert_eq!(r.status, 201, "{}", r.text());
}

#[test]
fn fapi2_security_profile_final_par_ensure_jwt_client_assertions_nbf_over_60_seconds_in_the_future_fails(
) {
    let p = plan();
    let now = TestApp::now();
    let a = assertion_with(
        &p,
        &[
            ("iat", json!(now + 70)),
            ("nbf", json!(now + 70)),
            ("exp", json!(now + 130)),
        ],
    );
    invalid_client(
        &p.push_full("bank", &a, OPENID, &[], None),
        "nbf 70 s ahead",
    );
}

#[test]
fn fapi2_security_profile_final_par_attempt_to_use_request_uri_for_different_client() {
    let p = plan();
    let r = p.push(&[]);
    let url = p.pushed_url(&r, "bank2", &[]);
    refused_at_authorization(&p, &url, &["invalid_request_uri"]);
}

#[test]
fn fapi2_security_profile_final_par_authorization_request_containing_request_uri_form_param() {
    let p = plan();
    let r = p.push(&[("request_uri", "urn:ietf:params:oauth:request_uri:bogus")]);
    refused(
        &r,
        &[400],
        &[
            "invalid_request",
            "invalid_request_object",
            "request_uri_not_supported",
        ],
        "request_uri at PAR",
    );
}

#[test]
fn fapi2_security_profile_final_par_attempt_invalid_http_method() {
    // EnsureParHTTPError: a 4xx for PUT.
    let p = plan();
    let r = request("PUT", &p.s.oidc("ext/par/request"), &[], b"");
    assert!((400..500).contains(&r.status), "{}", r.status);
}

#[test]
fn fapi2_security_profile_final_par_ensure_pkce_required() {
    let p = plan();
    let r = p.push(&[("code_challenge", ""), ("code_challenge_method", "")]);
    refused(&r, &[400], &["invalid_request"], "no PKCE");
}

#[test]
fn fapi2_security_profile_final_ensure_pkce_code_verifier_required() {
    let p = plan();
    let code = p.code(&[]);
    let mut pairs = code_grant(&code, PKCE_VERIFIER);
    pairs.retain(|(k, _)| *k != "code_verifier");
    let t = p.token("bank", Some(&DpopKey::new()), &pairs);
    refused(
        &t,
        &[400],
        &["invalid_grant", "invalid_request"],
        "no verifier",
    );
}

#[test]
fn fapi2_security_profile_final_incorrect_pkce_code_verifier_rejected() {
    let p = plan();
    let code = p.code(&[]);
    let wrong = "x".repeat(43);
    let t = p.token("bank", Some(&DpopKey::new()), &code_grant(&code, &wrong));
    refused(
        &t,
        &[400],
        &["invalid_grant", "invalid_request"],
        "wrong verifier",
    );
}

#[test]
fn fapi2_security_profile_final_par_plain_pkce_rejected() {
    let p = plan();
    let r = p.push(&[
        ("code_challenge", PKCE_VERIFIER),
        ("code_challenge_method", "plain"),
    ]);
    refused(&r, &[400], &["invalid_request"], "plain PKCE");
}

#[test]
fn fapi2_security_profile_final_par_without_duplicate_parameters() {
    // Only client_id and request_uri at the authorization endpoint (pushed_url's URL).
    let p = plan();
    let url = p.pushed_url(&p.push(&[]), "bank", &[]);
    let q = params_of(&url);
    assert_eq!(q.len(), 2, "{url}");
    p.tokens(&p.login(&url)["code"], &DpopKey::new());
}

#[test]
fn fapi2_security_profile_final_par_test_array_as_audience_fails() {
    // FAPI 2.0 Final §5.3.2.1-8: the issuer as a string only; a list holding the issuer and
    // another value is refused (400/401, invalid_client or invalid_request).
    let p = plan();
    let a = assertion_with(
        &p,
        &[("aud", json!([p.s.issuer, "https://other.example/"]))],
    );
    let r = p.push_full("bank", &a, OPENID, &[], None);
    refused(
        &r,
        &[400, 401],
        &["invalid_client", "invalid_request"],
        "list aud",
    );
}

#[test]
fn fapi2_security_profile_final_par_test_par_endpoint_url_as_audience_fails() {
    let p = plan();
    let a = assertion_with(&p, &[("aud", json!(p.s.oidc("ext/par/request")))]);
    let r = p.push_full("bank", &a, OPENID, &[], None);
    refused(
        &r,
        &[400, 401],
        &["invalid_client", "invalid_request"],
        "PAR URL aud",
    );
}

#[test]
fn fapi2_security_profile_final_par_test_token_endpoint_url_as_audience_fails() {
    let p = plan();
    let a = assertion_with(&p, &[("aud", json!(p.s.oidc("token")))]);
    let r = p.push_full("bank", &a, OPENID, &[], None);
    refused(
        &r,
        &[400, 401],
        &["invalid_client", "invalid_request"],
        "token URL aud",
    );
}
