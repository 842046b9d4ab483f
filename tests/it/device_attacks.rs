//! The device authorization grant (RFC 8628) attacked from outside: a device code typed in
//! the victim's browser is still judged and shown as the attacker's device (RFC 8628 §5.4,
//! remote phishing); another site cannot post a code from the victim's browser; one address
//! cannot flood the store with device authorizations, one client cannot hold unboundedly many,
//! and polling without pause writes nothing once the interval is at its ceiling. The limits on
//! the embedded store and on DynamoDB (moto).

use scanid_tests::{attr, create_client, params_of, request, Browser, Resp, TestApp, TestServer};
use serde_json::{json, Value};

use crate::device_grant::{poll, type_code};
use crate::geo::geoip_dbs;

/// The attacker's device: Lagos, NG, AS64501 in the test database.
const ATTACKER: &str = "203.0.113.66";
/// The victim's phone: Stockholm, SE, AS64500.
const VICTIM_PHONE: &str = "198.51.100.7";
/// The victim's laptop, at home with the phone.
const VICTIM_LAPTOP: &str = "198.51.100.20";
/// What the attacker's device says it is.
const DEVICE_UA: &str = "Contoso Office TV/2.0";

/// A public client allowed the device grant, with `extra` (a refuse policy).
fn tv(s: &TestServer, client_id: &str, extra: &[&str]) {
    let mut args = vec![
        "--name",
        "Living room TV",
        "--client-id",
        client_id,
        "--public",
        "--grant",
        "device_code",
    ];
    args.extend_from_slice(extra);
    create_client(s.data_dir.to_str().unwrap(), &args);
}

/// A device authorization by `client_id` from address `from`, as device `DEVICE_UA`.
fn start_from(s: &TestServer, client_id: &str, from: &str) -> Resp {
    let body = format!("client_id={client_id}&scope=openid%20offline_access");
    request(
        "POST",
        &s.oidc("auth/device"),
        &[
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("X-Forwarded-For", from),
            ("User-Agent", DEVICE_UA),
        ],
        body.as_bytes(),
    )
}

/// The phone at `from` scans `payload` (proving who scans).
fn scan_from(app: &TestApp, payload: &str, from: &str) -> Resp {
    request(
        "GET",
        payload,
        &[
            ("Accept", "application/json"),
            ("Scanid-Proof", &app.scan_proof(payload)),
            ("X-Forwarded-For", from),
        ],
        b"",
    )
}

/// The phone at `from` approves `payload`, picking `number`.
fn approve_from(app: &TestApp, payload: &str, number: Option<u8>, from: &str) -> Resp {
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
        json!({ "approval": app.approval(payload, "approve", number) })
            .to_string()
            .as_bytes(),
    )
}

/// What the phone is told about a device's request: the device's address and its own name for
/// itself (labelled as its claim), the mismatch, and that a device code is a request from a
/// device the person must be holding.
fn assert_shows_the_attackers_device(info: &Value) {
    assert_eq!(info["browser"]["ip"], ATTACKER, "{info}");
    assert_eq!(info["browser"]["user_agent"], DEVICE_UA);
    assert_eq!(info["browser"]["location"]["city"], "Lagos");
    assert_eq!(info["phone"]["ip"], VICTIM_PHONE);
    assert_eq!(info["flags"], json!(["location_mismatch"]));
    assert_eq!(info["refused"], true);
    assert_eq!(info["device_request"]["user_agent_chosen_by_device"], true);
    let notice = info["device_request"]["notice"].as_str().unwrap();
    assert!(
        notice.contains("request from a device") && notice.contains("holding"),
        "{notice}"
    );
}

/// The 2025 device-code phishing: the attacker's device in Lagos asks for a code and sends it
/// to the victim, who types it in their own laptop's browser at home and approves with their
/// phone. The phone must show and judge the attacker's device, not the laptop, and the
/// client's `--refuse-on location_mismatch` must refuse; the scan path the same.
#[test]
fn a_code_typed_in_the_victims_browser_is_judged_as_the_attackers_device() {
    let d = tempfile::tempdir().unwrap();
    let (city, asn, _) = geoip_dbs(d.path());
    let s = TestServer::start(
        d.path(),
        &[
            "--trusted-proxy",
            "127.0.0.1",
            "--geoip-db",
            city.to_str().unwrap(),
            "--geoip-db",
            asn.to_str().unwrap(),
        ],
    );
    tv(&s, "tv", &["--refuse-on", "location_mismatch"]);
    let app = TestApp::enroll(&s, "victim");

    let r = start_from(&s, "tv", ATTACKER);
    assert_eq!(r.status, 200, "{}", r.text());
    let dev = r.json();
    let device_code = dev["device_code"].as_str().unwrap();
    let user_code = dev["user_code"].as_str().unwrap();

    // The victim types the code in their laptop's browser, at home.
    let mut laptop = Browser::new();
    let laptop_at = [("X-Forwarded-For", VICTIM_LAPTOP)];
    let page = type_code(&mut laptop, &s, user_code, &laptop_at);
    assert_eq!(page.status, 200, "{}", page.text());
    let payload = attr(&page.text(), "id=\"app-link\"", "data-qr-payload").expect("the QR");
    let r = scan_from(&app, &payload, VICTIM_PHONE);
    assert_eq!(r.status, 200, "{}", r.text());
    let info = r.json();
    assert_shows_the_attackers_device(&info);
    assert_eq!(info["user_code"], user_code);
    assert_eq!(info["number_choices"].as_array().map(Vec::len), Some(3));
    // The client's policy refuses it: no tokens for the attacker's device.
    let number = scanid_tests::number_shown(&mut laptop, &payload);
    let r = approve_from(&app, &payload, number, VICTIM_PHONE);
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(r.json()["error"], "login_refused");
    assert_eq!(r.json()["flags"], json!(["location_mismatch"]));
    let r = poll(&s, ("tv", None), device_code);
    assert_ne!(r.status, 200, "{}", r.text());

    // The same device code scanned by its user code: the same device, the same judgement.
    let dev = start_from(&s, "tv", ATTACKER).json();
    let url = format!(
        "{}/app/scan?user_code={}",
        s.issuer,
        dev["user_code"].as_str().unwrap()
    );
    let r = request(
        "GET",
        &url,
        &[
            ("Accept", "application/json"),
            ("X-Forwarded-For", VICTIM_PHONE),
        ],
        b"",
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_shows_the_attackers_device(&r.json());
}

/// The device code form with the cookie and token of a GET of it, as `b` holds them.
fn form_token(b: &mut Browser, s: &TestServer) -> String {
    let form = b.get(&format!("{}/device", s.issuer));
    assert_eq!(form.status, 200);
    attr(&form.text(), "name=\"csrf\"", "value").expect("the form's token")
}

/// `POST {issuer}/device` from `b` with `pairs` and `extra` headers.
fn post_code(
    b: &mut Browser,
    s: &TestServer,
    pairs: &[(&str, &str)],
    extra: &[(&str, &str)],
) -> Resp {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish();
    let mut headers = vec![("Content-Type", "application/x-www-form-urlencoded")];
    headers.extend_from_slice(extra);
    b.send(
        "POST",
        &format!("{}/device", s.issuer),
        &headers,
        body.as_bytes(),
    )
}

/// A refused post: the form again (403), not prefilled with the posted code, and no QR login.
fn assert_refused(r: &Resp, user_code: &str) {
    assert_eq!(r.status, 403, "{}", r.text());
    let html = r.text();
    assert!(html.contains("not sent from this page"), "{html}");
    assert!(!html.contains("data-qr-payload"), "no QR login");
    assert!(
        !html.contains(user_code),
        "the posted code is not offered again"
    );
}

/// Login CSRF with a device code: a page on another site auto-posts the attacker's user code
/// from the victim's browser. Without the form's cookie and token, or from another origin,
/// the post gets the form again (403), never the QR page of the attacker's device.
#[test]
fn another_site_cannot_post_a_user_code_from_the_victims_browser() {
    let d = tempfile::tempdir().unwrap();
    let s = TestServer::start(d.path(), &[]);
    tv(&s, "tv", &[]);
    let dev = start_from(&s, "tv", "127.0.0.1").json();
    let user_code = dev["user_code"].as_str().unwrap();
    let evil = [
        ("Origin", "https://evil.example"),
        ("Sec-Fetch-Site", "cross-site"),
    ];

    // The auto-posted form: no cookie of the form (SameSite=Lax keeps it home), no token.
    let mut victim = Browser::new();
    assert_refused(
        &post_code(&mut victim, &s, &[("user_code", user_code)], &evil),
        user_code,
    );
    // Nor without any browser header at all.
    assert_refused(
        &post_code(&mut victim, &s, &[("user_code", user_code)], &[]),
        user_code,
    );
    // A token from the attacker's own GET, posted with the victim's cookie (or none).
    let mut attacker = Browser::new();
    let theirs = form_token(&mut attacker, &s);
    let _ = form_token(&mut victim, &s);
    let pairs = [("csrf", theirs.as_str()), ("user_code", user_code)];
    assert_refused(&post_code(&mut victim, &s, &pairs, &[]), user_code);
    // The victim's own cookie and token, but the request comes from another site.
    let mine = form_token(&mut victim, &s);
    let pairs = [("csrf", mine.as_str()), ("user_code", user_code)];
    assert_refused(&post_code(&mut victim, &s, &pairs, &evil), user_code);
    assert_refused(
        &post_code(&mut victim, &s, &pairs, &[("Sec-Fetch-Site", "same-site")]),
        user_code,
    );
    // `Origin: null` (another site's no-referrer page) with no token of this browser.
    let pairs_without = [("user_code", user_code)];
    assert_refused(
        &post_code(&mut victim, &s, &pairs_without, &[("Origin", "null")]),
        user_code,
    );
    // From scanid's own page, it is the QR login (each form its own token: a refused post
    // answered a fresh form, and its cookie).
    let mine = form_token(&mut victim, &s);
    let pairs = [("csrf", mine.as_str()), ("user_code", user_code)];
    let own = [
        ("Origin", s.base.as_str()),
        ("Sec-Fetch-Site", "same-origin"),
    ];
    let r = post_code(&mut victim, &s, &pairs, &own);
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(attr(&r.text(), "id=\"app-link\"", "data-qr-payload").is_some());
    // As Chromium sends it from scanid's own no-referrer page: `Origin: null`, same-origin.
    let dev = start_from(&s, "tv", "127.0.0.1").json();
    let user_code = dev["user_code"].as_str().unwrap();
    let mine = form_token(&mut victim, &s);
    let pairs = [("csrf", mine.as_str()), ("user_code", user_code)];
    let own = [("Origin", "null"), ("Sec-Fetch-Site", "same-origin")];
    let r = post_code(&mut victim, &s, &pairs, &own);
    assert_eq!(r.status, 200, "{}", r.text());
}

/// Device authorizations from one address stop at the limit (429 with `Retry-After`), while
/// another address goes on; one client's device codes stop at its hourly budget whatever the
/// address, while another client goes on. `flags`: the store (and its keys).
pub fn device_authorization_limits(dir: &std::path::Path, flags: &[&str]) {
    let mut all = vec![
        "--trusted-proxy",
        "127.0.0.1",
        "--device-authorization-rate-per-minute",
        "3",
        "--device-codes-per-client-per-hour",
        "5",
    ];
    all.extend_from_slice(flags);
    let s = TestServer::start(dir, &all);
    let on_store = |args: &[&str]| {
        let mut a = vec!["client", "create"];
        a.extend_from_slice(args);
        a.extend_from_slice(flags);
        if !flags.contains(&"--table") {
            a.extend_from_slice(&["--data-dir", s.data_dir.to_str().unwrap()]);
        }
        scanid_tests::scanid_json(&a)
    };
    for id in ["tv", "radio"] {
        on_store(&[
            "--name",
            "Living room TV",
            "--client-id",
            id,
            "--public",
            "--grant",
            "device_code",
        ]);
    }
    for _ in 0..3 {
        let r = start_from(&s, "tv", "192.0.2.10");
        assert_eq!(r.status, 200, "{}", r.text());
    }
    let r = start_from(&s, "tv", "192.0.2.10");
    assert_eq!(r.status, 429, "{}", r.text());
    assert!(r.header("retry-after").is_some());
    // Refused before the client is even looked at: an unknown client counts the same.
    assert_eq!(start_from(&s, "nobody", "192.0.2.10").status, 429);
    // Another address: the client's budget (5 an hour) ends after two more.
    for _ in 0..2 {
        let r = start_from(&s, "tv", "192.0.2.11");
        assert_eq!(r.status, 200, "{}", r.text());
    }
    let r = start_from(&s, "tv", "192.0.2.12");
    assert_eq!(r.status, 429, "{}", r.text());
    assert!(r.header("retry-after").is_some());
    // Another client from that address is not held by the first one's budget.
    let r = start_from(&s, "radio", "192.0.2.12");
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn device_authorizations_are_limited_per_address_and_per_client() {
    let d = tempfile::tempdir().unwrap();
    device_authorization_limits(d.path(), &[]);
    // What was stored: the five device codes (and their user codes) allowed, nothing more.
    let db = rusqlite::Connection::open(d.path().join("scanid.db")).unwrap();
    let n: i64 = db
        .query_row(
            "SELECT count(*) FROM records WHERE kind = 'device_code'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(n, 6, "5 of tv, 1 of radio");
}

#[test]
fn device_authorizations_are_limited_on_dynamodb() {
    let aws = crate::aws::Aws::init("kms");
    let d = tempfile::tempdir().unwrap();
    device_authorization_limits(d.path(), &aws.flags());
}

/// 2,000 polls of one pending device code as fast as they go: `slow_down`, and the record is
/// written only while the interval grows to its ceiling (11 times) and once per interval
/// after: the rest are answered from what is stored. `version`: the device code record's
/// version (one more per write), read from the store beside the server.
fn poll_flood(dir: &std::path::Path, flags: &[&str], version: impl Fn() -> i64) {
    let s = TestServer::start(dir, flags);
    let mut create = vec![
        "client",
        "create",
        "--name",
        "Living room TV",
        "--client-id",
        "tv",
        "--public",
        "--grant",
        "device_code",
    ];
    create.extend_from_slice(flags);
    if flags.is_empty() {
        create.extend_from_slice(&["--data-dir", s.data_dir.to_str().unwrap()]);
    }
    scanid_tests::scanid_json(&create);
    let dev = start_from(&s, "tv", "127.0.0.1").json();
    let code = dev["device_code"].as_str().unwrap();
    let created = version();
    let first = poll(&s, ("tv", None), code);
    assert_eq!(first.json()["error"], "authorization_pending");
    let started = std::time::Instant::now();
    let answers = scanid_tests::race(4, |_| {
        (0..500)
            .map(|_| poll(&s, ("tv", None), code).json()["error"].clone())
            .collect::<Vec<_>>()
    });
    let seconds = started.elapsed().as_secs() as i64;
    for a in answers.iter().flatten() {
        assert!(*a == "slow_down" || *a == "authorization_pending", "{a}");
    }
    let writes = version() - created;
    // One pending poll, 11 growths of the interval, then one pending poll per 60 s at most.
    assert!(
        writes <= 12 + 1 + seconds / 60,
        "{writes} writes for 2,001 polls in {seconds} s"
    );
}

#[test]
fn polling_without_pause_writes_nothing_once_the_interval_is_at_its_ceiling() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("scanid.db");
    poll_flood(d.path(), &[], || {
        rusqlite::Connection::open(&db)
            .unwrap()
            .query_row(
                "SELECT ver FROM records WHERE kind = 'device_code'",
                [],
                |r| r.get(0),
            )
            .unwrap()
    });
}

#[test]
fn polling_without_pause_writes_nothing_on_dynamodb() {
    let aws = crate::aws::Aws::init("kms");
    let flags = aws.flags();
    let table = flags[1].to_owned();
    let d = tempfile::tempdir().unwrap();
    // The record's `ver` attribute, read with boto3 beside the server.
    let script = "import boto3, sys\n\
        items = boto3.client('dynamodb').scan(TableName=sys.argv[1])['Items']\n\
        print([i['ver']['N'] for i in items if i['pk']['S'].startswith('device_code#')][0])";
    poll_flood(d.path(), &flags, || {
        let out = std::process::Command::new(scanid_tests::python())
            .args(["-c", script, &table])
            .envs(scanid_tests::aws_env())
            .env("AWS_DEFAULT_REGION", "us-east-1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
    });
}
