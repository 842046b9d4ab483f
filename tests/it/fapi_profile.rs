//! The FAPI 2.0 profile per client (`scanid client create --profile fapi2`, the admin API's
//! `scanid.client.profile`), from outside against the real `scanid serve`: what the profile
//! cannot have is refused when the client is made (public, no keys, RS256 tokens); its
//! authorization request without PAR, a pushed request without PKCE S256 or with `plain`, a
//! client-secret authentication and an RS256 client assertion are each refused with the RFC's
//! error, where a PS256 assertion by the same RSA key is accepted; a pushed login ends with
//! ES256 tokens and a refresh token that does not rotate.

use aws_lc_rs::rsa::KeySize;
use aws_lc_rs::signature::{KeyPair, RsaKeyPair, RSA_PKCS1_SHA256, RSA_PSS_SHA256};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use scanid_tests::{
    auth_url, bearer_call, client_token, code_of, jwt_header, location, login, params_of,
    post_form, post_form_with, scanid, Browser, Resp, TestApp, TestServer, PKCE_CHALLENGE,
    PKCE_VERIFIER,
};
use serde_json::{json, Value};

use crate::client_keys::{jwks_file, Key, JWT_BEARER, LENIENT};

const CB: &str = "https://bank.example/cb";

/// An RSA key of the client's, signing assertions with RS256 or PS256.
struct RsaKey(RsaKeyPair);

impl RsaKey {
    fn jwk(&self) -> Value {
        let p = self.0.public_key();
        let b = |v: &[u8]| URL_SAFE_NO_PAD.encode(v);
        json!({"kty": "RSA", "use": "sig", "kid": "rsa-1",
            "n": b(p.modulus().big_endian_without_leading_zero()),
            "e": b(p.exponent().big_endian_without_leading_zero())})
    }

    fn assertion(&self, alg: &str, client: &str, aud: &str) -> String {
        let now = TestApp::now();
        let claims = json!({"iss": client, "sub": client, "aud": aud, "iat": now,
            "exp": now + 60, "jti": TestApp::jti()});
        let header = json!({"alg": alg, "typ": "JWT", "kid": "rsa-1"});
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let padding: &'static dyn aws_lc_rs::signature::RsaEncoding = if alg == "PS256" {
            &RSA_PSS_SHA256
        } else {
            &RSA_PKCS1_SHA256
        };
        let mut sig = vec![0; self.0.public_modulus_len()];
        self.0
            .sign(
                padding,
                &aws_lc_rs::rand::SystemRandom::new(),
                input.as_bytes(),
                &mut sig,
            )
            .unwrap();
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig))
    }
}

/// A pushed request of `bank` authenticated by `assertion`, with `extra` over a good one.
fn push(s: &TestServer, assertion: &str, extra: &[(&str, &str)]) -> Resp {
    let mut pairs = vec![
        ("client_id", "bank"),
        ("response_type", "code"),
        ("scope", "openid profile"),
        ("redirect_uri", CB),
        ("state", "st"),
        ("nonce", "n"),
        ("code_challenge", PKCE_CHALLENGE),
        ("code_challenge_method", "S256"),
        ("client_assertion_type", JWT_BEARER),
        ("client_assertion", assertion),
    ];
    for (k, v) in extra {
        pairs.retain(|(n, _)| n != k);
        if !v.is_empty() {
            pairs.push((k, v));
        }
    }
    post_form(&s.oidc("ext/par/request"), None, &pairs)
}

fn create_fails(data: &str, extra: &[&str]) -> String {
    let mut args = vec!["client", "create", "--data-dir", data, "--name", "X"];
    args.extend_from_slice(&["--redirect-uri", CB, "--profile", "fapi2"]);
    args.extend_from_slice(extra);
    let out = scanid(&args);
    assert!(!out.status.success(), "{extra:?} was accepted");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_fapi2_client_is_refused_what_the_profile_forbids_and_logs_in_by_par() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let key = Key::new("ec-1");
    let rsa = RsaKey(RsaKeyPair::generate(KeySize::Rsa2048).unwrap());
    let ec_jwks = jwks_file(dir.path(), &[&key]);
    let mut set: Value = serde_json::from_str(&std::fs::read_to_string(&ec_jwks).unwrap()).unwrap();
    set["keys"].as_array_mut().unwrap().push(rsa.jwk());
    let jwks = dir.path().join("bank-jwks.json");
    std::fs::write(&jwks, set.to_string()).unwrap();
    let jwks = jwks.to_str().unwrap();

    // What the profile cannot have is refused when the client is made, with the reason.
    assert!(create_fails(data, &[]).contains("private_key_jwt"));
    assert!(create_fails(data, &["--public"]).contains("public"));
    let rs = create_fails(data, &["--jwks", jwks, "--token-alg", "RS256"]);
    assert!(rs.contains("not RS256"), "{rs}");
    let rs = create_fails(
        data,
        &["--jwks", jwks, "--token-endpoint-auth-alg", "RS256"],
    );
    assert!(rs.contains("not RS256"), "{rs}");
    // An algorithm the server has no active key for: refused, saying how to add one.
    let ed = create_fails(data, &["--jwks", jwks, "--token-alg", "EdDSA"]);
    assert!(ed.contains("no active EdDSA key"), "{ed}");

    let created = scanid_tests::create_client(
        data,
        &[
            "--name",
            "Bank",
            "--client-id",
            "bank",
            "--redirect-uri",
            CB,
            "--jwks",
            jwks,
            "--profile",
            "fapi2",
        ],
    );
    assert!(created.get("client_secret").is_none(), "{created}");
    let shown =
        scanid_tests::scanid_json(&["client", "show", "--data-dir", data, "--client-id", "bank"]);
    assert_eq!(shown["profile"], "fapi2");
    assert_eq!(shown["require_pushed_authorization_requests"], true);
    assert_eq!(shown["require_pkce"], true);
    assert_eq!(shown["token_alg"], "ES256");
    assert_eq!(shown["refresh_rotation"], "off");
    // An existing client is put under the profile by an update, once it has keys.
    let legacy = scanid_tests::create_client(
        data,
        &[
            "--name",
            "Legacy",
            "--client-id",
            "legacy",
            "--redirect-uri",
            CB,
        ],
    );
    assert!(legacy["client_secret"].is_string());
    let update = |extra: &[&str]| {
        let mut args = vec![
            "client",
            "update",
            "--data-dir",
            data,
            "--client-id",
            "legacy",
        ];
        args.extend_from_slice(extra);
        scanid(&args)
    };
    let out = update(&["--profile", "fapi2"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("private_key_jwt"));
    let out = update(&["--jwks", jwks, "--profile", "fapi2"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let held: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(held["profile"], "fapi2", "{held}");
    assert_eq!(held["require_pushed_authorization_requests"], true);
    assert_eq!(held["refresh_rotation"], "off");
    let out = update(&["--refresh-reuse-window", "30"]);
    assert!(!out.status.success(), "no reuse window under the profile");
    // An update cannot loosen it.
    let updated = scanid_tests::scanid_json(&[
        "client",
        "update",
        "--data-dir",
        data,
        "--client-id",
        "bank",
        "--require-par",
        "false",
    ]);
    assert_eq!(
        updated["require_pushed_authorization_requests"], true,
        "{updated}"
    );

    let s = TestServer::start(dir.path(), LENIENT);
    let iss = s.issuer.clone();

    // Not pushed: invalid_request at the redirect URI.
    let mut b = Browser::new();
    let direct = b.get(&auth_url(
        &s,
        &[
            ("client_id", "bank"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("scope", "openid"),
            ("state", "st"),
            ("code_challenge", PKCE_CHALLENGE),
            ("code_challenge_method", "S256"),
        ],
    ));
    let loc = location(&direct);
    assert!(loc.starts_with(CB), "{loc}");
    assert_eq!(params_of(&loc)["error"], "invalid_request", "{loc}");

    // Pushed without PKCE, or with plain: 400 invalid_request.
    for (what, extra) in [
        (
            "no PKCE",
            vec![("code_challenge", ""), ("code_challenge_method", "")],
        ),
        (
            "plain",
            vec![
                ("code_challenge", PKCE_VERIFIER),
                ("code_challenge_method", "plain"),
            ],
        ),
    ] {
        let r = push(&s, &key.assertion("bank", json!(iss)), &extra);
        assert_eq!(r.status, 400, "{what}: {}", r.text());
        assert_eq!(r.json()["error"], "invalid_request", "{what}");
    }

    // A client secret: 401 invalid_client (it has none).
    let r = post_form(
        &s.oidc("ext/par/request"),
        Some(("bank", "a-secret-it-never-had-0123456789abcdef")),
        &[
            ("response_type", "code"),
            ("redirect_uri", CB),
            ("code_challenge", PKCE_CHALLENGE),
            ("code_challenge_method", "S256"),
            ("scope", "openid"),
        ],
    );
    assert_eq!(r.status, 401, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_client");

    // RS256 by its RSA key: 401 invalid_client; PS256 by the same key: accepted.
    let r = push(&s, &rsa.assertion("RS256", "bank", &iss), &[]);
    assert_eq!(r.status, 401, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_client");
    let r = push(&s, &rsa.assertion("PS256", "bank", &iss), &[]);
    assert_eq!(r.status, 201, "{}", r.text());

    // The pushed login: ES256 tokens, and a refresh token that does not rotate.
    let r = push(&s, &key.assertion("bank", json!(iss)), &[]);
    assert_eq!(r.status, 201, "{}", r.text());
    let uri = r.json()["request_uri"].as_str().unwrap().to_owned();
    let app = TestApp::enroll(&s, "fapiuser");
    let back = login(
        &mut Browser::new(),
        &s,
        &app,
        &auth_url(&s, &[("client_id", "bank"), ("request_uri", uri.as_str())]),
    );
    let code = code_of(&back);
    // DPoP-bound access tokens (FAPI 2.0 §5.3.2.1): every token request carries a proof.
    let dpop = crate::dpop::DpopKey::new();
    let token = |pairs: &[(&str, &str)], with_proof: bool| {
        let mut all = pairs.to_vec();
        let a = key.assertion("bank", json!(iss));
        all.extend_from_slice(&[("client_assertion_type", JWT_BEARER)]);
        let proof = dpop.proof("POST", &s.oidc("token"), &[]);
        let headers: &[(&str, &str)] = if with_proof { &[("DPoP", &proof)] } else { &[] };
        post_form_with(
            &s.oidc("token"),
            headers,
            None,
            &[all, vec![("client_assertion", a.as_str())]].concat(),
        )
    };
    let redeem = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", CB),
        ("code_verifier", PKCE_VERIFIER),
    ];
    let bare = token(&redeem, false);
    assert_eq!(bare.status, 400, "{}", bare.text());
    assert_eq!(bare.json()["error"], "invalid_dpop_proof");
    let t = token(&redeem, true);
    assert_eq!(t.status, 200, "{}", t.text());
    let t = t.json();
    assert_eq!(t["token_type"], "DPoP");
    for name in ["id_token", "access_token"] {
        assert_eq!(
            jwt_header(t[name].as_str().unwrap())["alg"],
            "ES256",
            "{name}"
        );
    }
    let rt = t["refresh_token"].as_str().unwrap().to_owned();
    for _ in 0..2 {
        let r = token(
            &[("grant_type", "refresh_token"), ("refresh_token", &rt)],
            true,
        );
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["refresh_token"], rt.as_str(), "not rotated");
    }
}

/// Through the admin API: the attribute sets the profile, which brings PAR and PKCE; a client
/// the profile cannot hold is a 400 naming it.
#[test]
fn the_admin_api_sets_the_fapi2_profile() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let admin = scanid_tests::secret_of(&scanid_tests::create_client(
        data,
        &[
            "--name",
            "Ops",
            "--client-id",
            "ops",
            "--client-credentials",
            "--admin-role",
            "realm-admin",
        ],
    ));
    let key = Key::new("ec-2");
    let set = std::fs::read_to_string(jwks_file(dir.path(), &[&key])).unwrap();
    let s = TestServer::start(dir.path(), LENIENT);
    let token = client_token(&s, "ops", &admin);
    let clients = "/admin/realms/scanid/clients";
    let mut rep = json!({"clientId": "bank2", "redirectUris": [CB],
        "attributes": {"scanid.client.profile": "fapi-2-security-profile"}});
    let r = bearer_call(&s, "POST", clients, Some(&token), Some(&rep));
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("profile"), "{}", r.text());
    rep["clientAuthenticatorType"] = json!("client-jwt");
    rep["attributes"]["use.jwks.string"] = json!("true");
    rep["attributes"]["jwks.string"] = json!(set);
    let mut ps = rep.clone();
    ps["attributes"]["id.token.signed.response.alg"] = json!("PS256");
    let r = bearer_call(&s, "POST", clients, Some(&token), Some(&ps));
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("no active PS256 key"), "{}", r.text());
    let r = bearer_call(&s, "POST", clients, Some(&token), Some(&rep));
    assert_eq!(r.status, 201, "{}", r.text());
    let got = bearer_call(&s, "GET", &format!("{clients}/bank2"), Some(&token), None).json();
    let attrs = &got["attributes"];
    assert_eq!(
        attrs["scanid.client.profile"], "fapi-2-security-profile",
        "{got}"
    );
    assert_eq!(attrs["require.pushed.authorization.requests"], "true");
    assert_eq!(attrs["pkce.code.challenge.method"], "S256");
    assert_eq!(attrs["id.token.signed.response.alg"], "ES256");
    assert_eq!(
        attrs["authorization.signed.response.alg"], "ES256",
        "JARM too"
    );
    assert_eq!(attrs["request.object.required"], "not required");
    assert_eq!(attrs["scanid.refresh.rotation"], "off");
    // Keycloak's request.object.required: the client must push a signed request object.
    let mut signed = got.clone();
    signed["attributes"]["request.object.required"] = json!("request or request_uri");
    let at = format!("{clients}/bank2");
    let r = bearer_call(&s, "PUT", &at, Some(&token), Some(&signed));
    assert!(r.status < 300, "{}", r.text());
    let back = bearer_call(&s, "GET", &at, Some(&token), None).json();
    assert_eq!(back["attributes"]["request.object.required"], "request");
    signed["attributes"]["request.object.required"] = json!("sometimes");
    let r = bearer_call(&s, "PUT", &at, Some(&token), Some(&signed));
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("request.object.required"), "{}", r.text());
    let mut rs = got.clone();
    rs["attributes"]["id.token.signed.response.alg"] = json!("RS256");
    rs["attributes"]["access.token.signed.response.alg"] = json!("RS256");
    rs["attributes"]["authorization.signed.response.alg"] = json!("RS256");
    let r = bearer_call(
        &s,
        "PUT",
        &format!("{clients}/bank2"),
        Some(&token),
        Some(&rs),
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("RS256"), "{}", r.text());
}
