//! The web app's side of the service: the app's files and their headers, the name check,
//! an identity's recent logins, and deleting an identity (by its device and by an operator):
//! afterwards the directory answers 404, its tokens and sessions are dead and its name is free.

use scanid_tests::{
    auth_url, code_of, create_client, get, introspect, login, png, post_form, redeem, request,
    scanid_json, secret_of, userinfo, Browser, Resp, TestApp, TestServer, CB,
};
use serde_json::{json, Value};

struct Env {
    s: TestServer,
    shop: String,
    _dir: tempfile::TempDir,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let shop = secret_of(&create_client(
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
    // Deleted names free at once here (the quarantine has its own test in hardening.rs).
    let s = TestServer::start(
        dir.path(),
        &["--photo-host", "cdn.example.com", "--name-quarantine", "0"],
    );
    Env { s, shop, _dir: dir }
}

/// Logs `app` in to shop (a fresh browser) and redeems the code: the token response.
fn tokens(e: &Env, app: &TestApp) -> Value {
    let b = &mut Browser::new();
    let url = auth_url(
        &e.s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("state", "s"),
            ("nonce", "n"),
            ("scope", "openid profile"),
        ],
    );
    let code = code_of(&login(b, &e.s, app, &url));
    redeem(&e.s, ("shop", &e.shop), &code)
}

fn signed(app: &TestApp, method: &str, path: &str, field: &str, typ: &str) -> Resp {
    let jws = TestApp::sign(&app.key, typ, &app.request_claims());
    request(
        method,
        &format!("{}/app/identities/{}{path}", app.issuer, app.sub),
        &[("Content-Type", "application/json")],
        json!({ field: jws }).to_string().as_bytes(),
    )
}

fn delete(app: &TestApp) -> Resp {
    signed(app, "DELETE", "", "deletion", "deletion+jwt")
}

fn name_available(s: &TestServer, name: &str) -> Resp {
    get(&format!("{}/app/names/{name}", s.issuer))
}

#[test]
fn the_app_is_served_with_a_strict_csp_at_app_and_at_the_qr_link() {
    let e = env();
    for url in [
        format!("{}/app/", e.s.issuer),
        format!("{}/app/scan?session=x&challenge=y", e.s.issuer),
    ] {
        let r = get(&url);
        assert_eq!(r.status, 200, "{url}");
        assert_eq!(
            r.header("content-type"),
            Some("text/html; charset=utf-8"),
            "{url}"
        );
        let csp = r.header("content-security-policy").unwrap().to_owned();
        for part in [
            "default-src 'none'",
            "script-src 'self';",
            "style-src 'self';",
            "frame-ancestors 'none'",
            "img-src 'self' data: blob: https://cdn.example.com;",
        ] {
            assert!(csp.contains(part), "{url}: {part} in {csp}");
        }
        assert!(!csp.contains("unsafe"), "{csp}");
        assert_eq!(r.header("x-frame-options"), Some("DENY"));
        let html = r.text();
        assert!(html.contains("<script type=\"module\" src=\"/realms/scanid/app/app.js\">"));
        assert!(
            !html.contains("<script>") && !html.contains("style="),
            "nothing inline"
        );
    }
    for (file, ct) in [
        ("app.js", "text/javascript; charset=utf-8"),
        ("device.js", "text/javascript; charset=utf-8"),
        ("sw.js", "text/javascript; charset=utf-8"),
        ("app.css", "text/css; charset=utf-8"),
        ("manifest.webmanifest", "application/manifest+json"),
        ("icon.svg", "image/svg+xml"),
    ] {
        let r = get(&format!("{}/app/{file}", e.s.issuer));
        assert_eq!(r.status, 200, "{file}");
        assert_eq!(r.header("content-type"), Some(ct), "{file}");
        assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
        // Revalidated: the same version is a 304.
        let etag = r.header("etag").unwrap().to_owned();
        let again = request(
            "GET",
            &format!("{}/app/{file}", e.s.issuer),
            &[("If-None-Match", &etag)],
            b"",
        );
        assert_eq!(again.status, 304, "{file}");
    }
    // Without the slash: sent on to the shell.
    let r = get(&format!("{}/app", e.s.issuer));
    assert_eq!(r.status, 308);
    assert_eq!(r.header("location"), Some("/realms/scanid/app/"));
    assert_eq!(get(&format!("{}/app/other.js", e.s.issuer)).status, 404);
    assert_eq!(get(&format!("{}/app/..%2Fapp.js", e.s.issuer)).status, 404);
    assert_eq!(
        get(&format!("{}/app/", e.s.issuer.replace("scanid", "other"))).status,
        404
    );
    // The login page offers the web app to people without the app.
    let page = Browser::new().get(&auth_url(
        &e.s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("state", "s"),
            ("nonce", "n"),
            ("scope", "openid"),
        ],
    ));
    assert!(page
        .text()
        .contains(&format!("id=\"web-app\" href=\"{}/app/\"", e.s.issuer)));
}

#[test]
fn the_name_check_says_taken_at_once_and_refuses_bad_names() {
    let e = env();
    let r = name_available(&e.s, "newname");
    assert_eq!(r.status, 200);
    assert_eq!(r.json(), json!({ "name": "newname", "available": true }));
    TestApp::enroll(&e.s, "newname");
    assert_eq!(name_available(&e.s, "newname").json()["available"], false);
    let bad = name_available(&e.s, "Not%20A%20Name");
    assert_eq!(bad.status, 400);
    assert_eq!(bad.json()["error"], "invalid_request");
}

#[test]
fn recent_logins_are_the_identitys_own_signed_read() {
    let e = env();
    let app = TestApp::enroll(&e.s, "active");
    let none = signed(&app, "POST", "/activity", "activity", "activity+jwt");
    assert_eq!(none.status, 200, "{}", none.text());
    assert_eq!(none.json()["logins"], json!([]));
    tokens(&e, &app);
    let r = signed(&app, "POST", "/activity", "activity", "activity+jwt");
    let logins = r.json()["logins"].clone();
    assert_eq!(logins.as_array().unwrap().len(), 1, "{logins}");
    assert_eq!(logins[0]["client_id"], "shop");
    assert_eq!(logins[0]["client_name"], "Shop");
    assert_eq!(logins[0]["outcome"], "approved");
    assert_eq!(logins[0]["browser_ip"], "127.0.0.1");
    // Another key cannot read them; a replayed request is refused.
    let other = TestApp::enroll(&e.s, "nosy");
    let jws = TestApp::sign(&other.key, "activity+jwt", &app.request_claims());
    let url = format!("{}/app/identities/{}/activity", e.s.issuer, app.sub);
    let body = json!({ "activity": jws }).to_string();
    let ct = [("Content-Type", "application/json")];
    assert_eq!(request("POST", &url, &ct, body.as_bytes()).status, 400);
    let jws = TestApp::sign(&app.key, "activity+jwt", &app.request_claims());
    let body = json!({ "activity": jws }).to_string();
    assert_eq!(request("POST", &url, &ct, body.as_bytes()).status, 200);
    assert_eq!(request("POST", &url, &ct, body.as_bytes()).status, 400);
}

#[test]
fn a_deleted_identity_is_gone_its_tokens_dead_its_name_free() {
    let e = env();
    let app = TestApp::enroll(&e.s, "leaving");
    let t = tokens(&e, &app);
    let access = t["access_token"].as_str().unwrap();
    let refresh = t["refresh_token"].as_str().unwrap();
    assert_eq!(userinfo(&e.s, access).status, 200);
    let dir_url = format!("{}/v1/directory/{}", e.s.base, app.sub);
    let sid_url = format!("{}/v1/directory/profile/{}", e.s.base, app.service_id);
    assert_eq!(get(&dir_url).status, 200);

    // Only its own key deletes it.
    let stranger = TestApp::enroll(&e.s, "stranger");
    let jws = TestApp::sign(&stranger.key, "deletion+jwt", &app.request_claims());
    let r = request(
        "DELETE",
        &format!("{}/app/identities/{}", e.s.issuer, app.sub),
        &[("Content-Type", "application/json")],
        json!({ "deletion": jws }).to_string().as_bytes(),
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(get(&dir_url).status, 200);

    let r = delete(&app);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["status"], "deleted");
    assert_eq!(get(&dir_url).status, 404);
    assert_eq!(get(&sid_url).status, 404);
    assert_eq!(userinfo(&e.s, access).status, 401);
    assert_eq!(introspect(&e.s, ("shop", &e.shop), access)["active"], false);
    let r = post_form(
        &format!("{}/protocol/openid-connect/token", e.s.issuer),
        Some(("shop", &e.shop)),
        &[("grant_type", "refresh_token"), ("refresh_token", refresh)],
    );
    assert_eq!(r.json()["error"], "invalid_grant", "{}", r.text());
    // Deleted twice: it is unknown now.
    assert_eq!(delete(&app).status, 404);
    // Its key approves nothing any more.
    let b = &mut Browser::new();
    let (_, payload) = scanid_tests::open(
        b,
        &auth_url(
            &e.s,
            &[
                ("client_id", "shop"),
                ("redirect_uri", CB),
                ("response_type", "code"),
                ("state", "s"),
                ("nonce", "n"),
                ("scope", "openid"),
            ],
        ),
    );
    assert_eq!(app.scan(&payload).status, 404);

    // The name is free again; the new identity is someone else, with a new service_id.
    assert_eq!(name_available(&e.s, "leaving").json()["available"], true);
    let again = TestApp::enroll(&e.s, "leaving");
    assert_ne!(again.sub, app.sub);
    assert_ne!(again.service_id, app.service_id);
    assert_eq!(
        get(&sid_url).status,
        404,
        "a service_id is never reassigned"
    );
    // A fresh login of the new identity asks for consent again (nothing carried over).
    let b = &mut Browser::new();
    let url = auth_url(
        &e.s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("state", "s"),
            ("nonce", "n"),
            ("scope", "openid profile"),
        ],
    );
    let (_, payload) = scanid_tests::open(b, &url);
    assert_eq!(again.decide(b, &payload, "approve").status, 200);
    let consent = b.get(&scanid_tests::consent_url(&e.s, &payload));
    assert_eq!(consent.status, 200);
    assert!(consent.text().contains("name=\"csrf\""));
}

#[test]
fn an_operator_deletes_an_identity_by_name() {
    let e = env();
    let app = TestApp::enroll(&e.s, "byoperator");
    let t = tokens(&e, &app);
    let d = e.s.data_dir.to_str().unwrap();
    let out = scanid_json(&[
        "identity",
        "delete",
        "--data-dir",
        d,
        "--name-quarantine",
        "0",
        "byoperator",
    ]);
    assert_eq!(out["deleted"], app.sub.as_str());
    assert_eq!(
        get(&format!("{}/v1/directory/{}", e.s.base, app.sub)).status,
        404
    );
    assert_eq!(
        userinfo(&e.s, t["access_token"].as_str().unwrap()).status,
        401
    );
    assert_eq!(name_available(&e.s, "byoperator").json()["available"], true);
    // Unknown now.
    let out = scanid_tests::scanid(&["identity", "delete", "--data-dir", d, "byoperator"]);
    assert!(!out.status.success());
}

#[test]
fn photo_uploads_are_signed_checked_by_magic_bytes_and_served_sandboxed() {
    let e = env();
    let app = TestApp::enroll(&e.s, "photo.owner");
    let image = png(320, 240);
    // The signed hash must be the image's.
    let r = app.upload_photo(&image, Some("AAAA"));
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("sha256"));
    // Not an image; too large a picture; too many bytes.
    for (bad, why) in [
        (
            b"<html><script>alert(1)</script>".to_vec(),
            "JPEG, PNG or WebP",
        ),
        (png(5000, 10), "4096"),
    ] {
        let r = app.upload_photo(&bad, None);
        assert_eq!(r.status, 400, "{why}: {}", r.text());
        assert!(r.json()["error_description"]
            .as_str()
            .unwrap()
            .contains(why));
    }
    let mut big = png(10, 10);
    big.resize(1024 * 1024 + 1, 0);
    let r = app.upload_photo(&big, None);
    assert_eq!(r.status, 400, "{}", r.text());
    // Someone else's key uploads nothing.
    let other = TestApp::enroll(&e.s, "photo.other");
    let forged = TestApp {
        key: other.key,
        public_key: other.public_key.clone(),
        sub: app.sub.clone(),
        service_id: app.service_id.clone(),
        issuer: app.issuer.clone(),
    };
    assert_eq!(forged.upload_photo(&image, None).status, 400);

    let r = app.upload_photo(&image, None);
    assert_eq!(r.status, 200, "{}", r.text());
    let url = r.json()["profile_photo"].as_str().unwrap().to_owned();
    assert!(
        url.starts_with(&format!("{}/v1/photos/{}/", e.s.base, app.sub)),
        "{url}"
    );
    let photo = get(&url);
    assert_eq!(photo.status, 200);
    assert_eq!(photo.header("content-type"), Some("image/png"));
    assert_eq!(photo.header("x-content-type-options"), Some("nosniff"));
    assert!(photo
        .header("content-security-policy")
        .unwrap()
        .contains("sandbox"));
    assert_eq!(photo.header("cache-control"), Some("public, max-age=300"));
    assert_eq!(photo.body, image);
    // Revalidated by its content hash.
    let etag = photo.header("etag").unwrap().to_owned();
    assert!(url.ends_with(etag.trim_matches('"')), "{etag}");
    let again = request("GET", &url, &[("If-None-Match", &etag)], b"");
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    let avatar = get(&format!("{}/v1/directory/{}/avatar", e.s.base, app.sub));
    assert_eq!(avatar.status, 302);
    assert_eq!(avatar.header("location"), Some(url.as_str()));
    // Unknown and malformed photo names are one 404.
    for bad in [
        format!("{}/v1/photos/{}/{}", e.s.base, app.sub, "0".repeat(64)),
        format!("{}/v1/photos/{}/..%2F..%2Fkeys", e.s.base, app.sub),
        format!("{}/v1/photos/not-a-sub/{}", e.s.base, "0".repeat(64)),
    ] {
        assert_eq!(get(&bad).status, 404, "{bad}");
    }
    // A new photo replaces the old one, which is gone.
    let r = app.upload_photo(&png(100, 100), None);
    assert_eq!(r.status, 200);
    assert_ne!(r.json()["profile_photo"], url.as_str());
    assert_eq!(get(&url).status, 404);
    // An own-origin photo URL cannot be set by hand (only uploads host photos).
    let mut claims = app.request_claims();
    claims["profile_photo"] = json!(url);
    assert_eq!(app.patch_profile(&claims).status, 400);
}

/// The shell speaks `Accept-Language` until the app reads the phone's languages; each
/// language's messages are one file named by its content (cached for good) and the manifest
/// is in the language; a stale or unknown file is a 404 (issue 39).
#[test]
fn the_app_s_words_come_one_language_at_a_time() {
    let e = env();
    let shell = |lang: &str| {
        request(
            "GET",
            &format!("{}/app/", e.s.issuer),
            &[("accept-language", lang)],
            b"",
        )
    };
    let r = shell("ar-EG, en;q=0.5");
    assert_eq!(r.header("vary"), Some("accept-language"));
    let html = r.text();
    assert!(
        html.starts_with("<!doctype html><html lang=\"ar\" dir=\"rtl\">"),
        "{html}"
    );
    assert!(html.contains("manifest-ar.webmanifest"));
    let block = html
        .split("<script type=\"application/json\" id=\"languages\">")
        .nth(1)
        .and_then(|b| b.split("</script>").next())
        .unwrap();
    let langs: serde_json::Value = serde_json::from_str(block).unwrap();
    assert_eq!(langs["languages"].as_array().unwrap().len(), 15);
    let href = |tag: &str| {
        langs["languages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["tag"] == tag)
            .unwrap()["href"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let de = get(&format!("{}/app/{}", e.s.issuer, href("de")));
    assert_eq!(de.status, 200);
    assert_eq!(
        de.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_eq!(de.header("content-type"), Some("application/json"));
    assert_eq!(de.json()["approve"], "Bestätigen");
    let manifest = get(&format!("{}/app/manifest-uk.webmanifest", e.s.issuer)).json();
    assert_eq!(manifest["lang"], "uk");
    assert_eq!(manifest["name"], "scanid");
    assert!(manifest["description"].as_str().unwrap().contains("scanid"));
    assert!(!manifest["description"].as_str().unwrap().contains("Your"));
    for bad in [
        "messages-de-000000000000.json",
        "messages-xx.json",
        "manifest-xx.webmanifest",
        "manifest-.webmanifest",
    ] {
        assert_eq!(
            get(&format!("{}/app/{bad}", e.s.issuer)).status,
            404,
            "{bad}"
        );
    }
    // A language scanid does not speak: the realm's default.
    assert!(shell("fi")
        .text()
        .starts_with("<!doctype html><html lang=\"en\" dir=\"ltr\">"));
}
