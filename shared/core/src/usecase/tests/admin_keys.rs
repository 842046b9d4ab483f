//! The admin API's key rotation at exact times: the activation waits 300 s to the second,
//! then tokens are signed with the new key while the older ones still verify.

use super::*;
use crate::domain::admin::AdminRole;
use crate::keys::fresh::FreshKeys;
use crate::keys::Alg;
use crate::protocol::requests::GrantType;
use crate::service::admin::AdminError;
use crate::store::ClientStore;
use crate::usecase::admin::keys;
use crate::Context;

/// A context over `env`'s store and clock whose keys are a key file in `dir`, where
/// [`SHOP`] is a `realm-admin` service account.
async fn with_key_file(env: &TestEnv, dir: &std::path::Path) -> Context {
    let fresh = FreshKeys::local(dir.to_owned(), env.now()).unwrap();
    let ctx = Context::with_keys(
        env.ctx.settings.clone(),
        env.store.clone(),
        fresh,
        &[Alg::ES256, Alg::RS256],
        env.clock.clone(),
        env.random.clone(),
    )
    .unwrap();
    let (mut shop, version) = env.store.client(SHOP, env.now()).await.unwrap().unwrap();
    shop.grant_types.push(GrantType::ClientCredentials);
    shop.admin_roles = vec![AdminRole::RealmAdmin];
    env.store
        .update_client(&shop, version, env.now())
        .await
        .unwrap();
    ctx
}

async fn admin_token(env: &TestEnv, ctx: &Context) -> String {
    let presented = crate::service::client_auth::Presented {
        basic: Some((SHOP.to_owned(), env.shop_secret.clone())),
        ..Default::default()
    };
    let p = crate::testing::params(&[("grant_type", "client_credentials")]);
    let (_, issued) = crate::usecase::token::token(ctx, &p, &presented, &env.source())
        .await
        .unwrap();
    issued.access_token
}

fn kid(token: &str) -> String {
    let header = token.split('.').next().unwrap();
    let header: Value = serde_json::from_slice(
        &base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, header).unwrap(),
    )
    .unwrap();
    header["kid"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn the_next_key_is_activated_300_s_after_it_was_published_and_not_a_second_before() {
    let env = env().await;
    let dir = tempfile::tempdir().unwrap();
    let ctx = with_key_file(&env, dir.path()).await;
    let src = env.source();
    let first = admin_token(&env, &ctx).await;
    let old = kid(&first);
    let step = keys::rotate(&ctx, Some(&first), &src, Some("RS256"), false)
        .await
        .unwrap();
    assert_eq!(step["step"], "published");
    let next = step["kid"].as_str().unwrap().to_owned();
    let listed = keys::keys(&ctx, Some(&first), &src).await.unwrap();
    let entry = listed["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kid"] == next.as_str())
        .cloned()
        .unwrap();
    assert_eq!(
        (entry["status"].as_str(), entry["rotation"].as_str()),
        (Some("PASSIVE"), Some("next"))
    );
    assert_eq!(
        kid(&admin_token(&env, &ctx).await),
        old,
        "next does not sign"
    );

    env.advance(299);
    let before = admin_token(&env, &ctx).await;
    match keys::rotate(&ctx, Some(&before), &src, None, false).await {
        Err(AdminError::Conflict(why)) => assert!(why.contains("300 s"), "{why}"),
        other => panic!("activated 1 s early: {other:?}"),
    }
    env.advance(1);
    let step = keys::rotate(&ctx, Some(&before), &src, None, false)
        .await
        .unwrap();
    assert_eq!(
        (step["step"].as_str(), step["kid"].as_str()),
        (Some("activated"), Some(next.as_str()))
    );
    let after = admin_token(&env, &ctx).await;
    assert_eq!(
        kid(&after),
        next,
        "tokens are signed with the new key at once"
    );
    // A token of the old key still verifies (it is the caller here).
    let listed = keys::keys(&ctx, Some(&before), &src).await.unwrap();
    assert_eq!(listed["active"]["RS256"], next.as_str());
    let retired = listed["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kid"] == old.as_str())
        .cloned()
        .unwrap();
    assert_eq!(retired["rotation"], "retired");
    // Removing it is refused while its tokens may live, and with force it goes: its tokens
    // stop verifying.
    assert!(matches!(
        keys::remove(&ctx, Some(&after), &src, &old, false).await,
        Err(AdminError::Conflict(_))
    ));
    assert!(matches!(
        keys::remove(&ctx, Some(&after), &src, &next, true).await,
        Err(AdminError::Conflict(_))
    ));
    keys::remove(&ctx, Some(&after), &src, &old, true)
        .await
        .unwrap();
    assert!(matches!(
        keys::keys(&ctx, Some(&before), &src).await,
        Err(AdminError::Unauthorized(_))
    ));
}
