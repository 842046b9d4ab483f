//! Keycloak's admin REST API against the real `scanid serve`, from outside: the refusals by
//! raw HTTP (no token 401, an ordinary client's token 403, `view-clients` cannot create, a
//! disabled service account cannot call, a secret never in a list or an event, a field that
//! would change behaviour refused by name, huge and malformed bodies a clear 4xx with nothing
//! written, refusals counted per address), on SQLite and on DynamoDB (moto); then
//! python-keycloak's `KeycloakAdmin`, unchanged, managing clients (tests/py/keycloak_admin.py);
//! and the server's log without colour codes when it is not a terminal.

use std::io::Read;
use std::process::{Command, Stdio};

use scanid_tests::{
    bearer_call, bearer_call_raw, python, repo_root, request, scanid_bin, Operator, Resp,
    TestServer, CB, PKCE_CHALLENGE,
};
use serde_json::{json, Value};

const CLIENTS: &str = "/admin/realms/scanid/clients";

fn token_response(s: &TestServer, id: &str, secret: &str, basic: bool) -> Resp {
    use base64::Engine;
    let form = if basic {
        "grant_type=client_credentials".to_owned()
    } else {
        format!("grant_type=client_credentials&client_id={id}&client_secret={secret}")
    };
    let auth = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"))
    );
    let mut h = vec![("Content-Type", "application/x-www-form-urlencoded")];
    if basic {
        h.push(("Authorization", auth.as_str()));
    }
    request("POST", &s.oidc("token"), &h, form.as_bytes())
}

fn token(s: &TestServer, id: &str, secret: &str, basic: bool) -> String {
    let r = token_response(s, id, secret, basic);
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["access_token"].as_str().unwrap().to_owned()
}

fn json_call(s: &TestServer, method: &str, path: &str, token: &str, body: &Value) -> Resp {
    bearer_call(s, method, path, Some(token), Some(body))
}

fn ids(s: &TestServer, token: &str) -> Vec<String> {
    let r = bearer_call(s, "GET", CLIENTS, Some(token), None);
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["clientId"].as_str().unwrap().to_owned())
        .collect()
}

/// The scenario; the secrets it saw (none may reach a log line).
fn scenario(s: &TestServer, op: &Operator) -> Vec<String> {
    let admin_secret = op.service_account("robot", &["manage-clients"]);
    let viewer_secret = op.service_account("viewer", &["view-clients"]);
    let plain_secret = op.service_account("plain", &[]);
    let shop = op.run(&[
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
    op.run(&[
        "client",
        "create",
        "--name",
        "Strict",
        "--client-id",
        "strict",
        "--redirect-uri",
        CB,
        "--require-pkce",
    ]);
    // Basic and body authentication both give service-account tokens.
    let admin = token(s, "robot", &admin_secret, true);
    let admin_by_body = token(s, "robot", &admin_secret, false);
    let viewer = token(s, "viewer", &viewer_secret, false);
    let plain = token(s, "plain", &plain_secret, true);

    // No token, a broken one: 401 with a Bearer challenge.
    for t in [None, Some("not-a-jwt")] {
        for path in ["/admin/serverinfo", "/admin/realms/scanid", CLIENTS] {
            let r = bearer_call(s, "GET", path, t, None);
            assert_eq!(r.status, 401, "{path}: {}", r.text());
            assert!(r.header("www-authenticate").unwrap().starts_with("Bearer"));
        }
    }
    // An ordinary client's token: 403 (Keycloak's error JSON).
    let r = bearer_call(s, "GET", CLIENTS, Some(&plain), None);
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(r.json()["error"], "HTTP 403 Forbidden");
    // view-clients reads, and cannot create.
    assert!(ids(s, &viewer).contains(&"shop".to_owned()));
    let new = json!({"clientId": "new", "redirectUris": [CB]});
    assert_eq!(json_call(s, "POST", CLIENTS, &viewer, &new).status, 403);
    assert_eq!(
        bearer_call(
            s,
            "POST",
            &format!("{CLIENTS}/shop/client-secret"),
            Some(&viewer),
            None
        )
        .status,
        403
    );
    // manage-clients: the server info, the realm, create (201 + Location, then 409).
    let info = bearer_call(s, "GET", "/admin/serverinfo", Some(&admin_by_body), None);
    assert_eq!(info.status, 200, "{}", info.text());
    assert!(info.json()["systemInfo"]["version"].is_string());
    let realm = bearer_call(s, "GET", "/admin/realms/scanid", Some(&admin), None).json();
    assert_eq!(realm["realm"], "scanid");
    // Events are stored on the embedded store; on a table only with an events table (none here).
    let stored = !op.flags.iter().any(|f| f == "--table");
    assert_eq!(realm["eventsEnabled"], stored, "{realm}");
    assert_eq!(realm["adminEventsEnabled"], stored, "{realm}");
    assert_eq!(
        bearer_call(s, "GET", "/admin/realms/other", Some(&admin), None).status,
        404
    );
    let r = json_call(s, "POST", CLIENTS, &admin, &new);
    assert_eq!(r.status, 201, "{}", r.text());
    assert!(r
        .header("location")
        .unwrap()
        .ends_with("/admin/realms/scanid/clients/new"));
    assert_eq!(json_call(s, "POST", CLIENTS, &admin, &new).status, 409);
    let strict = bearer_call(s, "GET", &format!("{CLIENTS}/strict"), Some(&viewer), None).json();
    assert_eq!(strict["attributes"]["pkce.code.challenge.method"], "S256");
    // ... and held to it at the authorization endpoint.
    let auth = |extra: &str| {
        let cb: String = url::form_urlencoded::byte_serialize(CB.as_bytes()).collect();
        let q = format!(
            "client_id=strict&redirect_uri={cb}&response_type=code&scope=openid&state=s{extra}"
        );
        request("GET", &format!("{}?{q}", s.oidc("auth")), &[], b"")
    };
    let refused = auth("");
    assert!(
        refused
            .header("location")
            .is_some_and(|l| l.contains("error=invalid_request")),
        "{} {:?}",
        refused.status,
        refused.header("location")
    );
    let with_pkce = format!("&code_challenge={PKCE_CHALLENGE}&code_challenge_method=S256");
    assert_eq!(auth(&with_pkce).status, 200);
    let got = bearer_call(s, "GET", &format!("{CLIENTS}/new"), Some(&viewer), None).json();
    assert_eq!(
        (got["id"].as_str(), got["enabled"].as_bool()),
        (Some("new"), Some(true))
    );

    // ?clientId= is an exact match; first/max page.
    let one = bearer_call(
        s,
        "GET",
        &format!("{CLIENTS}?clientId=shop"),
        Some(&viewer),
        None,
    )
    .json();
    assert_eq!(one.as_array().unwrap().len(), 1);
    let none = bearer_call(
        s,
        "GET",
        &format!("{CLIENTS}?clientId=sho"),
        Some(&viewer),
        None,
    )
    .json();
    assert_eq!(none, json!([]));
    let page = bearer_call(
        s,
        "GET",
        &format!("{CLIENTS}?first=1&max=2"),
        Some(&viewer),
        None,
    )
    .json();
    assert_eq!(page.as_array().unwrap().len(), 2);
    assert_eq!(
        bearer_call(s, "GET", &format!("{CLIENTS}?max=x"), Some(&viewer), None).status,
        400
    );

    // A field that would change behaviour: 400 naming it, nothing written.
    for (field, body) in [
        (
            "implicitFlowEnabled",
            json!({"clientId": "bad", "redirectUris": [CB], "implicitFlowEnabled": true}),
        ),
        (
            "directAccessGrantsEnabled",
            json!({"clientId": "bad", "redirectUris": [CB], "directAccessGrantsEnabled": true}),
        ),
        (
            "redirectUris",
            json!({"clientId": "bad", "redirectUris": ["https://shop.example/*"]}),
        ),
    ] {
        let r = json_call(s, "POST", CLIENTS, &admin, &body);
        assert_eq!(r.status, 400, "{}", r.text());
        assert!(r.text().contains(field), "{field}: {}", r.text());
    }
    let r = json_call(
        s,
        "PUT",
        &format!("{CLIENTS}/shop"),
        &admin,
        &json!({"implicitFlowEnabled": true, "name": "Changed"}),
    );
    assert_eq!(r.status, 400);
    // Malformed, not an object, the wrong type, huge: a clear 4xx, nothing written.
    let before = ids(s, &admin);
    for (body, status) in [
        (b"{\"clientId\": \"bad\",".to_vec(), 400),
        (b"[1, 2]".to_vec(), 400),
        (
            br#"{"clientId": "bad", "redirectUris": "https://shop.example/cb"}"#.to_vec(),
            400,
        ),
        (
            format!(
                r#"{{"clientId": "bad", "name": "{}"}}"#,
                "x".repeat(200_000)
            )
            .into_bytes(),
            413,
        ),
    ] {
        let r = bearer_call_raw(s, "POST", CLIENTS, Some(&admin), Some(&body));
        assert_eq!(r.status, status, "{}", r.text());
    }
    let r = request(
        "POST",
        &s.url(CLIENTS),
        &[
            ("Authorization", &format!("Bearer {admin}")),
            ("Content-Type", "text/plain"),
        ],
        new.to_string().as_bytes(),
    );
    assert_eq!(r.status, 415);
    assert_eq!(ids(s, &admin), before, "nothing half-written");
    let shop_now = bearer_call(s, "GET", &format!("{CLIENTS}/shop"), Some(&admin), None).json();
    assert_eq!(shop_now["name"], "Shop");

    // Update (204), then the secret: never in a list or a read; regenerated, the old one stops.
    let r = json_call(
        s,
        "PUT",
        &format!("{CLIENTS}/shop"),
        &admin,
        &json!({"name": "Shop 2", "webOrigins": ["https://shop.example"]}),
    );
    assert_eq!(r.status, 204, "{}", r.text());
    let shop_now = bearer_call(s, "GET", &format!("{CLIENTS}/shop"), Some(&admin), None).json();
    assert_eq!(
        (
            shop_now["name"].as_str(),
            shop_now["webOrigins"][0].as_str()
        ),
        (Some("Shop 2"), Some("https://shop.example"))
    );
    let list = bearer_call(s, "GET", CLIENTS, Some(&admin), None).text();
    assert!(
        !list.contains(&shop_secret) && !list.contains("\"secret\""),
        "{list}"
    );
    let read = bearer_call(
        s,
        "GET",
        &format!("{CLIENTS}/shop/client-secret"),
        Some(&admin),
        None,
    );
    assert_eq!(read.json(), json!({"type": "secret"}));
    let fresh = bearer_call(
        s,
        "POST",
        &format!("{CLIENTS}/shop/client-secret"),
        Some(&admin),
        None,
    );
    assert_eq!(fresh.status, 200);
    assert_eq!(fresh.header("cache-control"), Some("no-store"));
    let fresh = fresh.json()["value"].as_str().unwrap().to_owned();
    let introspect = |id: &str, secret: &str| {
        request(
            "POST",
            &s.oidc("token/introspect"),
            &[("Content-Type", "application/x-www-form-urlencoded")],
            format!("token=x&client_id={id}&client_secret={secret}").as_bytes(),
        )
        .status
    };
    assert_eq!(
        introspect("shop", &shop_secret),
        401,
        "the old secret stops working"
    );
    assert_eq!(introspect("shop", &fresh), 200);
    let sa = bearer_call(
        s,
        "GET",
        &format!("{CLIENTS}/robot/service-account-user"),
        Some(&admin),
        None,
    )
    .json();
    assert_eq!(sa["username"], "service-account-robot");

    // A disabled service account cannot call (its token is dead at once); enabled, it can.
    let other = op.service_account("other-admin", &["realm-admin"]);
    let other_token = token(s, "other-admin", &other, true);
    assert_eq!(
        bearer_call(s, "GET", CLIENTS, Some(&other_token), None).status,
        200
    );
    op.run(&["client", "disable", "--client-id", "other-admin"]);
    assert_eq!(
        bearer_call(s, "GET", CLIENTS, Some(&other_token), None).status,
        401
    );
    assert_eq!(token_response(s, "other-admin", &other, true).status, 401);
    op.run(&["client", "enable", "--client-id", "other-admin"]);
    assert_eq!(
        bearer_call(s, "GET", CLIENTS, Some(&other_token), None).status,
        200
    );
    // manage-clients cannot reach a stronger account: not its secret, not its settings, not
    // its existence.
    let realm_admin = format!("{CLIENTS}/other-admin");
    for (method, path, body) in [
        ("POST", format!("{realm_admin}/client-secret"), None),
        ("PUT", realm_admin.clone(), Some(json!({"enabled": false}))),
        (
            "PUT",
            realm_admin.clone(),
            Some(json!({"secret": "s".repeat(32)})),
        ),
        ("DELETE", realm_admin.clone(), None),
    ] {
        let body = body.map(|b| b.to_string().into_bytes());
        let r = bearer_call_raw(s, method, &path, Some(&admin), body.as_deref());
        assert_eq!(r.status, 403, "{method} {path}: {}", r.text());
    }
    assert_eq!(token_response(s, "other-admin", &other, true).status, 200);
    // A role given is there at the next call.
    assert_eq!(
        bearer_call(s, "GET", CLIENTS, Some(&plain), None).status,
        403
    );
    op.run(&[
        "client",
        "add-role",
        "--client-id",
        "plain",
        "--role",
        "view-clients",
    ]);
    assert_eq!(
        bearer_call(s, "GET", CLIENTS, Some(&plain), None).status,
        200
    );
    // A role taken away is gone at the next call.
    op.run(&[
        "client",
        "remove-role",
        "--client-id",
        "other-admin",
        "--role",
        "realm-admin",
    ]);
    assert_eq!(
        bearer_call(s, "GET", CLIENTS, Some(&other_token), None).status,
        403
    );
    // Disabled through the API: the client's tokens go inactive (introspection too), no new
    // ones, and its logins are refused at the authorization endpoint.
    let api = op.run(&[
        "client",
        "create",
        "--name",
        "API",
        "--client-id",
        "api",
        "--resource-server",
        "--redirect-uri",
        CB,
    ]);
    let api_secret = api["client_secret"].as_str().unwrap().to_owned();
    let active = |t: &str| {
        let r = request(
            "POST",
            &s.oidc("token/introspect"),
            &[("Content-Type", "application/x-www-form-urlencoded")],
            format!("token={t}&client_id=api&client_secret={api_secret}").as_bytes(),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()["active"].as_bool().unwrap()
    };
    assert!(active(&viewer));
    let authorize = || {
        let q = format!(
            "client_id=shop&redirect_uri={}&response_type=code&scope=openid&state=s&nonce=n",
            url::form_urlencoded::byte_serialize(CB.as_bytes()).collect::<String>()
        );
        request("GET", &format!("{}?{q}", s.oidc("auth")), &[], b"").status
    };
    assert_eq!(authorize(), 200);
    for (id, enabled) in [("shop", false), ("viewer", false)] {
        let body = json!({ "enabled": enabled });
        let r = json_call(s, "PUT", &format!("{CLIENTS}/{id}"), &admin, &body);
        assert_eq!(r.status, 204, "{}", r.text());
    }
    assert_eq!(authorize(), 400, "a disabled client's login is refused");
    assert!(!active(&viewer), "a disabled client's token is inactive");
    let r = json_call(
        s,
        "PUT",
        &format!("{CLIENTS}/shop"),
        &admin,
        &json!({"enabled": true}),
    );
    assert_eq!(r.status, 204);
    assert_eq!(authorize(), 200, "enabled again");
    assert_eq!(
        bearer_call(s, "GET", CLIENTS, Some(&viewer), None).status,
        401
    );
    assert_eq!(
        token_response(s, "viewer", &viewer_secret, false).status,
        401
    );

    // Delete (204): its tokens die, it is gone.
    assert_eq!(
        bearer_call(s, "DELETE", &format!("{CLIENTS}/new"), Some(&admin), None).status,
        204
    );
    assert_eq!(
        bearer_call(s, "GET", &format!("{CLIENTS}/new"), Some(&admin), None).status,
        404
    );
    assert_eq!(
        bearer_call(s, "DELETE", &format!("{CLIENTS}/new"), Some(&admin), None).status,
        404
    );
    vec![
        api_secret,
        admin_secret,
        viewer_secret,
        plain_secret,
        shop_secret,
        fresh,
        other,
    ]
}

#[test]
fn admin_api_refusals_and_clients_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start_with_audit(dir.path(), &["--auth-failure-rate-per-minute", "1000"]);
    let op = Operator {
        flags: vec!["--data-dir".into(), dir.path().display().to_string()],
    };
    let secrets = scenario(&s, &op);
    // Every call is an audit event: who, what, which object.
    let events = s.audit_events_until(|e| e.iter().any(|e| e["detail"] == "clients.delete"));
    let create = events
        .iter()
        .find(|e| e["event"] == "admin.call" && e["detail"] == "clients.create")
        .expect("an admin.call event for the create");
    assert_eq!(
        (create["client_id"].as_str(), create["object"].as_str()),
        (Some("robot"), Some("new"))
    );
    assert!(events
        .iter()
        .any(|e| e["event"] == "admin.refused" && e["outcome"] == "forbidden"));
    assert!(events
        .iter()
        .any(|e| e["event"] == "admin.refused" && e["outcome"] == "unauthorized"));
    // A refused body and a stronger account out of reach are audited with the caller.
    assert!(events.iter().any(|e| e["event"] == "admin.call"
        && e["detail"] == "clients.create"
        && e["outcome"] == "bad_request"
        && e["client_id"] == "robot"));
    assert!(events.iter().any(|e| e["event"] == "admin.refused"
        && e["detail"] == "clients.secret.regenerate"
        && e["client_id"] == "robot"
        && e["object"] == "other-admin"));
    // The regenerated secret went to the caller only: no secret in any log line.
    assert!(events
        .iter()
        .any(|e| e["detail"] == "clients.secret.regenerate"));
    let log = s.log_text();
    for secret in &secrets {
        assert!(!log.contains(secret.as_str()), "a secret in the log");
    }
}

#[test]
fn admin_api_refusals_and_clients_on_dynamodb() {
    let op = Operator::on_emulator("kms-envelope");
    let dir = tempfile::tempdir().unwrap();
    let mut serve = op.flag_strs();
    serve.extend(["--auth-failure-rate-per-minute", "1000"]);
    let s = TestServer::start(dir.path(), &serve);
    scenario(&s, &op);
}

#[test]
fn refused_admin_calls_count_against_the_address() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &["--auth-failure-rate-per-minute", "3"]);
    let statuses: Vec<u16> = (0..5)
        .map(|_| bearer_call(&s, "GET", CLIENTS, Some("not-a-jwt"), None).status)
        .collect();
    assert_eq!(&statuses[..3], &[401, 401, 401]);
    assert_eq!(statuses[4], 429, "{statuses:?}");
}

#[test]
fn python_keycloak_manages_clients() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &["--auth-failure-rate-per-minute", "1000"]);
    let op = Operator {
        flags: vec!["--data-dir".into(), dir.path().display().to_string()],
    };
    let secret = op.service_account("pipeline", &["manage-clients"]);
    let out = Command::new(python())
        .arg(repo_root().join("tests/py/keycloak_admin.py"))
        .args([s.base.as_str(), "scanid", "pipeline", &secret])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "keycloak_admin.py (pip install -r tests/py/requirements.txt): {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let last: Value = serde_json::from_slice(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .last()
            .unwrap()
            .as_bytes(),
    )
    .unwrap();
    assert_eq!(last["ok"], true);
}

#[test]
fn the_log_has_no_colour_codes_off_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(scanid_bin())
        .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path())
        .env("RUST_LOG", "info")
        .env_remove("SCANID_LOG_FORMAT")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let banner: Value = serde_json::from_str(&line).unwrap();
    let base = format!("http://{}", banner["addr"].as_str().unwrap());
    // A warning for sure: a refused admin call, and an unknown page.
    request("GET", &format!("{base}/admin/serverinfo"), &[], b"");
    child.kill().unwrap();
    let mut err = Vec::new();
    child.stderr.take().unwrap().read_to_end(&mut err).unwrap();
    child.wait().unwrap();
    assert!(!err.is_empty(), "serve logged nothing at info");
    assert!(
        !err.contains(&0x1b),
        "an ESC byte in the log written to a pipe: {}",
        String::from_utf8_lossy(&err)
    );
}
