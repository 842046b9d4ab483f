//! The phone's side of a QR login (`usecase::app::scan`, `usecase::app::decide`): the
//! challenge spent once, the numbers, a second phone, scan proofs, replays, and sign-up.

use super::*;

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
        async move { app::scan(ctx, &id, &c, None, &src).await }
    };
    assert!(
        matches!(anon(&future).await, Err(AppError::UnknownLogin)),
        "a challenge of the next second"
    );
    env.advance(ttl - 1);
    let scanned = anon(&c0).await.unwrap();
    assert_eq!(scanned.client.client_id, SHOP);
    assert_eq!(scanned.login.scanned_challenges(), vec![c0.clone()]);
    let n = scanned.login.number.unwrap();
    assert!(scanned.login.number_choices().contains(&n));
    assert!(
        matches!(anon(&c0).await, Err(AppError::UnknownLogin)),
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
    let late = app::scan(&env.ctx, &other.id, &old, None, &env.source()).await;
    assert!(
        matches!(late, Err(AppError::UnknownLogin)),
        "4 s old: {late:?}"
    );
    // The QR shows a newer challenge by now, and that one is accepted.
    let now = other.current_challenge(env.now());
    app::scan(&env.ctx, &other.id, &now, None, &env.source())
        .await
        .unwrap();
    assert!(matches!(
        app::scan(
            &env.ctx,
            &other.id,
            "AAAAAAAAAAAAAAAAAAAAAA",
            None,
            &env.source()
        )
        .await,
        Err(AppError::UnknownLogin)
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
            let by = app::ScanBy {
                proof: None,
                browser_secret: browser_secret.as_deref(),
                who: &src,
                phone_ip: "192.0.2.1",
            };
            app::scan_from(&env.ctx, &login.id, &c, by)
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
    app::scan(&env.ctx, &login.id, &challenge, None, &env.source())
        .await
        .unwrap();
    env.advance(1);
    assert_eq!(env.now(), login.expires_at);
    let scan = app::scan(
        &env.ctx,
        &login.id,
        &login.current_challenge(env.now()),
        None,
        &env.source(),
    )
    .await;
    assert!(
        matches!(scan, Err(AppError::UnknownLogin)),
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
    let d = app::decide(&env.ctx, &login.id, &approval, &env.source()).await;
    assert!(matches!(d, Err(AppError::UnknownLogin)), "{d:?}");
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
    let d = app::decide(&env.ctx, &login.id, &unscanned, &env.source()).await;
    assert!(matches!(d, Err(AppError::UnknownLogin)), "{d:?}");

    app::scan(&env.ctx, &login.id, &challenge, None, &env.source())
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
    let d = app::decide(&env.ctx, &login.id, &approval, &env.source()).await;
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
    let d = app::decide(&env.ctx, &login.id, &second, &env.source()).await;
    assert!(matches!(d, Err(AppError::AlreadyDecided)), "{d:?}");
    let d = app::decide(&env.ctx, &login.id, &approval, &env.source()).await;
    assert!(
        matches!(d, Err(AppError::AlreadyDecided)),
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
    app::scan(&env.ctx, &a.id, &ca, None, &env.source())
        .await
        .unwrap();
    app::scan(&env.ctx, &b.id, &cb, None, &env.source())
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
    let d = app::decide(&env.ctx, &a.id, &signed(&a.id, &ca, na), &env.source()).await;
    assert_eq!(d.unwrap(), Decision::Approve);
    // A second, validly signed decision on another login with the same jti.
    let d = app::decide(&env.ctx, &b.id, &signed(&b.id, &cb, nb), &env.source()).await;
    match d {
        Err(AppError::Invalid(why)) => assert!(why.contains("jti"), "{why}"),
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
    app::scan(&env.ctx, &login.id, &challenge, None, &env.source())
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
    let d = app::decide(&env.ctx, &login.id, &forged, &env.source()).await;
    assert!(matches!(d, Err(AppError::Invalid(_))), "{d:?}");
    assert_eq!(
        env.qr_login(&login.id).await.value.status,
        LoginStatus::Pending
    );
}

/// Bob, a second identity with his own phone.
async fn bob(env: &TestEnv) -> (Device, String) {
    let phone = Device::generate();
    let reg = phone.registration(&env.ctx, "bob");
    let bob = app::signup(&env.ctx, &reg, &env.source()).await.unwrap();
    (phone, bob.sub.to_string())
}

/// Alice's recent logins, as her app reads them.
async fn alice_logins(env: &TestEnv) -> Vec<crate::domain::identity::LoginActivity> {
    let activity = env
        .phone
        .sign(&env.ctx, "activity+jwt", json!({ "sub": env.alice.sub }));
    app::recent_logins(&env.ctx, &env.alice.sub, &activity)
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
    let d = app::decide(&env.ctx, &login.id, &missing, &env.source()).await;
    match d {
        Err(AppError::Invalid(why)) => assert!(why.contains("number"), "{why}"),
        other => panic!("expected invalid_request, got {other:?}"),
    }
    // A number that is not an integer is malformed, not wrong.
    let text = env.phone.sign(
        &env.ctx,
        "approval+jwt",
        json!({ "sub": env.alice.sub, "session": login.id, "challenge": challenge,
                "decision": "approve", "number": n.to_string() }),
    );
    let d = app::decide(&env.ctx, &login.id, &text, &env.source()).await;
    assert!(matches!(d, Err(AppError::Invalid(_))), "{d:?}");
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
    let d = app::decide(&env.ctx, &login.id, &bad, &env.source()).await;
    assert!(
        matches!(d, Err(AppError::Cancelled(CancelReason::WrongNumber))),
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
    let d = app::decide(&env.ctx, &login.id, &right, &env.source()).await;
    assert!(matches!(d, Err(AppError::AlreadyDecided)), "{d:?}");
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
    let r = app::scan(&env.ctx, &login.id, &c, Some(&proof), &env.source()).await;
    assert!(
        matches!(r, Err(AppError::Cancelled(CancelReason::SecondDevice))),
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
    app::scan(&env.ctx, &login.id, &c, None, &env.source())
        .await
        .unwrap();
    env.advance(1);
    let c = login.current_challenge(env.now());
    let r = app::scan(&env.ctx, &login.id, &c, None, &env.source()).await;
    assert!(matches!(r, Err(AppError::Cancelled(_))), "{r:?}");
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
    let d = app::decide(&env.ctx, &login.id, &approval, &env.source()).await;
    assert!(
        matches!(d, Err(AppError::Cancelled(CancelReason::SecondDevice))),
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
        async move { app::scan(ctx, &id, &c, Some(&proof), &src).await }
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
        assert!(matches!(r, Err(AppError::Invalid(_))), "{name}: {r:?}");
    }
    let unknown = mallory.scan_proof(&env.ctx, "nobody", &login.id, &c);
    assert!(matches!(
        scan(unknown).await,
        Err(AppError::UnknownIdentity)
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
    let bob = app::signup(&env.ctx, &reg, &env.source()).await.unwrap();
    assert_eq!(bob.name, "bob");
    assert_eq!(bob.public_key, phone.public_key());
    assert_eq!(bob.created_at, T0);
    let again = app::signup(&env.ctx, &reg, &env.source()).await;
    assert!(matches!(again, Err(AppError::NameTaken)), "{again:?}");
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
    app::signup(&env.ctx, &first, &env.source()).await.unwrap();
    match app::signup(&env.ctx, &replay, &env.source()).await {
        Err(AppError::Invalid(why)) => assert!(why.contains("jti"), "{why}"),
        other => panic!("expected the jti to be refused, got {other:?}"),
    }
}

#[tokio::test]
async fn an_approval_presented_at_its_exp_is_refused() {
    let env = env().await;
    let (login, _) = env.show_qr(&env.shop_auth(&[])).await;
    let challenge = login.current_challenge(env.now());
    app::scan(&env.ctx, &login.id, &challenge, None, &env.source())
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
    let d = app::decide(&env.ctx, &login.id, &approval, &env.source()).await;
    assert!(matches!(d, Err(AppError::Invalid(_))), "expired JWS: {d:?}");
    assert_eq!(
        env.qr_login(&login.id).await.value.status,
        LoginStatus::Pending
    );
}
