//! The app's sign-up (app protocol §1): every validation rule, proof of possession, replays
//! and name uniqueness.

use scanid_tests::{jwt_claims, registration_body, request, signup, TestApp, TestServer};
use serde_json::{json, Value};

/// A valid registration (name valid.name, country NO, a photo on cdn.example.com), after
/// `edit`.
fn registration(
    s: &TestServer,
    key: &aws_lc_rs::signature::EcdsaKeyPair,
    public_key: &str,
    edit: impl Fn(&mut Value),
) -> Vec<u8> {
    let mut claims = TestApp::registration_claims(s, public_key, "valid.name");
    claims["display_name"] = json!("Valid Name");
    claims["country_code"] = json!("NO");
    claims["profile_photo"] = json!("https://cdn.example.com/p.png");
    edit(&mut claims);
    registration_body(key, &claims)
}

#[test]
fn signup_returns_the_profile_and_enforces_every_rule() {
    let dir = tempfile::tempdir().unwrap();
    // Many sign-ups from one address: raise the per-source limit for this test.
    let s = TestServer::start(
        dir.path(),
        &[
            "--photo-host",
            "cdn.example.com",
            "--signup-rate-per-hour",
            "1000",
        ],
    );
    let (key, pk) = TestApp::key();
    let r = signup(&s, None, &registration(&s, &key, &pk, |_| {}));
    assert_eq!(r.status, 201, "{}", r.text());
    let v = r.json();
    assert_eq!(v["sub"], v["service_uuid"]);
    assert_eq!(uuid_version(v["sub"].as_str().unwrap()), Some('4'));
    assert_eq!(v["type"], "USER");
    assert_eq!(v["public_key"], pk);
    assert_eq!(v["name"], "valid.name");
    assert_eq!(v["country_code"], "NO");
    assert_eq!(v["service_id"].as_str().unwrap().len(), 12);
    let created = v["created_at"].as_str().unwrap();
    assert!(created.ends_with('Z') && created.len() == 24, "{created}");

    // The same name again: 409 name_taken.
    let (k2, pk2) = TestApp::key();
    let r = signup(&s, None, &registration(&s, &k2, &pk2, |_| {}));
    assert_eq!(r.status, 409);
    assert_eq!(r.json()["error"], "name_taken");

    type Edit = Box<dyn Fn(&mut Value)>;
    let bad: Vec<(&str, Edit)> = vec![
        ("short name", Box::new(|c| c["name"] = json!("ab"))),
        ("upper-case name", Box::new(|c| c["name"] = json!("Alice"))),
        ("long name", Box::new(|c| c["name"] = json!("a".repeat(33)))),
        (
            "empty display name",
            Box::new(|c| c["display_name"] = json!("")),
        ),
        (
            "long display name",
            Box::new(|c| c["display_name"] = json!("x".repeat(65))),
        ),
        (
            "control in display name",
            Box::new(|c| c["display_name"] = json!("a\u{0007}b")),
        ),
        (
            "lower-case country",
            Box::new(|c| c["country_code"] = json!("no")),
        ),
        (
            "unknown country",
            Box::new(|c| c["country_code"] = json!("XX")),
        ),
        (
            "http photo",
            Box::new(|c| c["profile_photo"] = json!("http://cdn.example.com/p.png")),
        ),
        (
            "javascript photo",
            Box::new(|c| c["profile_photo"] = json!("javascript:alert(1)")),
        ),
        (
            "photo with credentials",
            Box::new(|c| c["profile_photo"] = json!("https://u:p@cdn.example.com/p.png")),
        ),
        (
            "missing name",
            Box::new(|c| {
                c.as_object_mut().unwrap().remove("name");
            }),
        ),
        ("number as name", Box::new(|c| c["name"] = json!(42))),
        (
            "wrong audience",
            Box::new(|c| c["aud"] = json!("https://other.example/realms/scanid")),
        ),
        (
            "expired",
            Box::new(|c| {
                c["iat"] = json!(TestApp::now() - 600);
                c["exp"] = json!(TestApp::now() - 300);
            }),
        ),
        (
            "too long-lived",
            Box::new(|c| c["exp"] = json!(TestApp::now() + 3600)),
        ),
        (
            "no jti",
            Box::new(|c| {
                c.as_object_mut().unwrap().remove("jti");
            }),
        ),
    ];
    for (i, (why, edit)) in bad.into_iter().enumerate() {
        let (k, pk) = TestApp::key();
        let name = format!("user{i}");
        let r = signup(
            &s,
            None,
            &registration(&s, &k, &pk, |c| {
                c["name"] = json!(name);
                edit(c);
            }),
        );
        assert_eq!(r.status, 400, "{why}: {}", r.text());
        assert_eq!(r.json()["error"], "invalid_request", "{why}");
    }
    // Proof of possession: signed by another key than the one registered.
    let (k3, _) = TestApp::key();
    let (_, pk4) = TestApp::key();
    let r = signup(
        &s,
        None,
        &registration(&s, &k3, &pk4, |c| c["name"] = json!("pop.fail")),
    );
    assert_eq!(r.status, 400);
    // A public key that is not a P-256 SPKI.
    let r = signup(
        &s,
        None,
        &registration(&s, &k3, "AAAA", |c| c["name"] = json!("bad.key")),
    );
    assert_eq!(r.status, 400);
    // Replay: the same registration twice (a different name would not change the jti).
    let (k5, pk5) = TestApp::key();
    let body = registration(&s, &k5, &pk5, |c| c["name"] = json!("once.only"));
    assert_eq!(signup(&s, None, &body).status, 201);
    // The very same request again: its name is taken now, and the store says so first.
    let r = signup(&s, None, &body);
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(r.json()["error"], "name_taken");
    // Its jti with a free name (a fresh signature): the replay itself is refused.
    let mut claims = jwt_claims(
        serde_json::from_slice::<Value>(&body).unwrap()["registration"]
            .as_str()
            .unwrap(),
    );
    claims["name"] = json!("once.again");
    let r = signup(&s, None, &registration_body(&k5, &claims));
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_request");
    assert_eq!(r.json()["error_description"], "jti was already used");
    // Malformed bodies.
    for body in [
        &b"not json"[..],
        b"{}",
        b"{\"registration\": 5}",
        b"{\"registration\": \"a.b.c\"}",
    ] {
        let r = signup(&s, None, body);
        assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(body));
    }
    let r = request(
        "POST",
        &format!("{}/app/identities", s.issuer),
        &[("Content-Type", "text/plain")],
        b"{}",
    );
    assert_eq!(r.status, 415);
}

fn uuid_version(s: &str) -> Option<char> {
    s.chars().nth(14)
}

#[test]
fn replayed_registration_with_another_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let (key, pk) = TestApp::key();
    let now = TestApp::now();
    let jti = TestApp::jti();
    let mk = |name: &str| {
        let claims = json!({ "name": name, "display_name": "X", "country_code": "SE", "public_key": pk,
            "aud": s.issuer, "iat": now, "exp": now + 120, "jti": jti });
        registration_body(&key, &claims)
    };
    assert_eq!(signup(&s, None, &mk("first.name")).status, 201);
    let r = signup(&s, None, &mk("second.name"));
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_request");
    assert_eq!(r.json()["error_description"], "jti was already used");
}
