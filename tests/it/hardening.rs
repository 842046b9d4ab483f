//! The third attack run (issue "Security, third pass"), from an attacker's side with raw
//! requests against the real `scanid serve`: one address filling every connection slot, the
//! unthrottled name oracle, unknown authorization parameters stored with each login,
//! back-channel logout endpoints on the service's own host, a deleted name taken at once, and
//! the demo relying party on the issuer's origin. Each test failed on the code before its fix.

use std::io::Write;
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use scanid_tests::{
    auth_url, get, read_raw, request, scanid, signup, Browser, TestApp, TestServer, DISCOVERY,
};
use serde_json::json;

/// A TCP connection to `to` from the loopback address `from` (127.0.0.0/8 is all this host's):
/// a second source address without a proxy.
fn connect_from(from: &str, to: &str) -> TcpStream {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .unwrap();
    let stream = rt.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket
            .bind(SocketAddr::new(from.parse::<IpAddr>().unwrap(), 0))
            .unwrap();
        socket.connect(to.parse().unwrap()).await.unwrap()
    });
    let std = stream.into_std().unwrap();
    std.set_nonblocking(false).unwrap();
    std
}

/// Sends a whole discovery request on `stream`: the status line of the answer.
fn discovery_on(mut stream: TcpStream, s: &TestServer) -> String {
    let req = format!(
        "GET {DISCOVERY} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        s.addr()
    );
    let _ = stream.write_all(req.as_bytes());
    let (bytes, _) = read_raw(&mut stream, Duration::from_secs(5));
    String::from_utf8_lossy(&bytes)
        .lines()
        .next()
        .unwrap_or("")
        .to_owned()
}

/// A request head that never ends (slowloris): the first lines only.
fn half_head(s: &TestServer) -> Vec<u8> {
    format!(
        "GET {DISCOVERY} HTTP/1.1\r\nHost: {}\r\nX-Slow: 1",
        s.addr()
    )
    .into_bytes()
}

// ---------------------------------------------------------------------------------------------
// 1. One address fills every connection slot
// ---------------------------------------------------------------------------------------------

#[test]
fn one_address_cannot_hold_every_connection_slot() {
    let dir = tempfile::tempdir().unwrap();
    // 256 slots in all (1,024 by default); the attacker opens more than that.
    let s = TestServer::start(dir.path(), &["--max-connections", "256"]);
    assert_eq!(get(&s.url(DISCOVERY)).status, 200);
    let mut held = Vec::new();
    let mut refused_at_once = 0;
    for _ in 0..300 {
        let mut c = connect_from("127.0.0.1", s.addr());
        let _ = c.write_all(&half_head(&s));
        held.push(c);
    }
    // Whatever the server refused, it answered and closed at once.
    for c in &mut held {
        c.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
        let mut buf = [0u8; 64];
        if let Ok(n) = std::io::Read::read(c, &mut buf) {
            if n > 0 && buf.starts_with(b"HTTP/1.1 429") {
                refused_at_once += 1;
            }
        }
    }
    // Another address is still served, at once.
    let started = Instant::now();
    let status = discovery_on(connect_from("127.0.0.2", s.addr()), &s);
    assert!(
        status.starts_with("HTTP/1.1 200"),
        "another address while one holds its slots: {status:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    // The attacker got its share (64 by default) and 429 + Retry-After for the rest.
    assert!(
        refused_at_once >= 300 - 64 - 8,
        "{refused_at_once} of 300 refused at once"
    );
    let status = discovery_on(connect_from("127.0.0.1", s.addr()), &s);
    assert!(status.starts_with("HTTP/1.1 429"), "{status:?}");
    drop(held);
}

#[test]
fn a_request_head_that_never_ends_is_cut_off_within_ten_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let mut c = TcpStream::connect(s.addr()).unwrap();
    c.write_all(&half_head(&s)).unwrap();
    let started = Instant::now();
    let (_, ended) = read_raw(&mut c, Duration::from_secs(15));
    assert!(ended, "still open after {:?}", started.elapsed());
    assert!(
        started.elapsed() < Duration::from_secs(12),
        "closed only after {:?} (the head timeout was 30 s)",
        started.elapsed()
    );
}

// ---------------------------------------------------------------------------------------------
// 4. The name lookup is an unthrottled oracle
// ---------------------------------------------------------------------------------------------

#[test]
fn name_lookups_are_limited_per_source() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &["--trusted-proxy", "127.0.0.1"]);
    // Stay inside one minute's window.
    let into = TestApp::now().rem_euclid(60);
    if into >= 45 {
        std::thread::sleep(Duration::from_secs(u64::try_from(61 - into).unwrap()));
    }
    let lookup = |source: &str, name: &str| {
        request(
            "GET",
            &format!("{}/app/names/{name}", s.issuer),
            &[("X-Forwarded-For", source)],
            b"",
        )
    };
    for i in 0..60 {
        let r = lookup("203.0.113.7", &format!("probe{i}"));
        assert_eq!(r.status, 200, "lookup {i}: {}", r.text());
    }
    let r = lookup("203.0.113.7", "probe60");
    assert_eq!(r.status, 429, "the 61st lookup in a minute: {}", r.text());
    let retry: i64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    // Another source is not affected.
    let r = lookup("198.51.100.20", "probe60");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["available"], true);
}

// ---------------------------------------------------------------------------------------------
// 6. Smaller things
// ---------------------------------------------------------------------------------------------

/// The largest record in the embedded store, in bytes, and how many there are (read beside
/// the running server, as SQLite in WAL mode allows).
fn largest_record(dir: &std::path::Path) -> (i64, i64) {
    let db = rusqlite::Connection::open(dir.join("scanid.db")).unwrap();
    db.query_row(
        "SELECT coalesce(max(length(body)), 0), count(*) FROM records",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .unwrap()
}

#[test]
fn unknown_authorization_parameters_are_not_stored_with_the_login() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    scanid_tests::create_client(
        d,
        &[
            "--name",
            "Shop",
            "--client-id",
            "shop",
            "--redirect-uri",
            scanid_tests::CB,
        ],
    );
    let s = TestServer::start(dir.path(), &["--login-rate-per-minute", "1000"]);
    let junk = "j".repeat(60_000);
    let url = auth_url(
        &s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", scanid_tests::CB),
            ("response_type", "code"),
            ("state", "st"),
            ("nonce", "n"),
            ("scope", "openid"),
            ("padding", &junk),
        ],
    );
    // The page is served (unknown parameters are ignored, RFC 6749 §3.1)...
    let mut b = Browser::new();
    let page = b.get(&url);
    assert_eq!(page.status, 200, "{}", page.text());
    for _ in 0..10 {
        assert_eq!(Browser::new().get(&url).status, 200);
    }
    // ...but what is stored of each login is small: 60 KB asked, not kept.
    let (largest, count) = largest_record(dir.path());
    assert!(count >= 11, "{count} records");
    assert!(
        largest < 8_000,
        "a login with 60 KB of unknown parameters is stored in {largest} bytes"
    );
}

#[test]
fn backchannel_logout_endpoints_on_the_service_host_are_refused_outside_local_development() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let create = |public_url: Option<&str>, bcl: &str| {
        let mut args = vec!["client", "create", "--data-dir", d];
        if let Some(u) = public_url {
            args.extend_from_slice(&["--public-url", u]);
        }
        args.extend_from_slice(&[
            "--name",
            "RP",
            "--redirect-uri",
            "https://rp.example/cb",
            "--backchannel-logout-uri",
            bcl,
        ]);
        scanid(&args)
    };
    for bcl in [
        "https://169.254.169.254/latest/meta-data/iam",
        "https://127.0.0.1:8443/admin",
        "http://127.0.0.1:9000/bcl",
        "http://localhost:9000/bcl",
        "https://[::1]/bcl",
        "https://[fe80::1]/bcl",
    ] {
        let out = create(Some("https://id.example.com"), bcl);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{bcl} was registered for a public service: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("backchannel_logout_uri"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The operator command's own default URL says nothing about where the server runs.
    assert_eq!(
        create(None, "http://127.0.0.1:9000/bcl").status.code(),
        Some(2)
    );
    // A relying party's own host is fine, and loopback is for local development.
    assert!(
        create(Some("https://id.example.com"), "https://rp.example/bcl")
            .status
            .success()
    );
    assert!(
        create(Some("http://127.0.0.1:8080"), "http://127.0.0.1:9000/bcl")
            .status
            .success()
    );
}

#[test]
fn a_deleted_identity_name_is_held_before_anyone_may_take_it() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let victim = TestApp::enroll(&s, "victim");
    let jws = TestApp::sign(&victim.key, "deletion+jwt", &victim.request_claims());
    let r = request(
        "DELETE",
        &format!("{}/app/identities/{}", s.issuer, victim.sub),
        &[("Content-Type", "application/json")],
        json!({ "deletion": jws }).to_string().as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // Someone else asks for the name at once: held (a person's contacts still know it).
    let names = get(&format!("{}/app/names/victim", s.issuer));
    assert_eq!(names.json()["available"], false, "{}", names.text());
    let (key, pk) = TestApp::key();
    let claims = TestApp::registration_claims(&s, &pk, "victim");
    let r = signup(&s, None, &scanid_tests::registration_body(&key, &claims));
    assert_eq!(
        r.status,
        409,
        "the name was taken again at once: {}",
        r.text()
    );
}

#[test]
fn the_demo_relying_party_has_an_origin_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    // Not on the issuer's origin...
    assert_eq!(get(&format!("{}/demo", s.base)).status, 404);
    assert_eq!(get(&format!("{}/demo/login", s.base)).status, 404);
    // ...but on its own.
    let demo = s.banner["demo"].as_str().unwrap().to_owned();
    let origin = |u: &str| url::Url::parse(u).unwrap().origin();
    assert_ne!(origin(&demo), origin(&s.base), "{demo}");
    let home = get(&demo);
    assert_eq!(home.status, 200);
    assert!(home.text().contains("Log in with scanid"));
    // Its login goes to the issuer, and comes back to the demo's own origin.
    let start = get(&format!("{demo}/login"));
    assert_eq!(start.status, 302);
    let to = scanid_tests::location(&start);
    assert!(to.starts_with(&s.issuer), "{to}");
    let q = scanid_tests::params_of(&to);
    assert_eq!(origin(&q["redirect_uri"]), origin(&demo));
}
