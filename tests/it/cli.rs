//! Operator commands: clients and signing keys.

use scanid_tests::{get, scanid, scanid_json, TestServer};
use serde_json::Value;

fn err(args: &[&str]) -> (i32, String) {
    let out = scanid(args);
    assert!(
        out.stdout.is_empty(),
        "{args:?} printed {}",
        String::from_utf8_lossy(&out.stdout)
    );
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn client_lifecycle() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let c = scanid_json(&[
        "client",
        "create",
        "--data-dir",
        d,
        "--name",
        "Shop",
        "--redirect-uri",
        "https://shop.example/cb",
        "--redirect-uri",
        "http://127.0.0.1/cb",
        "--client-id",
        "shop",
        "--client-credentials",
    ]);
    assert_eq!(c["client_id"], "shop");
    let first_secret = c["client_secret"].as_str().unwrap().to_owned();

    let p = scanid_json(&[
        "client",
        "create",
        "--data-dir",
        d,
        "--name",
        "SPA",
        "--redirect-uri",
        "https://spa.example/",
        "--public",
    ]);
    assert!(
        p.get("client_secret").is_none(),
        "public clients have no secret"
    );
    let uuid = p["client_id"].as_str().unwrap();
    assert_eq!(uuid.len(), 36);

    let list = scanid_json(&["client", "list", "--data-dir", d]);
    let clients = list["clients"].as_array().unwrap();
    assert_eq!(clients.len(), 2);
    let shop = clients.iter().find(|c| c["client_id"] == "shop").unwrap();
    assert_eq!(shop["client_type"], "confidential");
    assert_eq!(
        shop["grant_types"],
        serde_json::json!(["authorization_code", "refresh_token", "client_credentials"])
    );
    assert!(
        shop.get("secret_hash").is_none(),
        "listing never shows secret material"
    );

    let rotated = scanid_json(&[
        "client",
        "rotate-secret",
        "--data-dir",
        d,
        "--client-id",
        "shop",
    ]);
    assert_ne!(rotated["client_secret"].as_str().unwrap(), first_secret);
    let (code, msg) = err(&[
        "client",
        "rotate-secret",
        "--data-dir",
        d,
        "--client-id",
        uuid,
    ]);
    assert_eq!(code, 2, "{msg}");

    let (code, msg) = err(&[
        "client",
        "create",
        "--data-dir",
        d,
        "--name",
        "Again",
        "--redirect-uri",
        "https://x.example/cb",
        "--client-id",
        "shop",
    ]);
    assert_eq!(code, 2);
    assert!(msg.contains("taken"), "{msg}");

    assert_eq!(
        scanid_json(&["client", "delete", "--data-dir", d, "--client-id", "shop"])["deleted"],
        true
    );
    let (code, _) = err(&["client", "delete", "--data-dir", d, "--client-id", "shop"]);
    assert_eq!(code, 2);
    assert_eq!(
        scanid_json(&["client", "list", "--data-dir", d])["clients"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn registration_refuses_bad_redirect_uris_and_names() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    for uri in [
        "http://shop.example/cb",
        "javascript:alert(1)",
        "data:text/html,hi",
        "https://shop.example/cb#x",
        "https://shop.example/cb?code=1",
        "https://user@shop.example/cb",
        "not a uri",
    ] {
        let (code, msg) = err(&[
            "client",
            "create",
            "--data-dir",
            d,
            "--name",
            "X",
            "--redirect-uri",
            uri,
        ]);
        assert_eq!(code, 2, "{uri}");
        assert!(msg.contains("redirect URI"), "{uri}: {msg}");
    }
    let (code, msg) = err(&[
        "client",
        "create",
        "--data-dir",
        d,
        "--name",
        "X",
        "--redirect-uri",
        "https://a.example/cb",
        "--public",
        "--client-credentials",
    ]);
    assert_eq!(code, 2, "{msg}");
    let (code, _) = err(&[
        "client",
        "create",
        "--data-dir",
        d,
        "--name",
        "",
        "--redirect-uri",
        "https://a.example/cb",
    ]);
    assert_eq!(code, 2);
    let (code, _) = err(&["client", "create", "--data-dir", d, "--name", "X"]);
    assert_eq!(code, 2, "a redirect URI is required");
    assert_eq!(
        scanid_json(&["client", "list", "--data-dir", d])["clients"],
        serde_json::json!([]),
        "nothing half-written"
    );
}

fn kids(jwks: &Value) -> Vec<String> {
    let mut v: Vec<String> = jwks["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["kid"].as_str().unwrap().to_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn key_rotation_publishes_then_activates_then_retires() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let listed = scanid_json(&["keys", "list", "--data-dir", d]);
    let keys = listed["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 2);
    // A kid may begin with '-' (base64url): it is a value, not a flag.
    let (code, stderr) = err(&["keys", "remove", "--data-dir", d, "--kid", "-abc"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no key -abc"), "{stderr}");
    let old = keys.iter().find(|k| k["alg"] == "RS256").unwrap()["kid"]
        .as_str()
        .unwrap()
        .to_owned();

    let step1 = scanid_json(&["keys", "rotate", "--data-dir", d, "--alg", "RS256"]);
    assert_eq!(step1["step"], "published");
    let next = step1["kid"].as_str().unwrap().to_owned();
    let s = TestServer::start(dir.path(), &[]);
    let published = kids(&get(&s.url("/realms/scanid/protocol/openid-connect/certs")).json());
    assert!(
        published.contains(&next) && published.contains(&old),
        "next is published beside the active key"
    );
    s.stop();

    let (code, msg) = err(&["keys", "rotate", "--data-dir", d, "--alg", "RS256"]);
    assert_eq!(
        code, 2,
        "activation waits until JWKS caches have the next key: {msg}"
    );
    let step2 = scanid_json(&[
        "keys",
        "rotate",
        "--data-dir",
        d,
        "--alg",
        "RS256",
        "--force",
    ]);
    assert_eq!(step2["step"], "activated");
    let states: Vec<(String, String)> = scanid_json(&["keys", "list", "--data-dir", d])["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["kid"].as_str().unwrap().to_owned(),
                k["state"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(states.contains(&(next.clone(), "active".into())));
    assert!(states.contains(&(old.clone(), "retired".into())));

    let s = TestServer::start(dir.path(), &[]);
    assert!(
        kids(&get(&s.url("/realms/scanid/protocol/openid-connect/certs")).json()).contains(&old),
        "retired still verifies"
    );
    s.stop();

    // `--kid=KID`: a kid is base64url and may start with `-`, which clap would read as a flag
    // (a usage error, also exit code 2).
    let kid_next = format!("--kid={next}");
    let kid_old = format!("--kid={old}");
    let (code, msg) = err(&["keys", "remove", "--data-dir", d, &kid_next]);
    assert_eq!(code, 2, "the active key cannot be removed: {msg}");
    assert!(msg.contains(&format!("{next} is active")), "{msg}");
    let (code, msg) = err(&["keys", "remove", "--data-dir", d, &kid_old]);
    assert_eq!(
        code, 2,
        "a just-retired key may still verify live tokens: {msg}"
    );
    assert!(
        msg.contains(&format!("{old} was retired less than")),
        "{msg}"
    );
    scanid_json(&["keys", "remove", "--data-dir", d, &kid_old, "--force"]);
    let s = TestServer::start(dir.path(), &[]);
    assert!(
        !kids(&get(&s.url("/realms/scanid/protocol/openid-connect/certs")).json()).contains(&old)
    );
    let (code, _) = err(&["keys", "rotate", "--data-dir", d, "--alg", "HS256"]);
    assert_eq!(code, 2);
}
