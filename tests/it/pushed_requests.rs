//! Pushed authorization requests (RFC 9126) against the real `scanid serve`, from outside: a
//! client authenticated by `private_key_jwt` pushes its request (PKCE, state, nonce), sends
//! the browser with `client_id` and the `request_uri`, and a QR login ends with a code it
//! redeems. Refused: a `request_uri` used twice, by another client, or expired; an assertion
//! addressed to the token endpoint at PAR; a pushed request the authorization endpoint would
//! refuse; a request that was not pushed, for a client (or a server) that requires PAR. The
//! single use holds on SQLite and on DynamoDB (moto).

use scanid_tests::{
    auth_url, code_of, create_client, get, login, post_form, Browser, Resp, TestApp, TestServer,
    DISCOVERY, PKCE_CHALLENGE, PKCE_VERIFIER,
};
use serde_json::json;

use crate::client_keys::{jwks_file, Key, JWT_BEARER, LENIENT};

const CB: &str = "https://bank.example/cb";

fn par_url(s: &TestServer) -> String {
    s.oidc("ext/par/request")
}

/// Pushes `bank`'s request (its `extra` parameters over a good PKCE request), authenticated
/// by an assertion for `aud`.
fn push_as(
    s: &TestServer,
    key: &Key,
    client: &str,
    aud: serde_json::Value,
    extra: &[(&str, &str)],
) -> Resp {
    let assertion = key.assertion(client, aud);
    let mut pairs = vec![
        ("client_id", client),
        ("response_type", "code"),
        ("scope", "openid profile"),
        ("redirect_uri", CB),
        ("state", "st-1"),
        ("nonce", "n-1"),
        ("code_challenge", PKCE_CHALLENGE),
        ("code_challenge_method", "S256"),
        ("client_assertion_type", JWT_BEARER),
        ("client_assertion", &assertion),
    ];
    for (k, v) in extra {
        pairs.retain(|(name, _)| name != k);
        pairs.push((k, v));
    }
    post_form(&par_url(s), None, &pairs)
}

fn request_uri(r: &Resp) -> String {
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let v = r.json();
    assert_eq!(v["expires_in"], 60);
    let uri = v["request_uri"].as_str().unwrap().to_owned();
    assert!(
        uri.starts_with("urn:ietf:params:oauth:request_uri:"),
        "{uri}"
    );
    uri
}

fn with_uri(s: &TestServer, client: &str, uri: &str) -> String {
    auth_url(s, &[("client_id", client), ("request_uri", uri)])
}

/// The error page (no redirect) the authorization endpoint shows.
fn error_page(b: &mut Browser, url: &str, what: &str) {
    let r = b.get(url);
    assert_eq!(r.status, 400, "{what}: {}", r.text());
    assert!(r.header("location").is_none(), "{what}: never a redirect");
}

fn bank(dir: &std::path::Path, key: &Key, extra: &[&str]) {
    let jwks = jwks_file(dir, &[key]);
    let mut args = vec![
        "--name",
        "Bank",
        "--client-id",
        "bank",
        "--redirect-uri",
        CB,
        "--jwks",
        &jwks,
    ];
    args.extend_from_slice(extra);
    create_client(dir.to_str().unwrap(), &args);
}

/// A pushed request, a QR login, the code redeemed with the client's assertion and PKCE.
fn login_with_par(s: &TestServer, key: &Key) {
    let app = TestApp::enroll(
        s,
        &format!(
            "p{}",
            uuid::Uuid::new_v4().simple().to_string().get(..8).unwrap()
        ),
    );
    let uri = request_uri(&push_as(s, key, "bank", json!(s.issuer), &[]));
    let mut b = Browser::new();
    let back = login(&mut b, s, &app, &with_uri(s, "bank", &uri));
    let loc = back.header("location").unwrap_or_default().to_owned();
    assert!(loc.starts_with(CB) && loc.contains("state=st-1"), "{loc}");
    let code = code_of(&back);
    let tokens = post_form(
        &s.oidc("token"),
        None,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", CB),
            ("code_verifier", PKCE_VERIFIER),
            ("client_assertion_type", JWT_BEARER),
            ("client_assertion", &key.assertion("bank", json!(s.issuer))),
        ],
    );
    assert_eq!(tokens.status, 200, "{}", tokens.text());
    let id_token = tokens.json()["id_token"].as_str().unwrap().to_owned();
    let claims = scanid_tests::jwt_claims(&id_token);
    assert_eq!(claims["nonce"], "n-1", "the pushed nonce");
    assert_eq!(claims["aud"], "bank");
    // Used once: the same request_uri again is refused.
    error_page(
        &mut Browser::new(),
        &with_uri(s, "bank", &uri),
        "a reused request_uri",
    );
}

#[test]
fn a_pushed_request_logs_in_once_and_every_misuse_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let key = Key::new("p1");
    bank(dir.path(), &key, &["--require-par"]);
    let other = Key::new("o1");
    let jwks = jwks_file(dir.path(), &[&other]);
    create_client(
        dir.path().to_str().unwrap(),
        &[
            "--name",
            "Other",
            "--client-id",
            "other",
            "--redirect-uri",
            CB,
            "--jwks",
            &jwks,
        ],
    );
    let s = TestServer::start(dir.path(), LENIENT);

    let d = get(&s.url(DISCOVERY)).json();
    assert_eq!(d["pushed_authorization_request_endpoint"], par_url(&s));
    assert_eq!(d["require_pushed_authorization_requests"], false);

    login_with_par(&s, &key);

    // Another client's request_uri.
    let uri = request_uri(&push_as(&s, &key, "bank", json!(s.issuer), &[]));
    error_page(
        &mut Browser::new(),
        &with_uri(&s, "other", &uri),
        "another client's request_uri",
    );
    // An unknown one, and one that is not a urn of ours.
    error_page(
        &mut Browser::new(),
        &with_uri(
            &s,
            "bank",
            "urn:ietf:params:oauth:request_uri:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        ),
        "unknown",
    );
    error_page(
        &mut Browser::new(),
        &with_uri(&s, "bank", "urn:ietf:params:oauth:request_uri:x"),
        "malformed",
    );
    // A request_uri by reference (OIDC Core §6.2) is still not supported.
    let by_ref = auth_url(
        &s,
        &[
            ("client_id", "bank"),
            ("response_type", "code"),
            ("redirect_uri", CB),
            ("state", "st"),
            ("request_uri", "https://bank.example/req"),
        ],
    );
    let r = Browser::new().get(&by_ref);
    assert!(
        r.header("location")
            .unwrap_or_default()
            .contains("error=request_uri_not_supported"),
        "{}",
        r.text()
    );

    // Not pushed, for a client that must push: refused (at its registered redirect URI).
    let direct = Browser::new().get(&auth_url(
        &s,
        &[
            ("client_id", "bank"),
            ("response_type", "code"),
            ("redirect_uri", CB),
            ("state", "st"),
            ("code_challenge", PKCE_CHALLENGE),
            ("code_challenge_method", "S256"),
        ],
    ));
    let loc = direct.header("location").unwrap_or_default().to_owned();
    assert!(
        loc.contains("error=invalid_request"),
        "{}: {loc}",
        direct.status
    );

    // At PAR, the assertion's aud is the issuer: the token endpoint (or PAR's URL) is refused.
    for aud in [
        json!(s.oidc("token")),
        json!(par_url(&s)),
        json!([s.oidc("token")]),
    ] {
        let r = push_as(&s, &key, "bank", aud.clone(), &[]);
        assert_eq!(r.status, 401, "aud {aud}: {}", r.text());
        assert_eq!(r.json()["error"], "invalid_client");
    }
    // A replayed assertion at PAR.
    let once = key.assertion("bank", json!(s.issuer));
    let push_with = |a: &str, extra: &[(&str, &str)]| {
        let mut pairs = vec![
            ("response_type", "code"),
            ("redirect_uri", CB),
            ("state", "st"),
            ("code_challenge", PKCE_CHALLENGE),
            ("code_challenge_method", "S256"),
            ("client_assertion_type", JWT_BEARER),
            ("client_assertion", a),
        ];
        pairs.extend_from_slice(extra);
        post_form(&par_url(&s), None, &pairs)
    };
    assert_eq!(
        push_with(&once, &[]).status,
        201,
        "client_id may be left out"
    );
    assert_eq!(push_with(&once, &[]).status, 401, "a replayed assertion");
    // What the authorization endpoint would refuse is refused when pushed (400).
    for (extra, code) in [
        (
            vec![("redirect_uri", "https://evil.example/cb")],
            "invalid_request",
        ),
        (vec![("code_challenge_method", "plain")], "invalid_request"),
        (
            vec![("response_type", "token")],
            "unsupported_response_type",
        ),
        (vec![("request_uri", "urn:x")], "invalid_request"),
    ] {
        let r = push_as(&s, &key, "bank", json!(s.issuer), &extra);
        assert_eq!(r.status, 400, "{extra:?}: {}", r.text());
        assert_eq!(r.json()["error"], code, "{extra:?}");
    }
    // No client authentication at all.
    let r = post_form(
        &par_url(&s),
        None,
        &[
            ("client_id", "bank"),
            ("response_type", "code"),
            ("redirect_uri", CB),
        ],
    );
    assert_eq!(r.status, 401, "{}", r.text());
}

#[test]
fn a_request_uri_expires_after_a_minute() {
    let dir = tempfile::tempdir().unwrap();
    let key = Key::new("p1");
    bank(dir.path(), &key, &[]);
    // A minute passes between the push and the use: the server is stopped, the stored
    // request's expiry moved 61 s back, and the server started again.
    let s = TestServer::start(dir.path(), LENIENT);
    let uri = request_uri(&push_as(&s, &key, "bank", json!(s.issuer), &[]));
    drop(s);
    let db = rusqlite::Connection::open(dir.path().join("scanid.db")).unwrap();
    let hash = {
        use base64::Engine;
        let token = uri.rsplit(':').next().unwrap();
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(aws_lc_rs::digest::digest(
            &aws_lc_rs::digest::SHA256,
            token.as_bytes(),
        ))
    };
    let changed = db
        .execute(
            "UPDATE records SET expires_at = expires_at - 61 WHERE pk = ?1",
            [format!("par#{hash}")],
        )
        .unwrap();
    assert_eq!(
        changed, 1,
        "the pushed request is stored under its hash, with an expiry"
    );
    drop(db);
    let s = TestServer::start(dir.path(), LENIENT);
    error_page(
        &mut Browser::new(),
        &with_uri(&s, "bank", &uri),
        "an expired request_uri",
    );
}

#[test]
fn a_server_that_requires_par_refuses_every_request_that_was_not_pushed() {
    let dir = tempfile::tempdir().unwrap();
    let key = Key::new("p1");
    bank(dir.path(), &key, &[]);
    let s = TestServer::start(
        dir.path(),
        &[
            "--require-pushed-authorization-requests",
            "true",
            LENIENT[0],
            LENIENT[1],
        ],
    );
    assert_eq!(
        get(&s.url(DISCOVERY)).json()["require_pushed_authorization_requests"],
        true
    );
    let direct = Browser::new().get(&auth_url(
        &s,
        &[
            ("client_id", "bank"),
            ("response_type", "code"),
            ("redirect_uri", CB),
            ("state", "st"),
            ("code_challenge", PKCE_CHALLENGE),
            ("code_challenge_method", "S256"),
        ],
    ));
    assert!(direct
        .header("location")
        .unwrap_or_default()
        .contains("error=invalid_request"));
    login_with_par(&s, &key);
}

#[test]
fn a_request_uri_is_used_once_on_dynamodb() {
    let aws = crate::aws::Aws::init("kms");
    let dir = tempfile::tempdir().unwrap();
    let key = Key::new("d1");
    let jwks = jwks_file(dir.path(), &[&key]);
    aws.cli(&[
        "client",
        "create",
        "--name",
        "Bank",
        "--client-id",
        "bank",
        "--redirect-uri",
        CB,
        "--jwks",
        &jwks,
    ]);
    let mut flags = aws.flags();
    flags.extend_from_slice(LENIENT);
    let s = TestServer::start(dir.path(), &flags);
    let uri = request_uri(&push_as(&s, &key, "bank", json!(s.issuer), &[]));
    let url = with_uri(&s, "bank", &uri);
    let pages = scanid_tests::race(8, |_| Browser::new().get(&url).status);
    assert_eq!(
        pages.iter().filter(|st| **st == 200).count(),
        1,
        "one QR page: {pages:?}"
    );
    assert!(pages.iter().all(|st| *st == 200 || *st == 400), "{pages:?}");
}

#[test]
fn pushed_requests_count_against_the_login_rate_of_their_source() {
    let dir = tempfile::tempdir().unwrap();
    let key = Key::new("p1");
    bank(dir.path(), &key, &[]);
    let s = TestServer::start(
        dir.path(),
        &["--login-rate-per-minute", "2", LENIENT[0], LENIENT[1]],
    );
    for _ in 0..2 {
        request_uri(&push_as(&s, &key, "bank", json!(s.issuer), &[]));
    }
    let r = push_as(&s, &key, "bank", json!(s.issuer), &[]);
    assert_eq!(r.status, 429, "{}", r.text());
    assert!(r.header("retry-after").is_some());
}
