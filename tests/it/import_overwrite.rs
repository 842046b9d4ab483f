//! A Keycloak realm export imported again over clients that changed since (issue 37),
//! `ifResourceExists: OVERWRITE`: through python-keycloak's `partial_import_realm` against
//! `scanid serve`, and through `scanid client import --overwrite`; on the embedded store and on
//! DynamoDB (moto). The clients' settings and secrets are the export's again, their ids stay,
//! the answer says OVERWRITTEN for each, and each is an admin event.

use scanid_tests::{post_form, scanid, scanid_bin, scanid_json, TestServer};
use serde_json::Value;

/// The export's secret of `billing-worker`, a service account.
const WORKER_SECRET: &str = "bW9nX2JpbGxpbmdfd29ya2VyX3NlY3JldF8yMDI2";

fn export() -> String {
    scanid_tests::repo_root()
        .join("tests/fixtures/keycloak-realm-export.json")
        .display()
        .to_string()
}

/// The store flags of a fresh store: a data dir, or (`dynamo`) a table on the emulator with
/// its KMS key.
fn store(dir: &std::path::Path, dynamo: bool) -> Vec<String> {
    if !dynamo {
        return vec!["--data-dir".into(), dir.display().to_string()];
    }
    scanid_tests::Operator::on_emulator("kms-envelope").flags
}

fn with<'a>(args: &[&'a str], flags: &'a [String]) -> Vec<&'a str> {
    let mut v = args.to_vec();
    v.extend(flags.iter().map(String::as_str));
    v
}

/// The server of `flags` (DynamoDB: with an events table, so admin events are kept).
fn serve(dir: &std::path::Path, flags: &[String], dynamo: bool) -> TestServer {
    let mut args: Vec<String> = flags.to_vec();
    if dynamo {
        let events = format!("{}-events", flags[1]);
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let endpoint = std::env::var("SCANID_TEST_AWS_ENDPOINT").unwrap();
            let config = scanid_aws::emulator(&endpoint).await;
            scanid_aws::events::DynamoEvents::new(&config, &events)
                .create_table()
                .await
                .unwrap();
        });
        args.extend(["--events-table".into(), events]);
    } else {
        args.clear();
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    TestServer::start(dir, &refs)
}

fn worker_token_status(s: &TestServer) -> u16 {
    post_form(
        &s.oidc("token"),
        Some(("billing-worker", WORKER_SECRET)),
        &[("grant_type", "client_credentials")],
    )
    .status
}

fn python_keycloak_overwrites(dynamo: bool) {
    let dir = tempfile::tempdir().unwrap();
    let flags = store(dir.path(), dynamo);
    let create = [
        "client",
        "create",
        "--name",
        "importer",
        "--client-id",
        "importer",
        "--client-credentials",
        "--admin-role",
        "manage-clients",
        "--admin-role",
        "view-events",
    ];
    let secret = scanid_json(&with(&create, &flags))["client_secret"]
        .as_str()
        .unwrap()
        .to_owned();
    let s = serve(dir.path(), &flags, dynamo);
    let out = std::process::Command::new(scanid_tests::python())
        .arg(scanid_tests::repo_root().join("tests/py/keycloak_import.py"))
        .args([s.base.as_str(), "scanid", "importer", &secret, &export()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "keycloak_import.py (pip install -r tests/py/requirements.txt): {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["overwritten"], 5, "{last}");
    // The script gave billing-worker a new secret; the overwrite set the export's again.
    assert_eq!(worker_token_status(&s), 200);
}

#[test]
fn python_keycloak_overwrites_an_imported_realm() {
    python_keycloak_overwrites(false);
}

#[test]
fn python_keycloak_overwrites_an_imported_realm_on_dynamodb() {
    python_keycloak_overwrites(true);
}

fn cli_overwrites(dynamo: bool) {
    let dir = tempfile::tempdir().unwrap();
    let flags = store(dir.path(), dynamo);
    let export = export();
    let v = scanid_json(&with(&["client", "import", &export], &flags));
    assert_eq!(v["added"], 5, "{v}");
    // Changed since: a new secret for the service account, a disabled client.
    scanid_json(&with(
        &["client", "rotate-secret", "--client-id", "billing-worker"],
        &flags,
    ));
    scanid_json(&with(
        &["client", "disable", "--client-id", "tv-app"],
        &flags,
    ));
    let show = ["client", "show", "--client-id", "tv-app"];
    assert_eq!(scanid_json(&with(&show, &flags))["enabled"], false);
    // --skip-existing and --overwrite are one or the other.
    let both = scanid(&with(
        &[
            "client",
            "import",
            &export,
            "--skip-existing",
            "--overwrite",
        ],
        &flags,
    ));
    assert!(!both.status.success());
    assert!(String::from_utf8_lossy(&both.stderr).contains("cannot be used with"));
    // Without either: stops, naming the way out.
    let again = scanid(&with(&["client", "import", &export], &flags));
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--overwrite"));

    let out = std::process::Command::new(scanid_bin())
        .args(with(&["client", "import", &export, "--overwrite"], &flags))
        .envs(scanid_tests::aws_env())
        .env("RUST_LOG", "warn,audit=info")
        .env("SCANID_LOG_FORMAT", "json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (
            v["added"].as_u64(),
            v["overwritten"].as_u64(),
            v["skipped"].as_u64()
        ),
        (Some(0), Some(5), Some(0)),
        "{v}"
    );
    let mut names: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(
                (&r["action"], &r["id"]),
                (&"OVERWRITTEN".into(), &r["resourceName"])
            );
            r["resourceName"].as_str().unwrap()
        })
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "billing-worker",
            "legacy-portal",
            "spa",
            "tv-app",
            "webshop"
        ]
    );
    // Each is an admin event: the operator's update of that client.
    let audit: Vec<Value> = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l["event"] == "admin.call" && l["detail"] == "clients.update")
        .collect();
    let mut objects: Vec<&str> = audit
        .iter()
        .map(|l| {
            assert_eq!(l["source"], "operator");
            l["object"].as_str().unwrap()
        })
        .collect();
    objects.sort_unstable();
    assert_eq!(objects, names);
    // The export's settings again: tv-app enabled, billing-worker's export secret works.
    assert_eq!(scanid_json(&with(&show, &flags))["enabled"], true);
    let s = serve(dir.path(), &flags, dynamo);
    assert_eq!(worker_token_status(&s), 200);
}

#[test]
fn the_cli_overwrites_an_imported_realm() {
    cli_overwrites(false);
}

#[test]
fn the_cli_overwrites_an_imported_realm_on_dynamodb() {
    cli_overwrites(true);
}

/// An OVERWRITE that would reach a client stronger than the caller is refused whole: the
/// clients before it in the export are not overwritten either.
#[test]
fn an_overwrite_that_reaches_a_stronger_client_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().display().to_string();
    let export_path = export();
    let v = scanid_json(&["client", "import", &export_path, "--data-dir", &data]);
    assert_eq!(v["added"], 5, "{v}");
    let create = [
        "client",
        "create",
        "--name",
        "importer",
        "--client-id",
        "importer",
        "--client-credentials",
        "--admin-role",
        "manage-clients",
        "--data-dir",
        &data,
    ];
    let secret = scanid_json(&create)["client_secret"]
        .as_str()
        .unwrap()
        .to_owned();
    // billing-worker (third in the export) becomes a realm admin: out of the importer's reach.
    scanid_json(&[
        "client",
        "add-role",
        "--client-id",
        "billing-worker",
        "--role",
        "realm-admin",
        "--data-dir",
        &data,
    ]);
    scanid_json(&[
        "client",
        "disable",
        "--client-id",
        "webshop",
        "--data-dir",
        &data,
    ]);
    let s = TestServer::start(dir.path(), &[]);
    let token = post_form(
        &s.oidc("token"),
        Some(("importer", &secret)),
        &[("grant_type", "client_credentials")],
    )
    .json()["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut body: Value =
        serde_json::from_str(&std::fs::read_to_string(&export_path).unwrap()).unwrap();
    body["ifResourceExists"] = "OVERWRITE".into();
    let auth = format!("Bearer {token}");
    let r = scanid_tests::request(
        "POST",
        &s.url("/admin/realms/scanid/partialImport"),
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/json"),
        ],
        body.to_string().as_bytes(),
    );
    assert_eq!(r.status, 403, "{}", r.text());
    // webshop, first in the export, was not overwritten (still disabled).
    let show = [
        "client",
        "show",
        "--client-id",
        "webshop",
        "--data-dir",
        &data,
    ];
    assert_eq!(scanid_json(&show)["enabled"], false);
}
