//! The admin API's events (issue 37) against the real `scanid serve`, from outside: a login
//! through the QR is found in `GET .../events` as Keycloak's `LOGIN` (and its code exchange as
//! `CODE_TO_TOKEN`), filtered by type, client, user, date and page, newest first; admin calls
//! are in `GET .../admin-events` without a representation; `GET .../events/config` says how
//! they are kept; `view-events` is needed; the same
//! on DynamoDB (moto, `--events-table`). `GET .../keys`, and a Keycloak realm export imported
//! by `POST .../partialImport` and by `scanid client import`.

use std::time::{Duration, Instant};

use scanid_tests::{
    auth_url, code_of, create_shop, login, redeem, request, scanid_json, Browser, Resp, TestApp,
    TestServer, CB,
};
use serde_json::Value;

const EVENTS: &str = "/admin/realms/scanid/events";
const ADMIN_EVENTS: &str = "/admin/realms/scanid/admin-events";
const EVENTS_CONFIG: &str = "/admin/realms/scanid/events/config";

fn service_account(data_dir: &str, id: &str, role: &str) -> String {
    let out = scanid_json(&[
        "client",
        "create",
        "--name",
        id,
        "--client-id",
        id,
        "--client-credentials",
        "--admin-role",
        role,
        "--data-dir",
        data_dir,
    ]);
    out["client_secret"].as_str().unwrap().to_owned()
}

fn token(s: &TestServer, id: &str, secret: &str) -> String {
    let r = scanid_tests::post_form(
        &s.oidc("token"),
        Some((id, secret)),
        &[("grant_type", "client_credentials")],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["access_token"].as_str().unwrap().to_owned()
}

fn get(s: &TestServer, path: &str, token: Option<&str>) -> Resp {
    let auth = token.map(|t| format!("Bearer {t}"));
    let h: Vec<(&str, &str)> = auth.iter().map(|a| ("Authorization", a.as_str())).collect();
    request("GET", &s.url(path), &h, b"")
}

/// The events `path` answers, once `until` holds (events are stored once a second).
fn events_until(
    s: &TestServer,
    path: &str,
    token: &str,
    until: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    let start = Instant::now();
    loop {
        let r = get(s, path, Some(token));
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        let v = r.json().as_array().unwrap().clone();
        if until(&v) || start.elapsed() > Duration::from_secs(10) {
            return v;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_login_is_in_the_events_filtered_as_keycloak_filters_them() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().display().to_string();
    let s = TestServer::start(dir.path(), &[]);
    let secret = create_shop(&data, &[]);
    let auditor = token(
        &s,
        "auditor",
        &service_account(&data, "auditor", "view-events"),
    );
    let viewer = token(
        &s,
        "viewer",
        &service_account(&data, "viewer", "view-clients"),
    );
    let app = TestApp::enroll(&s, "alice");
    let mut b = Browser::new();
    let url = auth_url(
        &s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("scope", "openid"),
            ("state", "st"),
            ("nonce", "n"),
        ],
    );
    redeem(
        &s,
        ("shop", &secret),
        &code_of(&login(&mut b, &s, &app, &url)),
    );

    // Refusals: no token, a token without view-events.
    assert_eq!(get(&s, EVENTS, None).status, 401);
    assert_eq!(get(&s, EVENTS, Some(&viewer)).status, 403);
    assert_eq!(get(&s, ADMIN_EVENTS, Some(&viewer)).status, 403);
    assert_eq!(get(&s, EVENTS_CONFIG, Some(&viewer)).status, 403);

    // How events are kept (Keycloak's events config): always, both kinds, for the retention
    // (30 days by default); read-only, the retention being a setting. The realm says the same.
    let config = get(&s, EVENTS_CONFIG, Some(&auditor));
    assert_eq!(config.status, 200, "{}", config.text());
    let config = config.json();
    assert_eq!(config["eventsEnabled"], true, "{config}");
    assert_eq!(config["adminEventsEnabled"], true, "{config}");
    assert_eq!(config["eventsExpiration"], 30 * 24 * 3600, "{config}");
    assert_eq!(config["adminEventsDetailsEnabled"], false, "{config}");
    let h = [("Authorization", format!("Bearer {auditor}"))];
    let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let put = request(
        "PUT",
        &s.url(EVENTS_CONFIG),
        &h,
        br#"{"eventsEnabled":false}"#,
    );
    assert_eq!(put.status, 405, "{}", put.text());
    let realm = get(&s, "/admin/realms/scanid", Some(&auditor)).json();
    for (field, value) in config.as_object().unwrap() {
        assert_eq!(&realm[field], value, "{field}: {realm}");
    }

    let logins = events_until(
        &s,
        &format!("{EVENTS}?type=LOGIN&client=shop"),
        &auditor,
        |v| !v.is_empty(),
    );
    assert_eq!(logins.len(), 1, "{logins:?}");
    let e = &logins[0];
    assert_eq!(e["type"], "LOGIN");
    assert_eq!(e["clientId"], "shop");
    assert_eq!(e["userId"], app.sub.as_str());
    assert_eq!(e["realmId"], "scanid");
    assert_eq!(e["error"], Value::Null);
    assert_eq!(e["details"]["scanid_event"], "login.approved");
    let now = scanid_tests::now_ms();
    let t = e["time"].as_i64().unwrap();
    assert!((now - 60_000..=now).contains(&t), "{t} vs {now}");

    // Every event of the shop, newest first: the code exchange after the login.
    let all = events_until(&s, &format!("{EVENTS}?client=shop"), &auditor, |v| {
        v.iter().any(|e| e["type"] == "CODE_TO_TOKEN")
    });
    let types: Vec<&str> = all.iter().map(|e| e["type"].as_str().unwrap()).collect();
    let pos = |t: &str| {
        types
            .iter()
            .position(|x| *x == t)
            .unwrap_or_else(|| panic!("{t} in {types:?}"))
    };
    assert!(pos("CODE_TO_TOKEN") < pos("LOGIN"), "{types:?}");
    let times: Vec<i64> = all.iter().map(|e| e["time"].as_i64().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "{times:?}");
    // By user; a page of one; another client's, a future day: none.
    let mine = get(&s, &format!("{EVENTS}?user={}", app.sub), Some(&auditor)).json();
    assert!(mine
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["userId"] == app.sub.as_str()));
    assert!(mine
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["type"] == "LOGIN"));
    let page = get(
        &s,
        &format!("{EVENTS}?client=shop&first=1&max=1"),
        Some(&auditor),
    )
    .json();
    assert_eq!(page.as_array().unwrap().len(), 1);
    assert_eq!(page[0]["id"], all[1]["id"]);
    let none = get(&s, &format!("{EVENTS}?client=blog"), Some(&auditor)).json();
    assert_eq!(none.as_array().unwrap().len(), 0);
    let future = get(&s, &format!("{EVENTS}?dateFrom=2999-01-01"), Some(&auditor)).json();
    assert_eq!(future.as_array().unwrap().len(), 0);
    let past = get(
        &s,
        &format!("{EVENTS}?client=shop&dateTo=2000-01-01"),
        Some(&auditor),
    )
    .json();
    assert_eq!(past.as_array().unwrap().len(), 0);
    assert_eq!(
        get(&s, &format!("{EVENTS}?dateFrom=yesterday"), Some(&auditor)).status,
        400
    );

    // Admin events: the refused calls above (by address: a token without the role names no
    // caller here), never with a representation.
    let refused = |v: &[Value]| -> Vec<Value> {
        v.iter()
            .filter(|e| e["details"]["operation"] == "events.list" && e["error"] == "forbidden")
            .cloned()
            .collect()
    };
    let admin = events_until(&s, ADMIN_EVENTS, &auditor, |v| !refused(v).is_empty());
    let refused = refused(&admin);
    assert_eq!(refused.len(), 1, "{admin:?}");
    let e = &refused[0];
    assert_eq!(e["authDetails"]["ipAddress"], "127.0.0.1");
    assert_eq!(e["resourceType"], "REALM");
    assert_eq!(e["operationType"], "ACTION");
    for e in &admin {
        assert!(e.get("representation").is_none(), "{e}");
        assert!(e["details"]["scanid_event"]
            .as_str()
            .unwrap()
            .starts_with("admin."));
    }
    // The auditor's own calls are there too, by client. (Events are stored a few times a
    // second: wait for the successful list, not for any event, which may be a refused one.)
    let listed = |v: &[Value]| {
        v.iter()
            .any(|e| e["details"]["operation"] == "events.list" && e["error"].is_null())
    };
    let mine = events_until(
        &s,
        &format!("{ADMIN_EVENTS}?authClient=auditor"),
        &auditor,
        |v| listed(v),
    );
    assert!(mine
        .iter()
        .all(|e| e["authDetails"]["clientId"] == "auditor"));
    assert!(listed(&mine), "{mine:?}");
    // python-keycloak, unchanged: get_events finds the login, get_keys the keys,
    // partial_import_realm imports the export.
    let py_secret = service_account(&data, "py-auditor", "view-events");
    let importer = service_account(&data, "py-importer", "manage-clients");
    let export = scanid_tests::repo_root().join("tests/fixtures/keycloak-realm-export.json");
    let out = std::process::Command::new(scanid_tests::python())
        .arg(scanid_tests::repo_root().join("tests/py/keycloak_events.py"))
        .args([
            s.base.as_str(),
            "scanid",
            "py-auditor",
            &py_secret,
            "shop",
            &app.sub,
        ])
        .arg(&export)
        .args(["py-importer", &importer])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "keycloak_events.py (pip install -r tests/py/requirements.txt): {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(
        (last["ok"].as_bool(), last["imported"].as_u64()),
        (Some(true), Some(5))
    );
    // The user events hold no admin call, and the admin events no login.
    let user_side = get(&s, EVENTS, Some(&auditor)).json();
    assert!(user_side
        .as_array()
        .unwrap()
        .iter()
        .all(|e| !e["details"]["scanid_event"]
            .as_str()
            .unwrap()
            .starts_with("admin.")));
}

#[test]
fn the_signing_keys_are_listed_as_keycloak_lists_them() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().display().to_string();
    let s = TestServer::start(dir.path(), &[]);
    let viewer = token(
        &s,
        "viewer",
        &service_account(&data, "viewer", "view-clients"),
    );
    assert_eq!(get(&s, "/admin/realms/scanid/keys", None).status, 401);
    let r = get(&s, "/admin/realms/scanid/keys", Some(&viewer));
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    // The key that signed the caller's token is the active one of its algorithm.
    let header = scanid_tests::jwt_header(&viewer);
    let alg = header["alg"].as_str().unwrap();
    assert_eq!(v["active"][alg], header["kid"]);
    let jwks = scanid_tests::get(&s.oidc("certs")).json();
    let published: Vec<&str> = jwks["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["kid"].as_str().unwrap())
        .collect();
    let listed: Vec<&str> = v["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["kid"].as_str().unwrap())
        .collect();
    assert_eq!(listed, published);
    for k in v["keys"].as_array().unwrap() {
        assert_eq!(k["use"], "SIG");
        assert!(["ACTIVE", "PASSIVE"].contains(&k["status"].as_str().unwrap()));
        assert!(["RSA", "EC"].contains(&k["type"].as_str().unwrap()));
    }
    // A published next key (the CLI's first rotation step) is PASSIVE until it signs.
    let next = scanid_json(&["keys", "rotate", "--alg", alg, "--data-dir", &data]);
    let kid = next["kid"].as_str().unwrap();
    let start = Instant::now();
    loop {
        let v = get(&s, "/admin/realms/scanid/keys", Some(&viewer)).json();
        let k = v["keys"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["kid"] == kid)
            .cloned();
        if let Some(k) = k {
            assert_eq!(k["status"], "PASSIVE");
            assert_eq!(v["active"][alg], header["kid"]);
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(90),
            "the next key never showed"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

fn post_json(s: &TestServer, path: &str, token: Option<&str>, body: &Value) -> Resp {
    let auth = token.map(|t| format!("Bearer {t}"));
    let mut h: Vec<(&str, &str)> = auth.iter().map(|a| ("Authorization", a.as_str())).collect();
    h.push(("Content-Type", "application/json"));
    request("POST", &s.url(path), &h, body.to_string().as_bytes())
}

#[test]
fn a_keycloak_realm_export_is_imported_with_secrets_and_every_loss_named() {
    const IMPORT: &str = "/admin/realms/scanid/partialImport";
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().display().to_string();
    let s = TestServer::start(dir.path(), &[]);
    let admin = token(
        &s,
        "importer",
        &service_account(&data, "importer", "manage-clients"),
    );
    let viewer = token(
        &s,
        "viewer",
        &service_account(&data, "viewer", "view-clients"),
    );
    let text = std::fs::read_to_string(
        scanid_tests::repo_root().join("tests/fixtures/keycloak-realm-export.json"),
    )
    .unwrap();
    let mut export: Value = serde_json::from_str(&text).unwrap();
    export["ifResourceExists"] = "FAIL".into();
    assert_eq!(post_json(&s, IMPORT, None, &export).status, 401);
    assert_eq!(post_json(&s, IMPORT, Some(&viewer), &export).status, 403);
    let r = post_json(&s, IMPORT, Some(&admin), &export);
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let mut added: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r["action"], "ADDED");
            r["resourceName"].as_str().unwrap()
        })
        .collect();
    added.sort_unstable();
    assert_eq!(
        added,
        [
            "billing-worker",
            "legacy-portal",
            "spa",
            "tv-app",
            "webshop"
        ],
        "{v}"
    );
    assert_eq!(
        (v["added"].as_u64(), v["skipped"].as_u64()),
        (Some(5), Some(0))
    );
    // Everything else is named, with why.
    let not: Vec<(String, String)> = v["notImported"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            assert!(!n["reason"].as_str().unwrap().is_empty());
            (
                n["resourceType"].as_str().unwrap().to_owned(),
                n["resourceName"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    for built_in in [
        "account",
        "account-console",
        "admin-cli",
        "broker",
        "realm-management",
        "security-admin-console",
    ] {
        assert!(
            not.contains(&("CLIENT".into(), built_in.into())),
            "{built_in}: {not:?}"
        );
    }
    for (kind, name) in [
        ("CLIENT", "https://saml.shop.example.com/metadata"),
        ("CLIENT", "orders-api"),
        ("USER", "alice"),
        ("REALM_ROLE", "shop-manager"),
        ("GROUP", "staff"),
        ("IDP", "google"),
    ] {
        assert!(
            not.contains(&(kind.into(), name.into())),
            "{kind} {name}: {not:?}"
        );
    }
    let warnings = v["warnings"].to_string();
    for lost in [
        "webshop: protocol mapper \\\"loyalty tier\\\"",
        "webshop: redirectUris \\\"https://shop.example.com/*\\\" dropped",
        "spa: the implicit flow",
        "spa: webOrigins \\\"*\\\" dropped",
        "legacy-portal: direct access grants",
        "legacy-portal: PKCE method plain",
    ] {
        assert!(warnings.contains(lost), "{lost} not in {warnings}");
    }
    // Relying parties keep their client_id and secret.
    let worker = scanid_tests::post_form(
        &s.oidc("token"),
        Some(("billing-worker", "bW9nX2JpbGxpbmdfd29ya2VyX3NlY3JldF8yMDI2")),
        &[("grant_type", "client_credentials")],
    );
    assert_eq!(worker.status, 200, "{}", worker.text());
    let shop = scanid_tests::introspect(
        &s,
        ("webshop", "wS7pQ2vX9kL4mN8rT1yU6iO3aZ5sD0fGhJ"),
        "nothing",
    );
    assert_eq!(shop["active"], false);
    let wrong = scanid_tests::post_form(
        &s.oidc("token/introspect"),
        Some(("webshop", "not-the-secret-not-the-secret-0000")),
        &[("token", "nothing")],
    );
    assert_eq!(wrong.status, 401);
    let web = get(&s, "/admin/realms/scanid/clients/webshop", Some(&admin)).json();
    assert_eq!(
        web["redirectUris"],
        serde_json::json!(["https://shop.example.com/callback"])
    );
    assert_eq!(web["attributes"]["pkce.code.challenge.method"], "S256");
    assert_eq!(
        web["attributes"]["backchannel.logout.url"],
        "https://shop.example.com/backchannel-logout"
    );
    let legacy = get(
        &s,
        "/admin/realms/scanid/clients/legacy-portal",
        Some(&admin),
    )
    .json();
    assert_eq!(legacy["enabled"], false);
    let tv = get(&s, "/admin/realms/scanid/clients/tv-app", Some(&admin)).json();
    assert_eq!(
        tv["attributes"]["oauth2.device.authorization.grant.enabled"],
        "true"
    );
    // Again: FAIL writes nothing (409), SKIP skips, OVERWRITE overwrites.
    let again = post_json(&s, IMPORT, Some(&admin), &export);
    assert_eq!(again.status, 409, "{}", again.text());
    export["ifResourceExists"] = "SKIP".into();
    let v = post_json(&s, IMPORT, Some(&admin), &export).json();
    assert_eq!(
        (v["added"].as_u64(), v["skipped"].as_u64()),
        (Some(0), Some(5)),
        "{v}"
    );
    export["ifResourceExists"] = "OVERWRITE".into();
    let v = post_json(&s, IMPORT, Some(&admin), &export).json();
    assert_eq!(v["overwritten"].as_u64(), Some(5), "{v}");
    // A malformed body is a 400 and writes nothing.
    let bad = serde_json::json!({"clients": [{"name": "no client id"}]});
    assert_eq!(post_json(&s, IMPORT, Some(&admin), &bad).status, 400);
}

#[test]
fn the_cli_imports_a_keycloak_realm_export() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().display().to_string();
    let export = scanid_tests::repo_root().join("tests/fixtures/keycloak-realm-export.json");
    let export = export.to_str().unwrap();
    let v = scanid_json(&["client", "import", export, "--data-dir", &data]);
    assert_eq!(
        (v["added"].as_u64(), v["skipped"].as_u64()),
        (Some(5), Some(0)),
        "{v}"
    );
    let not = v["notImported"].to_string();
    for name in [
        "\"account\"",
        "\"admin-cli\"",
        "\"alice\"",
        "\"orders-api\"",
        "\"google\"",
    ] {
        assert!(not.contains(name), "{name} not in {not}");
    }
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("spa: the implicit flow"), "{warnings}");
    assert!(warnings.contains("webshop: protocol mapper"), "{warnings}");
    // Again: stops, writes nothing; with --skip-existing, skips.
    let again = scanid_tests::scanid(&["client", "import", export, "--data-dir", &data]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists already"));
    let v = scanid_json(&[
        "client",
        "import",
        export,
        "--skip-existing",
        "--data-dir",
        &data,
    ]);
    assert_eq!(
        (v["added"].as_u64(), v["skipped"].as_u64()),
        (Some(0), Some(5)),
        "{v}"
    );
    // The service account keeps its secret.
    let s = TestServer::start(dir.path(), &[]);
    let worker = scanid_tests::post_form(
        &s.oidc("token"),
        Some(("billing-worker", "bW9nX2JpbGxpbmdfd29ya2VyX3NlY3JldF8yMDI2")),
        &[("grant_type", "client_credentials")],
    );
    assert_eq!(worker.status, 200, "{}", worker.text());
}

#[test]
fn events_are_stored_and_queried_on_dynamodb() {
    let op = scanid_tests::Operator::on_emulator("kms-envelope");
    let events_table = format!("{}-events", op.table().unwrap());
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let endpoint = std::env::var("SCANID_TEST_AWS_ENDPOINT").unwrap();
        let config = scanid_aws::emulator(&endpoint).await;
        scanid_aws::events::DynamoEvents::new(&config, &events_table)
            .create_table()
            .await
            .unwrap();
    });
    let flags = op.flag_strs();
    let mut create = vec![
        "client",
        "create",
        "--name",
        "auditor",
        "--client-id",
        "auditor",
    ];
    create.extend(["--client-credentials", "--admin-role", "view-events"]);
    create.extend(&flags);
    let secret = scanid_json(&create)["client_secret"]
        .as_str()
        .unwrap()
        .to_owned();
    let dir = tempfile::tempdir().unwrap();
    let mut serve = flags.to_vec();
    serve.extend(["--events-table", &events_table]);
    let s = TestServer::start(dir.path(), &serve);
    let auditor = token(&s, "auditor", &secret);
    let mine = events_until(
        &s,
        &format!("{EVENTS}?client=auditor&type=CLIENT_LOGIN"),
        &auditor,
        |v| !v.is_empty(),
    );
    assert_eq!(mine.len(), 1, "{mine:?}");
    assert_eq!(mine[0]["details"]["detail"], "client_credentials");
    let today = get(&s, &format!("{EVENTS}?type=CLIENT_LOGIN"), Some(&auditor)).json();
    assert!(today
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["clientId"] == "auditor"));
    let admin = events_until(
        &s,
        &format!("{ADMIN_EVENTS}?authClient=auditor"),
        &auditor,
        |v| !v.is_empty(),
    );
    assert!(admin
        .iter()
        .all(|e| e["authDetails"]["clientId"] == "auditor"));
}
