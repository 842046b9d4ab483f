//! Authorization (`usecase::login::authorize`): a new QR login bound to the browser, and what
//! an SSO session, remembered consent, `prompt` and `max_age` do.

use super::*;

#[tokio::test]
async fn authorize_a_valid_request_opens_a_qr_login_bound_to_the_browser() {
    let env = env().await;
    let d = env.authorize(&env.shop_auth(&[]), None).await;
    let AuthorizeDecision::ShowQr {
        login: session,
        client_name,
        browser_secret,
        ..
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

/// JARM: an error answered at once (`prompt=none`, no session) travels as one signed JWT for
/// the client; a deployment whose keyring cannot sign (a Lambda function without the KMS
/// signer) answers it as unavailable, not as a crash or an unsigned response.
#[tokio::test]
async fn a_jarm_error_is_signed_for_the_client_and_unavailable_without_a_signer() {
    let env = env().await;
    let p = env.shop_auth(&[("response_mode", "jwt"), ("prompt", "none")]);
    let AuthorizeDecision::Respond(r) = env.authorize(&p, None).await else {
        panic!("expected a response to the client");
    };
    assert_eq!(r.mode, crate::domain::authorize::ResponseMode::Query);
    assert_eq!(r.params.len(), 1, "only `response`: {r:?}");
    let jwt = param(&r, "response").unwrap();
    let issuer = env.ctx.settings.issuer();
    let claims: Value =
        jwt::verify_ignoring_expiry(&*env.ctx.keyring().await, jwt, &issuer).unwrap();
    assert_eq!(claims["error"], "login_required");
    assert_eq!(claims["aud"], SHOP);
    assert_eq!(claims["iss"], env.ctx.settings.issuer());
    assert_eq!(claims["exp"], env.now().secs() + 600);
    assert!(claims.get("code").is_none());

    let ring = crate::testing::keyring();
    let published = crate::keys::Keyring::publish_only(
        serde_json::from_slice::<crate::keys::jwk::JwkSet>(&ring.jwks_json())
            .unwrap()
            .keys,
        ring.algs(),
    )
    .unwrap();
    let ctx = crate::context::Context::new(
        env.ctx.settings.clone(),
        env.ctx.store.clone(),
        std::sync::Arc::new(published),
        env.ctx.clock.clone(),
        env.ctx.random.clone(),
    )
    .unwrap();
    let answer = crate::usecase::login::authorize(
        &ctx,
        &p,
        &crate::usecase::login::BrowserCookies::default(),
        "192.0.2.1",
        "test",
    )
    .await;
    assert!(
        matches!(answer, Err(crate::store::StoreError::Unavailable(_))),
        "{answer:?}"
    );
}
