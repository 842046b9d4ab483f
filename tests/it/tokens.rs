//! Tokens as relying parties and resource servers use them: docs/requirements.md T1-T8, R1-R4, C1,
//! I1-I3, V1, U1-U4, ID1-ID6, and logout.

use std::process::Command;

use scanid_tests::{
    auth_url, code_of, create_client, create_shop, exchange_code, get, introspect, jwt_claims,
    location, login, one_redemption_wins, params_of, post_form, python, race, redeem, repo_root,
    request, secret_of, silent_login_error, userinfo, Browser, Resp, TestApp, TestServer, CB,
    PKCE_CHALLENGE, PKCE_VERIFIER,
};
use serde_json::{json, Value};

struct Env {
    s: TestServer,
    shop: String,
    other: String,
    es: String,
    app: TestApp,
    _dir: tempfile::TempDir,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let shop = create_shop(
        d,
        &[
            "--post-logout-redirect-uri",
            "https://shop.example/bye",
            "--client-credentials",
        ],
    );
    let other = secret_of(&create_client(
        d,
        &[
            "--name",
            "Other",
            "--client-id",
            "other",
            "--redirect-uri",
            CB,
        ],
    ));
    let es = secret_of(&create_client(
        d,
        &[
            "--name",
            "EC",
            "--client-id",
            "es",
            "--redirect-uri",
            CB,
            "--token-alg",
            "ES256",
        ],
    ));
    create_client(
        d,
        &[
            "--name",
            "SPA",
            "--client-id",
            "spa",
            "--public",
            "--redirect-uri",
            CB,
        ],
    );
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "tokenuser");
    Env {
        s,
        shop,
        other,
        es,
        app,
        _dir: dir,
    }
}

impl Env {
    /// The confidential client `shop`: `(client_id, client_secret)`.
    fn shop(&self) -> (&str, &str) {
        ("shop", &self.shop)
    }
}

/// Logs in through the QR flow in a fresh browser (no SSO) and returns the code.
fn code(e: &Env, _: &mut Browser, client: &str, extra: &[(&str, &str)]) -> String {
    let b = &mut Browser::new();
    let mut pairs = vec![
        ("client_id", client),
        ("redirect_uri", CB),
        ("response_type", "code"),
        ("state", "s"),
        ("nonce", "nonce-1"),
        ("scope", "openid profile groups"),
    ];
    for (k, v) in extra {
        pairs.retain(|(n, _)| n != k);
        pairs.push((k, v));
    }
    code_of(&login(b, &e.s, &e.app, &auth_url(&e.s, &pairs)))
}

fn exchange(e: &Env, basic: Option<(&str, &str)>, pairs: &[(&str, &str)]) -> Resp {
    post_form(&e.s.oidc("token"), basic, pairs)
}

#[test]
fn code_flow_tokens_have_the_spec_shape_and_verify_independently() {
    let e = env();
    let mut b = Browser::new();
    let c = code(&e, &mut b, "shop", &[]);
    let r = exchange(
        &e,
        Some(("shop", &e.shop)),
        &[
            ("grant_type", "authorization_code"),
            ("code", &c),
            ("redirect_uri", CB),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("cache-control"), Some("no-store"), "T6");
    assert_eq!(r.header("pragma"), Some("no-cache"), "T6");
    let t = r.json();
    for (f, ty) in [
        ("access_token", "s"),
        ("expires_in", "n"),
        ("refresh_expires_in", "n"),
        ("refresh_token", "s"),
        ("token_type", "s"),
        ("id_token", "s"),
        ("not-before-policy", "n"),
        ("session_state", "s"),
        ("scope", "s"),
    ] {
        let ok = if ty == "s" {
            t[f].is_string()
        } else {
            t[f].is_i64()
        };
        assert!(ok, "spec 2.2 field {f}: {t}");
    }
    assert_eq!(t["token_type"], "Bearer");
    assert_eq!(t["scope"], "openid profile groups");
    assert!(t["refresh_token"].as_str().unwrap().len() >= 43, "T8");
    let at = jwt_claims(t["access_token"].as_str().unwrap());
    for f in [
        "exp",
        "iat",
        "auth_time",
        "jti",
        "iss",
        "aud",
        "sub",
        "typ",
        "azp",
        "session_state",
        "sid",
        "acr",
        "scope",
        "service_id",
        "groups",
        "preferred_username",
    ] {
        assert!(at.get(f).is_some(), "access token claim {f}: {at}");
    }
    assert_eq!(at["service_id"], e.app.service_id.as_str());
    let id = jwt_claims(t["id_token"].as_str().unwrap());
    assert_eq!(id["iss"], e.s.issuer, "ID1");
    assert_eq!(id["aud"], "shop", "ID1");
    assert!(id["exp"].is_i64() && id["iat"].is_i64(), "ID1: seconds");
    assert!(
        id["exp"].as_i64().unwrap() < 10_000_000_000,
        "seconds, not milliseconds"
    );
    assert_eq!(id["nonce"], "nonce-1", "ID2");
    assert_eq!(
        id["at_hash"],
        at_hash(t["access_token"].as_str().unwrap()),
        "ID3"
    );
    assert_eq!(id["sub"], e.app.sub.as_str());
    assert_eq!(id["sid"], t["session_state"]);
    assert_eq!(id["name"], "tokenuser display");
    // ID6: kid in the JWKS, verified by PyJWT with the JWKS only.
    let jwks = get(&e.s.oidc("certs")).json();
    for tok in [
        t["access_token"].as_str().unwrap(),
        t["id_token"].as_str().unwrap(),
    ] {
        let header: Value = {
            use base64::Engine;
            serde_json::from_slice(
                &base64::engine::general_purpose::URL_SAFE_NO_PAD
                    .decode(tok.split('.').next().unwrap())
                    .unwrap(),
            )
            .unwrap()
        };
        assert_ne!(header["alg"], "none");
        assert!(
            jwks["keys"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k["kid"] == header["kid"]),
            "ID6"
        );
        let out = Command::new(python())
            .arg(repo_root().join("tests/py/verify_jwt.py"))
            .args([&e.s.oidc("certs"), &e.s.issuer, tok])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // U1, U4: userinfo by GET and POST, sub equal to the id token's, the spec's spelling too.
    let u = userinfo(&e.s, t["access_token"].as_str().unwrap());
    assert_eq!(u.status, 200, "{}", u.text());
    let u = u.json();
    assert_eq!(u["sub"], id["sub"]);
    assert_eq!(u["peferred_username"], "tokenuser");
    assert_eq!(u["preferred_username"], "tokenuser");
    assert_eq!(u["username"], "tokenuser");
    assert!(u["groups"].is_array());
    let p = post_form(
        &e.s.oidc("userinfo"),
        None,
        &[("access_token", t["access_token"].as_str().unwrap())],
    );
    assert_eq!(p.status, 200);
    // Introspection: the spec 2.3 fields.
    let i = introspect(&e.s, e.shop(), t["access_token"].as_str().unwrap());
    assert_eq!(i["active"], true);
    for f in [
        "exp",
        "iat",
        "jti",
        "iss",
        "aud",
        "sub",
        "typ",
        "azp",
        "session_state",
        "acr",
        "scope",
        "sid",
        "service_id",
        "groups",
        "client_id",
        "username",
        "token_type",
    ] {
        assert!(i.get(f).is_some(), "introspection field {f}: {i}");
    }
    assert_eq!(i["service_id"], at["service_id"]);
}

fn at_hash(token: &str) -> String {
    use base64::Engine;
    let d = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, token.as_bytes());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&d.as_ref()[..16])
}

#[test]
fn t1_t2_t7_client_authentication_and_grant_types() {
    let e = env();
    let mut b = Browser::new();
    let c = code(&e, &mut b, "shop", &[]);
    // client_secret_post works.
    let r = exchange(
        &e,
        None,
        &[
            ("grant_type", "authorization_code"),
            ("code", &c),
            ("redirect_uri", CB),
            ("client_id", "shop"),
            ("client_secret", &e.shop),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // A wrong secret via Basic: 401 invalid_client with WWW-Authenticate.
    let r = exchange(
        &e,
        Some(("shop", "wrong")),
        &[("grant_type", "client_credentials")],
    );
    assert_eq!(r.status, 401);
    assert_eq!(r.json()["error"], "invalid_client");
    assert!(r.header("www-authenticate").unwrap().starts_with("Basic"));
    // Both methods at once.
    let r = exchange(
        &e,
        Some(("shop", &e.shop)),
        &[
            ("grant_type", "client_credentials"),
            ("client_secret", &e.shop),
        ],
    );
    assert_eq!(r.status, 400);
    // No authentication at all.
    let r = exchange(&e, None, &[("grant_type", "client_credentials")]);
    assert_eq!(r.status, 401);
    // T7.
    for gt in ["password", "implicit"] {
        let r = exchange(
            &e,
            Some(("shop", &e.shop)),
            &[("grant_type", gt), ("username", "u"), ("password", "p")],
        );
        assert_eq!(r.status, 400);
        assert_eq!(r.json()["error"], "unsupported_grant_type", "{gt}");
    }
    // The device grant (RFC 8628) is supported, for clients registered with it only.
    let r = exchange(
        &e,
        Some(("shop", &e.shop)),
        &[
            ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
            ("device_code", "x"),
        ],
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"], "unauthorized_client");
    let r = exchange(&e, Some(("shop", &e.shop)), &[("code", "x")]);
    assert_eq!(r.json()["error"], "invalid_request");
    // Not allowed for this client.
    let r = exchange(
        &e,
        Some(("other", &e.other)),
        &[("grant_type", "client_credentials")],
    );
    assert_eq!(r.json()["error"], "unauthorized_client");
    // T2: failures slow down the source that fails (429), never the client: after ten
    // failures the right secret still authenticates (the grant itself is then judged).
    // One wrong secret was sent above; nine more fill the source's allowance of ten.
    for _ in 0..9 {
        assert_eq!(
            exchange(
                &e,
                Some(("other", "wrong")),
                &[("grant_type", "refresh_token"), ("refresh_token", "x")]
            )
            .status,
            401
        );
    }
    let r = exchange(
        &e,
        Some(("other", &e.other)),
        &[("grant_type", "refresh_token"), ("refresh_token", "x")],
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_grant");
    let r = exchange(
        &e,
        Some(("other", "wrong")),
        &[("grant_type", "refresh_token"), ("refresh_token", "x")],
    );
    assert_eq!(r.status, 429, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_client");
    assert!(r.header("retry-after").is_some());
}

#[test]
fn t3_t5_codes_are_single_use_bound_and_pkce_checked() {
    let e = env();
    let mut b = Browser::new();
    let c = code(&e, &mut b, "shop", &[]);
    let first = redeem(&e.s, e.shop(), &c);
    let at = first["access_token"].as_str().unwrap();
    assert_eq!(introspect(&e.s, e.shop(), at)["active"], true);
    let again = exchange(
        &e,
        Some(("shop", &e.shop)),
        &[
            ("grant_type", "authorization_code"),
            ("code", &c),
            ("redirect_uri", CB),
        ],
    );
    assert_eq!(again.status, 400);
    assert_eq!(again.json()["error"], "invalid_grant");
    assert_eq!(
        introspect(&e.s, e.shop(), at),
        json!({ "active": false }),
        "T3: the replay revoked the first tokens"
    );
    let rt = first["refresh_token"].as_str().unwrap();
    let r = exchange(
        &e,
        Some(("shop", &e.shop)),
        &[("grant_type", "refresh_token"), ("refresh_token", rt)],
    );
    assert_eq!(r.json()["error"], "invalid_grant");
    // Bound to client and redirect_uri.
    let c = code(&e, &mut b, "shop", &[]);
    let r = exchange(
        &e,
        Some(("other", &e.other)),
        &[
            ("grant_type", "authorization_code"),
            ("code", &c),
            ("redirect_uri", CB),
        ],
    );
    assert_eq!(r.json()["error"], "invalid_grant");
    let c = code(&e, &mut b, "shop", &[]);
    let r = exchange(
        &e,
        Some(("shop", &e.shop)),
        &[
            ("grant_type", "authorization_code"),
            ("code", &c),
            ("redirect_uri", "https://shop.example/other"),
        ],
    );
    assert_eq!(r.json()["error"], "invalid_grant");
    // T5: PKCE.
    let pk = [
        ("code_challenge", PKCE_CHALLENGE),
        ("code_challenge_method", "S256"),
    ];
    let c = code(&e, &mut b, "shop", &pk);
    let r = exchange(
        &e,
        Some(("shop", &e.shop)),
        &[
            ("grant_type", "authorization_code"),
            ("code", &c),
            ("redirect_uri", CB),
        ],
    );
    assert_eq!(r.json()["error"], "invalid_grant", "missing verifier");
    let c = code(&e, &mut b, "shop", &pk);
    let r = exchange(
        &e,
        Some(("shop", &e.shop)),
        &[
            ("grant_type", "authorization_code"),
            ("code", &c),
            ("redirect_uri", CB),
            (
                "code_verifier",
                "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXj",
            ),
        ],
    );
    assert_eq!(r.json()["error"], "invalid_grant", "wrong verifier");
    let c = code(&e, &mut b, "shop", &[]);
    let r = exchange(
        &e,
        Some(("shop", &e.shop)),
        &[
            ("grant_type", "authorization_code"),
            ("code", &c),
            ("redirect_uri", CB),
            ("code_verifier", PKCE_VERIFIER),
        ],
    );
    assert_eq!(
        r.json()["error"],
        "invalid_grant",
        "downgrade: a verifier without a challenge"
    );
    let c = code(&e, &mut b, "shop", &pk);
    let r = exchange(
        &e,
        Some(("shop", &e.shop)),
        &[
            ("grant_type", "authorization_code"),
            ("code", &c),
            ("redirect_uri", CB),
            ("code_verifier", PKCE_VERIFIER),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // A public client with PKCE and no secret.
    let c = code(&e, &mut b, "spa", &pk);
    let r = exchange(
        &e,
        None,
        &[
            ("grant_type", "authorization_code"),
            ("code", &c),
            ("redirect_uri", CB),
            ("client_id", "spa"),
            ("code_verifier", PKCE_VERIFIER),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn t4_twenty_concurrent_redemptions_one_wins() {
    let e = env();
    let mut b = Browser::new();
    let c = code(&e, &mut b, "shop", &[]);
    // One wins; each other gets invalid_grant (the code is spent, and its grant revoked).
    let answers = race(20, |_| exchange_code(&e.s, e.shop(), &c));
    one_redemption_wins(&answers);
}

#[test]
fn r1_r4_refresh_rotates_narrows_and_a_replay_revokes_the_family() {
    let e = env();
    let mut b = Browser::new();
    let first = redeem(&e.s, e.shop(), &code(&e, &mut b, "shop", &[]));
    let id1 = jwt_claims(first["id_token"].as_str().unwrap());
    let rt1 = first["refresh_token"].as_str().unwrap().to_owned();
    // R1: only its client.
    let r = exchange(
        &e,
        Some(("other", &e.other)),
        &[("grant_type", "refresh_token"), ("refresh_token", &rt1)],
    );
    assert_eq!(r.json()["error"], "invalid_grant");
    // R2: narrow yes, widen no.
    let r = exchange(
        &e,
        Some(("shop", &e.shop)),
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", &rt1),
            ("scope", "openid offline_access"),
        ],
    );
    assert_eq!(r.json()["error"], "invalid_scope");
    let second = exchange(
        &e,
        Some(("shop", &e.shop)),
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", &rt1),
            ("scope", "openid profile"),
        ],
    );
    assert_eq!(second.status, 200, "{}", second.text());
    let second = second.json();
    assert_eq!(second["scope"], "openid profile");
    let rt2 = second["refresh_token"].as_str().unwrap().to_owned();
    assert_ne!(rt1, rt2, "R3: rotation");
    // R4: the refreshed id token keeps iss, sub, aud, auth_time, azp.
    let id2 = jwt_claims(second["id_token"].as_str().unwrap());
    for k in ["iss", "sub", "aud", "auth_time", "azp"] {
        assert_eq!(id1[k], id2[k], "{k}");
    }
    let third = exchange(
        &e,
        Some(("shop", &e.shop)),
        &[("grant_type", "refresh_token"), ("refresh_token", &rt2)],
    )
    .json();
    let rt3 = third["refresh_token"].as_str().unwrap().to_owned();
    let at3 = third["access_token"].as_str().unwrap().to_owned();
    assert_eq!(introspect(&e.s, e.shop(), &at3)["active"], true);
    assert_eq!(introspect(&e.s, e.shop(), &rt3)["active"], true);
    assert_eq!(
        introspect(&e.s, e.shop(), &rt1),
        json!({ "active": false }),
        "a rotated refresh token is inactive"
    );
    // R3: the first token again (two generations old): the whole family is revoked.
    let r = exchange(
        &e,
        Some(("shop", &e.shop)),
        &[("grant_type", "refresh_token"), ("refresh_token", &rt1)],
    );
    assert_eq!(r.json()["error"], "invalid_grant");
    assert_eq!(introspect(&e.s, e.shop(), &at3), json!({ "active": false }));
    let r = exchange(
        &e,
        Some(("shop", &e.shop)),
        &[("grant_type", "refresh_token"), ("refresh_token", &rt3)],
    );
    assert_eq!(
        r.json()["error"],
        "invalid_grant",
        "the newest token died with its family"
    );
}

#[test]
fn offline_access_tokens_report_refresh_expires_in_zero() {
    let e = env();
    let mut b = Browser::new();
    let t = redeem(
        &e.s,
        e.shop(),
        &code(&e, &mut b, "shop", &[("scope", "openid offline_access")]),
    );
    assert_eq!(t["refresh_expires_in"], 0);
    let normal = redeem(
        &e.s,
        e.shop(),
        &code(
            &e,
            &mut b,
            "shop",
            &[("scope", "openid"), ("prompt", "consent")],
        ),
    );
    assert_eq!(normal["refresh_expires_in"], 1800);
}

#[test]
fn c1_client_credentials_has_no_refresh_token_and_no_userinfo() {
    let e = env();
    let r = exchange(
        &e,
        Some(("shop", &e.shop)),
        &[("grant_type", "client_credentials")],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let t = r.json();
    assert!(t.get("refresh_token").is_none());
    assert!(t.get("id_token").is_none());
    let at = t["access_token"].as_str().unwrap();
    assert_eq!(jwt_claims(at)["sub"], "shop");
    assert_eq!(introspect(&e.s, e.shop(), at)["active"], true);
    let u = userinfo(&e.s, at);
    assert_eq!(u.status, 401);
    assert!(u
        .header("www-authenticate")
        .unwrap()
        .contains("invalid_token"));
    // Revocation (V1) works for these stateless tokens too, and only by their own client.
    let revoke_url = e.s.oidc("revoke");
    assert_eq!(
        post_form(&revoke_url, Some(("other", &e.other)), &[("token", at)]).status,
        200
    );
    assert_eq!(introspect(&e.s, e.shop(), at)["active"], true);
    assert_eq!(
        post_form(&revoke_url, Some(("shop", &e.shop)), &[("token", at)]).status,
        200
    );
    assert_eq!(introspect(&e.s, e.shop(), at), json!({ "active": false }));
    let r = exchange(
        &e,
        Some(("shop", &e.shop)),
        &[
            ("grant_type", "client_credentials"),
            ("scope", "offline_access"),
        ],
    );
    assert_eq!(r.json()["error"], "invalid_scope");
}

#[test]
fn i1_i3_v1_u2_u3_introspection_revocation_userinfo_errors() {
    let e = env();
    let mut b = Browser::new();
    let t = redeem(&e.s, e.shop(), &code(&e, &mut b, "shop", &[]));
    let at = t["access_token"].as_str().unwrap();
    let rt = t["refresh_token"].as_str().unwrap();
    let introspect_url = e.s.oidc("introspect");
    // I1.
    let r = post_form(&introspect_url, None, &[("token", at)]);
    assert_eq!(r.status, 401);
    let r = post_form(&introspect_url, Some(("shop", "wrong")), &[("token", at)]);
    assert_eq!(r.status, 401);
    // Body authentication (the spec's form) works too.
    let r = post_form(
        &introspect_url,
        None,
        &[
            ("token", at),
            ("client_id", "shop"),
            ("client_secret", &e.shop),
        ],
    );
    assert_eq!(r.json()["active"], true);
    // I3: a wrong hint still finds the token.
    let r = post_form(
        &introspect_url,
        Some(("shop", &e.shop)),
        &[("token", rt), ("token_type_hint", "access_token")],
    );
    assert_eq!(r.json()["active"], true);
    // I2: anything inactive is exactly {"active":false}.
    let mut forged = at.to_owned();
    forged.push('x');
    for bad in ["garbage", "", &forged, "a.b.c"] {
        let r = post_form(&introspect_url, Some(("shop", &e.shop)), &[("token", bad)]);
        if bad.is_empty() {
            assert_eq!(r.status, 400);
        } else {
            assert_eq!(r.json(), json!({ "active": false }), "{bad}");
        }
    }
    // U2: no token, a bad token; U3: two ways.
    let ui = e.s.oidc("userinfo");
    let r = get(&ui);
    assert_eq!(r.status, 401);
    // RFC 9728 §5.1: the challenge names the protected resource metadata.
    let metadata = format!(
        "{}/.well-known/oauth-protected-resource/realms/scanid",
        e.s.base
    );
    assert_eq!(
        r.header("www-authenticate"),
        Some(format!("Bearer realm=\"scanid\", resource_metadata=\"{metadata}\"").as_str())
    );
    let doc = get(&metadata).json();
    assert_eq!(doc["resource"], json!(e.s.issuer));
    assert_eq!(doc["authorization_servers"], json!([e.s.issuer]));
    let r = request("GET", &ui, &[("Authorization", "Bearer nope")], b"");
    assert_eq!(r.status, 401);
    assert!(r
        .header("www-authenticate")
        .unwrap()
        .contains("error=\"invalid_token\""));
    let auth = format!("Bearer {at}");
    let r = request(
        "POST",
        &ui,
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ],
        format!("access_token={at}").as_bytes(),
    );
    assert_eq!(r.status, 400);
    // V1: unknown token 200; another client's token untouched; revoking the refresh token kills
    // its access tokens.
    let revoke_url = e.s.oidc("revoke");
    assert_eq!(
        post_form(
            &revoke_url,
            Some(("shop", &e.shop)),
            &[("token", "unknown")]
        )
        .status,
        200
    );
    assert_eq!(
        post_form(&revoke_url, Some(("other", &e.other)), &[("token", rt)]).status,
        200
    );
    assert_eq!(
        introspect(&e.s, e.shop(), at)["active"],
        true,
        "another client cannot revoke"
    );
    assert_eq!(
        post_form(&revoke_url, Some(("shop", &e.shop)), &[("token", rt)]).status,
        200
    );
    assert_eq!(introspect(&e.s, e.shop(), at), json!({ "active": false }));
    assert_eq!(userinfo(&e.s, at).status, 401);
    assert_eq!(post_form(&revoke_url, None, &[("token", "x")]).status, 401);
}

#[test]
fn es256_per_client() {
    let e = env();
    let mut b = Browser::new();
    let c = code(&e, &mut b, "es", &[]);
    let r = exchange(
        &e,
        Some(("es", &e.es)),
        &[
            ("grant_type", "authorization_code"),
            ("code", &c),
            ("redirect_uri", CB),
        ],
    );
    let t = r.json();
    let header: Value = {
        use base64::Engine;
        let h = t["id_token"]
            .as_str()
            .unwrap()
            .split('.')
            .next()
            .unwrap()
            .to_owned();
        serde_json::from_slice(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(h)
                .unwrap(),
        )
        .unwrap()
    };
    assert_eq!(header["alg"], "ES256");
    assert_eq!(
        userinfo(&e.s, t["access_token"].as_str().unwrap()).status,
        200
    );
}

#[test]
fn logout_ends_the_session_and_its_tokens() {
    let e = env();
    // Log in with the browser that will log out: logout ends only the session it holds.
    let mut b = Browser::new();
    let r = login(
        &mut b,
        &e.s,
        &e.app,
        &auth_url(
            &e.s,
            &[
                ("client_id", "shop"),
                ("redirect_uri", CB),
                ("response_type", "code"),
                ("state", "s"),
                ("nonce", "n"),
                ("scope", "openid"),
            ],
        ),
    );
    let t = redeem(&e.s, e.shop(), &params_of(&location(&r))["code"]);
    let at = t["access_token"].as_str().unwrap();
    let logout = e.s.oidc("logout");
    // A post_logout_redirect_uri that is not registered is refused, nothing logged out.
    let bad = format!(
        "{logout}?id_token_hint={}&post_logout_redirect_uri=https%3A%2F%2Fevil.example%2F",
        t["id_token"].as_str().unwrap()
    );
    let r = b.get(&bad);
    assert_eq!(r.status, 400);
    assert!(r.header("location").is_none());
    assert_eq!(introspect(&e.s, e.shop(), at)["active"], true);
    // Without a hint: a confirmation page with an anti-CSRF token, nothing logged out yet.
    let r = b.get(&logout);
    assert_eq!(r.status, 200);
    assert!(r.text().contains("<form method=\"post\""));
    assert!(r.text().contains("name=\"csrf\""));
    assert_eq!(introspect(&e.s, e.shop(), at)["active"], true);
    // The browser's own id_token as the hint: logged out at once.
    let url = format!("{logout}?id_token_hint={}&post_logout_redirect_uri=https%3A%2F%2Fshop.example%2Fbye&state=bye-1", t["id_token"].as_str().unwrap());
    let r = b.get(&url);
    assert_eq!(r.status, 302);
    assert_eq!(location(&r), "https://shop.example/bye?state=bye-1");
    assert!(!b.jar.contains_key("scanid_session"), "SSO cookie cleared");
    assert_eq!(introspect(&e.s, e.shop(), at), json!({ "active": false }));
    let r = exchange(
        &e,
        Some(("shop", &e.shop)),
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", t["refresh_token"].as_str().unwrap()),
        ],
    );
    assert_eq!(r.json()["error"], "invalid_grant");
    // The next login needs the QR again.
    assert_eq!(
        silent_login_error(&mut b, &e.s, "shop", CB),
        "login_required"
    );
}
