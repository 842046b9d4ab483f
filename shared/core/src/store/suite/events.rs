//! The event store suite.

use crate::clock::Timestamp;
use crate::store::events::{EventQuery, EventStore, StoredEvent};

/// Generates the event store suite's tests for an adapter (`$factory` returns `(events,
/// guard)`).
#[macro_export]
macro_rules! event_suite {
    ($factory:expr) => {
        mod event_suite {
            #[allow(unused_imports)]
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn events_are_found_by_filter_newest_first_and_expire() {
                let (events, _guard) = $factory.await;
                $crate::store::suite::events_are_found_by_filter_newest_first_and_expire(&events)
                    .await;
            }
        }
    };
}

fn event(
    id: &str,
    time: i64,
    name: &str,
    client: &str,
    sub: Option<&str>,
    expires: i64,
) -> StoredEvent {
    StoredEvent {
        id: format!("{time:013}-{id}"),
        time,
        name: name.to_owned(),
        kind: crate::domain::admin::events::keycloak_type(name, "success", None),
        client_id: Some(client.to_owned()),
        sub: sub.map(str::to_owned),
        source: Some("192.0.2.1".into()),
        outcome: "success".into(),
        detail: None,
        object: None,
        expires_at: expires,
    }
}

pub async fn events_are_found_by_filter_newest_first_and_expire<E: EventStore>(store: &E) {
    // Now-ish times: an adapter may bucket events by day.
    let now = Timestamp::from_secs(1_800_000_000);
    let t = now.millis();
    let run = uuid::Uuid::new_v4().simple().to_string();
    let (shop, blog) = (format!("shop-{run}"), format!("blog-{run}"));
    let (alice, bob) = (format!("alice-{run}"), format!("bob-{run}"));
    let live = now.secs() + 86_400;
    let day = 86_400_000;
    let all = vec![
        event(
            &format!("{run}-1"),
            t - 2 * day,
            "login.approved",
            &shop,
            Some(&alice),
            live,
        ),
        event(
            &format!("{run}-2"),
            t - 3_000,
            "token.issued",
            &shop,
            Some(&alice),
            live,
        ),
        event(
            &format!("{run}-3"),
            t - 2_000,
            "login.approved",
            &blog,
            Some(&bob),
            live,
        ),
        event(
            &format!("{run}-4"),
            t - 1_000,
            "login.denied",
            &shop,
            Some(&bob),
            live,
        ),
        // Expired: never read.
        event(
            &format!("{run}-5"),
            t - 500,
            "login.approved",
            &shop,
            Some(&alice),
            now.secs(),
        ),
        event(
            &format!("{run}-6"),
            t - 100,
            "admin.call",
            &shop,
            None,
            live,
        ),
    ];
    store.append(all.clone()).await.unwrap();
    // Writing a batch again writes nothing new.
    store.append(all[..2].to_vec()).await.unwrap();
    let ids = |v: Vec<StoredEvent>| -> Vec<String> {
        v.into_iter()
            .map(|e| e.id.rsplit('-').next().unwrap_or_default().to_owned())
            .collect()
    };
    let q = |f: &dyn Fn(&mut EventQuery)| {
        let mut q = EventQuery {
            from: Some(t - 10 * day),
            max: 100,
            ..EventQuery::default()
        };
        f(&mut q);
        q
    };
    let by_client = q(&|q| q.client_id = Some(shop.clone()));
    let got = store.events(&by_client, now).await.unwrap();
    assert_eq!(got[0], all[3]);
    assert!(got[0].id.starts_with(&format!("{:013}-", t - 1_000)));
    assert_eq!(ids(got), ["4", "2", "1"]);
    let by_sub = q(&|q| q.sub = Some(bob.clone()));
    assert_eq!(ids(store.events(&by_sub, now).await.unwrap()), ["4", "3"]);
    let by_name = q(&|q| {
        q.sub = Some(alice.clone());
        q.types = vec!["LOGIN".into()];
    });
    assert_eq!(ids(store.events(&by_name, now).await.unwrap()), ["1"]);
    let by_time = q(&|q| {
        q.client_id = Some(shop.clone());
        q.from = Some(t - day);
        q.to = Some(t - 2_000);
    });
    assert_eq!(ids(store.events(&by_time, now).await.unwrap()), ["2"]);
    let paged = q(&|q| {
        q.client_id = Some(shop.clone());
        q.first = 1;
        q.max = 1;
    });
    assert_eq!(ids(store.events(&paged, now).await.unwrap()), ["2"]);
    let admin = q(&|q| {
        q.client_id = Some(shop.clone());
        q.admin = true;
    });
    assert_eq!(ids(store.events(&admin, now).await.unwrap()), ["6"]);
    // Only the time: found among everything else in the window.
    let recent = q(&|q| q.from = Some(t - 10_000));
    let got = ids(store
        .events(&recent, now)
        .await
        .unwrap()
        .into_iter()
        .filter(|e| e.id.contains(&run))
        .collect());
    assert_eq!(got, ["4", "3", "2"]);
}
