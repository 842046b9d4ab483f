//! "Started on this phone", decided by the server (issue 24): the scan answer's `started_here`
//! is `true` only when the scan carries the login's own browser-binding cookie, never because
//! a User-Agent matches; and the web app's pages keep no opener relation with other origins
//! (`Cross-Origin-Opener-Policy: same-origin`).
//!
//! The attacker and the victim come from distinct addresses through `--trusted-proxy
//! 127.0.0.1` and an `X-Forwarded-For` header, as behind an operator's load balancer.

use scanid_tests::{
    attr, auth_url, create_client, get, open, params_of, post_form, request, scanid, Browser, Resp,
    TestApp, TestServer, CB,
};

/// The victim's phone (its browser's User-Agent, which the attacker copies).
const PHONE_UA: &str = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
/// The attacker's address (RFC 5737 documentation range).
const ATTACKER: &str = "203.0.113.7";
/// The victim's phone's address.
const VICTIM: &str = "198.51.100.20";

struct Env {
    s: TestServer,
    _dir: tempfile::TempDir,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    create_client(
        dir.path().to_str().unwrap(),
        &[
            "--name",
            "Shop",
            "--client-id",
            "shop",
            "--redirect-uri",
            CB,
        ],
    );
    let s = TestServer::start(dir.path(), &["--trusted-proxy", "127.0.0.1"]);
    Env { s, _dir: dir }
}

/// A public client of the device authorization grant (RFC 8628).
fn tv(s: &TestServer) {
    create_client(
        s.data_dir.to_str().unwrap(),
        &[
            "--name",
            "TV",
            "--client-id",
            "tv",
            "--public",
            "--grant",
            "device_code",
        ],
    );
}

fn shop_url(s: &TestServer) -> String {
    auth_url(
        s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("state", "st"),
            ("nonce", "n"),
            ("scope", "openid profile"),
        ],
    )
}

/// A browser with the phone's User-Agent opens shop's login from `from`: the browser (with its
/// cookies), the QR payload, and the login's binding cookie (name, value, attributes).
fn open_from(s: &TestServer, from: &str) -> (Browser, String, (String, String, String)) {
    let mut b = Browser::new();
    b.user_agent = PHONE_UA.into();
    let page = b.send("GET", &shop_url(s), &[("X-Forwarded-For", from)], b"");
    assert_eq!(page.status, 200, "{}", page.text());
    let payload =
        attr(&page.text(), "id=\"app-link\"", "data-qr-payload").expect("data-qr-payload");
    let session = params_of(&payload)["session"].clone();
    let set = page
        .headers
        .iter()
        .filter(|(k, _)| k == "set-cookie")
        .map(|(_, v)| v.clone())
        .find(|v| v.starts_with(&format!("scanid_login_{session}=")))
        .unwrap_or_else(|| panic!("no binding cookie for {session}: {:?}", page.headers));
    let (pair, attrs) = set.split_once(';').unwrap();
    let (name, value) = pair.split_once('=').unwrap();
    (
        b,
        payload,
        (name.to_owned(), value.to_owned(), attrs.trim().to_owned()),
    )
}

/// The app's scan of `payload` from `from`, with the phone's User-Agent and `cookie` (a whole
/// `Cookie` header) if any.
fn scan(payload: &str, from: &str, cookie: Option<&str>) -> Resp {
    let mut headers = vec![
        ("Accept", "application/json"),
        ("User-Agent", PHONE_UA),
        ("X-Forwarded-For", from),
    ];
    if let Some(c) = cookie {
        headers.push(("Cookie", c));
    }
    request("GET", payload, &headers, b"")
}

fn started_here(r: &Resp) -> bool {
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    v["started_here"]
        .as_bool()
        .unwrap_or_else(|| panic!("started_here is a boolean: {v}"))
}

#[test]
fn started_here_needs_the_logins_own_cookie_never_a_matching_user_agent() {
    let e = env();
    let s = &e.s;
    // The attacker's browser copies the victim phone's User-Agent and opens the login.
    let (_attacker, payload, (_, _, attrs)) = open_from(s, ATTACKER);
    // The binding cookie reaches the app's scan URL (its path covers `{issuer}/app/scan`), and
    // stays HttpOnly and SameSite=Lax.
    let path = attrs
        .split(';')
        .map(str::trim)
        .find_map(|a| a.strip_prefix("Path="))
        .unwrap_or_else(|| panic!("a Path: {attrs}"));
    let scan_path = url::Url::parse(&payload).unwrap().path().to_owned();
    assert!(scan_path.starts_with(path), "{scan_path} under {path}");
    assert!(attrs.contains("HttpOnly"), "{attrs}");
    assert!(attrs.contains("SameSite=Lax"), "{attrs}");

    // The victim's phone scans it: same User-Agent as the login's browser, no cookie.
    let r = scan(&payload, VICTIM, None);
    assert!(!started_here(&r), "a forged User-Agent proves nothing");
    let v = r.json();
    assert_eq!(
        v["browser"]["user_agent"], PHONE_UA,
        "the UA is indeed equal"
    );
    assert_eq!(v["browser"]["ip"], ATTACKER);

    // Each case below scans a login of its own: a login is scanned by one phone (a second
    // scan cancels it) and a challenge is usable once.
    let fresh = || {
        let (_, payload, (name, value, _)) = open_from(s, ATTACKER);
        (payload, name, value)
    };
    // The login's own cookie (the browser that started it) is the proof.
    let (payload, name, value) = fresh();
    let own = format!("{name}={value}");
    assert!(started_here(&scan(&payload, VICTIM, Some(&own))));

    // Another login's cookie, under its own name or under this login's, is not.
    let (_, _, (other_name, other_value, _)) = open_from(s, VICTIM);
    assert_ne!(other_value, value);
    let (payload, _, _) = fresh();
    let foreign = format!("{other_name}={other_value}");
    assert!(!started_here(&scan(&payload, VICTIM, Some(&foreign))));
    let (payload, name, _) = fresh();
    let planted = format!("{name}={other_value}");
    assert!(!started_here(&scan(&payload, VICTIM, Some(&planted))));
    // A repeated cookie is no proof either, even when one copy is right.
    let (payload, name, value) = fresh();
    let twice = format!("{name}={other_value}; {name}={value}");
    assert!(!started_here(&scan(&payload, VICTIM, Some(&twice))));
}

#[test]
fn the_started_here_scan_still_approves_and_a_device_code_scan_says_false() {
    let e = env();
    let s = &e.s;
    let app = TestApp::enroll(s, "phoebe");
    let mut b = Browser::new();
    b.user_agent = PHONE_UA.into();
    let (_, payload) = open(&mut b, &shop_url(s));
    let session = params_of(&payload)["session"].clone();
    let cookie = format!(
        "scanid_login_{session}={}",
        b.jar[&format!("scanid_login_{session}")]
    );
    let r = scan(&payload, VICTIM, Some(&cookie));
    assert!(started_here(&r));
    // Started here, the scan is told the number its own login page showed (that page is
    // gone); the approval names it as any other.
    let number = r.json()["number"]
        .as_u64()
        .and_then(|n| u8::try_from(n).ok());
    assert!(number.is_some(), "{}", r.text());
    let jws = app.approval(&payload, "approve", number);
    assert_eq!(app.post_decision(&session, &jws).status, 200);
    // A scan after the decision is refused as before (the field changes nothing else).
    assert_eq!(scan(&payload, VICTIM, Some(&cookie)).status, 404);

    // A device's code (RFC 8628) is another device by definition.
    tv(s);
    let d = post_form(
        &s.oidc("auth/device"),
        None,
        &[("client_id", "tv"), ("scope", "openid")],
    );
    assert_eq!(d.status, 200, "{}", d.text());
    let user_code = d.json()["user_code"].as_str().unwrap().to_owned();
    let r = app.scan(&format!("{}/app/scan?user_code={user_code}", s.issuer));
    assert!(!started_here(&r));
}

#[test]
fn the_web_app_sends_cross_origin_opener_policy_same_origin() {
    let e = env();
    let s = &e.s;
    let (_, payload, _) = open_from(s, ATTACKER);
    let mut urls = vec![
        format!("{}/app/", s.issuer),
        // The QR's link, as the phone's camera opens it (the shell).
        payload,
    ];
    for f in [
        "app.js",
        "device.js",
        "app.css",
        "sw.js",
        "manifest.webmanifest",
        "icon.svg",
    ] {
        urls.push(format!("{}/app/{f}", s.issuer));
    }
    for url in &urls {
        let r = get(url);
        assert_eq!(r.status, 200, "{url}");
        assert_eq!(
            r.header("cross-origin-opener-policy"),
            Some("same-origin"),
            "{url}"
        );
        // A revalidated copy carries it too.
        let etag = r.header("etag").unwrap().to_owned();
        let again = request("GET", url, &[("If-None-Match", &etag)], b"");
        assert_eq!(again.status, 304, "{url}");
        assert_eq!(
            again.header("cross-origin-opener-policy"),
            Some("same-origin"),
            "{url}"
        );
    }
}

#[test]
fn the_reference_app_says_another_device_it_holds_no_browser_cookie() {
    let e = env();
    let s = &e.s;
    let key = e._dir.path().join("cli.key");
    let key = key.to_str().unwrap();
    let out = scanid(&[
        "app",
        "enroll",
        "--key-file",
        key,
        "--name",
        "clio",
        "--display-name",
        "Clio",
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
    // The attacker's browser has the phone's User-Agent; the CLI app still says "another".
    let (_, payload, _) = open_from(s, ATTACKER);
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
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("STARTED ON ANOTHER DEVICE"), "{stderr}");
    assert!(stderr.contains(ATTACKER), "{stderr}");
}
