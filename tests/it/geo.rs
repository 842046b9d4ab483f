//! Where a login came from (issue 24): `scanid serve --geoip-db` with MaxMind DB files the
//! tests write themselves (`tests/py/geoip_db.py`, PyPI mmdb-writer), the browser and the
//! phone at different addresses (`--trusted-proxy 127.0.0.1` and `X-Forwarded-For`, as an
//! operator's load balancer sends it), the scan answer, the client's refuse policy, the
//! recent logins and the reference app's screen.

use std::path::{Path, PathBuf};

use scanid_tests::{
    auth_url, create_shop, params_of, python, repo_root, request, scanid, scanid_json, Browser,
    Resp, TestApp, TestServer, CB,
};
use serde_json::{json, Value};

/// The attacker's browser: Lagos, NG, AS64501 in the test database.
const ATTACKER: &str = "203.0.113.66";
/// The victim's phone: Stockholm, SE, AS64500.
const VICTIM_PHONE: &str = "198.51.100.7";
/// The victim's laptop, at home with the phone.
const VICTIM_LAPTOP: &str = "198.51.100.20";

/// Writes the test databases into `dir`: `city.mmdb`, `asn.mmdb` and `both.mmdb`.
pub fn geoip_dbs(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let out = std::process::Command::new(python())
        .arg(repo_root().join("tests/py/geoip_db.py"))
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "tests/py/geoip_db.py (pip install -r tests/py/requirements.txt): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        dir.join("city.mmdb"),
        dir.join("asn.mmdb"),
        dir.join("both.mmdb"),
    )
}

fn shop_auth(s: &TestServer) -> String {
    auth_url(
        s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("state", "st-1"),
            ("nonce", "n-1"),
            ("scope", "openid"),
        ],
    )
}

/// A login page opened by a browser at `from`: the QR payload.
fn started_from(s: &TestServer, from: &str) -> (Browser, String) {
    let mut b = Browser::new();
    let page = b.send("GET", &shop_auth(s), &[("X-Forwarded-For", from)], b"");
    assert_eq!(page.status, 200, "{}", page.text());
    let payload =
        scanid_tests::attr(&page.text(), "id=\"app-link\"", "data-qr-payload").expect("a QR");
    (b, payload)
}

/// The phone at `from` scans `payload`.
fn scan_from(payload: &str, from: &str) -> Resp {
    request(
        "GET",
        payload,
        &[("Accept", "application/json"), ("X-Forwarded-For", from)],
        b"",
    )
}

/// The phone at `from` approves or denies `payload`.
fn decide_from(
    app: &TestApp,
    browser: &mut Browser,
    payload: &str,
    decision: &str,
    from: &str,
) -> Resp {
    // Number matching: the number the login's page shows once the phone has scanned.
    let number = scanid_tests::number_shown(browser, payload);
    let jws = app.approval(payload, decision, number);
    request(
        "POST",
        &format!(
            "{}/app/login-sessions/{}",
            app.issuer,
            params_of(payload)["session"]
        ),
        &[
            ("Content-Type", "application/json"),
            ("X-Forwarded-For", from),
        ],
        json!({ "approval": jws }).to_string().as_bytes(),
    )
}

/// The identity's recent logins, as its app reads them.
fn activity(app: &TestApp) -> Vec<Value> {
    let jws = TestApp::sign(&app.key, "activity+jwt", &app.request_claims());
    let r = request(
        "POST",
        &format!("{}/app/identities/{}/activity", app.issuer, app.sub),
        &[("Content-Type", "application/json")],
        json!({ "activity": jws }).to_string().as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["logins"].as_array().unwrap().clone()
}

fn data_dir(d: &Path) -> &str {
    d.to_str().unwrap()
}

#[test]
fn the_phone_sees_the_attackers_location_and_a_refusing_client_cancels_the_approval() {
    let d = tempfile::tempdir().unwrap();
    let dir = data_dir(d.path()).to_owned();
    refusal_flow(d.path(), &["--data-dir", &dir]);
}

#[test]
fn the_same_on_dynamodb() {
    let op = scanid_tests::Operator::on_emulator("kms-envelope");
    let d = tempfile::tempdir().unwrap();
    refusal_flow(d.path(), &op.flag_strs());
}

/// `scanid client ARGS` on the store `store` names.
fn client_cmd(args: &[&str], store: &[&str]) -> Value {
    let mut all = vec!["client"];
    all.extend_from_slice(args);
    all.extend_from_slice(store);
    scanid_json(&all)
}

/// The attacker in Lagos relays a QR to the victim in Stockholm; the shop refuses a location
/// mismatch, then only warns. `store`: the store flags of the operator commands (and of the
/// server, but for the data dir, which is its own).
fn refusal_flow(d: &Path, store: &[&str]) {
    let (city, asn, _) = geoip_dbs(d);
    client_cmd(
        &[
            "create",
            "--name",
            "Shop",
            "--client-id",
            "shop",
            "--redirect-uri",
            CB,
            "--refuse-on",
            "location_mismatch",
        ],
        store,
    );
    let shown = client_cmd(&["show", "--client-id", "shop"], store);
    assert_eq!(shown["refuse_on"], json!(["location_mismatch"]));
    let mut flags = vec![
        "--trusted-proxy",
        "127.0.0.1",
        "--geoip-db",
        city.to_str().unwrap(),
        "--geoip-db",
        asn.to_str().unwrap(),
    ];
    if store.first() != Some(&"--data-dir") {
        flags.extend_from_slice(store);
    }
    let s = TestServer::start_with_audit(d, &flags);
    let app = TestApp::enroll(&s, "victim");

    // The attacker opens the login page and relays its QR to the victim.
    let (mut browser, payload) = started_from(&s, ATTACKER);
    let r = scan_from(&payload, VICTIM_PHONE);
    assert_eq!(r.status, 200, "{}", r.text());
    let info = r.json();
    assert_eq!(
        info["browser"]["location"],
        json!({ "city": "Lagos", "country": "Nigeria", "country_code": "NG" })
    );
    assert_eq!(
        info["browser"]["network"],
        json!({ "asn": 64501, "org": "Example West Africa Networks" })
    );
    assert_eq!(info["browser"]["ip"], ATTACKER);
    assert_eq!(info["phone"]["ip"], VICTIM_PHONE);
    assert_eq!(info["phone"]["location"]["city"], "Stockholm");
    assert_eq!(info["phone"]["network"]["asn"], 64500);
    assert_eq!(info["flags"], json!(["location_mismatch"]));
    assert_eq!(info["refused"], true);
    assert!(info["requested_at"].as_str().unwrap().ends_with('Z'));

    // The client refuses: 403 login_refused, and the login is cancelled for good.
    let r = decide_from(&app, &mut browser, &payload, "approve", VICTIM_PHONE);
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(r.json()["error"], "login_refused");
    assert_eq!(r.json()["flags"], json!(["location_mismatch"]));
    let again = decide_from(&app, &mut browser, &payload, "approve", VICTIM_PHONE);
    assert_eq!(again.status, 409, "{}", again.text());
    let logins = activity(&app);
    assert_eq!(logins.len(), 1);
    assert_eq!(logins[0]["outcome"], "refused");
    assert_eq!(logins[0]["location"]["city"], "Lagos");
    assert_eq!(logins[0]["network"]["asn"], 64501);
    assert_eq!(logins[0]["flags"], json!(["location_mismatch"]));
    let events = s.audit_events_until(|e| e.iter().any(|e| e["event"] == "login.refused"));
    let refused = events
        .iter()
        .find(|e| e["event"] == "login.refused")
        .unwrap();
    assert_eq!(refused["detail"], "location_mismatch");
    assert_eq!(refused["sub"], app.sub.as_str());

    // From the victim's own laptop: nothing flagged, approved.
    let (mut browser, payload) = started_from(&s, VICTIM_LAPTOP);
    let info = scan_from(&payload, VICTIM_PHONE).json();
    assert_eq!(info["flags"], json!([]));
    assert_eq!(info["refused"], false);
    assert_eq!(
        decide_from(&app, &mut browser, &payload, "approve", VICTIM_PHONE).status,
        200
    );

    // The operator relaxes the policy: every flag warns, and the person decides.
    let updated = client_cmd(
        &["update", "--client-id", "shop", "--refuse-on", "none"],
        store,
    );
    assert_eq!(updated["refuse_on"], json!([]));
    let listed = client_cmd(&["list"], store);
    let shop = listed["clients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["client_id"] == "shop")
        .unwrap();
    assert_eq!(shop["refuse_on"], json!([]));
    // The client is read again by the running server (no cache of its policy).
    let (mut browser, payload) = started_from(&s, ATTACKER);
    let info = scan_from(&payload, VICTIM_PHONE).json();
    assert_eq!(info["refused"], false);
    assert_eq!(
        decide_from(&app, &mut browser, &payload, "deny", VICTIM_PHONE).status,
        200
    );
    let logins = activity(&app);
    assert_eq!(logins[0]["outcome"], "denied");
    // The decision knows the identity: a place it never approved from.
    assert_eq!(
        logins[0]["flags"],
        json!(["location_mismatch", "first_from_here"])
    );
    assert_eq!(logins[1]["outcome"], "approved");
    assert_eq!(logins[1]["flags"], json!([]));
    assert_eq!(logins[1]["location"]["city"], "Stockholm");
}

#[test]
fn the_reference_app_shows_where_the_login_came_from() {
    let d = tempfile::tempdir().unwrap();
    let (_, _, both) = geoip_dbs(d.path());
    create_shop(data_dir(d.path()), &["--refuse-on", "location_mismatch"]);
    let s = TestServer::start(
        d.path(),
        &[
            "--trusted-proxy",
            "127.0.0.1",
            "--geoip-db",
            both.to_str().unwrap(),
        ],
    );
    let key = d.path().join("phone.key");
    let key = key.to_str().unwrap();
    let out = scanid(&[
        "app",
        "enroll",
        "--key-file",
        key,
        "--name",
        "victim",
        "--display-name",
        "Victim",
        "--country",
        "SE",
        "--server",
        &s.base,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The phone's own requests come from 127.0.0.1 here (not in the database): the app shows
    // the browser's place, no mismatch.
    let (_browser, payload) = started_from(&s, ATTACKER);
    let out = scanid(&[
        "app",
        "approve",
        "--deny",
        "--key-file",
        key,
        "--server",
        &s.base,
        &payload,
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("login started from: 203.0.113.66, Lagos, Nigeria (NG), network AS64501 Example West Africa Networks"),
        "{err}"
    );
    assert!(err.contains("this phone:         127.0.0.1"), "{err}");
    assert!(err.contains("requested at:"), "{err}");
    let shown: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(shown["browser"]["location"]["country_code"], "NG");
    assert_eq!(shown["status"], "denied");
    // Its identity approved nothing yet: the next login from elsewhere is not flagged as new,
    // and nothing is refused (the policy refuses only a location mismatch).
    let (mut browser, payload) = started_from(&s, VICTIM_LAPTOP);
    let args = [
        "app",
        "approve",
        "--key-file",
        key,
        "--server",
        &s.base,
        &payload,
    ];
    let out = scanid_tests::approve_picking(&args, &mut browser, &payload);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Now a login from Lagos is from a new place: the app warns.
    let (_browser, payload) = started_from(&s, ATTACKER);
    let out = scanid(&[
        "app",
        "approve",
        "--deny",
        "--key-file",
        key,
        "--server",
        &s.base,
        &payload,
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let shown: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(shown["status"], "denied");
    // The scan proves the identity (Scanid-Proof), so the app is told first_from_here
    // before deciding.
    assert_eq!(shown["flags"], json!(["first_from_here"]));
}

#[test]
fn a_geoip_file_that_cannot_be_read_stops_the_start() {
    let d = tempfile::tempdir().unwrap();
    let missing = d.path().join("missing.mmdb");
    let out = std::process::Command::new(scanid_tests::scanid_bin())
        .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
        .arg(d.path())
        .arg("--geoip-db")
        .arg(&missing)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("SCANID_GEOIP_DB") && err.contains("missing.mmdb"),
        "{err}"
    );
}
