//! The QR page polling its status from another origin (`--login-status-url`, on Lambda the
//! login-status function's own URL, which costs no API Gateway request per poll): the page
//! carries a read-only token in place of the cookie the browser does not send there, the CSP
//! lets its script fetch from there, every answer lets the page's origin read it, and the token
//! reads the login without acting on it.

use scanid_tests::{
    attr, auth_url, consent_url, create_client, open, params_of, Browser, TestApp, TestServer, CB,
};

/// `scanid serve` whose pages are `http://localhost:PORT` and whose status polls go to
/// `http://127.0.0.1:PORT` (the same process under another origin).
fn two_origins(dir: &std::path::Path) -> (TestServer, String, String) {
    shop(dir);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (page_origin, poll_origin) = (
        format!("http://localhost:{port}"),
        format!("http://127.0.0.1:{port}/"),
    );
    let s = TestServer::start_with(
        dir,
        &format!("127.0.0.1:{port}"),
        &[
            "--public-url",
            &page_origin,
            "--login-status-url",
            &poll_origin,
        ],
        &[],
    );
    (s, page_origin, poll_origin.trim_end_matches('/').to_owned())
}

/// The client the logins are for.
fn shop(dir: &std::path::Path) {
    create_client(
        dir.to_str().unwrap(),
        &[
            "--name",
            "Shop",
            "--client-id",
            "shop",
            "--redirect-uri",
            CB,
        ],
    );
}

fn request(state: &str) -> Vec<(&'static str, String)> {
    vec![
        ("client_id", "shop".into()),
        ("redirect_uri", CB.into()),
        ("response_type", "code".into()),
        ("state", state.into()),
        ("nonce", "n-1".into()),
        ("scope", "openid profile".into()),
    ]
}

/// The page's `data-status-url`, unescaped.
fn status_url_of(html: &str) -> String {
    attr(html, "id=\"state\"", "data-status-url")
        .expect("data-status-url")
        .replace("&amp;", "&")
        .replace("&#38;", "&")
}

#[test]
fn the_page_polls_another_origin_with_a_read_only_token() {
    let dir = tempfile::tempdir().unwrap();
    let (s, page_origin, poll_origin) = two_origins(dir.path());
    let carol = TestApp::enroll(&s, "carol");
    let mut b = Browser::new();
    let (page, payload) = open(&mut b, &auth_url(&s, &request("o-1")));
    let session = params_of(&payload)["session"].clone();
    let url = status_url_of(&page.text());
    assert!(
        url.starts_with(&format!(
            "{poll_origin}/realms/scanid/login-actions/status?session={session}&poll="
        )),
        "{url}"
    );
    // The page's script may fetch from there, and from nowhere else.
    let csp = page.header("content-security-policy").unwrap().to_owned();
    assert!(
        csp.contains(&format!("connect-src 'self' {poll_origin};")),
        "{csp}"
    );
    // A browser with no cookie (as the page's fetch to another origin is) reads the login with
    // the token; the answer lets the page's origin read it (a simple request: no preflight).
    let mut elsewhere = Browser::new();
    let r = elsewhere.get(&format!("{url}&seen=code"));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("access-control-allow-origin"), Some(&*page_origin));
    assert_eq!(r.header("access-control-allow-credentials"), None);
    let pending = r.json();
    assert_eq!(pending["status"], "pending", "{pending}");
    assert!(!pending["challenges"].as_array().unwrap().is_empty());
    // Without the token, with another login's, with a challenge or a cut token: unknown, and
    // the page's origin may read that too (the page stops polling on a 404).
    let token = params_of(&url)["poll"].clone();
    let mut other = Browser::new();
    let (other_page, _) = open(&mut other, &auth_url(&s, &request("o-2")));
    let other_token = params_of(&status_url_of(&other_page.text()))["poll"].clone();
    let base = format!("{poll_origin}/realms/scanid/login-actions/status?session={session}");
    let challenge = params_of(&payload)["challenge"].clone();
    for wrong in [
        base.clone(),
        format!("{base}&poll={other_token}"),
        format!("{base}&poll={challenge}"),
        format!("{base}&poll={}", &token[..token.len() - 1]),
        format!("{base}&poll={token}&poll={token}"),
    ] {
        let r = elsewhere.get(&wrong);
        assert_eq!(r.status, 404, "{wrong}: {}", r.text());
        assert_eq!(r.header("access-control-allow-origin"), Some(&*page_origin));
    }
    // The phone scans: the token shows the number; the phone approves: it shows where to go.
    assert_eq!(carol.scan(&payload).status, 200);
    let scanned = elsewhere.get(&url).json();
    let n = scanned["number"].as_u64().expect("the number");
    let approval = carol.approval(&payload, "approve", u8::try_from(n).ok());
    let r = carol.post_decision(&session, &approval);
    assert_eq!(r.status, 200, "{}", r.text());
    let approved = elsewhere.get(&url).json();
    assert_eq!(approved["status"], "approved", "{approved}");
    let next = approved["next"].as_str().unwrap().to_owned();
    assert_eq!(next, consent_url(&s, &payload));
    assert!(next.starts_with(&page_origin), "{next}");
    // The token reads; it does not act: the consent page still wants the browser's cookie.
    let r = elsewhere.get(&next);
    assert_eq!(r.status, 403, "{}", r.text());
    let consent = b.get(&next);
    assert_eq!(consent.status, 200, "{}", consent.text());
    // The issuer's own status endpoint still answers the opening browser's cookie.
    let r = b.get(&base);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["status"], "approved");
}

#[test]
fn without_the_setting_the_page_polls_its_own_origin_with_the_cookie() {
    let dir = tempfile::tempdir().unwrap();
    shop(dir.as_ref());
    let s = TestServer::start(dir.path(), &[]);
    let mut b = Browser::new();
    let (page, payload) = open(&mut b, &auth_url(&s, &request("o-3")));
    let url = status_url_of(&page.text());
    assert_eq!(
        url,
        format!(
            "{}/login-actions/status?session={}",
            s.issuer,
            params_of(&payload)["session"]
        )
    );
    let csp = page.header("content-security-policy").unwrap();
    assert!(csp.contains("connect-src 'self';"), "{csp}");
    let r = b.get(&url);
    assert_eq!(r.status, 200);
    // The status answers let the public origin's pages read them whatever this server was
    // told: on Lambda the status function serves its own URL without knowing it.
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some(s.base.as_str()),
        "the public origin"
    );
    // A made-up token reads nothing.
    let r = Browser::new().get(&format!("{url}&poll=AAAA"));
    assert_eq!(r.status, 404);
}
