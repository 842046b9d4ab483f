//! How long the CIBA endpoint takes for a hint that names a person and for one that names
//! nobody, against the real `scanid serve` (security-overview.md, "No directory oracle"): 200
//! requests each, interleaved after a warm-up, medians and 90th percentiles printed. A
//! measurement, not a check (timings on a shared machine are noise-prone): run it with
//! `cargo test -p scanid-tests --test it ciba_timing -- --ignored --nocapture`. The store
//! work of the two paths is held equal by a test that counts it
//! (`scanid-core` `a_known_and_an_unknown_hint_cost_the_same_store_work`).

use std::time::{Duration, Instant};

use scanid_tests::{create_client, secret_of, TestApp, TestServer};

use crate::ciba::{start, CLIENT_FLAGS};

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

#[test]
#[ignore = "a measurement: run with --ignored --nocapture"]
fn ciba_timing_of_a_known_and_an_unknown_hint() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap().to_owned();
    let secret = secret_of(&create_client(&data, CLIENT_FLAGS));
    let s = TestServer::start(
        dir.path(),
        &[
            "--ciba-requests-per-person-per-hour",
            "100000",
            "--ciba-requests-per-client-per-hour",
            "100000",
        ],
    );
    TestApp::enroll(&s, "timing-alice");
    let client = ("desk", secret.as_str());
    let ask = |hint: &str| {
        let t = Instant::now();
        let r = start(&s, client, &[("scope", "openid"), ("login_hint", hint)]);
        let took = t.elapsed();
        assert_eq!(r.status, 200, "{}", r.text());
        took
    };
    for _ in 0..20 {
        ask("timing-alice");
        ask("timing-nobody");
    }
    let (mut known, mut unknown) = (Vec::new(), Vec::new());
    for i in 0..200 {
        // Alternate which goes first, so neither always follows the other.
        if i % 2 == 0 {
            known.push(ask("timing-alice"));
            unknown.push(ask("timing-nobody"));
        } else {
            unknown.push(ask("timing-nobody"));
            known.push(ask("timing-alice"));
        }
    }
    known.sort();
    unknown.sort();
    println!(
        "CIBA timing, {} requests each: known median {:.3} ms p90 {:.3} ms; unknown median {:.3} ms p90 {:.3} ms",
        known.len(),
        percentile(&known, 0.5),
        percentile(&known, 0.9),
        percentile(&unknown, 0.5),
        percentile(&unknown, 0.9),
    );
}
