//! Client authentication by keys (`private_key_jwt`, RFC 7523 §2.2) against the real
//! `scanid serve`, from outside: clients registered with `scanid client create --jwks FILE`,
//! `--jwks-uri URL` and by dynamic registration (RFC 7591) get tokens with a signed client
//! assertion; a replayed, expired, too-long-lived, misaddressed or forged assertion, or one
//! whose key the client never published, is `invalid_client` (401). The single use of an
//! assertion holds on SQLite and on DynamoDB (moto).

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};

use aws_lc_rs::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use scanid_tests::{create_client, get, post_form, request, Resp, TestApp, TestServer, DISCOVERY};
use serde_json::{json, Value};

/// Many refusals from one address in a minute: not rate-limited here (the limit has tests of
/// its own).
pub(crate) const LENIENT: &[&str] = &["--auth-failure-rate-per-minute", "1000"];

pub(crate) const JWT_BEARER: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// A client's P-256 key and its public JWK (with `kid`).
pub(crate) struct Key {
    pair: EcdsaKeyPair,
    kid: String,
}

impl Key {
    pub(crate) fn new(kid: &str) -> Self {
        Self {
            pair: EcdsaKeyPair::generate(&ECDSA_P256_SHA256_FIXED_SIGNING).unwrap(),
            kid: kid.to_owned(),
        }
    }

    pub(crate) fn jwk(&self) -> Value {
        let point = self.pair.public_key().as_ref();
        json!({"kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": self.kid,
            "x": URL_SAFE_NO_PAD.encode(&point[1..33]), "y": URL_SAFE_NO_PAD.encode(&point[33..])})
    }

    /// A compact JWS (ES256) over `claims`, with this key's `kid`.
    pub(crate) fn sign(&self, claims: &Value) -> String {
        let header = json!({"alg": "ES256", "typ": "JWT", "kid": self.kid});
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let sig = self
            .pair
            .sign(&aws_lc_rs::rand::SystemRandom::new(), input.as_bytes())
            .unwrap();
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig.as_ref()))
    }

    /// A fresh assertion of `client` for `aud`.
    pub(crate) fn assertion(&self, client: &str, aud: Value) -> String {
        self.sign(&claims(client, aud))
    }
}

fn claims(client: &str, aud: Value) -> Value {
    let now = TestApp::now();
    json!({"iss": client, "sub": client, "aud": aud, "iat": now, "exp": now + 60,
        "jti": TestApp::jti()})
}

pub(crate) fn jwks_file(dir: &std::path::Path, keys: &[&Key]) -> String {
    let path = dir.join(format!("jwks-{}.json", uuid::Uuid::new_v4().simple()));
    let set = json!({ "keys": keys.iter().map(|k| k.jwk()).collect::<Vec<_>>() });
    std::fs::write(&path, set.to_string()).unwrap();
    path.to_string_lossy().into_owned()
}

/// A token request by client credentials, authenticated by `assertion` (no `client_id`, as
/// RFC 7523 allows: the assertion names the client).
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

/// Registers `bank` (client credentials, keys from `jwks`) through `cli`.
fn bank_args(jwks: &str) -> Vec<String> {
    [
        "--name",
        "Bank",
        "--client-id",
        "bank",
        "--client-credentials",
        "--jwks",
        jwks,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn private_key_jwt_gets_tokens_and_every_bad_assertion_is_invalid_client() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let key = Key::new("k1");
    let created = create_client(
        data,
        &[
            "--name",
            "Bank",
            "--client-id",
            "bank",
            "--client-credentials",
            "--jwks",
            &jwks_file(dir.path(), &[&key]),
        ],
    );
    assert!(
        created.get("client_secret").is_none(),
        "no secret: {created}"
    );
    let s = TestServer::start(dir.path(), LENIENT);

    let d = get(&s.url(DISCOVERY)).json();
    let methods = d["token_endpoint_auth_methods_supported"].to_string();
    assert!(
        methods.contains("\"private_key_jwt\"") && methods.contains("\"client_secret_jwt\""),
        "{methods}"
    );
    for alg in ["ES256", "PS256", "RS256", "EdDSA"] {
        assert!(d["token_endpoint_auth_signing_alg_values_supported"]
            .to_string()
            .contains(alg));
    }

    let issuer = json!(s.issuer);
    let ok = cc(&s, &key.assertion("bank", issuer.clone()));
    assert_eq!(ok.status, 200, "{}", ok.text());
    let token = ok.json()["access_token"].as_str().unwrap().to_owned();
    // aud: the token endpoint's URL (OIDC Core §9), a list holding the issuer; client_id
    // given too.
    assert_eq!(
        cc(&s, &key.assertion("bank", json!(s.oidc("token")))).status,
        200
    );
    assert_eq!(
        cc(
            &s,
            &key.assertion("bank", json!(["https://x.example", s.issuer]))
        )
        .status,
        200
    );
    let with_id = post_form(
        &s.oidc("token"),
        None,
        &[
            ("grant_type", "client_credentials"),
            ("client_id", "bank"),
            ("client_assertion_type", JWT_BEARER),
            ("client_assertion", &key.assertion("bank", issuer.clone())),
        ],
    );
    assert_eq!(with_id.status, 200, "{}", with_id.text());

    // Introspection authenticates the same way.
    let intro = post_form(
        &s.oidc("introspect"),
        None,
        &[
            ("token", &token),
            ("client_assertion_type", JWT_BEARER),
            ("client_assertion", &key.assertion("bank", issuer.clone())),
        ],
    );
    assert_eq!(intro.status, 200, "{}", intro.text());
    assert_eq!(intro.json()["active"], true);

    // Replayed.
    let once = key.assertion("bank", issuer.clone());
    assert_eq!(cc(&s, &once).status, 200);
    refused(&cc(&s, &once), "a replayed assertion");
    // Expired, too long-lived, not yet valid, no jti, no exp.
    let now = TestApp::now();
    for (name, patch) in [
        ("expired", json!({"exp": now - 1})),
        ("exp 10 minutes ahead", json!({"exp": now + 600})),
        ("iat a minute ahead", json!({"iat": now + 60})),
        ("no jti", json!({"jti": null})),
        ("no exp", json!({"exp": null})),
        ("another iss", json!({"iss": "other"})),
        ("another sub", json!({"sub": "other"})),
        ("another aud", json!({"aud": "https://evil.example"})),
        (
            "the introspection endpoint as aud",
            json!({"aud": s.oidc("introspect")}),
        ),
    ] {
        let mut c = claims("bank", issuer.clone());
        for (k, v) in patch.as_object().unwrap() {
            if v.is_null() {
                c.as_object_mut().unwrap().remove(k);
            } else {
                c[k] = v.clone();
            }
        }
        refused(&cc(&s, &key.sign(&c)), name);
    }
    // Signed by another key under the client's kid; a kid the client never published.
    refused(
        &cc(&s, &Key::new("k1").assertion("bank", issuer.clone())),
        "another key",
    );
    refused(
        &cc(&s, &Key::new("k9").assertion("bank", issuer.clone())),
        "an unknown kid",
    );
    // alg none, and the wrong assertion type.
    let none = format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(r#"{"alg":"none","kid":"k1"}"#),
        URL_SAFE_NO_PAD.encode(claims("bank", issuer.clone()).to_string())
    );
    refused(&cc(&s, &none), "alg none");
    let wrong_type = post_form(
        &s.oidc("token"),
        None,
        &[
            ("grant_type", "client_credentials"),
            ("client_assertion_type", "urn:other"),
            ("client_assertion", &key.assertion("bank", issuer.clone())),
        ],
    );
    refused(&wrong_type, "another assertion type");
    // A client with keys has no secret to send, and client_id may not contradict iss.
    refused(
        &post_form(
            &s.oidc("token"),
            Some(("bank", "guess")),
            &[("grant_type", "client_credentials")],
        ),
        "a secret for a keyed client",
    );
    let mismatch = post_form(
        &s.oidc("token"),
        None,
        &[
            ("grant_type", "client_credentials"),
            ("client_id", "other"),
            ("client_assertion_type", JWT_BEARER),
            ("client_assertion", &key.assertion("bank", issuer.clone())),
        ],
    );
    refused(&mismatch, "client_id other than iss");
}

/// Serves a JWK Set that the test may replace, on 127.0.0.1; counts the GETs.
pub(crate) fn jwks_server(initial: Value) -> (String, Arc<Mutex<(Value, u32)>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/jwks", listener.local_addr().unwrap());
    let state = Arc::new(Mutex::new((initial, 0)));
    let shared = state.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let body = {
                let mut s = shared.lock().unwrap();
                s.1 += 1;
                s.0.to_string()
            };
            let _ = stream.write_all(
                format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                )
                .as_bytes(),
            );
        }
    });
    (url, state)
}

#[test]
fn a_jwks_uri_is_cached_and_fetched_again_for_an_unknown_kid() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let (a, b) = (Key::new("a"), Key::new("b"));
    let (url, state) = jwks_server(json!({ "keys": [a.jwk()] }));
    create_client(
        data,
        &[
            "--name",
            "Bank",
            "--client-id",
            "bank",
            "--client-credentials",
            "--jwks-uri",
            &url,
        ],
    );
    let s = TestServer::start(dir.path(), LENIENT);
    let issuer = json!(s.issuer);
    assert_eq!(cc(&s, &a.assertion("bank", issuer.clone())).status, 200);
    assert_eq!(cc(&s, &a.assertion("bank", issuer.clone())).status, 200);
    assert_eq!(state.lock().unwrap().1, 1, "fetched once, then cached");
    // The client rotates to key b: the unknown kid makes the server fetch the set again.
    state.lock().unwrap().0 = json!({ "keys": [b.jwk()] });
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let rotated = cc(&s, &b.assertion("bank", issuer.clone()));
    assert_eq!(rotated.status, 200, "{}", rotated.text());
    assert_eq!(state.lock().unwrap().1, 2);
    // A kid in no set: fetched again at most once a second, then refused.
    refused(
        &cc(&s, &Key::new("c").assertion("bank", issuer.clone())),
        "a kid nowhere",
    );
    refused(
        &cc(&s, &Key::new("c").assertion("bank", issuer.clone())),
        "a kid nowhere",
    );
    assert!(state.lock().unwrap().1 <= 3, "no fetch per request");
    refused(&cc(&s, &a.assertion("bank", issuer)), "the retired key a");
}

#[test]
fn a_self_registered_client_registers_its_keys() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(
        dir.path(),
        &["--open-client-registration", "true", LENIENT[0], LENIENT[1]],
    );
    let key = Key::new("r1");
    let body = json!({
        "redirect_uris": ["https://bank.example/cb"],
        "grant_types": ["authorization_code", "client_credentials"],
        "token_endpoint_auth_method": "private_key_jwt",
        "token_endpoint_auth_signing_alg": "ES256",
        "jwks": { "keys": [key.jwk()] },
        "require_pushed_authorization_requests": true,
    });
    let r = request(
        "POST",
        &s.url("/realms/scanid/clients-registrations/openid-connect"),
        &[("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let info = r.json();
    assert_eq!(info["token_endpoint_auth_method"], "private_key_jwt");
    assert!(info.get("client_secret").is_none(), "{info}");
    assert!(
        info.get("client_secret_expires_at").is_none(),
        "no secret: {info}"
    );
    assert_eq!(info["jwks"]["keys"][0]["kid"], "r1");
    assert_eq!(info["require_pushed_authorization_requests"], true);
    let id = info["client_id"].as_str().unwrap();
    let ok = cc(&s, &key.assertion(id, json!(s.issuer)));
    assert_eq!(ok.status, 200, "{}", ok.text());
    // Keys with a private member, or private_key_jwt without keys: invalid_client_metadata.
    for bad in [
        json!({"redirect_uris": ["https://bank.example/cb"], "token_endpoint_auth_method": "private_key_jwt"}),
        json!({"redirect_uris": ["https://bank.example/cb"], "token_endpoint_auth_method": "private_key_jwt",
            "jwks": {"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}}),
        json!({"redirect_uris": ["https://bank.example/cb"], "token_endpoint_auth_method": "private_key_jwt",
            "jwks_uri": "http://bank.example/jwks"}),
    ] {
        let r = request(
            "POST",
            &s.url("/realms/scanid/clients-registrations/openid-connect"),
            &[("Content-Type", "application/json")],
            bad.to_string().as_bytes(),
        );
        assert_eq!(r.status, 400, "{bad}: {}", r.text());
        assert_eq!(r.json()["error"], "invalid_client_metadata", "{bad}");
    }
}

#[test]
fn an_assertion_is_accepted_once_on_dynamodb() {
    let aws = crate::aws::Aws::init("kms");
    let dir = tempfile::tempdir().unwrap();
    let key = Key::new("d1");
    let jwks = jwks_file(dir.path(), &[&key]);
    let mut args: Vec<String> = vec!["client".into(), "create".into()];
    args.extend(bank_args(&jwks));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    aws.cli(&args);
    let mut flags = aws.flags();
    flags.extend_from_slice(LENIENT);
    let s = TestServer::start(dir.path(), &flags);
    let once = key.assertion("bank", json!(s.issuer));
    let answers = scanid_tests::race(10, |_| cc(&s, &once).status);
    assert_eq!(
        answers.iter().filter(|st| **st == 200).count(),
        1,
        "one of ten concurrent uses: {answers:?}"
    );
    assert!(
        answers.iter().all(|st| *st == 200 || *st == 401),
        "{answers:?}"
    );
    refused(&cc(&s, &once), "replayed on DynamoDB");
}

#[test]
fn the_admin_api_makes_a_client_jwt_client_and_shows_its_keys() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let admin = create_client(
        data,
        &[
            "--name",
            "Robot",
            "--client-id",
            "robot",
            "--client-credentials",
            "--admin-role",
            "manage-clients",
        ],
    );
    let secret = admin["client_secret"].as_str().unwrap().to_owned();
    let s = TestServer::start(dir.path(), LENIENT);
    let t = post_form(
        &s.oidc("token"),
        Some(("robot", &secret)),
        &[("grant_type", "client_credentials")],
    );
    assert_eq!(t.status, 200, "{}", t.text());
    let bearer = format!("Bearer {}", t.json()["access_token"].as_str().unwrap());
    let clients = s.url("/admin/realms/scanid/clients");
    let key = Key::new("adm");
    let jwks_text = json!({ "keys": [key.jwk()] }).to_string();
    let rep = json!({
        "clientId": "bank", "name": "Bank", "serviceAccountsEnabled": true,
        "standardFlowEnabled": false,
        "clientAuthenticatorType": "client-jwt",
        "attributes": {"use.jwks.string": "true", "jwks.string": jwks_text,
            "token.endpoint.auth.signing.alg": "ES256",
            "require.pushed.authorization.requests": "true"},
    });
    let h = [
        ("Authorization", bearer.as_str()),
        ("Content-Type", "application/json"),
    ];
    let created = request("POST", &clients, &h, rep.to_string().as_bytes());
    assert_eq!(created.status, 201, "{}", created.text());
    let shown = request("GET", &format!("{clients}/bank"), &h[..1], b"").json();
    assert_eq!(shown["clientAuthenticatorType"], "client-jwt");
    assert_eq!(shown["attributes"]["use.jwks.string"], "true");
    assert_eq!(
        shown["attributes"]["token.endpoint.auth.signing.alg"],
        "ES256"
    );
    assert_eq!(
        shown["attributes"]["require.pushed.authorization.requests"],
        "true"
    );
    // The client authenticates by its key.
    let ok = cc(&s, &key.assertion("bank", json!(s.issuer)));
    assert_eq!(ok.status, 200, "{}", ok.text());
    // client-jwt without keys, or with a private key: 400 naming the field.
    for bad in [
        json!({"clientId": "bank2", "clientAuthenticatorType": "client-jwt", "serviceAccountsEnabled": true, "standardFlowEnabled": false}),
        json!({"clientId": "bank3", "clientAuthenticatorType": "client-jwt", "serviceAccountsEnabled": true, "standardFlowEnabled": false,
            "attributes": {"use.jwks.string": "true", "jwks.string": "{\"keys\":[{\"kty\":\"oct\",\"k\":\"AA\"}]}"}}),
        json!({"clientId": "bank4", "clientAuthenticatorType": "client-x509"}),
    ] {
        let r = request("POST", &clients, &h, bad.to_string().as_bytes());
        assert_eq!(r.status, 400, "{bad}: {}", r.text());
        assert!(r.text().contains("clientAuthenticatorType"), "{}", r.text());
    }
    // Back to client-secret: the keys are gone, and the assertion no longer works.
    let back = request(
        "PUT",
        &format!("{clients}/bank"),
        &h,
        json!({"clientAuthenticatorType": "client-secret"})
            .to_string()
            .as_bytes(),
    );
    assert_eq!(back.status, 204, "{}", back.text());
    refused(
        &cc(&s, &key.assertion("bank", json!(s.issuer))),
        "a client-secret client's assertion",
    );
}

/// Signs `claims` as a JWS with `alg` and `kid` by `sign` (the signature's bytes).
fn jws(alg: &str, kid: &str, claims: &Value, sign: impl Fn(&[u8]) -> Vec<u8>) -> String {
    let header = json!({"alg": alg, "typ": "JWT", "kid": kid});
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let sig = sign(input.as_bytes());
    format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig))
}

#[test]
fn ps256_rs256_and_eddsa_assertions_are_accepted_and_held_to_the_registered_alg() {
    use aws_lc_rs::signature::{Ed25519KeyPair, RsaKeyPair, RSA_PKCS1_SHA256, RSA_PSS_SHA256};
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let (rsa_jwk, rsa_der) =
        scanid_core::keys::local::generate(scanid_core::protocol::Alg::RS256).unwrap();
    let rsa = RsaKeyPair::from_pkcs8(&rsa_der).unwrap();
    let ed = Ed25519KeyPair::generate().unwrap();
    let mut rsa_public = serde_json::to_value(&rsa_jwk).unwrap();
    rsa_public["kid"] = json!("rsa");
    rsa_public.as_object_mut().unwrap().remove("alg");
    let ed_public = json!({"kty": "OKP", "crv": "Ed25519", "kid": "ed",
        "x": URL_SAFE_NO_PAD.encode(ed.public_key().as_ref())});
    let path = dir.path().join("jwks.json");
    std::fs::write(&path, json!({"keys": [rsa_public, ed_public]}).to_string()).unwrap();
    let path = path.to_string_lossy().into_owned();
    create_client(
        data,
        &[
            "--name",
            "Any",
            "--client-id",
            "any",
            "--client-credentials",
            "--jwks",
            &path,
        ],
    );
    create_client(
        data,
        &[
            "--name",
            "Ps",
            "--client-id",
            "ps",
            "--client-credentials",
            "--jwks",
            &path,
            "--token-endpoint-auth-alg",
            "PS256",
        ],
    );
    let s = TestServer::start(dir.path(), LENIENT);
    let rng = aws_lc_rs::rand::SystemRandom::new();
    let rsa_sign = |padding: &'static dyn aws_lc_rs::signature::RsaEncoding| {
        let (rsa, rng) = (&rsa, &rng);
        move |input: &[u8]| {
            let mut sig = vec![0; rsa.public_modulus_len()];
            rsa.sign(padding, rng, input, &mut sig).unwrap();
            sig
        }
    };
    for client in ["any", "ps"] {
        let c = || claims(client, json!(s.issuer));
        let ps = cc(&s, &jws("PS256", "rsa", &c(), rsa_sign(&RSA_PSS_SHA256)));
        assert_eq!(ps.status, 200, "{client} PS256: {}", ps.text());
        let rs = cc(&s, &jws("RS256", "rsa", &c(), rsa_sign(&RSA_PKCS1_SHA256)));
        let ed = cc(
            &s,
            &jws("EdDSA", "ed", &c(), |i| ed.sign(i).as_ref().to_vec()),
        );
        if client == "any" {
            assert_eq!(rs.status, 200, "RS256: {}", rs.text());
            assert_eq!(ed.status, 200, "EdDSA: {}", ed.text());
        } else {
            refused(&rs, "RS256 for a PS256 client");
            refused(&ed, "EdDSA for a PS256 client");
        }
        // An algorithm that does not fit the key: refused.
        refused(
            &cc(&s, &jws("ES256", "rsa", &c(), rsa_sign(&RSA_PKCS1_SHA256))),
            "ES256 on an RSA key",
        );
        refused(
            &cc(&s, &jws("HS256", "rsa", &c(), |_| vec![0; 32])),
            "HS256",
        );
    }
}

#[test]
fn client_update_gives_a_secret_client_keys_and_requires_par() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let created = create_client(
        data,
        &[
            "--name",
            "Bank",
            "--client-id",
            "bank",
            "--client-credentials",
        ],
    );
    let secret = created["client_secret"].as_str().unwrap().to_owned();
    let key = Key::new("u1");
    let jwks = jwks_file(dir.path(), &[&key]);
    let updated = scanid_tests::scanid_json(&[
        "client",
        "update",
        "--data-dir",
        data,
        "--client-id",
        "bank",
        "--jwks",
        &jwks,
        "--token-endpoint-auth-alg",
        "ES256",
        "--require-par",
        "true",
    ]);
    assert_eq!(updated["jwks"]["alg"], "ES256", "{updated}");
    assert_eq!(updated["require_pushed_authorization_requests"], true);
    let s = TestServer::start(dir.path(), LENIENT);
    assert_eq!(cc(&s, &key.assertion("bank", json!(s.issuer))).status, 200);
    refused(
        &post_form(
            &s.oidc("token"),
            Some(("bank", &secret)),
            &[("grant_type", "client_credentials")],
        ),
        "the old secret of a client that now has keys",
    );
}
