//! The backchannel endpoint does the same store work whether its hint names a person or
//! nobody (no directory oracle by timing, security-overview.md): the calls are counted by a
//! store that wraps the in-memory one, with Web Push configured and the person without a
//! subscription (a person with one costs the push's encryption and hand-over as well).

use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use crate::clock::Timestamp;
use crate::domain::client::{register, NewClient};
use crate::service::client_auth::Presented;
use crate::store::{
    Backchannels, Backend, ClientStore, Cond, Key, Kind, Record, StoreError, Write,
};
use crate::testing::{params, Builder};
use crate::usecase::ciba;

/// The in-memory store, recording each call: `get`, `put`, `transact:<n writes>`, `incr`...
struct Counting {
    inner: Arc<dyn Backend>,
    calls: Mutex<Vec<String>>,
}

impl Counting {
    fn note(&self, call: String) {
        if let Ok(mut c) = self.calls.lock() {
            c.push(call);
        }
    }

    fn take(&self) -> Vec<String> {
        self.calls
            .lock()
            .map(|mut c| std::mem::take(&mut *c))
            .unwrap_or_default()
    }
}

#[async_trait]
impl Backend for Counting {
    async fn get(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        self.note("get".into());
        self.inner.get(key, now).await
    }
    async fn get_eventual(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        self.note("get_eventual".into());
        self.inner.get_eventual(key, now).await
    }
    async fn put(&self, record: Record, cond: Cond, now: Timestamp) -> Result<(), StoreError> {
        self.note("put".into());
        self.inner.put(record, cond, now).await
    }
    async fn delete(&self, key: &Key, cond: Cond, now: Timestamp) -> Result<(), StoreError> {
        self.note("delete".into());
        self.inner.delete(key, cond, now).await
    }
    async fn consume(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        self.note("consume".into());
        self.inner.consume(key, now).await
    }
    async fn transact(&self, writes: Vec<Write>, now: Timestamp) -> Result<(), StoreError> {
        self.note(format!("transact:{}", writes.len()));
        self.inner.transact(writes, now).await
    }
    async fn list(&self, kind: Kind, now: Timestamp) -> Result<Vec<Record>, StoreError> {
        self.note("list".into());
        self.inner.list(kind, now).await
    }
    async fn incr(&self, key: &Key, expires_at: i64, now: Timestamp) -> Result<u64, StoreError> {
        self.note("incr".into());
        self.inner.incr(key, expires_at, now).await
    }
}

#[tokio::test]
async fn a_known_and_an_unknown_hint_cost_the_same_store_work() {
    let mut env = Builder::new()
        .setting(|r| {
            r.vapid_private_key = Some("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw".into());
        })
        .build()
        .await;
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
    env.store.create_client(&desk, now).await.unwrap();
    let counting = Arc::new(Counting {
        inner: env.store.clone(),
        calls: Mutex::new(Vec::new()),
    });
    env.ctx.store = counting.clone() as Arc<dyn Backend>;
    let presented = Presented {
        basic: Some(("desk".into(), secret.unwrap().expose().to_owned())),
        ..Default::default()
    };
    let mut work = Vec::new();
    // Twice each: the first request of a person creates its list, a later one changes it.
    for hint in ["alice", "nobody", "alice", "nobody"] {
        let p = params(&[("scope", "openid"), ("login_hint", hint)]);
        ciba::start(&env.ctx, &p, &presented, &env.source(), "till")
            .await
            .unwrap();
        work.push((hint, counting.take()));
    }
    assert_eq!(work[0].1, work[1].1, "a first request: {work:?}");
    assert_eq!(work[2].1, work[3].1, "a later request: {work:?}");
    assert!(
        work[0].1.iter().any(|c| c == "transact:2"),
        "the request and its list, together: {work:?}"
    );
    // The person's list holds only the person's requests.
    let alice = env.alice.sub.to_string();
    assert_eq!(
        env.store
            .pending_backchannel(&alice, now)
            .await
            .unwrap()
            .len(),
        2
    );
}
