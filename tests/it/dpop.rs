//! DPoP (RFC 9449) against the real `scanid serve`, from outside, over raw HTTP: a public
//! client's code (bound by `dpop_jkt`) redeemed with a proof gives a DPoP-bound access token
//! (`token_type: DPoP`, `cnf.jkt` the key's thumbprint) and a refresh token bound to the key;
//! userinfo takes it in the `DPoP` scheme with a proof by that key. Refused, each with the
//! RFC's error: a replayed proof, one for another URL or method, one 2 minutes old, one by
//! another key than the token's, a bearer use of a DPoP token, a proof without `ath`, a code
//! bound to another key, a refresh without the key, a missing or stale server nonce. The replay
//! cache holds on SQLite and on DynamoDB (moto).

use aws_lc_rs::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use scanid_tests::{
    auth_url, code_of, create_client, get, login, post_form, post_form_with, request, secret_of,
    Browser, Resp, TestApp, TestServer, CB, DISCOVERY, PKCE_CHALLENGE, PKCE_VERIFIER,
};
use serde_json::{json, Value};

use crate::client_keys::LENIENT;

/// A client's DPoP key (P-256).
pub(crate) struct DpopKey(EcdsaKeyPair);

impl DpopKey {
    pub(crate) fn new() -> Self {
        Self(EcdsaKeyPair::generate(&ECDSA_P256_SHA256_FIXED_SIGNING).unwrap())
    }

    pub(crate) fn jwk(&self) -> Value {
        let p = self.0.public_key().as_ref();
        json!({"kty": "EC", "crv": "P-256", "x": B64.encode(&p[1..33]), "y": B64.encode(&p[33..])})
    }

    /// The JWK SHA-256 thumbprint (RFC 7638), computed here on its own.
    pub(crate) fn jkt(&self) -> String {
        let j = self.jwk();
        let canonical = format!(
            r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
            j["x"].as_str().unwrap(),
            j["y"].as_str().unwrap()
        );
        B64.encode(aws_lc_rs::digest::digest(
            &aws_lc_rs::digest::SHA256,
            canonical.as_bytes(),
        ))
    }

    /// A proof with `claims` (over fresh defaults) and the header `typ`.
    pub(crate) fn sign(&self, typ: &str, claims: &Value) -> String {
        self.sign_with_header(
            &json!({"alg": "ES256", "typ": typ, "jwk": self.jwk()}),
            claims,
        )
    }

    /// A JWS over `claims` with `header` as given, signed by this key (ES256).
    pub(crate) fn sign_with_header(&self, header: &Value, claims: &Value) -> String {
        let input = format!(
            "{}.{}",
            B64.encode(header.to_string()),
            B64.encode(claims.to_string())
        );
        let sig = self
            .0
            .sign(&aws_lc_rs::rand::SystemRandom::new(), input.as_bytes())
            .unwrap();
        format!("{input}.{}", B64.encode(sig.as_ref()))
    }

    /// A fresh proof for `htm` `htu`, with `extra` claims over the defaults.
    pub(crate) fn proof(&self, htm: &str, htu: &str, extra: &[(&str, Value)]) -> String {
        let mut c = json!({"jti": TestApp::jti(), "htm": htm, "htu": htu, "iat": TestApp::now()});
        for (k, v) in extra {
            c[*k] = v.clone();
        }
        self.sign("dpop+jwt", &c)
    }
}

fn ath(token: &str) -> Value {
    json!(B64.encode(aws_lc_rs::digest::digest(
        &aws_lc_rs::digest::SHA256,
        token.as_bytes()
    )))
}

/// A token request with `proof` in the DPoP header.
fn token_with(s: &TestServer, proof: Option<&str>, pairs: &[(&str, &str)]) -> Resp {
    let headers: Vec<(&str, &str)> = proof.map(|p| ("DPoP", p)).into_iter().collect();
    post_form_with(&s.oidc("token"), &headers, None, pairs)
}

fn refused(r: &Resp, status: u16, error: &str, what: &str) {
    assert_eq!(r.status, status, "{what}: {}", r.text());
    assert_eq!(r.json()["error"], error, "{what}: {}", r.text());
}

/// `spa`'s code from a QR login whose authorization request named `dpop_jkt`.
fn code_bound_to(s: &TestServer, jkt: &str) -> String {
    let app = TestApp::enroll(
        s,
        &format!("d{}", &uuid::Uuid::new_v4().simple().to_string()[..8]),
    );
    let url = auth_url(
        s,
        &[
            ("client_id", "spa"),
            ("response_type", "code"),
            ("scope", "openid profile"),
            ("redirect_uri", CB),
            ("state", "st"),
            ("nonce", "n"),
            ("code_challenge", PKCE_CHALLENGE),
            ("code_challenge_method", "S256"),
            ("dpop_jkt", jkt),
        ],
    );
    code_of(&login(&mut Browser::new(), s, &app, &url))
}

fn redeem(s: &TestServer, proof: Option<&str>, code: &str) -> Resp {
    token_with(
        s,
        proof,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", "spa"),
            ("code", code),
            ("redirect_uri", CB),
            ("code_verifier", PKCE_VERIFIER),
        ],
    )
}

fn userinfo(s: &TestServer, scheme: &str, token: &str, proof: Option<&str>) -> Resp {
    let auth = format!("{scheme} {token}");
    let mut headers = vec![("Authorization", auth.as_str())];
    if let Some(p) = proof {
        headers.push(("DPoP", p));
    }
    request("GET", &s.oidc("userinfo"), &headers, b"")
}

fn dpop_challenge(r: &Resp, error: &str, what: &str) {
    assert_eq!(r.status, 401, "{what}: {}", r.text());
    let c = r.header("www-authenticate").unwrap_or_default();
    assert!(
        c.starts_with("DPoP ") && c.contains(&format!("error=\"{error}\"")) && c.contains("algs="),
        "{what}: {c}"
    );
}

#[test]
fn a_dpop_bound_login_refreshes_and_calls_userinfo_and_every_misused_proof_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    create_client(
        dir.path().to_str().unwrap(),
        &[
            "--name",
            "Spa",
            "--client-id",
            "spa",
            "--public",
            "--redirect-uri",
            CB,
        ],
    );
    let s = TestServer::start(dir.path(), LENIENT);
    let d = get(&s.url(DISCOVERY)).json();
    assert_eq!(
        d["dpop_signing_alg_values_supported"],
        json!(["ES256", "PS256", "RS256", "EdDSA"])
    );
    let (key, other) = (DpopKey::new(), DpopKey::new());
    let token_url = s.oidc("token");

    // A code bound to another key than the proof's: invalid_grant.
    let code = code_bound_to(&s, &other.jkt());
    let r = redeem(&s, Some(&key.proof("POST", &token_url, &[])), &code);
    refused(&r, 400, "invalid_grant", "a code bound to another key");

    // Bound to this key: redeemed without a proof, refused; with a bad proof, refused; with
    // a good one, a DPoP-bound token.
    let code = code_bound_to(&s, &key.jkt());
    refused(
        &redeem(&s, None, &code),
        400,
        "invalid_grant",
        "no proof for a bound code",
    );
    let userinfo_url = s.oidc("userinfo");
    let old = TestApp::now() - 120;
    for (what, proof) in [
        ("another URL", key.proof("POST", &userinfo_url, &[])),
        ("another method", key.proof("GET", &token_url, &[])),
        (
            "2 minutes old",
            key.proof("POST", &token_url, &[("iat", json!(old))]),
        ),
        (
            "from the future",
            key.proof("POST", &token_url, &[("iat", json!(old + 240))]),
        ),
        (
            "typ JWT",
            key.sign(
                "JWT",
                &json!({"jti": "x", "htm": "POST", "htu": token_url, "iat": TestApp::now()}),
            ),
        ),
        ("not a JWT", "abc".to_owned()),
    ] {
        refused(
            &redeem(&s, Some(&proof), &code),
            400,
            "invalid_dpop_proof",
            what,
        );
    }
    let proof = key.proof("POST", &format!("{token_url}?ignored=1"), &[]);
    let r = redeem(&s, Some(&proof), &code);
    assert_eq!(r.status, 200, "{}", r.text());
    let t = r.json();
    assert_eq!(t["token_type"], "DPoP");
    let at = t["access_token"].as_str().unwrap().to_owned();
    let rt = t["refresh_token"].as_str().unwrap().to_owned();
    assert_eq!(scanid_tests::jwt_claims(&at)["cnf"]["jkt"], key.jkt());

    // The same proof again: a replay.
    let again = token_with(
        &s,
        Some(&proof),
        &[
            ("grant_type", "refresh_token"),
            ("client_id", "spa"),
            ("refresh_token", &rt),
        ],
    );
    refused(&again, 400, "invalid_dpop_proof", "a replayed proof");
    assert!(again.json()["error_description"]
        .as_str()
        .unwrap()
        .contains("used already"));

    // The public client's refresh token is bound to the key.
    let refresh = |p: Option<&str>| {
        token_with(
            &s,
            p,
            &[
                ("grant_type", "refresh_token"),
                ("client_id", "spa"),
                ("refresh_token", &rt),
            ],
        )
    };
    refused(
        &refresh(None),
        400,
        "invalid_grant",
        "a bound refresh token without a proof",
    );
    let by_other = other.proof("POST", &token_url, &[]);
    refused(
        &refresh(Some(&by_other)),
        400,
        "invalid_grant",
        "a proof by another key",
    );
    let r = refresh(Some(&key.proof("POST", &token_url, &[])));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["token_type"], "DPoP");
    let at = r.json()["access_token"].as_str().unwrap().to_owned();

    // Userinfo: the DPoP scheme (any case), a proof by the token's key with its hash.
    let good = |k: &DpopKey| k.proof("GET", &userinfo_url, &[("ath", ath(&at))]);
    let r = userinfo(&s, "dpop", &at, Some(&good(&key)));
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.json()["sub"].is_string());
    dpop_challenge(
        &userinfo(&s, "Bearer", &at, None),
        "invalid_token",
        "a bearer use",
    );
    dpop_challenge(
        &userinfo(&s, "DPoP", &at, None),
        "invalid_dpop_proof",
        "no proof",
    );
    let no_ath = key.proof("GET", &userinfo_url, &[]);
    dpop_challenge(
        &userinfo(&s, "DPoP", &at, Some(&no_ath)),
        "invalid_dpop_proof",
        "no ath",
    );
    let wrong_ath = key.proof("GET", &userinfo_url, &[("ath", ath("another token"))]);
    dpop_challenge(
        &userinfo(&s, "DPoP", &at, Some(&wrong_ath)),
        "invalid_dpop_proof",
        "ath",
    );
    dpop_challenge(
        &userinfo(&s, "DPoP", &at, Some(&good(&other))),
        "invalid_token",
        "another key",
    );
    let once = good(&key);
    assert_eq!(userinfo(&s, "DPoP", &at, Some(&once)).status, 200);
    dpop_challenge(
        &userinfo(&s, "DPoP", &at, Some(&once)),
        "invalid_dpop_proof",
        "replayed",
    );
    let post = key.proof("POST", &userinfo_url, &[("ath", ath(&at))]);
    dpop_challenge(
        &userinfo(&s, "DPoP", &at, Some(&post)),
        "invalid_dpop_proof",
        "method",
    );
}

/// `bank`: confidential, client credentials, DPoP required at the token endpoint.
fn bank(dir: &std::path::Path, extra: &[&str]) -> String {
    let mut args = vec![
        "--name",
        "Bank",
        "--client-id",
        "bank",
        "--client-credentials",
        "--dpop-bound-access-tokens",
    ];
    args.extend_from_slice(extra);
    secret_of(&create_client(dir.to_str().unwrap(), &args))
}

fn cc(s: &TestServer, secret: &str, proof: Option<&str>) -> Resp {
    let headers: Vec<(&str, &str)> = proof.map(|p| ("DPoP", p)).into_iter().collect();
    post_form_with(
        &s.oidc("token"),
        &headers,
        Some(("bank", secret)),
        &[("grant_type", "client_credentials")],
    )
}

#[test]
fn a_client_with_dpop_bound_access_tokens_needs_a_proof_and_introspection_shows_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let secret = bank(dir.path(), &[]);
    let s = TestServer::start(dir.path(), LENIENT);
    let key = DpopKey::new();
    refused(
        &cc(&s, &secret, None),
        400,
        "invalid_dpop_proof",
        "no proof",
    );
    let r = cc(&s, &secret, Some(&key.proof("POST", &s.oidc("token"), &[])));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["token_type"], "DPoP");
    let at = r.json()["access_token"].as_str().unwrap().to_owned();
    let i = post_form(
        &s.oidc("token/introspect"),
        Some(("bank", &secret)),
        &[("token", &at)],
    );
    assert_eq!(i.json()["active"], true, "{}", i.text());
    assert_eq!(i.json()["token_type"], "DPoP");
    assert_eq!(i.json()["cnf"]["jkt"], key.jkt());
    // A proof at introspection is checked when one comes: one for another URL is refused.
    let bad = key.proof("POST", &s.oidc("token"), &[]);
    let r = post_form_with(
        &s.oidc("token/introspect"),
        &[("DPoP", &bad)],
        Some(("bank", &secret)),
        &[("token", &at)],
    );
    refused(
        &r,
        400,
        "invalid_dpop_proof",
        "a proof for another URL at introspection",
    );
    // The operator turns the requirement off.
    s.stop();
    let updated = scanid_tests::scanid_json(&[
        "client",
        "update",
        "--data-dir",
        dir.path().to_str().unwrap(),
        "--client-id",
        "bank",
        "--dpop-bound-access-tokens",
        "false",
    ]);
    assert_eq!(updated["dpop_bound_access_tokens"], false, "{updated}");
    let s = TestServer::start(dir.path(), LENIENT);
    let r = cc(&s, &secret, None);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["token_type"], "Bearer");
}

const NONCE_SECRET: &str = "dpop-nonce-secret-of-at-least-32-characters";

#[test]
fn with_a_nonce_secret_the_token_and_par_endpoints_want_a_fresh_server_nonce() {
    use scanid_core::clock::Timestamp;
    use scanid_core::domain::dpop;
    let dir = tempfile::tempdir().unwrap();
    let secret = bank(dir.path(), &[]);
    create_client(
        dir.path().to_str().unwrap(),
        &[
            "--name",
            "Spa",
            "--client-id",
            "spa",
            "--public",
            "--redirect-uri",
            CB,
        ],
    );
    let mut flags = LENIENT.to_vec();
    flags.extend_from_slice(&["--dpop-nonce-secret", NONCE_SECRET]);
    let s = TestServer::start(dir.path(), &flags);
    let key = DpopKey::new();
    let token_url = s.oidc("token");
    let r = cc(&s, &secret, Some(&key.proof("POST", &token_url, &[])));
    refused(&r, 400, "use_dpop_nonce", "no nonce");
    let nonce = r.header("dpop-nonce").expect("a DPoP-Nonce").to_owned();
    let now = Timestamp::from_secs(TestApp::now());
    let secret_bytes = NONCE_SECRET.as_bytes();
    for (what, n) in [
        (
            "from the future",
            dpop::nonce(secret_bytes, now.plus_secs(4 * dpop::NONCE_STEP_SECS)),
        ),
        (
            "expired",
            dpop::nonce(secret_bytes, now.plus_secs(-3 * dpop::NONCE_STEP_SECS)),
        ),
        (
            "another server's",
            dpop::nonce(b"another secret of 32 characters!!", now),
        ),
    ] {
        let p = key.proof("POST", &token_url, &[("nonce", json!(n))]);
        let r = cc(&s, &secret, Some(&p));
        refused(&r, 400, "use_dpop_nonce", what);
        assert!(r.header("dpop-nonce").is_some(), "{what}");
    }
    let r = cc(
        &s,
        &secret,
        Some(&key.proof("POST", &token_url, &[("nonce", json!(nonce))])),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["token_type"], "DPoP");
    assert!(
        r.header("dpop-nonce").is_some(),
        "the next nonce comes with the answer"
    );
    // PAR: the same, and the proof binds the code (dpop_jkt); a dpop_jkt of another key is refused.
    let par_url = s.oidc("ext/par/request");
    let push = |proof: &str, extra: &[(&str, &str)]| {
        let mut pairs = vec![
            ("client_id", "spa"),
            ("response_type", "code"),
            ("scope", "openid"),
            ("redirect_uri", CB),
            ("code_challenge", PKCE_CHALLENGE),
            ("code_challenge_method", "S256"),
        ];
        pairs.extend_from_slice(extra);
        post_form_with(&par_url, &[("DPoP", proof)], None, &pairs)
    };
    let r = push(&key.proof("POST", &par_url, &[]), &[]);
    refused(&r, 400, "use_dpop_nonce", "no nonce at PAR");
    let nonce = r.header("dpop-nonce").unwrap().to_owned();
    let p = key.proof("POST", &par_url, &[("nonce", json!(nonce.clone()))]);
    let r = push(&p, &[("dpop_jkt", &DpopKey::new().jkt())]);
    refused(
        &r,
        400,
        "invalid_dpop_proof",
        "dpop_jkt of another key at PAR",
    );
    let p = key.proof("POST", &par_url, &[("nonce", json!(nonce))]);
    let r = push(&p, &[]);
    assert_eq!(r.status, 201, "{}", r.text());
}

#[test]
fn a_dpop_proof_is_accepted_once_on_dynamodb() {
    let aws = crate::aws::Aws::init("kms");
    let dir = tempfile::tempdir().unwrap();
    let created = aws.cli(&[
        "client",
        "create",
        "--name",
        "Bank",
        "--client-id",
        "bank",
        "--client-credentials",
        "--dpop-bound-access-tokens",
    ]);
    let secret = secret_of(&created);
    let mut flags = aws.flags();
    flags.extend_from_slice(LENIENT);
    let s = TestServer::start(dir.path(), &flags);
    let key = DpopKey::new();
    let proof = key.proof("POST", &s.oidc("token"), &[]);
    let answers = scanid_tests::race(8, |_| cc(&s, &secret, Some(&proof)));
    let ok: Vec<&Resp> = answers.iter().filter(|r| r.status == 200).collect();
    assert_eq!(ok.len(), 1, "one of 8 uses of one proof");
    assert_eq!(ok[0].json()["token_type"], "DPoP");
    for r in answers.iter().filter(|r| r.status != 200) {
        refused(r, 400, "invalid_dpop_proof", "a replay on DynamoDB");
    }
}

#[test]
fn registration_and_the_admin_api_set_dpop_bound_access_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let robot = secret_of(&create_client(
        dir.path().to_str().unwrap(),
        &[
            "--name",
            "Robot",
            "--client-id",
            "robot",
            "--client-credentials",
            "--admin-role",
            "manage-clients",
        ],
    ));
    let mut flags = LENIENT.to_vec();
    flags.extend_from_slice(&["--open-client-registration", "true"]);
    let s = TestServer::start(dir.path(), &flags);
    // RFC 7591 with RFC 9449 §5.2's metadata.
    let body = json!({
        "redirect_uris": [CB],
        "grant_types": ["authorization_code", "client_credentials"],
        "dpop_bound_access_tokens": true,
    });
    let r = request(
        "POST",
        &format!("{}/clients-registrations/openid-connect", s.issuer),
        &[("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let reg = r.json();
    assert_eq!(reg["dpop_bound_access_tokens"], true, "{reg}");
    let (id, secret) = (
        reg["client_id"].as_str().unwrap().to_owned(),
        reg["client_secret"].as_str().unwrap().to_owned(),
    );
    let cc = |proof: Option<&str>| {
        let headers: Vec<(&str, &str)> = proof.map(|p| ("DPoP", p)).into_iter().collect();
        post_form_with(
            &s.oidc("token"),
            &headers,
            Some((&id, &secret)),
            &[("grant_type", "client_credentials")],
        )
    };
    refused(
        &cc(None),
        400,
        "invalid_dpop_proof",
        "a registered DPoP-bound client",
    );
    let key = DpopKey::new();
    let r = cc(Some(&key.proof("POST", &s.oidc("token"), &[])));
    assert_eq!(r.json()["token_type"], "DPoP", "{}", r.text());
    // The admin API: Keycloak's attribute.
    let t = post_form(
        &s.oidc("token"),
        Some(("robot", &robot)),
        &[("grant_type", "client_credentials")],
    );
    let bearer = format!("Bearer {}", t.json()["access_token"].as_str().unwrap());
    let clients = s.url("/admin/realms/scanid/clients");
    let h = [
        ("Authorization", bearer.as_str()),
        ("Content-Type", "application/json"),
    ];
    let rep = |value: &str| {
        json!({"clientId": "api", "serviceAccountsEnabled": true, "standardFlowEnabled": false,
            "attributes": {"dpop.bound.access.tokens": value}})
        .to_string()
    };
    let bad = request("POST", &clients, &h, rep("yes").as_bytes());
    assert_eq!(bad.status, 400, "{}", bad.text());
    let created = request("POST", &clients, &h, rep("true").as_bytes());
    assert_eq!(created.status, 201, "{}", created.text());
    let shown = request("GET", &format!("{clients}/api"), &h[..1], b"").json();
    assert_eq!(
        shown["attributes"]["dpop.bound.access.tokens"], "true",
        "{shown}"
    );
}

#[test]
fn a_device_polls_with_a_proof_and_gets_tokens_bound_to_its_key() {
    use crate::device_grant::{app_approve, enroll, start, DEVICE_GRANT};
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), LENIENT);
    create_client(
        dir.path().to_str().unwrap(),
        &[
            "--name",
            "TV",
            "--client-id",
            "tv",
            "--public",
            "--grant",
            "device_code",
        ],
    );
    let d = start(&s, ("tv", None), "openid offline_access").json();
    let key = enroll(&s, dir.path(), "dora");
    let complete = d["verification_uri_complete"].as_str().unwrap();
    assert_eq!(app_approve(&s, &key, complete, false)["status"], "approved");
    let dpop = DpopKey::new();
    let token_url = s.oidc("token");
    let device_code = d["device_code"].as_str().unwrap();
    let pairs = [
        ("grant_type", DEVICE_GRANT),
        ("client_id", "tv"),
        ("device_code", device_code),
    ];
    let r = token_with(&s, Some(&dpop.proof("POST", &token_url, &[])), &pairs);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["token_type"], "DPoP");
    let at = r.json()["access_token"].as_str().unwrap().to_owned();
    assert_eq!(scanid_tests::jwt_claims(&at)["cnf"]["jkt"], dpop.jkt());
    // The public client's refresh token is bound to the key too.
    let rt = r.json()["refresh_token"].as_str().unwrap().to_owned();
    let refresh = [
        ("grant_type", "refresh_token"),
        ("client_id", "tv"),
        ("refresh_token", &rt),
    ];
    refused(
        &token_with(&s, None, &refresh),
        400,
        "invalid_grant",
        "unbound refresh",
    );
    let r = token_with(&s, Some(&dpop.proof("POST", &token_url, &[])), &refresh);
    assert_eq!(r.json()["token_type"], "DPoP", "{}", r.text());
}

#[test]
fn a_dpop_bound_token_is_not_exchanged_by_an_agent() {
    let dir = tempfile::tempdir().unwrap();
    let secret = bank(dir.path(), &[]);
    let agent = secret_of(&create_client(
        dir.path().to_str().unwrap(),
        &[
            "--name",
            "Agent",
            "--client-id",
            "agent",
            "--redirect-uri",
            CB,
            "--grant",
            "token_exchange",
        ],
    ));
    let s = TestServer::start(dir.path(), LENIENT);
    let key = DpopKey::new();
    let r = cc(&s, &secret, Some(&key.proof("POST", &s.oidc("token"), &[])));
    let bound = r.json()["access_token"].as_str().unwrap().to_owned();
    let r = post_form(
        &s.oidc("token"),
        Some(("agent", &agent)),
        &[
            (
                "grant_type",
                "urn:ietf:params:oauth:grant-type:token-exchange",
            ),
            ("subject_token", &bound),
            (
                "subject_token_type",
                "urn:ietf:params:oauth:token-type:access_token",
            ),
        ],
    );
    refused(&r, 400, "invalid_request", "a DPoP-bound subject token");
    assert!(
        r.json()["error_description"]
            .as_str()
            .unwrap()
            .contains("DPoP-bound"),
        "{}",
        r.text()
    );
}
