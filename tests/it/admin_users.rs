//! The identities part of Keycloak's admin REST API (`.../users...`, `.../groups`) against the
//! real `scanid serve`, from outside, on SQLite and on DynamoDB (moto): list, search and count;
//! `view-users` reads but cannot change; disabling through `PUT` makes the identity's tokens
//! inactive at once (introspection, userinfo, refresh) and tells its clients by back-channel
//! logout, and it cannot log in until enabled again; fields scanid cannot change are refused by
//! name; groups added and removed show in the next ID token's `groups` claim; the sessions
//! list and `logout` ending them; the keys as credentials; delete. Then python-keycloak
//! (tests/py/keycloak_admin_users.py) doing the same unchanged.

use std::process::Command;
use std::time::Duration;

use scanid_tests::{
    auth_url, bearer_call, client_token, code_of, introspect, jwt_claims, login, number_shown,
    open, params_of, post_form, post_receiver, python, redeem, repo_root, request, userinfo,
    Browser, Operator, Resp, TestApp, TestServer, CB,
};
use serde_json::{json, Value};

const USERS: &str = "/admin/realms/scanid/users";

fn get(s: &TestServer, path: &str, token: &str) -> Value {
    let r = bearer_call(s, "GET", path, Some(token), None);
    assert_eq!(r.status, 200, "GET {path}: {}", r.text());
    r.json()
}

fn names(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|u| u["username"].as_str().unwrap())
        .collect()
}

/// A login to Shop with `scope` in a fresh browser: the tokens.
fn shop_login(s: &TestServer, app: &TestApp, secret: &str) -> Value {
    let mut b = Browser::new();
    let url = auth_url(
        s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("scope", "openid groups"),
            ("state", "st"),
            ("nonce", "n"),
        ],
    );
    let r = login(&mut b, s, app, &url);
    redeem(s, ("shop", secret), &code_of(&r))
}

fn refresh(s: &TestServer, secret: &str, t: &Value) -> Resp {
    post_form(
        &s.oidc("token"),
        Some(("shop", secret)),
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", t["refresh_token"].as_str().unwrap()),
        ],
    )
}

/// The relying party's view of dead tokens: refresh refused, introspection inactive,
/// userinfo 401.
fn dead(s: &TestServer, secret: &str, t: &Value) {
    let r = refresh(s, secret, t);
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_grant");
    let at = t["access_token"].as_str().unwrap();
    assert_eq!(
        introspect(s, ("shop", secret), at),
        json!({ "active": false })
    );
    assert_eq!(userinfo(s, at).status, 401);
}

fn groups_claim(t: &Value) -> Value {
    jwt_claims(t["id_token"].as_str().unwrap())
        .get("groups")
        .cloned()
        .unwrap_or(json!([]))
}

/// The scenario on one store.
fn scenario(s: &TestServer, op: &Operator, backchannel: bool) {
    let hr = client_token(s, "hr", &op.service_account("hr", &["manage-users"]));
    let auditor = client_token(
        s,
        "auditor",
        &op.service_account("auditor", &["view-users"]),
    );
    let clerk = client_token(
        s,
        "clerk",
        &op.service_account("clerk", &["manage-clients"]),
    );
    // Back-channel logout to a loopback receiver: only in local development (the embedded
    // store); on DynamoDB a loopback URI is refused (the queue's delivery is tested in aws.rs).
    let (bcl, received) = post_receiver(200);
    let mut args = vec!["client", "create", "--name", "Shop", "--client-id", "shop"];
    args.extend(["--redirect-uri", CB]);
    if backchannel {
        args.extend([
            "--backchannel-logout-uri",
            &bcl,
            "--public-url",
            "http://127.0.0.1",
        ]);
    }
    let shop = op.run(&args);
    let secret = shop["client_secret"].as_str().unwrap().to_owned();
    let alice = TestApp::enroll(s, "alice");
    let bob = TestApp::enroll(s, "bob");
    let me = format!("{USERS}/{}", alice.sub);

    // Who may call: no token 401, a clients admin 403, view-users reads.
    assert_eq!(bearer_call(s, "GET", USERS, None, None).status, 401);
    assert_eq!(bearer_call(s, "GET", USERS, Some(&clerk), None).status, 403);
    let all = get(s, USERS, &auditor);
    assert_eq!(names(&all), ["alice", "bob"]);
    // With a trailing slash, as Keycloak's admin client asks (and API Gateway routes it).
    assert_eq!(get(s, &format!("{USERS}/"), &auditor), all);
    let a = &all[0];
    assert_eq!(a["id"], alice.sub.as_str());
    assert_eq!(a["enabled"], true);
    assert_eq!(
        (a["firstName"].as_str(), a["lastName"].as_str()),
        (Some(""), Some(""))
    );
    assert_eq!(a["attributes"]["service_id"], json!([alice.service_id]));
    assert!(a["createdTimestamp"].as_i64().unwrap() > 1_700_000_000_000);
    // Search, exact, paging, count, the service_id attribute.
    assert_eq!(
        names(&get(s, &format!("{USERS}?search=LIC"), &auditor)),
        ["alice"]
    );
    assert_eq!(
        names(&get(
            s,
            &format!("{USERS}?username=ali&exact=true"),
            &auditor
        ))
        .len(),
        0
    );
    assert_eq!(
        names(&get(
            s,
            &format!("{USERS}?username=alice&exact=true"),
            &auditor
        )),
        ["alice"]
    );
    assert_eq!(
        names(&get(s, &format!("{USERS}?first=1&max=1"), &auditor)),
        ["bob"]
    );
    let by_sid = format!("{USERS}?q=service_id:{}", bob.service_id);
    assert_eq!(names(&get(s, &by_sid, &auditor)), ["bob"]);
    assert_eq!(get(s, &format!("{USERS}/count"), &auditor), json!(2));
    assert_eq!(
        get(s, &format!("{USERS}/count?search=bo"), &auditor),
        json!(1)
    );
    assert_eq!(get(s, &me, &auditor)["username"], "alice");
    assert_eq!(
        bearer_call(
            s,
            "GET",
            &format!("{USERS}/no-such-sub"),
            Some(&auditor),
            None
        )
        .status,
        404
    );
    assert_eq!(
        bearer_call(s, "GET", &format!("{USERS}?max=x"), Some(&auditor), None).status,
        400
    );

    // view-users cannot change anything.
    let off = json!({ "enabled": false });
    assert_eq!(
        bearer_call(s, "PUT", &me, Some(&auditor), Some(&off)).status,
        403
    );
    assert_eq!(
        bearer_call(
            s,
            "PUT",
            &format!("{me}/groups/staff"),
            Some(&auditor),
            None
        )
        .status,
        403
    );
    assert_eq!(
        bearer_call(s, "POST", &format!("{me}/logout"), Some(&auditor), None).status,
        403
    );
    assert_eq!(
        bearer_call(s, "DELETE", &me, Some(&auditor), None).status,
        403
    );
    assert_eq!(get(s, &me, &auditor)["enabled"], true);

    // Groups: added, in the next ID token; listed; removed, gone from the next.
    let t1 = shop_login(s, &alice, &secret);
    assert_eq!(groups_claim(&t1), json!([]));
    assert_eq!(
        bearer_call(s, "PUT", &format!("{me}/groups/staff"), Some(&hr), None).status,
        204
    );
    assert_eq!(
        bearer_call(
            s,
            "PUT",
            &format!("{me}/groups/bad%20name"),
            Some(&hr),
            None
        )
        .status,
        400
    );
    // A group named as an admin role is out of a manage-users account's reach.
    let role_group = format!("{me}/groups/realm-admin");
    assert_eq!(
        bearer_call(s, "PUT", &role_group, Some(&hr), None).status,
        403
    );
    // A group with a `/` in its name, as `%2F` in the path.
    let bob_groups = format!("{USERS}/{}/groups", bob.sub);
    let nested = format!("{bob_groups}/org%2Fdev");
    assert_eq!(bearer_call(s, "PUT", &nested, Some(&hr), None).status, 204);
    let bg = get(s, &bob_groups, &auditor);
    assert_eq!(
        (bg[0]["name"].as_str(), bg[0]["path"].as_str()),
        (Some("org/dev"), Some("/org/dev"))
    );
    let g = get(s, &format!("{me}/groups"), &auditor);
    assert_eq!(g.as_array().unwrap().len(), 1, "{g}");
    assert_eq!(
        (g[0]["id"].as_str(), g[0]["name"].as_str()),
        (Some("staff"), Some("staff"))
    );
    assert_eq!(g[0]["path"], "/staff");
    let all_groups = get(s, "/admin/realms/scanid/groups", &auditor);
    let group_names: Vec<&str> = all_groups
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    assert_eq!(group_names, ["org/dev", "staff"]);
    let groups_path = "/admin/realms/scanid/groups";
    assert_eq!(
        get(s, &format!("{groups_path}/staff"), &auditor)["path"],
        "/staff"
    );
    let members = get(s, &format!("{groups_path}/staff/members"), &auditor);
    assert_eq!(names(&members), ["alice"]);
    let members = get(s, &format!("{groups_path}/org%2Fdev/members"), &auditor);
    assert_eq!(names(&members), ["bob"]);
    let none = bearer_call(
        s,
        "GET",
        &format!("{groups_path}/nobody"),
        Some(&auditor),
        None,
    );
    assert_eq!(none.status, 404);
    let t2 = shop_login(s, &alice, &secret);
    assert_eq!(groups_claim(&t2), json!(["staff"]));
    assert_eq!(
        bearer_call(s, "DELETE", &format!("{me}/groups/staff"), Some(&hr), None).status,
        204
    );
    assert_eq!(get(s, &format!("{me}/groups"), &auditor), json!([]));
    let t3 = shop_login(s, &alice, &secret);
    assert_eq!(groups_claim(&t3), json!([]));

    // Its sessions, and its keys (no secret).
    let sessions = get(s, &format!("{me}/sessions"), &auditor);
    let sessions = sessions.as_array().unwrap();
    assert!(!sessions.is_empty());
    for x in sessions {
        assert_eq!(x["userId"], alice.sub.as_str());
        assert_eq!(x["username"], "alice");
        assert_eq!(x["clients"]["shop"], "shop");
    }
    let creds = get(s, &format!("{me}/credentials"), &auditor);
    assert_eq!(creds[0]["type"], "device-key");
    assert!(creds[0].get("secretData").is_none());

    // What scanid cannot change is refused by name; nothing changes.
    for (body, field) in [
        (json!({"username": "mallory", "enabled": false}), "username"),
        (json!({"firstName": "Al"}), "firstName"),
        (
            json!({"attributes": {"service_id": ["other"]}}),
            "service_id",
        ),
        (
            json!({"credentials": [{"type": "password", "value": "x"}]}),
            "credentials",
        ),
    ] {
        let r = bearer_call(s, "PUT", &me, Some(&hr), Some(&body));
        assert_eq!(r.status, 400, "{body}: {}", r.text());
        assert!(r.text().contains(field), "{body}: {}", r.text());
    }
    let r = request(
        "PUT",
        &s.url(&me),
        &[
            ("Authorization", &format!("Bearer {hr}")),
            ("Content-Type", "application/json"),
        ],
        b"{\"enabled\":",
    );
    assert_eq!(r.status, 400);
    let r = request(
        "PUT",
        &s.url(&me),
        &[
            ("Authorization", &format!("Bearer {hr}")),
            ("Content-Type", "text/plain"),
        ],
        b"{}",
    );
    assert_eq!(r.status, 415);
    assert_eq!(get(s, &me, &auditor)["enabled"], true);
    assert!(refresh(s, &secret, &t3).status == 200);

    // A login the identity scanned before it was disabled: its approval is refused after.
    let login_url = auth_url(
        s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("scope", "openid"),
            ("state", "st"),
        ],
    );
    let mut pending = Browser::new();
    let (_, pending_payload) = open(&mut pending, &login_url);
    assert_eq!(alice.scan(&pending_payload).status, 200);

    // Disable with the representation as read (what the tools send back): its tokens die at
    // once, its client is told, it cannot log in.
    let mut rep = get(s, &me, &hr);
    rep["enabled"] = json!(false);
    assert_eq!(
        bearer_call(s, "PUT", &me, Some(&hr), Some(&rep)).status,
        204
    );
    assert_eq!(get(s, &me, &auditor)["enabled"], false);
    assert_eq!(
        names(&get(s, &format!("{USERS}?enabled=false"), &auditor)),
        ["alice"]
    );
    dead(s, &secret, &t2);
    if backchannel {
        let logout_token = received
            .recv_timeout(Duration::from_secs(10))
            .expect("a back-channel logout for the disabled identity's session");
        assert!(logout_token.contains("logout_token"), "{logout_token}");
    }
    let mut b = Browser::new();
    let (_, payload) = open(&mut b, &login_url);
    assert_ne!(
        alice.scan(&payload).status,
        200,
        "a disabled identity scanned a login"
    );
    let number = number_shown(&mut pending, &pending_payload);
    assert!(number.is_some(), "the pending login's page shows a number");
    let jws = alice.approval(&pending_payload, "approve", number);
    let session = params_of(&pending_payload)["session"].clone();
    let r = alice.post_decision(&session, &jws);
    assert!(
        r.status >= 400,
        "a disabled identity approved a login: {}",
        r.text()
    );
    assert!(r.text().contains("unknown identity"), "{}", r.text());

    // Enabled again: it logs in.
    assert_eq!(
        bearer_call(s, "PUT", &me, Some(&hr), Some(&json!({"enabled": true}))).status,
        204
    );
    let t4 = shop_login(s, &alice, &secret);

    // Logout ends every session and token.
    assert_eq!(
        bearer_call(s, "POST", &format!("{me}/logout"), Some(&hr), None).status,
        204
    );
    dead(s, &secret, &t4);
    assert_eq!(get(s, &format!("{me}/sessions"), &auditor), json!([]));
    let t5 = shop_login(s, &alice, &secret);
    assert_eq!(refresh(s, &secret, &t5).status, 200);

    // Delete: gone, its tokens dead, its client told.
    let bob_path = format!("{USERS}/{}", bob.sub);
    assert_eq!(
        bearer_call(s, "DELETE", &bob_path, Some(&hr), None).status,
        204
    );
    assert_eq!(
        bearer_call(s, "GET", &bob_path, Some(&auditor), None).status,
        404
    );
    assert_eq!(
        bearer_call(s, "DELETE", &bob_path, Some(&hr), None).status,
        404
    );
    assert_eq!(bearer_call(s, "DELETE", &me, Some(&hr), None).status, 204);
    dead(s, &secret, &t5);
    if backchannel {
        received
            .recv_timeout(Duration::from_secs(10))
            .expect("a back-channel logout for the deleted identity's session");
    }
    assert_eq!(get(s, &format!("{USERS}/count"), &auditor), json!(0));
}

#[test]
fn admin_api_identities_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start_with_audit(dir.path(), &["--auth-failure-rate-per-minute", "1000"]);
    let op = Operator {
        flags: vec!["--data-dir".into(), dir.path().display().to_string()],
    };
    scenario(&s, &op, true);
    let events = s.audit_events_until(|e| e.iter().any(|e| e["detail"] == "users.delete"));
    let disable = events
        .iter()
        .find(|e| {
            e["event"] == "admin.call" && e["detail"] == "users.update" && e["outcome"] == "success"
        })
        .expect("an admin.call event for the update");
    assert_eq!(disable["client_id"], "hr");
    assert!(
        disable["object"].as_str().is_some_and(|o| o.len() == 36),
        "{disable}"
    );
    assert!(events.iter().any(|e| e["event"] == "admin.refused"
        && e["detail"] == "users.update"
        && e["outcome"] == "forbidden"));
}

#[test]
fn admin_api_identities_on_dynamodb() {
    let op = Operator::on_emulator("kms-envelope");
    let dir = tempfile::tempdir().unwrap();
    let mut serve = op.flag_strs();
    serve.extend(["--auth-failure-rate-per-minute", "1000"]);
    let s = TestServer::start(dir.path(), &serve);
    scenario(&s, &op, false);
}

#[test]
fn python_keycloak_manages_identities() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &["--auth-failure-rate-per-minute", "1000"]);
    let op = Operator {
        flags: vec!["--data-dir".into(), dir.path().display().to_string()],
    };
    let admin = op.service_account("helpdesk", &["manage-users"]);
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
    let secret = shop["client_secret"].as_str().unwrap().to_owned();
    let alice = TestApp::enroll(&s, "alice");
    let t = shop_login(&s, &alice, &secret);
    let out = Command::new(python())
        .arg(repo_root().join("tests/py/keycloak_admin_users.py"))
        .args([
            s.base.as_str(),
            "scanid",
            "helpdesk",
            &admin,
            &alice.sub,
            "shop",
            &secret,
            t["access_token"].as_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "keycloak_admin_users.py (pip install -r tests/py/requirements.txt): {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // What it did is what the relying party sees: disabled, the tokens are dead.
    dead(&s, &secret, &t);
}
