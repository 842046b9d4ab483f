//! The token endpoint (`usecase::token`): code exchange, replay, PKCE, refresh rotation and
//! reuse.

use super::*;

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
