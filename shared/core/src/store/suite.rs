// Test support (the `test-support` feature): the suite's functions and the doubles' fields
// are named for what they hold; the module documents them, not each item.
#![allow(missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The adapter test suite: every storage adapter must pass it (STYLE.md practice 3).
//!
//! An adapter's test module invokes [`adapter_suite!`](crate::adapter_suite) with an async
//! factory returning `(store, guard)`; the guard lives as long as the test (a temp dir, a table).

use std::sync::Arc;

use super::{
    Backend, ClientStore, Cond, Counters, InitialAccessTokens, Key, Kind, Record, StoreError, Write,
};
use crate::clock::Timestamp;
use crate::domain::client::{Client, ClientType};
use crate::protocol::GrantType;
use crate::protocol::{ClientId, RedirectUri, Scopes, SessionId, Subject};

/// Generates one `#[tokio::test]` per suite function for an adapter.
#[macro_export]
macro_rules! adapter_suite {
    ($factory:expr) => {
        mod adapter_suite {
            #[allow(unused_imports)]
            use super::*;
            $crate::adapter_suite!(@tests $factory;
                get_put_absent, expiry_is_checked_on_every_read, version_conditions,
                consume_is_single_use, concurrent_consume_has_one_winner,
                concurrent_updates_have_one_winner, transactions_are_all_or_nothing,
                conditional_delete, list_by_kind, client_store_round_trip, counters_are_atomic_and_expire,
                rate_limit_counters_count_per_window,
                identity_uniqueness_is_enforced, concurrent_signups_claiming_one_service_id_have_one_winner,
                identity_deletion_frees_the_name_and_keeps_the_service_id,
                a_deleted_identity_name_is_held_until_its_quarantine_ends,
                concurrent_transactions_fail_alone, a_redeemed_code_points_to_its_grant,
                a_code_is_redeemed_as_its_grant_and_first_refresh_token,
                a_refresh_family_rotates_in_its_grants_record,
                a_code_exchange_whose_answer_was_lost_is_its_own_on_retry,
                grants_and_refresh_tokens_of_the_previous_shape_are_honoured,
                initial_access_tokens_are_spent_once_per_use_and_expire,
                a_self_registered_client_keeps_its_registration,
                device_authorizations_are_found_by_user_code_and_expire,
                a_device_code_is_redeemed_once,
                an_identity_keeps_the_places_it_approved_logins_from,
                a_reported_login_is_marked_with_its_jti_spent,
                a_session_s_grants_are_revoked_until_the_marker_expires,
                a_scanned_qr_login_keeps_its_number_scanner_and_cancellation,
                eventual_reads_check_expiry_and_write_through,
                webauthn_challenges_are_spent_once_and_expire,
                passkeys_are_found_by_credential_and_by_identity,
                a_passkey_use_is_one_conditional_write,
                the_last_key_is_never_removed,
                a_spend_that_loses_leaves_nothing_behind);
        }
    };
    (@tests $factory:expr; $($name:ident),*) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $name() {
                let (store, _guard) = $factory.await;
                $crate::store::suite::$name(std::sync::Arc::new(store)).await;
            }
        )*
    };
}

const T0: Timestamp = Timestamp::from_secs(1_800_000_000);

fn rec(id: &str, n: i64, expires_at: Option<i64>) -> Record {
    Record::new(
        Key::new(Kind::Test, id),
        &serde_json::json!({ "n": n }),
        expires_at,
    )
    .unwrap()
}

/// Ids unique per run, so suites may share one DynamoDB table.
fn id(name: &str) -> String {
    format!("{name}-{}", uuid::Uuid::new_v4())
}

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

pub async fn client_store_round_trip<B: Backend>(s: Arc<B>) {
    let client = Client {
        client_id: ClientId::new(id("client")),
        name: "Suite <App>".into(),
        client_type: ClientType::Confidential,
        secret_hash: Some("hash".into()),
        redirect_uris: vec![RedirectUri::new("https://rp.example/cb")],
        post_logout_redirect_uris: vec![],
        grant_types: vec![GrantType::AuthorizationCode, GrantType::RefreshToken],
        created_at: T0,
        token_alg: None,
        resource_server: false,
        web_origins: vec!["+".into()],
        backchannel_logout_uri: Some("https://rp.example/bcl".into()),
        registration: None,
        refuse_on: vec![],
        require_acr: None,
    };
    s.create_client(&client, T0).await.unwrap();
    assert!(matches!(
        s.create_client(&client, T0).await,
        Err(StoreError::ConditionFailed)
    ));
    let (got, version) = s.client(&client.client_id, T0).await.unwrap().unwrap();
    assert_eq!(got, client);
    let mut rotated = got.clone();
    rotated.secret_hash = Some("other".into());
    s.update_client(&rotated, version, T0).await.unwrap();
    assert!(matches!(
        s.update_client(&rotated, version, T0).await,
        Err(StoreError::ConditionFailed)
    ));
    assert!(s.clients(T0).await.unwrap().iter().any(|c| c == &rotated));
    assert!(s.delete_client(&client.client_id, T0).await.unwrap());
    assert!(!s.delete_client(&client.client_id, T0).await.unwrap());
    assert_eq!(s.client(&client.client_id, T0).await.unwrap(), None);
    // Deleting at a version: only the version read, once.
    s.create_client(&client, T0).await.unwrap();
    let (_, read) = s.client(&client.client_id, T0).await.unwrap().unwrap();
    s.update_client(&rotated, read, T0).await.unwrap();
    assert!(matches!(
        s.delete_client_at(&client.client_id, read, T0).await,
        Err(StoreError::ConditionFailed)
    ));
    s.delete_client_at(&client.client_id, read + 1, T0)
        .await
        .unwrap();
    assert_eq!(s.client(&client.client_id, T0).await.unwrap(), None);
    assert!(matches!(
        s.delete_client_at(&client.client_id, read + 1, T0).await,
        Err(StoreError::ConditionFailed)
    ));
}

pub async fn counters_are_atomic_and_expire<B: Backend + 'static>(s: Arc<B>) {
    let key = Key::new(Kind::Rate, id("ctr"));
    let exp = T0.secs() + 60;
    let mut tasks = Vec::new();
    for _ in 0..20 {
        let s = s.clone();
        let key = key.clone();
        tasks.push(tokio::spawn(
            async move { s.incr(&key, exp, T0).await.unwrap() },
        ));
    }
    let mut seen: Vec<u64> = Vec::new();
    for t in tasks {
        seen.push(t.await.unwrap());
    }
    seen.sort_unstable();
    assert_eq!(
        seen,
        (1..=20).collect::<Vec<u64>>(),
        "every increment counted once"
    );
    // After expiry the window starts again.
    assert_eq!(s.incr(&key, exp + 60, T0.plus_secs(60)).await.unwrap(), 1);
    assert_eq!(s.incr(&key, exp + 999, T0.plus_secs(61)).await.unwrap(), 2);
    assert_eq!(
        s.incr(&key, exp + 999, T0.plus_secs(120)).await.unwrap(),
        1,
        "the first window's expiry holds"
    );
}

/// The rate-limit capability (`Counters::count_event`) on a limit's windows: each event
/// counted once, each window and source its own counter, a spent window forgotten when it
/// expires.
pub async fn rate_limit_counters_count_per_window<B: Backend + 'static>(s: Arc<B>) {
    use crate::domain::ratelimit::{Counted, Limit};
    let limits = crate::config::Limits {
        logins_per_minute: 30,
        decisions_per_minute: 20,
        auth_failures_per_minute: 5,
        signups_per_hour: 5,
        name_lookups_per_minute: 60,
        photo_uploads_per_hour: 20,
        registrations_per_hour: 10,
        user_codes_per_minute: 10,
    };
    let (max, _) = Limit::ClientAuthFailure.budget(&limits);
    let who = id("source");
    let count = |who: String, now: Timestamp| {
        let s = s.clone();
        async move {
            let w = Limit::ClientAuthFailure.window(&limits, &who, now);
            let n = s.count_event(&w.counter, w.expires_at, now).await.unwrap();
            (n, w.decide(n, now))
        }
    };
    let mut tasks = Vec::new();
    for _ in 0..max + 2 {
        tasks.push(tokio::spawn(count(who.clone(), T0)));
    }
    let mut seen = Vec::new();
    for t in tasks {
        seen.push(t.await.unwrap());
    }
    seen.sort_unstable_by_key(|(n, _)| *n);
    let allowed = seen.iter().filter(|(_, c)| *c == Counted::Allowed).count();
    assert_eq!(
        allowed as u64, max,
        "exactly the budget is allowed: {seen:?}"
    );
    assert_eq!(
        seen.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        (1..=max + 2).collect::<Vec<_>>()
    );
    // Another source has its own budget.
    assert_eq!(count(id("other"), T0).await, (1, Counted::Allowed));
    // The next window starts again at one.
    let next = T0.plus_secs(60);
    assert_eq!(count(who.clone(), next).await, (1, Counted::Allowed));
    // Once the spent window expires, its counter is gone (it would start at one again).
    let w = Limit::ClientAuthFailure.window(&limits, &who, T0);
    let after = Timestamp::from_secs(w.expires_at);
    assert_eq!(
        s.count_event(&w.counter, w.expires_at + 120, after)
            .await
            .unwrap(),
        1,
        "an expired window is forgotten"
    );
}

fn identity(name: &str, service_id: &str) -> crate::domain::identity::Identity {
    crate::domain::identity::Identity {
        sub: Subject::new(uuid::Uuid::new_v4().to_string()),
        service_id: service_id.to_owned(),
        name: name.to_owned(),
        display_name: "Suite".into(),
        profile_photo: None,
        created_at: T0,
        updated_at: None,
        public_key: "pk".into(),
        country_code: "SE".into(),
        kind: crate::domain::identity::IdentityType::User,
        groups: vec![],
        disabled: false,
        tokens_not_before: None,
        device_key_retired: false,
    }
}

fn short(prefix: &str) -> String {
    let mut s = id(prefix).replace('-', "");
    s.truncate(30);
    s
}

pub async fn identity_uniqueness_is_enforced<B: Backend>(s: Arc<B>) {
    use super::{IdentityStore, NewIdentityError};
    let (name, sid) = (short("n"), short("s"));
    let a = identity(&name, &sid);
    s.create_identity(&a, None, T0).await.unwrap();
    let (got, _) = s.identity(&a.sub, T0).await.unwrap().unwrap();
    assert_eq!(got, a);
    assert_eq!(
        s.identity_by_service_id(&sid, T0)
            .await
            .unwrap()
            .unwrap()
            .sub,
        a.sub
    );
    assert_eq!(
        s.identity_by_name(&name, T0).await.unwrap().unwrap().sub,
        a.sub
    );
    let same_name = identity(&name, &short("s"));
    assert!(matches!(
        s.create_identity(&same_name, None, T0).await,
        Err(NewIdentityError::NameTaken)
    ));
    let same_sid = identity(&short("n"), &sid);
    assert!(matches!(
        s.create_identity(&same_sid, None, T0).await,
        Err(NewIdentityError::ServiceIdTaken)
    ));
    // A jti is accepted once.
    let jti = (format!("reg:{}", short("j")), T0.secs() + 300);
    let b = identity(&short("n"), &short("s"));
    s.create_identity(&b, Some(jti.clone()), T0).await.unwrap();
    let c = identity(&short("n"), &short("s"));
    assert!(matches!(
        s.create_identity(&c, Some(jti), T0).await,
        Err(NewIdentityError::Replay)
    ));
    assert!(
        s.identity(&c.sub, T0).await.unwrap().is_none(),
        "nothing half-written"
    );
    assert!(s.identity(&same_name.sub, T0).await.unwrap().is_none());
}

pub async fn concurrent_signups_claiming_one_service_id_have_one_winner<B: Backend + 'static>(
    s: Arc<B>,
) {
    use super::{IdentityStore, NewIdentityError};
    let sid = short("race");
    let mut tasks = Vec::new();
    for _ in 0..10 {
        let s = s.clone();
        let ident = identity(&short("n"), &sid);
        tasks.push(tokio::spawn(async move {
            s.create_identity(&ident, None, T0).await
        }));
    }
    let mut winners = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(()) => winners += 1,
            Err(NewIdentityError::ServiceIdTaken) => {}
            Err(e) => panic!("unexpected {e:?}"),
        }
    }
    assert_eq!(winners, 1);
}

pub async fn identity_deletion_frees_the_name_and_keeps_the_service_id<B: Backend>(s: Arc<B>) {
    use super::{IdentityStore, NewIdentityError, SsoSessions, Typed};
    use crate::domain::identity::LoginActivity;
    use crate::domain::login::Consent;
    let (name, sid) = (short("n"), short("s"));
    let a = identity(&name, &sid);
    s.create_identity(&a, None, T0).await.unwrap();
    // A consent for a registered client, and recent logins (newest first, bounded).
    let client = Client {
        client_id: ClientId::new(id("client")),
        name: "Suite".into(),
        client_type: ClientType::Public,
        secret_hash: None,
        redirect_uris: vec![RedirectUri::new("https://rp.example/cb")],
        post_logout_redirect_uris: vec![],
        grant_types: vec![GrantType::AuthorizationCode],
        created_at: T0,
        token_alg: None,
        resource_server: false,
        web_origins: vec![],
        backchannel_logout_uri: None,
        registration: None,
        refuse_on: vec![],
        require_acr: None,
    };
    s.create_client(&client, T0).await.unwrap();
    let consent = Consent {
        scopes: Scopes::from_stored(["openid"]),
        granted_at: T0,
        claims: vec!["name".into()],
    };
    let key = Consent::key(&a.sub, &client.client_id);
    s.create(Kind::Consent, &key, &consent, None, T0)
        .await
        .unwrap();
    assert_eq!(
        s.consent(&a.sub, &client.client_id, T0).await.unwrap(),
        Some(consent.clone()),
        "a consent reads back with the claims granted by name"
    );
    let login = |n: usize| LoginActivity {
        at: T0.plus_secs(n as i64),
        client_id: client.client_id.to_string(),
        client_name: format!("login {n}"),
        outcome: "approved".into(),
        browser_ip: "192.0.2.1".into(),
        user_agent: "suite".into(),
        location: None,
        network: None,
        place: None,
        flags: vec![],
        id: format!("id{n}"),
        method: "qr".into(),
        login_id: None,
        sid: None,
        reported_at: None,
    };
    assert!(s.recent_logins(&a.sub, T0).await.unwrap().is_empty());
    for n in 0..25 {
        s.record_login(&a.sub, login(n), T0).await.unwrap();
    }
    let recent = s.recent_logins(&a.sub, T0).await.unwrap();
    assert_eq!(recent.len(), crate::domain::identity::RECENT_LOGINS);
    assert_eq!(recent[0], login(24), "newest first");
    // A jti is spent once.
    let jti = [(short("j"), T0.secs() + 300)];
    s.spend_jtis(&a.sub, &jti, T0).await.unwrap();
    assert!(matches!(
        s.spend_jtis(&a.sub, &jti, T0).await,
        Err(StoreError::ConditionFailed)
    ));

    let (_, version) = s.identity(&a.sub, T0).await.unwrap().unwrap();
    // A stale version, or a used jti, deletes nothing.
    assert!(matches!(
        s.delete_identity(&a, version + 1, &[], None, T0).await,
        Err(StoreError::ConditionFailed)
    ));
    assert!(matches!(
        s.delete_identity(&a, version, &jti, None, T0).await,
        Err(StoreError::ConditionFailed)
    ));
    assert!(s.identity(&a.sub, T0).await.unwrap().is_some());
    let del_jti = [(short("j"), T0.secs() + 300)];
    s.forget_consents(&a.sub, T0).await.unwrap();
    s.delete_identity(&a, version, &del_jti, None, T0)
        .await
        .unwrap();
    assert!(s.identity(&a.sub, T0).await.unwrap().is_none());
    assert!(s.identity_by_name(&name, T0).await.unwrap().is_none());
    assert!(s.identity_by_service_id(&sid, T0).await.unwrap().is_none());
    assert!(s.recent_logins(&a.sub, T0).await.unwrap().is_empty());
    assert!(s
        .consent(&a.sub, &client.client_id, T0)
        .await
        .unwrap()
        .is_none());
    // The name is free again; the service_id is not.
    let again = identity(&name, &short("s"));
    s.create_identity(&again, None, T0).await.unwrap();
    assert!(matches!(
        s.create_identity(&identity(&short("n"), &sid), None, T0)
            .await,
        Err(NewIdentityError::ServiceIdTaken)
    ));
    s.delete_client(&client.client_id, T0).await.unwrap();
}

/// A deleted identity's name is held (taken, naming nobody) until the time given, then free:
/// the hold expires by itself (checked on every read; DynamoDB's TTL may lag).
/// The places an identity approved logins from are kept with its recent logins (bounded,
/// most recent first, only approvals), with the location, network and flags of each login;
/// a record written before the places were kept (a list of logins) still reads.
pub async fn an_identity_keeps_the_places_it_approved_logins_from<B: Backend>(s: Arc<B>) {
    use super::{IdentityStore, Typed};
    use crate::domain::identity::{LoginActivity, APPROVED_PLACES, RECENT_LOGINS_TTL_SECS};
    use crate::domain::risk::Flag;
    use crate::geoip::{Location, Network};
    let sub = id("sub");
    let login = |n: usize, outcome: &str, place: &str| LoginActivity {
        at: T0.plus_secs(n as i64),
        client_id: "suite".into(),
        client_name: "Suite".into(),
        outcome: outcome.into(),
        browser_ip: "198.51.100.7".into(),
        user_agent: "suite".into(),
        location: Some(Location {
            city: Some("Stockholm".into()),
            country: Some("Sweden".into()),
            country_code: Some("SE".into()),
        }),
        network: Some(Network {
            asn: 64500,
            org: Some("Example Nordic Telecom".into()),
        }),
        place: Some(place.into()),
        flags: vec![Flag::FirstFromHere],
        id: format!("id{n}"),
        method: "qr".into(),
        login_id: None,
        sid: None,
        reported_at: None,
    };
    assert_eq!(
        s.login_history(&sub, T0)
            .await
            .unwrap()
            .activity
            .places
            .len(),
        0
    );
    s.record_login(&sub, login(0, "approved", "SE/AS64500"), T0)
        .await
        .unwrap();
    s.record_login(&sub, login(1, "refused", "NG/AS64501"), T0)
        .await
        .unwrap();
    s.record_login(&sub, login(2, "denied", "NG/AS64502"), T0)
        .await
        .unwrap();
    s.record_login(&sub, login(3, "approved", "DE/AS64503"), T0)
        .await
        .unwrap();
    s.record_login(&sub, login(4, "approved", "SE/AS64500"), T0)
        .await
        .unwrap();
    let h = s.login_history(&sub, T0).await.unwrap().activity;
    assert_eq!(
        h.places,
        vec!["SE/AS64500", "DE/AS64503"],
        "approvals only, no repeats"
    );
    assert_eq!(h.logins.len(), 5);
    assert_eq!(
        h.logins[3],
        login(1, "refused", "NG/AS64501"),
        "read back whole"
    );
    assert_eq!(s.recent_logins(&sub, T0).await.unwrap(), h.logins);
    for n in 0..APPROVED_PLACES + 4 {
        s.record_login(
            &sub,
            login(10 + n, "approved", &format!("{n}.0.0.0/24")),
            T0,
        )
        .await
        .unwrap();
    }
    let h = s.login_history(&sub, T0).await.unwrap().activity;
    assert_eq!(h.places.len(), APPROVED_PLACES, "bounded");
    assert_eq!(h.places[0], format!("{}.0.0.0/24", APPROVED_PLACES + 3));
    assert!(
        !h.places.contains(&"SE/AS64500".to_owned()),
        "the oldest go"
    );
    // A login added on the history as read: one conditional write; on a history that
    // changed meanwhile it is added all the same, nothing lost.
    let read = s.login_history(&sub, T0).await.unwrap();
    s.record_login_after(&sub, login(40, "approved", "FI/AS1"), &read, T0)
        .await
        .unwrap();
    s.record_login_after(&sub, login(41, "denied", "FI/AS1"), &read, T0)
        .await
        .unwrap();
    let h = s.login_history(&sub, T0).await.unwrap().activity;
    assert_eq!(h.logins[0], login(41, "denied", "FI/AS1"));
    assert_eq!(h.logins[1], login(40, "approved", "FI/AS1"));
    assert_eq!(h.places[0], "FI/AS1");
    let fresh = id("sub");
    let none = s.login_history(&fresh, T0).await.unwrap();
    s.record_login_after(&fresh, login(1, "approved", "SE/AS64500"), &none, T0)
        .await
        .unwrap();
    s.record_login_after(&fresh, login(2, "approved", "NO/AS2"), &none, T0)
        .await
        .unwrap();
    let h = s.login_history(&fresh, T0).await.unwrap().activity;
    assert_eq!(h.places, vec!["NO/AS2", "SE/AS64500"]);
    // Expiry is checked on read: the whole history goes with its record.
    let later = T0.plus_secs(RECENT_LOGINS_TTL_SECS + 1);
    assert_eq!(
        s.login_history(&sub, later)
            .await
            .unwrap()
            .activity
            .places
            .len(),
        0
    );

    // A record as written before the places were kept: a list of logins.
    let before = id("sub");
    let legacy = serde_json::json!([{
        "at": T0, "client_id": "suite", "client_name": "Suite", "outcome": "approved",
        "browser_ip": "192.0.2.1", "user_agent": "suite",
    }]);
    s.create(
        Kind::IdentityActivity,
        &before,
        &legacy,
        Some(T0.secs() + 60),
        T0,
    )
    .await
    .unwrap();
    let h = s.login_history(&before, T0).await.unwrap().activity;
    assert_eq!((h.logins.len(), h.places.len()), (1, 0));
    s.record_login(&before, login(5, "approved", "SE/AS64500"), T0)
        .await
        .unwrap();
    let h = s.login_history(&before, T0).await.unwrap().activity;
    assert_eq!(
        (h.logins.len(), h.places.as_slice()),
        (2, &["SE/AS64500".to_owned()][..])
    );
}

pub async fn a_deleted_identity_name_is_held_until_its_quarantine_ends<B: Backend>(s: Arc<B>) {
    use super::{IdentityStore, NewIdentityError};
    let (name, sid) = (short("n"), short("s"));
    let a = identity(&name, &sid);
    s.create_identity(&a, None, T0).await.unwrap();
    let (_, version) = s.identity(&a.sub, T0).await.unwrap().unwrap();
    let until = T0.secs() + 100;
    s.delete_identity(&a, version, &[], Some(until), T0)
        .await
        .unwrap();
    assert!(s.identity_by_name(&name, T0).await.unwrap().is_none());
    assert!(s.name_taken(&name, T0).await.unwrap(), "held");
    let again = identity(&name, &short("s"));
    assert!(matches!(
        s.create_identity(&again, None, T0).await,
        Err(NewIdentityError::NameTaken)
    ));
    let later = Timestamp::from_secs(until - 1);
    assert!(s.name_taken(&name, later).await.unwrap(), "still held");
    let free = Timestamp::from_secs(until);
    assert!(!s.name_taken(&name, free).await.unwrap(), "free at the end");
    s.create_identity(&again, None, free).await.unwrap();
    assert_eq!(
        s.identity_by_name(&name, free).await.unwrap().unwrap().sub,
        again.sub
    );
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

/// Redeeming spends a code and leaves, under its hash, the grant it became (so a replay can
/// revoke it); a second redemption loses. A marker of kind `code_used` (older releases wrote
/// one) is still read.
pub async fn a_redeemed_code_points_to_its_grant<B: Backend + 'static>(s: Arc<B>) {
    use super::flows::{Codes, Outcome};
    use crate::domain::grant::{Grant, GrantKind};
    use crate::domain::login::AuthCode;

    let hash = crate::protocol::CodeHash::new(id("code"));
    let code = AuthCode {
        client_id: ClientId::new("shop"),
        redirect_uri: RedirectUri::new("https://shop.example/cb"),
        scopes: Scopes::from_stored(["openid"]),
        nonce: None,
        // What the `claims` parameter asked for travels with the code and the grant.
        claims: crate::domain::claims_request::parse(
            r#"{"userinfo":{"name":{"essential":true}},"id_token":{"address":null,"acr":{"essential":true,"values":["2"]}}}"#,
        )
        .unwrap(),
        code_challenge: None,
        // RFC 8707: the granted resources travel with the code and the grant.
        resources: vec!["https://api.example/".into(), "urn:example:mcp".into()],
        sub: Subject::new("sub-1"),
        sid: SessionId::new("sid-1"),
        auth_time: T0,
        issued_at: T0,
        method: crate::domain::authn::Method::PasskeySignIn,
    };
    let exp = T0.secs() + 60;
    let pending = store_pending_code(s.as_ref(), &hash, &code).await;
    assert_eq!(pending.code, code);
    assert_eq!(s.redeemed_as(&hash, T0).await.unwrap(), None);
    let grant = Grant {
        id: pending.grant_id(),
        kind: GrantKind::AuthorizationCode,
        client_id: ClientId::new("shop"),
        sub: Subject::new("sub-1"),
        sid: Some(SessionId::new("sid-1")),
        scopes: Scopes::from_stored(["openid"]),
        auth_time: T0,
        nonce: None,
        claims: code.claims.clone(),
        created_at: T0,
        offline: false,
        generation: 1,
        rotated_at: T0,
        revoked: false,
        alg: crate::keys::Alg::ES256,
        resources: code.resources.clone(),
        method: crate::domain::authn::Method::PasskeyUv,
    };
    let later = T0.secs() + 1800;
    // Two redemptions of the code, each with a refresh token and a nonce of its own: only the
    // code's version can make one of them lose, and the one that won is what was stored.
    let redeem = |rt: String, nonce: &str| {
        let (s, pending) = (s.clone(), pending.clone());
        let grant = Grant {
            nonce: Some(nonce.to_owned()),
            ..grant.clone()
        };
        async move {
            s.redeem_code(&pending, &grant, &rt, &id("family"), later, T0)
                .await
                .unwrap()
        }
    };
    let (rt_a, rt_b) = (id("rt-a"), id("rt-b"));
    let (first, second) = tokio::join!(redeem(rt_a.clone(), "a"), redeem(rt_b.clone(), "b"));
    let (won, lost) = one_wins((first, (rt_a, "a")), (second, (rt_b, "b")));
    let grant = Grant {
        nonce: Some(won.1.to_owned()),
        ..grant.clone()
    };
    assert_eq!(
        s.redeemed_as(&hash, T0).await.unwrap(),
        Some(grant.id.clone())
    );
    assert!(s.pending_code(&hash, T0).await.unwrap().is_none());
    {
        use super::flows::Grants;
        let found = |rt: String| {
            let (s, gid) = (s.clone(), grant.id.clone());
            async move {
                s.find_refresh_token(&rt, Some(&gid), None, T0)
                    .await
                    .unwrap()
            }
        };
        assert_eq!(found(won.0).await.map(|r| r.generation), Some(1));
        assert_eq!(
            found(lost.0).await,
            None,
            "the loser's token was not stored"
        );
        let stored = s.grant(&grant.id, T0).await.unwrap().unwrap().value;
        assert_eq!(
            stored, grant,
            "the grant reads back whole, its claims request too"
        );
        assert_eq!(stored.claims.userinfo, vec!["name".to_owned()]);
        assert_eq!(stored.resources, code.resources);
    }
    // The marker outlives the code's own lifetime: it lives as long as the grant.
    let after_code = Timestamp::from_secs(exp + 10);
    assert_eq!(
        s.redeemed_as(&hash, after_code).await.unwrap(),
        Some(grant.id.clone())
    );
    assert_eq!(redeem(id("rt-c"), "c").await, Outcome::Lost);
    // A grant whose id is not the code's is refused, and spends nothing.
    let hash2 = crate::protocol::CodeHash::new(id("code-2"));
    let pending2 = store_pending_code(s.as_ref(), &hash2, &code).await;
    assert!(matches!(
        s.redeem_code(&pending2, &grant, &id("rt"), &id("family"), later, T0)
            .await,
        Err(StoreError::Corrupt(_))
    ));
    assert!(s.pending_code(&hash2, T0).await.unwrap().is_some());

    let legacy = crate::protocol::CodeHash::new(id("legacy"));
    s.put(
        Record::new(
            Key::new(Kind::CodeUsed, &legacy),
            &serde_json::json!({ "grant_id": "g-old" }),
            Some(later),
        )
        .unwrap(),
        Cond::Absent,
        T0,
    )
    .await
    .unwrap();
    assert_eq!(
        s.redeemed_as(&legacy, T0).await.unwrap(),
        Some(crate::protocol::GrantId::new("g-old"))
    );
}

/// A grant and first refresh token for the code `hash` (issue 27: kept in the code's record).
/// A code exchange's write that landed but whose answer was lost (DynamoDB's SDK then retries
/// it, and the retry fails its condition) is recognised as this exchange's own: the same
/// redemption again is `Done`, and the grant stays live with its first refresh token. Another
/// exchange of the same code (another refresh token) still loses, and the record is unchanged.
pub async fn a_code_exchange_whose_answer_was_lost_is_its_own_on_retry<B: Backend + 'static>(
    s: Arc<B>,
) {
    use super::flows::{Codes, Grants, Outcome};
    use crate::domain::grant::RefreshRecord;

    let (hash, gid, grant, pending) = pending_code_fixture(s.as_ref()).await;
    let later = T0.secs() + 1800;
    let (rt, family) = (id("rt-ours"), id("family"));
    let redeem = |rt: String| {
        let (s, pending, grant, family) = (
            Arc::clone(&s),
            pending.clone(),
            grant.clone(),
            family.clone(),
        );
        async move {
            s.redeem_code(&pending, &grant, &rt, &family, later, T0)
                .await
                .unwrap()
        }
    };
    assert_eq!(redeem(rt.clone()).await, Outcome::Done);
    let key = Key::new(Kind::Code, &hash);
    let written = s.get(&key, T0).await.unwrap().unwrap();
    // The retry of the write that landed.
    assert_eq!(redeem(rt.clone()).await, Outcome::Done);
    // Someone else's exchange of the same code (a replay): lost.
    assert_eq!(redeem(id("rt-theirs")).await, Outcome::Lost);
    let stored = s.get(&key, T0).await.unwrap().unwrap();
    assert_eq!(
        (stored.version, &stored.body),
        (written.version, &written.body)
    );
    assert_eq!(s.redeemed_as(&hash, T0).await.unwrap(), Some(gid.clone()));
    assert_eq!(
        s.find_refresh_token(&rt, Some(&gid), None, T0)
            .await
            .unwrap(),
        Some(RefreshRecord {
            grant_id: gid.clone(),
            client_id: ClientId::new("shop"),
            generation: 1,
        })
    );
    assert!(!s.grant(&gid, T0).await.unwrap().unwrap().value.revoked);
    assert!(s
        .find_refresh_token(&id("rt-theirs"), Some(&gid), None, T0)
        .await
        .unwrap()
        .is_none());
    // Past the record's expiry nothing is found, and nothing is redeemed.
    let after = Timestamp::from_secs(later);
    assert!(s.redeemed_as(&hash, after).await.unwrap().is_none());
}

/// `code` stored for 60 s from `T0` under `hash`, as the authorization endpoint stores it, and
/// read back as the token endpoint finds it.
async fn store_pending_code<B: Backend + ?Sized>(
    s: &B,
    hash: &crate::protocol::CodeHash,
    code: &crate::domain::login::AuthCode,
) -> super::flows::PendingCode {
    use super::flows::Codes;
    s.put(
        Record::new(Key::new(Kind::Code, hash), code, Some(T0.secs() + 60)).unwrap(),
        Cond::Absent,
        T0,
    )
    .await
    .unwrap();
    s.pending_code(hash, T0).await.unwrap().unwrap()
}

/// A code issued at `T0` for 60 s, as the authorization endpoint stores it, read back as the
/// token endpoint finds it: the code's hash, its grant's id, the grant its exchange would
/// create, the pending code.
async fn pending_code_fixture<B: Backend>(
    s: &B,
) -> (
    crate::protocol::CodeHash,
    crate::protocol::GrantId,
    crate::domain::grant::Grant,
    super::flows::PendingCode,
) {
    let hash = crate::protocol::CodeHash::new(id("code"));
    let gid = super::flows::code_grant_id(&hash);
    let (grant, code) = code_grant_fixture(gid.clone());
    let pending = store_pending_code(s, &hash, &code).await;
    (hash, gid, grant, pending)
}

fn code_grant_fixture(
    grant_id: crate::protocol::GrantId,
) -> (crate::domain::grant::Grant, crate::domain::login::AuthCode) {
    use crate::domain::grant::{Grant, GrantKind};
    let code = crate::domain::login::AuthCode {
        client_id: ClientId::new("shop"),
        redirect_uri: RedirectUri::new("https://shop.example/cb"),
        scopes: Scopes::from_stored(["openid", "offline_access"]),
        nonce: Some("n-1".into()),
        claims: Default::default(),
        code_challenge: None,
        resources: vec![],
        sub: Subject::new("sub-1"),
        sid: SessionId::new("sid-1"),
        auth_time: T0,
        issued_at: T0,
        method: crate::domain::authn::Method::PasskeySignIn,
    };
    let grant = Grant {
        id: grant_id,
        kind: GrantKind::AuthorizationCode,
        client_id: ClientId::new("shop"),
        sub: Subject::new("sub-1"),
        sid: Some(SessionId::new("sid-1")),
        scopes: code.scopes.clone(),
        auth_time: T0,
        nonce: code.nonce.clone(),
        claims: Default::default(),
        created_at: T0,
        offline: true,
        generation: 1,
        rotated_at: T0,
        revoked: false,
        alg: crate::keys::Alg::ES256,
        resources: vec![],
        method: crate::domain::authn::Method::PasskeySignIn,
    };
    (grant, code)
}

/// Issue 27's third cut: the code exchange's grant (its id names the code) and its first
/// refresh token became the code's record (no family key: records written before the fourth
/// cut, read as they were). The grant is read by its id, the first refresh token by its hash
/// with the grant it names (a wrong hash or a wrong grant finds nothing, nor does a family
/// key), both expire with the record; a rotation writes the grant back there and the new
/// token in a record of its own (the first token still reads, with its old generation, so its
/// reuse is seen) and a stale rotation loses; a revocation marks it; a replay finds it.
pub async fn a_code_is_redeemed_as_its_grant_and_first_refresh_token<B: Backend + 'static>(
    s: Arc<B>,
) {
    use super::flows::{Codes, Grants, Outcome};
    use crate::domain::grant::{RefreshCheck, RefreshRecord};

    let (hash, gid, grant, pending) = pending_code_fixture(s.as_ref()).await;
    assert_eq!(pending.grant_id(), gid);
    let later = T0.secs() + 1800;
    let first = RefreshRecord {
        grant_id: gid.clone(),
        client_id: ClientId::new("shop"),
        generation: 1,
    };
    // Exactly what the third cut's code exchange wrote: the code's record at its next
    // version, holding the grant and its first refresh token's hash (no family).
    let (won, lost) = (id("rt-a"), id("rt-b"));
    let mut spent = Record::new(
        Key::new(Kind::Code, &hash),
        &serde_json::json!({ "grant": grant, "refresh": won, "refresh_generation": 1 }),
        Some(later),
    )
    .unwrap();
    spent.version = 2;
    s.put(spent, Cond::Version(1), T0).await.unwrap();
    assert!(s.pending_code(&hash, T0).await.unwrap().is_none());
    assert_eq!(s.redeemed_as(&hash, T0).await.unwrap(), Some(gid.clone()));
    assert_eq!(
        s.redeem_code(&pending, &grant, &id("rt-c"), &id("family"), later, T0)
            .await
            .unwrap(),
        Outcome::Lost
    );
    let stored = s.grant(&gid, T0).await.unwrap().unwrap();
    assert_eq!(stored.value, grant);
    assert_eq!(stored.record.expires_at, Some(later));
    assert_eq!(
        s.find_refresh_token(&won, Some(&gid), None, T0)
            .await
            .unwrap(),
        Some(first.clone())
    );
    assert_eq!(
        s.find_refresh_token(&lost, Some(&gid), None, T0)
            .await
            .unwrap(),
        None
    );
    let other = super::flows::code_grant_id(&crate::protocol::CodeHash::new(id("other")));
    assert_eq!(
        s.find_refresh_token(&won, Some(&other), None, T0)
            .await
            .unwrap(),
        None
    );
    assert_eq!(s.refresh_token(&won, T0).await.unwrap(), None);
    assert_eq!(
        s.find_refresh_token(&lost, Some(&gid), Some(&id("family")), T0)
            .await
            .unwrap(),
        None,
        "a record without a family recognises no family key"
    );
    // Expiry on every read.
    let dead = Timestamp::from_secs(later);
    assert!(s.grant(&gid, dead).await.unwrap().is_none());
    assert_eq!(
        s.find_refresh_token(&won, Some(&gid), None, dead)
            .await
            .unwrap(),
        None
    );

    // A rotation writes the grant back into the code's record; a stale one loses.
    let at = Timestamp::from_secs(T0.secs() + 100);
    let mut next = grant.clone();
    next.generation = 2;
    next.rotated_at = at;
    let second = RefreshRecord {
        generation: 2,
        ..first.clone()
    };
    let renewed = later + 100;
    let rt2 = id("rt-2");
    assert_eq!(
        s.rotate_grant(&stored, &next, &rt2, &second, renewed, at)
            .await
            .unwrap(),
        Outcome::Done
    );
    assert_eq!(
        s.rotate_grant(&stored, &next, &id("rt-3"), &second, renewed, at)
            .await
            .unwrap(),
        Outcome::Lost
    );
    let rotated = s.grant(&gid, at).await.unwrap().unwrap();
    assert_eq!(rotated.value, next);
    assert_eq!(rotated.record.expires_at, Some(renewed));
    assert_eq!(s.refresh_token(&rt2, at).await.unwrap(), Some(second));
    let replayed = s
        .find_refresh_token(&won, Some(&gid), None, at)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(replayed.generation, 1);
    let long_after = Timestamp::from_secs(at.secs() + 60);
    assert_eq!(
        rotated.value.check(replayed.generation, long_after),
        RefreshCheck::Reused
    );
    // Revocation.
    s.revoke_grant(&gid, at).await.unwrap();
    assert!(s.grant(&gid, at).await.unwrap().unwrap().value.revoked);
    s.revoke_grant(&gid, at).await.unwrap();
    assert!(s
        .find_refresh_token(&won, Some(&gid), None, at)
        .await
        .unwrap()
        .is_some());
    assert_eq!(s.redeemed_as(&hash, at).await.unwrap(), Some(gid));
}

/// Issue 27's fourth cut: a grant from a code exchange keeps its refresh tokens in its record
/// with its family key's hash. A rotation is ONE conditional write (no record per token); of
/// two concurrent rotations one wins. The current token and the one before are found by their
/// hashes with their generations; any other token that carries the family key is an earlier
/// one (`EARLIER_GENERATION`, a reuse even within the grace period); a token with neither, or
/// naming another grant, finds nothing. Expiry on every read; a revocation keeps the hashes,
/// so a replay is still recognised.
pub async fn a_refresh_family_rotates_in_its_grants_record<B: Backend + 'static>(s: Arc<B>) {
    use super::flows::{Codes, Grants, Outcome};
    use crate::domain::grant::{RefreshCheck, RefreshRecord, EARLIER_GENERATION};

    let (hash, gid, grant, pending) = pending_code_fixture(s.as_ref()).await;
    let later = T0.secs() + 1800;
    let (family, rt1) = (id("family"), id("rt-1"));
    assert_eq!(
        s.redeem_code(&pending, &grant, &rt1, &family, later, T0)
            .await
            .unwrap(),
        Outcome::Done
    );
    let rec = |generation| RefreshRecord {
        grant_id: gid.clone(),
        client_id: ClientId::new("shop"),
        generation,
    };
    let find = |rt: &str, fam: Option<&str>, at: Timestamp| {
        let (s, gid, rt, fam) = (
            s.clone(),
            gid.clone(),
            rt.to_owned(),
            fam.map(str::to_owned),
        );
        async move {
            s.find_refresh_token(&rt, Some(&gid), fam.as_deref(), at)
                .await
                .unwrap()
        }
    };
    assert_eq!(find(&rt1, Some(&family), T0).await, Some(rec(1)));
    assert_eq!(find(&rt1, None, T0).await, Some(rec(1)));
    assert_eq!(find(&id("rt"), None, T0).await, None);
    assert_eq!(find(&id("rt"), Some(&id("family")), T0).await, None);
    let other = super::flows::code_grant_id(&crate::protocol::CodeHash::new(id("other")));
    assert_eq!(
        s.find_refresh_token(&rt1, Some(&other), Some(&family), T0)
            .await
            .unwrap(),
        None
    );

    // Two rotations of the version read: one wins; neither token gets a record of its own.
    let stored = s.grant(&gid, T0).await.unwrap().unwrap();
    let at = Timestamp::from_secs(T0.secs() + 100);
    let mut next = grant.clone();
    next.generation = 2;
    next.rotated_at = at;
    let renewed = later + 100;
    let rotate = |rt: String| {
        let (s, stored, next, r) = (s.clone(), stored.clone(), next.clone(), rec(2));
        async move {
            s.rotate_grant(&stored, &next, &rt, &r, renewed, at)
                .await
                .unwrap()
        }
    };
    let (rt2a, rt2b) = (id("rt-2a"), id("rt-2b"));
    let (a, b) = tokio::join!(rotate(rt2a.clone()), rotate(rt2b.clone()));
    let (rt2, lost) = one_wins((a, rt2a), (b, rt2b));
    assert_eq!(s.refresh_token(&rt2, at).await.unwrap(), None);
    assert_eq!(s.refresh_token(&lost, at).await.unwrap(), None);
    let rotated = s.grant(&gid, at).await.unwrap().unwrap();
    assert_eq!(rotated.value, next);
    assert_eq!(rotated.record.expires_at, Some(renewed));
    assert_eq!(rotated.record.version, stored.record.version + 1);
    assert_eq!(find(&rt2, Some(&family), at).await, Some(rec(2)));
    // Read with its grant, in one read of the same record.
    let (r, kept) = s
        .refresh_token_with_grant(&rt2, Some(&gid), Some(&family), at)
        .await
        .unwrap()
        .unwrap();
    let kept = kept.unwrap();
    assert_eq!(r, rec(2));
    assert_eq!(kept.value, rotated.value);
    assert_eq!(kept.record, rotated.record);
    assert_eq!(find(&rt1, None, at).await, Some(rec(1)), "the one before");
    assert_eq!(find(&lost, None, at).await, None);

    // A third generation: the first token is now an earlier one, known by its family key only.
    let at3 = Timestamp::from_secs(at.secs() + 1);
    let mut third = next.clone();
    third.generation = 3;
    third.rotated_at = at3;
    let rt3 = id("rt-3");
    let rotate3 = |rt: String| {
        let (s, rotated, third) = (s.clone(), rotated.clone(), third.clone());
        async move {
            s.rotate_grant(&rotated, &third, &rt, &rec(3), renewed + 1, at3)
                .await
                .unwrap()
        }
    };
    assert_eq!(rotate3(rt3.clone()).await, Outcome::Done);
    assert_eq!(rotate3(id("rt")).await, Outcome::Lost);
    let rotated = s.grant(&gid, at3).await.unwrap().unwrap();
    assert_eq!(find(&rt3, Some(&family), at3).await, Some(rec(3)));
    assert_eq!(find(&rt2, Some(&family), at3).await, Some(rec(2)));
    assert_eq!(rotated.value.check(2, at3), RefreshCheck::Grace);
    let earlier = find(&rt1, Some(&family), at3).await.unwrap();
    assert_eq!(earlier, rec(EARLIER_GENERATION));
    assert_eq!(
        rotated.value.check(earlier.generation, at3),
        RefreshCheck::Reused
    );
    assert_eq!(find(&rt1, None, at3).await, None);

    // Expiry on every read.
    let dead = Timestamp::from_secs(renewed + 1);
    assert!(s.grant(&gid, dead).await.unwrap().is_none());
    assert_eq!(find(&rt3, Some(&family), dead).await, None);
    assert_eq!(find(&rt1, Some(&family), dead).await, None);

    // A revocation marks the grant and keeps what recognises its tokens.
    s.revoke_grant(&gid, at3).await.unwrap();
    assert!(s.grant(&gid, at3).await.unwrap().unwrap().value.revoked);
    assert_eq!(find(&rt3, None, at3).await, Some(rec(3)));
    assert_eq!(
        find(&rt1, Some(&family), at3).await,
        Some(rec(EARLIER_GENERATION))
    );
    assert_eq!(s.redeemed_as(&hash, at3).await.unwrap(), Some(gid));
}

/// An upgrade: a grant, its refresh tokens and a redeemed code's record written in the shapes
/// of before issue 27's third cut (a grant record of its own under a random id, refresh
/// records of their own, the code's record holding only the grant's id) are read, rotated,
/// refused when reused and revoked as before; a code written then is redeemed the new way.
pub async fn grants_and_refresh_tokens_of_the_previous_shape_are_honoured<B: Backend + 'static>(
    s: Arc<B>,
) {
    use super::flows::{Codes, Grants, Outcome};
    use crate::domain::grant::{RefreshCheck, RefreshRecord};

    let old_id = crate::protocol::GrantId::new(id("g-old"));
    let (grant, code) = code_grant_fixture(old_id.clone());
    let later = T0.secs() + 1800;
    let old_hash = crate::protocol::CodeHash::new(id("old-code"));
    let (rt1, rt2) = (id("old-rt-1"), id("old-rt-2"));
    let first = RefreshRecord {
        grant_id: old_id.clone(),
        client_id: ClientId::new("shop"),
        generation: 1,
    };
    // Exactly what the code exchange wrote before.
    for (key, body) in [
        (
            Key::new(Kind::Grant, &old_id),
            serde_json::to_value(&grant).unwrap(),
        ),
        (
            Key::new(Kind::Refresh, &rt1),
            serde_json::to_value(&first).unwrap(),
        ),
        (
            Key::new(Kind::Code, &old_hash),
            serde_json::json!({ "grant_id": old_id.as_str() }),
        ),
    ] {
        s.put(
            Record::new(key, &body, Some(later)).unwrap(),
            Cond::Absent,
            T0,
        )
        .await
        .unwrap();
    }
    assert_eq!(
        s.redeemed_as(&old_hash, T0).await.unwrap(),
        Some(old_id.clone())
    );
    assert!(s.pending_code(&old_hash, T0).await.unwrap().is_none());
    let stored = s.grant(&old_id, T0).await.unwrap().unwrap();
    assert_eq!(stored.value, grant);
    // A token of the previous shape names no grant: found by its hash alone.
    assert_eq!(
        s.find_refresh_token(&rt1, None, None, T0).await.unwrap(),
        Some(first.clone())
    );
    let at = Timestamp::from_secs(T0.secs() + 100);
    let mut next = grant.clone();
    next.generation = 2;
    next.rotated_at = at;
    let second = RefreshRecord {
        generation: 2,
        ..first.clone()
    };
    assert_eq!(
        s.rotate_grant(&stored, &next, &rt2, &second, later + 100, at)
            .await
            .unwrap(),
        Outcome::Done
    );
    let rotated = s.grant(&old_id, at).await.unwrap().unwrap();
    assert_eq!(rotated.value, next);
    assert_eq!(
        s.get(&Key::new(Kind::Grant, &old_id), at)
            .await
            .unwrap()
            .unwrap()
            .value::<crate::domain::grant::Grant>()
            .unwrap(),
        next,
        "the grant stays in its own record"
    );
    assert_eq!(
        s.refresh_token(&rt2, at).await.unwrap(),
        Some(second.clone())
    );
    // A token of a record of its own comes without its grant (read by its id).
    assert_eq!(
        s.refresh_token_with_grant(&rt2, None, None, at)
            .await
            .unwrap()
            .map(|(r, g)| (r, g.is_none())),
        Some((second, true))
    );
    let reused = s.refresh_token(&rt1, at).await.unwrap().unwrap();
    assert_eq!(
        rotated
            .value
            .check(reused.generation, Timestamp::from_secs(at.secs() + 60)),
        RefreshCheck::Reused
    );
    s.revoke_grant(&old_id, at).await.unwrap();
    assert!(s.grant(&old_id, at).await.unwrap().unwrap().value.revoked);

    // A code written before the change is redeemed the new way.
    let hash = crate::protocol::CodeHash::new(id("code-then"));
    let pending = store_pending_code(s.as_ref(), &hash, &code).await;
    let new_grant = crate::domain::grant::Grant {
        id: pending.grant_id(),
        ..grant.clone()
    };
    let rt = id("new-rt");
    let refresh = RefreshRecord {
        grant_id: new_grant.id.clone(),
        ..first.clone()
    };
    assert_eq!(
        s.redeem_code(&pending, &new_grant, &rt, &id("family"), later, T0)
            .await
            .unwrap(),
        Outcome::Done
    );
    assert_eq!(
        s.find_refresh_token(&rt, Some(&new_grant.id), None, T0)
            .await
            .unwrap(),
        Some(refresh)
    );
}

pub async fn initial_access_tokens_are_spent_once_per_use_and_expire<B: Backend + 'static>(
    s: Arc<B>,
) {
    use crate::domain::registration::InitialAccessToken;
    let hash = id("iat");
    let exp = T0.secs() + 3600;
    let token = InitialAccessToken {
        uses_left: 3,
        created_at: T0,
    };
    assert!(!s.spend_initial_access_token(&hash, T0).await.unwrap());
    s.create_initial_access_token(&hash, &token, exp, T0)
        .await
        .unwrap();
    assert!(matches!(
        s.create_initial_access_token(&hash, &token, exp, T0).await,
        Err(StoreError::ConditionFailed)
    ));
    assert_eq!(
        s.initial_access_token(&hash, T0).await.unwrap(),
        Some(token.clone())
    );
    // Ten concurrent registrations, three uses: exactly three succeed.
    let mut tasks = Vec::new();
    for _ in 0..10 {
        let s = s.clone();
        let hash = hash.clone();
        tasks.push(tokio::spawn(async move {
            s.spend_initial_access_token(&hash, T0).await.unwrap()
        }));
    }
    let mut spent = 0;
    for t in tasks {
        spent += usize::from(t.await.unwrap());
    }
    assert_eq!(spent, 3, "one success per use");
    assert_eq!(s.initial_access_token(&hash, T0).await.unwrap(), None);
    assert!(!s.spend_initial_access_token(&hash, T0).await.unwrap());
    // Expiry is checked on every read, whatever uses are left.
    let other = id("iat");
    s.create_initial_access_token(&other, &token, exp, T0)
        .await
        .unwrap();
    assert!(s.spend_initial_access_token(&other, T0).await.unwrap());
    assert_eq!(
        s.initial_access_token(&other, T0.plus_secs(3600))
            .await
            .unwrap(),
        None
    );
    assert!(!s
        .spend_initial_access_token(&other, T0.plus_secs(3600))
        .await
        .unwrap());
    assert_eq!(
        s.initial_access_token(&other, T0)
            .await
            .unwrap()
            .map(|t| t.uses_left),
        Some(2)
    );
}

pub async fn a_self_registered_client_keeps_its_registration<B: Backend>(s: Arc<B>) {
    use crate::domain::client::{AuthMethod, Registration};
    let client = Client {
        client_id: ClientId::new(id("dyn")),
        name: "Registered".into(),
        client_type: ClientType::Public,
        secret_hash: None,
        redirect_uris: vec![RedirectUri::new("http://127.0.0.1/cb")],
        post_logout_redirect_uris: vec![],
        grant_types: vec![GrantType::AuthorizationCode, GrantType::RefreshToken],
        created_at: T0,
        token_alg: None,
        resource_server: false,
        web_origins: vec!["+".into()],
        backchannel_logout_uri: None,
        registration: Some(Registration {
            access_token_hash: "rat-hash".into(),
            token_endpoint_auth_method: AuthMethod::None,
        }),
        refuse_on: vec![crate::domain::risk::Flag::LocationMismatch],
        require_acr: Some(crate::domain::authn::Acr::UserVerified),
    };
    s.create_client(&client, T0).await.unwrap();
    let (got, version) = s.client(&client.client_id, T0).await.unwrap().unwrap();
    assert_eq!(got, client);
    let mut rotated = got;
    if let Some(r) = rotated.registration.as_mut() {
        r.access_token_hash = "next".into();
    }
    s.update_client(&rotated, version, T0).await.unwrap();
    assert!(matches!(
        s.update_client(&rotated, version, T0).await,
        Err(StoreError::ConditionFailed)
    ));
    let listed = s.clients(T0).await.unwrap();
    let mine = listed
        .iter()
        .find(|c| c.client_id == client.client_id)
        .unwrap();
    assert_eq!(
        mine.registration
            .as_ref()
            .map(|r| r.access_token_hash.as_str()),
        Some("next")
    );
    assert!(s.delete_client(&client.client_id, T0).await.unwrap());
}

fn device_authorization(user_code: &str) -> crate::domain::device_grant::DeviceAuthorization {
    crate::domain::device_grant::DeviceAuthorization::new(
        ClientId::new("tv"),
        Scopes::from_stored(["openid"]),
        user_code.to_owned(),
        600,
        T0,
    )
}

pub async fn device_authorizations_are_found_by_user_code_and_expire<B: Backend>(s: Arc<B>) {
    use super::device_grants::DeviceGrants;
    use super::flows::Outcome;

    let (hash, user_code) = (id("dc"), id("uc"));
    let d = device_authorization(&user_code);
    assert_eq!(
        s.create_device_authorization(&hash, &d, T0).await.unwrap(),
        Outcome::Done
    );
    // A second authorization drawing the same user code loses, and writes nothing.
    let other = id("dc");
    assert_eq!(
        s.create_device_authorization(&other, &d, T0).await.unwrap(),
        Outcome::Lost
    );
    assert!(s.device_authorization(&other, T0).await.unwrap().is_none());
    let found = s
        .device_authorization_by_user_code(&user_code, T0)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.device_code_hash, hash);
    assert_eq!(found.authorization.value, d);
    // A conditional update at the version read: the second writer of that version loses.
    let mut next = d.clone();
    next.interval = 10;
    let old = found.authorization;
    assert_eq!(
        s.update_device_authorization(&old, &next, T0)
            .await
            .unwrap(),
        Outcome::Done
    );
    assert_eq!(
        s.update_device_authorization(&old, &next, T0)
            .await
            .unwrap(),
        Outcome::Lost
    );
    assert_eq!(
        s.device_authorization(&hash, T0)
            .await
            .unwrap()
            .unwrap()
            .value
            .interval,
        10
    );
    // Expiry is checked on every read, by device code and by user code (the record outlives
    // the code by a grace, so a late poll learns `expired_token`).
    let end = d
        .expires_at
        .plus_secs(crate::domain::device_grant::RECORD_GRACE_SECS);
    assert!(s
        .device_authorization(&hash, end.plus_secs(-1))
        .await
        .unwrap()
        .is_some());
    assert!(s.device_authorization(&hash, end).await.unwrap().is_none());
    assert!(s
        .device_authorization_by_user_code(&user_code, end)
        .await
        .unwrap()
        .is_none());
    assert!(s
        .device_authorization_by_user_code(&id("uc"), T0)
        .await
        .unwrap()
        .is_none());
}

pub async fn a_device_code_is_redeemed_once<B: Backend + 'static>(s: Arc<B>) {
    use super::device_grants::DeviceGrants;
    use super::flows::{Grants, Outcome};
    use crate::domain::grant::{Grant, GrantKind, RefreshRecord};
    use crate::domain::login::SsoSession;
    use crate::random::SeededRandom;

    let (hash, user_code) = (id("dc"), id("uc"));
    let mut d = device_authorization(&user_code);
    s.create_device_authorization(&hash, &d, T0).await.unwrap();
    d.settle(Some(("sub-1", crate::domain::authn::Method::PasskeyUv)), T0)
        .unwrap();
    let old = s.device_authorization(&hash, T0).await.unwrap().unwrap();
    s.update_device_authorization(&old, &d, T0).await.unwrap();
    let approved = s.device_authorization(&hash, T0).await.unwrap().unwrap();
    // How the person approved is kept (the tokens' amr and acr).
    assert!(matches!(
        approved.value.status,
        crate::domain::device_grant::DeviceGrantStatus::Approved {
            approved_with: crate::domain::authn::Method::PasskeyUv,
            ..
        }
    ));
    let later = T0.secs() + 1800;
    let sid = id("sid");
    let redeem = |seed: u64| {
        let (s, approved, hash) = (s.clone(), approved.clone(), hash.clone());
        let sid = sid.clone();
        async move {
            let (mut sso, _) = SsoSession::new("sub-1", T0, T0, &SeededRandom::new(seed));
            sso.sid = SessionId::new(sid);
            sso.method = crate::domain::authn::Method::PasskeyUv;
            let grant = Grant {
                id: crate::protocol::GrantId::new(id("grant")),
                kind: GrantKind::AuthorizationCode,
                client_id: ClientId::new("tv"),
                sub: Subject::new("sub-1"),
                sid: Some(sso.sid.clone()),
                scopes: Scopes::from_stored(["openid"]),
                auth_time: T0,
                nonce: None,
                created_at: T0,
                offline: false,
                generation: 1,
                rotated_at: T0,
                revoked: false,
                alg: crate::keys::Alg::ES256,
                claims: Default::default(),
                resources: Vec::new(),
                method: Default::default(),
            };
            let refresh = RefreshRecord {
                grant_id: grant.id.clone(),
                client_id: ClientId::new("tv"),
                generation: 1,
            };
            let o = s
                .redeem_device_code(
                    &hash,
                    &approved,
                    (&sso, later),
                    &grant,
                    &id("rt"),
                    &refresh,
                    later,
                    T0,
                )
                .await
                .unwrap();
            (o, grant.id)
        }
    };
    let ((a, ga), (b, gb)) = tokio::join!(redeem(1), redeem(2));
    let (winner, loser) = one_wins((a, ga), (b, gb));
    assert!(s.grant(&winner, T0).await.unwrap().is_some());
    assert!(
        s.grant(&loser, T0).await.unwrap().is_none(),
        "all or nothing"
    );
    // The session keeps how it began (every SSO login's amr and acr).
    let sso = super::SsoSessions::sso_session(s.as_ref(), &sid, T0)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(sso.value.method, crate::domain::authn::Method::PasskeyUv);
    assert!(s.device_authorization(&hash, T0).await.unwrap().is_none());
    assert!(s
        .device_authorization_by_user_code(&user_code, T0)
        .await
        .unwrap()
        .is_none());
    assert_eq!(redeem(3).await.0, Outcome::Lost);
}

/// Generates the photo store suite's tests for an adapter (`$factory` returns `(photos,
/// guard)`).
#[macro_export]
macro_rules! photo_suite {
    ($factory:expr) => {
        mod photo_suite {
            #[allow(unused_imports)]
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn photos_round_trip() {
                let (photos, _guard) = $factory.await;
                $crate::store::suite::photos_round_trip(&photos).await;
            }
        }
    };
}

pub async fn photos_round_trip<P: super::PhotoStore>(p: &P) {
    let sub = uuid::Uuid::new_v4().to_string();
    let name = format!("{sub}/{}", crate::domain::photo::content_hash(b"one"));
    assert_eq!(p.photo(&name).await.unwrap(), None);
    p.put_photo(&name, b"\x89PNG one", "image/png")
        .await
        .unwrap();
    assert_eq!(
        p.photo(&name).await.unwrap().as_deref(),
        Some(&b"\x89PNG one"[..])
    );
    // Idempotent: the same name holds the same bytes.
    p.put_photo(&name, b"\x89PNG one", "image/png")
        .await
        .unwrap();
    let other = format!("{sub}/{}", crate::domain::photo::content_hash(b"two"));
    p.put_photo(&other, &[0u8; 70_000], "image/jpeg")
        .await
        .unwrap();
    assert_eq!(
        p.photo(&other).await.unwrap().map(|b| b.len()),
        Some(70_000)
    );
    p.delete_photo(&name).await.unwrap();
    assert_eq!(p.photo(&name).await.unwrap(), None);
    p.delete_photo(&name).await.unwrap();
    assert!(
        p.photo(&other).await.unwrap().is_some(),
        "only that one went"
    );
    // Everything of one owner goes, nobody else's.
    let neighbour = uuid::Uuid::new_v4().to_string();
    let theirs = format!("{neighbour}/{}", crate::domain::photo::content_hash(b"n"));
    p.put_photo(&theirs, b"\x89PNG n", "image/png")
        .await
        .unwrap();
    p.put_photo(&name, b"\x89PNG one", "image/png")
        .await
        .unwrap();
    p.delete_photos_of(&sub).await.unwrap();
    assert_eq!(p.photo(&name).await.unwrap(), None);
    assert_eq!(p.photo(&other).await.unwrap(), None);
    assert!(
        p.photo(&theirs).await.unwrap().is_some(),
        "not a neighbour's"
    );
    p.delete_photos_of(&sub).await.unwrap();
    // A prefix of another owner's name is not that owner.
    p.delete_photos_of(&neighbour[..8]).await.unwrap();
    assert!(p.photo(&theirs).await.unwrap().is_some());
}

/// "This wasn't me" (issue 24): the entry is marked and the request's jti spent in one
/// write; an unknown entry writes nothing; a second report keeps the first time.
pub async fn a_reported_login_is_marked_with_its_jti_spent<B: Backend>(s: Arc<B>) {
    use super::IdentityStore;
    use crate::domain::identity::LoginActivity;
    let a = identity(&short("n"), &short("s"));
    s.create_identity(&a, None, T0).await.unwrap();
    let login = |n: usize| LoginActivity {
        at: T0.plus_secs(n as i64),
        client_id: "shop".into(),
        client_name: "Shop".into(),
        outcome: "approved".into(),
        browser_ip: "192.0.2.1".into(),
        user_agent: "suite".into(),
        id: format!("entry{n}"),
        location: None,
        network: None,
        place: None,
        flags: vec![],
        method: if n == 0 { "sso".into() } else { "qr".into() },
        login_id: Some(format!("login{n}")),
        sid: None,
        reported_at: None,
    };
    let jti = |j: &str| [(format!("{j}{}", short("j")), T0.secs() + 300)];
    // No list yet, then an unknown id: nothing, and the jti stays unspent.
    let unspent = jti("a");
    assert_eq!(
        s.report_login(&a.sub, "entry0", &unspent, T0)
            .await
            .unwrap(),
        None
    );
    s.record_login(&a.sub, login(0), T0).await.unwrap();
    s.record_login(&a.sub, login(1), T0).await.unwrap();
    assert_eq!(
        s.report_login(&a.sub, "nope", &unspent, T0).await.unwrap(),
        None
    );
    assert_eq!(
        s.report_login(&a.sub, "", &unspent, T0).await.unwrap(),
        None
    );
    s.spend_jtis(&a.sub, &unspent, T0).await.unwrap();

    let first = jti("b");
    let t1 = T0.plus_secs(5);
    let e = s
        .report_login(&a.sub, "entry0", &first, t1)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(e.reported_at, Some(t1));
    assert_eq!((e.id.as_str(), e.method.as_str()), ("entry0", "sso"));
    // The same jti again: refused, nothing written.
    assert!(matches!(
        s.report_login(&a.sub, "entry1", &first, t1).await,
        Err(StoreError::ConditionFailed)
    ));
    let list = s.recent_logins(&a.sub, t1).await.unwrap();
    assert_eq!(
        list[0].reported_at, None,
        "entry1 (newest) was not reported"
    );
    assert_eq!(list[1].reported_at, Some(t1));
    // Reported again later: the first time stays.
    let again = s
        .report_login(&a.sub, "entry0", &jti("c"), T0.plus_secs(9))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again.reported_at, Some(t1));
    // Another identity's entry is not found.
    let b = identity(&short("n"), &short("s"));
    s.create_identity(&b, None, T0).await.unwrap();
    assert_eq!(
        s.report_login(&b.sub, "entry0", &jti("d"), t1)
            .await
            .unwrap(),
        None
    );

    // The identity's tokens_not_before survives a write.
    let (mut i, v) = s.identity(&a.sub, T0).await.unwrap().unwrap();
    i.tokens_not_before = Some(t1);
    s.update_identity(&i, v, t1).await.unwrap();
    let (read, _) = s.identity(&a.sub, t1).await.unwrap().unwrap();
    assert_eq!(read.tokens_not_before, Some(t1));
}

/// A session's grants revoked (offline ones included) by one marker, which expires.
pub async fn a_session_s_grants_are_revoked_until_the_marker_expires<B: Backend>(s: Arc<B>) {
    use super::Grants;
    let (sid, other) = (id("sid"), id("sid"));
    assert!(!s.session_grants_revoked(&sid, T0).await.unwrap());
    s.revoke_session_grants(&sid, T0.secs() + 100, T0)
        .await
        .unwrap();
    // Idempotent.
    s.revoke_session_grants(&sid, T0.secs() + 100, T0)
        .await
        .unwrap();
    assert!(s.session_grants_revoked(&sid, T0).await.unwrap());
    assert!(!s.session_grants_revoked(&other, T0).await.unwrap());
    assert!(!s
        .session_grants_revoked(&sid, T0.plus_secs(100))
        .await
        .unwrap());
}

/// The QR login record as the scan and the decision write it (issue 24): the whole value comes
/// back (the number, its choices, the scanner, a cancellation), and a scan written on a stale
/// version loses (a challenge is spent by one conditional write).
pub async fn a_scanned_qr_login_keeps_its_number_scanner_and_cancellation<B: Backend>(s: Arc<B>) {
    use super::flows::{Outcome, QrLogins};
    use crate::domain::authorize::{AuthorizationRequest, Prompt, ResponseMode};
    use crate::domain::login::{CancelReason, QrLogin, Scanner, DEFAULT_CHALLENGE_TTL_SECS};
    use crate::random::SystemRandom;

    let request = AuthorizationRequest {
        client_id: ClientId::new("rp"),
        redirect_uri: RedirectUri::new("https://rp.example/cb"),
        response_mode: ResponseMode::Query,
        state: Some("s".into()),
        nonce: None,
        scopes: Scopes::from_stored(["openid"]),
        code_challenge: None,
        prompt: Prompt::default(),
        max_age: None,
        login_hint: None,
        ui_locales: None,
        resources: Vec::new(),
        claims: Default::default(),
    };
    // Fresh ids per run: suites may share one DynamoDB table.
    let rng = SystemRandom::new();
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
    let stored = s.qr_login(&login.id, T0).await.unwrap().unwrap();
    let alice = Scanner::Identity(Subject::new("alice"));
    let mut scanned = stored.value.clone();
    let c = scanned.current_challenge(T0);
    scanned
        .accept_scan(&c, &alice, DEFAULT_CHALLENGE_TTL_SECS, T0, &rng)
        .unwrap();
    assert_eq!(
        s.update_qr_login(&stored, &scanned, T0).await.unwrap(),
        Outcome::Done
    );
    let back = s.qr_login(&login.id, T0).await.unwrap().unwrap();
    assert_eq!(back.value, scanned);
    assert_eq!(back.value.scanned_by, Some(alice));
    assert_eq!(back.value.number_choices().len(), 3);
    // Another scan of the same challenge, read before the first was written: it loses.
    let mut racing = stored.value.clone();
    racing
        .accept_scan(
            &c,
            &Scanner::Anonymous,
            DEFAULT_CHALLENGE_TTL_SECS,
            T0,
            &rng,
        )
        .unwrap();
    assert_eq!(
        s.update_qr_login(&stored, &racing, T0).await.unwrap(),
        Outcome::Lost
    );
    // A wrong number cancels it; the reason is stored.
    let n = i64::from(back.value.number.unwrap());
    let mut cancelled = back.value.clone();
    let wrong = if n == 10 { 11 } else { 10 };
    assert!(cancelled
        .decide(
            "alice",
            &c,
            (true, crate::domain::authn::Method::DeviceKey),
            Some(wrong),
            T0
        )
        .is_err());
    assert_eq!(
        s.update_qr_login(&back, &cancelled, T0).await.unwrap(),
        Outcome::Done
    );
    let end = s.qr_login(&login.id, T0).await.unwrap().unwrap().value;
    assert_eq!(end.cancel_reason(), Some(CancelReason::WrongNumber));
    assert_eq!(end, cancelled);
}

/// The login path spends each single-use thing by one conditional write of its own (no
/// transaction): what the spend pays for is written first under new keys, and a spend that
/// loses leaves none of it behind. A decision that loses gives its `jti` back (a loss reads
/// as it did in a transaction); a completion that loses leaves no code, SSO session or
/// consent; a redemption that loses leaves no grant or refresh token.
pub async fn a_spend_that_loses_leaves_nothing_behind<B: Backend>(s: Arc<B>) {
    use super::flows::{CodeIssue, Codes, Grants, Outcome, QrLogins, SsoSessions};
    use crate::domain::authorize::{AuthorizationRequest, Prompt, ResponseMode};
    use crate::domain::grant::{Grant, GrantKind};
    use crate::domain::login::{AuthCode, Consent, LoginStatus, QrLogin, SsoSession};
    use crate::random::SystemRandom;

    let rng = SystemRandom::new();
    let request = AuthorizationRequest {
        client_id: ClientId::new("rp"),
        redirect_uri: RedirectUri::new("https://rp.example/cb"),
        response_mode: ResponseMode::Query,
        state: None,
        nonce: None,
        scopes: Scopes::from_stored(["openid"]),
        code_challenge: None,
        prompt: Prompt::default(),
        max_age: None,
        login_hint: None,
        ui_locales: None,
        resources: Vec::new(),
        claims: Default::default(),
    };
    let login = QrLogin::new(300, request, "b", "127.0.0.1".into(), "ua".into(), T0, &rng);
    s.create_qr_login(&login, T0).await.unwrap();
    let read = s.qr_login(&login.id, T0).await.unwrap().unwrap();
    let sub = id("sub");
    let jti_exp = T0.secs() + 120;

    // A decision: the jti is spent with it; a second one on the same version loses and
    // gives its own jti back.
    let mut next = read.value.clone();
    next.status = LoginStatus::Denied;
    let (j1, j2) = (id("jti"), id("jti"));
    let o = s.record_decision(&read, &next, &sub, &j1, jti_exp, T0);
    assert_eq!(o.await.unwrap(), Outcome::Done);
    assert!(s.jti_used(&sub, &j1, T0).await.unwrap());
    let o = s.record_decision(&read, &next, &sub, &j2, jti_exp, T0);
    assert_eq!(o.await.unwrap(), Outcome::Lost);
    assert!(
        !s.jti_used(&sub, &j2, T0).await.unwrap(),
        "the jti is given back"
    );
    // A spent jti makes a decision lose, the login unchanged.
    let decided = s.qr_login(&login.id, T0).await.unwrap().unwrap();
    let o = s.record_decision(&decided, &next, &sub, &j1, jti_exp, T0);
    assert_eq!(o.await.unwrap(), Outcome::Lost);
    let still = s.qr_login(&login.id, T0).await.unwrap().unwrap();
    assert_eq!(still.record.version, decided.record.version);

    // A completion on a stale version loses: no code, no SSO session, no consent.
    let code = AuthCode {
        client_id: ClientId::new("rp"),
        redirect_uri: RedirectUri::new("https://rp.example/cb"),
        scopes: Scopes::from_stored(["openid"]),
        nonce: None,
        claims: Default::default(),
        code_challenge: None,
        resources: Vec::new(),
        sub: Subject::new(sub.as_str()),
        sid: SessionId::new("sid"),
        auth_time: T0,
        issued_at: T0,
        method: Default::default(),
    };
    let (sso, _) = SsoSession::new(&sub, T0, T0, &rng);
    let consent = Consent {
        scopes: Scopes::from_stored(["openid"]),
        granted_at: T0,
        claims: Vec::new(),
    };
    let issue = |login, hash| CodeIssue {
        login,
        new_sso: Some((&sso, T0.secs() + 600)),
        consent: Some((&sub, "rp", &consent)),
        code_hash: hash,
        code: &code,
        code_expires_at: T0.secs() + 60,
    };
    let lost_hash = crate::protocol::CodeHash::new(id("code"));
    let o = s
        .issue_code(issue(Some(&read), &lost_hash), T0)
        .await
        .unwrap();
    assert_eq!(o, Outcome::Lost);
    assert!(s.pending_code(&lost_hash, T0).await.unwrap().is_none());
    assert!(s.sso_session(&sso.sid, T0).await.unwrap().is_none());
    assert!(s.consent(&sub, "rp", T0).await.unwrap().is_none());
    // On the version read: the code, the session and the consent are written, the login
    // completed; a second completion loses.
    let hash = crate::protocol::CodeHash::new(id("code"));
    let o = s
        .issue_code(issue(Some(&decided), &hash), T0)
        .await
        .unwrap();
    assert_eq!(o, Outcome::Done);
    let pending = s.pending_code(&hash, T0).await.unwrap().unwrap();
    assert_eq!(pending.code, code);
    assert!(s.sso_session(&sso.sid, T0).await.unwrap().is_some());
    assert_eq!(
        s.consent(&sub, "rp", T0).await.unwrap(),
        Some(consent.clone())
    );
    let done = s.qr_login(&login.id, T0).await.unwrap().unwrap();
    assert_eq!(done.value.status, LoginStatus::Completed);
    let again = crate::protocol::CodeHash::new(id("code"));
    let o = s
        .issue_code(issue(Some(&decided), &again), T0)
        .await
        .unwrap();
    assert_eq!(o, Outcome::Lost);
    assert!(s.pending_code(&again, T0).await.unwrap().is_none());

    // Two redemptions of the code on the version read: the second leaves no grant and no
    // refresh token behind (the grant it would have written differs in its nonce).
    let grant = |nonce: &str| Grant {
        id: pending.grant_id(),
        kind: GrantKind::AuthorizationCode,
        client_id: ClientId::new("rp"),
        sub: Subject::new(sub.as_str()),
        sid: Some(SessionId::new("sid")),
        scopes: Scopes::from_stored(["openid"]),
        auth_time: T0,
        nonce: Some(nonce.to_owned()),
        claims: Default::default(),
        created_at: T0,
        offline: false,
        generation: 1,
        rotated_at: T0,
        revoked: false,
        alg: crate::keys::Alg::ES256,
        resources: Vec::new(),
        method: Default::default(),
    };
    let later = T0.secs() + 1800;
    let (g1, g2) = (grant("first"), grant("second"));
    let (r1, r2) = (id("rt"), id("rt"));
    let (f1, f2) = (id("family"), id("family"));
    let o = s.redeem_code(&pending, &g1, &r1, &f1, later, T0);
    assert_eq!(o.await.unwrap(), Outcome::Done);
    let o = s.redeem_code(&pending, &g2, &r2, &f2, later, T0);
    assert_eq!(o.await.unwrap(), Outcome::Lost);
    assert_eq!(s.grant(&g1.id, T0).await.unwrap().unwrap().value, g1);
    let found = |rt: String, family: String| {
        let (s, gid) = (s.clone(), g1.id.clone());
        async move {
            s.find_refresh_token(&rt, Some(&gid), Some(&family), T0)
                .await
                .unwrap()
        }
    };
    assert!(found(r1, f1).await.is_some());
    assert!(found(r2.clone(), f2).await.is_none());
    assert!(s.refresh_token(&r2, T0).await.unwrap().is_none());
    assert_eq!(s.redeemed_as(&hash, T0).await.unwrap(), Some(g1.id.clone()));
}

/// [`Backend::get_eventual`] and the [`super::Eventual`] view: a written record reads back
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
    let view = super::Eventual(s.as_ref());
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
    use super::QrLogins;
    use crate::domain::authorize::{AuthorizationRequest, Prompt, ResponseMode};
    use crate::domain::login::QrLogin;
    let request = AuthorizationRequest {
        client_id: ClientId::new("shop"),
        redirect_uri: RedirectUri::new("https://rp.example/cb"),
        response_mode: ResponseMode::Query,
        state: None,
        nonce: None,
        scopes: Scopes::from_stored(["openid"]),
        code_challenge: None,
        prompt: Prompt::default(),
        max_age: None,
        login_hint: None,
        ui_locales: None,
        resources: Vec::new(),
        claims: Default::default(),
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

fn passkey_of(sub: &str, credential_id: &str) -> crate::domain::passkey::Passkey {
    crate::domain::passkey::Passkey {
        credential_id: credential_id.to_owned(),
        sub: sub.to_owned(),
        public_key: "cose".into(),
        alg: -7,
        sign_count: 0,
        transports: vec!["internal".into()],
        name: "phone".into(),
        created_at: T0,
        last_used_at: None,
        last_used_from: None,
    }
}

pub async fn webauthn_challenges_are_spent_once_and_expire<B: Backend + 'static>(s: Arc<B>) {
    use super::{Outcome, Passkeys};
    let c = id("wc");
    let exp = T0.secs() + 300;
    assert_eq!(
        s.issue_webauthn_challenge(&c, exp, T0).await.unwrap(),
        Outcome::Done
    );
    assert_eq!(
        s.issue_webauthn_challenge(&c, exp, T0).await.unwrap(),
        Outcome::Lost
    );
    let mut tasks = Vec::new();
    for _ in 0..10 {
        let (s, c) = (s.clone(), c.clone());
        tasks.push(tokio::spawn(async move {
            s.take_webauthn_challenge(&c, T0).await
        }));
    }
    let mut winners = 0;
    for t in tasks {
        if t.await.unwrap().unwrap() {
            winners += 1;
        }
    }
    assert_eq!(winners, 1, "a challenge is spent once");
    assert!(!s.take_webauthn_challenge(&id("unknown"), T0).await.unwrap());
    assert!(!s.take_webauthn_challenge("", T0).await.unwrap());
    let late = id("wc-late");
    s.issue_webauthn_challenge(&late, exp, T0).await.unwrap();
    assert!(
        !s.take_webauthn_challenge(&late, Timestamp::from_secs(exp))
            .await
            .unwrap(),
        "an expired challenge is refused"
    );
}

pub async fn passkeys_are_found_by_credential_and_by_identity<B: Backend>(s: Arc<B>) {
    use super::{IdentityStore, NewIdentityError, NewPasskey, Passkeys};
    let mut ident = identity(&short("pk"), &short("s"));
    ident.device_key_retired = true;
    let first = passkey_of(&ident.sub, &id("cred-a"));
    s.create_identity_with_passkey(&ident, &first, Some((id("reg:pk"), T0.secs() + 60)), T0)
        .await
        .unwrap();
    // The same credential for another identity: nothing is written.
    let other = identity(&short("pk2"), &short("s"));
    let taken = passkey_of(&other.sub, &first.credential_id);
    assert!(matches!(
        s.create_identity_with_passkey(&other, &taken, None, T0)
            .await,
        Err(NewIdentityError::Replay)
    ));
    assert!(s.identity(&other.sub, T0).await.unwrap().is_none());
    let got = s.passkey(&first.credential_id, T0).await.unwrap().unwrap();
    assert_eq!(got.value, first);
    assert!(s.passkey(&id("nobody"), T0).await.unwrap().is_none());
    assert!(s.passkey("", T0).await.unwrap().is_none());
    let (read, v) = s.identity(&ident.sub, T0).await.unwrap().unwrap();
    let second = passkey_of(&ident.sub, &id("cred-b"));
    let jti = (id("add"), T0.secs() + 60);
    assert_eq!(
        s.add_passkey(&second, (&read, v), std::slice::from_ref(&jti), T0)
            .await
            .unwrap(),
        NewPasskey::Added
    );
    assert_eq!(
        s.passkeys_of(&ident.sub, T0).await.unwrap(),
        vec![first.clone(), second.clone()]
    );
    // Adding on the identity as read before (it changed: version + 1) writes nothing.
    let third = passkey_of(&ident.sub, &id("cred-c"));
    assert_eq!(
        s.add_passkey(&third, (&read, v), &[], T0).await.unwrap(),
        NewPasskey::Conflict
    );
    let (read, v) = s.identity(&ident.sub, T0).await.unwrap().unwrap();
    assert_eq!(
        s.add_passkey(&second, (&read, v), &[], T0).await.unwrap(),
        NewPasskey::Taken
    );
    // A spent jti writes nothing.
    assert_eq!(
        s.add_passkey(&third, (&read, v), std::slice::from_ref(&jti), T0)
            .await
            .unwrap(),
        NewPasskey::Conflict
    );
    assert!(s.passkey(&third.credential_id, T0).await.unwrap().is_none());
    assert_eq!(s.passkeys_of(&id("none"), T0).await.unwrap(), vec![]);
    s.forget_passkeys(&ident.sub, T0).await.unwrap();
    assert!(s.passkeys_of(&ident.sub, T0).await.unwrap().is_empty());
    assert!(s.passkey(&first.credential_id, T0).await.unwrap().is_none());
}

pub async fn a_passkey_use_is_one_conditional_write<B: Backend>(s: Arc<B>) {
    use super::{IdentityStore, Outcome, Passkeys};
    let ident = identity(&short("pu"), &short("s"));
    let pk = passkey_of(&ident.sub, &id("cred-u"));
    s.create_identity_with_passkey(&ident, &pk, None, T0)
        .await
        .unwrap();
    let read = s.passkey(&pk.credential_id, T0).await.unwrap().unwrap();
    let later = T0.plus_secs(5);
    assert_eq!(
        s.passkey_used(&read, 3, Some("Stockholm, SE".into()), later)
            .await
            .unwrap(),
        Outcome::Done
    );
    // A second use on the same read loses: the counter never moves twice from one read.
    assert_eq!(
        s.passkey_used(&read, 4, None, later).await.unwrap(),
        Outcome::Lost
    );
    let now = s
        .passkey(&pk.credential_id, T0)
        .await
        .unwrap()
        .unwrap()
        .value;
    assert_eq!(now.sign_count, 3);
    assert_eq!(now.last_used_at, Some(later));
    assert_eq!(now.last_used_from.as_deref(), Some("Stockholm, SE"));
    assert!(s.identity(&ident.sub, T0).await.unwrap().is_some());
}

pub async fn the_last_key_is_never_removed<B: Backend>(s: Arc<B>) {
    use super::{IdentityStore, Passkeys, Removal};
    let ident = identity(&short("rm"), &short("s"));
    let a = passkey_of(&ident.sub, &id("cred-ra"));
    s.create_identity_with_passkey(&ident, &a, None, T0)
        .await
        .unwrap();
    let (read, v) = s.identity(&ident.sub, T0).await.unwrap().unwrap();
    let b = passkey_of(&ident.sub, &id("cred-rb"));
    s.add_passkey(&b, (&read, v), &[], T0).await.unwrap();
    let (read, v) = s.identity(&ident.sub, T0).await.unwrap().unwrap();
    // Retire the device key: allowed while a passkey is left.
    let retired = crate::domain::identity::Identity {
        device_key_retired: true,
        ..read.clone()
    };
    assert!(s
        .update_identity_keeping_passkeys(&retired, v, &[], T0)
        .await
        .unwrap());
    let (read, v) = s.identity(&ident.sub, T0).await.unwrap().unwrap();
    assert!(read.device_key_retired);
    assert_eq!(
        s.remove_passkey((&read, v), &id("nope"), &[], T0)
            .await
            .unwrap(),
        Removal::NotFound
    );
    assert_eq!(
        s.remove_passkey((&read, v - 1), &a.credential_id, &[], T0)
            .await
            .unwrap(),
        Removal::Conflict,
        "an identity changed meanwhile"
    );
    assert_eq!(
        s.remove_passkey(
            (&read, v),
            &a.credential_id,
            &[(id("rm"), T0.secs() + 60)],
            T0
        )
        .await
        .unwrap(),
        Removal::Removed
    );
    assert!(s.passkey(&a.credential_id, T0).await.unwrap().is_none());
    assert_eq!(
        s.remove_passkey((&read, v), &b.credential_id, &[], T0)
            .await
            .unwrap(),
        Removal::LastKey
    );
    assert_eq!(
        s.passkeys_of(&ident.sub, T0).await.unwrap(),
        vec![b.clone()]
    );
    // With the device key in service, the last passkey may go; then the device key may
    // not be retired (no passkey left).
    let active = crate::domain::identity::Identity {
        device_key_retired: false,
        ..read.clone()
    };
    s.update_identity(&active, v, T0).await.unwrap();
    let (read, v) = s.identity(&ident.sub, T0).await.unwrap().unwrap();
    assert_eq!(
        s.remove_passkey((&read, v), &b.credential_id, &[], T0)
            .await
            .unwrap(),
        Removal::Removed
    );
    let retired = crate::domain::identity::Identity {
        device_key_retired: true,
        ..read.clone()
    };
    assert!(!s
        .update_identity_keeping_passkeys(&retired, v, &[], T0)
        .await
        .unwrap());
}

/// Of two racing spends, exactly one is [`Outcome::Done`](super::Outcome::Done): (the winner's, the loser's) `T`.
fn one_wins<T>((a, ta): (super::Outcome, T), (b, tb): (super::Outcome, T)) -> (T, T) {
    assert_eq!(
        [a, b]
            .iter()
            .filter(|o| **o == super::Outcome::Done)
            .count(),
        1,
        "{a:?} {b:?}"
    );
    if a == super::Outcome::Done {
        (ta, tb)
    } else {
        (tb, ta)
    }
}

#[cfg(test)]
mod memory_photos {
    crate::photo_suite!(async { (crate::store::photos::MemoryPhotos::default(), ()) });
}
