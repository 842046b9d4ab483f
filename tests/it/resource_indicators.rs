//! RFC 8707 resource indicators through the real `scanid serve`: `resource` at the
//! authorization endpoint (several, all registered with `--resource`) and at the token
//! endpoint (one, narrowing what was granted), for the code, refresh and client-credentials
//! grants; the access token's `aud`, introspection's `aud`, and userinfo refusing a token for a
//! resource server.

use scanid_tests::{
    auth_url, code_of, create_shop, introspect, jwt_claims, location, login, params_of, post_form,
    pyjwt_verify, userinfo, Browser, TestApp, TestServer, CB,
};
use serde_json::Value;

pub const API: &str = "https://api.example/v1";
pub const MCP: &str = "https://mcp.example/mcp";

struct Env {
    s: TestServer,
    shop: String,
    app: TestApp,
    _dir: tempfile::TempDir,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let shop = create_shop(d, &["--client-credentials"]);
    let s = TestServer::start(
        dir.path(),
        &["--resource", API, "--resource", &format!("{MCP},{API}")],
    );
    let app = TestApp::enroll(&s, "resourceuser");
    Env {
        s,
        shop,
        app,
        _dir: dir,
    }
}

impl Env {
    fn shop(&self) -> (&str, &str) {
        ("shop", &self.shop)
    }

    fn auth(&self, resources: &[&str]) -> String {
        let mut pairs = vec![
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("scope", "openid profile offline_access"),
            ("state", "st"),
        ];
        pairs.extend(resources.iter().map(|r| ("resource", *r)));
        auth_url(&self.s, &pairs)
    }

    /// Logs in asking for `resources`: the code.
    fn code(&self, resources: &[&str]) -> String {
        let r = login(
            &mut Browser::new(),
            &self.s,
            &self.app,
            &self.auth(resources),
        );
        code_of(&r)
    }

    fn token(&self, pairs: &[(&str, &str)]) -> (u16, Value) {
        let r = post_form(&self.s.oidc("token"), Some(self.shop()), pairs);
        (r.status, r.json())
    }

    fn exchange(&self, code: &str, resources: &[&str]) -> (u16, Value) {
        let mut pairs = vec![
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", CB),
        ];
        pairs.extend(resources.iter().map(|r| ("resource", *r)));
        self.token(&pairs)
    }

    fn refresh(&self, rt: &Value, resources: &[&str]) -> (u16, Value) {
        let rt = rt.as_str().unwrap();
        let mut pairs = vec![("grant_type", "refresh_token"), ("refresh_token", rt)];
        pairs.extend(resources.iter().map(|r| ("resource", *r)));
        self.token(&pairs)
    }
}

fn aud(t: &Value) -> Value {
    jwt_claims(t["access_token"].as_str().unwrap())["aud"].clone()
}

fn invalid_target(answer: (u16, Value), why: &str) {
    let (status, body) = answer;
    assert_eq!(status, 400, "{why}: {body}");
    assert_eq!(body["error"], "invalid_target", "{why}: {body}");
}

#[test]
fn a_token_for_one_granted_resource_has_it_as_aud_and_refresh_keeps_the_grant() {
    let e = env();
    let code = e.code(&[API, MCP]);
    // Two resources at the token endpoint: one audience per token (RFC 8707 §2.2).
    invalid_target(e.exchange(&code, &[API, MCP]), "two resources");
    // Not granted: refused, and the code is still good (nothing was redeemed).
    invalid_target(
        e.exchange(&code, &["https://other.example/"]),
        "unregistered",
    );
    let (status, t) = e.exchange(&code, &[MCP]);
    assert_eq!(status, 200, "{t}");
    assert_eq!(aud(&t), MCP);
    // The id token is the client's, whatever the access token's audience.
    assert_eq!(jwt_claims(t["id_token"].as_str().unwrap())["aud"], "shop");
    // Signed like every access token: an independent library verifies it for that audience.
    let out = pyjwt_verify(
        &e.s.oidc("certs"),
        &e.s.issuer,
        t["access_token"].as_str().unwrap(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Introspection reports the audience.
    let i = introspect(&e.s, e.shop(), t["access_token"].as_str().unwrap());
    assert_eq!(i["active"], true);
    assert_eq!(i["aud"], MCP);
    assert_eq!(i["client_id"], "shop");
    // Userinfo refuses a token for a resource server (as node-oidc-provider does).
    let u = userinfo(&e.s, t["access_token"].as_str().unwrap());
    assert_eq!(u.status, 401, "{}", u.text());
    assert!(u
        .header("www-authenticate")
        .unwrap()
        .contains("invalid_token"));

    // The refresh token keeps both granted resources: each may be asked for in turn.
    let (status, t2) = e.refresh(&t["refresh_token"], &[API]);
    assert_eq!(status, 200, "{t2}");
    assert_eq!(aud(&t2), API);
    let (status, t3) = e.refresh(&t2["refresh_token"], &[MCP]);
    assert_eq!(status, 200, "{t3}");
    assert_eq!(aud(&t3), MCP);
    invalid_target(
        e.refresh(&t3["refresh_token"], &[API, MCP]),
        "two at refresh",
    );
    invalid_target(
        e.refresh(&t3["refresh_token"], &["https://other.example/"]),
        "unregistered at refresh",
    );
    // Without a resource: two were granted, so an ordinary token for the client (userinfo).
    let (status, t4) = e.refresh(&t3["refresh_token"], &[]);
    assert_eq!(status, 200, "{t4}");
    assert_eq!(aud(&t4), "shop");
    assert_eq!(
        userinfo(&e.s, t4["access_token"].as_str().unwrap()).status,
        200
    );
}

#[test]
fn one_granted_resource_is_the_default_and_others_are_not_added_later() {
    let e = env();
    let code = e.code(&[API]);
    // Registered but not granted: refused (narrowing only).
    invalid_target(e.exchange(&code, &[MCP]), "not granted");
    let (status, t) = e.exchange(&code, &[]);
    assert_eq!(status, 200, "{t}");
    assert_eq!(aud(&t), API, "the single granted resource");
    invalid_target(
        e.refresh(&t["refresh_token"], &[MCP]),
        "not granted at refresh",
    );
    // A grant without resources gives ordinary tokens and may not gain one.
    let code = e.code(&[]);
    invalid_target(e.exchange(&code, &[API]), "nothing granted");
    let (status, t) = e.exchange(&code, &[]);
    assert_eq!(status, 200, "{t}");
    assert_eq!(aud(&t), "shop");
}

#[test]
fn unregistered_or_malformed_resources_are_an_error_redirect_at_authorization() {
    let e = env();
    for (resources, why) in [
        (vec!["https://other.example/"], "unregistered"),
        (vec![API, "https://api.example/v1#frag"], "fragment"),
        (vec!["not-a-uri"], "relative"),
        (vec!["https://api.example/v1/"], "not exactly as registered"),
    ] {
        let r = Browser::new().get(&e.auth(&resources));
        assert_eq!(r.status, 302, "{why}: {}", r.text());
        let loc = location(&r);
        assert!(loc.starts_with(CB), "{why}: {loc}");
        let p = params_of(&loc);
        assert_eq!(p["error"], "invalid_target", "{why}");
        assert_eq!(p["state"], "st", "{why}");
        assert_eq!(p["iss"], e.s.issuer, "{why}");
    }
    // Eleven is too many.
    let many = vec![API; 11];
    let p = params_of(&location(&Browser::new().get(&e.auth(&many))));
    assert_eq!(p["error"], "invalid_target");
}

#[test]
fn client_credentials_for_a_registered_resource() {
    let e = env();
    let cc = |resources: &[&str]| {
        let mut pairs = vec![("grant_type", "client_credentials")];
        pairs.extend(resources.iter().map(|r| ("resource", *r)));
        e.token(&pairs)
    };
    let (status, t) = cc(&[API]);
    assert_eq!(status, 200, "{t}");
    assert_eq!(aud(&t), API);
    let i = introspect(&e.s, e.shop(), t["access_token"].as_str().unwrap());
    assert_eq!(
        (i["active"].clone(), i["aud"].clone()),
        (true.into(), API.into())
    );
    let (status, t) = cc(&[]);
    assert_eq!(status, 200, "{t}");
    assert_eq!(aud(&t), "shop");
    invalid_target(cc(&["https://other.example/"]), "unregistered");
    invalid_target(cc(&[API, MCP]), "two");
    invalid_target(cc(&["relative"]), "malformed");
}

#[test]
fn without_registered_resources_every_resource_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let secret = create_shop(d, &[]);
    let s = TestServer::start(dir.path(), &[]);
    let r = Browser::new().get(&auth_url(
        &s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("scope", "openid"),
            ("state", "st"),
            ("resource", API),
        ],
    ));
    assert_eq!(params_of(&location(&r))["error"], "invalid_target");
    // A bad --resource stops the server from starting, naming the setting.
    let out = scanid_tests::scanid(&[
        "serve",
        "--addr",
        "127.0.0.1:0",
        "--data-dir",
        d,
        "--resource",
        "https://api.example/#x",
    ]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("SCANID_RESOURCES"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    drop(secret);
}

/// The happy path on DynamoDB (moto) with KMS signing: the granted resources travel in the
/// code and grant records of the table.
#[test]
fn resource_indicators_on_dynamodb() {
    use scanid_tests::scanid_json;
    let op = scanid_tests::Operator::on_emulator("kms");
    let flags = op.flag_strs();
    let mut create = vec![
        "client",
        "create",
        "--name",
        "Shop",
        "--client-id",
        "shop",
        "--redirect-uri",
        CB,
        "--client-credentials",
    ];
    create.extend(&flags);
    let shop = scanid_json(&create)["client_secret"]
        .as_str()
        .unwrap()
        .to_owned();
    let dir = tempfile::tempdir().unwrap();
    let mut serve = flags.to_vec();
    serve.extend(["--resource", API, "--resource", MCP]);
    let s = TestServer::start(dir.path(), &serve);
    let e = Env {
        app: TestApp::enroll(&s, "dynamoresource"),
        s,
        shop,
        _dir: dir,
    };
    let code = e.code(&[API, MCP]);
    invalid_target(
        e.exchange(&code, &["https://other.example/"]),
        "unregistered",
    );
    let (status, t) = e.exchange(&code, &[API]);
    assert_eq!(status, 200, "{t}");
    assert_eq!(aud(&t), API);
    let out = pyjwt_verify(
        &e.s.oidc("certs"),
        &e.s.issuer,
        t["access_token"].as_str().unwrap(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        introspect(&e.s, e.shop(), t["access_token"].as_str().unwrap())["aud"],
        API
    );
    let (status, t2) = e.refresh(&t["refresh_token"], &[MCP]);
    assert_eq!(status, 200, "{t2}");
    assert_eq!(aud(&t2), MCP);
    invalid_target(e.refresh(&t2["refresh_token"], &[API, MCP]), "two");
    let (status, cc) = e.token(&[("grant_type", "client_credentials"), ("resource", MCP)]);
    assert_eq!(status, 200, "{cc}");
    assert_eq!(aud(&cc), MCP);
    // The consent remembered per resource, on DynamoDB too (issue 38 item 6), for an identity
    // that has not consented to anything yet.
    consent_per_resource(&e, &TestApp::enroll(&e.s, "dynamoconsent"));
}

/// The fifth attack run, item 6: the consent page and the phone never showed the resources
/// (RFC 8707), and a remembered consent covered any `resource`: a client with consent for
/// `openid` got, through the SSO session and with no page, an access token for the operator's
/// API (`aud` the API, the person's `sub`). Now the phone's scan answer and the consent page
/// list the resources, the consent remembers them, and a new resource asks again.
#[test]
fn a_new_resource_asks_for_consent_again_and_is_shown() {
    let e = env();
    consent_per_resource(&e, &e.app);
}

/// [`a_new_resource_asks_for_consent_again_and_is_shown`] on `e`'s server (SQLite or
/// DynamoDB: the consent is a stored record), for `app`'s identity, which has consented to
/// nothing yet.
fn consent_per_resource(e: &Env, app: &TestApp) {
    let mut b = Browser::new();
    // Consent for the client itself, no resource: the browser now has an SSO session.
    let first = login(&mut b, &e.s, app, &e.auth(&[]));
    assert!(code_of(&first).len() > 10);
    // The same client asks for the API: the consent page, not a code.
    let asked = b.get(&e.auth(&[API]));
    assert_eq!(asked.status, 302, "{}", asked.text());
    let to = location(&asked);
    assert!(
        to.contains("/login-actions/consent?session="),
        "a remembered consent without the API covered it: {to}"
    );
    let page = b.get(&to);
    assert_eq!(page.status, 200, "{}", page.text());
    let html = page.text();
    assert!(html.contains("id=\"resources\""), "{html}");
    assert!(
        html.contains(&format!("<li><code>{API}</code></li>")),
        "{html}"
    );
    let csrf = scanid_tests::attr(&html, "name=\"csrf\"", "value").unwrap();
    let session = params_of(&to)["session"].clone();
    let allowed = b.post_form(
        &format!("{}/login-actions/consent", e.s.issuer),
        &[("session", &session), ("csrf", &csrf), ("consent", "allow")],
    );
    let (status, t) = e.exchange(&code_of(&allowed), &[API]);
    assert_eq!(status, 200, "{t}");
    assert_eq!(aud(&t), API);
    // Allowed once, remembered: the API again needs no page; another resource asks again.
    assert!(code_of(&b.get(&e.auth(&[API]))).len() > 10);
    let other = location(&b.get(&e.auth(&[MCP])));
    assert!(other.contains("/login-actions/consent?session="), "{other}");
    // The phone is told the resources of the login it scanned (and none when none).
    let (_, payload) = scanid_tests::open(&mut Browser::new(), &e.auth(&[API, MCP]));
    let scanned = app.scan(&payload);
    assert_eq!(scanned.status, 200, "{}", scanned.text());
    assert_eq!(scanned.json()["resources"], serde_json::json!([API, MCP]));
    let (_, payload) = scanid_tests::open(&mut Browser::new(), &e.auth(&[]));
    assert_eq!(
        app.scan(&payload).json()["resources"],
        serde_json::json!([])
    );
}
