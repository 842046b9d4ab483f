//! Issue 24: the living QR, number matching and "which phone scanned", against the real
//! `scanid serve` (on SQLite, and on DynamoDB in the emulator), with raw HTTP requests as an
//! attacker would send them: a challenge replayed 4 s later, a challenge from the future, a
//! challenge scanned twice, an approval without the number or with a wrong one, a second phone,
//! an approval signed by another identity than the scanner.

use std::time::Duration;

use scanid_tests::{
    auth_url, create_shop, location, login_status, number_shown, open, params_of, request, Browser,
    TestApp, TestServer, CB,
};
use serde_json::{json, Value};

fn shop_url(s: &TestServer, state: &str) -> String {
    auth_url(
        s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("state", state),
            ("nonce", "n"),
            ("scope", "openid"),
        ],
    )
}

/// The app link of `payload`'s login with another challenge.
fn with_challenge(payload: &str, challenge: &str) -> String {
    payload.replace(&params_of(payload)["challenge"], challenge)
}

fn millis(t: &Value) -> i64 {
    scanid_tests::rfc3339_millis(t.as_str().unwrap()).unwrap()
}

/// Waits until the wall clock is early in a second (the QR steps are whole seconds), so a
/// test's "now" and the server's agree on the step.
fn early_in_a_second() {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_millis();
    if ms > 300 {
        std::thread::sleep(Duration::from_millis(u64::from(1000 - ms) + 20));
    }
}

/// Decides `payload`'s login as `app` with `number` (raw: no scan first).
fn decide(app: &TestApp, payload: &str, decision: &str, number: Option<u8>) -> scanid_tests::Resp {
    app.post_decision(
        &params_of(payload)["session"],
        &app.approval(payload, decision, number),
    )
}

/// The whole of what an attacker can send, and what the person's browser then shows.
fn every_refusal(s: &TestServer) {
    let alice = TestApp::enroll(s, "alice");
    let mallory = TestApp::enroll(s, "mallory");

    // The living QR: the page's poll carries the code of this second and the next ones, each
    // with the time it is to be shown, and the server's time.
    let mut b = Browser::new();
    early_in_a_second();
    let (page, payload) = open(&mut b, &shop_url(s, "living"));
    assert!(
        page.text().contains("id=\"qr-ahead\""),
        "the page has the next codes"
    );
    let poll = login_status(&mut b, &payload).json();
    let codes = poll["challenges"].as_array().expect("challenges").clone();
    assert!(codes.len() >= 3, "{poll}");
    let at: Vec<i64> = codes.iter().map(|c| millis(&c["at"])).collect();
    assert!(
        at.windows(2).all(|w| w[1] - w[0] == 1000),
        "one a second: {at:?}"
    );
    assert!((millis(&poll["server_time"]) - at[0]).abs() < 1000);
    assert_eq!(codes[0]["app_link"], poll["app_link"], "the current one");
    assert!(codes
        .iter()
        .all(|c| c["qr_svg"].as_str().unwrap().starts_with("<svg")));
    // A code of a second to come, scanned now: from the future, refused.
    let future = codes[2]["app_link"].as_str().unwrap().to_owned();
    assert_eq!(
        alice.scan(&future).status,
        404,
        "a challenge from the future"
    );
    // The page's code, scanned 4 s after it was shown: dead.
    std::thread::sleep(Duration::from_secs(4));
    let r = alice.scan(&payload);
    assert_eq!(
        r.status,
        404,
        "a challenge replayed 4 s later: {}",
        r.text()
    );
    assert_eq!(login_status(&mut b, &payload).json()["scanned"], false);

    // A fresh code scanned: the app gets three numbers, the page one of them.
    let fresh = login_status(&mut b, &payload).json()["app_link"]
        .as_str()
        .unwrap()
        .to_owned();
    let scanned = alice.scan(&fresh);
    assert_eq!(scanned.status, 200, "{}", scanned.text());
    let choices: Vec<u8> = scanned.json()["number_choices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| u8::try_from(n.as_u64().unwrap()).unwrap())
        .collect();
    let n = number_shown(&mut b, &fresh).expect("the page shows the number");
    assert_eq!(choices.len(), 3);
    assert!(choices.contains(&n) && (10..=99).contains(&n));
    let shown = login_status(&mut b, &fresh).json();
    assert!(
        shown.get("challenges").is_none(),
        "no more codes once scanned: {shown}"
    );
    // The same code again, even by the same phone: spent.
    assert_eq!(alice.scan(&fresh).status, 404, "a challenge is usable once");
    // No number: 400, and the login still waits.
    let r = decide(&alice, &fresh, "approve", None);
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_request");
    assert!(r.text().contains("number"), "{}", r.text());
    // Mallory (a valid identity of her own) approves Alice's scanned login: cancelled.
    let r = decide(&mallory, &fresh, "approve", Some(n));
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(r.json()["error"], "login_cancelled");
    let status = login_status(&mut b, &fresh).json();
    assert_eq!(
        (&status["status"], &status["reason"]),
        (&json!("denied"), &json!("second_device"))
    );
    // Alice's right number afterwards is too late.
    let r = decide(&alice, &fresh, "approve", Some(n));
    assert_eq!(r.status, 409);
    assert_eq!(r.json()["error"], "already_decided");
    // The browser is sent back with access_denied.
    let end = b.get(status["next"].as_str().unwrap());
    let p = params_of(&location(&end));
    assert_eq!(
        (p["error"].as_str(), p["state"].as_str()),
        ("access_denied", "living")
    );

    // A wrong number cancels for good; Alice's activity shows it.
    let mut b = Browser::new();
    let (_, payload) = open(&mut b, &shop_url(s, "wrong"));
    let scanned = alice.scan(&payload).json();
    let n = number_shown(&mut b, &payload).unwrap();
    let wrong = scanned["number_choices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| u8::try_from(c.as_u64().unwrap()).unwrap())
        .find(|c| *c != n)
        .unwrap();
    let r = decide(&alice, &payload, "approve", Some(wrong));
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(r.json()["error"], "login_cancelled");
    assert!(r.json()["error_description"]
        .as_str()
        .unwrap()
        .contains("number"));
    let status = login_status(&mut b, &payload).json();
    assert_eq!(
        (&status["status"], &status["reason"]),
        (&json!("denied"), &json!("wrong_number"))
    );
    assert_eq!(decide(&alice, &payload, "approve", Some(n)).status, 409);
    let activity = alice.request_claims();
    let jws = TestApp::sign(&alice.key, "activity+jwt", &activity);
    let logins = request(
        "POST",
        &format!("{}/app/identities/{}/activity", s.issuer, alice.sub),
        &[("Content-Type", "application/json")],
        json!({ "activity": jws }).to_string().as_bytes(),
    )
    .json();
    assert_eq!(logins["logins"][0]["outcome"], "wrong_number", "{logins}");
    assert_eq!(logins["logins"][1]["outcome"], "second_device", "{logins}");

    // A second phone scanning the next code of a login Alice scanned: cancelled, and the
    // second phone is told so.
    let mut b = Browser::new();
    let (_, payload) = open(&mut b, &shop_url(s, "second"));
    assert_eq!(alice.scan(&payload).status, 200);
    std::thread::sleep(Duration::from_millis(1100));
    let next = login_status(&mut b, &payload).json()["app_link"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(next, payload);
    let r = mallory.scan(&next);
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(r.json()["error"], "login_cancelled");
    let status = login_status(&mut b, &payload).json();
    assert_eq!(status["reason"], "second_device", "{status}");

    // Without a proof, any second scan is a second phone.
    let mut b = Browser::new();
    let (_, payload) = open(&mut b, &shop_url(s, "anon"));
    assert_eq!(mallory.scan_anonymously(&payload).status, 200);
    std::thread::sleep(Duration::from_millis(1100));
    let next = login_status(&mut b, &payload).json()["app_link"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(alice.scan(&next).status, 409);

    // A proof by another key, or for another challenge: 400, nothing scanned.
    let mut b = Browser::new();
    let (_, payload) = open(&mut b, &shop_url(s, "proofs"));
    let mut forged = alice.request_claims();
    forged["session"] = json!(params_of(&payload)["session"]);
    forged["challenge"] = json!(params_of(&payload)["challenge"]);
    let forged = TestApp::sign(&mallory.key, "scan+jwt", &forged);
    let other = alice.scan_proof(&with_challenge(&payload, "AAAAAAAAAAAAAAAAAAAAAA"));
    for proof in [forged, other, "garbage".to_owned()] {
        let r = request(
            "GET",
            &payload,
            &[("Accept", "application/json"), ("Scanid-Proof", &proof)],
            b"",
        );
        assert_eq!(r.status, 400, "{}", r.text());
        assert_eq!(r.json()["error"], "invalid_request");
    }
    assert_eq!(login_status(&mut b, &payload).json()["scanned"], false);
    // And the rightful path still works end to end.
    let r = alice.decide(&mut b, &payload, "approve");
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn every_refusal_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    create_shop(dir.path().to_str().unwrap(), &[]);
    let s = TestServer::start_with_audit(dir.path(), &[]);
    every_refusal(&s);
    let events =
        s.audit_events_until(|e| e.iter().filter(|v| v["event"] == "login.cancelled").count() >= 4);
    let cancelled: Vec<&str> = events
        .iter()
        .filter(|v| v["event"] == "login.cancelled")
        .map(|v| v["outcome"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        cancelled,
        [
            "second_device",
            "wrong_number",
            "second_device",
            "second_device"
        ],
        "one audit line per cancelled login"
    );
}

#[test]
fn every_refusal_on_dynamodb() {
    let aws = crate::aws::Aws::init("kms");
    crate::aws::register_shop(&aws);
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &aws.flags());
    every_refusal(&s);
}

#[test]
fn the_challenge_ttl_is_a_setting_with_bounds() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["1", "31", "x"] {
        let out = std::process::Command::new(scanid_tests::scanid_bin())
            .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
            .arg(dir.path())
            .args(["--qr-challenge-ttl", bad])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{bad}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("SCANID_QR_CHALLENGE_TTL"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // Ten seconds: a code 4 s old still scans.
    create_shop(dir.path().to_str().unwrap(), &[]);
    let s = TestServer::start(dir.path(), &["--qr-challenge-ttl", "10"]);
    let alice = TestApp::enroll(&s, "alice");
    let mut b = Browser::new();
    let (_, payload) = open(&mut b, &shop_url(&s, "ttl"));
    std::thread::sleep(Duration::from_secs(4));
    assert_eq!(alice.scan(&payload).status, 200);
}

/// The reference app: it proves who scans, prints the three numbers and reads the one the page
/// shows from stdin (or `--number`); a wrong number cancels the login.
#[test]
fn the_reference_app_asks_for_the_number_the_page_shows() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    create_shop(dir.path().to_str().unwrap(), &[]);
    let s = TestServer::start(dir.path(), &[]);
    let key = dir.path().join("carl.key");
    let key = key.to_str().unwrap();
    let enrolled = scanid_tests::scanid(&[
        "app",
        "enroll",
        "--key-file",
        key,
        "--name",
        "carl",
        "--display-name",
        "Carl",
        "--country",
        "SE",
        "--server",
        &s.base,
    ]);
    assert!(enrolled.status.success(), "{enrolled:?}");
    let approve = |payload: &str, extra: &[&str]| {
        Command::new(scanid_tests::scanid_bin())
            .args(["app", "approve", "--key-file", key, "--server", &s.base])
            .args(extra)
            .arg(payload)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // Without --number: the choices on stderr, the number on stdin.
    let mut b = Browser::new();
    let (_, payload) = open(&mut b, &shop_url(&s, "cli"));
    let mut app = approve(&payload, &[]);
    let mut err = BufReader::new(app.stderr.take().unwrap());
    let mut asked = String::new();
    while !asked.contains("Which number") {
        let mut line = String::new();
        assert!(
            err.read_line(&mut line).unwrap() > 0,
            "the app never asked: {asked}"
        );
        asked.push_str(&line);
    }
    let n = number_shown(&mut b, &payload).unwrap();
    assert!(asked.contains(&n.to_string()), "{asked}");
    writeln!(app.stdin.take().unwrap(), "{n}").unwrap();
    let out = app.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "approved");
    assert_eq!(login_status(&mut b, &payload).json()["status"], "approved");
    // A wrong --number: refused, and the login is cancelled for good.
    let mut b = Browser::new();
    let (_, payload) = open(&mut b, &shop_url(&s, "cli-wrong"));
    let app = approve(&payload, &["--number", "100"]);
    let out = app.wait_with_output().unwrap();
    assert!(!out.status.success(), "100 is out of range");
    let (_, payload) = open(&mut b, &shop_url(&s, "cli-wrong"));
    // 10: wrong unless the page happens to show 10.
    let out = approve(&payload, &["--number", "10"])
        .wait_with_output()
        .unwrap();
    let status = login_status(&mut b, &payload).json();
    if status["status"] == "approved" {
        // The page happened to show 10: a right guess, which is what number matching allows.
        assert!(out.status.success());
    } else {
        assert!(!out.status.success(), "{out:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("login_cancelled"),
            "{out:?}"
        );
        assert_eq!(status["reason"], "wrong_number", "{status}");
    }
}

/// A login started on the phone itself: the scan from the browser that holds the login's
/// binding cookie says the number (its login page is gone); no other scan does.
#[test]
fn only_the_browser_that_started_the_login_is_told_its_number() {
    let dir = tempfile::tempdir().unwrap();
    create_shop(dir.path().to_str().unwrap(), &[]);
    let s = TestServer::start(dir.path(), &[]);
    let alice = TestApp::enroll(&s, "alice");
    let mut b = Browser::new();
    let (_, payload) = open(&mut b, &shop_url(&s, "here"));
    let proof = alice.scan_proof(&payload);
    let here = b.send(
        "GET",
        &payload,
        &[("Accept", "application/json"), ("Scanid-Proof", &proof)],
        b"",
    );
    assert_eq!(here.status, 200, "{}", here.text());
    let n = number_shown(&mut b, &payload).unwrap();
    assert_eq!(here.json()["number"], n);
    let mut b = Browser::new();
    let (_, payload) = open(&mut b, &shop_url(&s, "elsewhere"));
    let there = alice.scan(&payload).json();
    assert!(there.get("number").is_none(), "{there}");
    assert_eq!(there["number_choices"].as_array().unwrap().len(), 3);
}

#[test]
fn a_poll_that_says_what_the_page_has_gets_only_the_codes_after_it() {
    let dir = tempfile::tempdir().unwrap();
    create_shop(dir.path().to_str().unwrap(), &[]);
    let s = TestServer::start(dir.path(), &[]);
    let alice = TestApp::enroll(&s, "alice");
    let mut b = Browser::new();
    early_in_a_second();
    let (page, payload) = open(&mut b, &shop_url(&s, "after"));
    let on_page = scanid_tests::page_codes(&page.text());
    assert_eq!(on_page.len(), 5, "the page carries five codes");
    let last = on_page.last().unwrap().0;
    let status = format!(
        "{}/login-actions/status?session={}",
        s.issuer,
        params_of(&payload)["session"]
    );
    let poll = |b: &mut Browser, query: &str| b.get(&format!("{status}{query}"));

    // Without `after` (a page served before it existed): every code, and the current one's
    // QR code at the top, as before.
    let all = poll(&mut b, "").json();
    let codes = all["challenges"].as_array().unwrap();
    assert_eq!(codes.len(), 7, "{all}");
    assert_eq!(codes[0]["app_link"], all["app_link"]);
    assert!(all["qr_svg"].as_str().unwrap().starts_with("<svg"), "{all}");

    // With the second of the page's last code: only the seconds after it, one a second, each
    // with its code; the current link still at the top, its QR code not drawn again.
    let after = poll(&mut b, &format!("&after={}", last.div_euclid(1000))).json();
    assert_eq!(after["status"], "pending", "{after}");
    let newer: Vec<i64> = after["challenges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| millis(&c["at"]))
        .collect();
    assert!(!newer.is_empty(), "{after}");
    assert_eq!(
        newer[0],
        last + 1000,
        "the first code the page lacks: {after}"
    );
    assert!(newer.windows(2).all(|w| w[1] - w[0] == 1000), "{newer:?}");
    let now = millis(&after["server_time"]);
    assert_eq!(
        *newer.last().unwrap(),
        now.div_euclid(1000) * 1000 + 6000,
        "up to the sixth second after this one, as without `after`"
    );
    assert!(after["challenges"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["qr_svg"].as_str().unwrap().starts_with("<svg")));
    assert!(after.get("qr_svg").is_none(), "{after}");
    assert_eq!(after["app_link"], all["app_link"]);
    // A page that has every code to come: none.
    let none = poll(&mut b, &format!("&after={}", last.div_euclid(1000) + 60)).json();
    assert_eq!(none["challenges"], json!([]), "{none}");
    assert!(none["app_link"].as_str().unwrap().contains("challenge="));
    // An old time: as without it.
    let old = poll(&mut b, "&after=0").json();
    assert_eq!(old["challenges"].as_array().unwrap().len(), 7, "{old}");

    // Not a whole number of seconds, or twice: 400 invalid_request, saying what it wants.
    for bad in [
        "&after=",
        "&after=abc",
        "&after=-1",
        "&after=1.5",
        "&after=1&after=2",
    ] {
        let r = poll(&mut b, bad);
        assert_eq!(r.status, 400, "{bad}: {}", r.text());
        assert_eq!(r.json()["error"], "invalid_request", "{bad}");
        assert!(r.text().contains("after"), "{bad}: {}", r.text());
    }

    // Scanned: the number, and no QR code drawn for a page that says what it has.
    let fresh = poll(&mut b, "").json()["app_link"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(alice.scan(&fresh).status, 200);
    let scanned = poll(&mut b, &format!("&after={}", last.div_euclid(1000))).json();
    assert!(scanned["number"].is_u64(), "{scanned}");
    assert!(scanned.get("challenges").is_none(), "{scanned}");
    assert!(scanned.get("qr_svg").is_none(), "{scanned}");
    // The old page's poll still gets the top-level code it may draw.
    let old_page = poll(&mut b, "").json();
    assert_eq!(old_page["number"], scanned["number"]);
    assert!(old_page["qr_svg"].as_str().unwrap().starts_with("<svg"));
}
