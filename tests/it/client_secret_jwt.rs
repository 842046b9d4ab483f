//! `client_secret_jwt` (RFC 7523 §2.2: a JWT with an HMAC keyed by the client secret) against
//! the real `scanid serve`, from outside. A client made with `scanid client create
//! --client-secret-jwt` (its secret kept sealed by the service's sealing key, a file of the
//! data dir beside the signing keys) gets tokens with an HS256 assertion, and with
//! requests-oauth2client's `ClientSecretJwt` (tests/py/client_secret_jwt.py); a wrong secret,
//! a replayed `jti`, `alg: none`, an RS256 header over an HMAC of the secret, an expired or
//! too-long-lived assertion, another `aud`, and the secret sent by HTTP Basic are each
//! `invalid_client`, as is an HS256 assertion from a `client_secret_basic` client. A rotated
//! secret replaces the old one. Dynamic registration and python-keycloak make such clients
//! too. The same on DynamoDB (moto): the client record and the `jti` spend in the table; and
//! with `--signing kms-envelope`, where the sealing key is wrapped by the KMS key and kept in
//! the table, so a second server on the table (a second container) opens the same secrets.

use std::process::Command;

use aws_lc_rs::hmac;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use scanid_tests::operator::Operator;
use scanid_tests::{
    get, post_form, python, repo_root, request, Resp, TestApp, TestServer, DISCOVERY,
};
use serde_json::{json, Value};

use crate::client_keys::{JWT_BEARER, LENIENT};

/// A compact JWS with header `{"alg": alg}` and an HMAC (by `mac_alg`) keyed with `secret`.
fn hs(alg: &str, mac_alg: hmac::Algorithm, secret: &str, claims: &Value) -> String {
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(json!({"alg": alg, "typ": "JWT"}).to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let tag = hmac::sign(
        &hmac::Key::new(mac_alg, secret.as_bytes()),
        input.as_bytes(),
    );
    format!("{input}.{}", URL_SAFE_NO_PAD.encode(tag.as_ref()))
}

fn claims(client: &str, aud: &str) -> Value {
    let now = TestApp::now();
    json!({"iss": client, "sub": client, "aud": aud, "iat": now, "exp": now + 60,
        "jti": TestApp::jti()})
}

fn cc(s: &TestServer, assertion: &str) -> Resp {
    post_form(
        &s.oidc("token"),
        None,
        &[
            ("grant_type", "client_credentials"),
            ("client_assertion_type", JWT_BEARER),
            ("client_assertion", assertion),
        ],
    )
}

fn refused(r: &Resp, what: &str) {
    assert_eq!(r.status, 401, "{what}: {}", r.text());
    assert_eq!(r.json()["error"], "invalid_client", "{what}: {}", r.text());
}

fn py(args: &[&str]) -> Value {
    let out = Command::new(python())
        .arg(repo_root().join("tests/py/client_secret_jwt.py"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "client_secret_jwt.py (pip install -r tests/py/requirements.txt): {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

/// The scenario; the client `hmac`'s secret at its end.
fn scenario(s: &TestServer, op: &Operator) -> String {
    let d: Value = get(&s.url(DISCOVERY)).json();
    for list in [
        "token_endpoint_auth_methods_supported",
        "introspection_endpoint_auth_methods_supported",
    ] {
        assert!(
            d[list]
                .as_array()
                .unwrap()
                .contains(&json!("client_secret_jwt")),
            "{list}: {d}"
        );
    }
    let algs = d["token_endpoint_auth_signing_alg_values_supported"].clone();
    for alg in ["HS256", "HS384", "HS512", "ES256"] {
        assert!(algs.as_array().unwrap().contains(&json!(alg)), "{algs}");
    }

    let created = op.run(&[
        "client",
        "create",
        "--name",
        "Hmac",
        "--client-id",
        "hmac",
        "--client-credentials",
        "--client-secret-jwt",
    ]);
    let secret = created["client_secret"].as_str().unwrap().to_owned();
    let shown = op.run(&["client", "show", "--client-id", "hmac"]);
    assert_eq!(shown["client_secret_jwt"], true, "{shown}");
    assert!(
        !shown.to_string().contains(&secret),
        "the secret is never shown again"
    );
    let plain = op.run(&[
        "client",
        "create",
        "--name",
        "Plain",
        "--client-id",
        "plain",
        "--client-credentials",
    ]);
    let plain_secret = plain["client_secret"].as_str().unwrap();

    let iss = s.issuer.as_str();
    let token_endpoint = s.oidc("token");
    let h256 = hmac::HMAC_SHA256;
    // Good: HS256 to the issuer, HS384 to the token endpoint; the assertion once only.
    let good = hs("HS256", h256, &secret, &claims("hmac", iss));
    let r = cc(s, &good);
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.json()["access_token"].is_string());
    let r = cc(
        s,
        &hs(
            "HS384",
            hmac::HMAC_SHA384,
            &secret,
            &claims("hmac", &token_endpoint),
        ),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    refused(&cc(s, &good), "replayed jti");

    let now = TestApp::now();
    let with = |k: &str, v: Value| {
        let mut c = claims("hmac", iss);
        c[k] = v;
        c
    };
    let good_body = hs("HS256", h256, &secret, &claims("hmac", iss));
    let body = good_body.split('.').nth(1).unwrap();
    let none_header = URL_SAFE_NO_PAD.encode(r#"{"alg":"none"}"#);
    for (what, assertion) in [
        (
            "wrong secret",
            hs("HS256", h256, "not-the-secret", &claims("hmac", iss)),
        ),
        ("alg none", format!("{none_header}.{body}.")),
        (
            "RS256 header, HMAC of the secret",
            hs("RS256", h256, &secret, &claims("hmac", iss)),
        ),
        (
            "expired",
            hs("HS256", h256, &secret, &with("exp", json!(now - 1))),
        ),
        (
            "exp 10 minutes ahead",
            hs("HS256", h256, &secret, &with("exp", json!(now + 600))),
        ),
        (
            "iat ahead",
            hs("HS256", h256, &secret, &with("iat", json!(now + 60))),
        ),
        (
            "another aud",
            hs(
                "HS256",
                h256,
                &secret,
                &with("aud", json!("https://elsewhere.example")),
            ),
        ),
        (
            "another iss",
            hs("HS256", h256, &secret, &with("sub", json!("plain"))),
        ),
        (
            "a client_secret_basic client's HS256 assertion",
            hs("HS256", h256, plain_secret, &claims("plain", iss)),
        ),
    ] {
        refused(&cc(s, &assertion), what);
    }
    // Its secret by HTTP Basic: it authenticates by client_secret_jwt only.
    let basic = post_form(
        &token_endpoint,
        Some(("hmac", &secret)),
        &[("grant_type", "client_credentials")],
    );
    refused(&basic, "the secret by HTTP Basic");

    // A rotated secret replaces the old one.
    let rotated = op.run(&["client", "rotate-secret", "--client-id", "hmac"]);
    let new_secret = rotated["client_secret"].as_str().unwrap().to_owned();
    refused(
        &cc(s, &hs("HS256", h256, &secret, &claims("hmac", iss))),
        "the old secret",
    );
    let r = cc(s, &hs("HS256", h256, &new_secret, &claims("hmac", iss)));
    assert_eq!(r.status, 200, "{}", r.text());

    // requests-oauth2client signs its own (HS256 to the token endpoint, HS512 to the issuer).
    let out = py(&["cc", &token_endpoint, iss, "hmac", &new_secret]);
    assert_eq!(out["ok"], true);
    new_secret
}

#[test]
fn client_secret_jwt_gets_tokens_and_every_bad_assertion_is_invalid_client() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), LENIENT);
    let _ = scenario(&s, &Operator::local(dir.path()));
    // The sealing key is a file of the data dir, readable by its owner only; the store holds
    // the secret sealed, never in the clear.
    let key = dir.path().join("sealing-key");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[test]
fn client_secret_jwt_on_dynamodb() {
    let aws = Operator::on_emulator("kms");
    let table = aws.table().unwrap().to_owned();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().display().to_string();
    // The table is the store; the signing and sealing keys are the data dir's (local).
    let op = Operator {
        flags: ["--table", &table, "--signing", "local", "--data-dir", &data]
            .map(str::to_owned)
            .to_vec(),
    };
    let mut flags = vec!["--table", table.as_str(), "--signing", "local"];
    flags.extend_from_slice(LENIENT);
    let s = TestServer::start(dir.path(), &flags);
    let _ = scenario(&s, &op);
}

/// On AWS (`--signing kms-envelope`, moto's KMS and DynamoDB): the sealing key is made by
/// scanid, wrapped by the table's KMS key and kept in the table, so the CLI that creates the
/// client, the server that checks its assertions and a second server on the same table (a
/// second container) all open the same sealed secret; discovery lists the method; no sealing
/// key file is written.
#[test]
fn client_secret_jwt_on_dynamodb_with_kms_envelope() {
    let op = Operator::on_emulator("kms-envelope");
    let dir = tempfile::tempdir().unwrap();
    let mut flags = op.flag_strs();
    flags.extend_from_slice(LENIENT);
    let s = TestServer::start(dir.path(), &flags);
    let secret = scenario(&s, &op);
    assert!(
        !dir.path().join("sealing-key").exists(),
        "no sealing key file with kms-envelope"
    );
    // A second process on the same table opens the same sealed secret.
    let dir2 = tempfile::tempdir().unwrap();
    let s2 = TestServer::start(dir2.path(), &flags);
    let h256 = hmac::HMAC_SHA256;
    let r = cc(
        &s2,
        &hs("HS256", h256, &secret, &claims("hmac", &s2.issuer)),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.json()["access_token"].is_string());
    refused(
        &cc(
            &s2,
            &hs("HS256", h256, "not-the-secret", &claims("hmac", &s2.issuer)),
        ),
        "wrong secret at the second server",
    );
    let out = py(&["cc", &s2.oidc("token"), &s2.issuer, "hmac", &secret]);
    assert_eq!(out["ok"], true);
    // The admin API (python-keycloak) makes one too, on the table.
    let admin_secret = op.service_account("pipeline", &["manage-clients"]);
    let out = py(&[
        "keycloak",
        s2.base.as_str(),
        "scanid",
        "pipeline",
        &admin_secret,
        &s2.oidc("token"),
    ]);
    assert_eq!(out["ok"], true);
}

/// RFC 7591: a client registers with `token_endpoint_auth_method: client_secret_jwt` and its
/// one algorithm; its secret then works only in an HS256 assertion.
#[test]
fn a_self_registered_client_uses_client_secret_jwt() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(
        dir.path(),
        &["--open-client-registration", "true", LENIENT[0], LENIENT[1]],
    );
    self_registered(&s);
}

/// The same on a fresh table in `kms-envelope` mode: the registration endpoint makes the
/// sealing key itself (no operator command ran before), and a second server on the table opens
/// the secret it sealed.
#[test]
fn a_self_registered_client_uses_client_secret_jwt_with_kms_envelope() {
    let op = Operator::on_emulator("kms-envelope");
    let mut flags = op.flag_strs();
    flags.extend_from_slice(&["--open-client-registration", "true"]);
    flags.extend_from_slice(LENIENT);
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &flags);
    let (id, secret) = self_registered(&s);
    let dir2 = tempfile::tempdir().unwrap();
    let s2 = TestServer::start(dir2.path(), &flags);
    let r = cc(
        &s2,
        &hs(
            "HS256",
            hmac::HMAC_SHA256,
            &secret,
            &claims(&id, &s2.issuer),
        ),
    );
    assert_eq!(r.status, 200, "{}", r.text());
}

/// Registers a client_secret_jwt client at `s` and checks it: its id and secret.
fn self_registered(s: &TestServer) -> (String, String) {
    let body = json!({
        "redirect_uris": ["https://rp.example/cb"],
        "grant_types": ["authorization_code", "client_credentials"],
        "token_endpoint_auth_method": "client_secret_jwt",
        "token_endpoint_auth_signing_alg": "HS256",
    });
    let r = request(
        "POST",
        &s.url("/realms/scanid/clients-registrations/openid-connect"),
        &[("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let reg = r.json();
    assert_eq!(reg["token_endpoint_auth_method"], "client_secret_jwt");
    assert_eq!(reg["token_endpoint_auth_signing_alg"], "HS256");
    let id = reg["client_id"].as_str().unwrap();
    let secret = reg["client_secret"].as_str().unwrap();
    let r = cc(
        s,
        &hs("HS256", hmac::HMAC_SHA256, secret, &claims(id, &s.issuer)),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let other_alg = hs("HS512", hmac::HMAC_SHA512, secret, &claims(id, &s.issuer));
    refused(&cc(s, &other_alg), "not its registered alg");
    let basic = post_form(
        &s.oidc("token"),
        Some((id, secret)),
        &[("grant_type", "client_credentials")],
    );
    refused(&basic, "the secret by HTTP Basic");
    // An HMAC algorithm for private_key_jwt, or a public client_secret_jwt client: refused.
    let bad = json!({"redirect_uris": ["https://rp.example/cb"],
        "token_endpoint_auth_method": "client_secret_jwt", "token_endpoint_auth_signing_alg": "RS256"});
    let r = request(
        "POST",
        &s.url("/realms/scanid/clients-registrations/openid-connect"),
        &[("Content-Type", "application/json")],
        bad.to_string().as_bytes(),
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_client_metadata");
    (id.to_owned(), secret.to_owned())
}

/// python-keycloak's KeycloakAdmin makes a `client-secret-jwt` client with a secret it chose;
/// requests-oauth2client authenticates with it; a regenerated secret replaces it.
#[test]
fn python_keycloak_makes_a_client_secret_jwt_client() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), LENIENT);
    let op = Operator::local(dir.path());
    let admin_secret = op.service_account("pipeline", &["manage-clients"]);
    let out = py(&[
        "keycloak",
        s.base.as_str(),
        "scanid",
        "pipeline",
        &admin_secret,
        &s.oidc("token"),
    ]);
    assert_eq!(out["ok"], true);
}
