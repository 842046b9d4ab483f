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

    fn jwk(&self) -> Value {
        let point = self.pair.public_key().as_ref();
        json!({"kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": self.kid,
            "x": URL_SAFE_NO_PAD.encode(&point[1..33]), "y": URL_SAFE_NO_PAD.encode(&point[33..])})
    }

    /// A compact JWS (ES256) over `claims`, with this key's `kid`.
    fn sign(&self, claims: &Value) -> String {
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
        methods.contains("\"private_key_jwt\"") && !methods.contains("client_secret_jwt"),
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
fn jwks_server(initial: Value) -> (String, Arc<Mutex<(Value, u32)>>) {
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
    assert_eq!(info["jwks"]["keys"][0]["kid"], "r1");
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
