//! Key rotation through the admin API (issue 37), from outside against the real `scanid
//! serve`: `POST .../keys/rotate` publishes a next key (in the JWKS and `GET .../keys` as
//! `PASSIVE`), refuses to activate it before 300 s (`force=true` skips the wait, as the CLI's
//! `--force`), then activates it (tokens signed with it, older tokens still verify);
//! `DELETE .../keys/{kid}` refuses the active key and a key whose tokens may be live, then
//! forgets it (its tokens stop verifying). `realm-admin` only; python-keycloak drives the same
//! through its connection. On SQLite (local keys) and DynamoDB (moto, kms-envelope); in `kms`
//! mode publishing is the CLI's (a 400 saying so), activating and removing are calls.

use scanid_tests::{bearer_call, client_token, scanid_json, Resp, TestServer};
use serde_json::Value;

const KEYS: &str = "/admin/realms/scanid/keys";

fn call(s: &TestServer, method: &str, path: &str, token: Option<&str>) -> Resp {
    bearer_call(s, method, path, token, None)
}

fn kid_of(token: &str) -> String {
    scanid_tests::jwt_header(token)["kid"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn jwks_kids(s: &TestServer) -> Vec<String> {
    scanid_tests::get(&s.oidc("certs")).json()["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["kid"].as_str().unwrap().to_owned())
        .collect()
}

fn status_of(keys: &Value, kid: &str) -> Option<String> {
    keys["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kid"] == kid)
        .map(|k| k["status"].as_str().unwrap().to_owned())
}

/// The whole rotation of RS256 through the API, by `keyadmin` (`realm-admin`) and refused to
/// `viewer` (`view-clients`).
fn rotate_through_the_api(s: &TestServer, admin_secret: &str, viewer_secret: &str, events: bool) {
    let rotate = format!("{KEYS}/rotate");
    let viewer = client_token(s, "viewer", viewer_secret);
    let old_token = client_token(s, "keyadmin", admin_secret);
    let old = kid_of(&old_token);
    // Refusals: no token 401, a role other than realm-admin 403 (nothing changes).
    assert_eq!(call(s, "POST", &rotate, None).status, 401);
    let r = call(s, "POST", &rotate, Some(&viewer));
    assert_eq!(r.status, 403, "{}", r.text());
    let r = call(s, "DELETE", &format!("{KEYS}/{old}"), Some(&viewer));
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(
        call(s, "GET", KEYS, Some(&viewer)).status,
        200,
        "viewing is any role's"
    );
    let before = jwks_kids(s);
    // Bad input: a clear 400.
    let r = call(s, "POST", &format!("{rotate}?alg=HS256"), Some(&old_token));
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(
        r.text().contains("RS256, ES256, PS256 or EdDSA"),
        "{}",
        r.text()
    );
    let r = call(s, "POST", &format!("{rotate}?force=yes"), Some(&old_token));
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(jwks_kids(s), before, "refused calls change nothing");

    // Step 1: a next key, published (this server sees it at once) but not signing.
    let r = call(s, "POST", &format!("{rotate}?alg=RS256"), Some(&old_token));
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["step"], "published", "{v}");
    let next = v["kid"].as_str().unwrap().to_owned();
    assert!(v["activate_after"].is_string(), "{v}");
    assert!(jwks_kids(s).contains(&next), "the next key is in the JWKS");
    let keys = call(s, "GET", KEYS, Some(&viewer)).json();
    assert_eq!(
        status_of(&keys, &next).as_deref(),
        Some("PASSIVE"),
        "{keys}"
    );
    assert_eq!(keys["active"]["RS256"], old.as_str());
    assert_eq!(
        kid_of(&client_token(s, "keyadmin", admin_secret)),
        old,
        "next does not sign"
    );

    // Step 2 before 300 s: refused, naming the wait.
    let r = call(s, "POST", &rotate, Some(&old_token));
    assert_eq!(r.status, 409, "{}", r.text());
    assert!(
        r.text().contains("published less than 300 s ago"),
        "{}",
        r.text()
    );
    // ...and with force (the CLI's --force: 300 s are not waited in a test), activated.
    let r = call(s, "POST", &format!("{rotate}?force=true"), Some(&old_token));
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(
        (v["step"].as_str(), v["kid"].as_str()),
        (Some("activated"), Some(next.as_str()))
    );
    assert!(v["remove_retired_after"].is_string(), "{v}");
    let new_token = client_token(s, "keyadmin", admin_secret);
    assert_eq!(
        kid_of(&new_token),
        next,
        "tokens are signed with the new key"
    );
    let keys = call(s, "GET", KEYS, Some(&old_token)).json();
    assert_eq!(
        keys["active"]["RS256"],
        next.as_str(),
        "old tokens still verify: {keys}"
    );
    assert_eq!(status_of(&keys, &old).as_deref(), Some("PASSIVE"));

    // Step 3: the active key never goes; the retired one not while its tokens may live.
    let r = call(s, "DELETE", &format!("{KEYS}/{next}"), Some(&new_token));
    assert_eq!(r.status, 409, "{}", r.text());
    assert!(r.text().contains("is active"), "{}", r.text());
    let r = call(s, "DELETE", &format!("{KEYS}/{old}"), Some(&new_token));
    assert_eq!(r.status, 409, "{}", r.text());
    assert!(
        r.text().contains("tokens it signed may be live"),
        "{}",
        r.text()
    );
    let r = call(
        s,
        "DELETE",
        &format!("{KEYS}/no-such-kid"),
        Some(&new_token),
    );
    assert_eq!(r.status, 404, "{}", r.text());
    let r = call(
        s,
        "DELETE",
        &format!("{KEYS}/{old}?force=true"),
        Some(&new_token),
    );
    assert_eq!(r.status, 204, "{}", r.text());
    assert!(
        !jwks_kids(s).contains(&old),
        "the removed key is gone from the JWKS"
    );
    assert_eq!(
        call(s, "GET", KEYS, Some(&old_token)).status,
        401,
        "its tokens no longer verify"
    );
    let keys = call(s, "GET", KEYS, Some(&new_token)).json();
    assert_eq!(status_of(&keys, &old), None, "{keys}");
    // Every call is an admin event (stored within a second or so where events are kept).
    if !events {
        return;
    }
    let start = std::time::Instant::now();
    loop {
        let r = call(
            s,
            "GET",
            "/admin/realms/scanid/admin-events?authClient=keyadmin&max=100",
            Some(&new_token),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        let events = r.json();
        let ops: Vec<String> = events
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| e["details"]["operation"].as_str().map(str::to_owned))
            .collect();
        if ops.iter().any(|o| o == "keys.rotate") && ops.iter().any(|o| o == "keys.delete") {
            break;
        }
        assert!(
            start.elapsed().as_secs() < 10,
            "no keys.* admin events: {ops:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

/// python-keycloak's KeycloakAdmin (it has no rotate call: its connection's raw calls, with
/// its own token) rotates ES256 the same way.
fn rotate_with_python_keycloak(s: &TestServer, admin_secret: &str, viewer_secret: &str) {
    let out = std::process::Command::new(scanid_tests::python())
        .arg(scanid_tests::repo_root().join("tests/py/keycloak_keys.py"))
        .args([
            s.base.as_str(),
            "scanid",
            "keyadmin",
            admin_secret,
            "viewer",
            viewer_secret,
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "keycloak_keys.py (pip install -r tests/py/requirements.txt): {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["ok"], true, "{last}");
}

fn create(flags: &[&str], id: &str, role: &str) -> String {
    let mut args = vec!["client", "create", "--name", id, "--client-id", id];
    args.extend(["--client-credentials", "--admin-role", role]);
    args.extend(flags);
    scanid_json(&args)["client_secret"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn keys_are_rotated_through_the_admin_api_with_local_keys() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().display().to_string();
    let flags = ["--data-dir", data.as_str()];
    let admin = create(&flags, "keyadmin", "realm-admin");
    let viewer = create(&flags, "viewer", "view-clients");
    let s = TestServer::start(dir.path(), &[]);
    rotate_through_the_api(&s, &admin, &viewer, true);
    rotate_with_python_keycloak(&s, &admin, &viewer);
    // The CLI sees the API's rotations in the key file: both algorithms' keys are new.
    let listed = scanid_json(&["keys", "list", "--data-dir", &data]);
    assert_eq!(listed["keys"].as_array().unwrap().len(), 2, "{listed}");
    assert!(listed["keys"]
        .as_array()
        .unwrap()
        .iter()
        .all(|k| k["state"] == "active"));
}

fn init(signing: &str) -> (String, String) {
    scanid_tests::require_emulator();
    let table = format!("scanid-it-{}", uuid::Uuid::new_v4().simple());
    let out = scanid_json(&[
        "aws",
        "init",
        "--table",
        &table,
        "--signing",
        signing,
        "--create-kms-key",
    ]);
    (table, out["kms_key_id"].as_str().unwrap().to_owned())
}

#[test]
fn keys_are_rotated_through_the_admin_api_on_dynamodb_with_kms_envelope() {
    let (table, key_id) = init("kms-envelope");
    let flags = [
        "--table",
        table.as_str(),
        "--signing",
        "kms-envelope",
        "--kms-key-id",
        key_id.as_str(),
    ];
    let admin = create(&flags, "keyadmin", "realm-admin");
    let viewer = create(&flags, "viewer", "view-clients");
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &flags);
    rotate_through_the_api(&s, &admin, &viewer, false);
    rotate_with_python_keycloak(&s, &admin, &viewer);
    let mut list = vec!["keys", "list"];
    list.extend(flags);
    let listed = scanid_json(&list);
    assert_eq!(listed["keys"].as_array().unwrap().len(), 2, "{listed}");
    assert!(
        listed["keys"]
            .as_array()
            .unwrap()
            .iter()
            .all(|k| k["held_by"]["kms_envelope"].is_string()),
        "the API's keys are wrapped as the CLI's: {listed}"
    );
}

#[test]
fn in_kms_mode_publishing_is_the_clis_and_activating_a_call() {
    let (table, key_id) = init("kms");
    let flags = [
        "--table",
        table.as_str(),
        "--signing",
        "kms",
        "--kms-key-id",
        key_id.as_str(),
    ];
    let admin = create(&flags, "keyadmin", "realm-admin");
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &flags);
    let t = client_token(&s, "keyadmin", &admin);
    let rotate = format!("{KEYS}/rotate");
    let r = call(&s, "POST", &rotate, Some(&t));
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("scanid keys rotate"), "{}", r.text());
    // The operator publishes the new KMS key; the API activates it.
    let mut cli = vec!["keys", "rotate", "--alg", "RS256"];
    cli.extend(flags);
    let next = scanid_json(&cli)["kid"].as_str().unwrap().to_owned();
    let r = call(&s, "POST", &format!("{rotate}?force=true"), Some(&t));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["kid"], next.as_str());
    assert_eq!(kid_of(&client_token(&s, "keyadmin", &admin)), next);
}
