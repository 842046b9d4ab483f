//! `events/*.json` and `template.yaml` are held to the route table: every function has a sample
//! event its handler answers (fed through `lambda_http::request::from_str`, as Lambda would),
//! and the template declares exactly the table's routes. The functions a queue triggers
//! (`scanid_lambda::QUEUE_FUNCTIONS`, not routes) are held to their own rules.

use std::collections::BTreeSet;
use std::sync::Arc;

use scanid_core::clock::{Clock, SystemClock};
use scanid_core::config::{RawSettings, Settings};
use scanid_core::keys::local::KeySet;
use scanid_core::random::SystemRandom;
use scanid_core::store::read_only::ReadOnly;
use scanid_core::Context;
use scanid_http::functions;
use scanid_http::routes::{self, Access, ROUTES};
use scanid_lambda::QUEUE_FUNCTIONS;
use scanid_sqlite::EmbeddedStore;
use scanid_tests::repo_root;

fn app(dir: &std::path::Path) -> Context {
    let settings = Settings::from_raw(&RawSettings {
        public_url: Some("https://id.example.com".into()),
        data_dir: Some(dir.to_str().unwrap().into()),
        ..Default::default()
    })
    .unwrap();
    let keys = KeySet::load_or_create(dir, SystemClock.now())
        .unwrap()
        .keyring()
        .unwrap();
    Context::new(
        settings,
        Arc::new(EmbeddedStore::open(dir).unwrap()),
        Arc::new(keys),
        Arc::new(SystemClock),
        Arc::new(SystemRandom::new()),
    )
    .unwrap()
}

fn event_files() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = std::fs::read_dir(repo_root().join("events"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            (
                p.file_stem().unwrap().to_str().unwrap().to_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[tokio::test]
async fn every_function_has_an_event_its_handler_answers() {
    let dir = tempfile::tempdir().unwrap();
    let files = event_files();
    let names: BTreeSet<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    let mut functions: BTreeSet<&str> = routes::functions().into_iter().collect();
    assert!(QUEUE_FUNCTIONS.iter().all(|q| !functions.contains(q)));
    functions.extend(QUEUE_FUNCTIONS);
    assert_eq!(
        names, functions,
        "events/ names the route table's functions and the queue functions"
    );
    for (name, text) in files
        .iter()
        .filter(|(n, _)| !QUEUE_FUNCTIONS.contains(&n.as_str()))
    {
        let raw: serde_json::Value = serde_json::from_str(text).unwrap();
        let route_key = raw["routeKey"].as_str().unwrap();
        assert!(
            ROUTES
                .iter()
                .any(|r| r.function == name && format!("{} {}", r.method, r.path) == route_key),
            "{name}: routeKey {route_key} is not a route of the function"
        );
        let req = lambda_http::request::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let handler = routes::function_handler(name).unwrap();
        // As in Lambda: a read-only function runs on a store that refuses writes.
        let mut app = app(dir.path());
        if handler.access() == Access::Read {
            app.store = Arc::new(ReadOnly(app.store.clone()));
        }
        let resp = routes::dispatch(handler, &app, req).await;
        // What the sample gets from a fresh service (the events name no real client or
        // session): its row in `scanid_http::functions`.
        let expected = functions::of(name).sample.status;
        assert_eq!(resp.status().as_u16(), expected, "{name}");
    }
}

#[tokio::test]
async fn discovery_event_answers_with_the_configured_issuer() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(dir.path());
    let text = std::fs::read_to_string(repo_root().join("events/discovery.json")).unwrap();
    let resp = routes::dispatch(
        routes::Handler::Discovery,
        &app,
        lambda_http::request::from_str(&text).unwrap(),
    )
    .await;
    let body: serde_json::Value = serde_json::from_slice(resp.body().as_ref()).unwrap();
    assert_eq!(body["issuer"], "https://id.example.com/realms/scanid");
    // The same event for another realm is a 404.
    let other = text.replace("\"realm\": \"scanid\"", "\"realm\": \"other\"");
    let resp = routes::dispatch(
        routes::Handler::Discovery,
        &app,
        lambda_http::request::from_str(&other).unwrap(),
    )
    .await;
    assert_eq!(resp.status(), 404);
}

/// `(function, METHOD path)` pairs declared in template.yaml: each function's
/// `BuildProperties: Binary:` and the `Method:`/`Path:` of its HttpApi events.
fn template_routes() -> BTreeSet<(String, String)> {
    let text = std::fs::read_to_string(repo_root().join("template.yaml")).unwrap();
    let mut out = BTreeSet::new();
    let mut function = None;
    let mut method = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(b) = t.strip_prefix("Binary:") {
            function = Some(b.trim().to_owned());
        } else if let Some(m) = t.strip_prefix("Method:") {
            method = Some(m.trim().to_owned());
        } else if let Some(p) = t.strip_prefix("Path:") {
            let f = function.clone().expect("Path before Binary");
            let m = method.take().expect("Path without Method");
            out.insert((f, format!("{m} {}", p.trim())));
        }
    }
    out
}

#[test]
fn template_declares_exactly_the_route_table() {
    let table: BTreeSet<(String, String)> = ROUTES
        .iter()
        .map(|r| (r.function.to_owned(), format!("{} {}", r.method, r.path)))
        .collect();
    assert_eq!(template_routes(), table);
}

#[test]
fn every_function_has_a_binary_crate() {
    for f in routes::functions() {
        let main = repo_root().join("functions").join(f).join("src/main.rs");
        let text = std::fs::read_to_string(&main)
            .unwrap_or_else(|_| panic!("{} is missing", main.display()));
        let handler = routes::function_handler(f).unwrap();
        // Only functions that sign link the KMS signer; each names its own endpoint, so its
        // binary links no other handler.
        // Only functions that handle photos link the S3 client, only those that authenticate
        // clients the fetcher of their jwks_uri, only those that queue deliveries (and sign
        // nothing) the SQS client as well.
        let runner = match (handler.access(), handler.photos()) {
            (Access::Sign, false) => "run_signing",
            (Access::Sign, true) => "run_signing_photos",
            (_, false) if handler.authenticates_clients() && handler.queues_deliveries() => {
                "run_clients_queueing"
            }
            // (also the ones that seal client_secret_jwt secrets: the sealing key's KMS client)
            (_, false) if handler.authenticates_clients() || handler.seals_client_secrets() => {
                "run_clients"
            }
            (_, false) if handler.queues_deliveries() => "run_queueing",
            (_, false) => "run",
            (_, true) => "run_photos",
        };
        let endpoint = screaming_snake(&format!("{handler:?}"));
        assert_eq!(routes::endpoint(handler).handler, handler);
        let wiring = format!("scanid_lambda::{runner}(scanid_lambda::endpoints::{endpoint})");
        assert!(text.contains(&wiring), "{f}: main.rs must call {wiring}");
        let manifest =
            std::fs::read_to_string(repo_root().join("functions").join(f).join("Cargo.toml"))
                .unwrap();
        for linked in ["scanid-server", "scanid-sqlite", "test-support"] {
            assert!(!manifest.contains(linked), "{f} must not link {linked}");
        }
        assert!(text.lines().count() <= 20, "{f}: main.rs is wiring only");
    }
    let main =
        std::fs::read_to_string(repo_root().join("functions/backchannel-sender/src/main.rs"))
            .unwrap();
    assert!(main.contains("scanid_lambda::sender::run()"));
    let writer =
        std::fs::read_to_string(repo_root().join("functions/events-writer/src/main.rs")).unwrap();
    assert!(writer.contains("scanid_lambda::events_writer::run()"));
    assert!(writer.lines().count() <= 20, "events-writer: wiring only");
    // The cold-start and invoke-all harnesses send API events: they skip the same functions.
    let coldstart = std::fs::read_to_string(repo_root().join("infra/coldstart.py")).unwrap();
    let listed = QUEUE_FUNCTIONS
        .iter()
        .map(|f| format!("\"{f}\""))
        .collect::<Vec<_>>()
        .join(", ");
    assert!(
        coldstart.contains(&format!("QUEUE_FUNCTIONS = ({listed},)")),
        "infra/coldstart.py lists the queue functions"
    );
    assert!(
        main.lines().count() <= 20,
        "backchannel-sender: wiring only"
    );
}

/// The sender's sample event is an SQS event it reads: its delivery is long expired, so it
/// is given up (no POST, no queue call) and not handed back.
#[tokio::test]
async fn the_senders_sample_event_is_read_and_its_old_delivery_given_up() {
    use scanid_lambda::sender::{Handled, Sender, SqsEvent};
    let text = std::fs::read_to_string(repo_root().join("events/backchannel-sender.json")).unwrap();
    let event: SqsEvent = serde_json::from_str(&text).unwrap();
    // Nothing listens there: a queue call would fail, and none is made.
    let config = scanid_aws::emulator("http://127.0.0.1:9").await;
    let queue = scanid_aws::queue::Queue::from_config(&config, "http://127.0.0.1:9/q");
    let sender = Sender::new(
        queue,
        Arc::new(SystemClock),
        scanid_core::backchannel::RetryPolicy::DEFAULT,
    )
    .unwrap();
    let (response, handled) = sender.handle(event).await;
    assert!(response.batch_item_failures.is_empty(), "{response:?}");
    assert_eq!(
        handled,
        vec![(
            "059f36b4-87a3-44ab-83d2-661975830a7d".to_owned(),
            Handled::GaveUp(scanid_core::backchannel::GiveUp::Expired, false)
        )]
    );
    assert_eq!(
        serde_json::to_value(&response).unwrap(),
        serde_json::json!({ "batchItemFailures": [] })
    );
}

/// `DirectoryByServiceId` -> `DIRECTORY_BY_SERVICE_ID`.
fn screaming_snake(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// The crates a Lambda function links never reach SQLite, the local server, the demo or a test
/// double (the crate split of docs/architecture.md).
#[test]
fn lambda_crates_link_no_local_only_code() {
    for krate in ["core", "http", "aws", "lambda", "backchannel"] {
        let manifest =
            std::fs::read_to_string(repo_root().join("shared").join(krate).join("Cargo.toml"))
                .unwrap();
        let deps = manifest
            .split("[dependencies]")
            .nth(1)
            .and_then(|d| d.split("\n[").next())
            .unwrap();
        for local_only in ["rusqlite", "scanid-sqlite", "scanid-server", "clap"] {
            assert!(
                !deps.lines().any(|l| l.starts_with(local_only)),
                "shared/{krate} must not depend on {local_only}"
            );
        }
    }
}

/// Each function's block of template.yaml, by its binary name.
fn template_functions() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(repo_root().join("template.yaml")).unwrap();
    // A resource starts at a line indented by exactly two spaces.
    let mut blocks: Vec<String> = Vec::new();
    for line in text.lines() {
        let top = line.starts_with("  ") && !line.starts_with("   ");
        match blocks.last_mut() {
            Some(b) if !top => {
                b.push_str(line);
                b.push('\n');
            }
            _ => blocks.push(format!("{line}\n")),
        }
    }
    let mut out = Vec::new();
    for block in blocks
        .iter()
        .filter(|b| b.contains("Type: AWS::Serverless::Function"))
    {
        let binary = block
            .lines()
            .find_map(|l| l.trim().strip_prefix("Binary:"))
            .expect("every function names its binary")
            .trim()
            .to_owned();
        out.push((binary, block.to_owned()));
    }
    out
}

#[test]
fn template_iam_is_least_privilege_per_the_route_table() {
    let functions = template_functions();
    assert_eq!(
        functions.len(),
        routes::functions().len() + QUEUE_FUNCTIONS.len()
    );
    for (name, block) in &functions {
        if QUEUE_FUNCTIONS.contains(&name.as_str()) {
            match name.as_str() {
                "backchannel-sender" => sender_is_least_privilege(block),
                "events-writer" => writer_is_least_privilege(block),
                other => panic!("{other}: a queue function without its rules"),
            }
            continue;
        }
        let handler = routes::function_handler(name).unwrap();
        // Only the functions that may end sessions (logout tokens), start a CIBA request (a
        // push) or decide one (a ping) queue deliveries, on that queue alone, and are told
        // where it is.
        assert_eq!(
            block.contains("sqs:"),
            handler.queues_deliveries(),
            "{name}: SQS only where deliveries are queued"
        );
        assert_eq!(
            block.contains("SCANID_BACKCHANNEL_QUEUE_URL: !Ref BackchannelQueue"),
            handler.queues_deliveries(),
            "{name}: the queue's URL where deliveries are queued"
        );
        if handler.queues_deliveries() {
            let sqs: Vec<&str> = block.lines().filter(|l| l.contains("sqs:")).collect();
            assert_eq!(sqs, ["              Action: sqs:SendMessage"], "{name}");
            assert!(
                block.contains("Resource: !GetAtt BackchannelQueue.Arn"),
                "{name}"
            );
        }
        let writes = [
            "dynamodb:PutItem",
            "dynamodb:UpdateItem",
            "dynamodb:DeleteItem",
        ]
        .iter()
        .any(|a| block.contains(a));
        let kms = block.contains("kms:");
        assert!(block.contains("dynamodb:GetItem"), "{name} reads the table");
        assert!(
            !block.contains("dynamodb:*") && !block.contains("kms:*"),
            "{name}: no wildcards"
        );
        // Only the functions that list clients (the CORS functions: their web origins;
        // identity deletion: its consents) query, on the index alone.
        assert_eq!(
            block.contains("dynamodb:Query"),
            handler.lists_clients(),
            "{name}: Query only where the clients are listed"
        );
        if block.contains("dynamodb:Query") {
            assert!(
                block.contains("/index/kind-index"),
                "{name}: the index only"
            );
        }
        // Only the functions that handle photos reach the photo bucket, its objects alone.
        // (In an action, not in an event's name: `GetGroups3:` is none.)
        let s3 = block
            .lines()
            .map(str::trim_start)
            .any(|l| l.starts_with("Action: s3:") || l.starts_with("- s3:"));
        assert_eq!(
            s3,
            handler.photos(),
            "{name}: S3 only where photos are handled"
        );
        if handler.photos() {
            assert!(
                block.contains("${PhotoBucket.Arn}/*"),
                "{name}: the bucket's objects"
            );
            assert!(!block.contains("s3:*"), "{name}: no wildcards");
            let s3_writes = block.contains("s3:PutObject") || block.contains("s3:DeleteObject");
            assert_eq!(
                s3_writes,
                handler.access() != Access::Read,
                "{name}: S3 writes only where the table is written"
            );
        }
        // The sealing key of client_secret_jwt clients' secrets (kms-envelope): decrypted only
        // where clients are authenticated or secrets sealed, made only where sealed, and only
        // with its purpose as the encryption context.
        assert_eq!(
            block.contains("Sid: OpenTheSealingKey"),
            handler.holds_sealing_key(),
            "{name}: the sealing key only where clients are authenticated or secrets sealed"
        );
        assert_eq!(
            block.contains("Sid: MakeTheSealingKey"),
            handler.seals_client_secrets(),
            "{name}: the sealing key made only where secrets are sealed"
        );
        for sid in ["Sid: OpenTheSealingKey", "Sid: MakeTheSealingKey"] {
            if let Some(at) = block.find(sid) {
                let rest = &block[at..];
                let end = rest[4..].find("- Sid:").map_or(rest.len(), |e| e + 4);
                let statement = &rest[..end];
                assert!(
                    statement
                        .contains("kms:EncryptionContext:scanid-purpose: client-secret-sealing")
                        && statement.contains("aws:ResourceTag/scanid-table: !Ref Table"),
                    "{name}: {sid} with the purpose and the table's keys"
                );
            }
        }
        let kms_beyond_sealing = block
            .lines()
            .map(str::trim_start)
            .filter(|l| l.starts_with("Action: kms:") || l.starts_with("- kms:"))
            .count()
            > usize::from(handler.holds_sealing_key())
                + usize::from(handler.seals_client_secrets());
        match handler.access() {
            Access::Read => assert!(!writes && !kms, "{name} is read-only"),
            Access::Write => assert!(
                writes && !kms_beyond_sealing,
                "{name} writes but never signs"
            ),
            Access::Sign => {
                assert!(writes && kms, "{name} writes and signs");
                assert!(
                    block.contains("aws:ResourceTag/scanid-table"),
                    "{name}: only the table's own keys"
                );
            }
        }
    }
    let text = std::fs::read_to_string(repo_root().join("template.yaml")).unwrap();
    for needed in [
        "TimeToLiveSpecification",
        "AttributeName: expires_at",
        "PointInTimeRecoveryEnabled: true",
        "DeletionProtectionEnabled: !Ref TableDeletionProtection",
        "BillingMode: PAY_PER_REQUEST",
        "ThrottlingRateLimit",
        "LogFormat: JSON",
        "RetentionInDays",
        "Runtime: provided.al2023",
        "Architectures: [arm64]",
        "SCANID_TABLE: !Ref Table",
    ] {
        assert!(text.contains(needed), "template.yaml lacks {needed}");
    }
}

/// The events writer writes the events table only (`BatchWriteItem`, nothing else: no read,
/// no record table, no key, no queue), and every other function's log group hands it its
/// audit lines through a subscription filter (its own does not: it would feed itself).
fn writer_is_least_privilege(block: &str) {
    let actions: Vec<&str> = block
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("Action:") || l.starts_with("- dynamodb:"))
        .collect();
    assert_eq!(
        actions,
        ["Action: dynamodb:BatchWriteItem"],
        "events-writer"
    );
    for other in [
        "kms:",
        "s3:",
        "sqs:",
        "HttpApi",
        "!GetAtt Table.Arn",
        "${Table.Arn}",
    ] {
        assert!(!block.contains(other), "events-writer: no {other}");
    }
    assert!(block.contains("Resource: !GetAtt EventsTable.Arn"));
    assert!(block.contains("SCANID_EVENTS_TABLE: !Ref EventsTable"));
    assert!(block.contains("SCANID_EVENT_RETENTION_DAYS: !Ref EventRetentionDays"));
    let text = std::fs::read_to_string(repo_root().join("template.yaml")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let groups: Vec<&str> = lines
        .windows(2)
        .filter(|w| w[1] == "    Type: AWS::Logs::LogGroup")
        .filter_map(|w| w[0].strip_prefix("  ")?.strip_suffix("Logs:"))
        .collect();
    assert_eq!(
        groups.len(),
        routes::functions().len() + QUEUE_FUNCTIONS.len(),
        "{groups:?}"
    );
    let pattern = format!(
        "FilterPattern: '{}'",
        scanid_http::generate::AUDIT_FILTER_PATTERN
    );
    for g in groups {
        let filter = format!(
            "  {g}AuditEvents:\n    Type: AWS::Logs::SubscriptionFilter\n    DependsOn: EventsWriterInvokedByLogs\n    \
             Properties:\n      LogGroupName: !Ref {g}Logs\n      {pattern}\n      \
             DestinationArn: !GetAtt EventsWriterFunction.Arn\n"
        );
        assert_eq!(
            text.contains(&filter),
            g != "EventsWriter",
            "{g}: its audit lines"
        );
    }
    for needed in [
        "Type: AWS::Lambda::Permission",
        "Principal: logs.amazonaws.com",
        "SourceAccount: !Ref AWS::AccountId",
        "FunctionName: !GetAtt EventsWriterFunction.Arn",
    ] {
        assert!(text.contains(needed), "template.yaml lacks {needed}");
    }
}

/// The sender reads, deletes and delays messages of the back-channel queue only: no key, no
/// other queue, and of the table only the push subscriptions (to drop a gone one: a read and a
/// write of `identity_push#` items); its trigger reports partial batch failures.
fn sender_is_least_privilege(block: &str) {
    let table: Vec<&str> = block
        .lines()
        .filter(|l| l.contains("dynamodb:"))
        .map(str::trim)
        .collect();
    assert_eq!(
        table,
        [
            "- dynamodb:GetItem",
            "- dynamodb:PutItem",
            "dynamodb:LeadingKeys: [\"identity_push#*\"]"
        ],
        "backchannel-sender: the table's push subscriptions only"
    );
    for other in [
        "dynamodb:*",
        "dynamodb:DeleteItem",
        "dynamodb:Query",
        "dynamodb:Scan",
        "kms:",
        "s3:",
        "sqs:*",
        "sqs:SendMessage",
        "HttpApi",
    ] {
        assert!(!block.contains(other), "backchannel-sender: no {other}");
    }
    for needed in [
        "sqs:ReceiveMessage",
        "sqs:DeleteMessage",
        "sqs:ChangeMessageVisibility",
        "Resource: !GetAtt BackchannelQueue.Arn",
        "SCANID_BACKCHANNEL_QUEUE_URL: !Ref BackchannelQueue",
    ] {
        assert!(block.contains(needed), "backchannel-sender lacks {needed}");
    }
    let text = std::fs::read_to_string(repo_root().join("template.yaml")).unwrap();
    let max_receives = format!(
        "maxReceiveCount: {}",
        scanid_core::backchannel::RetryPolicy::DEFAULT.max_attempts
    );
    for needed in [
        "Type: AWS::Lambda::EventSourceMapping",
        "FunctionResponseTypes: [ReportBatchItemFailures]",
        "EventSourceArn: !GetAtt BackchannelQueue.Arn",
        "deadLetterTargetArn: !GetAtt BackchannelDeadLetterQueue.Arn",
        // The queue hands a message over as often as the policy attempts it.
        max_receives.as_str(),
        "Value: !GetAtt BackchannelDeadLetterQueue.QueueName",
    ] {
        assert!(text.contains(needed), "template.yaml lacks {needed}");
    }
}
