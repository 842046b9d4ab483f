//! Passkeys over HTTP against `scanid serve` (issue 26): sign-up with a passkey, a QR login
//! approved by a verified assertion reaching the client's tokens, a replay and an assertion
//! for another origin refused, the keys listed (by the app and `scanid identity show`),
//! the last one never removed. The authenticator is the software one of
//! `scanid_core::testing::passkey` (the browser tests use Chromium's virtual one).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use scanid_core::domain::app_jws;
use scanid_core::domain::passkey::RelyingParty;
use scanid_core::testing::passkey::SoftAuthenticator;
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

/// CBOR of a byte string (major type 2, lengths up to 65535).
fn cbor_bytes(b: &[u8]) -> Vec<u8> {
    let mut out = match b.len() {
        n if n < 24 => vec![0x40 | n as u8],
        n if n < 256 => vec![0x58, n as u8],
        n => vec![0x59, (n >> 8) as u8, n as u8],
    };
    out.extend_from_slice(b);
    out
}

/// An attestation object (`none`) whose credential `cred_id` has the COSE key `cose`.
fn attestation_with_key(rp: &RelyingParty, cred_id: &[u8], cose: &[u8]) -> Vec<u8> {
    let mut auth = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, rp.id.as_bytes())
        .as_ref()
        .to_vec();
    auth.push(0x45); // UP, UV, AT
    auth.extend_from_slice(&[0; 4 + 16]);
    auth.extend_from_slice(&(cred_id.len() as u16).to_be_bytes());
    auth.extend_from_slice(cred_id);
    auth.extend_from_slice(cose);
    let mut att = vec![0xa3, 0x63];
    att.extend_from_slice(b"fmt");
    att.push(0x64);
    att.extend_from_slice(b"none");
    att.push(0x67);
    att.extend_from_slice(b"attStmt");
    att.extend_from_slice(&[0xa0, 0x68]);
    att.extend_from_slice(b"authData");
    att.extend_from_slice(&cbor_bytes(&auth));
    att
}

/// Hostile input to the passkey routes: every answer a clean 4xx with a reason, never a 500,
/// and the identity unchanged (garbage base64 and JSON, CBOR bombs, an RSA key of 512 bits
/// that could never sign, a credential id far past any limit, a mixed proof).
#[test]
fn hostile_passkey_input_is_a_clean_4xx() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    hostile_input(&s);
}

#[test]
fn hostile_passkey_input_is_a_clean_4xx_on_dynamodb() {
    let aws = crate::aws::Aws::init("kms");
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &aws.flags());
    hostile_input(&s);
}

fn hostile_input(s: &TestServer) {
    let rp = RelyingParty::for_issuer(&s.issuer).unwrap();
    let mut auth = SoftAuthenticator::new(&rp, b"it-hostile-1").unwrap();
    let reg_claims = claims(
        s,
        json!({ "name": format!("hostile.{}", &TestApp::jti()[..8]), "display_name": "H",
                "country_code": "SE", "webauthn_challenge": challenge(s) }),
    );
    let reg = app_jws::passkey_signed("registration+jwt", None, &reg_claims, |ch| {
        let (cd, att) = auth.register(ch);
        json!({ "clientDataJSON": b64(&cd), "attestationObject": b64(&att) })
    });
    let r = post(
        &format!("{}/app/identities", s.issuer),
        &json!({ "registration": reg }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let sub = r.json()["sub"].as_str().unwrap().to_owned();
    let expect_4xx = |what: &str, r: Resp| {
        assert!(
            (400..500).contains(&r.status) && r.status != 429,
            "{what}: {} {}",
            r.status,
            r.text()
        );
        assert!(r.json()["error"].is_string(), "{what}: {}", r.text());
    };
    let signup = |proof: Value| {
        let c = claims(
            s,
            json!({ "name": "hostile2", "display_name": "H", "country_code": "SE",
                    "webauthn_challenge": challenge(s) }),
        );
        let reg = app_jws::passkey_signed("registration+jwt", None, &c, |_| proof);
        post(
            &format!("{}/app/identities", s.issuer),
            &json!({ "registration": reg }),
        )
    };
    let cd = b64(&auth.client_data("webauthn.create", b"x"));
    let mut deep = vec![0x81u8; 5000];
    deep.push(0);
    for (what, att) in [
        ("not base64", "!!!".to_owned()),
        (
            "byte string of 2^64-1 bytes",
            b64(&[[0x5b].as_slice(), &[0xff; 8]].concat()),
        ),
        (
            "map of 2^64-1 pairs",
            b64(&[[0xbb].as_slice(), &[0xff; 8]].concat()),
        ),
        ("arrays nested 5000 deep", b64(&deep)),
    ] {
        expect_4xx(
            what,
            signup(json!({ "clientDataJSON": cd, "attestationObject": att })),
        );
    }
    let nested_json = format!("{}{}", "[".repeat(3000), "]".repeat(3000));
    expect_4xx(
        "clientDataJSON nested 3000 deep",
        signup(
            json!({ "clientDataJSON": b64(nested_json.as_bytes()), "attestationObject": b64(b"\xa0") }),
        ),
    );
    expect_4xx(
        "an assertion and a registration at once",
        signup(
            json!({ "clientDataJSON": cd, "attestationObject": b64(b"\xa0"),
                       "authenticatorData": "AA", "signature": "AA" }),
        ),
    );
    expect_4xx("no proof fields", signup(json!({})));

    let keys_url = format!("{}/app/identities/{sub}/keys", s.issuer);
    for body in [
        &b"not json"[..],
        b"",
        b"{\"keys\": 5}",
        b"{\"keys\": \"a.b.c\"}",
    ] {
        expect_4xx(
            "a bad keys body",
            request(
                "POST",
                &keys_url,
                &[("Content-Type", "application/json")],
                body,
            ),
        );
    }
    // A passkey request whose kid is far past any credential id, or missing.
    for kid in [Some("A".repeat(6000)), None] {
        let c = claims(s, json!({ "sub": sub, "webauthn_challenge": challenge(s) }));
        let jws = app_jws::passkey_signed("keys+jwt", kid.as_deref(), &c, |ch| {
            assertion_json(&auth.assert(ch))
        });
        expect_4xx("a bad kid", post(&keys_url, &json!({ "keys": jws })));
    }
    // A key id past any limit in the path.
    let long = "A".repeat(3000);
    let rm = by_passkey(
        s,
        &mut auth,
        "key-removal+jwt",
        json!({ "sub": sub, "key": long }),
    );
    expect_4xx(
        "a long key id",
        request(
            "DELETE",
            &format!("{}/app/identities/{sub}/keys/{long}", s.issuer),
            &[("Content-Type", "application/json")],
            json!({ "removal": rm }).to_string().as_bytes(),
        ),
    );

    // A passkey whose RSA key has 512 bits is refused, not stored.
    let mut cose = vec![0xa4, 0x01, 0x03, 0x03, 0x39, 0x01, 0x00, 0x20];
    let mut n = vec![0xd5u8];
    n.extend_from_slice(&[0xff; 63]);
    cose.extend_from_slice(&cbor_bytes(&n));
    cose.push(0x21);
    cose.extend_from_slice(&cbor_bytes(&[1, 0, 1]));
    let c = challenge(s);
    let made = json!({
        "clientDataJSON": b64(&auth.client_data("webauthn.create", c.as_bytes())),
        "attestationObject": b64(&attestation_with_key(&rp, b"it-rsa-512", &cose)),
    });
    let add = {
        let cl = claims(
            s,
            json!({ "sub": sub, "webauthn_challenge": c, "credential": made }),
        );
        let kid = b64(&auth.credential_id);
        app_jws::passkey_signed("passkey+jwt", Some(&kid), &cl, |ch| {
            assertion_json(&auth.assert(ch))
        })
    };
    let r = post(
        &format!("{}/app/identities/{sub}/passkeys", s.issuer),
        &json!({ "passkey": add }),
    );
    expect_4xx("an RSA key of 512 bits", r);

    // The identity is as it was, and its passkey still signs.
    let list = by_passkey(s, &mut auth, "keys+jwt", json!({ "sub": sub }));
    let r = post(&keys_url, &json!({ "keys": list }));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["passkeys"].as_array().unwrap().len(), 1);
}

/// The device key (acr 1) enrols `auth` as a passkey of identity `app` (a `passkey+jwt`
/// signed with the device key, over a server challenge): the answer.
fn enrol_with_the_device_key(s: &TestServer, app: &TestApp, auth: &mut SoftAuthenticator) -> Resp {
    let c = challenge(s);
    let (cd, att) = auth.register(c.as_bytes());
    let mut claims = app.request_claims();
    claims["webauthn_challenge"] = json!(c);
    claims["name"] = json!("made by the device key");
    claims["credential"] = json!({ "clientDataJSON": b64(&cd), "attestationObject": b64(&att),
                                   "transports": ["internal"] });
    let jws = TestApp::sign(&app.key, "passkey+jwt", &claims);
    post(
        &format!("{}/app/identities/{}/passkeys", s.issuer, app.sub),
        &json!({ "passkey": jws }),
    )
}

/// Issue 38 (8): a device key (acr 1, no user verification) enrols a software passkey of its
/// own making (attestation `none`, UV set); the client requires `acr` 2. Before the fix that
/// passkey approved at acr 2 in the app and signed in at acr 3 on the login page; now its
/// logins stay at the device key's level: both refused with `acr_not_met`, and the keys list
/// says `max_acr` 1. Without the requirement it signs in, at acr 1.
#[test]
fn a_passkey_the_device_key_enrols_stays_at_acr_1() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let secret = create_shop(d, &["--require-acr", "2"]);
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "mallory");
    let rp = RelyingParty::for_issuer(&s.issuer).unwrap();
    let mut auth = SoftAuthenticator::new(&rp, app.sub.as_bytes()).unwrap();
    let r = enrol_with_the_device_key(&s, &app, &mut auth);
    assert_eq!(r.status, 201, "{}", r.text());
    let enrolled = r.json();

    // In the app: the passkey's approval of a login to a client requiring acr 2.
    let mut b = Browser::new();
    let (payload, n) = scanned(&s, &mut b);
    let r = decide(
        &s,
        &payload,
        &approval(&s, &mut auth, &app.sub, &payload, n),
    );
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(r.json()["error"], "acr_not_met");
    assert_eq!(enrolled["max_acr"], "1", "{enrolled}");

    // On the login page: "Sign in with a passkey" (acr 3 before the fix).
    let sign_in = |auth: &mut SoftAuthenticator, b: &mut Browser| {
        let url = auth_url(
            &s,
            &[
                ("client_id", "shop"),
                ("redirect_uri", CB),
                ("response_type", "code"),
                ("scope", "openid"),
                ("state", "st"),
                ("nonce", "n"),
            ],
        );
        let (page, payload) = open(b, &url);
        let passkey_url = attr(&page.text(), "id=\"passkey\"", "data-passkey-url").unwrap();
        let post_json = |b: &mut Browser, body: &Value| {
            b.send(
                "POST",
                &passkey_url,
                &[
                    ("Content-Type", "application/json"),
                    ("Accept", "application/json"),
                ],
                body.to_string().as_bytes(),
            )
        };
        let o = post_json(b, &json!({}));
        assert_eq!(o.status, 200, "{}", o.text());
        let challenge = URL_SAFE_NO_PAD
            .decode(o.json()["publicKey"]["challenge"].as_str().unwrap())
            .unwrap();
        let a = auth.assert(&challenge);
        let r = post_json(
            b,
            &json!({ "assertion": { "id": b64(&auth.credential_id),
                "authenticator_data": b64(&a.authenticator_data),
                "client_data_json": b64(&a.client_data_json), "signature": b64(&a.signature) } }),
        );
        (r, payload)
    };
    let (r, _) = sign_in(&mut auth, &mut Browser::new());
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(r.json()["error"], "acr_not_met");

    // Without the requirement: it signs in, at the device key's level.
    scanid_json(&[
        "client",
        "update",
        "--client-id",
        "shop",
        "--require-acr",
        "none",
        "--data-dir",
        d,
    ]);
    let mut b = Browser::new();
    let (r, payload) = sign_in(&mut auth, &mut b);
    assert_eq!(r.status, 200, "{}", r.text());
    let page = b.get(&consent_url(&s, &payload));
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
    let tokens = redeem(&s, ("shop", &secret), &code);
    let id = scanid_tests::jwt_claims(tokens["id_token"].as_str().unwrap());
    assert_eq!(id["acr"], "1", "{id}");
    assert_eq!(id["amr"], json!(["pop", "swk"]), "{id}");
}

/// Signs up a passkey identity with `auth`: its `sub`.
fn passkey_sign_up(s: &TestServer, auth: &mut SoftAuthenticator, name: &str) -> String {
    let reg_claims = claims(
        s,
        json!({ "name": name, "display_name": "Pat", "country_code": "SE",
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
    r.json()["sub"].as_str().unwrap().to_owned()
}

/// A login to Shop with `scope`, approved by the passkey: the tokens.
fn passkey_login(
    s: &TestServer,
    auth: &mut SoftAuthenticator,
    sub: &str,
    secret: &str,
    scope: &str,
) -> Value {
    let mut b = Browser::new();
    let url = auth_url(
        s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("scope", scope),
            ("state", "st"),
            ("nonce", "n"),
        ],
    );
    let (_, payload) = open(&mut b, &url);
    let r = request("GET", &payload, &[("Accept", "application/json")], b"");
    assert_eq!(r.status, 200, "{}", r.text());
    let n = number_shown(&mut b, &payload).unwrap();
    let r = decide(s, &payload, &approval(s, auth, sub, &payload, n));
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
    redeem(s, ("shop", secret), &params_of(&location(&done))["code"])
}

/// Issue 38 (9): a passkey identity (no device key) signs out everywhere with a
/// `sign-out+jwt` its passkey signs: every session ends (Shop gets back-channel logout for
/// each), every token dies (an offline one too); a replay is refused. Before the fix there was
/// no such request for a passkey identity (404), and its tokens lived on.
#[test]
fn a_passkey_identity_signs_out_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let (secret, received) =
        crate::session_revocation::shop_with_receiver(dir.path().to_str().unwrap(), &[]);
    let s = TestServer::start(dir.path(), &[]);
    let rp = RelyingParty::for_issuer(&s.issuer).unwrap();
    let mut auth = SoftAuthenticator::new(&rp, b"it-sign-out").unwrap();
    let sub = passkey_sign_up(&s, &mut auth, "lost.phone");
    let online = passkey_login(&s, &mut auth, &sub, &secret, "openid");
    let offline = passkey_login(&s, &mut auth, &sub, &secret, "openid offline_access");
    let refresh = |t: &Value| {
        scanid_tests::post_form(
            &s.oidc("token"),
            Some(("shop", &secret)),
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", t["refresh_token"].as_str().unwrap()),
            ],
        )
    };
    for t in [&online, &offline] {
        let at = t["access_token"].as_str().unwrap();
        assert_eq!(
            scanid_tests::introspect(&s, ("shop", &secret), at)["active"],
            true
        );
    }

    let jws = by_passkey(&s, &mut auth, "sign-out+jwt", json!({ "sub": sub }));
    let url = format!("{}/app/identities/{sub}/sign-out", s.issuer);
    let r = post(&url, &json!({ "sign_out": jws }));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["status"], "signed_out");
    assert_eq!(r.json()["sessions_ended"], 2, "{}", r.text());
    for t in [&online, &offline] {
        let r = refresh(t);
        assert_eq!(r.status, 400, "{}", r.text());
        assert_eq!(r.json()["error"], "invalid_grant");
        let at = t["access_token"].as_str().unwrap();
        assert_eq!(
            scanid_tests::introspect(&s, ("shop", &secret), at),
            json!({ "active": false })
        );
        assert_eq!(scanid_tests::userinfo(&s, at).status, 401);
    }
    let mut told = Vec::new();
    for _ in 0..2 {
        let raw = received
            .recv_timeout(std::time::Duration::from_secs(15))
            .expect("a back-channel logout per session");
        assert!(raw.starts_with("POST /bcl "), "{raw}");
        told.push(raw);
    }
    // A replay: refused (its challenge and jti are spent).
    let r = post(&url, &json!({ "sign_out": jws }));
    assert_eq!(r.status, 400, "{}", r.text());
    // Signed by another identity's key: refused.
    let other = TestApp::enroll(&s, "bystander");
    let mut c = other.request_claims();
    c["sub"] = json!(sub);
    let forged = TestApp::sign(&other.key, "sign-out+jwt", &c);
    let r = post(&url, &json!({ "sign_out": forged }));
    assert!(
        r.status == 400 || r.status == 403,
        "{} {}",
        r.status,
        r.text()
    );
}

/// Issue 42: a CIBA request to a passkey identity (no device key) is listed, opened and
/// approved with its passkey, user verified, as a QR login is: the client requires acr 2 and
/// gets the person's tokens at acr 2. For the same client, an identity with only a device key
/// (acr 1) is refused with `acr_not_met`, and the request stays pending: no tokens.
#[test]
fn a_ciba_request_is_approved_with_the_passkey() {
    use crate::ciba::{decide as decide_ciba, poll, start, waiting, CLIENT_FLAGS};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let flags: Vec<&str> = CLIENT_FLAGS
        .iter()
        .copied()
        .chain(["--require-acr", "2"])
        .collect();
    let secret = scanid_tests::secret_of(&scanid_tests::create_client(d, &flags));
    let client = ("desk", secret.as_str());
    let s = TestServer::start(dir.path(), &[]);
    let rp = RelyingParty::for_issuer(&s.issuer).unwrap();
    let mut auth = SoftAuthenticator::new(&rp, b"it-ciba-passkey").unwrap();
    let sub = passkey_sign_up(&s, &mut auth, "pat.ciba");
    let asked = |hint: &str| {
        let r = start(
            &s,
            client,
            &[
                ("scope", "openid"),
                ("login_hint", hint),
                ("binding_message", "Till 7: 12.50"),
            ],
        );
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()["auth_req_id"].as_str().unwrap().to_owned()
    };
    let id = asked("pat.ciba");

    // The phone lists and opens the request with requests its passkey signs.
    let url = format!("{}/app/identities/{sub}/backchannel-requests", s.issuer);
    let listed = by_passkey(&s, &mut auth, "backchannel+jwt", json!({ "sub": sub }));
    let r = post(&url, &json!({ "requests": listed }));
    assert_eq!(r.status, 200, "{}", r.text());
    let list = r.json()["requests"].as_array().unwrap().clone();
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!(list[0]["binding_message"], "Till 7: 12.50");
    let opening = by_passkey(
        &s,
        &mut auth,
        "backchannel-open+jwt",
        json!({ "sub": sub, "request": list[0]["id"] }),
    );
    let r = post(&format!("{url}/open"), &json!({ "open": opening }));
    assert_eq!(r.status, 200, "{}", r.text());
    let o = r.json();
    assert_eq!(o["backchannel"], true, "{o}");

    // The approval is a passkey assertion over the opened session, without a number.
    let approval = by_passkey(
        &s,
        &mut auth,
        "approval+jwt",
        json!({ "sub": sub, "session": o["session"], "challenge": o["challenge"],
                "decision": "approve" }),
    );
    let session_url = format!(
        "{}/app/login-sessions/{}",
        s.issuer,
        o["session"].as_str().unwrap()
    );
    let r = post(&session_url, &json!({ "approval": approval }));
    assert_eq!(r.status, 200, "{}", r.text());
    // Replayed: refused (its WebAuthn challenge and jti are spent).
    let r = post(&session_url, &json!({ "approval": approval }));
    assert_eq!(r.status, 400, "{}", r.text());
    let tokens = poll(&s, client, &id);
    assert_eq!(tokens.status, 200, "{}", tokens.text());
    let idt = scanid_tests::jwt_claims(tokens.json()["id_token"].as_str().unwrap());
    assert_eq!(idt["sub"], sub.as_str());
    assert_eq!(idt["aud"], "desk");
    assert_eq!(idt["acr"], "2", "{idt}");

    // A device key alone does not reach the client's acr 2: refused, and no tokens.
    let app = TestApp::enroll(&s, "ciba-key-only");
    let id2 = asked("ciba-key-only");
    let list = waiting(&app);
    assert_eq!(list.len(), 1, "{list:?}");
    let (_, decided) = decide_ciba(&app, list[0]["id"].as_str().unwrap(), "approve");
    assert_eq!(decided.status, 403, "{}", decided.text());
    assert_eq!(decided.json()["error"], "acr_not_met");
    let polled = poll(&s, client, &id2);
    assert_eq!(polled.status, 400, "{}", polled.text());
    assert_eq!(
        polled.json()["error"],
        "authorization_pending",
        "{}",
        polled.text()
    );
}
