//! The scan's first read of the login is eventually consistent (`usecase::app::scan_from`):
//! over a store whose eventually consistent reads lag (they return a snapshot taken earlier,
//! or nothing), a stale read never accepts a scan the current record refuses, and never hides a
//! login that exists.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::login::{CancelReason, LoginStatus};
use crate::store::memory::MemoryStore;
use crate::store::{Backend, Cond, Key, Kind, QrLogins, Record, StoreError, Write};
use crate::testing::{Builder, TestEnv};
use crate::usecase::app::{self, AppError};
use crate::usecase::login::Poller;

/// The in-memory store, with eventually consistent reads of the frozen keys answered from
/// their snapshot (`None`: not visible yet).
struct Lagging {
    inner: Arc<MemoryStore>,
    frozen: Mutex<HashMap<String, Option<Record>>>,
}

#[async_trait]
impl Backend for Lagging {
    async fn get(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        self.inner.get(key, now).await
    }
    async fn get_eventual(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        let frozen = self.frozen.lock().unwrap().get(&key.pk()).cloned();
        match frozen {
            Some(snapshot) => Ok(snapshot),
            None => self.inner.get(key, now).await,
        }
    }
    async fn put(&self, record: Record, cond: Cond, now: Timestamp) -> Result<(), StoreError> {
        self.inner.put(record, cond, now).await
    }
    async fn delete(&self, key: &Key, cond: Cond, now: Timestamp) -> Result<(), StoreError> {
        self.inner.delete(key, cond, now).await
    }
    async fn consume(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        self.inner.consume(key, now).await
    }
    async fn transact(&self, writes: Vec<Write>, now: Timestamp) -> Result<(), StoreError> {
        self.inner.transact(writes, now).await
    }
    async fn list(&self, kind: Kind, now: Timestamp) -> Result<Vec<Record>, StoreError> {
        self.inner.list(kind, now).await
    }
    async fn incr(&self, key: &Key, expires_at: i64, now: Timestamp) -> Result<u64, StoreError> {
        self.inner.incr(key, expires_at, now).await
    }
}

#[tokio::test]
async fn a_stale_read_of_the_login_neither_accepts_a_refused_scan_nor_hides_the_login() {
    let env: TestEnv = Builder::new().build().await;
    let (login, _) = env.show_qr(&env.shop_auth(&[])).await;
    let (now, source) = (env.now(), env.source());
    let pk = Key::new(Kind::Login, login.id.as_str()).pk();
    let lagging = Arc::new(Lagging {
        inner: env.store.clone(),
        frozen: Mutex::new(HashMap::from([(pk.clone(), None)])),
    });
    let TestEnv { ctx, store, .. } = env;
    let ctx = Context {
        store: lagging.clone(),
        ..ctx
    };
    let c0 = login.current_challenge(now);
    let unscanned = store.qr_login(&login.id, now).await.unwrap().unwrap();

    // Not visible yet to an eventually consistent read: the scan reads again, consistently.
    let scanned = app::scan(&ctx, &login.id, &c0, None, &source)
        .await
        .unwrap();
    assert_eq!(scanned.login.scanned_challenges(), vec![c0.clone()]);

    // From now on the eventually consistent read shows the login as it was before that scan.
    lagging
        .frozen
        .lock()
        .unwrap()
        .insert(pk, Some(unscanned.record.clone()));
    // The spent challenge again: accepted on the stale copy, the write conditional on its
    // version loses, and the consistent read refuses it.
    assert!(matches!(
        app::scan(&ctx, &login.id, &c0, None, &source).await,
        Err(AppError::UnknownLogin)
    ));
    let stored = store.qr_login(&login.id, now).await.unwrap().unwrap();
    assert_eq!(
        stored.value.status,
        LoginStatus::Pending,
        "nothing cancelled"
    );
    assert_eq!(stored.value.scanned_challenges(), vec![c0.clone()]);
    assert_eq!(stored.record.version, unscanned.record.version + 1);
    // A second phone, with the QR of a second before (still fresh): the stale copy says
    // nobody scanned, the current one that another phone did, and the login is cancelled.
    let c_before = login.current_challenge(Timestamp::from_secs(now.secs() - 1));
    assert_ne!(c_before, c0);
    let r = app::scan(&ctx, &login.id, &c_before, None, &source).await;
    assert!(
        matches!(r, Err(AppError::Cancelled(CancelReason::SecondDevice))),
        "{r:?}"
    );
    let stored = store.qr_login(&login.id, now).await.unwrap().unwrap();
    assert_eq!(stored.value.cancelled, Some(CancelReason::SecondDevice));
}

/// The page's status poll reads the login eventually consistent (`usecase::login::
/// polled_login`): a login such a read does not show yet is read again, consistently (the
/// page is never told its login is gone), and a stale copy only shows it as it was.
#[tokio::test]
async fn a_poll_never_loses_a_login_a_stale_read_does_not_show_yet() {
    let env: TestEnv = Builder::new().build().await;
    let (login, browser) = env.show_qr(&env.shop_auth(&[])).await;
    let now = env.now();
    let pk = Key::new(Kind::Login, login.id.as_str()).pk();
    let lagging = Arc::new(Lagging {
        inner: env.store.clone(),
        frozen: Mutex::new(HashMap::from([(pk.clone(), None)])),
    });
    let TestEnv { ctx, store, .. } = env;
    let ctx = Context {
        store: lagging.clone(),
        ..ctx
    };
    let polled =
        crate::usecase::login::polled_login(&ctx, &login.id, Poller::Browser(Some(&browser)), now)
            .await
            .unwrap();
    assert_eq!(polled.value.status, LoginStatus::Pending);
    let current = store.qr_login(&login.id, now).await.unwrap().unwrap();
    assert_eq!(polled.record.version, current.record.version);
    // Another browser is not told more than "unknown".
    let other = crate::protocol::Secret::new("another browser".to_owned());
    assert!(matches!(
        crate::usecase::login::polled_login(&ctx, &login.id, Poller::Browser(Some(&other)), now)
            .await,
        Err(crate::usecase::login::BoundLoginError::OtherBrowser)
    ));
    // The page's poll token reads it as the cookie does; another login's token, or none,
    // does not.
    let token = current.value.poll_token();
    let polled = crate::usecase::login::polled_login(&ctx, &login.id, Poller::Token(&token), now)
        .await
        .unwrap();
    assert_eq!(polled.value.status, LoginStatus::Pending);
    for wrong in ["", "x", &current.value.current_challenge(now)] {
        assert!(matches!(
            crate::usecase::login::polled_login(&ctx, &login.id, Poller::Token(wrong), now).await,
            Err(crate::usecase::login::BoundLoginError::OtherBrowser)
        ));
    }
    assert!(matches!(
        crate::usecase::login::polled_login(&ctx, &login.id, Poller::Browser(None), now).await,
        Err(crate::usecase::login::BoundLoginError::OtherBrowser)
    ));
    // A stale copy is what the poll shows until the read catches up.
    let mut older = current.record.clone();
    older.version = 0;
    lagging.frozen.lock().unwrap().insert(pk, Some(older));
    let polled =
        crate::usecase::login::polled_login(&ctx, &login.id, Poller::Browser(Some(&browser)), now)
            .await
            .unwrap();
    assert_eq!(polled.record.version, 0);
}
