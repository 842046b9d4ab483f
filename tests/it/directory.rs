//! The public directory (spec 4.6-4.8; docs/requirements.md DIR1-DIR2), profile updates and key
//! rotation by the app, and the identity operator commands.

use std::process::Command;

use scanid_tests::{
    auth_url, code_of, create_client, get, introspect, login, params_of, python, redeem, request,
    scanid_json, secret_of, Browser, TestApp, TestServer, CB,
};
use serde_json::{json, Value};

fn with(mut v: Value, k: &str, val: Value) -> Value {
    v[k] = val;
    v
}

#[test]
fn profiles_by_sub_and_service_id_with_etags_and_one_404() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "dora");
    let r = get(&format!("{}/v1/directory/{}", s.base, app.sub));
    assert_eq!(r.status, 200);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    assert!(r.header("cache-control").unwrap().contains("max-age"));
    let etag = r.header("etag").unwrap().to_owned();
    let p = r.json();
    let fields: Vec<&str> = p.as_object().unwrap().keys().map(String::as_str).collect();
    for f in [
        "service_uuid",
        "name",
        "display_name",
        "profile_photo",
        "created_at",
        "public_key",
        "country_code",
        "type",
    ] {
        assert!(fields.contains(&f), "spec 2.5 field {f}");
    }
    assert_eq!(p["service_uuid"], app.sub.as_str());
    assert_eq!(p["type"], "USER");
    assert_eq!(p["public_key"], app.public_key.as_str());
    // created_at: RFC 3339 with milliseconds and Z, read by Python's own parser.
    let created = p["created_at"].as_str().unwrap();
    let out = Command::new(python())
        .args(["-c", "import sys,datetime; d=datetime.datetime.fromisoformat(sys.argv[1]); assert d.utcoffset().total_seconds()==0; assert len(sys.argv[1])==24 and sys.argv[1].endswith('Z'); print(d.microsecond)", created])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{created}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // By service_id: the same profile.
    let r2 = get(&format!(
        "{}/v1/directory/profile/{}",
        s.base, app.service_id
    ));
    assert_eq!(r2.status, 200);
    assert_eq!(r2.json(), p);
    // 304 for a matching If-None-Match.
    let r3 = request(
        "GET",
        &format!("{}/v1/directory/{}", s.base, app.sub),
        &[("If-None-Match", &etag)],
        b"",
    );
    assert_eq!(r3.status, 304);
    assert!(r3.body.is_empty());
    let r4 = request(
        "GET",
        &format!("{}/v1/directory/{}", s.base, app.sub),
        &[("If-None-Match", "\"other\"")],
        b"",
    );
    assert_eq!(r4.status, 200);
    // DIR2: unknown, malformed and oversized ids: one 404 JSON.
    let long = "a".repeat(5000);
    let bodies: Vec<String> = [
        format!("/v1/directory/{}", uuid_like()),
        "/v1/directory/not-a-uuid".into(),
        "/v1/directory/%00%ff".into(),
        format!("/v1/directory/{long}"),
        "/v1/directory/profile/abcdefghjkmn".into(),
        "/v1/directory/profile/NOT-VALID".into(),
        format!("/v1/directory/profile/{long}"),
    ]
    .iter()
    .map(|path| {
        let r = get(&format!("{}{path}", s.base));
        assert_eq!(r.status, 404, "{path}");
        assert_eq!(r.header("content-type"), Some("application/json"), "{path}");
        r.text()
    })
    .collect();
    assert!(bodies.windows(2).all(|w| w[0] == w[1]), "{bodies:?}");
}

fn uuid_like() -> String {
    "7c1a4b9e-3f2d-4e8a-9b6c-1d2e3f4a5b6c".into()
}

#[test]
fn avatar_redirects_only_to_a_validated_photo() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &["--photo-host", "cdn.example.com"]);
    let app = TestApp::enroll(&s, "ella");
    let avatar = format!("{}/v1/directory/{}/avatar", s.base, app.sub);
    let r = get(&avatar);
    assert_eq!(r.status, 404, "no photo yet");
    assert_eq!(r.json()["error"], "not_found");
    let r = app.patch_profile(&with(
        app.request_claims(),
        "profile_photo",
        json!("https://cdn.example.com/ella.png"),
    ));
    assert_eq!(r.status, 200, "{}", r.text());
    let r = get(&avatar);
    assert_eq!(r.status, 302);
    assert_eq!(
        r.header("location"),
        Some("https://cdn.example.com/ella.png")
    );
    assert!(r.header("cache-control").unwrap().contains("max-age"));
    // DIR1: nothing but https URLs on an allowed host, without credentials, can be written.
    for bad in [
        "https://evil.example/x.png",
        "http://cdn.example.com/x.png",
        "javascript:alert(1)",
        "https://user:pw@cdn.example.com/x",
        "//evil.example/x",
        "https:///evil.example",
        "data:image/png;base64,AA",
    ] {
        let r = app.patch_profile(&with(app.request_claims(), "profile_photo", json!(bad)));
        assert_eq!(r.status, 400, "{bad}");
    }
    assert_eq!(
        get(&avatar).header("location"),
        Some("https://cdn.example.com/ella.png")
    );
    // Removing the photo.
    let r = app.patch_profile(&with(app.request_claims(), "profile_photo", Value::Null));
    assert_eq!(r.status, 200);
    assert_eq!(get(&avatar).status, 404);
    assert_eq!(
        get(&format!("{}/v1/directory/{}/avatar", s.base, uuid_like())).status,
        404
    );
}

#[test]
fn profile_updates_validate_every_field_and_refuse_forgeries_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "finn");
    let mallory = TestApp::enroll(&s, "mallory2");
    let ok = app.patch_profile(&with(
        with(app.request_claims(), "display_name", json!("Finn F.")),
        "country_code",
        json!("FI"),
    ));
    assert_eq!(ok.status, 200, "{}", ok.text());
    let p = get(&format!("{}/v1/directory/{}", s.base, app.sub)).json();
    assert_eq!(p["display_name"], "Finn F.");
    assert_eq!(p["country_code"], "FI");
    let bad = [
        ("display_name", json!("")),
        ("display_name", json!("x".repeat(65))),
        ("display_name", json!(5)),
        ("country_code", json!("fi")),
        ("country_code", json!("XX")),
        ("name", json!("renamed")),
        ("public_key", json!(mallory.public_key)),
        ("service_id", json!("abcdefghjkmn")),
        ("unknown_field", json!(1)),
    ];
    for (k, v) in bad {
        let r = app.patch_profile(&with(app.request_claims(), k, v.clone()));
        assert_eq!(r.status, 400, "{k}={v}: {}", r.text());
    }
    assert_eq!(
        app.patch_profile(&app.request_claims()).status,
        400,
        "nothing to change"
    );
    // Forged: signed by another identity's key.
    let jws = TestApp::sign(
        &mallory.key,
        "profile+jwt",
        &with(app.request_claims(), "display_name", json!("pwned")),
    );
    let r = request(
        "PATCH",
        &format!("{}/app/identities/{}", s.issuer, app.sub),
        &[("Content-Type", "application/json")],
        json!({ "update": jws }).to_string().as_bytes(),
    );
    assert_eq!(r.status, 400);
    // sub naming another identity than the path.
    let r = app.patch_profile(&with(
        with(app.request_claims(), "sub", json!(mallory.sub)),
        "display_name",
        json!("x"),
    ));
    assert_eq!(r.status, 400);
    // Replayed: the same signed update twice.
    let claims = with(app.request_claims(), "display_name", json!("Once"));
    let jws = TestApp::sign(&app.key, "profile+jwt", &claims);
    let send = || {
        request(
            "PATCH",
            &format!("{}/app/identities/{}", s.issuer, app.sub),
            &[("Content-Type", "application/json")],
            json!({ "update": jws }).to_string().as_bytes(),
        )
    };
    assert_eq!(send().status, 200);
    assert_eq!(send().status, 409);
    assert_eq!(
        get(&format!("{}/v1/directory/{}", s.base, mallory.sub)).json()["display_name"],
        "mallory2 display"
    );
}

#[test]
fn key_rotation_needs_both_keys_and_moves_the_identity_to_the_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let mut app = TestApp::enroll(&s, "gus");
    let (new_key, new_pk) = TestApp::key();
    let (other_key, _) = TestApp::key();
    let rotate = |signer: &aws_lc_rs::signature::EcdsaKeyPair,
                  prover: &aws_lc_rs::signature::EcdsaKeyPair,
                  pk: &str| {
        let proof = TestApp::sign(prover, "key-proof+jwt", &app.request_claims());
        let claims = with(
            with(app.request_claims(), "public_key", json!(pk)),
            "proof",
            json!(proof),
        );
        let jws = TestApp::sign(signer, "key-rotation+jwt", &claims);
        request(
            "POST",
            &format!("{}/app/identities/{}/key", s.issuer, app.sub),
            &[("Content-Type", "application/json")],
            json!({ "rotation": jws }).to_string().as_bytes(),
        )
    };
    assert_eq!(
        rotate(&other_key, &new_key, &new_pk).status,
        400,
        "not signed by the old key"
    );
    assert_eq!(
        rotate(&app.key, &other_key, &new_pk).status,
        400,
        "no proof of the new key"
    );
    assert_eq!(
        rotate(&app.key, &new_key, &app.public_key.clone()).status,
        400,
        "the same key"
    );
    let r = rotate(&app.key, &new_key, &new_pk);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        get(&format!("{}/v1/directory/{}", s.base, app.sub)).json()["public_key"],
        new_pk.as_str()
    );
    // The old key can no longer act; the new one can.
    assert_eq!(
        app.patch_profile(&with(app.request_claims(), "display_name", json!("old")))
            .status,
        400
    );
    app.key = new_key;
    app.public_key = new_pk;
    assert_eq!(
        app.patch_profile(&with(app.request_claims(), "display_name", json!("new")))
            .status,
        200
    );
}

#[test]
fn operators_manage_groups_and_disabling_removes_an_identity_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let secret = secret_of(&create_client(
        d,
        &[
            "--name",
            "Shop",
            "--client-id",
            "shop",
            "--redirect-uri",
            CB,
        ],
    ));
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "hilda");
    let shown = scanid_json(&["identity", "add-group", "--data-dir", d, "hilda", "staff"]);
    assert_eq!(shown["groups"], json!(["staff"]));
    assert_eq!(
        scanid_json(&["identity", "show", "--data-dir", d, &app.service_id])["sub"],
        app.sub.as_str()
    );
    assert_eq!(
        scanid_json(&["identity", "list", "--data-dir", d])["identities"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // A login with the groups scope sees the group.
    let mut b = Browser::new();
    let r = login(
        &mut b,
        &s,
        &app,
        &auth_url(
            &s,
            &[
                ("client_id", "shop"),
                ("redirect_uri", CB),
                ("response_type", "code"),
                ("state", "s"),
                ("nonce", "n"),
                ("scope", "openid groups"),
            ],
        ),
    );
    let t = redeem(&s, ("shop", &secret), &code_of(&r));
    let at = t["access_token"].as_str().unwrap();
    assert_eq!(
        introspect(&s, ("shop", &secret), at)["groups"],
        json!(["staff"])
    );
    let removed = scanid_json(&[
        "identity",
        "remove-group",
        "--data-dir",
        d,
        "hilda",
        "staff",
    ]);
    assert_eq!(removed["groups"], json!([]));
    // Disable: gone from the directory, tokens inactive, no new login.
    assert_eq!(
        scanid_json(&["identity", "disable", "--data-dir", d, "hilda"])["disabled"],
        true
    );
    assert_eq!(
        get(&format!("{}/v1/directory/{}", s.base, app.sub)).status,
        404
    );
    assert_eq!(
        get(&format!(
            "{}/v1/directory/profile/{}",
            s.base, app.service_id
        ))
        .status,
        404
    );
    assert_eq!(
        introspect(&s, ("shop", &secret), at),
        json!({ "active": false })
    );
    let mut b2 = Browser::new();
    let page = b2.get(&auth_url(
        &s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("state", "s2"),
            ("nonce", "n"),
        ],
    ));
    let payload = scanid_tests::attr(&page.text(), "id=\"app-link\"", "data-qr-payload").unwrap();
    // Its scan proof names a disabled identity; an anonymous scan gets through, and its
    // decision does not.
    assert_eq!(app.scan(&payload).status, 404);
    assert_eq!(app.scan_anonymously(&payload).status, 200);
    assert_eq!(
        app.post_decision(
            &params_of(&payload)["session"],
            &app.approval(&payload, "approve", Some(42))
        )
        .status,
        404
    );
    // Enable again.
    scanid_json(&["identity", "enable", "--data-dir", d, "hilda"]);
    assert_eq!(
        get(&format!("{}/v1/directory/{}", s.base, app.sub)).status,
        200
    );
    let out = scanid_tests::scanid(&["identity", "show", "--data-dir", d, "nobody"]);
    assert_eq!(out.status.code(), Some(2));
}
