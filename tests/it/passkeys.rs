//! Passkeys over HTTP against `scanid serve` (issue 26): sign-up with a passkey, a QR login
//! approved by a verified assertion reaching the client's tokens, a replay and an assertion
//! for another origin refused, the keys listed (by the app and `scanid identity show`),
//! the last one never removed. The authenticator is the software one of
//! `scanid_core::domain::passkey::soft` (the browser tests use Chromium's virtual one).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use scanid_core::domain::app_jws;
use scanid_core::domain::passkey::soft::SoftAuthenticator;
use scanid_core::domain::passkey::RelyingParty;
use scanid_tests::{
    attr, auth_url, consent_url, create_shop, location, number_shown, open, params_of, redeem,
    request, scanid_json, Browser, Resp, TestApp, TestServer, CB,
};
use serde_json::{json, Value};

fn b64(b: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(b)
}

fn post(url: &str, body: &Value) -> Resp {
    request(
        "POST",
        url,
        &[("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    )
}

fn challenge(s: &TestServer) -> String {
    let r = post(&format!("{}/app/passkey-challenges", s.issuer), &json!({}));
    assert_eq!(r.status, 201, "{}", r.text());
    let v = r.json();
    assert_eq!(v["rp_id"], "127.0.0.1");
    v["challenge"].as_str().unwrap().to_owned()
}

fn claims(s: &TestServer, extra: Value) -> Value {
    let now = TestApp::now();
    let mut c = json!({ "aud": s.issuer, "iat": now, "exp": now + 120, "jti": TestApp::jti() });
    c.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    c
}

fn assertion_json(a: &scanid_core::domain::passkey::Assertion) -> Value {
    json!({ "clientDataJSON": b64(&a.client_data_json),
            "authenticatorData": b64(&a.authenticator_data), "signature": b64(&a.signature) })
}

/// A request of type `typ` signed by `auth`'s assertion, over a fresh server challenge.
fn by_passkey(s: &TestServer, auth: &mut SoftAuthenticator, typ: &str, mut extra: Value) -> String {
    extra["webauthn_challenge"] = json!(challenge(s));
    let kid = b64(&auth.credential_id);
    app_jws::passkey_signed(typ, Some(&kid), &claims(s, extra), |ch| {
        assertion_json(&auth.assert(ch))
    })
}

fn approval(
    s: &TestServer,
    auth: &mut SoftAuthenticator,
    sub: &str,
    payload: &str,
    n: u8,
) -> String {
    let p = params_of(payload);
    by_passkey(
        s,
        auth,
        "approval+jwt",
        json!({ "sub": sub, "session": p["session"], "challenge": p["challenge"],
                "decision": "approve", "number": n }),
    )
}

fn decide(s: &TestServer, payload: &str, jws: &str) -> Resp {
    post(
        &format!(
            "{}/app/login-sessions/{}",
            s.issuer,
            params_of(payload)["session"]
        ),
        &json!({ "approval": jws }),
    )
}

/// Opens a login in `b`, scans it (without a proof, as a passkey identity's app does): the
/// payload and the number the page shows.
fn scanned(s: &TestServer, b: &mut Browser) -> (String, u8) {
    let url = auth_url(
        s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("scope", "openid"),
            ("state", "st"),
            ("nonce", "n"),
        ],
    );
    let (_, payload) = open(b, &url);
    let r = request("GET", &payload, &[("Accept", "application/json")], b"");
    assert_eq!(r.status, 200, "{}", r.text());
    let n = number_shown(b, &payload).unwrap();
    (payload, n)
}

#[test]
fn a_passkey_signs_up_approves_a_login_to_tokens_and_is_listed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let secret = create_shop(d, &[]);
    let s = TestServer::start(dir.path(), &[]);
    passkey_flow(&s, &secret, |sub| {
        scanid_json(&["identity", "show", "--data-dir", d, sub])
    });
}

#[test]
fn the_same_on_dynamodb() {
    let aws = crate::aws::Aws::init("kms");
    let secret = crate::aws::register_shop(&aws);
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &aws.flags());
    passkey_flow(&s, &secret, |sub| aws.cli(&["identity", "show", sub]));
}

/// Sign-up, a login to tokens, a replay and a phished assertion refused, the keys listed,
/// the last never removed; `show` is `scanid identity show` on the server's store.
fn passkey_flow(s: &TestServer, secret: &str, show: impl Fn(&str) -> Value) {
    let rp = RelyingParty::for_issuer(&s.issuer).unwrap();
    let mut auth = SoftAuthenticator::new(&rp, b"it-passkey-1").unwrap();

    // Sign-up: the registration's claims, its WebAuthn registration made over them.
    let reg_claims = claims(
        s,
        json!({ "name": "pat.key", "display_name": "Pat", "country_code": "SE",
                "webauthn_challenge": challenge(s), "passkey_name": "Test phone" }),
    );
    let reg = app_jws::passkey_signed("registration+jwt", None, &reg_claims, |ch| {
        let (cd, att) = auth.register(ch);
        json!({ "clientDataJSON": b64(&cd), "attestationObject": b64(&att), "transports": ["internal"] })
    });
    let r = post(
        &format!("{}/app/identities", s.issuer),
        &json!({ "registration": reg }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let sub = r.json()["sub"].as_str().unwrap().to_owned();
    // The same sign-up again: its challenge is spent.
    let again = post(
        &format!("{}/app/identities", s.issuer),
        &json!({ "registration": reg }),
    );
    assert_eq!(again.status, 400, "{}", again.text());

    // A QR login approved with a verified assertion, on to the client's tokens.
    let mut b = Browser::new();
    let (payload, n) = scanned(s, &mut b);
    let jws = approval(s, &mut auth, &sub, &payload, n);
    let r = decide(s, &payload, &jws);
    assert_eq!(r.status, 200, "{}", r.text());
    let page = b.get(&consent_url(s, &payload));
    let csrf = attr(&page.text(), "name=\"csrf\"", "value").unwrap();
    let done = b.post_form(
        &format!("{}/login-actions/consent", s.issuer),
        &[
            ("session", &params_of(&payload)["session"]),
            ("csrf", &csrf),
            ("consent", "allow"),
        ],
    );
    let code = params_of(&location(&done))["code"].clone();
    let tokens = redeem(s, ("shop", secret), &code);
    let id = scanid_tests::jwt_claims(tokens["id_token"].as_str().unwrap());
    assert_eq!(id["sub"], sub.as_str());

    // The same approval on another login: refused (the counter did not grow).
    let mut b2 = Browser::new();
    let (payload2, n2) = scanned(s, &mut b2);
    let r = decide(s, &payload2, &jws);
    assert_eq!(r.status, 400, "{}", r.text());
    // An assertion whose client data names another origin: refused.
    let p = params_of(&payload2);
    let c = claims(
        s,
        json!({ "sub": sub, "session": p["session"], "challenge": p["challenge"],
        "decision": "approve", "number": n2, "webauthn_challenge": challenge(s) }),
    );
    let kid = b64(&auth.credential_id);
    let phished = app_jws::passkey_signed("approval+jwt", Some(&kid), &c, |ch| {
        let mut evil = auth.twin().unwrap();
        evil.origin = "https://scanid.example.evil".into();
        evil.counter = 100;
        assertion_json(&evil.assert(ch))
    });
    let r = decide(s, &payload2, &phished);
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("origin"), "{}", r.text());
    // The login is still open: a genuine approval goes through.
    let r = decide(s, &payload2, &approval(s, &mut auth, &sub, &payload2, n2));
    assert_eq!(r.status, 200, "{}", r.text());

    // The app lists its keys; the last one is never removed.
    let list = by_passkey(s, &mut auth, "keys+jwt", json!({ "sub": sub }));
    let r = post(
        &format!("{}/app/identities/{sub}/keys", s.issuer),
        &json!({ "keys": list }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let keys = r.json();
    assert_eq!(keys["device_key"], Value::Null);
    assert_eq!(keys["passkeys"][0]["name"], "Test phone");
    assert_eq!(keys["passkeys"][0]["last_used_from"], "127.0.0.1");
    let cred = keys["passkeys"][0]["credential_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let rm = by_passkey(
        s,
        &mut auth,
        "key-removal+jwt",
        json!({ "sub": sub, "key": cred }),
    );
    let r = request(
        "DELETE",
        &format!("{}/app/identities/{sub}/keys/{cred}", s.issuer),
        &[("Content-Type", "application/json")],
        json!({ "removal": rm }).to_string().as_bytes(),
    );
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(r.json()["error"], "last_key");

    // Operators see it.
    let shown = show(&sub);
    assert_eq!(shown["keys"]["passkeys"][0]["credential_id"], cred.as_str());
    assert_eq!(shown["keys"]["device_key"], Value::Null);
}
