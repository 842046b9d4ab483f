//! The record primitive every adapter implements: reads, conditions, single use, transactions, listings and eventual reads.

use super::*;

pub async fn get_put_absent<B: Backend>(s: Arc<B>) {
    let k = id("a");
    assert_eq!(s.get(&Key::new(Kind::Test, &k), T0).await.unwrap(), None);
    s.put(rec(&k, 1, None), Cond::Absent, T0).await.unwrap();
    let err = s.put(rec(&k, 2, None), Cond::Absent, T0).await.unwrap_err();
    assert!(matches!(err, StoreError::ConditionFailed));
    let got = s.get(&Key::new(Kind::Test, &k), T0).await.unwrap().unwrap();
    assert_eq!(got, rec(&k, 1, None));
    s.put(rec(&k, 3, None), Cond::Any, T0).await.unwrap();
    let got = s.get(&Key::new(Kind::Test, &k), T0).await.unwrap().unwrap();
    assert_eq!(got.value::<serde_json::Value>().unwrap()["n"], 3);
}

pub async fn expiry_is_checked_on_every_read<B: Backend>(s: Arc<B>) {
    let k = id("exp");
    let key = Key::new(Kind::Test, &k);
    let exp = T0.secs() + 60;
    s.put(rec(&k, 1, Some(exp)), Cond::Absent, T0)
        .await
        .unwrap();
    let later = T0.plus_secs(59);
    assert!(s.get(&key, later).await.unwrap().is_some());
    let dead = T0.plus_secs(60);
    assert_eq!(
        s.get(&key, dead).await.unwrap(),
        None,
        "expired at exactly exp"
    );
    assert_eq!(
        s.consume(&key, dead).await.unwrap(),
        None,
        "an expired record cannot be consumed"
    );
    assert!(
        matches!(
            s.put(rec(&k, 2, None), Cond::Version(1), dead).await,
            Err(StoreError::ConditionFailed)
        ),
        "an expired record cannot be updated"
    );
    assert!(!s
        .list(Kind::Test, dead)
        .await
        .unwrap()
        .iter()
        .any(|r| r.key.id == k));
    // An expired record counts as absent for creation.
    s.put(rec(&k, 3, None), Cond::Absent, dead).await.unwrap();
    assert!(s
        .get(&key, dead.plus_secs(1_000_000))
        .await
        .unwrap()
        .is_some());
}

pub async fn version_conditions<B: Backend>(s: Arc<B>) {
    let k = id("v");
    let first = rec(&k, 1, None);
    s.put(first.clone(), Cond::Absent, T0).await.unwrap();
    let second = first.next(&serde_json::json!({ "n": 2 })).unwrap();
    assert_eq!(second.version, 2);
    s.put(second.clone(), Cond::Version(1), T0).await.unwrap();
    let stale = first.next(&serde_json::json!({ "n": 99 })).unwrap();
    assert!(matches!(
        s.put(stale, Cond::Version(1), T0).await,
        Err(StoreError::ConditionFailed)
    ));
    assert_eq!(s.get(&first.key, T0).await.unwrap(), Some(second));
    let missing = rec(&id("missing"), 1, None);
    assert!(matches!(
        s.put(missing, Cond::Version(1), T0).await,
        Err(StoreError::ConditionFailed)
    ));
}

pub async fn consume_is_single_use<B: Backend>(s: Arc<B>) {
    let k = id("c");
    let r = rec(&k, 7, Some(T0.secs() + 60));
    s.put(r.clone(), Cond::Absent, T0).await.unwrap();
    assert_eq!(s.consume(&r.key, T0).await.unwrap(), Some(r.clone()));
    assert_eq!(s.consume(&r.key, T0).await.unwrap(), None);
    assert_eq!(s.get(&r.key, T0).await.unwrap(), None);
}

pub async fn concurrent_consume_has_one_winner<B: Backend + 'static>(s: Arc<B>) {
    let k = id("race");
    let r = rec(&k, 1, Some(T0.secs() + 60));
    s.put(r.clone(), Cond::Absent, T0).await.unwrap();
    let mut tasks = Vec::new();
    for _ in 0..20 {
        let s = s.clone();
        let key = r.key.clone();
        tasks.push(tokio::spawn(async move { s.consume(&key, T0).await }));
    }
    let mut winners = 0;
    for t in tasks {
        if t.await.unwrap().unwrap().is_some() {
            winners += 1;
        }
    }
    assert_eq!(winners, 1, "exactly one of 20 concurrent consumers wins");
}

pub async fn concurrent_updates_have_one_winner<B: Backend + 'static>(s: Arc<B>) {
    let k = id("cas");
    let r = rec(&k, 0, None);
    s.put(r.clone(), Cond::Absent, T0).await.unwrap();
    let mut tasks = Vec::new();
    for i in 0..20 {
        let s = s.clone();
        let next = r.next(&serde_json::json!({ "n": i })).unwrap();
        tasks.push(tokio::spawn(async move {
            s.put(next, Cond::Version(1), T0).await
        }));
    }
    let mut winners = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(()) => winners += 1,
            Err(StoreError::ConditionFailed) => {}
            Err(e) => panic!("unexpected {e}"),
        }
    }
    assert_eq!(winners, 1);
    assert_eq!(s.get(&r.key, T0).await.unwrap().unwrap().version, 2);
}

pub async fn transactions_are_all_or_nothing<B: Backend>(s: Arc<B>) {
    let (a, b, c) = (id("ta"), id("tb"), id("tc"));
    s.put(rec(&b, 1, None), Cond::Absent, T0).await.unwrap();
    // The second write's condition fails: the first must not be applied.
    let err = s
        .transact(
            vec![
                Write::Put(rec(&a, 1, None), Cond::Absent),
                Write::Put(rec(&b, 2, None), Cond::Absent),
            ],
            T0,
        )
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::ConditionFailed));
    assert_eq!(s.get(&Key::new(Kind::Test, &a), T0).await.unwrap(), None);
    // A failing check aborts too.
    let err = s
        .transact(
            vec![
                Write::Put(rec(&a, 1, None), Cond::Absent),
                Write::Check(Key::new(Kind::Test, &c), Cond::Version(1)),
            ],
            T0,
        )
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::ConditionFailed));
    assert_eq!(s.get(&Key::new(Kind::Test, &a), T0).await.unwrap(), None);
    // All conditions hold: everything is applied.
    s.transact(
        vec![
            Write::Put(rec(&a, 1, None), Cond::Absent),
            Write::Delete(Key::new(Kind::Test, &b), Cond::Version(1)),
            Write::Check(Key::new(Kind::Test, &c), Cond::Absent),
        ],
        T0,
    )
    .await
    .unwrap();
    assert!(s
        .get(&Key::new(Kind::Test, &a), T0)
        .await
        .unwrap()
        .is_some());
    assert_eq!(s.get(&Key::new(Kind::Test, &b), T0).await.unwrap(), None);
}

pub async fn conditional_delete<B: Backend>(s: Arc<B>) {
    let k = id("d");
    let key = Key::new(Kind::Test, &k);
    s.put(rec(&k, 1, None), Cond::Absent, T0).await.unwrap();
    assert!(matches!(
        s.delete(&key, Cond::Version(5), T0).await,
        Err(StoreError::ConditionFailed)
    ));
    s.delete(&key, Cond::Version(1), T0).await.unwrap();
    assert_eq!(s.get(&key, T0).await.unwrap(), None);
    s.delete(&key, Cond::Any, T0).await.unwrap();
}

pub async fn list_by_kind<B: Backend>(s: Arc<B>) {
    let k = id("l");
    s.put(rec(&k, 1, None), Cond::Absent, T0).await.unwrap();
    let listed = s.list(Kind::Test, T0).await.unwrap();
    let mine = listed.iter().find(|r| r.key.id == k).unwrap();
    assert_eq!(mine.key.kind, Kind::Test);
    assert_eq!(mine.value::<serde_json::Value>().unwrap()["n"], 1);
    assert!(s
        .list(Kind::Client, T0)
        .await
        .unwrap()
        .iter()
        .all(|r| r.key.kind == Kind::Client));
}

/// Many transactions at once (an adapter may commit them together): each whose condition fails
/// leaves nothing behind, and every other one is applied whole.
pub async fn concurrent_transactions_fail_alone<B: Backend + 'static>(s: Arc<B>) {
    let taken = id("taken");
    s.put(rec(&taken, 1, None), Cond::Absent, T0).await.unwrap();
    let ids: Vec<(String, String)> = (0..40)
        .map(|i| (id(&format!("x{i}")), id(&format!("y{i}"))))
        .collect();
    let mut tasks = tokio::task::JoinSet::new();
    for (i, (x, y)) in ids.iter().cloned().enumerate() {
        let (s, taken) = (s.clone(), taken.clone());
        tasks.spawn(async move {
            // Every third one writes x, then fails on `taken`.
            let second = if i % 3 == 0 { taken } else { y };
            let r = s
                .transact(
                    vec![
                        Write::Put(rec(&x, 1, None), Cond::Absent),
                        Write::Put(rec(&second, 1, None), Cond::Absent),
                    ],
                    T0,
                )
                .await;
            (i, r)
        });
    }
    while let Some(joined) = tasks.join_next().await {
        let (i, r) = joined.unwrap();
        if i % 3 == 0 {
            assert!(matches!(r, Err(StoreError::ConditionFailed)), "{i}: {r:?}");
        } else {
            r.unwrap();
        }
    }
    for (i, (x, y)) in ids.iter().enumerate() {
        let got = |k: &str| {
            let s = s.clone();
            let key = Key::new(Kind::Test, k);
            async move { s.get(&key, T0).await.unwrap().is_some() }
        };
        assert_eq!(got(x).await, i % 3 != 0, "{i}: x");
        assert_eq!(got(y).await, i % 3 != 0, "{i}: y");
    }
}

/// [`Backend::get_eventual`] and the [`crate::store::Eventual`] view: a written record reads back
/// (DynamoDB may take a moment to show a write to an eventually consistent read; the emulator
/// and the embedded store show it at once), an expired one does not, and writes through the
/// view are conditional as ever.
pub async fn eventual_reads_check_expiry_and_write_through<B: Backend + 'static>(s: Arc<B>) {
    let k = id("eventual");
    let key = Key::new(Kind::Test, &k);
    assert_eq!(s.get_eventual(&key, T0).await.unwrap(), None);
    s.put(rec(&k, 1, Some(T0.secs() + 10)), Cond::Absent, T0)
        .await
        .unwrap();
    let got = s.get_eventual(&key, T0).await.unwrap().unwrap();
    assert_eq!(got, rec(&k, 1, Some(T0.secs() + 10)));
    let late = T0.plus_secs(10);
    assert_eq!(s.get_eventual(&key, late).await.unwrap(), None, "expired");
    let view = crate::store::Eventual(s.as_ref());
    assert_eq!(view.get(&key, T0).await.unwrap(), Some(got.clone()));
    let err = view
        .put(rec(&k, 2, None), Cond::Absent, T0)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::ConditionFailed));
    view.put(
        got.next(&serde_json::json!({ "n": 2 })).unwrap(),
        Cond::Version(got.version),
        T0,
    )
    .await
    .unwrap();
    let err = view
        .put(rec(&k, 3, None), Cond::Version(got.version), T0)
        .await
        .unwrap_err();
    assert!(
        matches!(err, StoreError::ConditionFailed),
        "a stale version loses"
    );
    assert_eq!(
        s.get(&key, T0)
            .await
            .unwrap()
            .unwrap()
            .value::<serde_json::Value>()
            .unwrap()["n"],
        2
    );
    // A QR login read through the view has its id (the record's key) as a consistent read does.
    use crate::domain::authorize::AuthorizationRequest;
    use crate::domain::login::QrLogin;
    use crate::store::QrLogins;
    let request = AuthorizationRequest {
        client_id: ClientId::new("shop"),
        ..super::qr_logins::rp_request()
    };
    let rng = crate::random::SystemRandom::default();
    let login = QrLogin::new(
        300,
        request,
        "browser",
        "127.0.0.1".into(),
        "ua".into(),
        T0,
        &rng,
    );
    s.create_qr_login(&login, T0).await.unwrap();
    let eventual = view.qr_login(&login.id, T0).await.unwrap().unwrap();
    assert_eq!(eventual.value, login);
    let consistent = s.qr_login(&login.id, T0).await.unwrap().unwrap();
    assert_eq!(
        (eventual.value, eventual.record),
        (consistent.value, consistent.record)
    );
}
