//! The device authorization grant (RFC 8628) walked at exact times over the in-memory store:
//! the polling answers second by second, the phone's decision, one redemption, expiry.

use crate::domain::client::{register, Client, NewClient};
use crate::domain::device_grant::RECORD_GRACE_SECS;
use crate::domain::grant::Issued;
use crate::keys::jwt;
use crate::protocol::OAuthErrorCode;
use crate::store::{ClientStore, IdentityStore};
use crate::testing::{params, Builder, TestEnv, IP};
use crate::usecase::app::{self, AppError, Decision};
use crate::usecase::device_grant::{self, Started};
use crate::usecase::token::{self, Presented, TokenError};

async fn env_with_tv() -> (TestEnv, Client) {
    let env = Builder::new().build().await;
    let (tv, _) = register(
        NewClient {
            name: "Living room TV".into(),
            client_id: Some("tv".into()),
            public: true,
            device_code: true,
            ..Default::default()
        },
        env.now(),
        env.random.as_ref(),
    )
    .unwrap();
    env.store.create_client(&tv, env.now()).await.unwrap();
    (env, tv)
}

async fn start(env: &TestEnv, client_id: &str) -> Result<Started, TokenError> {
    let presented = Presented {
        body_id: Some(client_id.into()),
        ..Default::default()
    };
    device_grant::start(
        &env.ctx,
        &params(&[("scope", "openid profile email")]),
        &presented,
        &env.source(),
        "tv-agent/1.0",
    )
    .await
}

async fn poll(env: &TestEnv, tv: &Client, s: &Started) -> Result<Issued, TokenError> {
    token::poll_device_code(&env.ctx, tv, s.device_code.expose()).await
}

fn error_of(r: Result<Issued, TokenError>) -> OAuthErrorCode {
    match r {
        Err(TokenError::OAuth(e)) => e.error,
        other => panic!("expected an OAuth error, got {other:?}"),
    }
}

/// Alice's phone scans the device's code and signs `decision`.
async fn phone_decides(
    env: &TestEnv,
    user_code: &str,
    decision: &str,
) -> Result<Decision, AppError> {
    let s = device_grant::scan_user_code(&env.ctx, user_code, &env.source()).await?;
    let approval = env.phone.approval(
        &env.ctx,
        &env.alice.sub,
        &s.login.id,
        &s.challenge,
        decision,
        // Scanned by its user code: the code is the matching, there is no number.
        None,
    );
    app::decide(&env.ctx, &s.login.id, &approval, &env.source()).await
}

#[tokio::test]
async fn polls_are_answered_second_by_second_and_the_tokens_once() {
    let (env, tv) = env_with_tv().await;
    let s = start(&env, "tv").await.unwrap();
    assert_eq!((s.expires_in, s.interval), (600, 5));
    assert_eq!(
        s.verification_uri,
        "https://id.example.com/realms/scanid/device"
    );
    assert_eq!(
        s.verification_uri_complete,
        format!("{}?user_code={}", s.verification_uri, s.user_code)
    );
    assert_eq!(
        error_of(poll(&env, &tv, &s).await),
        OAuthErrorCode::AuthorizationPending
    );
    env.advance(4);
    assert_eq!(
        error_of(poll(&env, &tv, &s).await),
        OAuthErrorCode::SlowDown
    );
    // The interval is 10 s now, counted from the last answered poll.
    env.advance(9);
    assert_eq!(
        error_of(poll(&env, &tv, &s).await),
        OAuthErrorCode::SlowDown
    );
    env.advance(15);
    assert_eq!(
        error_of(poll(&env, &tv, &s).await),
        OAuthErrorCode::AuthorizationPending
    );

    // The phone sees what it approves, and where the device asked from.
    let scanned =
        device_grant::scan_user_code(&env.ctx, &s.user_code.to_lowercase(), &env.source())
            .await
            .unwrap();
    assert_eq!(scanned.user_code, s.user_code);
    assert_eq!(scanned.client.name, "Living room TV");
    assert_eq!(
        scanned.login.request.scopes.as_slice(),
        ["openid", "profile"],
        "email is ignored"
    );
    assert_eq!(scanned.login.browser_ip, IP);
    assert_eq!(scanned.login.user_agent, "tv-agent/1.0");
    assert_eq!(
        phone_decides(&env, &s.user_code, "approve").await.unwrap(),
        Decision::Approve
    );
    // Decided: the code is no longer waiting for anyone.
    assert!(matches!(
        phone_decides(&env, &s.user_code, "deny").await,
        Err(AppError::UnknownLogin)
    ));

    let issued = poll(&env, &tv, &s).await.unwrap();
    let id: serde_json::Map<String, serde_json::Value> = jwt::verify(
        &crate::testing::keyring(),
        issued.id_token.as_deref().unwrap(),
        &env.ctx.settings.issuer(),
        env.now(),
    )
    .unwrap();
    assert_eq!(id["aud"], "tv");
    assert_eq!(id["sub"], env.alice.sub.as_str());
    assert!(issued.refresh_token.is_some());
    assert_eq!(issued.scope, "openid profile");
    assert_eq!(
        error_of(poll(&env, &tv, &s).await),
        OAuthErrorCode::InvalidGrant
    );
}

#[tokio::test]
async fn a_refusal_is_access_denied_until_the_code_expires() {
    let (env, tv) = env_with_tv().await;
    let s = start(&env, "tv").await.unwrap();
    assert_eq!(
        phone_decides(&env, &s.user_code, "deny").await.unwrap(),
        Decision::Deny
    );
    assert_eq!(
        error_of(poll(&env, &tv, &s).await),
        OAuthErrorCode::AccessDenied
    );
    env.advance(600);
    assert_eq!(
        error_of(poll(&env, &tv, &s).await),
        OAuthErrorCode::ExpiredToken
    );
}

#[tokio::test]
async fn a_wrong_number_on_the_device_s_qr_page_refuses_the_device() {
    let (env, tv) = env_with_tv().await;
    let s = start(&env, "tv").await.unwrap();
    // Typed in a browser: a QR page like any login's, with number matching.
    let device_grant::Entered::ShowQr { login, .. } =
        device_grant::enter_user_code(&env.ctx, &s.user_code, "198.51.100.20")
            .await
            .unwrap()
    else {
        panic!("expected the QR page");
    };
    // The login is the device's (its address and user agent), not the typing browser's.
    assert_eq!(
        (login.browser_ip.as_str(), login.user_agent.as_str()),
        (IP, "tv-agent/1.0")
    );
    let challenge = env.scan(&login).await.unwrap();
    let shown = env.number_shown(&login.id).await.unwrap();
    let wrong = if shown == 10 { 11 } else { 10 };
    let approval = env.phone.approval(
        &env.ctx,
        &env.alice.sub,
        &login.id,
        &challenge,
        "approve",
        Some(wrong),
    );
    let d = app::decide(&env.ctx, &login.id, &approval, &env.source()).await;
    assert!(
        matches!(
            d,
            Err(AppError::Cancelled(
                crate::domain::login::CancelReason::WrongNumber
            ))
        ),
        "{d:?}"
    );
    assert_eq!(
        error_of(poll(&env, &tv, &s).await),
        OAuthErrorCode::AccessDenied,
        "the device stops polling, refused"
    );
}

#[tokio::test]
async fn expiry_is_exact_and_a_late_approval_is_refused() {
    let (env, tv) = env_with_tv().await;
    let s = start(&env, "tv").await.unwrap();
    env.advance(590);
    let scanned = device_grant::scan_user_code(&env.ctx, &s.user_code, &env.source())
        .await
        .unwrap();
    assert_eq!(
        scanned.login.expires_at,
        env.now().plus_secs(10),
        "the login never outlives the device code"
    );
    env.advance(10);
    let approval = env.phone.approval(
        &env.ctx,
        &env.alice.sub,
        &scanned.login.id,
        &scanned.challenge,
        "approve",
        None,
    );
    assert!(matches!(
        app::decide(&env.ctx, &scanned.login.id, &approval, &env.source()).await,
        Err(AppError::UnknownLogin)
    ));
    assert_eq!(
        error_of(poll(&env, &tv, &s).await),
        OAuthErrorCode::ExpiredToken
    );
    assert!(matches!(
        device_grant::scan_user_code(&env.ctx, &s.user_code, &env.source()).await,
        Err(AppError::UnknownLogin)
    ));
    env.advance(RECORD_GRACE_SECS);
    assert_eq!(
        error_of(poll(&env, &tv, &s).await),
        OAuthErrorCode::InvalidGrant
    );
}

#[tokio::test]
async fn an_identity_disabled_after_approving_gets_no_tokens() {
    let (env, tv) = env_with_tv().await;
    let s = start(&env, "tv").await.unwrap();
    phone_decides(&env, &s.user_code, "approve").await.unwrap();
    let (mut alice, version) = env
        .store
        .identity(&env.alice.sub, env.now())
        .await
        .unwrap()
        .unwrap();
    alice.disabled = true;
    env.store
        .update_identity(&alice, version, env.now())
        .await
        .unwrap();
    assert_eq!(
        error_of(poll(&env, &tv, &s).await),
        OAuthErrorCode::InvalidGrant
    );
}

/// Issue 24: a device approved before the identity ended every session (the operator's key
/// replacement) gets no tokens.
#[tokio::test]
async fn a_device_approved_before_every_session_ended_gets_no_tokens() {
    let (env, tv) = env_with_tv().await;
    let s = start(&env, "tv").await.unwrap();
    phone_decides(&env, &s.user_code, "approve").await.unwrap();
    env.advance(1);
    crate::usecase::app::replace_key_by_operator(&env.ctx, &env.alice.sub, None)
        .await
        .unwrap();
    env.advance(5);
    assert_eq!(
        error_of(poll(&env, &tv, &s).await),
        OAuthErrorCode::InvalidGrant
    );
}

/// Issue 24: "this wasn't me" on a device approval ends the device's session and tokens.
#[tokio::test]
async fn this_wasn_t_me_on_a_device_approval_revokes_the_device_s_tokens() {
    let (env, tv) = env_with_tv().await;
    let s = start(&env, "tv").await.unwrap();
    phone_decides(&env, &s.user_code, "approve").await.unwrap();
    env.advance(5);
    let issued = poll(&env, &tv, &s).await.unwrap();
    let activity = env.phone.sign(
        &env.ctx,
        "activity+jwt",
        serde_json::json!({ "sub": env.alice.sub }),
    );
    let logins = crate::usecase::app::recent_logins(&env.ctx, &env.alice.sub, &activity)
        .await
        .unwrap();
    let id = logins[0].id.clone();
    let report = env.phone.sign(
        &env.ctx,
        "report+jwt",
        serde_json::json!({ "sub": env.alice.sub, "login": id }),
    );
    let done =
        crate::usecase::app::report_login(&env.ctx, &env.alice.sub, &id, &report, &env.source())
            .await
            .unwrap();
    assert!(done.sid.is_some(), "the device's session was found");
    let r = crate::usecase::resource::introspect(&env.ctx, &tv, &issued.access_token, env.now())
        .await
        .unwrap();
    assert!(!r.active);
}

#[tokio::test]
async fn only_clients_allowed_the_grant_start_it() {
    let (env, _) = env_with_tv().await;
    match start(&env, crate::testing::SPA).await {
        Err(TokenError::OAuth(e)) => assert_eq!(e.error, OAuthErrorCode::UnauthorizedClient),
        other => panic!("{other:?}"),
    }
}

/// The in-memory store, with the device polling between the phone's read of the device
/// authorization and its write, `polls` times (each poll moves the record's version on).
struct PollingMeanwhile {
    inner: std::sync::Arc<crate::store::memory::MemoryStore>,
    polls: std::sync::atomic::AtomicUsize,
}

#[async_trait::async_trait]
impl crate::store::Backend for PollingMeanwhile {
    async fn get(
        &self,
        key: &crate::store::Key,
        now: crate::clock::Timestamp,
    ) -> Result<Option<crate::store::Record>, crate::store::StoreError> {
        self.inner.get(key, now).await
    }
    async fn put(
        &self,
        record: crate::store::Record,
        cond: crate::store::Cond,
        now: crate::clock::Timestamp,
    ) -> Result<(), crate::store::StoreError> {
        self.inner.put(record, cond, now).await
    }
    async fn delete(
        &self,
        key: &crate::store::Key,
        cond: crate::store::Cond,
        now: crate::clock::Timestamp,
    ) -> Result<(), crate::store::StoreError> {
        self.inner.delete(key, cond, now).await
    }
    async fn consume(
        &self,
        key: &crate::store::Key,
        now: crate::clock::Timestamp,
    ) -> Result<Option<crate::store::Record>, crate::store::StoreError> {
        self.inner.consume(key, now).await
    }
    async fn transact(
        &self,
        writes: Vec<crate::store::Write>,
        now: crate::clock::Timestamp,
    ) -> Result<(), crate::store::StoreError> {
        use crate::store::{Cond, Kind, Write};
        use std::sync::atomic::Ordering;
        let settles = writes.iter().find_map(|w| match w {
            Write::Put(r, _) if r.key.kind == Kind::DeviceCode => Some(r.key.clone()),
            _ => None,
        });
        if let Some(key) = settles {
            let left = self.polls.load(Ordering::SeqCst);
            if left > 0 {
                self.polls.store(left - 1, Ordering::SeqCst);
                let rec = self.inner.get(&key, now).await?.unwrap();
                let mut polled = rec.clone();
                polled.version += 1;
                self.inner
                    .put(polled, Cond::Version(rec.version), now)
                    .await?;
            }
        }
        self.inner.transact(writes, now).await
    }
    async fn list(
        &self,
        kind: crate::store::Kind,
        now: crate::clock::Timestamp,
    ) -> Result<Vec<crate::store::Record>, crate::store::StoreError> {
        self.inner.list(kind, now).await
    }
    async fn incr(
        &self,
        key: &crate::store::Key,
        expires_at: i64,
        now: crate::clock::Timestamp,
    ) -> Result<u64, crate::store::StoreError> {
        self.inner.incr(key, expires_at, now).await
    }
}

/// `env`'s context on a store where the device polls `polls` times during the decision.
fn polled_during_decisions(env: &TestEnv, polls: usize) -> crate::Context {
    crate::Context::new(
        env.ctx.settings.clone(),
        std::sync::Arc::new(PollingMeanwhile {
            inner: env.store.clone(),
            polls: polls.into(),
        }),
        crate::testing::keyring(),
        env.clock.clone(),
        env.random.clone(),
    )
    .unwrap()
}

#[tokio::test]
async fn a_poll_between_the_phone_s_read_and_write_does_not_lose_the_decision() {
    let (env, tv) = env_with_tv().await;
    for (polls, expect_ok) in [(1, true), (3, true), (4, false)] {
        let s = start(&env, "tv").await.unwrap();
        let scanned = device_grant::scan_user_code(&env.ctx, &s.user_code, &env.source())
            .await
            .unwrap();
        let approval = env.phone.approval(
            &env.ctx,
            &env.alice.sub,
            &scanned.login.id,
            &scanned.challenge,
            "approve",
            None,
        );
        let ctx = polled_during_decisions(&env, polls);
        let r = app::decide(&ctx, &scanned.login.id, &approval, &env.source()).await;
        if expect_ok {
            assert_eq!(r.unwrap(), Decision::Approve, "{polls} polls meanwhile");
            assert!(poll(&env, &tv, &s).await.is_ok());
        } else {
            // Contention that outlasts the retries is a 503 to retry, never "decided".
            assert!(matches!(r, Err(AppError::Busy)), "{r:?}");
        }
    }
}
