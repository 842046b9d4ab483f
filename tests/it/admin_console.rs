//! The admin console's person tokens (issue 37), by raw HTTP against `scanid serve`: the page
//! writes the console's built-in client (public, PKCE, its own redirect URI only); a person
//! holding an admin role (`scanid identity add-role`) who logged in to the console calls the
//! admin API; refused are a person's token of another client (403), a person without a role
//! (403), a role taken away (403 at the next call), and a token whose SSO session ended (401).
//! The admin API cannot create, change or delete the console's client.

use scanid_tests::{
    auth_url, bearer_call, location, login, params_of, post_form, request, require_emulator,
    scanid_json, Browser, Resp, TestApp, TestServer, CB, PKCE_CHALLENGE, PKCE_VERIFIER,
};
use serde_json::{json, Value};

const CONSOLE: &str = "scanid-admin-console";

fn call(s: &TestServer, method: &str, path: &str, token: &str, body: Option<&Value>) -> Resp {
    bearer_call(s, method, path, Some(token), body)
}

/// A login to the console in browser `b` as `app`: the token response.
fn console_login(s: &TestServer, b: &mut Browser, app: &TestApp) -> Value {
    let redirect = s.url("/admin/");
    let url = auth_url(
        s,
        &[
            ("client_id", CONSOLE),
            ("redirect_uri", redirect.as_str()),
            ("response_type", "code"),
            ("scope", "openid profile"),
            ("state", "st"),
            ("code_challenge", PKCE_CHALLENGE),
            ("code_challenge_method", "S256"),
            ("prompt", "login"),
            ("max_age", "0"),
        ],
    );
    let back = location(&login(b, s, app, &url));
    assert!(back.starts_with(&redirect), "{back}");
    let code = params_of(&back)["code"].clone();
    let r = post_form(
        &s.oidc("token"),
        None,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", &redirect),
            ("client_id", CONSOLE),
            ("code_verifier", PKCE_VERIFIER),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

fn at(t: &Value) -> String {
    t["access_token"].as_str().unwrap().to_owned()
}

#[test]
fn person_tokens_at_the_admin_api_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start_with_audit(dir.path(), &["--auth-failure-rate-per-minute", "1000"]);
    let olga = scenario(&s, &["--data-dir".into(), dir.path().display().to_string()]);
    // A person's calls are audited with the console's client and the person.
    let events = s.audit_events_until(|e| {
        e.iter()
            .any(|e| e["event"] == "admin.call" && e["sub"] == olga.as_str())
    });
    assert!(events.iter().any(|e| e["event"] == "admin.call"
        && e["client_id"] == CONSOLE
        && e["sub"] == olga.as_str()
        && e["detail"] == "clients.list"));
    assert!(events.iter().any(|e| e["event"] == "admin.refused"
        && e["client_id"] == CONSOLE
        && e["sub"] == olga.as_str()
        && e["object"] == CONSOLE));
}

#[test]
fn person_tokens_at_the_admin_api_on_dynamodb() {
    require_emulator();
    let table = format!("scanid-it-{}", uuid::Uuid::new_v4().simple());
    scanid_json(&["aws", "init", "--table", &table]);
    let flags = vec!["--table".to_owned(), table];
    let dir = tempfile::tempdir().unwrap();
    let mut serve: Vec<&str> = flags.iter().map(String::as_str).collect();
    serve.extend(["--auth-failure-rate-per-minute", "1000"]);
    let s = TestServer::start(dir.path(), &serve);
    scenario(&s, &flags);
}

/// The whole story on one store; `flags` select it for the operator's CLI. The operator's
/// `sub`.
fn scenario(s: &TestServer, flags: &[String]) -> String {
    let op = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(flags.iter().map(String::as_str));
        scanid_json(&all)
    };
    // The page: strict CSP, and the console's client written without an operator step.
    let page = request("GET", &s.url("/admin/"), &[], b"");
    assert_eq!(page.status, 200, "{}", page.text());
    let csp = page.header("content-security-policy").unwrap().to_owned();
    assert!(
        csp.contains("script-src 'self'") && !csp.contains("unsafe"),
        "{csp}"
    );
    assert!(page.text().contains(CONSOLE));
    // Its client takes no other redirect URI.
    let mut b = Browser::new();
    let elsewhere = b.get(&auth_url(
        s,
        &[
            ("client_id", CONSOLE),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("scope", "openid"),
            ("code_challenge", PKCE_CHALLENGE),
            ("code_challenge_method", "S256"),
        ],
    ));
    assert!(
        elsewhere.header("location").is_none(),
        "never sent to another redirect URI"
    );
    assert_eq!(elsewhere.status, 400, "{}", elsewhere.text());

    let olga = TestApp::enroll(s, "olga");
    let nora = TestApp::enroll(s, "nora");
    let shown = op(&[
        "identity",
        "add-role",
        "--name",
        "olga",
        "--role",
        "realm-admin",
    ]);
    assert_eq!(shown["admin_roles"], json!(["realm-admin"]));
    let shop = op(&[
        "client",
        "create",
        "--name",
        "Shop",
        "--client-id",
        "shop",
        "--redirect-uri",
        CB,
    ]);
    let shop_secret = shop["client_secret"].as_str().unwrap().to_owned();

    // The operator at the console: an admin token while the role and the session last.
    let mut ob = Browser::new();
    let olga_console = at(&console_login(s, &mut ob, &olga));
    let realm = call(s, "GET", "/admin/realms/scanid", &olga_console, None);
    assert_eq!(realm.status, 200, "{}", realm.text());
    let list = call(
        s,
        "GET",
        "/admin/realms/scanid/clients",
        &olga_console,
        None,
    );
    assert_eq!(list.status, 200, "{}", list.text());

    // The console's own client is out of every admin's reach.
    let console_path = format!("/admin/realms/scanid/clients/{CONSOLE}");
    let moved = json!({"clientId": CONSOLE, "redirectUris": ["https://evil.example/cb"]});
    assert_eq!(
        call(s, "PUT", &console_path, &olga_console, Some(&moved)).status,
        403
    );
    assert_eq!(
        call(s, "DELETE", &console_path, &olga_console, None).status,
        403
    );
    let again = call(
        s,
        "POST",
        "/admin/realms/scanid/clients",
        &olga_console,
        Some(&moved),
    );
    assert_eq!(again.status, 409, "{}", again.text());

    // The same person's token for another client: never an admin token.
    let mut sb = Browser::new();
    let back = location(&login(
        &mut sb,
        s,
        &olga,
        &auth_url(
            s,
            &[
                ("client_id", "shop"),
                ("redirect_uri", CB),
                ("response_type", "code"),
                ("scope", "openid"),
                ("state", "s"),
            ],
        ),
    ));
    let code = params_of(&back)["code"].clone();
    let shop_tokens = post_form(
        &s.oidc("token"),
        Some(("shop", &shop_secret)),
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", CB),
        ],
    );
    assert_eq!(shop_tokens.status, 200, "{}", shop_tokens.text());
    let r = call(
        s,
        "GET",
        "/admin/realms/scanid",
        &at(&shop_tokens.json()),
        None,
    );
    assert_eq!(
        r.status,
        403,
        "a person's token of another client: {}",
        r.text()
    );

    // A person without a role: refused after the login.
    let nora_console = at(&console_login(s, &mut Browser::new(), &nora));
    let r = call(s, "GET", "/admin/realms/scanid", &nora_console, None);
    assert_eq!(r.status, 403, "{}", r.text());

    // With `manage-users`, she manages identities, but no admin reaches a stronger person:
    // olga (`realm-admin`) cannot be disabled, logged out, regrouped or deleted by her.
    op(&[
        "identity",
        "add-role",
        "--name",
        "nora",
        "--role",
        "manage-users",
    ]);
    let olga_path = format!("/admin/realms/scanid/users/{}", olga.sub);
    let off = json!({"enabled": false});
    for (method, path, body) in [
        ("PUT", olga_path.clone(), Some(&off)),
        ("POST", format!("{olga_path}/logout"), None),
        ("PUT", format!("{olga_path}/groups/staff"), None),
        ("DELETE", olga_path.clone(), None),
    ] {
        let r = call(s, method, &path, &nora_console, body);
        assert_eq!(r.status, 403, "{method} {path}: {}", r.text());
    }
    let r = call(s, "GET", &olga_path, &nora_console, None);
    assert_eq!(r.status, 200, "reading is within reach: {}", r.text());
    assert_eq!(r.json()["enabled"], true);

    // A role taken away: the next call is refused; given back, allowed again.
    op(&[
        "identity",
        "remove-role",
        "--name",
        "olga",
        "--role",
        "realm-admin",
    ]);
    assert_eq!(
        call(s, "GET", "/admin/realms/scanid", &olga_console, None).status,
        403
    );
    op(&[
        "identity",
        "add-role",
        "--name",
        "olga",
        "--role",
        "view-clients",
    ]);
    assert_eq!(
        call(
            s,
            "GET",
            "/admin/realms/scanid/clients",
            &olga_console,
            None
        )
        .status,
        200
    );
    let new = json!({"clientId": "made-by-viewer", "redirectUris": [CB]});
    let r = call(
        s,
        "POST",
        "/admin/realms/scanid/clients",
        &olga_console,
        Some(&new),
    );
    assert_eq!(r.status, 403, "view-clients cannot create: {}", r.text());

    // The scanid SSO session ends (the operator logs out): the console's token is dead.
    let q = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs([("client_id", CONSOLE)])
        .finish();
    let out = ob.get(&format!("{}?{q}", s.oidc("logout")));
    // "Log out of scanid?": the confirmation's hidden fields posted back.
    let html = out.text();
    let pairs: Vec<(String, String)> = html
        .split("<input type=\"hidden\" name=\"")
        .skip(1)
        .filter_map(|f| {
            let (name, rest) = f.split_once('"')?;
            let value = rest.split_once("value=\"")?.1.split_once('"')?.0;
            Some((name.to_owned(), value.replace("&amp;", "&")))
        })
        .collect();
    assert!(pairs.iter().any(|(n, _)| n == "csrf"), "{html}");
    let refs: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let done = ob.post_form(&s.oidc("logout"), &refs);
    assert!(done.status < 400, "{}", done.text());
    let r = call(
        s,
        "GET",
        "/admin/realms/scanid/clients",
        &olga_console,
        None,
    );
    assert_eq!(r.status, 401, "after the SSO session ended: {}", r.text());
    assert!(r.header("www-authenticate").unwrap().starts_with("Bearer"));
    shown["sub"].as_str().unwrap().to_owned()
}
