//! FAPI 2.0 Message Signing from outside, against the real `scanid serve`: a FAPI 2.0 client
//! that must push signed request objects (`--require-signed-request-object`) pushes one
//! signed with its key; every bad object (alg none, RS256, expired, `nbf` too old, lived too
//! long, `aud` another server, signed by another key, none at all) is refused at PAR with the
//! RFC's error, and parameters outside a good one are ignored. The login ends with a JARM
//! response (`response_mode=jwt`) that PyJWT verifies with the JWKS alone (its `iss`, `aud`
//! and signature), errors too (`prompt=none` without a session); a `request_uri` is used once.
//! Introspection with `Accept: application/token-introspection+jwt` answers a JWT (RFC 9701)
//! whose `typ`, `aud` and signature are checked. The same on DynamoDB (moto), KMS signing.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use scanid_tests::{
    auth_url, get, jwt_claims, jwt_header, location, login, params_of, post_form, post_form_with,
    pyjwt_verify_for, Browser, Resp, TestApp, TestServer, PKCE_CHALLENGE, PKCE_VERIFIER,
};
use serde_json::{json, Value};

use crate::client_keys::{jwks_file, Key, JWT_BEARER, LENIENT};

const CB: &str = "https://bank.example/cb";

fn bank_args(jwks: &str) -> Vec<String> {
    [
        "--name",
        "Bank",
        "--client-id",
        "bank",
        "--redirect-uri",
        CB,
        "--jwks",
        jwks,
        "--profile",
        "fapi2",
        "--require-signed-request-object",
    ]
    .map(str::to_owned)
    .to_vec()
}

/// A good request object's claims (a code request by `bank`, PKCE S256, JARM), fresh.
fn object(iss: &str) -> Value {
    let now = TestApp::now();
    json!({"iss": "bank", "aud": iss, "exp": now + 300, "nbf": now, "iat": now,
        "jti": TestApp::jti(), "client_id": "bank", "response_type": "code",
        "scope": "openid profile", "redirect_uri": CB, "state": "inside", "nonce": "n-inside",
        "code_challenge": PKCE_CHALLENGE, "code_challenge_method": "S256", "response_mode": "jwt"})
}

/// `claims` with `changes` over them (`Value::Null` removes one).
fn with(mut claims: Value, changes: &[(&str, Value)]) -> Value {
    for (k, v) in changes {
        if v.is_null() {
            claims.as_object_mut().unwrap().remove(*k);
        } else {
            claims[*k] = v.clone();
        }
    }
    claims
}

/// A JWS with header `header` and no valid signature (refused before any key is looked at).
fn unsigned_as(header: Value, claims: &Value) -> String {
    format!(
        "{}.{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string()),
        if header["alg"] == "none" { "" } else { "c2ln" }
    )
}

/// A pushed request of `bank`: `request` (when given) and `outside` parameters beside it.
fn push(s: &TestServer, key: &Key, request: Option<&str>, outside: &[(&str, &str)]) -> Resp {
    let assertion = key.assertion("bank", json!(s.issuer));
    let mut pairs = vec![
        ("client_id", "bank"),
        ("client_assertion_type", JWT_BEARER),
        ("client_assertion", assertion.as_str()),
    ];
    pairs.extend_from_slice(outside);
    if let Some(r) = request {
        pairs.push(("request", r));
    }
    post_form(&s.oidc("ext/par/request"), None, &pairs)
}

fn request_uri(r: &Resp) -> String {
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()["request_uri"].as_str().unwrap().to_owned()
}

/// The JARM response at the redirect URI, verified by PyJWT with the JWKS alone (`aud` the
/// client): its claims.
fn jarm(s: &TestServer, loc: &str) -> Value {
    assert!(loc.starts_with(&format!("{CB}?")), "{loc}");
    let p = params_of(loc);
    assert_eq!(p.len(), 1, "only `response` in the query: {loc}");
    let token = &p["response"];
    assert_eq!(
        jwt_header(token)["alg"],
        "ES256",
        "the FAPI client's algorithm"
    );
    let out = pyjwt_verify_for(&s.oidc("certs"), &s.issuer, token, "bank", "exp,iss,aud");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Another audience does not verify: the response is the client's only.
    let other = pyjwt_verify_for(&s.oidc("certs"), &s.issuer, token, "other", "exp");
    assert!(!other.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Each bad request object is refused at PAR: 400 `invalid_request_object`, the reason said.
fn bad_objects_are_refused(s: &TestServer, key: &Key) {
    let iss = s.issuer.as_str();
    let now = TestApp::now();
    let good = object(iss);
    let stranger = Key::new("ec-1");
    let cases: Vec<(String, &str)> = vec![
        (unsigned_as(json!({"alg": "none"}), &good), "not alg none"),
        (
            unsigned_as(json!({"alg": "RS256", "kid": "ec-1"}), &good),
            "not RS256",
        ),
        (
            key.sign(&with(
                good.clone(),
                &[("exp", json!(now - 10)), ("nbf", json!(now - 100))],
            )),
            "expired",
        ),
        (
            key.sign(&with(
                good.clone(),
                &[("nbf", json!(now - 3700)), ("exp", json!(now + 60))],
            )),
            "60 minutes in the past",
        ),
        (
            key.sign(&with(
                good.clone(),
                &[("nbf", json!(now)), ("exp", json!(now + 3700))],
            )),
            "more than 60 minutes",
        ),
        (
            key.sign(&with(good.clone(), &[("exp", Value::Null)])),
            "no exp",
        ),
        (
            key.sign(&with(good.clone(), &[("nbf", Value::Null)])),
            "no nbf",
        ),
        (
            key.sign(&with(
                good.clone(),
                &[("aud", json!("https://other.example"))],
            )),
            "aud",
        ),
        (
            key.sign(&with(good.clone(), &[("iss", json!("someone"))])),
            "iss",
        ),
        (stranger.sign(&good), "signature does not verify"),
        ("not-a-jwt".to_owned(), "not a signed JWT"),
    ];
    for (request, why) in cases {
        let r = push(s, key, Some(&request), &[]);
        assert_eq!(r.status, 400, "{why}: {}", r.text());
        let e = r.json();
        assert_eq!(e["error"], "invalid_request_object", "{why}: {e}");
        let said = e["error_description"].as_str().unwrap();
        assert!(said.contains(why), "{why}: {said}");
    }
    // None at all, for a client that must sign: invalid_request.
    let plain = [
        ("response_type", "code"),
        ("redirect_uri", CB),
        ("scope", "openid"),
        ("code_challenge", PKCE_CHALLENGE),
        ("code_challenge_method", "S256"),
    ];
    let r = push(s, key, None, &plain);
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_request");
    assert!(r.text().contains("signed request object"), "{}", r.text());
}

/// The whole flow on `s`: refusals at PAR, a login with a signed request object ending in a
/// verified JARM response, the `request_uri` spent, a JARM error, and signed introspection.
fn message_signing_flow(s: &TestServer, key: &Key) {
    let d = get(&s.url(scanid_tests::DISCOVERY)).json();
    let modes = d["response_modes_supported"].as_array().unwrap();
    for m in ["jwt", "query.jwt", "fragment.jwt", "form_post.jwt"] {
        assert!(modes.contains(&json!(m)), "{m}");
    }
    for name in [
        "authorization_signing_alg_values_supported",
        "introspection_signing_alg_values_supported",
    ] {
        assert!(
            d[name].as_array().unwrap().contains(&json!("ES256")),
            "{name}"
        );
    }
    assert!(d["request_object_signing_alg_values_supported"]
        .as_array()
        .unwrap()
        .contains(&json!("PS256")));
    bad_objects_are_refused(s, key);

    // A good object; parameters outside it are ignored (RFC 9101 §6.3), its own win.
    let signed = key.sign(&object(&s.issuer));
    let outside = [
        ("state", "outside"),
        ("redirect_uri", "https://evil.example/cb"),
        ("response_mode", "query"),
    ];
    let uri = request_uri(&push(s, key, Some(&signed), &outside));
    let app = TestApp::enroll(s, "jarmuser");
    let mut b = Browser::new();
    let start = auth_url(s, &[("client_id", "bank"), ("request_uri", uri.as_str())]);
    let back = login(&mut b, s, &app, &start);
    let claims = jarm(s, &location(&back));
    assert_eq!(claims["state"], "inside");
    assert_eq!(claims["iss"], s.issuer.as_str());
    assert_eq!(claims["aud"], "bank");
    let lifetime = claims["exp"].as_i64().unwrap() - TestApp::now();
    assert!(
        (590..=600).contains(&lifetime),
        "a short JARM response: {lifetime}"
    );
    let code = claims["code"].as_str().unwrap().to_owned();
    // The request_uri was spent: used again, an error page, never a redirect.
    let again = Browser::new().get(&start);
    assert_eq!(again.status, 400, "{}", again.text());
    assert!(again.header("location").is_none());

    // An error after the redirect URI is trusted goes back signed too.
    let silent = key.sign(&with(object(&s.issuer), &[("prompt", json!("none"))]));
    let uri = request_uri(&push(s, key, Some(&silent), &[]));
    let r = Browser::new().get(&auth_url(
        s,
        &[("client_id", "bank"), ("request_uri", uri.as_str())],
    ));
    let e = jarm(s, &location(&r));
    assert_eq!(e["error"], "login_required", "{e}");
    assert_eq!(e["state"], "inside");
    assert!(e.get("code").is_none());

    signed_introspection(s, key, &code);
}

/// Redeems `code` (DPoP, as the FAPI client must) and introspects its access token asking
/// for a JWT (RFC 9701); and an unknown token, inactive, signed too.
fn signed_introspection(s: &TestServer, key: &Key, code: &str) {
    let dpop = crate::dpop::DpopKey::new();
    let proof = dpop.proof("POST", &s.oidc("token"), &[]);
    let a = key.assertion("bank", json!(s.issuer));
    let t = post_form_with(
        &s.oidc("token"),
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
    let at = t.json()["access_token"].as_str().unwrap().to_owned();
    let introspect = |token: &str, accept: &str| {
        let a = key.assertion("bank", json!(s.issuer));
        post_form_with(
            &s.oidc("introspect"),
            &[("Accept", accept)],
            None,
            &[
                ("token", token),
                ("client_assertion_type", JWT_BEARER),
                ("client_assertion", &a),
            ],
        )
    };
    let r = introspect(&at, "application/token-introspection+jwt");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.header("content-type"),
        Some("application/token-introspection+jwt")
    );
    let token = r.text();
    let header = jwt_header(&token);
    assert_eq!(header["typ"], "token-introspection+jwt");
    assert_eq!(header["alg"], "ES256");
    let out = pyjwt_verify_for(&s.oidc("certs"), &s.issuer, &token, "bank", "iat,iss,aud");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let claims: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ti = &claims["token_introspection"];
    assert_eq!(ti["active"], true, "{claims}");
    assert_eq!(ti["client_id"], "bank");
    assert_eq!(ti["token_type"], "DPoP");
    // Plain JSON unless asked.
    assert_eq!(introspect(&at, "application/json").json()["active"], true);
    let dead = introspect("not-a-token", "application/token-introspection+jwt");
    assert_eq!(
        jwt_claims(&dead.text())["token_introspection"],
        json!({"active": false})
    );
}

#[test]
fn signed_request_objects_at_par_jarm_and_signed_introspection() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let key = Key::new("ec-1");
    let jwks = jwks_file(dir.path(), &[&key]);
    let args = bank_args(&jwks);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    scanid_tests::create_client(data, &args);
    let shown =
        scanid_tests::scanid_json(&["client", "show", "--data-dir", data, "--client-id", "bank"]);
    assert_eq!(shown["require_signed_request_object"], true, "{shown}");
    let s = TestServer::start(dir.path(), LENIENT);
    message_signing_flow(&s, &key);
}

#[test]
fn signed_request_objects_at_par_and_jarm_on_dynamodb() {
    let aws = crate::aws::Aws::init("kms");
    let dir = tempfile::tempdir().unwrap();
    let key = Key::new("ec-1");
    let jwks = jwks_file(dir.path(), &[&key]);
    let mut args: Vec<String> = vec!["client".into(), "create".into()];
    args.extend(bank_args(&jwks));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    aws.cli(&args);
    let mut flags = aws.flags();
    flags.extend_from_slice(LENIENT);
    let s = TestServer::start(dir.path(), &flags);
    message_signing_flow(&s, &key);
}

/// A client registering itself (RFC 7591) asks for signed request objects and names its one
/// algorithm by the JARM and introspection metadata; then pushes only signed requests.
#[test]
fn a_self_registered_client_asks_for_message_signing() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(
        dir.path(),
        &["--open-client-registration", "true", LENIENT[0], LENIENT[1]],
    );
    let key = Key::new("r1");
    let register = |body: Value| {
        scanid_tests::request(
            "POST",
            &s.url("/realms/scanid/clients-registrations/openid-connect"),
            &[("Content-Type", "application/json")],
            body.to_string().as_bytes(),
        )
    };
    let body = json!({
        "redirect_uris": [CB],
        "token_endpoint_auth_method": "private_key_jwt",
        "jwks": { "keys": [key.jwk()] },
        "require_signed_request_object": true,
        "authorization_signed_response_alg": "ES256",
        "introspection_signed_response_alg": "ES256",
    });
    let mut conflicting = body.clone();
    conflicting["id_token_signed_response_alg"] = json!("RS256");
    let r = register(conflicting);
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_client_metadata");
    let r = register(body);
    assert_eq!(r.status, 201, "{}", r.text());
    let got = r.json();
    assert_eq!(got["require_signed_request_object"], true);
    assert_eq!(got["authorization_signed_response_alg"], "ES256");
    assert_eq!(got["introspection_signed_response_alg"], "ES256");
    let id = got["client_id"].as_str().unwrap().to_owned();
    let pushed = |request: Option<&str>| {
        let assertion = key.assertion(&id, json!(s.issuer));
        let mut pairs = vec![
            ("client_id", id.as_str()),
            ("client_assertion_type", JWT_BEARER),
            ("client_assertion", assertion.as_str()),
            ("response_type", "code"),
            ("redirect_uri", CB),
            ("scope", "openid"),
            ("state", "s"),
        ];
        if let Some(r) = request {
            pairs.push(("request", r));
        }
        post_form(&s.oidc("ext/par/request"), None, &pairs)
    };
    let r = pushed(None);
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_request");
    let claims = with(
        object(&s.issuer),
        &[("iss", json!(id)), ("client_id", json!(id))],
    );
    let r = pushed(Some(&key.sign(&claims)));
    assert_eq!(r.status, 201, "{}", r.text());
}

/// `fragment.jwt` puts `response` in the fragment, `form_post.jwt` in a self-submitting form;
/// both JWTs verify with the JWKS alone, for the client.
#[test]
fn jarm_travels_in_the_fragment_and_a_form_post() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let key = Key::new("ec-1");
    let jwks = jwks_file(dir.path(), &[&key]);
    let args = bank_args(&jwks);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    scanid_tests::create_client(data, &args);
    let s = TestServer::start(dir.path(), LENIENT);
    let app = TestApp::enroll(&s, "modes");
    let verified = |token: &str| {
        let out = pyjwt_verify_for(&s.oidc("certs"), &s.issuer, token, "bank", "exp,iss,aud");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let start = |mode: &str| {
        let claims = with(object(&s.issuer), &[("response_mode", json!(mode))]);
        let uri = request_uri(&push(&s, &key, Some(&key.sign(&claims)), &[]));
        auth_url(&s, &[("client_id", "bank"), ("request_uri", uri.as_str())])
    };
    let r = login(&mut Browser::new(), &s, &app, &start("fragment.jwt"));
    let loc = location(&r);
    assert!(loc.starts_with(&format!("{CB}#response=")), "{loc}");
    assert_eq!(verified(&params_of(&loc)["response"])["state"], "inside");
    let r = login(&mut Browser::new(), &s, &app, &start("form_post.jwt"));
    assert_eq!(r.status, 200);
    let html = r.text();
    assert!(html.contains(&format!("action=\"{CB}\"")), "{html}");
    assert!(scanid_tests::attr(&html, "name=\"code\"", "value").is_none());
    let token = scanid_tests::attr(&html, "name=\"response\"", "value").unwrap();
    let claims = verified(&token);
    assert_eq!(claims["state"], "inside");
    assert!(claims["code"].is_string());
}

/// A client whose keys are at a `jwks_uri`: its request object verifies with the set fetched
/// from there (a rotated key by fetching it again); a key in no set is refused.
#[test]
fn a_request_object_verifies_with_the_keys_at_the_jwks_uri() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let (a, b) = (Key::new("a"), Key::new("b"));
    let (url, state) = crate::client_keys::jwks_server(json!({ "keys": [a.jwk()] }));
    let mut args = bank_args("unused");
    let at = args.iter().position(|x| x == "--jwks").unwrap();
    args[at] = "--jwks-uri".into();
    args[at + 1] = url;
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    scanid_tests::create_client(data, &args);
    let s = TestServer::start(dir.path(), LENIENT);
    request_uri(&push(&s, &a, Some(&a.sign(&object(&s.issuer))), &[]));
    // The client rotates to key b (its assertion too): fetched again for the unknown kid.
    state.lock().unwrap().0 = json!({ "keys": [b.jwk()] });
    std::thread::sleep(std::time::Duration::from_millis(1100));
    request_uri(&push(&s, &b, Some(&b.sign(&object(&s.issuer))), &[]));
    let stranger = Key::new("c");
    let r = push(&s, &b, Some(&stranger.sign(&object(&s.issuer))), &[]);
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_request_object");
    assert!(r.text().contains("kid"), "{}", r.text());
}
