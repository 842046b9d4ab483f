//! Refresh-token rotation per client, from outside, on SQLite and on DynamoDB (moto): a
//! client with `--refresh-rotation off` gets the same refresh token back at every use (eight
//! uses at once all succeed: no write, no race to lose), until it is revoked; a client with
//! `--refresh-reuse-window 30` may present a rotated token again 11 s later and gets a fresh
//! response, where a client with the default rotation loses its grant (the family revoked).

use scanid_tests::{
    auth_url, code_of, login, post_form, race, redeem, secret_of, Browser, Resp, TestApp,
    TestServer, CB,
};
use serde_json::Value;

/// Registers `id` (confidential, redirect [`CB`]) with `extra` flags through `cli`: its
/// secret.
fn client(cli: &dyn Fn(&[&str]) -> Value, id: &str, extra: &[&str]) -> String {
    let mut args = vec!["client", "create", "--name", id, "--client-id", id];
    args.extend_from_slice(&["--redirect-uri", CB]);
    args.extend_from_slice(extra);
    secret_of(&cli(&args))
}

/// A QR login for `client`: the code exchanged, the token response.
fn tokens(s: &TestServer, app: &TestApp, client: (&str, &str)) -> Value {
    let url = auth_url(
        s,
        &[
            ("client_id", client.0),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("state", "s"),
            ("scope", "openid profile"),
        ],
    );
    let code = code_of(&login(&mut Browser::new(), s, app, &url));
    redeem(s, client, &code)
}

fn refresh(s: &TestServer, client: (&str, &str), rt: &str) -> Resp {
    post_form(
        &s.oidc("token"),
        Some(client),
        &[("grant_type", "refresh_token"), ("refresh_token", rt)],
    )
}

fn rt_of(v: &Value) -> String {
    v["refresh_token"].as_str().unwrap_or_default().to_owned()
}

/// The three clients' behaviour on the server `s` (whose store `cli` writes to).
fn rotation_per_client(s: &TestServer, secrets: &[String; 3]) {
    let app = TestApp::enroll(s, "refresher");
    let (off, window, default) = (
        ("steady", secrets[0].as_str()),
        ("windowed", secrets[1].as_str()),
        ("rotating", secrets[2].as_str()),
    );

    // Rotation off: the same token back, again and again, also at once.
    let first = tokens(s, &app, off);
    let rt = rt_of(&first);
    for _ in 0..2 {
        let r = refresh(s, off, &rt);
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(rt_of(&r.json()), rt, "not rotated");
        assert!(r.json()["access_token"].is_string());
    }
    let answers = race(8, |_| refresh(s, off, &rt).status);
    assert!(answers.iter().all(|st| *st == 200), "{answers:?}");
    // Still the client's only.
    let r = refresh(s, window, &rt);
    assert_eq!(r.json()["error"], "invalid_grant", "{}", r.text());
    // Still revocable (RFC 7009).
    let r = post_form(
        &s.oidc("revoke"),
        Some(off),
        &[("token", &rt), ("token_type_hint", "refresh_token")],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = refresh(s, off, &rt);
    assert_eq!(r.json()["error"], "invalid_grant", "{}", r.text());

    // A reuse window of 30 s against the default 10 s: each rotates once, then presents the
    // rotated token again 11 s later.
    let w1 = rt_of(&tokens(s, &app, window));
    let d1 = rt_of(&tokens(s, &app, default));
    let w2 = rt_of(&refresh(s, window, &w1).json());
    let d2 = rt_of(&refresh(s, default, &d1).json());
    assert!(
        w2 != w1 && d2 != d1 && !w2.is_empty() && !d2.is_empty(),
        "both rotate"
    );
    std::thread::sleep(std::time::Duration::from_secs(11));
    let again = refresh(s, window, &w1);
    assert_eq!(again.status, 200, "within the window: {}", again.text());
    let w3 = rt_of(&again.json());
    assert!(w3 != w1 && w3 != w2, "a fresh response, rotated again");
    assert_eq!(refresh(s, window, &w3).status, 200, "the fresh token works");
    let reused = refresh(s, default, &d1);
    assert_eq!(reused.json()["error"], "invalid_grant", "{}", reused.text());
    let r = refresh(s, default, &d2);
    assert_eq!(r.json()["error"], "invalid_grant", "the family is revoked");
}

const FLAGS: [&[&str]; 3] = [
    &["--refresh-rotation", "off"],
    &["--refresh-reuse-window", "30"],
    &[],
];

#[test]
fn refresh_rotation_off_and_a_reuse_window_per_client() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap().to_owned();
    let cli = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend_from_slice(&["--data-dir", &d]);
        scanid_tests::scanid_json(&all)
    };
    let secrets = [
        client(&cli, "steady", FLAGS[0]),
        client(&cli, "windowed", FLAGS[1]),
        client(&cli, "rotating", FLAGS[2]),
    ];
    let shown = cli(&["client", "show", "--client-id", "windowed"]);
    assert_eq!(shown["refresh_rotation"], "rotate", "{shown}");
    assert_eq!(shown["refresh_reuse_window"], 30, "{shown}");
    // Out of bounds, or contradictory: refused.
    for bad in [
        &["--refresh-reuse-window", "301"][..],
        &["--refresh-rotation", "off", "--refresh-reuse-window", "30"],
        &["--refresh-rotation", "sometimes"],
    ] {
        let mut args = vec!["client", "create", "--name", "x", "--redirect-uri", CB];
        args.extend_from_slice(bad);
        args.extend_from_slice(&["--data-dir", &d]);
        let out = scanid_tests::scanid(&args);
        assert!(!out.status.success(), "{bad:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("refresh"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let s = TestServer::start(dir.path(), &[]);
    rotation_per_client(&s, &secrets);
}

#[test]
fn refresh_rotation_off_and_a_reuse_window_on_dynamodb() {
    let aws = crate::aws::Aws::init("kms-envelope");
    let dir = tempfile::tempdir().unwrap();
    let cli = |args: &[&str]| aws.cli(args);
    let secrets = [
        client(&cli, "steady", FLAGS[0]),
        client(&cli, "windowed", FLAGS[1]),
        client(&cli, "rotating", FLAGS[2]),
    ];
    let s = TestServer::start(dir.path(), &aws.flags());
    rotation_per_client(&s, &secrets);
}
