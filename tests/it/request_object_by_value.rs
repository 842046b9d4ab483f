//! A signed request object by value at the authorization endpoint (RFC 9101 §5.1), against
//! the real `scanid serve`: verified as at PAR (the client's registered keys, `iss`, `aud`,
//! `exp`, `nbf`, `client_id`; `alg` never `none`), and then only the object's parameters are
//! the request. An unsigned object from a client that must sign, one signed by another key,
//! an expired one and one naming another client each come back to the redirect URI with the
//! RFC's error; a client that must push (PAR) is refused one by value. A whole login with
//! such a request, signed by openid-client, is in tests/js/fapi.test.mjs.

use scanid_core::domain::request_object::unsigned;
use scanid_tests::{auth_url, create_client, location, params_of, Browser, TestApp, TestServer};
use serde_json::{json, Value};

use crate::client_keys::{jwks_file, Key, LENIENT};

const CB: &str = "https://rp.example/cb";

fn object(s: &TestServer, client: &str) -> Value {
    let now = TestApp::now();
    json!({"iss": client, "aud": s.issuer, "exp": now + 300, "nbf": now, "iat": now,
        "client_id": client, "response_type": "code", "scope": "openid", "redirect_uri": CB,
        "state": "inside", "nonce": "n-inside", "prompt": "none"})
}

fn with(mut claims: Value, k: &str, v: Value) -> Value {
    claims[k] = v;
    claims
}

/// Where the browser is sent for `request` by `client`, with other parameters outside.
fn answer(
    s: &TestServer,
    client: &str,
    request: &str,
) -> (u16, Option<std::collections::HashMap<String, String>>) {
    let url = auth_url(
        s,
        &[
            ("client_id", client),
            ("response_type", "code"),
            ("scope", "openid profile"),
            ("redirect_uri", CB),
            ("state", "outside"),
            ("request", request),
        ],
    );
    let r = Browser::new().get(&url);
    if r.status == 302 {
        let loc = location(&r);
        assert!(loc.starts_with(CB), "{loc}");
        (302, Some(params_of(&loc)))
    } else {
        (r.status, None)
    }
}

fn error_of(s: &TestServer, client: &str, request: &str) -> (String, String, String) {
    let (status, p) = answer(s, client, request);
    assert_eq!(status, 302, "a redirect with the error");
    let p = p.unwrap();
    (
        p["error"].clone(),
        p.get("state").cloned().unwrap_or_default(),
        p.get("error_description").cloned().unwrap_or_default(),
    )
}

#[test]
fn a_signed_request_object_by_value_is_the_request_and_bad_ones_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let key = Key::new("rp-1");
    let jwks = jwks_file(dir.path(), &[&key]);
    for (id, extra) in [
        ("rp", None),
        ("signer", Some("--require-signed-request-object")),
        ("pusher", Some("--require-par")),
    ] {
        let mut args = vec![
            "--name",
            id,
            "--client-id",
            id,
            "--redirect-uri",
            CB,
            "--jwks",
            &jwks,
        ];
        args.extend(extra);
        create_client(data, &args);
    }
    let s = TestServer::start(dir.path(), LENIENT);
    let discovery: Value = scanid_tests::get(&s.url(scanid_tests::DISCOVERY)).json();
    assert_eq!(discovery["request_parameter_supported"], true);

    // Good: verified, and only its parameters count. Its prompt=none (no session here)
    // comes back as login_required with its state, not the query's.
    let (error, state, _) = error_of(&s, "rp", &key.sign(&object(&s, "rp")));
    assert_eq!(
        (error.as_str(), state.as_str()),
        ("login_required", "inside")
    );
    // Without prompt=none it starts a login (the QR page).
    let mut no_prompt = object(&s, "rp");
    no_prompt.as_object_mut().unwrap().remove("prompt");
    assert_eq!(answer(&s, "rp", &key.sign(&no_prompt)).0, 200);
    // The same for the client that must sign its requests.
    let (error, _, _) = error_of(&s, "signer", &key.sign(&object(&s, "signer")));
    assert_eq!(error, "login_required");

    let other = Key::new("rp-1");
    for (what, client, request, want) in [
        (
            "unsigned, from a client that must sign",
            "signer",
            unsigned(&object(&s, "signer")),
            "invalid_request",
        ),
        (
            "signed by another key",
            "rp",
            other.sign(&object(&s, "rp")),
            "invalid_request_object",
        ),
        (
            "expired",
            "rp",
            key.sign(&with(object(&s, "rp"), "exp", json!(TestApp::now() - 1))),
            "invalid_request_object",
        ),
        (
            "client_id another client's",
            "rp",
            key.sign(&with(object(&s, "rp"), "client_id", json!("signer"))),
            "invalid_request_object",
        ),
        (
            "iss another client",
            "rp",
            key.sign(&with(object(&s, "rp"), "iss", json!("signer"))),
            "invalid_request_object",
        ),
        (
            "aud another server",
            "rp",
            key.sign(&with(
                object(&s, "rp"),
                "aud",
                json!("https://elsewhere.example"),
            )),
            "invalid_request_object",
        ),
        (
            "by value from a client that must push",
            "pusher",
            key.sign(&object(&s, "pusher")),
            "invalid_request_object",
        ),
    ] {
        let (error, _, description) = error_of(&s, client, &request);
        assert_eq!(error, want, "{what}: {description}");
    }
    // The refusal of a client that must push says so.
    let (_, _, description) = error_of(&s, "pusher", &key.sign(&object(&s, "pusher")));
    assert!(description.contains("push"), "{description}");
}
