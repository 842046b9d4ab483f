//! Durability on DynamoDB under faults (issue 16): `scanid serve --table ... --signing
//! kms-envelope` talks to the emulator through a proxy (`scanid_tests::fault_proxy`) that
//! throttles (400 `ThrottlingException`, `ProvisionedThroughputExceededException`) or fails
//! (500 `InternalServerError`) a seeded share of the calls, with short outages, and loses the
//! reply of some committed transactions (the SDK retries them with the same
//! `ClientRequestToken`) and of some code exchanges' puts (the SDK's retry then fails its
//! condition: the exchange must still answer 200, not take its own write for a replay), while
//! a mixed load runs (QR logins, code exchanges, refresh-token grants), then signed profile updates
//! (transactions). Every answer is a success or a 503 with `Retry-After`, never a 500. A request
//! answered 503 changed nothing, unless the reply of its commit was lost on the SDK's last
//! attempt: then its retry is refused as a repeat (a code already redeemed, a login decided
//! already), or for a refresh accepted within the grace period. With faults off afterwards,
//! every success the clients were given holds (`scanid_tests::load`: settle, verify, and the
//! destructive checks on every family).

use std::time::Instant;

use scanid_tests::fault_proxy::{FaultPlan, FaultProxy};
use scanid_tests::load::{self, Mode, Model, Rng, Service};
use scanid_tests::{get, require_emulator, scanid_json, TestApp, TestServer, CB};

const WORKERS: usize = 4;
/// Requests per worker while faults are on.
const OPS: usize = 45;
/// Signed profile updates per app while faults are on: transactions (the identity and the
/// request's `jti`), whose replies the proxy loses at `lost_replies` (20%), as it does the
/// refreshes' rotations'.
const PATCHES: usize = 30;
const PLAN: FaultPlan = FaultPlan {
    percent: 20,
    outage_every: 250,
    outage_len: 30,
    lost_replies: 20,
    // About 15 code exchanges run under faults: at one in two, some replies are always lost.
    lost_put_replies: 50,
};

#[test]
fn throttled_and_failing_dynamodb_answers_503_and_loses_no_success() {
    require_emulator();
    let started = Instant::now();
    let seed = load::seed("throttled_and_failing_dynamodb_answers_503_and_loses_no_success");
    let mut rng = Rng::new(seed);
    let table = format!("scanid-it-{}", uuid::Uuid::new_v4().simple());
    let init = scanid_json(&[
        "aws",
        "init",
        "--table",
        &table,
        "--signing",
        "kms-envelope",
        "--create-kms-key",
    ]);
    let key_id = init["kms_key_id"].as_str().unwrap().to_owned();
    let aws_flags = [
        "--table",
        &table,
        "--signing",
        "kms-envelope",
        "--kms-key-id",
        &key_id,
    ];
    let created = scanid_json(
        &[
            &[
                "client",
                "create",
                "--name",
                "Shop",
                "--client-id",
                "shop",
                "--redirect-uri",
                CB,
            ][..],
            &aws_flags[..],
        ]
        .concat(),
    );
    let emulator = std::env::var("SCANID_TEST_AWS_ENDPOINT").unwrap();
    let proxy = FaultProxy::start(&emulator, PLAN, rng.next_u64());
    let dir = tempfile::tempdir().unwrap();
    let flags = [
        &aws_flags[..],
        &[
            "--login-rate-per-minute",
            "100000",
            "--decision-rate-per-minute",
            "100000",
        ][..],
    ]
    .concat();
    // Started with faults off: a cold start that cannot read its keys fails (and says so).
    let s = TestServer::start_with(
        dir.path(),
        "127.0.0.1:0",
        &flags,
        &[
            ("AWS_ENDPOINT_URL", proxy.endpoint.clone()),
            // Each injected fault that outlasts the retries logs an error twice (the store's
            // detail, the 503's cause), and the destructive checks replay codes on purpose:
            // expected here, and checked through the answers.
            (
                "RUST_LOG",
                "warn,scanid_aws::dynamo=off,scanid_http::error=off,scanid_core::usecase::token=error"
                    .into(),
            ),
        ],
    );
    let svc = Service {
        issuer: s.issuer.clone(),
        client_id: "shop".into(),
        secret: created["client_secret"].as_str().unwrap().to_owned(),
        mode: Mode::Faults,
    };
    let apps: Vec<TestApp> = (0..3)
        .map(|i| TestApp::enroll(&s, &format!("faults-{i}")))
        .collect();
    assert!(
        proxy.forwarded() > 0,
        "the server talks to AWS through the proxy"
    );

    let mut model = Model::default();
    proxy.faults(true);
    let alive =
        load::work_in_parallel(&svc, &apps, &mut model, &mut rng, WORKERS, Some(OPS), || {});
    assert!(
        alive.iter().all(|a| *a),
        "the server answered every request"
    );
    // A signed profile update is a transaction of two records (the refreshes' rotations are of
    // one). Each answer is a success or a 503 with `Retry-After`; a transaction whose reply was
    // lost is retried by the SDK with its `ClientRequestToken` and answered as committed.
    let mut sent: Vec<Vec<(String, u16)>> = vec![Vec::new(); apps.len()];
    for round in 0..PATCHES {
        for (i, app) in apps.iter().enumerate() {
            let name = format!("faults {i} r{round}");
            let mut claims = app.request_claims();
            claims["display_name"] = serde_json::json!(name);
            let r = app.patch_profile(&claims);
            assert!(
                r.status == 200 || (r.status == 503 && r.header("retry-after").is_some()),
                "profile update under faults: {} {}",
                r.status,
                r.text()
            );
            sent[i].push((name, r.status));
        }
    }
    proxy.faults(false);
    let under_faults = model.stats.clone();
    // What the directory shows is the last name answered 200, or one sent after it (a 503
    // whose commit's reply was lost on the SDK's last attempt); never an earlier one.
    for (i, app) in apps.iter().enumerate() {
        let shown = get(&format!("{}/v1/directory/{}", s.base, app.sub)).json();
        let shown = shown["display_name"].as_str().unwrap_or_default();
        let at = sent[i].iter().position(|(n, _)| n == shown);
        let last_ok = sent[i].iter().rposition(|(_, st)| *st == 200);
        assert!(
            at.is_some() && at >= last_ok,
            "app {i} shows {shown:?} after {:?}",
            sent[i]
        );
    }
    let injected = proxy.injected();
    let calls = proxy.calls();

    // Faults off: what the clients were given is there, and what they were refused can be
    // done now (a 503 left nothing half-written).
    load::settle(&svc, &apps, &mut model);
    load::verify(&svc, &model);
    let verified = model.families.len();
    let checks = load::sacrifice_all(&svc, &mut model);

    eprintln!(
        "{calls} AWS calls under faults, injected: {injected:?}; the clients saw {under_faults:?}; \
         {verified} families verified, {checks} destructive checks, in {} ms",
        started.elapsed().as_millis()
    );
    let total: u64 = injected.values().sum();
    assert!(
        total * 100 >= calls * PLAN.percent / 2,
        "faults were injected ({total} of {calls})"
    );
    for kind in [
        "lost reply TransactWriteItems",
        "lost reply PutItem",
        "ThrottlingException",
        "ProvisionedThroughputExceededException",
        "InternalServerError",
    ] {
        assert!(
            injected.keys().any(|k| k.starts_with(kind)),
            "{kind} injected: {injected:?}"
        );
    }
    assert!(
        under_faults.unavailable > 0,
        "the outages outlasted the SDK's retries: some requests answered 503 ({under_faults:?})"
    );
    assert!(
        under_faults.logins > 0 && under_faults.exchanges > 0 && under_faults.refreshes > 0,
        "the load did each thing under faults: {under_faults:?}"
    );
    assert_eq!(checks, verified, "every family was checked destructively");
}
