//! Crash safety of the embedded store (issue 16): `scanid serve` is killed with SIGKILL at
//! random moments under a mixed load (QR logins, code exchanges, refresh-token grants), and
//! restarted on the same data dir each time. After every restart, every success a client was
//! given still holds (`scanid_tests::load`: settle, verify, sacrifice), and the SQLite file
//! passes `PRAGMA integrity_check` with no repair. The kill moments come from a seeded
//! generator: a failure prints `SCANID_TEST_SEED=...` to replay them (the threads'
//! interleaving is not replayed).

use std::time::{Duration, Instant};

use scanid_tests::load::{self, Mode, Model, Rng, Service};
use scanid_tests::{create_client, get, secret_of, TestApp, TestServer, CB, DISCOVERY};

const ROUNDS: usize = 5;
const WORKERS: usize = 4;
/// The load runs this long (uniform, ms) before the kill.
const KILL_AFTER_MS: (u64, u64) = (150, 1500);

/// The flags of every start: no demo client, rate limits out of the load's way.
const FLAGS: [&str; 5] = [
    "--no-demo",
    "--login-rate-per-minute",
    "100000",
    "--decision-rate-per-minute",
    "100000",
];

/// The server's log filter: the destructive checks replay codes and refresh tokens on
/// purpose, which the token endpoint warns about.
fn log_filter() -> [(&'static str, String); 1] {
    [("RUST_LOG", "warn,scanid_core::usecase::token=error".into())]
}

/// A loopback port free now, for a server that must keep its issuer across restarts.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `PRAGMA integrity_check` and the journal mode of the data dir's database, opened the way
/// any SQLite client opens it (a crashed writer's WAL is replayed, never repaired).
fn integrity(dir: &std::path::Path) -> (String, String) {
    let c = rusqlite::Connection::open(dir.join("scanid.db")).unwrap();
    let check: String = c
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    let mode: String = c
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    (check, mode)
}

#[test]
fn sigkill_under_load_loses_no_acknowledged_success() {
    let started = Instant::now();
    let seed = load::seed("sigkill_under_load_loses_no_acknowledged_success");
    let mut rng = Rng::new(seed);
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
    let addr = format!("127.0.0.1:{}", free_port());
    let mut s = TestServer::start_with(dir.path(), &addr, &FLAGS, &log_filter());
    let svc = Service {
        issuer: s.issuer.clone(),
        client_id: "shop".into(),
        secret,
        mode: Mode::Crash,
    };
    let apps: Vec<TestApp> = (0..3)
        .map(|i| TestApp::enroll(&s, &format!("crash-{i}")))
        .collect();
    let mut model = Model::default();
    let mut checks = 0;
    for round in 1..=ROUNDS {
        let kill_after =
            Duration::from_millis(KILL_AFTER_MS.0 + rng.below(KILL_AFTER_MS.1 - KILL_AFTER_MS.0));
        let before = model.stats.clone();
        let alive =
            load::work_in_parallel(&svc, &apps, &mut model, &mut rng, WORKERS, None, || {
                std::thread::sleep(kill_after);
                let status = s.kill();
                assert!(!status.success(), "killed: {status:?}");
            });
        assert!(
            alive.iter().all(|a| !a),
            "the load stops when the server dies"
        );
        let [steps, exchanges, refreshes] = model.uncertain();

        // The file needs no repair: SQLite replays the WAL on open.
        let (check, mode) = integrity(dir.path());
        assert_eq!(check, "ok", "round {round}: integrity_check");
        assert_eq!(mode, "wal");

        s = TestServer::start_with(dir.path(), &addr, &FLAGS, &log_filter());
        assert_eq!(s.issuer, svc.issuer, "the issuer survives the restart");
        assert_eq!(get(&s.url(DISCOVERY)).status, 200);
        load::settle(&svc, &apps, &mut model);
        load::verify(&svc, &model);
        checks += load::sacrifice(&svc, &mut model, &mut rng);
        let st = &model.stats;
        eprintln!(
            "round {round}: killed after {} ms, unanswered: {steps} login steps, \
             {exchanges} code exchanges, {refreshes} refreshes; acknowledged since the last \
             kill: {} logins, {} code exchanges, {} refreshes; {} families live",
            kill_after.as_millis(),
            st.logins - before.logins,
            st.exchanges - before.exchanges,
            st.refreshes - before.refreshes,
            model.families.len()
        );
    }
    let st = model.stats.clone();
    assert!(
        st.logins > 0 && st.exchanges > 0 && st.refreshes > 0,
        "the load did each thing: {st:?}"
    );
    assert!(checks >= ROUNDS, "destructive checks ran ({checks})");
    // Every redeemed code stays spent, every replaced refresh token is refused.
    let families = model.families.len();
    assert_eq!(load::sacrifice_all(&svc, &mut model), families);
    // A last clean stop: the store closes as it should after all this.
    assert!(s.stop().success());
    assert_eq!(integrity(dir.path()).0, "ok");
    eprintln!(
        "{ROUNDS} kills in {} ms: {st:?}",
        started.elapsed().as_millis()
    );
}
