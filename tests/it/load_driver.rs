//! The load driver behind `infra/bench/run.sh` and `infra/soak.sh`
//! (`tests/src/bin/scanid_load.rs`): the codes it seeds redeem once, and its whole QR logins
//! and its mixed load run against `scanid serve` without a failed request.

use std::process::{Command, Output};

use scanid_tests::{create_client, exchange_code, redeem, secret_of, TestServer, CB};

fn load(args: &[&str], env: &[(&str, String)]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_scanid-load"))
        .args(args)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "scanid-load {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn lines(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn seeded_codes_redeem_once_and_logins_and_the_mix_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let secret = secret_of(&create_client(
        data,
        &[
            "--name",
            "Load",
            "--client-id",
            "load",
            "--redirect-uri",
            CB,
        ],
    ));
    let unlimited: Vec<(&str, String)> = [
        "SCANID_LOGIN_RATE_PER_MINUTE",
        "SCANID_DECISION_RATE_PER_MINUTE",
        "SCANID_SIGNUP_RATE_PER_HOUR",
    ]
    .into_iter()
    .map(|k| (k, "1000000".to_owned()))
    .collect();
    let s = TestServer::start_with(dir.path(), "127.0.0.1:0", &[], &unlimited);

    let mut env = unlimited.clone();
    env.push(("SCANID_DATA_DIR", data.to_owned()));
    env.push(("SCANID_PUBLIC_URL", s.base.clone()));
    let seeded = load(&["seed", "--client-id", "load", "--count", "5"], &env);
    let codes: Vec<String> = String::from_utf8_lossy(&seeded.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(codes.len(), 5);
    for code in &codes {
        let tokens = redeem(&s, ("load", &secret), code);
        assert!(tokens["refresh_token"].is_string(), "{tokens}");
        assert!(tokens["id_token"].is_string(), "{tokens}");
    }
    assert_eq!(exchange_code(&s, ("load", &secret), &codes[0]).status, 400);

    let target = [
        "--issuer",
        s.issuer.as_str(),
        "--client-id",
        "load",
        &format!("--secret={secret}"),
        "--apps",
        "2",
    ];
    // As `infra/bench/run.sh` runs it: on one thread, with the server's CPU time per login.
    let pid = s.pid().unwrap().to_string();
    let logins = lines(&load(
        &[
            &[
                "--threads",
                "1",
                "logins",
                "--secs",
                "1",
                "--concurrency",
                "2",
            ][..],
            &["--pid", pid.as_str()][..],
            &target[..],
        ]
        .concat(),
        &[],
    ));
    assert!(logins[0]["logins"].as_u64().unwrap() > 0, "{}", logins[0]);
    assert_eq!(logins[0]["errors"], 0, "{}", logins[0]);
    // A whole login costs the server and the driver some CPU, and neither a second of it.
    for who in ["server_cpu_ms_per_login", "driver_cpu_ms_per_login"] {
        let ms = logins[0][who].as_f64().unwrap_or(-1.0);
        assert!(ms > 0.0 && ms < 1000.0, "{who}: {}", logins[0]);
    }
    let mixed = lines(&load(
        &[
            &[
                "mixed",
                "--secs",
                "2",
                "--interval",
                "1",
                "--rate",
                "30",
                "--pid",
                &pid,
                "--data-dir",
                data,
            ],
            &target[..],
        ]
        .concat(),
        &[],
    ));
    assert!(mixed.len() >= 2, "{mixed:?}");
    for row in &mixed {
        assert_eq!(row["errors"], 0, "{row}");
        assert!(row["rss_mb"].as_f64().unwrap() > 1.0, "{row}");
        assert!(row["data_mb"].as_f64().unwrap() > 0.0, "{row}");
    }
    assert!(mixed
        .iter()
        .any(|r| r["requests_per_sec"].as_f64().unwrap() > 0.0));
}
