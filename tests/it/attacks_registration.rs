//! Attacks on self-registered clients and the request parameters that came with them (dynamic
//! client registration, resource indicators, request objects, the `claims` parameter: the
//! fourth attack run in docs/security.md), with raw requests against the real `scanid serve`.
//! Each test failed on the code before its fix.

use scanid_tests::{post_form, request, Resp, TestServer, CB};
use serde_json::{json, Value};

const REGISTER: &str = "/realms/scanid/clients-registrations/openid-connect";
const API: &str = "https://api.example/";

fn register(s: &TestServer, body: &Value) -> Value {
    let r = request(
        "POST",
        &s.url(REGISTER),
        &[("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()
}

fn id_and_secret(registered: &Value) -> (String, String) {
    (
        registered["client_id"].as_str().unwrap().to_owned(),
        registered["client_secret"].as_str().unwrap().to_owned(),
    )
}

fn client_credentials_basic(
    s: &TestServer,
    id: &str,
    secret: &str,
    extra: &[(&str, &str)],
) -> Resp {
    let mut pairs = vec![("grant_type", "client_credentials")];
    pairs.extend_from_slice(extra);
    post_form(&s.oidc("token"), Some((id, secret)), &pairs)
}

fn client_credentials_post(s: &TestServer, id: &str, secret: &str) -> Resp {
    post_form(
        &s.oidc("token"),
        None,
        &[
            ("grant_type", "client_credentials"),
            ("client_id", id),
            ("client_secret", secret),
        ],
    )
}

fn assert_invalid_client(r: &Resp, what: &str) {
    assert_eq!(r.status, 401, "{what}: {}", r.text());
    assert_eq!(r.json()["error"], "invalid_client", "{what}");
}

/// A self-registered client is held to the `token_endpoint_auth_method` it registered (RFC 7591
/// §2, as node-oidc-provider does): a client that registered `client_secret_post` cannot
/// authenticate with HTTP Basic, and one that registered `client_secret_basic` (the default)
/// cannot send its secret in the body. Before the fix both were accepted.
#[test]
fn a_self_registered_client_must_use_the_auth_method_it_registered() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &["--open-client-registration", "true"]);
    let grants = json!(["authorization_code", "client_credentials"]);

    let post = register(
        &s,
        &json!({"redirect_uris": [CB], "grant_types": grants,
                "token_endpoint_auth_method": "client_secret_post"}),
    );
    assert_eq!(post["token_endpoint_auth_method"], "client_secret_post");
    let (id, secret) = id_and_secret(&post);
    assert_invalid_client(
        &client_credentials_basic(&s, &id, &secret, &[]),
        "client_secret_post client using Basic",
    );
    let ok = client_credentials_post(&s, &id, &secret);
    assert_eq!(ok.status, 200, "{}", ok.text());

    let basic = register(&s, &json!({"redirect_uris": [CB], "grant_types": grants}));
    assert_eq!(basic["token_endpoint_auth_method"], "client_secret_basic");
    let (id, secret) = id_and_secret(&basic);
    assert_invalid_client(
        &client_credentials_post(&s, &id, &secret),
        "client_secret_basic client posting its secret",
    );
    let ok = client_credentials_basic(&s, &id, &secret, &[]);
    assert_eq!(ok.status, 200, "{}", ok.text());
}

/// With open registration anyone can be a confidential client; it must not be able to mint, with
/// no person and no consent, an access token for one of the operator's resource servers
/// (`--resource`). Before the fix a self-registered client got `aud: https://api.example/` from
/// `client_credentials` + `resource`. Its own token (aud: itself) it still gets.
#[test]
fn a_self_registered_client_gets_no_machine_token_for_the_operators_resources() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(
        dir.path(),
        &["--open-client-registration", "true", "--resource", API],
    );
    let reg = register(
        &s,
        &json!({"redirect_uris": [CB],
                "grant_types": ["authorization_code", "client_credentials"]}),
    );
    let (id, secret) = id_and_secret(&reg);
    let r = client_credentials_basic(&s, &id, &secret, &[("resource", API)]);
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"], "invalid_target");
    let own = client_credentials_basic(&s, &id, &secret, &[]);
    assert_eq!(own.status, 200, "{}", own.text());
}

/// A self-registered client may call itself anything, e.g. the name of the operator's shop. The
/// consent page says so, but the person decides on the phone: the app's scan answer said only
/// "Shop" and where it redirects. It now says `self_registered` (the web app and `scanid app`
/// show "registered itself ... nobody has checked that name"), and so does the computer's QR
/// page; the operator's clients are not marked.
#[test]
fn the_app_is_told_that_a_self_registered_client_named_itself() {
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
            CB,
        ],
    );
    let s = TestServer::start(dir.path(), &["--open-client-registration", "true"]);
    let fake = register(&s, &json!({"redirect_uris": [CB], "client_name": "Shop"}));
    let app = scanid_tests::TestApp::enroll(&s, "namecheck");
    for (client_id, self_registered) in
        [("shop", false), (fake["client_id"].as_str().unwrap(), true)]
    {
        let url = scanid_tests::auth_url(
            &s,
            &[
                ("client_id", client_id),
                ("redirect_uri", CB),
                ("response_type", "code"),
                ("state", "st"),
                ("scope", "openid"),
            ],
        );
        let (page, payload) = scanid_tests::open(&mut scanid_tests::Browser::new(), &url);
        // The computer's QR page says it too (the fifth attack run's observation: it did not).
        assert_eq!(
            page.text().contains("registered itself with this service"),
            self_registered,
            "{client_id}"
        );
        let scanned = app.scan(&payload);
        assert_eq!(scanned.status, 200, "{}", scanned.text());
        let client = &scanned.json()["client"];
        assert_eq!(client["name"], "Shop");
        assert_eq!(client["self_registered"], self_registered, "{client}");
    }
}

/// Where a self-registered client's redirects would go (any site may register itself).
const EVIL: &str = "https://evil.example/cb";

/// The fifth attack run, item 5: with open registration, anyone registers a client whose
/// redirect URIs are their own site, and before the fix the issuer sent any browser there at
/// once, with no session and no click: an open redirector on the issuer's name. Four requests
/// did it (`response_type=token`, no PKCE for a public client, `prompt=none` without a session,
/// and logout with `client_id` and `post_logout_redirect_uri`). Each now answers with a page of
/// ours (RFC 9700 §4.11.2); none is a 302 to the client's site. The operator's client `shop`
/// still gets its errors by redirect, as the conformance suites expect.
#[test]
fn a_self_registered_client_gets_no_redirect_before_anyone_acted() {
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
            CB,
            "--public",
        ],
    );
    let s = TestServer::start(dir.path(), &["--open-client-registration", "true"]);
    let evil = register(
        &s,
        &json!({"redirect_uris": [EVIL], "post_logout_redirect_uris": [EVIL],
                "token_endpoint_auth_method": "none", "client_name": "Evil"}),
    );
    let id = evil["client_id"].as_str().unwrap();
    let to_client = |r: &Resp| {
        r.status == 302
            || r.header("location").is_some_and(|l| l.starts_with(EVIL))
            || r.text().contains(EVIL)
    };
    let auth = |client: &str, redirect: &str, extra: &[(&str, &str)]| {
        let mut pairs = vec![
            ("client_id", client),
            ("redirect_uri", redirect),
            ("state", "st"),
            ("scope", "openid"),
            ("code_challenge", scanid_tests::PKCE_CHALLENGE),
            ("code_challenge_method", "S256"),
            ("response_type", "code"),
        ];
        for (k, v) in extra {
            pairs.retain(|(n, _)| n != k);
            pairs.push((k, v));
        }
        pairs.retain(|(_, v)| !v.is_empty());
        scanid_tests::get(&scanid_tests::auth_url(&s, &pairs))
    };
    let attacks: [(&str, &[(&str, &str)]); 3] = [
        ("response_type=token", &[("response_type", "token")]),
        (
            "no PKCE",
            &[("code_challenge", ""), ("code_challenge_method", "")],
        ),
        ("prompt=none", &[("prompt", "none")]),
    ];
    for (what, extra) in attacks {
        let r = auth(id, EVIL, extra);
        assert!(
            !to_client(&r),
            "{what}: {} {:?}",
            r.status,
            r.header("location")
        );
        assert_eq!(r.status, 400, "{what}: {}", r.text());
        // The operator's client: the error goes back to it, as before.
        let shop = auth("shop", CB, extra);
        assert_eq!(shop.status, 302, "{what} (shop): {}", shop.text());
        assert!(shop.header("location").unwrap().starts_with(CB), "{what}");
    }
    let q = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("client_id", id)
        .append_pair("post_logout_redirect_uri", EVIL)
        .append_pair("state", "st")
        .finish();
    let r = scanid_tests::get(&format!("{}?{q}", s.oidc("logout")));
    assert!(
        !to_client(&r),
        "logout: {} {:?}",
        r.status,
        r.header("location")
    );
    assert_eq!(r.status, 200, "logout: {}", r.text());
}

/// This machine's own name, which resolves (through `/etc/hosts` or the resolver) to one of its
/// own addresses: loopback, or a private network's (a container's, a CI runner's). Its
/// addresses, as this process resolves them, are checked to be one or the other.
fn own_host_name() -> String {
    use std::net::ToSocketAddrs;
    let out = std::process::Command::new("hostname").output().unwrap();
    let name = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    let addrs: Vec<std::net::IpAddr> = (name.as_str(), 443)
        .to_socket_addrs()
        .unwrap_or_else(|e| panic!("{name} does not resolve here: {e}"))
        .map(|a| a.ip())
        .collect();
    let internal = |ip: &std::net::IpAddr| match ip {
        std::net::IpAddr::V4(v4) => v4.is_loopback() || v4.is_private() || v4.is_link_local(),
        std::net::IpAddr::V6(v6) => {
            v6.is_loopback() || v6.is_unique_local() || v6.is_unicast_link_local()
        }
    };
    assert!(
        !addrs.is_empty() && addrs.iter().all(internal),
        "{name} resolves to {addrs:?}"
    );
    name
}

/// The fifth attack run, item 7: a self-registered back-channel logout URI reached internal
/// hosts by name. IP literals and `localhost` were refused, but a name resolving to 127.0.0.1
/// (here: the machine's own host name) was accepted, and the service POSTed its logout tokens
/// there. The registration now resolves the name and refuses an internal address (and the
/// delivery resolves it again and connects only to public addresses, see
/// `scanid-backchannel`'s `a_public_only_delivery_connects_to_no_internal_address`). A server
/// not in local development (an https public URL), as in production.
#[test]
fn a_self_registered_back_channel_uri_may_not_name_an_internal_host() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(
        dir.path(),
        &[
            "--open-client-registration",
            "true",
            "--public-url",
            "https://idp.example",
        ],
    );
    let name = own_host_name();
    for uri in [
        format!("https://{name}:8443/backchannel"),
        format!("https://{}:8443/backchannel", name.to_uppercase()),
        "https://10.0.0.7/backchannel".to_owned(),
        "https://[fd00::7]/backchannel".to_owned(),
    ] {
        let r = request(
            "POST",
            &s.url(REGISTER),
            &[("Content-Type", "application/json")],
            json!({"redirect_uris": [CB], "backchannel_logout_uri": uri})
                .to_string()
                .as_bytes(),
        );
        assert_eq!(r.status, 400, "{uri}: {}", r.text());
        assert_eq!(r.json()["error"], "invalid_client_metadata", "{uri}");
    }
    // A name that is not internal (here it resolves to nothing, or to the internet) is taken.
    let ok = register(
        &s,
        &json!({"redirect_uris": [CB], "backchannel_logout_uri": "https://rp.example/backchannel"}),
    );
    assert_eq!(
        ok["backchannel_logout_uri"],
        "https://rp.example/backchannel"
    );
}
