//! The whole service on AWS, emulated: `scanid aws init` creates the table and KMS keys in
//! moto, the operator commands register a client in the table, and `scanid serve --table ...
//! --signing kms|kms-envelope` runs the QR login and the token flows on DynamoDB with KMS
//! signatures, which an independent JWT library (PyJWT) verifies from the JWKS alone.

use scanid_tests::{
    auth_url, exchange_code, get, introspect, location, login, one_redemption_wins, open,
    params_of, post_form, pyjwt_verify, race, redeem, request, require_emulator, scanid,
    scanid_json, userinfo, Browser, TestApp, TestServer, CB,
};
use serde_json::Value;

pub(crate) struct Aws {
    table: String,
    key_id: String,
    signing: &'static str,
    photo_bucket: String,
}

impl Aws {
    /// A fresh table (and KMS keys for `signing`) in the emulator.
    pub(crate) fn init(signing: &'static str) -> Self {
        require_emulator();
        let table = format!("scanid-it-{}", uuid::Uuid::new_v4().simple());
        let photo_bucket = format!("scanid-it-photos-{}", uuid::Uuid::new_v4().simple());
        let out = scanid_json(&[
            "aws",
            "init",
            "--table",
            &table,
            "--signing",
            signing,
            "--create-kms-key",
            "--photo-bucket",
            &photo_bucket,
        ]);
        assert_eq!(out["table"], table.as_str());
        assert_eq!(out["photo_bucket"], photo_bucket.as_str());
        assert_eq!(out["created"], true);
        assert_eq!(out["signing"], signing);
        assert_eq!(
            out["kids"].as_array().map(Vec::len),
            Some(2),
            "the key set (RS256 and ES256) is created: {out}"
        );
        Self {
            key_id: out["kms_key_id"].as_str().unwrap().to_owned(),
            table,
            signing,
            photo_bucket,
        }
    }

    /// The flags that select this table and these keys.
    pub(crate) fn flags(&self) -> Vec<&str> {
        vec![
            "--table",
            &self.table,
            "--signing",
            self.signing,
            "--kms-key-id",
            &self.key_id,
            "--photo-bucket",
            &self.photo_bucket,
        ]
    }

    pub(crate) fn cli(&self, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.extend(self.flags());
        scanid_json(&all)
    }
}

fn serve(aws: &Aws, dir: &tempfile::TempDir) -> TestServer {
    let s = TestServer::start(dir.path(), &aws.flags());
    assert!(
        !dir.path().join("signing-keys.json").exists(),
        "no local key file in KMS modes"
    );
    s
}

fn code(s: &TestServer, app: &TestApp) -> String {
    let b = &mut Browser::new();
    let url = auth_url(
        s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("state", "st"),
            ("nonce", "n-1"),
            ("scope", "openid profile"),
        ],
    );
    let r = login(b, s, app, &url);
    let loc = location(&r);
    let p = params_of(&loc);
    assert_eq!(p.get("state").map(String::as_str), Some("st"), "{loc}");
    p.get("code").cloned().unwrap_or_else(|| panic!("{loc}"))
}

/// PyJWT verifies `token` with the JWKS only.
fn verify_independently(s: &TestServer, token: &str) -> Value {
    verify_from(s, &s.issuer, token)
}

/// PyJWT verifies `token`, issued by `issuer`, with the JWKS `s` serves now.
fn verify_from(s: &TestServer, issuer: &str, token: &str) -> Value {
    let out = pyjwt_verify(&s.oidc("certs"), issuer, token);
    assert!(
        out.status.success(),
        "PyJWT: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

pub(crate) fn register_shop(aws: &Aws) -> String {
    aws.cli(&[
        "client",
        "create",
        "--name",
        "Shop",
        "--client-id",
        "shop",
        "--redirect-uri",
        CB,
        "--client-credentials",
    ])["client_secret"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn login_and_tokens_on_dynamodb_with_kms_signing() {
    let aws = Aws::init("kms");
    let secret = register_shop(&aws);
    let dir = tempfile::tempdir().unwrap();
    let s = serve(&aws, &dir);
    // The operator sees the client the server will use, in the table.
    let listed = aws.cli(&["client", "list"]);
    assert!(listed["clients"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["client_id"] == "shop"));

    // Discovery advertises both algorithms: one KMS key each.
    let jwks = scanid_tests::get(&s.oidc("certs")).json();
    let algs: Vec<&str> = jwks["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["alg"].as_str().unwrap())
        .collect();
    assert_eq!(algs, ["RS256", "ES256"]);

    let app = TestApp::enroll(&s, "kms-user");
    let c = code(&s, &app);
    let t = redeem(&s, ("shop", &secret), &c);
    let at = t["access_token"].as_str().unwrap();
    let id = t["id_token"].as_str().unwrap();
    let claims = verify_independently(&s, id);
    assert_eq!(claims["sub"], app.sub.as_str());
    assert_eq!(claims["nonce"], "n-1");
    verify_independently(&s, at);
    let keys = aws.cli(&["keys", "list"]);
    let kms_kid = keys["keys"][0]["kid"].as_str().unwrap();
    assert!(
        keys["keys"][0]["held_by"]["kms"].is_string(),
        "signed by KMS: {keys}"
    );
    assert_eq!(jwt_header_kid(at), kms_kid);

    // The code is single use (a conditional delete in DynamoDB).
    let again = exchange_code(&s, ("shop", &secret), &c);
    assert_eq!(again.status, 400, "{}", again.text());
    assert_eq!(again.json()["error"], "invalid_grant");

    // Introspection, refresh rotation and userinfo, all on the table.
    // (the previous redemption replayed the code, which revokes its grant: F2/T4)
    assert_eq!(introspect(&s, ("shop", &secret), at)["active"], false);

    let c2 = code(&s, &app);
    let t2 = redeem(&s, ("shop", &secret), &c2);
    let at2 = t2["access_token"].as_str().unwrap();
    assert_eq!(introspect(&s, ("shop", &secret), at2)["active"], true);
    let refreshed = post_form(
        &s.oidc("token"),
        Some(("shop", &secret)),
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", t2["refresh_token"].as_str().unwrap()),
        ],
    );
    assert_eq!(refreshed.status, 200, "{}", refreshed.text());
    let info = userinfo(&s, refreshed.json()["access_token"].as_str().unwrap());
    assert_eq!(info.status, 200, "{}", info.text());
    assert_eq!(info.json()["sub"], app.sub.as_str());

    // The directory reads the profile from the table.
    let profile = scanid_tests::get(&format!("{}/v1/directory/{}", s.base, app.sub));
    assert_eq!(profile.status, 200, "{}", profile.text());
}

fn jwt_header_kid(token: &str) -> String {
    scanid_tests::jwt_header(token)["kid"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn twenty_concurrent_redemptions_on_dynamodb_one_wins() {
    let aws = Aws::init("kms");
    let secret = register_shop(&aws);
    let dir = tempfile::tempdir().unwrap();
    let s = serve(&aws, &dir);
    let app = TestApp::enroll(&s, "race-user");
    let c = code(&s, &app);
    // One wins; each other gets invalid_grant (the code is spent, and its grant revoked).
    let answers = race(20, |_| exchange_code(&s, ("shop", &secret), &c));
    one_redemption_wins(&answers);
}

#[test]
fn kms_envelope_mode_and_key_rotation_on_the_table() {
    let aws = Aws::init("kms-envelope");
    let secret = register_shop(&aws);
    let dir = tempfile::tempdir().unwrap();
    let s = serve(&aws, &dir);
    let cc = |s: &TestServer| {
        let r = post_form(
            &s.oidc("token"),
            Some(("shop", &secret)),
            &[("grant_type", "client_credentials")],
        );
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()["access_token"].as_str().unwrap().to_owned()
    };
    let old_token = cc(&s);
    let old_issuer = s.issuer.clone();
    verify_independently(&s, &old_token);
    let old_kid = jwt_header_kid(&old_token);
    let keys = aws.cli(&["keys", "list"]);
    assert!(
        keys["keys"][0]["held_by"]["kms_envelope"].is_string(),
        "{keys}"
    );
    let stored = keys.to_string();
    assert!(!stored.contains("pkcs8") && !stored.contains("ciphertext"));

    // Rotation: publish, (restart: the new key is in the JWKS but does not sign), activate.
    let published = aws.cli(&["keys", "rotate", "--alg", "RS256"]);
    assert_eq!(published["step"], "published");
    let next = published["kid"].as_str().unwrap().to_owned();
    drop(s);
    let s = serve(&aws, &dir);
    let jwks = scanid_tests::get(&s.oidc("certs")).json();
    assert!(jwks.to_string().contains(&next), "pre-published");
    assert_eq!(jwt_header_kid(&cc(&s)), old_kid, "next does not sign yet");
    let activated = aws.cli(&["keys", "rotate", "--alg", "RS256", "--force"]);
    assert_eq!(activated["step"], "activated");
    drop(s);
    let s = serve(&aws, &dir);
    let new_token = cc(&s);
    assert_eq!(jwt_header_kid(&new_token), next);
    verify_independently(&s, &new_token);
    // The retired key still verifies tokens it signed (the restarted server has a new port).
    verify_from(&s, &old_issuer, &old_token);
    // ...and cannot be removed while they may be live.
    let kid = format!("--kid={old_kid}");
    let out = scanid(&[&["keys", "remove", &kid][..], &aws.flags()[..]].concat());
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{msg}");
    assert!(
        msg.contains(&format!("{old_kid} was retired less than")),
        "{msg}"
    );
}

#[test]
fn misconfiguration_fails_fast_naming_the_setting() {
    require_emulator();
    let out = scanid(&["client", "list", "--table", "scanid-x", "--signing", "kms"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("SCANID_KMS_KEY_ID"));
    let out = scanid(&["aws", "init"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--table"));
    // A table that does not exist: the command fails with the store's error, not a panic.
    let out = scanid(&["client", "list", "--table", "scanid-no-such-table"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("store"));
}

/// A device-key rotation whose two JWS share one `jti` is a conflict (409), not a failed
/// DynamoDB transaction (two writes on one item: a 503 before), and changes nothing.
#[test]
fn key_rotation_sharing_one_jti_is_a_conflict_on_dynamodb() {
    let aws = Aws::init("kms");
    let dir = tempfile::tempdir().unwrap();
    let s = serve(&aws, &dir);
    let app = TestApp::enroll(&s, "rotator");
    let r = app.rotate_key_sharing_one_jti();
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(
        scanid_tests::get(&format!("{}/v1/directory/{}", s.base, app.sub)).json()["public_key"],
        app.public_key.as_str()
    );
}

/// `scanid keys rotate` reaches a running server (a warm Lambda function) within a minute,
/// with no restart: the held key set is checked again every 60 s (keys::fresh).
#[test]
fn a_rotation_reaches_a_running_server_within_a_minute() {
    let aws = Aws::init("kms-envelope");
    let secret = register_shop(&aws);
    let dir = tempfile::tempdir().unwrap();
    let s = serve(&aws, &dir);
    let kid_now = || {
        let r = post_form(
            &s.oidc("token"),
            Some(("shop", &secret)),
            &[("grant_type", "client_credentials")],
        );
        assert_eq!(r.status, 200, "{}", r.text());
        jwt_header_kid(r.json()["access_token"].as_str().unwrap())
    };
    let old_kid = kid_now();
    let next = aws.cli(&["keys", "rotate", "--alg", "RS256"])["kid"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        aws.cli(&["keys", "rotate", "--alg", "RS256", "--force"])["step"],
        "activated"
    );
    let started = std::time::Instant::now();
    while kid_now() == old_kid {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(70),
            "the running server still signs with {old_kid}"
        );
        std::thread::sleep(std::time::Duration::from_secs(2));
    }
    assert_eq!(kid_now(), next);
    let jwks = scanid_tests::get(&s.oidc("certs")).json();
    let text = jwks.to_string();
    assert!(text.contains(&next) && text.contains(&old_kid), "{text}");
}

#[test]
fn photos_live_in_the_s3_bucket_and_go_with_their_identity() {
    let aws = Aws::init("kms");
    let dir = tempfile::tempdir().unwrap();
    let s = serve(&aws, &dir);
    let app = TestApp::enroll(
        &s,
        &format!("s3-{}", &uuid::Uuid::new_v4().simple().to_string()[..8]),
    );
    let image = scanid_tests::png(64, 64);
    let r = app.upload_photo(&image, None);
    assert_eq!(r.status, 200, "{}", r.text());
    let url = r.json()["profile_photo"].as_str().unwrap().to_owned();
    let photo = get(&url);
    assert_eq!(photo.status, 200);
    assert_eq!(photo.header("content-type"), Some("image/png"));
    assert_eq!(photo.body, image);
    assert!(
        !dir.path().join("photos").exists(),
        "on a table, photos go to the bucket, not the data dir"
    );
    // Deleting the identity removes the object.
    let out = aws.cli(&["identity", "delete", &app.sub]);
    assert_eq!(out["deleted"], app.sub.as_str());
    assert_eq!(get(&url).status, 404);
}

// ---------------------------------------------------------------------------------------------
// Back-channel logout through the queue (issue 25 item 5)
// ---------------------------------------------------------------------------------------------

/// A back-channel receiver answering `status` to every POST; each request's body is handed
/// over.
fn status_receiver(status: u16) -> (String, std::sync::mpsc::Receiver<String>) {
    let (url, raw) = scanid_tests::post_receiver(status);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for request in raw {
            let body = request.split_once("\r\n\r\n").map_or("", |(_, b)| b);
            let _ = tx.send(body.to_owned());
        }
    });
    (url, rx)
}

/// The audit lines logged on this thread while `capture` is alive (JSON, one a line).
#[derive(Clone, Default)]
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn lines(&self) -> Vec<Value> {
        String::from_utf8_lossy(&self.0.lock().unwrap())
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// The audit events named `event`, as (client_id, detail).
    fn events(&self, event: &str) -> Vec<(String, String)> {
        self.lines()
            .iter()
            .map(|l| &l["fields"])
            .filter(|f| f["event"] == event)
            .map(|f| {
                (
                    f["client_id"].as_str().unwrap_or_default().to_owned(),
                    f["detail"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    }
}

/// What the event source mapping would hand the sender: up to 10 messages, with their
/// receive counts.
/// Waits up to `wait` seconds for the first; also returns (message id, receipt handle) pairs.
async fn receive(
    sqs: &aws_sdk_sqs::Client,
    url: &str,
    wait: i32,
) -> (scanid_lambda::sender::SqsEvent, Vec<(String, String)>) {
    use aws_sdk_sqs::types::MessageSystemAttributeName;
    let out = sqs
        .receive_message()
        .queue_url(url)
        .max_number_of_messages(10)
        .wait_time_seconds(wait)
        .message_system_attribute_names(MessageSystemAttributeName::All)
        .send()
        .await
        .unwrap();
    let mut handles = Vec::new();
    let records = out
        .messages
        .unwrap_or_default()
        .into_iter()
        .map(|m| {
            handles.push((
                m.message_id.clone().unwrap(),
                m.receipt_handle.clone().unwrap(),
            ));
            scanid_lambda::sender::SqsMessage {
                message_id: m.message_id.unwrap(),
                receipt_handle: m.receipt_handle.unwrap(),
                body: m.body.unwrap(),
                attributes: m
                    .attributes
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(k, v)| (k.as_str().to_owned(), v))
                    .collect(),
            }
        })
        .collect();
    (scanid_lambda::sender::SqsEvent { records }, handles)
}

/// A queue whose messages move to a fresh dead-letter queue after `max_receives`: (queue URL,
/// dead-letter queue URL).
async fn queue_with_dead_letters(sqs: &aws_sdk_sqs::Client, max_receives: u32) -> (String, String) {
    use aws_sdk_sqs::types::QueueAttributeName;
    let name = format!("scanid-it-bcl-{}", uuid::Uuid::new_v4().simple());
    let dlq = sqs
        .create_queue()
        .queue_name(format!("{name}-dlq"))
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let dlq_arn = sqs
        .get_queue_attributes()
        .queue_url(&dlq)
        .attribute_names(QueueAttributeName::QueueArn)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap()[&QueueAttributeName::QueueArn]
        .clone();
    let redrive =
        serde_json::json!({ "deadLetterTargetArn": dlq_arn, "maxReceiveCount": max_receives })
            .to_string();
    let queue = sqs
        .create_queue()
        .queue_name(name)
        .attributes(QueueAttributeName::RedrivePolicy, redrive)
        .attributes(QueueAttributeName::VisibilityTimeout, "30")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    (queue, dlq)
}

/// Ending a session with the queue configured puts one message per receiver and returns; the
/// sender POSTs each: a receiver that answers gets its token at once, one that fails gets it
/// again after the backoff, and after the last attempt the message is in the dead-letter
/// queue and `backchannel_logout.failed` is audited. A message too old for another attempt
/// is given up (audited) and deleted, never POSTed.
#[tokio::test(flavor = "current_thread")]
async fn back_channel_logout_goes_through_the_queue_and_the_sender() {
    use scanid_aws::queue::{Queue, SqsDelivery};
    use scanid_core::backchannel::{Delivery, GiveUp, RetryPolicy};
    use scanid_core::domain::client::{register, NewClient};
    use scanid_core::domain::login::SsoSession;
    use scanid_core::protocol::ClientId;
    use scanid_core::store::ClientStore;
    use scanid_lambda::sender::{Handled, Sender};
    use std::time::Duration;

    require_emulator();
    let captured = Captured::default();
    let writer = captured.clone();
    let _log = tracing::subscriber::set_default(
        tracing_subscriber::fmt()
            .json()
            .with_writer(move || writer.clone())
            .finish(),
    );
    let config = scanid_aws::emulator(&std::env::var("SCANID_TEST_AWS_ENDPOINT").unwrap()).await;
    let sqs = aws_sdk_sqs::Client::new(&config);
    // Two attempts, one second apart (the template's queue: five, as RetryPolicy::DEFAULT).
    let policy = RetryPolicy {
        max_attempts: 2,
        first_backoff: Duration::from_secs(1),
        ..RetryPolicy::DEFAULT
    };
    let (url, dlq) = queue_with_dead_letters(&sqs, policy.max_attempts).await;
    let queue = Queue::from_config(&config, &url);

    let mut env = scanid_core::testing::Builder::new().build().await;
    env.ctx.backchannel = std::sync::Arc::new(SqsDelivery(queue.clone()));
    let now = env.now();
    let (good_url, good) = status_receiver(200);
    let (bad_url, bad) = status_receiver(503);
    for (id, uri) in [("good", &good_url), ("bad", &bad_url)] {
        let (c, _) = register(
            NewClient {
                name: id.into(),
                client_id: Some(id.into()),
                redirect_uris: vec!["https://rp.example/cb".into()],
                backchannel_logout_uri: Some(uri.clone()),
                local_development: true,
                ..Default::default()
            },
            now,
            env.random.as_ref(),
        )
        .unwrap();
        env.store.create_client(&c, now).await.unwrap();
    }
    let (mut session, _) = SsoSession::new(&env.alice.sub, now, now, env.random.as_ref());
    session.clients = vec![ClientId::new("bad"), ClientId::new("good")];
    scanid_core::usecase::resource::end_known_session(&env.ctx, &session, now)
        .await
        .unwrap();
    // Ending the session POSTed nothing: it queued.
    assert!(good.recv_timeout(Duration::from_millis(200)).is_err());

    let sender = Sender::new(queue.clone(), env.clock.clone(), policy).unwrap();
    let (event, handles) = receive(&sqs, &url, 1).await;
    assert_eq!(event.records.len(), 2, "one message per receiver");
    let by_client = |e: &scanid_lambda::sender::SqsEvent, client: &str| {
        e.records
            .iter()
            .find(|m| serde_json::from_str::<Delivery>(&m.body).unwrap().client_id == client)
            .map(|m| m.message_id.clone())
            .unwrap()
    };
    let (bad_id, good_id) = (by_client(&event, "bad"), by_client(&event, "good"));
    let (response, handled) = sender.handle(event).await;
    assert_eq!(
        response
            .batch_item_failures
            .iter()
            .map(|f| f.item_identifier.as_str())
            .collect::<Vec<_>>(),
        [bad_id.as_str()],
        "only the failed delivery is handed back"
    );
    assert!(
        handled.contains(&(good_id, Handled::Delivered)),
        "{handled:?}"
    );
    assert!(
        handled.contains(&(bad_id.clone(), Handled::Retry)),
        "{handled:?}"
    );
    let body = good.recv_timeout(Duration::from_secs(1)).unwrap();
    let token = url::form_urlencoded::parse(body.as_bytes())
        .find(|(k, _)| k == "logout_token")
        .map(|(_, v)| v.into_owned())
        .unwrap();
    assert_eq!(scanid_tests::jwt_claims(&token)["aud"], "good");
    assert_eq!(
        scanid_tests::jwt_claims(&token)["sid"],
        session.sid.as_str()
    );
    assert!(
        bad.recv_timeout(Duration::from_secs(1)).is_ok(),
        "bad was tried"
    );
    // As the event source mapping: what was not handed back is deleted.
    for (id, handle) in &handles {
        if *id != bad_id {
            sqs.delete_message()
                .queue_url(&url)
                .receipt_handle(handle)
                .send()
                .await
                .unwrap();
        }
    }
    assert_eq!(captured.events("backchannel_logout").len(), 1);

    // The failed one is invisible for its backoff (1 s), then handed over again.
    let (early, _) = receive(&sqs, &url, 0).await;
    assert!(
        early.records.iter().all(|m| m.message_id != bad_id),
        "visible again before its backoff"
    );
    tokio::time::sleep(Duration::from_millis(600)).await;
    let mut again = None;
    for _ in 0..5 {
        let (e, _) = receive(&sqs, &url, 1).await;
        if let Some(m) = e.records.into_iter().find(|m| m.message_id == bad_id) {
            again = Some(m);
            break;
        }
    }
    let again = again.expect("the failed delivery is handed over again");
    assert_eq!(again.attributes["ApproximateReceiveCount"], "2");
    let (response, handled) = sender
        .handle(scanid_lambda::sender::SqsEvent {
            records: vec![again],
        })
        .await;
    assert_eq!(
        handled,
        [(bad_id.clone(), Handled::GaveUp(GiveUp::Attempts, true))]
    );
    assert_eq!(response.batch_item_failures.len(), 1);
    assert_eq!(
        captured.events("backchannel_logout.failed"),
        [("bad".to_owned(), "attempts".to_owned())],
        "one final-failure audit event"
    );
    // Handed back with visibility 0 after maxReceiveCount: the next receive moves it to the
    // dead-letter queue.
    let (after, _) = receive(&sqs, &url, 0).await;
    assert!(after.records.is_empty(), "{after:?}");
    let (dead, _) = receive(&sqs, &dlq, 1).await;
    assert_eq!(
        dead.records
            .iter()
            .map(|m| m.message_id.as_str())
            .collect::<Vec<_>>(),
        [bad_id.as_str()]
    );

    // A delivery older than the age bound allows an attempt for: given up, deleted, never
    // POSTed.
    let old = Delivery {
        client_id: "good".into(),
        uri: good_url.clone(),
        token: "x.y.z".into(),
        sub: env.alice.sub.to_string(),
        issued_at: now,
        reach: Default::default(),
        ciba_auth_req_id: None,
        push: None,
    };
    queue.put(&old).await.unwrap();
    env.advance(99);
    let (event, _) = receive(&sqs, &url, 1).await;
    assert_eq!(event.records.len(), 1);
    let (response, handled) = sender.handle(event).await;
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(handled[0].1, Handled::GaveUp(GiveUp::Expired, false));
    assert!(good.recv_timeout(Duration::from_millis(300)).is_err());
    assert_eq!(
        captured.events("backchannel_logout.failed").last().unwrap(),
        &("good".to_owned(), "expired".to_owned())
    );

    // An OpenID CIBA ping (Core §10.2) takes the same queue and sender: a JSON body naming
    // the auth_req_id.
    let ping = Delivery {
        client_id: "good".into(),
        uri: good_url.clone(),
        token: "client-notification-token".into(),
        sub: env.alice.sub.to_string(),
        issued_at: scanid_core::clock::Clock::now(env.clock.as_ref()),
        reach: Default::default(),
        ciba_auth_req_id: Some("the-auth-req-id".into()),
        push: None,
    };
    queue.put(&ping).await.unwrap();
    let (event, _) = receive(&sqs, &url, 1).await;
    let (_, handled) = sender.handle(event).await;
    assert_eq!(handled[0].1, Handled::Delivered);
    let body = good.recv_timeout(Duration::from_secs(1)).unwrap();
    assert_eq!(body, r#"{"auth_req_id":"the-auth-req-id"}"#);
}

/// The photo bucket of `aws`, read and written directly (as a crash would leave it).
fn bucket(aws: &Aws) -> (tokio::runtime::Runtime, scanid_aws::photos::S3Photos) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let endpoint = std::env::var("SCANID_TEST_AWS_ENDPOINT").unwrap();
    let config = rt.block_on(scanid_aws::emulator(&endpoint));
    let photos = scanid_aws::photos::S3Photos::from_config(&config, &aws.photo_bucket);
    (rt, photos)
}

/// Issue 25.2 on S3: a refused upload (a replayed `jti`) puts nothing in the bucket; an object
/// no record names is never served; a replaced photo is gone; the 11th upload in an hour is
/// 429; deleting the identity empties its `{sub}/` prefix, the stray object included.
#[test]
fn photos_on_s3_refused_stray_and_deleted_are_never_served() {
    use scanid_core::domain::photo::{content_hash, object_name};
    use scanid_core::store::PhotoStore;
    let aws = Aws::init("kms");
    let dir = tempfile::tempdir().unwrap();
    let s = serve(&aws, &dir);
    let (rt, photos) = bucket(&aws);
    let app = TestApp::enroll(
        &s,
        &format!("s3p-{}", &uuid::Uuid::new_v4().simple().to_string()[..8]),
    );
    let first = scanid_tests::png(40, 40);
    let mut claims = app.request_claims();
    claims["sha256"] = serde_json::json!(scanid_tests::sha256_of(&first));
    let r = app.upload_photo_signed(&claims, &first);
    assert_eq!(r.status, 200, "{}", r.text());
    let first_url = r.json()["profile_photo"].as_str().unwrap().to_owned();
    // The same jti signing other bytes: 409, and nothing in the bucket.
    let smuggled = scanid_tests::png(41, 41);
    claims["sha256"] = serde_json::json!(scanid_tests::sha256_of(&smuggled));
    let r = app.upload_photo_signed(&claims, &smuggled);
    assert_eq!(r.status, 409, "{}", r.text());
    let smuggled_name = object_name(&app.sub, &content_hash(&smuggled));
    assert_eq!(
        rt.block_on(photos.photo(&smuggled_name)).unwrap(),
        None,
        "a refused upload is in the bucket"
    );
    assert_eq!(
        get(&format!("{}/v1/photos/{smuggled_name}", s.base)).status,
        404
    );
    // A stray object (a crash's leftover) is never served.
    rt.block_on(photos.put_photo(&smuggled_name, &smuggled, "image/png"))
        .unwrap();
    assert_eq!(
        get(&format!("{}/v1/photos/{smuggled_name}", s.base)).status,
        404
    );
    // Replaced: gone. Served: cached five minutes.
    let second = scanid_tests::png(42, 42);
    let r = app.upload_photo(&second, None);
    assert_eq!(r.status, 200, "{}", r.text());
    let second_url = r.json()["profile_photo"].as_str().unwrap().to_owned();
    assert_eq!(get(&first_url).status, 404);
    let ok = get(&second_url);
    assert_eq!(ok.status, 200);
    assert_eq!(ok.header("cache-control"), Some("public, max-age=300"));
    // The hourly limit (10; two used), counted in the table.
    let into = TestApp::now().rem_euclid(3600);
    if into >= 3570 {
        std::thread::sleep(std::time::Duration::from_secs(
            u64::try_from(3601 - into).unwrap(),
        ));
    }
    let mut last = 0;
    for i in 0..9u32 {
        last = app.upload_photo(&scanid_tests::png(50 + i, 8), None).status;
        if last == 429 {
            break;
        }
    }
    assert_eq!(last, 429, "no limit on uploads");
    // Deleted: the whole prefix goes, the stray object too.
    let out = aws.cli(&["identity", "delete", &app.sub]);
    assert_eq!(out["deleted"], app.sub.as_str());
    assert_eq!(get(&second_url).status, 404);
    for name in [smuggled_name, object_name(&app.sub, &content_hash(&second))] {
        assert_eq!(rt.block_on(photos.photo(&name)).unwrap(), None, "{name}");
    }
}

/// The `claims` request parameter (OIDC Core 5.5) on DynamoDB: what was asked for travels with
/// the QR login, the code, the grant (a refresh) and the remembered consent in the table.
#[test]
fn the_claims_parameter_on_dynamodb() {
    let aws = Aws::init("kms-envelope");
    let secret = register_shop(&aws);
    let dir = tempfile::tempdir().unwrap();
    let s = serve(&aws, &dir);
    let app = TestApp::enroll(&s, "claims.dynamo");
    let claims = r#"{"userinfo":{"name":{"essential":true}},"id_token":{"address":null}}"#;
    let pairs = [
        ("client_id", "shop"),
        ("redirect_uri", CB),
        ("response_type", "code"),
        ("state", "st"),
        ("scope", "openid"),
        ("claims", claims),
    ];
    let mut b = Browser::new();
    let r = login(&mut b, &s, &app, &auth_url(&s, &pairs));
    let t = redeem(&s, ("shop", &secret), &params_of(&location(&r))["code"]);
    let id = verify_independently(&s, t["id_token"].as_str().unwrap());
    assert_eq!(id["address"], serde_json::json!({ "country": "SE" }));
    assert!(id.get("name").is_none(), "{id}");
    let u = userinfo(&s, t["access_token"].as_str().unwrap()).json();
    assert_eq!(u["name"], "claims.dynamo display");
    assert!(u.get("address").is_none(), "{u}");
    let r = post_form(
        &s.oidc("token"),
        Some(("shop", &secret)),
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", t["refresh_token"].as_str().unwrap()),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let t2 = r.json();
    let id2 = verify_independently(&s, t2["id_token"].as_str().unwrap());
    assert_eq!(id2["address"], id["address"]);
    assert_eq!(
        userinfo(&s, t2["access_token"].as_str().unwrap()).json()["name"],
        "claims.dynamo display"
    );
    // The consent remembered with its claims: the same request again is answered at once.
    let mut silent = pairs.to_vec();
    silent.push(("prompt", "none"));
    let again = b.get(&auth_url(&s, &silent));
    assert!(params_of(&location(&again)).contains_key("code"));
}

/// The `locale` claim (issue 39) through the QR login, the code and the grant (a refresh) in
/// the table: the language the login's pages spoke (`ui_locales=de`), with `profile`.
#[test]
fn the_locale_claim_on_dynamodb() {
    let aws = Aws::init("kms-envelope");
    let secret = register_shop(&aws);
    let dir = tempfile::tempdir().unwrap();
    let s = serve(&aws, &dir);
    let app = TestApp::enroll(&s, "locale.dynamo");
    let pairs = [
        ("client_id", "shop"),
        ("redirect_uri", CB),
        ("response_type", "code"),
        ("state", "st"),
        ("scope", "openid profile"),
        ("ui_locales", "de"),
    ];
    let r = login(&mut Browser::new(), &s, &app, &auth_url(&s, &pairs));
    let t = redeem(&s, ("shop", &secret), &params_of(&location(&r))["code"]);
    let id = verify_independently(&s, t["id_token"].as_str().unwrap());
    assert_eq!(id["locale"], "de", "{id}");
    let u = userinfo(&s, t["access_token"].as_str().unwrap()).json();
    assert_eq!(u["locale"], "de", "{u}");
    let r = post_form(
        &s.oidc("token"),
        Some(("shop", &secret)),
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", t["refresh_token"].as_str().unwrap()),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let id2 = verify_independently(&s, r.json()["id_token"].as_str().unwrap());
    assert_eq!(id2["locale"], "de", "{id2}");
}

#[test]
fn device_grant_on_dynamodb_with_kms_signing() {
    let aws = Aws::init("kms");
    let created = aws.cli(&[
        "client",
        "create",
        "--name",
        "Living room TV",
        "--client-id",
        "tv",
        "--grant",
        "device_code",
    ]);
    let secret = created["client_secret"].as_str().unwrap().to_owned();
    let dir = tempfile::tempdir().unwrap();
    let s = serve(&aws, &dir);
    let t =
        crate::device_grant::approve_with_the_reference_app(&s, ("tv", Some(&secret)), dir.path());
    let id = verify_independently(&s, t["id_token"].as_str().unwrap());
    assert_eq!(id["aud"], "tv");
}

#[test]
fn started_here_on_dynamodb_needs_the_logins_own_cookie() {
    let aws = Aws::init("kms-envelope");
    register_shop(&aws);
    let dir = tempfile::tempdir().unwrap();
    let s = serve(&aws, &dir);
    let url = auth_url(
        &s,
        &[
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("state", "st"),
            ("scope", "openid"),
        ],
    );
    let mut ob = Browser::new();
    let (_, other) = open(&mut ob, &url);
    let other_name = format!("scanid_login_{}", params_of(&other)["session"]);
    let other_value = ob.jar[&other_name].clone();
    // Each case scans a login of its own: a second scan of one login cancels it, and a
    // challenge is accepted once. `cookie` makes the Cookie header from the login's own
    // cookie name and value.
    let scan = |cookie: &dyn Fn(&str, &str) -> Option<String>| {
        let mut b = Browser::new();
        let (_, payload) = open(&mut b, &url);
        let name = format!("scanid_login_{}", params_of(&payload)["session"]);
        let c = cookie(&name, &b.jar[&name]);
        let mut h = vec![
            ("Accept", "application/json"),
            ("User-Agent", b.user_agent.as_str()),
        ];
        h.extend(c.as_deref().map(|c| ("Cookie", c)));
        let r = request("GET", &payload, &h, b"");
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()["started_here"].clone()
    };
    assert_eq!(
        scan(&|_, _| None),
        false,
        "the same User-Agent proves nothing"
    );
    assert_eq!(scan(&|n, v| Some(format!("{n}={v}"))), true);
    // Another login's cookie, under its own name or under this login's, is no proof.
    assert_eq!(
        scan(&|_, _| Some(format!("{other_name}={other_value}"))),
        false
    );
    assert_eq!(scan(&|n, _| Some(format!("{n}={other_value}"))), false);
}

/// Issue 24, "this wasn't me", on DynamoDB with KMS signing: the relying party's view as on
/// the embedded store (`session_revocation`), but for the back-channel logout (a loopback
/// receiver is refused outside local development; the queue is tested above).
#[test]
fn this_wasnt_me_on_dynamodb_with_kms_signing() {
    let aws = Aws::init("kms");
    let secret = register_shop(&aws);
    let dir = tempfile::tempdir().unwrap();
    let s = serve(&aws, &dir);
    crate::session_revocation::wasnt_me_flow(&s, &secret, None);
}

/// Issue 38 (3) on DynamoDB: "this wasn't me" after the approval's session idled out revokes
/// the device grant's offline tokens (`session_revocation`).
#[test]
fn this_wasnt_me_after_the_session_idled_on_dynamodb() {
    let aws = Aws::init("kms");
    let created = aws.cli(&[
        "client",
        "create",
        "--name",
        "Living room TV",
        "--client-id",
        "tv",
        "--grant",
        "device_code",
    ]);
    let secret = created["client_secret"].as_str().unwrap().to_owned();
    let dir = tempfile::tempdir().unwrap();
    let mut flags = aws.flags();
    flags.extend(["--sso-idle-ttl", "60"]);
    let s = TestServer::start(dir.path(), &flags);
    crate::session_revocation::wasnt_me_after_the_session_idled(&s, ("tv", &secret));
}

/// Issue 38 (2) on DynamoDB: the login page's passkey challenges are limited per login and
/// per source (`passkey_login`).
#[test]
fn passkey_challenges_are_limited_on_dynamodb() {
    let aws = Aws::init("kms");
    register_shop(&aws);
    let dir = tempfile::tempdir().unwrap();
    let mut flags = aws.flags();
    flags.extend([
        "--passkey-challenges-per-login",
        "3",
        "--passkey-challenge-rate-per-minute",
        "5",
    ]);
    let s = TestServer::start(dir.path(), &flags);
    crate::passkey_login::passkey_challenges_are_limited(&s);
}

/// OpenID CIBA poll mode on DynamoDB: the raw phone approves and denies, an unknown hint
/// answers as a person who does not answer, a flood for one person is refused
/// (`crate::ciba`).
#[test]
fn ciba_on_dynamodb() {
    let aws = Aws::init("kms-envelope");
    let mut args = vec!["client", "create"];
    args.extend_from_slice(crate::ciba::CLIENT_FLAGS);
    let secret = aws.cli(&args)["client_secret"].as_str().unwrap().to_owned();
    let dir = tempfile::tempdir().unwrap();
    let mut flags = aws.flags();
    flags.extend_from_slice(crate::ciba::SERVER_FLAGS);
    let s = TestServer::start(dir.path(), &flags);
    crate::ciba::approve_and_deny(&s, &secret);
    crate::ciba::unknown_hint_is_no_oracle(&s, &secret);
    crate::ciba::flood_is_refused(&s, &secret);
}

/// A delegation asked through CIBA on DynamoDB: the approval recorded in the table as the
/// agent's consent, the exchange then naming it in `act`; withdrawn, denied and expired
/// requests leaving it refused (`crate::ciba_delegation`).
#[test]
fn ciba_delegation_on_dynamodb() {
    use crate::ciba_delegation as cd;
    let aws = Aws::init("kms-envelope");
    let secret = |flags: &[&str]| {
        let mut args = vec!["client", "create"];
        args.extend_from_slice(flags);
        aws.cli(&args)["client_secret"].as_str().unwrap().to_owned()
    };
    let agent = secret(cd::AGENT_FLAGS);
    let api = secret(cd::API_FLAGS);
    let dir = tempfile::tempdir().unwrap();
    let mut flags = aws.flags();
    flags.extend_from_slice(cd::SERVER_FLAGS);
    let s = TestServer::start(dir.path(), &flags);
    cd::delegation_through_ciba(&s, ("ciba-agent", &agent), ("api", &api));
}

/// Push subscriptions on DynamoDB: the key is served, a subscription is stored and withdrawn
/// through the table; outside local development (a table, not the embedded store) an
/// endpoint on loopback is refused, as a back-channel logout URI is (`crate::push`).
#[test]
fn push_subscriptions_on_dynamodb() {
    use serde_json::json;
    let aws = Aws::init("kms-envelope");
    let dir = tempfile::tempdir().unwrap();
    let mut flags = aws.flags();
    flags.extend_from_slice(crate::push::SERVER_FLAGS);
    let s = TestServer::start(dir.path(), &flags);
    let app = TestApp::enroll(&s, "push-dynamo");
    let r = crate::push::push_call(&app, "", json!({}));
    assert_eq!(
        r.json()["application_server_key"],
        crate::push::VAPID_PUBLIC
    );
    let keys = json!({ "p256dh": crate::push::VAPID_PUBLIC, "auth": "BTBZMqHH6r4Tts7J_aSIgg" });
    let r = crate::push::subscribe(&app, "http://127.0.0.1:9/push", &keys);
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("loopback"), "{}", r.text());
    let r = crate::push::subscribe(&app, "https://push.example.net/wpush/1", &keys);
    assert_eq!(r.status, 200, "{}", r.text());
    let r = crate::push::withdraw(&app, "https://push.example.net/wpush/1");
    assert_eq!(r.json()["withdrawn"], true, "{}", r.text());
    let r = crate::push::withdraw(&app, "https://push.example.net/wpush/1");
    assert_eq!(r.json()["withdrawn"], false, "{}", r.text());
}

/// Web Push through SQS on moto: a CIBA request for a person with a push subscription (in
/// DynamoDB) puts the push on the queue and answers; the `backchannel-sender` code takes it
/// from the queue to the test's push service (tests/py/push_service.py), which checks the
/// VAPID JWT with PyJWT and decrypts the body with http-ece. A push service that answers 410
/// makes the sender drop the subscription from the table, through the only keys its IAM
/// policy lets it touch (`identity_push#`, checked against template.yaml).
#[tokio::test(flavor = "current_thread")]
async fn a_ciba_push_goes_through_the_queue_and_a_gone_subscription_leaves_the_table() {
    use scanid_aws::dynamo::DynamoStore;
    use scanid_aws::queue::{Queue, SqsDelivery};
    use scanid_core::backchannel::{Delivery, GiveUp};
    use scanid_core::clock::Clock;
    use scanid_core::domain::client::{register, NewClient};
    use scanid_core::service::client_auth::Presented;
    use scanid_core::store::push_subscriptions::PushSubscription;
    use scanid_core::store::{ClientStore, IdentityStore, Key, Kind, PushSubscriptions};
    use scanid_lambda::sender::{Handled, Sender};
    use serde_json::json;
    use std::sync::Arc;

    require_emulator();
    let config = scanid_aws::emulator(&std::env::var("SCANID_TEST_AWS_ENDPOINT").unwrap()).await;
    let table = format!("scanid-it-{}", uuid::Uuid::new_v4().simple());
    let dynamo = Arc::new(DynamoStore::from_config(&config, &table));
    assert!(dynamo.create_table().await.unwrap());
    let sqs = aws_sdk_sqs::Client::new(&config);
    let (url, _dlq) = queue_with_dead_letters(
        &sqs,
        scanid_core::backchannel::RetryPolicy::DEFAULT.max_attempts,
    )
    .await;
    let queue = Queue::from_config(&config, &url);

    // The service as a function runs it: the table, the queue, a VAPID key; a loopback public
    // URL so the push service may be on 127.0.0.1 (local development's rule).
    let mut env = scanid_core::testing::Builder::new()
        .at(scanid_core::clock::SystemClock.now())
        .setting(|r| {
            r.public_url = Some("http://127.0.0.1:8080".into());
            r.vapid_private_key = Some(crate::push::VAPID_PRIVATE.into());
            r.vapid_subject = Some("mailto:ops@example.com".into());
        })
        .build()
        .await;
    env.ctx.store = dynamo.clone() as Arc<dyn scanid_core::store::Backend>;
    env.ctx.backchannel = Arc::new(SqsDelivery(queue.clone()));
    let now = env.now();
    let (desk, secret) = register(
        NewClient {
            name: "Call centre".into(),
            client_id: Some("desk".into()),
            redirect_uris: vec!["https://rp.example/cb".into()],
            ciba: true,
            ..Default::default()
        },
        now,
        env.random.as_ref(),
    )
    .unwrap();
    dynamo.create_client(&desk, now).await.unwrap();
    dynamo.create_identity(&env.alice, None, now).await.unwrap();
    let sub = env.alice.sub.to_string();

    let push = crate::push::PushService::start();
    let s = &push.subscription;
    let endpoint = s["endpoint"].as_str().unwrap().to_owned();
    let subscription = |endpoint: &str| PushSubscription {
        kind: "webpush".into(),
        endpoint: endpoint.to_owned(),
        p256dh: s["p256dh"].as_str().unwrap().into(),
        auth: s["auth"].as_str().unwrap().into(),
        created_at: now.secs(),
    };
    dynamo
        .add_push_subscription(&sub, &subscription(&endpoint), now)
        .await
        .unwrap();

    let presented = Presented {
        basic: Some(("desk".into(), secret.unwrap().expose().to_owned())),
        ..Default::default()
    };
    let ask = |binding: &'static str| {
        let params = scanid_core::testing::params(&[
            ("scope", "openid"),
            ("login_hint", "alice"),
            ("binding_message", binding),
        ]);
        let (ctx, presented, source) = (&env.ctx, presented.clone(), env.source());
        async move {
            scanid_core::usecase::ciba::start(ctx, &params, &presented, &source, "till")
                .await
                .unwrap()
        }
    };
    let started = ask("Secret 42").await;
    let request = scanid_core::domain::login::hash(started.auth_req_id.expose());

    // The request answered having queued the push: one message, for the subscription, with
    // nothing personal in it (the body is encrypted; the binding message is nowhere).
    let (event, _) = receive(&sqs, &url, 1).await;
    assert_eq!(event.records.len(), 1, "{event:?}");
    let queued: Delivery = serde_json::from_str(&event.records[0].body).unwrap();
    assert_eq!(queued.uri, endpoint);
    assert!(queued.push.is_some());
    assert!(!event.records[0].body.contains("Secret 42"));

    let sender = Sender::new(
        queue.clone(),
        env.clock.clone(),
        scanid_core::backchannel::RetryPolicy::DEFAULT,
    )
    .unwrap()
    .with_store(dynamo.clone());
    let (response, handled) = sender.handle(event).await;
    assert!(response.batch_item_failures.is_empty(), "{response:?}");
    assert_eq!(handled[0].1, Handled::Delivered);
    let got = push.next();
    assert!(got.get("error").is_none(), "{got}");
    assert_eq!(
        got["payload"],
        json!({ "kind": "ciba", "request": request })
    );
    assert_eq!(got["path"], "/push/sub-1");
    assert_eq!(got["k"], crate::push::VAPID_PUBLIC);
    assert_eq!(got["vapid"]["sub"], "mailto:ops@example.com");
    assert_eq!(got["headers"]["content-encoding"], "aes128gcm");

    // The person's app moved: its push service answers 410 from now on.
    let gone = endpoint.replace("/sub-1", "/gone");
    dynamo
        .remove_push_subscription(&sub, &endpoint, now)
        .await
        .unwrap();
    dynamo
        .add_push_subscription(&sub, &subscription(&gone), now)
        .await
        .unwrap();
    ask("Secret 43").await;
    let (event, _) = receive(&sqs, &url, 1).await;
    assert_eq!(event.records.len(), 1, "{event:?}");
    let (response, handled) = sender.handle(event).await;
    assert!(response.batch_item_failures.is_empty(), "not tried again");
    assert_eq!(handled[0].1, Handled::GaveUp(GiveUp::Refused, false));
    let got = push.next();
    assert_eq!(got["path"], "/push/gone", "{got}");
    assert!(got.get("error").is_none(), "{got}");
    assert!(
        dynamo
            .push_subscriptions(&sub, now)
            .await
            .unwrap()
            .is_empty(),
        "the gone subscription left the table"
    );

    // What the sender touched is what its IAM policy allows, and nothing else.
    let pk = Key::new(Kind::IdentityPush, &sub).pk();
    assert!(pk.starts_with("identity_push#"), "{pk}");
    let template =
        std::fs::read_to_string(scanid_tests::repo_root().join("template.yaml")).unwrap();
    assert!(
        template.contains("dynamodb:LeadingKeys: [\"identity_push#*\"]"),
        "the sender's table access is limited to push subscriptions"
    );
}
