//! The Lambda `events-writer` (issue 37) from outside: audit lines as the functions write them
//! (scanid-lambda's real JSON formatter, `scanid_lambda::telemetry::log_format`), wrapped in a
//! CloudWatch Logs subscription payload (gzip, base64), written by the writer's handler to the
//! events table on DynamoDB (moto), then read through the admin API as an operator reads them:
//! python-keycloak's `get_events` and `GET .../events`. The same payload handed over again (a
//! Lambda retry) writes no twins; control messages and unreadable payloads write nothing and
//! fail nothing. The sample event (`events/events-writer.json`) is built here.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use scanid_core::audit::{Audit, Event};
use scanid_lambda::events_writer::{self, AwsLogs, LogEvent, LogsData, LogsEvent, Writer};
use scanid_tests::{request, scanid_json, TestServer};
use serde_json::Value;
use tracing_subscriber::layer::SubscriberExt;

/// A writer the formatter writes into.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The log lines `emit` writes, as a Lambda function writes them to CloudWatch Logs.
pub(crate) fn function_log_lines(emit: impl FnOnce()) -> Vec<String> {
    let out = Captured::default();
    let writer = out.clone();
    let subscriber = tracing_subscriber::registry()
        .with(scanid_lambda::telemetry::log_format(move || writer.clone()));
    tracing::subscriber::with_default(subscriber, emit);
    let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
    text.lines().map(str::to_owned).collect()
}

/// A subscription payload of `lines` from the token function's log group, logged at `time`.
fn payload(lines: &[String], time: i64) -> LogsData {
    LogsData {
        message_type: "DATA_MESSAGE".into(),
        owner: "123456789012".into(),
        log_group: "/aws/lambda/scanid-TokenFunction-AbC123dEf456".into(),
        log_stream: "2026/11/28/[$LATEST]0c7a2f4b1e9d4b8a9f3e6d5c4b3a2910".into(),
        subscription_filters: vec!["scanid-TokenAuditEvents-1A2B3C4D5E6F".into()],
        log_events: lines
            .iter()
            .enumerate()
            .map(|(i, m)| LogEvent {
                // CloudWatch's ids: 56 digits.
                id: format!("3795342530123{i:043}"),
                timestamp: time + i as i64,
                message: m.clone(),
            })
            .collect(),
    }
}

fn wrap(data: &LogsData) -> LogsEvent {
    LogsEvent {
        awslogs: AwsLogs {
            data: events_writer::encode(data).unwrap(),
        },
    }
}

const SAMPLE_SUB: &str = "b6f1c9e2-4a7d-4e0b-9c3a-2f8d1e5a7b40";

/// The sample's lines: what the token function logs for a code exchange, through the real
/// formatter (the subscription filter passes only the audit lines).
fn sample_lines() -> Vec<String> {
    function_log_lines(|| {
        Audit::new(Event::CodeRedeemed)
            .client("shop")
            .subject(SAMPLE_SUB)
            .emit();
        Audit::new(Event::TokenIssued)
            .client("shop")
            .subject(SAMPLE_SUB)
            .detail("authorization_code")
            .emit();
    })
}

/// `events/events-writer.json` is a real-shaped subscription event built from the formatter's
/// lines (`SCANID_BLESS=1` writes it anew); the writer reads it into two events.
#[tokio::test]
async fn the_events_writers_sample_event_holds_real_audit_lines() {
    let path = scanid_tests::repo_root().join("events/events-writer.json");
    let expected = payload(&sample_lines(), 1_795_342_530_123);
    assert!(expected.log_events[0]
        .message
        .contains(r#""message":"audit""#));
    if std::env::var_os("SCANID_BLESS").is_some() {
        let mut text = serde_json::to_string_pretty(&wrap(&expected)).unwrap();
        text.push('\n');
        std::fs::write(&path, text).unwrap();
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let event: LogsEvent = serde_json::from_str(&text).unwrap();
    // Compared inflated: the gzip bytes may differ with the compressor's version.
    assert_eq!(
        events_writer::decode(&event.awslogs.data).unwrap(),
        expected,
        "events/events-writer.json: run this test with SCANID_BLESS=1 to write it anew"
    );
    let store = Arc::new(scanid_core::store::events::MemoryEvents::default());
    let written = Writer::new(store, 86_400).handle(&event).await.unwrap();
    assert_eq!((written.stored, written.skipped), (2, 0));
}

fn get(s: &TestServer, path: &str, token: &str) -> scanid_tests::Resp {
    let auth = format!("Bearer {token}");
    request("GET", &s.url(path), &[("Authorization", &auth)], b"")
}

#[test]
fn logged_audit_lines_reach_the_events_table_and_python_keycloak_reads_them() {
    let op = scanid_tests::Operator::on_emulator("kms-envelope");
    let table = op.table().unwrap().to_owned();
    let events_table = format!("{table}-events");
    let flags = op.flag_strs();
    let mut create = vec!["client", "create", "--name", "auditor"];
    create.extend(["--client-id", "auditor", "--client-credentials"]);
    create.extend(["--admin-role", "view-events"]);
    create.extend(&flags);
    let secret = scanid_json(&create)["client_secret"]
        .as_str()
        .unwrap()
        .to_owned();

    // What the functions logged: a QR login approved (app-decide), its code exchanged and
    // tokens issued (token), and lines that are no audit event (the init line, a warning).
    let sub = uuid::Uuid::new_v4().to_string();
    let lines = function_log_lines(|| {
        tracing::info!(handler = "Token", init_ms = 41.2, "init");
        Audit::new(Event::LoginApproved)
            .client("shop")
            .subject(&sub)
            .emit();
        Audit::new(Event::CodeRedeemed)
            .client("shop")
            .subject(&sub)
            .emit();
        tracing::warn!(error = "x", "signing keys not ready yet");
        Audit::new(Event::TokenIssued)
            .client("shop")
            .subject(&sub)
            .detail("authorization_code")
            .emit();
    });
    assert_eq!(lines.len(), 5, "{lines:?}");
    let now = scanid_core::clock::Clock::now(&scanid_core::clock::SystemClock).millis();
    let event = wrap(&payload(&lines, now - 5_000));
    let control = wrap(&LogsData {
        message_type: "CONTROL_MESSAGE".into(),
        log_events: vec![LogEvent {
            id: "0".into(),
            timestamp: now,
            message: "CWL CONTROL MESSAGE: Checking health of destination Lambda.".into(),
        }],
        ..LogsData::default()
    });
    let rt = tokio::runtime::Runtime::new().unwrap();
    let written = rt.block_on(async {
        let endpoint = std::env::var("SCANID_TEST_AWS_ENDPOINT").unwrap();
        let config = scanid_aws::emulator(&endpoint).await;
        let dynamo = scanid_aws::events::DynamoEvents::new(&config, &events_table);
        dynamo.create_table().await.unwrap();
        let writer = Writer::new(Arc::new(dynamo), 30 * 86_400);
        let first = writer.handle(&event).await.unwrap();
        // Lambda hands the same payload over again (a retry): the same items are written.
        let again = writer.handle(&event).await.unwrap();
        assert_eq!(first, again);
        for bad in ["not base64 at all!", "bm90IGd6aXA="] {
            let bad = LogsEvent {
                awslogs: AwsLogs { data: bad.into() },
            };
            let w = writer.handle(&bad).await.unwrap();
            assert!(w.unreadable && w.stored == 0, "{w:?}");
        }
        let w = writer.handle(&control).await.unwrap();
        assert!(w.control && w.stored == 0, "{w:?}");
        // A table that is not there (DynamoDB refusing the write) fails the batch: Lambda
        // retries it.
        let missing = Writer::new(
            Arc::new(scanid_aws::events::DynamoEvents::new(
                &config,
                format!("{table}-no-such-table"),
            )),
            86_400,
        );
        assert!(missing.handle(&event).await.is_err());
        first
    });
    assert_eq!((written.stored, written.skipped), (3, 2), "{written:?}");

    let dir = tempfile::tempdir().unwrap();
    let mut serve = flags.to_vec();
    serve.extend(["--events-table", &events_table]);
    let s = TestServer::start(dir.path(), &serve);
    // python-keycloak, unchanged: get_events finds the one login (not two after the retry).
    let out = std::process::Command::new(scanid_tests::python())
        .arg(scanid_tests::repo_root().join("tests/py/keycloak_events.py"))
        .args([s.base.as_str(), "scanid", "auditor", &secret, "shop", &sub])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "keycloak_events.py (pip install -r tests/py/requirements.txt): {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // The admin API: the three events, once each, newest first, with their Keycloak types.
    let token = scanid_tests::post_form(
        &s.oidc("token"),
        Some(("auditor", &secret)),
        &[("grant_type", "client_credentials")],
    )
    .json()["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let start = Instant::now();
    let mine = loop {
        let r = get(
            &s,
            &format!("/admin/realms/scanid/events?user={sub}"),
            &token,
        );
        assert_eq!(r.status, 200, "{}", r.text());
        let v = r.json().as_array().unwrap().clone();
        if v.len() >= 3 || start.elapsed() > Duration::from_secs(5) {
            break v;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let kinds: Vec<&str> = mine.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["TOKEN_ISSUED", "CODE_TO_TOKEN", "LOGIN"],
        "{mine:?}"
    );
    let issued: &Value = &mine[0];
    assert_eq!(issued["clientId"], "shop");
    assert_eq!(issued["details"]["detail"], "authorization_code");
    assert_eq!(issued["time"].as_i64(), Some(now - 5_000 + 4));
}
