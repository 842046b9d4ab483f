//! `scanid serve` as a user runs it: discovery, JWKS, persistence across restarts, routing
//! errors, bad input and bad configuration.

use std::process::Command;

use scanid_core::clock::{Clock, SystemClock};
use scanid_core::keys::jwt;
use scanid_core::keys::local::KeySet;
use scanid_core::keys::Alg;
use scanid_tests::{
    create_client, get, pyjwt_verify, request, scanid, scanid_json, TestServer, CB, DISCOVERY,
};
use serde_json::{json, Value};

const JWKS: &str = "/realms/scanid/protocol/openid-connect/certs";

/// Spec 2.1, field by field, with its type.
const SPEC_FIELDS: &[(&str, &str)] = &[
    ("issuer", "string"),
    ("authorization_endpoint", "string"),
    ("token_endpoint", "string"),
    ("userinfo_endpoint", "string"),
    ("introspection_endpoint", "string"),
    ("jwks_uri", "string"),
    ("response_types_supported", "array"),
    ("subject_types_supported", "array"),
    ("id_token_signing_alg_values_supported", "array"),
    ("token_endpoint_auth_methods_supported", "array"),
    ("claims_supported", "array"),
    ("grant_types_supported", "array"),
    ("code_challenge_methods_supported", "array"),
    ("scopes_supported", "array"),
    ("response_modes_supported", "array"),
    ("token_endpoint_auth_signing_alg_values_supported", "array"),
    ("request_parameter_supported", "bool"),
    ("request_uri_parameter_supported", "bool"),
    ("require_request_uri_registration", "bool"),
    ("tls_client_certificate_bound_access_tokens", "bool"),
    ("introspection_endpoint_auth_methods_supported", "array"),
];

#[test]
fn discovery_has_every_spec_field_with_truthful_values() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = get(&s.url(DISCOVERY));
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert!(r.header("cache-control").unwrap().contains("max-age"));
    let d = r.json();
    for (field, ty) in SPEC_FIELDS {
        let v = &d[field];
        let ok = match *ty {
            "string" => v.is_string(),
            "array" => v.is_array(),
            "bool" => v.is_boolean(),
            _ => false,
        };
        assert!(ok, "{field} should be a {ty}: {v}");
    }
    assert_eq!(d["issuer"], s.issuer);
    assert_eq!(
        s.issuer,
        format!("{}/realms/scanid", s.base),
        "issuer has no trailing slash"
    );
    let oidc = format!("{}/protocol/openid-connect", s.issuer);
    assert_eq!(d["authorization_endpoint"], format!("{oidc}/auth"));
    assert_eq!(d["token_endpoint"], format!("{oidc}/token"));
    assert_eq!(d["jwks_uri"], format!("{oidc}/certs"));
    assert_eq!(d["end_session_endpoint"], format!("{oidc}/logout"));
    assert_eq!(d["revocation_endpoint"], format!("{oidc}/revoke"));
    assert_eq!(d["authorization_response_iss_parameter_supported"], true);
    assert_eq!(d["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(d["response_types_supported"], json!(["code"]));
    assert_eq!(
        d["grant_types_supported"],
        json!([
            "authorization_code",
            "refresh_token",
            "client_credentials",
            "urn:ietf:params:oauth:grant-type:device_code",
            "urn:ietf:params:oauth:grant-type:token-exchange",
            "urn:openid:params:grant-type:ciba"
        ])
    );
    assert_eq!(
        d["device_authorization_endpoint"],
        format!("{oidc}/auth/device")
    );
    assert_eq!(
        d["token_endpoint_auth_methods_supported"],
        json!([
            "client_secret_basic",
            "client_secret_post",
            "client_secret_jwt",
            "private_key_jwt",
            "none"
        ])
    );
    assert_eq!(
        d["introspection_endpoint_auth_methods_supported"],
        json!([
            "client_secret_basic",
            "client_secret_post",
            "client_secret_jwt",
            "private_key_jwt"
        ])
    );
    assert_eq!(
        d["token_endpoint_auth_signing_alg_values_supported"],
        json!(["ES256", "PS256", "RS256", "EdDSA", "HS256", "HS384", "HS512"])
    );
    assert_eq!(
        d["prompt_values_supported"],
        json!(["none", "login", "consent"])
    );
    assert_eq!(
        d["id_token_signing_alg_values_supported"],
        json!(["ES256", "RS256"])
    );
    assert_eq!(d["request_parameter_supported"], true);
    assert_eq!(
        d["request_object_signing_alg_values_supported"],
        json!(["none", "ES256", "PS256", "RS256", "EdDSA"])
    );
    // The jwks_uri from discovery works.
    assert_eq!(get(d["jwks_uri"].as_str().unwrap()).status, 200);
}

#[test]
fn jwks_verifies_a_token_the_service_signed_in_an_independent_library() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = get(&s.url(JWKS));
    assert_eq!(r.status, 200);
    let jwks = r.json();
    let keys = jwks["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 2);
    for k in keys {
        for private in ["d", "p", "q", "dp", "dq", "qi", "oth", "k"] {
            assert!(
                k.get(private).is_none(),
                "private member {private} published"
            );
        }
        assert_eq!(k["use"], "sig");
        assert!(k["kid"].as_str().unwrap().len() >= 43);
    }
    // Sign with the very keys the server loaded (same data dir), verify with PyJWT.
    let ring = KeySet::load_or_create(dir.path(), SystemClock.now())
        .unwrap()
        .keyring()
        .unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let now = SystemClock.now().secs();
    for alg in [Alg::RS256, Alg::ES256] {
        let claims = json!({ "iss": s.issuer, "sub": "alice", "iat": now, "exp": now + 300 });
        let token = rt
            .block_on(jwt::encode(
                ring.signer(alg).unwrap().as_ref(),
                "JWT",
                &claims,
            ))
            .unwrap();
        let out = pyjwt_verify(&s.url(JWKS), &s.issuer, &token);
        assert!(
            out.status.success(),
            "{alg:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let verified: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(verified["sub"], "alice");
        // The same library refuses a tampered token, so the check above can fail.
        let (head, _) = token.rsplit_once('.').unwrap();
        let forged = format!(
            "{head}.{}",
            "A".repeat(if alg == Alg::RS256 { 342 } else { 86 })
        );
        let out = pyjwt_verify(&s.url(JWKS), &s.issuer, &forged);
        assert!(
            !out.status.success(),
            "{alg:?}: a forged signature verified"
        );
    }
}

#[test]
fn restart_keeps_clients_and_keys_and_operators_work_while_serving() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let jwks_before = get(&s.url(JWKS)).json();
    // An operator registers a client while the server runs.
    let created = create_client(data, &["--name", "Shop", "--redirect-uri", CB]);
    let client_id = created["client_id"].as_str().unwrap().to_owned();
    assert_eq!(created["client_secret"].as_str().unwrap().len(), 43);
    assert_eq!(s.stop().code(), Some(0), "SIGTERM is a clean shutdown");

    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(
        get(&s.url(JWKS)).json(),
        jwks_before,
        "keys survive a restart"
    );
    let listed = scanid_json(&["client", "list", "--data-dir", data]);
    assert!(listed["clients"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["client_id"] == client_id.as_str()));
    // Secrets are stored hashed: the secret is nowhere in the data dir.
    let secret = created["client_secret"].as_str().unwrap();
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        assert!(
            !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
            "secret stored in clear"
        );
    }
}

#[test]
fn unknown_paths_are_json_404_and_wrong_methods_405() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    for path in [
        "/",
        "/nope",
        "/realms/other/.well-known/openid-configuration",
        "/realms/scanid/protocol/openid-connect/certs/extra",
        "/realms//protocol/openid-connect/certs",
    ] {
        let r = get(&s.url(path));
        assert_eq!(r.status, 404, "{path}");
        assert_eq!(r.json()["error"], "not_found", "{path}");
    }
    let r = request("POST", &s.url(DISCOVERY), &[], b"x=1");
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("GET, HEAD"), "RFC 9110 §9.1");
    assert_eq!(r.json()["error"], "method_not_allowed");
    let r = request("DELETE", &s.url(JWKS), &[], b"");
    assert_eq!(r.status, 405);
}

#[test]
fn bad_input_gets_a_4xx_never_a_5xx() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let long = format!("/realms/{}/protocol/openid-connect/certs", "a".repeat(5000));
    let cases: Vec<(&str, String, Vec<u8>)> = vec![
        (
            "GET",
            "/realms/%ff%fe/protocol/openid-connect/certs".into(),
            vec![],
        ),
        (
            "GET",
            "/realms/%/protocol/openid-connect/certs".into(),
            vec![],
        ),
        ("GET", long, vec![]),
        ("GET", format!("{DISCOVERY}?a=1&a=2&%zz=%%"), vec![]),
        ("GET", JWKS.into(), vec![0xff, 0x00, 0xfe]),
        ("POST", DISCOVERY.into(), vec![b'x'; 70 * 1024]),
    ];
    for (method, path, body) in cases {
        let r = request(
            method,
            &s.url(&path),
            &[("Content-Type", "application/x-www-form-urlencoded")],
            &body,
        );
        assert!(
            (200..500).contains(&r.status),
            "{method} {path}: {}",
            r.status
        );
        assert!(
            r.header("content-type")
                .unwrap_or("")
                .starts_with("application/json"),
            "{path}"
        );
    }
    // The server is still healthy.
    assert_eq!(get(&s.url(DISCOVERY)).status, 200);
}

#[test]
fn bad_configuration_fails_at_start_naming_the_setting() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["--signing-alg", "HS256"], "SCANID_SIGNING_ALG"),
        (
            &["--public-url", "ftp://id.example.com"],
            "SCANID_PUBLIC_URL",
        ),
        (&["--realm", "a/b"], "SCANID_REALM"),
        (&["--code-ttl", "600"], "SCANID_CODE_TTL"),
        (&["--device-code-ttl", "5"], "SCANID_DEVICE_CODE_TTL"),
        (
            &["--user-code-rate-per-minute", "many"],
            "SCANID_USER_CODE_RATE_PER_MINUTE",
        ),
        (&["--access-token-ttl", "five"], "SCANID_ACCESS_TOKEN_TTL"),
        (&["--signing", "kms"], "SCANID_KMS_KEY_ID"),
        (&["--signing", "hsm"], "SCANID_SIGNING"),
    ];
    for (args, setting) in cases {
        let mut all = vec!["serve", "--addr", "127.0.0.1:0", "--data-dir", data];
        all.extend_from_slice(args);
        let out = scanid(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(setting), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(out.stdout.is_empty(), "nothing served");
    }
    // The same names work as environment variables.
    let out = Command::new(scanid_tests::scanid_bin())
        .args(["serve", "--addr", "127.0.0.1:0", "--data-dir", data])
        .env("SCANID_SIGNING_ALG", "none")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("SCANID_SIGNING_ALG"));
}

#[test]
fn a_custom_realm_and_public_url_move_every_endpoint() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(
        dir.path(),
        &[
            "--realm",
            "acme",
            "--signing-alg",
            "ES256",
            "--public-url",
            "https://id.acme.example/",
        ],
    );
    assert_eq!(s.issuer, "https://id.acme.example/realms/acme");
    let d = get(&s.url("/realms/acme/.well-known/openid-configuration")).json();
    assert_eq!(d["issuer"], "https://id.acme.example/realms/acme");
    assert_eq!(
        get(&s.url(DISCOVERY)).status,
        404,
        "the default realm is not served"
    );
}
