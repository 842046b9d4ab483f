//! What resource servers and relying parties ask (`usecase::resource`, `usecase::logout`):
//! introspection, userinfo, and the tokens a logout ends.

use super::*;

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
