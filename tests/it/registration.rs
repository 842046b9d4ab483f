//! RFC 8414 Authorization Server Metadata, RFC 7591 dynamic client registration and RFC 7592
//! management against the real `scanid serve`: closed by default, opened by the operator's
//! initial access tokens (`scanid client registration-token create`) or for everyone
//! (`--open-client-registration true`); a registered client logs a person in with the QR
//! code; every refusal has its RFC error. The main scenario runs on SQLite and on DynamoDB
//! (moto).

use scanid_tests::{
    attr, auth_url, code_of, consent_url, get, open, params_of, request, Browser, Operator, Resp,
    TestApp, TestServer, CB, DISCOVERY,
};
use serde_json::{json, Value};

const REGISTER: &str = "/realms/scanid/clients-registrations/openid-connect";

fn register(s: &TestServer, token: Option<&str>, body: &Value) -> Resp {
    post(s, token, "application/json", body.to_string().as_bytes())
}

fn post(s: &TestServer, token: Option<&str>, content_type: &str, body: &[u8]) -> Resp {
    let auth = token.map(|t| format!("Bearer {t}"));
    let mut h = vec![("Content-Type", content_type)];
    if let Some(a) = &auth {
        h.push(("Authorization", a.as_str()));
    }
    request("POST", &s.url(REGISTER), &h, body)
}

/// A management call (RFC 7592) on `uri` with registration access token `token`.
fn manage(method: &str, uri: &str, token: &str, body: Option<&Value>) -> Resp {
    let auth = format!("Bearer {token}");
    let mut h = vec![("Authorization", auth.as_str())];
    if body.is_some() {
        h.push(("Content-Type", "application/json"));
    }
    let b = body.map(|b| b.to_string()).unwrap_or_default();
    request(method, uri, &h, b.as_bytes())
}

/// What the registration tests ask of the operator's CLI.
trait Registrar {
    fn token(&self, uses: &str, expires_in: &str) -> String;
    fn listed(&self, client_id: &str) -> Option<Value>;
}

impl Registrar for Operator {
    fn token(&self, uses: &str, expires_in: &str) -> String {
        let out = self.run(&[
            "client",
            "registration-token",
            "create",
            "--expires-in",
            expires_in,
            "--uses",
            uses,
        ]);
        assert_eq!(out["uses"].to_string(), uses, "{out}");
        out["initial_access_token"].as_str().unwrap().to_owned()
    }

    fn listed(&self, client_id: &str) -> Option<Value> {
        self.run(&["client", "list"])["clients"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["client_id"] == client_id)
            .cloned()
    }
}

fn assert_bearer_401(r: &Resp, error: Option<&str>) {
    assert_eq!(r.status, 401, "{}", r.text());
    let challenge = r.header("www-authenticate").unwrap_or_default();
    assert!(challenge.starts_with("Bearer"), "{challenge}");
    match error {
        Some(e) => {
            assert!(challenge.contains(&format!("error=\"{e}\"")), "{challenge}");
            assert_eq!(r.json()["error"], e);
        }
        None => assert!(!challenge.contains("error="), "{challenge}"),
    }
}

/// The code flow with a dynamically registered confidential client: its secret redeems the
/// code, and the ID token names it. The consent page (when shown) says the client named itself.
/// Returns whether the consent page was shown (not when consent is remembered). `basic`: the
/// client registered `client_secret_basic` (else `client_secret_post`), the only method it may
/// use.
fn log_in_with(s: &TestServer, app: &TestApp, client_id: &str, secret: &str, basic: bool) -> bool {
    let b = &mut Browser::new();
    let url = auth_url(
        s,
        &[
            ("client_id", client_id),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("state", "st"),
            ("scope", "openid"),
        ],
    );
    let (_, payload) = open(b, &url);
    assert_eq!(app.decide(b, &payload, "approve").status, 200);
    let page = b.get(&consent_url(s, &payload));
    let csrf = attr(&page.text(), "name=\"csrf\"", "value");
    let consent_shown = csrf.is_some();
    let done = match csrf {
        Some(csrf) => {
            assert!(
                page.text()
                    .contains("registered itself with this service: nobody has checked that name"),
                "{}",
                page.text()
            );
            b.post_form(
                &format!("{}/login-actions/consent", s.issuer),
                &[
                    ("session", &params_of(&payload)["session"]),
                    ("csrf", &csrf),
                    ("consent", "allow"),
                ],
            )
        }
        None => page,
    };
    let code = code_of(&done);
    let mut pairs = vec![
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", CB),
    ];
    if !basic {
        pairs.extend([("client_id", client_id), ("client_secret", secret)]);
    }
    let r = scanid_tests::post_form(
        &s.oidc("token"),
        basic.then_some((client_id, secret)),
        &pairs,
    );
    assert_eq!(
        r.status,
        200,
        "redeeming a code of {client_id}: {}",
        r.text()
    );
    let tokens = r.json();
    let id = scanid_tests::jwt_claims(tokens["id_token"].as_str().unwrap());
    assert_eq!(id["aud"], client_id);
    assert_eq!(id["sub"], app.sub.as_str());
    consent_shown
}

/// Registration with an initial access token, the login, RFC 7592 management, the operator's
/// listing and deletion: one scenario for both stores.
fn scenario(s: &TestServer, op: &Operator) {
    // Closed by default.
    let body = json!({
        "redirect_uris": [CB],
        "client_name": "Dynamic Shop",
        "token_endpoint_auth_method": "client_secret_post",
        "logo_uri": "https://shop.example/logo.png",
        "software_id": "ignored",
    });
    assert_bearer_401(&register(s, None, &body), None);
    assert_bearer_401(
        &register(s, Some("not-a-token"), &body),
        Some("invalid_token"),
    );

    let token = op.token("2", "3600");
    let r = register(s, Some(&token), &body);
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let reg = r.json();
    let client_id = reg["client_id"].as_str().unwrap().to_owned();
    let secret = reg["client_secret"].as_str().unwrap().to_owned();
    let uri = reg["registration_client_uri"].as_str().unwrap().to_owned();
    assert_eq!(
        uri,
        format!(
            "{}/clients-registrations/openid-connect/{client_id}",
            s.issuer
        )
    );
    assert_eq!(r.header("location"), Some(uri.as_str()));
    assert_eq!(reg["client_secret_expires_at"], 0);
    assert_eq!(reg["client_name"], "Dynamic Shop");
    assert_eq!(reg["redirect_uris"], json!([CB]));
    assert_eq!(reg["token_endpoint_auth_method"], "client_secret_post");
    assert_eq!(
        reg["grant_types"],
        json!(["authorization_code", "refresh_token"])
    );
    assert_eq!(reg["response_types"], json!(["code"]));
    assert!(reg["client_id_issued_at"].as_i64().unwrap() > 1_700_000_000);
    assert!(reg.get("logo_uri").is_none() && reg.get("software_id").is_none());

    // The registered client logs a person in.
    let app = TestApp::enroll(s, "dyn-alice");
    assert!(
        log_in_with(s, &app, &client_id, &secret, false),
        "a first login asks"
    );

    // A public client with the token's second use; then the token is used up.
    let public = register(
        s,
        Some(&token),
        &json!({"redirect_uris": ["http://127.0.0.1/cb"], "token_endpoint_auth_method": "none"}),
    );
    assert_eq!(public.status, 201, "{}", public.text());
    let public = public.json();
    assert!(public.get("client_secret").is_none());
    assert!(public.get("client_secret_expires_at").is_none());
    assert_eq!(public["token_endpoint_auth_method"], "none");
    assert_bearer_401(&register(s, Some(&token), &body), Some("invalid_token"));
    // A public client must use PKCE, as the operator's public clients do; a self-registered
    // client is told so on our error page, not by a redirect to its URI (anyone may register
    // any URI: the issuer would be an open redirector, issue 38 item 5).
    let no_pkce = Browser::new().get(&auth_url(
        s,
        &[
            ("client_id", public["client_id"].as_str().unwrap()),
            ("redirect_uri", "http://127.0.0.1/cb"),
            ("response_type", "code"),
            ("state", "st"),
        ],
    ));
    assert_eq!(no_pkce.status, 400, "{}", no_pkce.text());
    assert!(no_pkce.header("location").is_none());
    let page = no_pkce.text();
    assert!(
        page.contains("invalid_request") && page.contains("code_challenge"),
        "{page}"
    );

    // The operator sees it as registered, and their own clients as not.
    let listed = op.listed(&client_id).unwrap();
    assert_eq!(listed["registered"], true);
    assert_eq!(listed["name"], "Dynamic Shop");
    assert_eq!(op.listed("shop").unwrap()["registered"], false);

    // RFC 7592: read (a new token each time), replace, delete.
    let rat = reg["registration_access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_bearer_401(&manage("GET", &uri, "wrong", None), Some("invalid_token"));
    let read = manage("GET", &uri, &rat, None);
    assert_eq!(read.status, 200, "{}", read.text());
    let read = read.json();
    assert_eq!(read["client_id"], client_id.as_str());
    assert!(
        read.get("client_secret").is_none(),
        "the secret is shown once"
    );
    assert_bearer_401(&manage("GET", &uri, &rat, None), Some("invalid_token"));
    let rat = read["registration_access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let wrong_id = manage(
        "PUT",
        &uri,
        &rat,
        Some(&json!({"client_id": "other", "redirect_uris": [CB]})),
    );
    assert_eq!(wrong_id.status, 400, "{}", wrong_id.text());
    assert_eq!(wrong_id.json()["error"], "invalid_client_metadata");
    let bad_uri = manage(
        "PUT",
        &uri,
        &rat,
        Some(&json!({"client_id": client_id, "redirect_uris": ["http://shop.example/cb"]})),
    );
    assert_eq!(bad_uri.json()["error"], "invalid_redirect_uri");
    let put = manage(
        "PUT",
        &uri,
        &rat,
        Some(&json!({
            "client_id": client_id,
            "client_secret": secret,
            "redirect_uris": [CB, "https://shop.example/cb2"],
            "client_name": "Renamed Shop",
        })),
    );
    assert_eq!(put.status, 200, "{}", put.text());
    let put = put.json();
    assert_eq!(put["client_name"], "Renamed Shop");
    assert_eq!(put["token_endpoint_auth_method"], "client_secret_basic");
    assert_eq!(op.listed(&client_id).unwrap()["name"], "Renamed Shop");
    // The secret still works after the update (consent is remembered), by the method the
    // update registered (no token_endpoint_auth_method: the default, client_secret_basic).
    assert!(!log_in_with(s, &app, &client_id, &secret, true));
    let rat = put["registration_access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    // Nobody learns whether a client exists, nor manages the operator's.
    for other in [
        format!("{}{REGISTER}/no-such-client", s.base),
        format!("{}{REGISTER}/shop", s.base),
    ] {
        assert_bearer_401(&manage("GET", &other, &rat, None), Some("invalid_token"));
        assert_bearer_401(&manage("DELETE", &other, &rat, None), Some("invalid_token"));
    }
    let del = manage("DELETE", &uri, &rat, None);
    assert_eq!(del.status, 204, "{}", del.text());
    assert!(del.body.is_empty());
    assert_bearer_401(&manage("GET", &uri, &rat, None), Some("invalid_token"));
    assert!(op.listed(&client_id).is_none());

    // The operator removes a registered client with `scanid client delete`.
    let public_id = public["client_id"].as_str().unwrap();
    assert_eq!(op.listed(public_id).unwrap()["registered"], true);
    op.run(&["client", "delete", "--client-id", public_id]);
    assert!(op.listed(public_id).is_none());
    let public_rat = public["registration_access_token"].as_str().unwrap();
    assert_bearer_401(
        &manage(
            "GET",
            public["registration_client_uri"].as_str().unwrap(),
            public_rat,
            None,
        ),
        Some("invalid_token"),
    );
}

#[test]
fn registration_login_and_management_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &["--registration-rate-per-hour", "1000"]);
    let op = Operator::local(dir.path());
    op.run(&[
        "client",
        "create",
        "--name",
        "Shop",
        "--client-id",
        "shop",
        "--redirect-uri",
        CB,
    ]);
    scenario(&s, &op);
}

#[test]
fn registration_login_and_management_on_dynamodb() {
    let op = Operator::on_emulator("kms-envelope");
    let dir = tempfile::tempdir().unwrap();
    let mut serve_flags = op.flag_strs();
    serve_flags.extend(["--registration-rate-per-hour", "1000"]);
    let s = TestServer::start(dir.path(), &serve_flags);
    op.run(&[
        "client",
        "create",
        "--name",
        "Shop",
        "--client-id",
        "shop",
        "--redirect-uri",
        CB,
    ]);
    scenario(&s, &op);
}

#[test]
fn rfc_8414_metadata_is_the_discovery_document_at_both_paths() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let discovery = get(&s.url(DISCOVERY));
    assert_eq!(discovery.status, 200);
    let d = discovery.json();
    assert_eq!(
        d["registration_endpoint"],
        format!("{}/clients-registrations/openid-connect", s.issuer)
    );
    for path in [
        "/.well-known/oauth-authorization-server/realms/scanid",
        "/realms/scanid/.well-known/oauth-authorization-server",
    ] {
        let r = get(&s.url(path));
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(r.body, discovery.body, "{path}: the same document");
        // RFC 8414 §3.3: the issuer is the one the metadata was asked for.
        assert_eq!(r.json()["issuer"], s.issuer.as_str());
        let head = request("HEAD", &s.url(path), &[], b"");
        assert_eq!(head.status, 200, "{path}");
        assert!(head.body.is_empty());
        assert_eq!(
            head.header("content-length"),
            Some(discovery.body.len().to_string().as_str())
        );
        let post = request("POST", &s.url(path), &[], b"");
        assert_eq!(post.status, 405, "{path}");
    }
    for other in [
        "/.well-known/oauth-authorization-server/realms/other",
        "/realms/other/.well-known/oauth-authorization-server",
        "/.well-known/oauth-authorization-server",
    ] {
        assert_eq!(get(&s.url(other)).status, 404, "{other}");
    }
}

#[test]
fn every_bad_registration_is_refused_and_spends_no_use() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &["--registration-rate-per-hour", "1000"]);
    let op = Operator::local(dir.path());
    let token = op.token("1", "600");
    let t = Some(token.as_str());
    let cases: Vec<(Value, &str)> = vec![
        (json!({}), "invalid_redirect_uri"),
        (json!({"redirect_uris": []}), "invalid_redirect_uri"),
        (
            json!({"redirect_uris": ["http://rp.example/cb"]}),
            "invalid_redirect_uri",
        ),
        (
            json!({"redirect_uris": ["https://rp.example/cb#f"]}),
            "invalid_redirect_uri",
        ),
        (
            json!({"redirect_uris": ["https://rp.example/cb?code=1"]}),
            "invalid_redirect_uri",
        ),
        (
            json!({"redirect_uris": ["javascript:alert(1)"]}),
            "invalid_redirect_uri",
        ),
        (
            json!({"redirect_uris": [format!("https://rp.example/{}", "a".repeat(2100))]}),
            "invalid_redirect_uri",
        ),
        (
            json!({"redirect_uris": [CB], "post_logout_redirect_uris": ["http://rp.example/"]}),
            "invalid_redirect_uri",
        ),
        (json!({"redirect_uris": CB}), "invalid_client_metadata"),
        (
            json!({"redirect_uris": [CB], "grant_types": ["password"]}),
            "invalid_client_metadata",
        ),
        (
            json!({"redirect_uris": [CB], "grant_types": ["implicit"]}),
            "invalid_client_metadata",
        ),
        (
            json!({"redirect_uris": [CB], "response_types": ["id_token"]}),
            "invalid_client_metadata",
        ),
        (
            json!({"redirect_uris": [CB], "token_endpoint_auth_method": "private_key_jwt"}),
            "invalid_client_metadata",
        ),
        (
            json!({"redirect_uris": [CB], "token_endpoint_auth_method": "none", "grant_types": ["authorization_code", "client_credentials"]}),
            "invalid_client_metadata",
        ),
        (
            json!({"redirect_uris": [CB], "client_name": "n".repeat(101)}),
            "invalid_client_metadata",
        ),
        (
            json!({"redirect_uris": [CB], "client_name": 7}),
            "invalid_client_metadata",
        ),
        (
            json!({"redirect_uris": [CB], "id_token_signed_response_alg": "HS256"}),
            "invalid_client_metadata",
        ),
        (
            json!({"redirect_uris": [CB], "backchannel_logout_uri": "ftp://rp.example/bcl"}),
            "invalid_client_metadata",
        ),
    ];
    for (body, error) in &cases {
        let r = register(&s, t, body);
        assert_eq!(r.status, 400, "{body}: {}", r.text());
        assert_eq!(r.json()["error"], *error, "{body}");
        assert!(r.json()["error_description"].is_string());
    }
    for (ct, body, status, error) in [
        (
            "application/json",
            &b"{not json"[..],
            400,
            "invalid_request",
        ),
        (
            "application/json",
            b"[\"redirect_uris\"]",
            400,
            "invalid_request",
        ),
        ("application/json", b"", 400, "invalid_request"),
        ("text/plain", b"{}", 415, "invalid_request"),
        (
            "application/x-www-form-urlencoded",
            b"redirect_uris=x",
            415,
            "invalid_request",
        ),
    ] {
        let r = post(&s, t, ct, body);
        assert_eq!(r.status, status, "{ct} {body:?}: {}", r.text());
        assert_eq!(r.json()["error"], error);
    }
    // A huge body: refused by the handler's own limit (32 KiB), and by the server's.
    for size in [40_000, 200_000] {
        let mut big = json!({"redirect_uris": [CB]});
        big["padding"] = json!("x".repeat(size));
        let r = register(&s, t, &big);
        assert_eq!(r.status, 413, "{size}");
    }
    // Malformed Authorization headers.
    for auth in ["Basic Zm9vOmJhcg==", "Bearer", "Bearer   ", "token"] {
        let r = request(
            "POST",
            &s.url(REGISTER),
            &[
                ("Content-Type", "application/json"),
                ("Authorization", auth),
            ],
            json!({"redirect_uris": [CB]}).to_string().as_bytes(),
        );
        assert_bearer_401(&r, Some("invalid_token"));
    }
    // None of that spent the token's single use.
    let ok = register(
        &s,
        t,
        &json!({"redirect_uris": [CB], "unknown_field": {"a": 1}}),
    );
    assert_eq!(ok.status, 201, "{}", ok.text());
    assert_eq!(
        ok.json()["client_name"],
        "shop.example",
        "named after its redirect URI"
    );
    assert_bearer_401(
        &register(&s, t, &json!({"redirect_uris": [CB]})),
        Some("invalid_token"),
    );
    // A token the operator could not have made.
    let out = scanid_tests::scanid(&[
        "client",
        "registration-token",
        "create",
        "--expires-in",
        "10",
        "--data-dir",
        dir.path().to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--expires-in"));
}

#[test]
fn open_registration_needs_no_token_and_is_rate_limited_per_source() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(
        dir.path(),
        &[
            "--open-client-registration",
            "true",
            "--registration-rate-per-hour",
            "3",
        ],
    );
    let body = json!({"redirect_uris": [CB], "client_name": "Anyone"});
    let first = register(&s, None, &body);
    assert_eq!(first.status, 201, "{}", first.text());
    // A token presented anyway is not needed (and an unknown one is not refused).
    assert_eq!(register(&s, Some("whatever"), &body).status, 201);
    // Bad requests count too.
    assert_eq!(register(&s, None, &json!({})).status, 400);
    let limited = register(&s, None, &body);
    assert_eq!(limited.status, 429, "{}", limited.text());
    assert!(limited.header("retry-after").is_some());
    // Management is never open: it needs the client's registration access token.
    let uri = first.json()["registration_client_uri"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_bearer_401(&request("GET", &uri, &[], b""), None);
}

#[test]
fn a_bad_open_registration_setting_fails_fast() {
    let dir = tempfile::tempdir().unwrap();
    let out = scanid_tests::scanid(&[
        "client",
        "list",
        "--open-client-registration",
        "yes",
        "--data-dir",
        dir.path().to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("SCANID_OPEN_CLIENT_REGISTRATION"));
}
