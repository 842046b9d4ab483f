//! Rate-limit counters.

use super::*;

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
        passkey_challenges_per_minute: 30,
        passkey_challenges_per_login: 10,
        device_authorizations_per_minute: 30,
        device_codes_per_client_per_hour: 1000,
        ciba_requests_per_client_per_hour: 1000,
        ciba_requests_per_person_per_hour: 10,
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
