//! The use cases walked step by step at exact times, over the in-memory store with a fixed
//! clock and seeded randomness ([`crate::testing`]); no server, no sleeping.

use serde_json::{json, Map, Value};

use crate::config::Limits;
use crate::domain::consent::{csrf_token, ConsentInput, ConsentRefusal};
use crate::domain::grant::{Issued, REFRESH_GRACE_SECS};
use crate::domain::login::{CancelReason, LoginStatus, COMPLETED_GRACE_SECS, RECORD_GRACE_SECS};
use crate::domain::ratelimit::{Counted, Limit};
use crate::keys::jwt;
use crate::protocol::OAuthErrorCode;
use crate::store::SsoSessions;
use crate::testing::{
    param, Builder, Device, TestEnv, IP, SHOP, SHOP_LOGGED_OUT, SHOP_REDIRECT, T0, VERIFIER,
};
use crate::usecase::device::{self, Decision, DeviceError};
use crate::usecase::login::{
    bound_login, AuthorizeDecision, BoundLoginError, BrowserSecret, ConsentOutcome,
};
use crate::usecase::logout::{self, LogoutOutcome, LogoutRequest};
use crate::usecase::ratelimit;
use crate::usecase::resource;
use crate::usecase::token::TokenError;

async fn env() -> TestEnv {
    Builder::new().build().await
}

/// The error description of an `invalid_grant` answer (anything else fails the test).
fn invalid_grant(r: Result<Issued, TokenError>) -> String {
    match r {
        Err(TokenError::OAuth(e)) if e.error == OAuthErrorCode::InvalidGrant => {
            e.error_description.into_owned()
        }
        other => panic!("expected invalid_grant, got {other:?}"),
    }
}

/// The claims of a token signed by the test keys, checked at the env's now.
fn claims(env: &TestEnv, token: &str) -> Map<String, Value> {
    jwt::verify(
        &crate::testing::keyring(),
        token,
        &env.ctx.settings.issuer(),
        env.now(),
    )
    .unwrap()
}

async fn introspect_as_shop(env: &TestEnv, token: &str) -> Value {
    let response = resource::introspect(&env.ctx, &env.shop, token, env.now())
        .await
        .unwrap();
    serde_json::to_value(response).unwrap()
}

// ---------------------------------------------------------------------------------------
// authorize

#[tokio::test]
async fn authorize_a_valid_request_opens_a_qr_login_bound_to_the_browser() {
    let env = env().await;
    let d = env.authorize(&env.shop_auth(&[]), None).await;
    let AuthorizeDecision::ShowQr {
        login: session,
        client_name,
        browser_secret,
    } = d
    else {
        panic!("expected the QR page, got {d:?}");
    };
    assert_eq!(client_name, "Shop");
    assert_eq!(session.request.client_id, SHOP);
    assert_eq!(session.request.scopes.as_slice(), ["openid", "profile"]);
    assert_eq!(session.status, LoginStatus::Pending);
    assert_eq!(session.created_at, T0);
    assert_eq!(
        session.expires_at,
        T0.plus_secs(300),
        "SCANID_LOGIN_TTL default"
    );
    assert!(session.bound_to(Some(browser_secret.expose())));
    let stored = env.qr_login(&session.id).await;
    assert_eq!(stored.value, session, "the login is stored as shown");
}

#[tokio::test]
async fn only_the_browser_that_opened_a_qr_login_reads_it_until_its_record_is_gone() {
    let env = env().await;
    let (qr, secret) = env.show_qr(&env.shop_auth(&[])).await;
    let other = BrowserSecret::new("another browser's secret");
    let id = qr.id.to_string();
    let read = bound_login(&env.ctx, &id, Some(&secret), env.now()).await;
    assert_eq!(read.unwrap().value, qr);
    for browser in [Some(&other), None] {
        assert!(matches!(
            bound_login(&env.ctx, &id, browser, env.now()).await,
            Err(BoundLoginError::OtherBrowser)
        ));
    }
    for malformed in [String::new(), "x".repeat(65), "unknown".into()] {
        assert!(matches!(
            bound_login(&env.ctx, &malformed, Some(&secret), env.now()).await,
            Err(BoundLoginError::NotFound)
        ));
    }
    // The record outlives the login (the page learns "expired"), then it is gone.
    env.advance(300 + RECORD_GRACE_SECS - 1);
    let read = bound_login(&env.ctx, &id, Some(&secret), env.now()).await;
    assert_eq!(read.unwrap().value.public_status(env.now()), "expired");
    env.advance(1);
    assert!(matches!(
        bound_login(&env.ctx, &id, Some(&secret), env.now()).await,
        Err(BoundLoginError::NotFound)
    ));
}

#[tokio::test]
async fn authorize_prompt_none_without_sso_answers_login_required() {
    let env = env().await;
    let d = env
        .authorize(&env.shop_auth(&[("prompt", "none")]), None)
        .await;
    let AuthorizeDecision::Respond(r) = d else {
        panic!("expected a response to the client, got {d:?}");
    };
    assert_eq!(r.redirect_uri, SHOP_REDIRECT);
    assert_eq!(param(&r, "error"), Some("login_required"));
    assert_eq!(param(&r, "state"), Some("st-1"));
    assert_eq!(param(&r, "iss"), Some(env.ctx.settings.issuer().as_str()));
    assert_eq!(param(&r, "code"), None);
}

#[tokio::test]
async fn authorize_prompt_none_with_sso_but_no_consent_answers_consent_required() {
    let env = env().await;
    let first = env.login(&env.shop_auth(&[])).await;
    // The SPA was never consented to: the session alone does not answer silently.
    let d = env
        .authorize(
            &env.spa_auth(&[("prompt", "none")]),
            Some(&first.sso_cookie),
        )
        .await;
    let AuthorizeDecision::Respond(r) = d else {
        panic!("expected a response to the client, got {d:?}");
    };
    assert_eq!(param(&r, "error"), Some("consent_required"));
}

#[tokio::test]
async fn authorize_with_sso_and_remembered_consent_answers_with_a_code_at_once() {
    let env = env().await;
    let first = env.login(&env.shop_auth(&[])).await;
    env.advance(30);
    let d = env
        .authorize(
            &env.shop_auth(&[("state", "st-2")]),
            Some(&first.sso_cookie),
        )
        .await;
    let AuthorizeDecision::Respond(r) = d else {
        panic!("expected a code at once, got {d:?}");
    };
    let code = param(&r, "code").expect("a code");
    assert_ne!(code, first.code);
    assert_eq!(param(&r, "state"), Some("st-2"));
    assert_eq!(
        param(&r, "session_state"),
        Some(first.sid.as_str()),
        "joins the session"
    );
    let tokens = env.exchange_shop(code).await.unwrap();
    let id = claims(&env, tokens.id_token.as_deref().unwrap());
    assert_eq!(
        id["auth_time"],
        json!(T0.secs()),
        "the phone's approval, not now"
    );

    // Without the cookie the same request needs the phone again.
    let d = env.authorize(&env.shop_auth(&[]), None).await;
    assert!(matches!(d, AuthorizeDecision::ShowQr { .. }), "{d:?}");
    // A cookie whose secret is wrong proves nothing.
    let (sid, _) = first.sso_cookie.split_once('.').unwrap();
    let forged = format!("{sid}.not-the-secret");
    let d = env.authorize(&env.shop_auth(&[]), Some(&forged)).await;
    assert!(matches!(d, AuthorizeDecision::ShowQr { .. }), "{d:?}");
}

#[tokio::test]
async fn authorize_max_age_elapsed_forces_a_new_login() {
    let env = env().await;
    let first = env.login(&env.shop_auth(&[])).await; // auth_time = T0
    let p = env.shop_auth(&[("max_age", "60")]);
    env.advance(59);
    let d = env.authorize(&p, Some(&first.sso_cookie)).await;
    assert!(
        matches!(&d, AuthorizeDecision::Respond(r) if param(r, "code").is_some()),
        "59 s after the login, max_age=60 still holds: {d:?}"
    );
    env.advance(1);
    let d = env.authorize(&p, Some(&first.sso_cookie)).await;
    assert!(
        matches!(d, AuthorizeDecision::ShowQr { .. }),
        "60 s after the login, max_age=60 asks for the phone again: {d:?}"
    );
    // The session itself lives on: without max_age it still answers at once.
    let d = env
        .authorize(&env.shop_auth(&[]), Some(&first.sso_cookie))
        .await;
    assert!(matches!(d, AuthorizeDecision::Respond(_)), "{d:?}");
}

// ---------------------------------------------------------------------------------------
// device: scan and decide

#[tokio::test]
async fn scan_accepts_a_fresh_challenge_once_and_refuses_it_after_the_ttl() {
    let env = env().await;
    let (login, _) = env.show_qr(&env.shop_auth(&[])).await;
    let ttl = env.ctx.settings.lifetimes.qr_challenge;
    assert_eq!(ttl, 3, "the default");
    let c0 = login.current_challenge(env.now());
    let future = login.current_challenge(env.now().plus_secs(1));
    let anon = |c: &str| {
        let c = c.to_owned();
        let (ctx, id, src) = (&env.ctx, login.id.clone(), env.source());
        async move { device::scan(ctx, &id, &c, None, &src).await }
    };
    assert!(
        matches!(anon(&future).await, Err(DeviceError::UnknownLogin)),
        "a challenge of the next second"
    );
    env.advance(ttl - 1);
    let scanned = anon(&c0).await.unwrap();
    assert_eq!(scanned.client.client_id, SHOP);
    assert_eq!(scanned.login.scanned_challenges(), vec![c0.clone()]);
    let n = scanned.login.number.unwrap();
    assert!(scanned.login.number_choices().contains(&n));
    assert!(
        matches!(anon(&c0).await, Err(DeviceError::UnknownLogin)),
        "a challenge is usable once"
    );
    assert_eq!(
        env.qr_login(&login.id).await.value.status,
        LoginStatus::Pending,
        "a replayed challenge cancels nothing"
    );
    // Another login's code, scanned 4 s after it was shown: dead.
    let (other, _) = env.show_qr(&env.shop_auth(&[])).await;
    let old = other.current_challenge(env.now());
    env.advance(4);
    let late = device::scan(&env.ctx, &other.id, &old, None, &env.source()).await;
    assert!(
        matches!(late, Err(DeviceError::UnknownLogin)),
        "4 s old: {late:?}"
    );
    // The QR shows a newer challenge by now, and that one is accepted.
    let now = other.current_challenge(env.now());
    device::scan(&env.ctx, &other.id, &now, None, &env.source())
        .await
        .unwrap();
    assert!(matches!(
        device::scan(
            &env.ctx,
            &other.id,
            "AAAAAAAAAAAAAAAAAAAAAA",
            None,
            &env.source()
        )
        .await,
        Err(DeviceError::UnknownLogin)
    ));
}

/// Replaces the integration test that waited 11 s for a `--login-ttl 10` login to expire.
#[tokio::test]
async fn scan_says_started_here_only_with_the_logins_own_browser_secret() {
    let env = env().await;
    let (_other, other_secret) = env.show_qr(&env.shop_auth(&[])).await;
    // Each case scans a login of its own: a second scan of one login would cancel it.
    let started_here = |which: Option<&str>| {
        let env = &env;
        let which = which.map(str::to_owned);
        async move {
            let (login, secret) = env.show_qr(&env.shop_auth(&[])).await;
            let browser_secret = match which.as_deref() {
                Some("own") => Some(secret.expose().to_owned()),
                Some("hash") => Some(login.browser_hash.clone()),
                other => other.map(str::to_owned),
            };
            let c = login.current_challenge(env.now());
            let src = env.source();
            let by = device::ScanBy {
                proof: None,
                browser_secret: browser_secret.as_deref(),
                who: &src,
                phone_ip: "192.0.2.1",
            };
            device::scan_from(&env.ctx, &login.id, &c, by)
                .await
                .unwrap()
                .started_here
        }
    };
    assert!(started_here(Some("own")).await, "the login's own browser");
    assert!(
        !started_here(None).await,
        "no cookie: another device, or a native app"
    );
    assert!(
        !started_here(Some(other_secret.expose())).await,
        "another login's browser secret proves nothing"
    );
    assert!(!started_here(Some("")).await);
    assert!(
        !started_here(Some("hash")).await,
        "the stored hash is not the secret"
    );
}

#[tokio::test]
async fn an_expired_login_refuses_scans_and_decisions_but_still_says_expired() {
    let env = env().await;
    let (login, _) = env.show_qr(&env.shop_auth(&[])).await;
    let ttl = env.ctx.settings.lifetimes.login;
    env.advance(ttl - 1);
    let challenge = login.current_challenge(env.now());
    device::scan(&env.ctx, &login.id, &challenge, None, &env.source())
        .await
        .unwrap();
    env.advance(1);
    assert_eq!(env.now(), login.expires_at);
    let scan = device::scan(
        &env.ctx,
        &login.id,
        &login.current_challenge(env.now()),
        None,
        &env.source(),
    )
    .await;
    assert!(
        matches!(scan, Err(DeviceError::UnknownLogin)),
        "expired: {scan:?}"
    );
    // A challenge scanned in time cannot be decided once the login has expired.
    let n = env.number_shown(&login.id).await;
    let approval = env.phone.approval(
        &env.ctx,
        &env.alice.sub,
        &login.id,
        &challenge,
        "approve",
        n,
    );
    let d = device::decide(&env.ctx, &login.id, &approval, &env.source()).await;
    assert!(matches!(d, Err(DeviceError::UnknownLogin)), "{d:?}");
    // The record outlives the login so the page can learn "expired" and offer a fresh start.
    let stored = env.qr_login(&login.id).await;
    assert_eq!(
        stored.value.status,
        LoginStatus::Pending,
        "nothing was decided"
    );
    assert_eq!(stored.value.public_status(env.now()), "expired");
    env.advance(RECORD_GRACE_SECS - 1);
    assert_eq!(
        env.qr_login(&login.id).await.value.public_status(env.now()),
        "expired"
    );
    env.advance(1);
    assert!(env.qr_login_gone(&login.id).await);
}

#[tokio::test]
async fn decide_approve_once_then_already_decided() {
    let env = env().await;
    let (login, _) = env.show_qr(&env.shop_auth(&[])).await;
    let challenge = login.current_challenge(env.now());
    // A decision on a challenge never scanned is "not found".
    let unscanned = env.phone.approval(
        &env.ctx,
        &env.alice.sub,
        &login.id,
        &challenge,
        "approve",
        Some(42),
    );
    let d = device::decide(&env.ctx, &login.id, &unscanned, &env.source()).await;
    assert!(matches!(d, Err(DeviceError::UnknownLogin)), "{d:?}");

    device::scan(&env.ctx, &login.id, &challenge, None, &env.source())
        .await
        .unwrap();
    env.advance(20); // the challenge rotated meanwhile; it was accepted at scan time
    let n = env.number_shown(&login.id).await;
    let approval = env.phone.approval(
        &env.ctx,
        &env.alice.sub,
        &login.id,
        &challenge,
        "approve",
        n,
    );
    let d = device::decide(&env.ctx, &login.id, &approval, &env.source()).await;
    assert_eq!(d.unwrap(), Decision::Approve);
    assert_eq!(
        env.qr_login(&login.id).await.value.status,
        LoginStatus::Approved {
            sub: env.alice.sub.clone(),
            auth_time: T0.plus_secs(20),
            approved_with: crate::domain::authn::Method::DeviceKey,
        }
    );
    let second = env.phone.approval(
        &env.ctx,
        &env.alice.sub,
        &login.id,
        &challenge,
        "deny",
        None,
    );
    let d = device::decide(&env.ctx, &login.id, &second, &env.source()).await;
    assert!(matches!(d, Err(DeviceError::AlreadyDecided)), "{d:?}");
    let d = device::decide(&env.ctx, &login.id, &approval, &env.source()).await;
    assert!(
        matches!(d, Err(DeviceError::AlreadyDecided)),
        "the same JWS again: {d:?}"
    );
    assert!(matches!(
        env.qr_login(&login.id).await.value.status,
        LoginStatus::Approved { .. }
    ));
}

#[tokio::test]
async fn decide_deny_ends_the_login_with_access_denied() {
    let env = env().await;
    let (login, secret) = env.show_qr(&env.shop_auth(&[])).await;
    let d = env.scan_and_decide(&login, "deny").await.unwrap();
    assert_eq!(d, Decision::Deny);
    assert_eq!(
        env.qr_login(&login.id).await.value.status,
        LoginStatus::Denied
    );
    // The page moves on to the consent step, which sends the browser back with the error.
    let ConsentOutcome::Denied(r) = env.consent(&login.id, &secret, ConsentInput::Open).await
    else {
        panic!("expected access_denied");
    };
    assert_eq!(param(&r, "error"), Some("access_denied"));
    assert_eq!(param(&r, "state"), Some("st-1"));
    assert_eq!(param(&r, "code"), None);
    assert_eq!(
        env.qr_login(&login.id).await.value.status,
        LoginStatus::Completed
    );
}

#[tokio::test]
async fn a_replayed_jti_is_refused() {
    let env = env().await;
    let (a, _) = env.show_qr(&env.shop_auth(&[])).await;
    let (b, _) = env.show_qr(&env.shop_auth(&[("state", "st-b")])).await;
    let ca = a.current_challenge(env.now());
    let cb = b.current_challenge(env.now());
    device::scan(&env.ctx, &a.id, &ca, None, &env.source())
        .await
        .unwrap();
    device::scan(&env.ctx, &b.id, &cb, None, &env.source())
        .await
        .unwrap();
    let (na, nb) = (env.number_shown(&a.id).await, env.number_shown(&b.id).await);
    let signed = |session: &str, challenge: &str, number: Option<u8>| {
        env.phone.sign(
            &env.ctx,
            "approval+jwt",
            json!({ "sub": env.alice.sub, "session": session, "challenge": challenge,
                    "decision": "approve", "number": number, "jti": "once" }),
        )
    };
    let d = device::decide(&env.ctx, &a.id, &signed(&a.id, &ca, na), &env.source()).await;
    assert_eq!(d.unwrap(), Decision::Approve);
    // A second, validly signed decision on another login with the same jti.
    let d = device::decide(&env.ctx, &b.id, &signed(&b.id, &cb, nb), &env.source()).await;
    match d {
        Err(DeviceError::Invalid(why)) => assert!(why.contains("jti"), "{why}"),
        other => panic!("expected the jti to be refused, got {other:?}"),
    }
    assert_eq!(
        env.qr_login(&b.id).await.value.status,
        LoginStatus::Pending,
        "the replay wrote nothing"
    );
}

#[tokio::test]
async fn a_decision_signed_by_another_key_is_refused() {
    let env = env().await;
    let (login, _) = env.show_qr(&env.shop_auth(&[])).await;
    let challenge = login.current_challenge(env.now());
    device::scan(&env.ctx, &login.id, &challenge, None, &env.source())
        .await
        .unwrap();
    let mallory = Device::generate();
    let n = env.number_shown(&login.id).await;
    let forged = mallory.approval(
        &env.ctx,
        &env.alice.sub,
        &login.id,
        &challenge,
        "approve",
        n,
    );
    let d = device::decide(&env.ctx, &login.id, &forged, &env.source()).await;
    assert!(matches!(d, Err(DeviceError::Invalid(_))), "{d:?}");
    assert_eq!(
        env.qr_login(&login.id).await.value.status,
        LoginStatus::Pending
    );
}

/// Bob, a second identity with his own phone.
async fn bob(env: &TestEnv) -> (Device, String) {
    let phone = Device::generate();
    let reg = phone.registration(&env.ctx, "bob");
    let bob = device::signup(&env.ctx, &reg, &env.source()).await.unwrap();
    (phone, bob.sub.to_string())
}

/// Alice's recent logins, as her app reads them.
async fn alice_logins(env: &TestEnv) -> Vec<crate::domain::identity::LoginActivity> {
    let activity = env
        .phone
        .sign(&env.ctx, "activity+jwt", json!({ "sub": env.alice.sub }));
    device::recent_logins(&env.ctx, &env.alice.sub, &activity)
        .await
        .unwrap()
}

#[tokio::test]
async fn the_scan_offers_three_numbers_and_the_approval_must_name_the_one_the_page_shows() {
    let env = env().await;
    let (login, secret) = env.show_qr(&env.shop_auth(&[])).await;
    let challenge = env.scan(&login).await.unwrap();
    let stored = env.qr_login(&login.id).await.value;
    let n = stored.number.unwrap();
    assert_eq!(stored.number_choices().len(), 3);
    assert!(stored.number_choices().contains(&n));
    // Without the number: 400, and nothing changes (the app may send it again).
    let missing = env.phone.approval(
        &env.ctx,
        &env.alice.sub,
        &login.id,
        &challenge,
        "approve",
        None,
    );
    let d = device::decide(&env.ctx, &login.id, &missing, &env.source()).await;
    match d {
        Err(DeviceError::Invalid(why)) => assert!(why.contains("number"), "{why}"),
        other => panic!("expected invalid_request, got {other:?}"),
    }
    // A number that is not an integer is malformed, not wrong.
    let text = env.phone.sign(
        &env.ctx,
        "approval+jwt",
        json!({ "sub": env.alice.sub, "session": login.id, "challenge": challenge,
                "decision": "approve", "number": n.to_string() }),
    );
    let d = device::decide(&env.ctx, &login.id, &text, &env.source()).await;
    assert!(matches!(d, Err(DeviceError::Invalid(_))), "{d:?}");
    assert_eq!(
        env.qr_login(&login.id).await.value.status,
        LoginStatus::Pending
    );
    // The wrong one of the three: cancelled for good.
    let wrong = *stored.number_choices().iter().find(|c| **c != n).unwrap();
    let bad = env.phone.approval(
        &env.ctx,
        &env.alice.sub,
        &login.id,
        &challenge,
        "approve",
        Some(wrong),
    );
    let d = device::decide(&env.ctx, &login.id, &bad, &env.source()).await;
    assert!(
        matches!(d, Err(DeviceError::Cancelled(CancelReason::WrongNumber))),
        "{d:?}"
    );
    let after = env.qr_login(&login.id).await.value;
    assert_eq!(after.public_status(env.now()), "denied");
    assert_eq!(after.cancel_reason(), Some(CancelReason::WrongNumber));
    // The right number afterwards is too late.
    let right = env.phone.approval(
        &env.ctx,
        &env.alice.sub,
        &login.id,
        &challenge,
        "approve",
        Some(n),
    );
    let d = device::decide(&env.ctx, &login.id, &right, &env.source()).await;
    assert!(matches!(d, Err(DeviceError::AlreadyDecided)), "{d:?}");
    // Her activity shows it; the browser is sent back with access_denied.
    let logins = alice_logins(&env).await;
    assert_eq!(logins[0].outcome, "wrong_number");
    let ConsentOutcome::Denied(r) = env.consent(&login.id, &secret, ConsentInput::Open).await
    else {
        panic!("expected access_denied");
    };
    assert_eq!(param(&r, "error"), Some("access_denied"));
    assert_eq!(param(&r, "code"), None);
}

#[tokio::test]
async fn a_second_phone_cancels_the_login_and_another_identity_cannot_decide() {
    let env = env().await;
    let (bob_phone, bob) = bob(&env).await;
    // Alice scans with her proof; Bob's phone scans the next code: cancelled.
    let (login, _) = env.show_qr(&env.shop_auth(&[])).await;
    env.scan(&login).await.unwrap();
    env.advance(1);
    let c = login.current_challenge(env.now());
    let proof = bob_phone.scan_proof(&env.ctx, &bob, &login.id, &c);
    let r = device::scan(&env.ctx, &login.id, &c, Some(&proof), &env.source()).await;
    assert!(
        matches!(r, Err(DeviceError::Cancelled(CancelReason::SecondDevice))),
        "{r:?}"
    );
    let l = env.qr_login(&login.id).await.value;
    assert_eq!(
        (l.public_status(env.now()), l.cancel_reason()),
        ("denied", Some(CancelReason::SecondDevice))
    );
    assert_eq!(alice_logins(&env).await[0].outcome, "second_device");
    // An anonymous scan after another: cancelled too.
    let (login, _) = env.show_qr(&env.shop_auth(&[])).await;
    let c = login.current_challenge(env.now());
    device::scan(&env.ctx, &login.id, &c, None, &env.source())
        .await
        .unwrap();
    env.advance(1);
    let c = login.current_challenge(env.now());
    let r = device::scan(&env.ctx, &login.id, &c, None, &env.source()).await;
    assert!(matches!(r, Err(DeviceError::Cancelled(_))), "{r:?}");
    // Alice rescanning a new code of her own login is fine, and keeps the numbers.
    let (login, _) = env.show_qr(&env.shop_auth(&[])).await;
    env.scan(&login).await.unwrap();
    let first = env.qr_login(&login.id).await.value.number_choices();
    env.advance(1);
    let challenge = env.scan(&login).await.unwrap();
    assert_eq!(env.qr_login(&login.id).await.value.number_choices(), first);
    // Bob approving the login Alice scanned (with the right number): refused, cancelled.
    let n = env.number_shown(&login.id).await;
    let approval = bob_phone.approval(&env.ctx, &bob, &login.id, &challenge, "approve", n);
    let d = device::decide(&env.ctx, &login.id, &approval, &env.source()).await;
    assert!(
        matches!(d, Err(DeviceError::Cancelled(CancelReason::SecondDevice))),
        "{d:?}"
    );
    assert!(!matches!(
        env.qr_login(&login.id).await.value.status,
        LoginStatus::Approved { .. }
    ));
}

#[tokio::test]
async fn a_scan_proof_must_verify_and_name_this_scan() {
    let env = env().await;
    let (login, _) = env.show_qr(&env.shop_auth(&[])).await;
    let c = login.current_challenge(env.now());
    let scan = |proof: String| {
        let (ctx, id, c, src) = (&env.ctx, login.id.clone(), c.clone(), env.source());
        async move { device::scan(ctx, &id, &c, Some(&proof), &src).await }
    };
    let mallory = Device::generate();
    let forged = mallory.scan_proof(&env.ctx, &env.alice.sub, &login.id, &c);
    let other_challenge = env.phone.scan_proof(
        &env.ctx,
        &env.alice.sub,
        &login.id,
        "AAAAAAAAAAAAAAAAAAAAAA",
    );
    let wrong_typ = env.phone.sign(
        &env.ctx,
        "approval+jwt",
        json!({ "sub": env.alice.sub, "session": login.id, "challenge": c }),
    );
    for (name, proof) in [
        ("signed by another key", forged),
        ("another challenge", other_challenge),
        ("not a scan+jwt", wrong_typ),
        ("garbage", "a.b.c".to_owned()),
    ] {
        let r = scan(proof).await;
        assert!(matches!(r, Err(DeviceError::Invalid(_))), "{name}: {r:?}");
    }
    let unknown = mallory.scan_proof(&env.ctx, "nobody", &login.id, &c);
    assert!(matches!(
        scan(unknown).await,
        Err(DeviceError::UnknownIdentity)
    ));
    // None of these spent the challenge or scanned the login.
    assert!(!env.qr_login(&login.id).await.value.is_scanned());
    let good = env
        .phone
        .scan_proof(&env.ctx, &env.alice.sub, &login.id, &c);
    scan(good).await.unwrap();
    assert_eq!(
        env.qr_login(&login.id).await.value.scanned_by,
        Some(crate::domain::login::Scanner::Identity(
            env.alice.sub.clone()
        ))
    );
}

#[tokio::test]
async fn signup_creates_an_identity_once_per_jti() {
    let env = env().await;
    let phone = Device::generate();
    let reg = phone.registration(&env.ctx, "bob");
    let bob = device::signup(&env.ctx, &reg, &env.source()).await.unwrap();
    assert_eq!(bob.name, "bob");
    assert_eq!(bob.public_key, phone.public_key());
    assert_eq!(bob.created_at, T0);
    let again = device::signup(&env.ctx, &reg, &env.source()).await;
    assert!(matches!(again, Err(DeviceError::NameTaken)), "{again:?}");
    // The same jti under another name: a replay of the proof of possession.
    let replay = phone.sign(
        &env.ctx,
        "registration+jwt",
        json!({ "name": "bobby", "display_name": "Bob", "country_code": "SE",
                "public_key": phone.public_key(), "jti": "reg-1" }),
    );
    let first = phone.sign(
        &env.ctx,
        "registration+jwt",
        json!({ "name": "carol", "display_name": "Carol", "country_code": "SE",
                "public_key": phone.public_key(), "jti": "reg-1" }),
    );
    device::signup(&env.ctx, &first, &env.source())
        .await
        .unwrap();
    match device::signup(&env.ctx, &replay, &env.source()).await {
        Err(DeviceError::Invalid(why)) => assert!(why.contains("jti"), "{why}"),
        other => panic!("expected the jti to be refused, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// consent

#[tokio::test]
async fn consent_open_asks_and_allow_issues_a_code_and_remembers_the_consent() {
    let env = env().await;
    let (login, secret) = env.show_qr(&env.shop_auth(&[])).await;
    env.scan_and_decide(&login, "approve").await.unwrap();
    match env.consent(&login.id, &secret, ConsentInput::Open).await {
        ConsentOutcome::Ask { client, identity } => {
            assert_eq!(client.client_id, SHOP);
            assert_eq!(identity.sub, env.alice.sub);
        }
        other => panic!("expected the consent page, got {other:?}"),
    }
    assert!(
        env.store
            .consent(&env.alice.sub, SHOP, env.now())
            .await
            .unwrap()
            .is_none(),
        "opening the page remembers nothing"
    );
    env.advance(7);
    let ConsentOutcome::Completed(done) = env.submit_consent(&login.id, &secret, "allow").await
    else {
        panic!("expected a code");
    };
    assert!(param(&done.response, "code").is_some());
    assert_eq!(param(&done.response, "state"), Some("st-1"));
    assert!(
        done.sso_cookie.is_some(),
        "the first login starts a session"
    );
    let remembered = env
        .store
        .consent(&env.alice.sub, SHOP, env.now())
        .await
        .unwrap()
        .expect("remembered");
    assert_eq!(remembered.scopes.as_slice(), ["openid", "profile"]);
    assert_eq!(remembered.granted_at, T0.plus_secs(7));
    assert_eq!(
        env.qr_login(&login.id).await.value.status,
        LoginStatus::Completed
    );
    // The form cannot be submitted twice.
    let again = env.submit_consent(&login.id, &secret, "allow").await;
    assert!(
        matches!(
            again,
            ConsentOutcome::Refused(ConsentRefusal::AlreadyCompleted)
        ),
        "{again:?}"
    );
    // The completed login's record lives a minute more (the page's next poll learns the
    // outcome), not the whole grace an expired pending login keeps.
    env.advance(COMPLETED_GRACE_SECS - 1);
    assert_eq!(
        env.qr_login(&login.id).await.value.status,
        LoginStatus::Completed
    );
    env.advance(1);
    assert!(env.qr_login_gone(&login.id).await);
}

#[tokio::test]
async fn consent_deny_ends_with_access_denied_and_remembers_nothing() {
    let env = env().await;
    let (login, secret) = env.show_qr(&env.shop_auth(&[])).await;
    env.scan_and_decide(&login, "approve").await.unwrap();
    let ConsentOutcome::Denied(r) = env.submit_consent(&login.id, &secret, "deny").await else {
        panic!("expected access_denied");
    };
    assert_eq!(param(&r, "error"), Some("access_denied"));
    assert_eq!(param(&r, "code"), None);
    assert!(env
        .store
        .consent(&env.alice.sub, SHOP, env.now())
        .await
        .unwrap()
        .is_none());
    assert_eq!(
        env.qr_login(&login.id).await.value.status,
        LoginStatus::Completed
    );
}

#[tokio::test]
async fn a_forged_consent_form_is_refused_and_changes_nothing() {
    let env = env().await;
    let (login, secret) = env.show_qr(&env.shop_auth(&[])).await;
    let (other, other_secret) = env.show_qr(&env.shop_auth(&[])).await;
    env.scan_and_decide(&login, "approve").await.unwrap();
    let another_browser = csrf_token(other_secret.expose(), &login.id);
    let another_login = csrf_token(secret.expose(), &other.id);
    for csrf in [
        None,
        Some("x"),
        Some(another_browser.as_str()),
        Some(another_login.as_str()),
    ] {
        let input = ConsentInput::Submit {
            csrf,
            choice: Some("allow"),
        };
        let out = env.consent(&login.id, &secret, input).await;
        assert!(
            matches!(out, ConsentOutcome::Refused(ConsentRefusal::Forged)),
            "{csrf:?}: {out:?}"
        );
    }
    assert!(matches!(
        env.qr_login(&login.id).await.value.status,
        LoginStatus::Approved { .. }
    ));
    // The genuine form still works.
    let out = env.submit_consent(&login.id, &secret, "allow").await;
    assert!(matches!(out, ConsentOutcome::Completed(_)), "{out:?}");
}

// ---------------------------------------------------------------------------------------
// token endpoint

#[tokio::test]
async fn exchanging_the_code_gives_tokens() {
    let env = env().await;
    let done = env.login(&env.shop_auth(&[])).await;
    env.advance(5);
    let t = env.exchange_shop(&done.code).await.unwrap();
    assert_eq!(t.expires_in, 300);
    assert_eq!(t.refresh_expires_in, 1800);
    assert_eq!(t.scope, "openid profile");
    assert_eq!(t.session_state.as_deref(), Some(done.sid.as_str()));
    assert!(t.refresh_token.is_some());
    let at = claims(&env, &t.access_token);
    assert_eq!(at["sub"], json!(env.alice.sub));
    assert_eq!(at["aud"], json!(SHOP));
    assert_eq!(at["exp"], json!(T0.secs() + 5 + 300));
    assert_eq!(at["preferred_username"], json!("alice"));
    let id = claims(&env, t.id_token.as_deref().unwrap());
    assert_eq!(id["nonce"], json!("n-1"));
    assert_eq!(id["sid"], json!(done.sid));
    assert_eq!(id["typ"], json!("ID"));
    assert_eq!(id["name"], json!("Alice Example"));
}

#[tokio::test]
async fn a_second_exchange_fails_and_revokes_the_first_one_s_grant() {
    let env = env().await;
    let done = env.login(&env.shop_auth(&[])).await;
    let first = env.exchange_shop(&done.code).await.unwrap();
    assert_eq!(
        introspect_as_shop(&env, &first.access_token).await["active"],
        true
    );
    let why = invalid_grant(env.exchange_shop(&done.code).await);
    assert!(why.contains("already used"), "{why}");
    let why = invalid_grant(
        env.refresh_shop(first.refresh_token.as_deref().unwrap())
            .await,
    );
    assert_eq!(why, "the grant was revoked");
    assert_eq!(
        introspect_as_shop(&env, &first.access_token).await,
        json!({ "active": false })
    );
}

#[tokio::test]
async fn a_wrong_redirect_uri_burns_the_code() {
    let env = env().await;
    let done = env.login(&env.shop_auth(&[])).await;
    let r = env
        .shop_token(&[
            ("grant_type", "authorization_code"),
            ("code", &done.code),
            ("redirect_uri", "https://shop.example/other"),
        ])
        .await;
    assert!(invalid_grant(r).contains("redirect_uri"));
    let why = invalid_grant(env.exchange_shop(&done.code).await);
    assert_eq!(why, "invalid, expired or already used code", "burned");
}

#[tokio::test]
async fn a_wrong_pkce_verifier_burns_the_code() {
    let env = env().await;
    let exchange = |code: String, verifier: &'static str| {
        let env = &env;
        async move {
            env.spa_token(&[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("redirect_uri", crate::testing::SPA_REDIRECT),
                ("code_verifier", verifier),
            ])
            .await
        }
    };
    let good = env.login(&env.spa_auth(&[])).await;
    let t = exchange(good.code, VERIFIER).await.unwrap();
    assert!(t.id_token.is_some(), "the right verifier works");

    let done = env.login(&env.spa_auth(&[])).await;
    let wrong = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXj";
    let why = invalid_grant(exchange(done.code.clone(), wrong).await);
    assert!(why.contains("code_verifier"), "{why}");
    let why = invalid_grant(exchange(done.code, VERIFIER).await);
    assert_eq!(why, "invalid, expired or already used code", "burned");
}

#[tokio::test]
async fn an_expired_code_is_refused() {
    let env = env().await;
    let code_ttl = env.ctx.settings.lifetimes.code;
    let in_time = env.login(&env.shop_auth(&[])).await;
    let late = env.login(&env.shop_auth(&[])).await;
    env.advance(code_ttl - 1);
    env.exchange_shop(&in_time.code).await.unwrap();
    env.advance(1);
    let why = invalid_grant(env.exchange_shop(&late.code).await);
    assert_eq!(why, "invalid, expired or already used code");
}

#[tokio::test]
async fn refresh_rotates_and_a_lost_response_may_be_retried_within_the_grace_period() {
    let env = env().await;
    let done = env.login(&env.shop_auth(&[])).await;
    let t1 = env.exchange_shop(&done.code).await.unwrap();
    let rt1 = t1.refresh_token.unwrap();
    env.advance(100);
    let t2 = env.refresh_shop(&rt1).await.unwrap();
    let rt2 = t2.refresh_token.unwrap();
    assert_ne!(rt2, rt1, "rotated");
    assert_eq!(
        claims(&env, &t2.access_token)["iat"],
        json!(T0.secs() + 100)
    );
    // The response carrying rt2 was lost: rt1 is retried at the end of the grace period.
    env.advance(REFRESH_GRACE_SECS);
    let t3 = env.refresh_shop(&rt1).await.unwrap();
    assert_ne!(t3.refresh_token.as_deref(), Some(rt2.as_str()));
    env.refresh_shop(t3.refresh_token.as_deref().unwrap())
        .await
        .unwrap();
}

#[tokio::test]
async fn reusing_a_rotated_refresh_token_after_the_grace_period_revokes_the_family_and_ends_the_session(
) {
    let env = env().await;
    let done = env.login(&env.shop_auth(&[])).await;
    let t1 = env.exchange_shop(&done.code).await.unwrap();
    let rt1 = t1.refresh_token.unwrap();
    let t2 = env.refresh_shop(&rt1).await.unwrap();
    let rt2 = t2.refresh_token.unwrap();
    env.advance(REFRESH_GRACE_SECS + 1);
    let why = invalid_grant(env.refresh_shop(&rt1).await);
    assert!(why.contains("already used"), "{why}");
    assert_eq!(
        invalid_grant(env.refresh_shop(&rt2).await),
        "the grant was revoked"
    );
    assert_eq!(
        introspect_as_shop(&env, &t2.access_token).await,
        json!({ "active": false })
    );
    assert!(
        env.store
            .sso_session(&done.sid, env.now())
            .await
            .unwrap()
            .is_none(),
        "the session ended"
    );
    let d = env
        .authorize(&env.shop_auth(&[]), Some(&done.sso_cookie))
        .await;
    assert!(
        matches!(d, AuthorizeDecision::ShowQr { .. }),
        "the phone is needed again: {d:?}"
    );
}

// ---------------------------------------------------------------------------------------
// introspection, userinfo, logout

#[tokio::test]
async fn a_live_access_token_is_active_with_its_claims_by_scope() {
    let env = env().await;
    let done = env.login(&env.shop_auth(&[])).await;
    let t = env.exchange_shop(&done.code).await.unwrap();
    let i = introspect_as_shop(&env, &t.access_token).await;
    assert_eq!(i["active"], true);
    assert_eq!(i["sub"], json!(env.alice.sub));
    assert_eq!(i["client_id"], SHOP);
    assert_eq!(i["scope"], "openid profile");
    assert_eq!(i["username"], "alice", "profile releases the username");
    assert_eq!(i["sid"], json!(done.sid));
    assert_eq!(
        i["groups"],
        json!(["staff"]),
        "profile releases groups (spec 2.3)"
    );
    let live = resource::live_access_token(&env.ctx, &t.access_token, env.now())
        .await
        .unwrap()
        .expect("live");
    let u =
        serde_json::to_value(resource::userinfo(&live, live.identity.as_ref().unwrap())).unwrap();
    assert_eq!(u["sub"], json!(env.alice.sub));
    assert_eq!(u["preferred_username"], "alice");
    assert_eq!(u["peferred_username"], "alice", "the spec's spelling too");
    assert_eq!(u["name"], "Alice Example");
    assert_eq!(
        u["groups"],
        json!(["staff"]),
        "profile releases groups (spec 2.4)"
    );
    assert_eq!(u["updated_at"], json!(env.alice.updated_at().secs()));
    assert!(u.get("address").is_none(), "address was not asked for");

    // Another login asking for openid and groups only: groups, and no profile claims.
    let (login, secret) = env
        .show_qr(&env.shop_auth(&[("scope", "openid groups")]))
        .await;
    env.scan_and_decide(&login, "approve").await.unwrap();
    let ConsentOutcome::Completed(done) = env.submit_consent(&login.id, &secret, "allow").await
    else {
        panic!("expected a code");
    };
    let code = param(&done.response, "code").unwrap();
    let t = env.exchange_shop(code).await.unwrap();
    let i = introspect_as_shop(&env, &t.access_token).await;
    assert_eq!(i["groups"], json!(["staff"]));
    assert!(i.get("username").is_none());
    let live = resource::live_access_token(&env.ctx, &t.access_token, env.now())
        .await
        .unwrap()
        .expect("live");
    let u =
        serde_json::to_value(resource::userinfo(&live, live.identity.as_ref().unwrap())).unwrap();
    assert_eq!(u["groups"], json!(["staff"]));
    assert!(u.get("preferred_username").is_none());
    assert!(u.get("name").is_none());
    // Another client that is not a resource server sees nothing.
    let i = resource::introspect(&env.ctx, &env.spa, &t.access_token, env.now())
        .await
        .unwrap();
    assert_eq!(serde_json::to_value(i).unwrap(), json!({ "active": false }));
}

#[tokio::test]
async fn after_logout_the_session_s_tokens_are_inactive_but_offline_ones_live_on() {
    let env = env().await;
    let online = env.login(&env.shop_auth(&[])).await;
    let on = env.exchange_shop(&online.code).await.unwrap();
    // A second browser logs in with offline_access.
    let offline = env
        .login(&env.shop_auth(&[("scope", "openid offline_access")]))
        .await;
    let off = env.exchange_shop(&offline.code).await.unwrap();
    assert_eq!(off.refresh_expires_in, 0, "offline tokens report 0");

    for (done, t) in [(&online, &on), (&offline, &off)] {
        let out = logout::logout(
            &env.ctx,
            &LogoutRequest {
                id_token_hint: t.id_token.as_deref(),
                post_logout_redirect_uri: Some(SHOP_LOGGED_OUT),
                state: Some("bye"),
                sso_cookie: Some(&done.sso_cookie),
                source: IP,
                ..Default::default()
            },
        )
        .await
        .unwrap();
        assert_eq!(
            out,
            LogoutOutcome::Done {
                redirect: Some(format!("{SHOP_LOGGED_OUT}?state=bye"))
            }
        );
        assert!(env
            .store
            .sso_session(&done.sid, env.now())
            .await
            .unwrap()
            .is_none());
    }
    assert_eq!(
        introspect_as_shop(&env, &on.access_token).await,
        json!({ "active": false })
    );
    assert_eq!(
        invalid_grant(env.refresh_shop(on.refresh_token.as_deref().unwrap()).await),
        "the session has ended"
    );
    assert_eq!(
        introspect_as_shop(&env, &off.access_token).await["active"],
        true
    );
    env.refresh_shop(off.refresh_token.as_deref().unwrap())
        .await
        .unwrap();
}

#[tokio::test]
async fn a_logout_hint_for_another_session_only_asks() {
    let env = env().await;
    let a = env.login(&env.shop_auth(&[])).await;
    let ta = env.exchange_shop(&a.code).await.unwrap();
    let b = env.login(&env.shop_auth(&[])).await;
    // Browser B presents the ID token of session A: B's own session is not ended unasked.
    let out = logout::logout(
        &env.ctx,
        &LogoutRequest {
            id_token_hint: ta.id_token.as_deref(),
            sso_cookie: Some(&b.sso_cookie),
            source: IP,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(matches!(out, LogoutOutcome::Confirm { .. }), "{out:?}");
    for sid in [&a.sid, &b.sid] {
        assert!(env
            .store
            .sso_session(sid, env.now())
            .await
            .unwrap()
            .is_some());
    }
    assert_eq!(
        introspect_as_shop(&env, &ta.access_token).await["active"],
        true
    );
}

#[tokio::test]
async fn an_expired_access_token_is_inactive() {
    let env = env().await;
    let done = env.login(&env.shop_auth(&[])).await;
    let t = env.exchange_shop(&done.code).await.unwrap();
    let ttl = env.ctx.settings.lifetimes.access_token;
    env.advance(ttl - 1);
    assert_eq!(
        introspect_as_shop(&env, &t.access_token).await["active"],
        true
    );
    env.advance(1);
    assert_eq!(
        introspect_as_shop(&env, &t.access_token).await,
        json!({ "active": false })
    );
    assert!(
        resource::live_access_token(&env.ctx, &t.access_token, env.now())
            .await
            .unwrap()
            .is_none()
    );
    // Only the access token has expired: its grant and refresh token live on.
    let rt = t.refresh_token.unwrap();
    assert_eq!(introspect_as_shop(&env, &rt).await["active"], true);
    let fresh = env.refresh_shop(&rt).await.unwrap();
    assert_eq!(
        introspect_as_shop(&env, &fresh.access_token).await["active"],
        true
    );
}

// ---------------------------------------------------------------------------------------
// rate limits

async fn count(env: &TestEnv, limit: Limit, who: &str) -> Counted {
    ratelimit::count(
        env.ctx.store.as_ref(),
        &env.ctx.settings.limits,
        limit,
        who,
        env.now(),
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn rate_limit_windows_are_whole_minutes() {
    let env = env().await;
    let Limits {
        auth_failures_per_minute: max,
        ..
    } = env.ctx.settings.limits;
    assert_eq!(max, 10);
    // Near the end of a window: the budget is spent, and the wait is what is left of it.
    env.advance(58);
    for i in 0..max {
        assert_eq!(
            count(&env, Limit::ClientAuthFailure, "a").await,
            Counted::Allowed,
            "{i}"
        );
    }
    assert_eq!(
        count(&env, Limit::ClientAuthFailure, "a").await,
        Counted::Limited { retry_after: 2 }
    );
    env.advance(1);
    assert_eq!(
        count(&env, Limit::ClientAuthFailure, "a").await,
        Counted::Limited { retry_after: 1 }
    );
    // Other sources and other limits count apart.
    assert_eq!(
        count(&env, Limit::ClientAuthFailure, "b").await,
        Counted::Allowed
    );
    assert_eq!(count(&env, Limit::Login, "a").await, Counted::Allowed);
    // On the minute a new window starts, with the whole budget: a burst straddling the edge
    // is split between two windows (what the integration tests wait out).
    env.advance(1);
    assert_eq!(env.now().secs() % 60, 0);
    for i in 0..max {
        assert_eq!(
            count(&env, Limit::ClientAuthFailure, "a").await,
            Counted::Allowed,
            "{i}"
        );
    }
    assert_eq!(
        count(&env, Limit::ClientAuthFailure, "a").await,
        Counted::Limited { retry_after: 60 }
    );
    // Sign-ups count per hour.
    let signups = env.ctx.settings.limits.signups_per_hour;
    for _ in 0..signups {
        assert_eq!(count(&env, Limit::Signup, "a").await, Counted::Allowed);
    }
    env.advance(58 * 60); // the last minute of the hour
    assert_eq!(
        count(&env, Limit::Signup, "a").await,
        Counted::Limited { retry_after: 60 }
    );
    env.advance(60);
    assert_eq!(count(&env, Limit::Signup, "a").await, Counted::Allowed);
}

#[tokio::test]
async fn failed_client_authentications_are_limited_per_source_yet_the_right_secret_works() {
    // Ten seconds before the minute: where the integration test waits for the next one.
    let env = Builder::new().at(T0.plus_secs(50)).build().await;
    let req = [
        ("grant_type", "authorization_code"),
        ("code", "x"),
        ("redirect_uri", SHOP_REDIRECT),
    ];
    let wrong = crate::usecase::token::Presented {
        basic: Some((SHOP.to_owned(), "wrong-secret".to_owned())),
        ..Default::default()
    };
    let attempt = || async {
        crate::usecase::token::token(
            &env.ctx,
            &crate::testing::params(&req),
            &wrong,
            &env.source(),
        )
        .await
        .map(|_| ())
    };
    for i in 0..10 {
        let r = attempt().await;
        assert!(matches!(r, Err(TokenError::InvalidClient(_))), "{i}: {r:?}");
    }
    let r = attempt().await;
    assert!(
        matches!(r, Err(TokenError::TooManyFailures { retry_after: 10 })),
        "{r:?}"
    );
    // The right secret is never locked out (the code is unknown, so the grant fails).
    invalid_grant(env.shop_token(&req).await);
    env.advance(10);
    let r = attempt().await;
    assert!(
        matches!(r, Err(TokenError::InvalidClient(_))),
        "a new window: {r:?}"
    );
}

#[tokio::test]
async fn an_approval_presented_at_its_exp_is_refused() {
    let env = env().await;
    let (login, _) = env.show_qr(&env.shop_auth(&[])).await;
    let challenge = login.current_challenge(env.now());
    device::scan(&env.ctx, &login.id, &challenge, None, &env.source())
        .await
        .unwrap();
    let n = env.number_shown(&login.id).await;
    let approval = env.phone.approval(
        &env.ctx,
        &env.alice.sub,
        &login.id,
        &challenge,
        "approve",
        n,
    );
    env.advance(120); // exp = iat + 120
    let d = device::decide(&env.ctx, &login.id, &approval, &env.source()).await;
    assert!(
        matches!(d, Err(DeviceError::Invalid(_))),
        "expired JWS: {d:?}"
    );
    assert_eq!(
        env.qr_login(&login.id).await.value.status,
        LoginStatus::Pending
    );
}

#[tokio::test]
async fn a_profile_change_moves_updated_at_and_userinfo_says_so() {
    let env = env().await;
    assert_eq!(env.alice.updated_at(), T0, "set at registration");
    env.advance(90);
    let update = env.phone.sign(
        &env.ctx,
        "profile+jwt",
        json!({ "sub": env.alice.sub, "display_name": "Alice B" }),
    );
    let next = device::update_profile(&env.ctx, &env.alice.sub, &update)
        .await
        .unwrap();
    assert_eq!(next.updated_at(), T0.plus_secs(90));
    assert_eq!(next.created_at, T0);
    // What a relying party sees (OIDC Core 5.1: seconds since the epoch).
    let done = env.login(&env.shop_auth(&[])).await;
    let t = env.exchange_shop(&done.code).await.unwrap();
    let live = resource::live_access_token(&env.ctx, &t.access_token, env.now())
        .await
        .unwrap()
        .expect("live");
    let u =
        serde_json::to_value(resource::userinfo(&live, live.identity.as_ref().unwrap())).unwrap();
    assert_eq!(u["updated_at"], json!(T0.plus_secs(90).secs()));
    assert_eq!(u["name"], "Alice B");
}

// ---------------------------------------------------------------------------------------
// the web app: deletion, recent logins, photos

#[tokio::test]
async fn deleting_an_identity_kills_its_tokens_and_session_and_frees_its_name_after_its_quarantine()
{
    use crate::store::IdentityStore;
    let env = env().await;
    let logged_in = env.login(&env.shop_auth(&[])).await;
    let issued = env.exchange_shop(&logged_in.code).await.unwrap();
    let refresh = issued.refresh_token.clone().unwrap();
    assert_eq!(
        introspect_as_shop(&env, &issued.access_token).await["active"],
        true
    );
    // The login is among the recent logins.
    let activity = env
        .phone
        .sign(&env.ctx, "activity+jwt", json!({ "sub": env.alice.sub }));
    let logins = device::recent_logins(&env.ctx, &env.alice.sub, &activity)
        .await
        .unwrap();
    assert_eq!(logins.len(), 1);
    assert_eq!(logins[0].client_name, "Shop");
    assert_eq!(logins[0].at, T0);

    // Another key deletes nothing.
    let mallory = Device::generate();
    let forged = mallory.sign(&env.ctx, "deletion+jwt", json!({ "sub": env.alice.sub }));
    let r = device::delete_identity(&env.ctx, &env.alice.sub, &forged, &env.source()).await;
    assert!(matches!(r, Err(DeviceError::Invalid(_))), "{r:?}");

    let deletion = env
        .phone
        .sign(&env.ctx, "deletion+jwt", json!({ "sub": env.alice.sub }));
    device::delete_identity(&env.ctx, &env.alice.sub, &deletion, &env.source())
        .await
        .unwrap();
    assert!(env
        .store
        .identity(&env.alice.sub, env.now())
        .await
        .unwrap()
        .is_none());
    assert_eq!(
        introspect_as_shop(&env, &issued.access_token).await["active"],
        false
    );
    invalid_grant(env.refresh_shop(&refresh).await);
    assert!(env
        .store
        .sso_session(&logged_in.sid, env.now())
        .await
        .unwrap()
        .is_none());
    assert!(env
        .store
        .consent(&env.alice.sub, SHOP, env.now())
        .await
        .unwrap()
        .is_none());
    // The name is held for the quarantine (30 days by default), then free.
    let quarantine = env.ctx.settings.lifetimes.name_quarantine;
    assert_eq!(quarantine, 30 * 24 * 3600);
    assert!(!device::name_available(&env.ctx, "alice", &env.source())
        .await
        .unwrap());
    env.advance(quarantine - 1);
    assert!(!device::name_available(&env.ctx, "alice", &env.source())
        .await
        .unwrap());
    env.advance(1);
    assert!(device::name_available(&env.ctx, "alice", &env.source())
        .await
        .unwrap());
    let again = device::delete_identity(&env.ctx, &env.alice.sub, &deletion, &env.source()).await;
    assert!(
        matches!(again, Err(DeviceError::UnknownIdentity)),
        "{again:?}"
    );
}

#[tokio::test]
async fn a_photo_upload_signs_its_hash_and_replaces_the_old_photo() {
    use crate::domain::photo;
    use crate::store::photos::MemoryPhotos;
    use crate::store::PhotoStore;
    let mut env = env().await;
    let png = test_png;
    let sha = sha_of;
    let upload = photo_upload;
    let first = png(64);
    // No photo store: this deployment hosts no photos.
    let r = device::upload_photo(
        &env.ctx,
        &env.alice.sub,
        &upload(&env, &sha(&first)),
        &first,
    )
    .await;
    assert!(matches!(r, Err(DeviceError::NoPhotos)), "{r:?}");
    let photos = std::sync::Arc::new(MemoryPhotos::default());
    env.ctx.photos = Some(photos.clone());
    // The signed hash must be the image's.
    let r = device::upload_photo(&env.ctx, &env.alice.sub, &upload(&env, &sha(b"x")), &first).await;
    assert!(matches!(r, Err(DeviceError::Invalid(_))), "{r:?}");
    let ident = device::upload_photo(
        &env.ctx,
        &env.alice.sub,
        &upload(&env, &sha(&first)),
        &first,
    )
    .await
    .unwrap();
    let url = ident.profile_photo.clone().unwrap();
    let first_name = photo::object_name(&env.alice.sub, &photo::content_hash(&first));
    assert_eq!(
        url,
        format!("{}/v1/photos/{first_name}", env.ctx.settings.public_url)
    );
    let (bytes, format) =
        device::hosted_photo(&env.ctx, &env.alice.sub, &photo::content_hash(&first))
            .await
            .unwrap()
            .unwrap();
    assert_eq!((bytes, format), (first.clone(), photo::Format::Png));
    // A new photo replaces it; the old object is gone.
    let second = png(32);
    device::upload_photo(
        &env.ctx,
        &env.alice.sub,
        &upload(&env, &sha(&second)),
        &second,
    )
    .await
    .unwrap();
    assert_eq!(photos.photo(&first_name).await.unwrap(), None);
    assert_eq!(
        device::hosted_photo(&env.ctx, &env.alice.sub, &photo::content_hash(&first))
            .await
            .unwrap(),
        None,
        "a replaced photo is not served"
    );
}

/// A complete `w` × `w` PNG.
fn test_png(w: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut e = png::Encoder::new(&mut out, w, w);
    e.set_color(png::ColorType::Grayscale);
    let mut wr = e.write_header().unwrap();
    wr.write_image_data(&vec![0; (w * w) as usize]).unwrap();
    wr.finish().unwrap();
    out
}

fn sha_of(b: &[u8]) -> String {
    base64::Engine::encode(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD,
        aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, b).as_ref(),
    )
}

/// Alice's signed upload of an image whose SHA-256 is `hash`.
fn photo_upload(env: &TestEnv, hash: &str) -> String {
    env.phone.sign(
        &env.ctx,
        "photo+jwt",
        json!({ "sub": env.alice.sub, "sha256": hash }),
    )
}

/// Photos in memory whose writes fail while `fail` is set, or that delete alice (as a
/// concurrent deletion would) before each write when `delete_first` names her.
#[derive(Default)]
struct FlakyPhotos {
    inner: crate::store::photos::MemoryPhotos,
    fail: std::sync::atomic::AtomicBool,
    delete_first:
        std::sync::Mutex<Option<(std::sync::Arc<crate::store::memory::MemoryStore>, String)>>,
}

#[async_trait::async_trait]
impl crate::store::PhotoStore for FlakyPhotos {
    async fn put_photo(
        &self,
        name: &str,
        bytes: &[u8],
        t: &str,
    ) -> Result<(), crate::store::StoreError> {
        if self.fail.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(crate::store::StoreError::Unavailable("injected".into()));
        }
        let victim = self.delete_first.lock().unwrap().clone();
        if let Some((store, sub)) = victim {
            use crate::store::IdentityStore;
            let (i, v) = store.identity(&sub, T0).await.unwrap().unwrap();
            store.delete_identity(&i, v, &[], None, T0).await.unwrap();
        }
        self.inner.put_photo(name, bytes, t).await
    }
    async fn photo(&self, name: &str) -> Result<Option<Vec<u8>>, crate::store::StoreError> {
        self.inner.photo(name).await
    }
    async fn delete_photo(&self, name: &str) -> Result<(), crate::store::StoreError> {
        self.inner.delete_photo(name).await
    }
    async fn delete_photos_of(&self, owner: &str) -> Result<(), crate::store::StoreError> {
        self.inner.delete_photos_of(owner).await
    }
}

/// Issue 25.2: nothing of a refused upload is stored; only a live identity's current photo
/// is served; a crash (a failed store) after the commit leaves a record naming a missing
/// photo, served as 404 and mended by the next upload; an upload whose identity is deleted
/// between its commit and its store removes its object; deletion removes every object.
#[tokio::test]
async fn refused_uploads_store_nothing_and_only_a_live_identitys_current_photo_is_served() {
    use crate::domain::photo;
    use crate::store::{IdentityStore, PhotoStore};
    let mut env = env().await;
    let photos = std::sync::Arc::new(FlakyPhotos::default());
    env.ctx.photos = Some(photos.clone());
    let sub = env.alice.sub.clone();
    async fn hosted(env: &TestEnv, img: &[u8]) -> Option<(Vec<u8>, photo::Format)> {
        device::hosted_photo(&env.ctx, &env.alice.sub, &photo::content_hash(img))
            .await
            .unwrap()
    }
    let stored = |img: &[u8]| {
        let name = photo::object_name(&sub, &photo::content_hash(img));
        let photos = photos.clone();
        async move { photos.photo(&name).await.unwrap().is_some() }
    };
    let first = test_png(16);
    let jws = env.phone.sign(
        &env.ctx,
        "photo+jwt",
        json!({ "sub": sub, "sha256": sha_of(&first), "jti": "photo-1" }),
    );
    device::upload_photo(&env.ctx, &sub, &jws, &first)
        .await
        .unwrap();
    assert!(hosted(&env, &first).await.is_some());
    // A replay of a spent jti signing other bytes: 409, nothing stored.
    let other = test_png(17);
    let replay = env.phone.sign(
        &env.ctx,
        "photo+jwt",
        json!({ "sub": sub, "sha256": sha_of(&other), "jti": "photo-1" }),
    );
    let r = device::upload_photo(&env.ctx, &sub, &replay, &other).await;
    assert!(matches!(r, Err(DeviceError::Conflict(_))), "{r:?}");
    assert!(!stored(&other).await, "a refused upload was stored");
    // An object no record names (put there by hand) is not served.
    photos
        .put_photo(
            &photo::object_name(&sub, &photo::content_hash(&other)),
            &other,
            "image/png",
        )
        .await
        .unwrap();
    assert_eq!(hosted(&env, &other).await, None);
    // Disabled: not served.
    let (mut i, v) = env.store.identity(&sub, env.now()).await.unwrap().unwrap();
    i.disabled = true;
    env.store.update_identity(&i, v, env.now()).await.unwrap();
    assert_eq!(hosted(&env, &first).await, None);
    let (mut i, v) = env.store.identity(&sub, env.now()).await.unwrap().unwrap();
    i.disabled = false;
    env.store.update_identity(&i, v, env.now()).await.unwrap();
    assert!(hosted(&env, &first).await.is_some());
    // The store fails after the commit (as a crash would leave it): the record names a photo
    // that is not there, served as 404; the next upload mends it.
    let second = test_png(18);
    photos.fail.store(true, std::sync::atomic::Ordering::SeqCst);
    let r = device::upload_photo(
        &env.ctx,
        &sub,
        &photo_upload(&env, &sha_of(&second)),
        &second,
    )
    .await;
    assert!(matches!(r, Err(DeviceError::PhotosUnavailable)), "{r:?}");
    assert_eq!(hosted(&env, &second).await, None);
    assert!(
        !stored(&first).await,
        "the replaced photo is removed all the same"
    );
    photos
        .fail
        .store(false, std::sync::atomic::Ordering::SeqCst);
    device::upload_photo(
        &env.ctx,
        &sub,
        &photo_upload(&env, &sha_of(&second)),
        &second,
    )
    .await
    .unwrap();
    assert!(hosted(&env, &second).await.is_some());
    // Deleted between an upload's commit and its store: the object is removed.
    let third = test_png(19);
    *photos.delete_first.lock().unwrap() = Some((env.store.clone(), sub.to_string()));
    let r =
        device::upload_photo(&env.ctx, &sub, &photo_upload(&env, &sha_of(&third)), &third).await;
    assert!(matches!(r, Err(DeviceError::UnknownIdentity)), "{r:?}");
    for img in [&first, &other, &second, &third] {
        assert!(!stored(img).await, "left behind");
    }
}

/// Issue 25.2: deleting an identity removes every object under its name, also those no
/// record names.
#[tokio::test]
async fn deleting_an_identity_removes_all_its_photos() {
    use crate::domain::photo;
    use crate::store::photos::MemoryPhotos;
    use crate::store::PhotoStore;
    let mut env = env().await;
    let photos = std::sync::Arc::new(MemoryPhotos::default());
    env.ctx.photos = Some(photos.clone());
    let sub = env.alice.sub.clone();
    let img = test_png(16);
    device::upload_photo(&env.ctx, &sub, &photo_upload(&env, &sha_of(&img)), &img)
        .await
        .unwrap();
    let stray = photo::object_name(&sub, &photo::content_hash(b"stray"));
    photos
        .put_photo(&stray, b"stray", "image/png")
        .await
        .unwrap();
    let deletion = env
        .phone
        .sign(&env.ctx, "deletion+jwt", json!({ "sub": sub }));
    device::delete_identity(&env.ctx, &sub, &deletion, &env.source())
        .await
        .unwrap();
    assert_eq!(photos.photo(&stray).await.unwrap(), None);
    let current = photo::object_name(&sub, &photo::content_hash(&img));
    assert_eq!(photos.photo(&current).await.unwrap(), None);
}

/// Issue 25.2: uploads per identity and hour.
#[tokio::test]
async fn photo_uploads_are_limited_per_identity_and_hour() {
    use crate::store::photos::MemoryPhotos;
    let mut env = env().await;
    env.ctx.photos = Some(std::sync::Arc::new(MemoryPhotos::default()));
    let sub = env.alice.sub.clone();
    let max = env.ctx.settings.limits.photo_uploads_per_hour;
    assert_eq!(max, 10);
    for i in 0..max {
        let img = test_png(10 + u32::try_from(i).unwrap());
        device::upload_photo(&env.ctx, &sub, &photo_upload(&env, &sha_of(&img)), &img)
            .await
            .unwrap();
    }
    let img = test_png(8);
    let r = device::upload_photo(&env.ctx, &sub, &photo_upload(&env, &sha_of(&img)), &img).await;
    assert!(
        matches!(r, Err(DeviceError::RateLimited { retry_after: 3600 })),
        "{r:?}"
    );
    env.advance(3600);
    device::upload_photo(&env.ctx, &sub, &photo_upload(&env, &sha_of(&img)), &img)
        .await
        .unwrap();
}
