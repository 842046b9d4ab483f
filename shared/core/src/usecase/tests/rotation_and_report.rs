//! Ending things after the fact: a replaced device key ends every session and token of the
//! identity, SSO logins show in the recent logins, and "this wasn't me" revokes one login.

use serde_json::{json, Value};

use crate::domain::identity::LoginActivity;
use crate::domain::login::SsoSession;
use crate::store::{ClientStore, IdentityStore, SsoSessions};
use crate::testing::{param, Builder, Device, TestEnv, SHOP};
use crate::usecase::app::{self, AppError};
use crate::usecase::login::AuthorizeDecision;
use crate::usecase::resource;
use crate::usecase::token::TokenError;

/// The test env, with Shop receiving back-channel logout.
async fn env() -> TestEnv {
    let env = Builder::new().build().await;
    let (mut shop, version) = env.store.client(SHOP, env.now()).await.unwrap().unwrap();
    shop.backchannel_logout_uri = Some("https://shop.example/bcl".into());
    env.store
        .update_client(&shop, version, env.now())
        .await
        .unwrap();
    env
}

async fn active(env: &TestEnv, token: &str) -> bool {
    let r = resource::introspect(&env.ctx, &env.shop, token, env.now())
        .await
        .unwrap();
    serde_json::to_value(r).unwrap()["active"] == json!(true)
}

fn refused(r: Result<crate::domain::grant::Issued, TokenError>) -> bool {
    matches!(r, Err(TokenError::OAuth(e)) if e.error == crate::protocol::OAuthErrorCode::InvalidGrant)
}

/// A `key-rotation+jwt` from `old` to `new` for Alice.
fn rotation(env: &TestEnv, old: &Device, new: &Device, extra: Value) -> String {
    let proof = new.sign(
        &env.ctx,
        "key-proof+jwt",
        json!({ "sub": env.alice.sub, "jti": format!("proof-{}", uuid::Uuid::new_v4()) }),
    );
    let mut claims = json!({
        "sub": env.alice.sub, "public_key": new.public_key(), "proof": proof,
        // Two phones sign for Alice here: jtis that cannot meet.
        "jti": format!("rotation-{}", uuid::Uuid::new_v4()),
    });
    if let (Some(c), Value::Object(e)) = (claims.as_object_mut(), extra) {
        c.extend(e);
    }
    old.sign(&env.ctx, "key-rotation+jwt", claims)
}

async fn recent(env: &TestEnv, phone: &Device) -> Vec<LoginActivity> {
    let activity = phone.sign(&env.ctx, "activity+jwt", json!({ "sub": env.alice.sub }));
    app::recent_logins(&env.ctx, &env.alice.sub, &activity)
        .await
        .unwrap()
}

async fn session_live(env: &TestEnv, sid: &str) -> bool {
    env.store
        .sso_session(sid, env.now())
        .await
        .unwrap()
        .is_some()
}

#[tokio::test]
async fn a_key_replaced_with_end_sessions_ends_every_session_and_token_of_the_identity() {
    let env = env().await;
    let online = env.login(&env.shop_auth(&[])).await;
    let on = env.exchange_shop(&online.code).await.unwrap();
    let offline = env
        .login(&env.shop_auth(&[("scope", "openid offline_access")]))
        .await;
    let off = env.exchange_shop(&offline.code).await.unwrap();
    // A code issued before the replacement, redeemed after.
    let pending = env.login(&env.shop_auth(&[])).await;
    env.advance(1);

    let new_phone = Device::generate();
    let r = rotation(
        &env,
        &env.phone,
        &new_phone,
        json!({ "end_sessions": true }),
    );
    let ident = app::rotate_key(&env.ctx, &env.alice.sub, &r).await.unwrap();
    assert_eq!(ident.public_key, new_phone.public_key());
    assert_eq!(ident.tokens_not_before, Some(env.now()));

    for t in [&on, &off] {
        assert!(!active(&env, &t.access_token).await);
        assert!(refused(
            env.refresh_shop(t.refresh_token.as_deref().unwrap()).await
        ));
    }
    assert!(refused(env.exchange_shop(&pending.code).await));
    for sid in [&online.sid, &offline.sid, &pending.sid] {
        assert!(!session_live(&env, sid).await);
    }
    // Shop was told about each session, by a logout token naming it.
    let told: Vec<String> = env
        .deliveries
        .taken()
        .iter()
        .map(|d| {
            let c: serde_json::Map<String, Value> = crate::keys::jwt::verify(
                &crate::testing::keyring(),
                &d.token,
                &env.ctx.settings.issuer(),
                env.now(),
            )
            .unwrap();
            c["sid"].as_str().unwrap().to_owned()
        })
        .collect();
    for sid in [&online.sid, &offline.sid, &pending.sid] {
        assert!(told.contains(sid), "{sid} not in {told:?}");
    }

    // The new key logs in again: its tokens live (back to the first phone, keeping sessions,
    // since the test env's phone is the one that approves).
    env.advance(1);
    let back = rotation(&env, &new_phone, &env.phone, json!({}));
    app::rotate_key(&env.ctx, &env.alice.sub, &back)
        .await
        .unwrap();
    let again = env.login(&env.shop_auth(&[])).await;
    let t = env.exchange_shop(&again.code).await.unwrap();
    assert!(active(&env, &t.access_token).await);
}

/// A QR login's session is listed under its identity by the approval's write (its recent
/// logins), not by a list written when the session starts (issue 41); ending the identity's
/// sessions finds it there, and a session started otherwise (an older list) still counts.
#[tokio::test]
async fn a_qr_logins_session_is_listed_by_its_approval_and_ended_with_the_identity() {
    use crate::store::{Backend, Key, Kind};
    let env = env().await;
    let one = env.login(&env.shop_auth(&[])).await;
    let sub = env.alice.sub.as_str();
    let list = Key::new(Kind::IdentitySessions, sub);
    assert!(
        env.store.get(&list, env.now()).await.unwrap().is_none(),
        "no list of its own was written"
    );
    let history = env.store.login_history(sub, env.now()).await.unwrap();
    let listed: Vec<&str> = history.history.live_sessions(env.now()).collect();
    assert_eq!(listed, [one.sid.as_str()]);
    // A session from before (listed the old way) is found too.
    let two = env.login(&env.shop_auth(&[("state", "two")])).await;
    env.store
        .end_sso_session(&two.sid, env.now())
        .await
        .unwrap();
    let older = env.login(&env.shop_auth(&[("state", "three")])).await;
    env.store
        .remember_identity_session(sub, &older.sid, env.now().secs() + 3600, env.now())
        .await
        .unwrap();
    let sids = env.store.identity_sessions(sub, env.now()).await.unwrap();
    for s in [&one.sid, &older.sid] {
        assert_eq!(
            sids.iter().filter(|x| *x == s).count(),
            1,
            "{s} once in {sids:?}"
        );
    }
    let ended = crate::service::sessions::end_sessions_of(&env.ctx, sub, env.now())
        .await
        .unwrap();
    assert_eq!(ended, 2, "the two live sessions, not the one ended already");
    for s in [&one.sid, &two.sid, &older.sid] {
        assert!(!session_live(&env, s).await);
    }
}

#[tokio::test]
async fn a_key_replaced_without_end_sessions_keeps_them_and_a_wrong_flag_is_refused() {
    let env = env().await;
    let online = env.login(&env.shop_auth(&[])).await;
    let on = env.exchange_shop(&online.code).await.unwrap();
    let new_phone = Device::generate();
    let bad = rotation(
        &env,
        &env.phone,
        &new_phone,
        json!({ "end_sessions": "yes" }),
    );
    let r = app::rotate_key(&env.ctx, &env.alice.sub, &bad).await;
    assert!(matches!(r, Err(AppError::Invalid(_))), "{r:?}");
    let r = rotation(
        &env,
        &env.phone,
        &new_phone,
        json!({ "end_sessions": false }),
    );
    let ident = app::rotate_key(&env.ctx, &env.alice.sub, &r).await.unwrap();
    assert_eq!(ident.tokens_not_before, None);
    assert!(active(&env, &on.access_token).await);
    assert!(session_live(&env, &online.sid).await);
    assert!(env.deliveries.taken().is_empty());
}

#[tokio::test]
async fn the_operator_s_key_replacement_always_ends_everything() {
    let env = env().await;
    let offline = env
        .login(&env.shop_auth(&[("scope", "openid offline_access")]))
        .await;
    let off = env.exchange_shop(&offline.code).await.unwrap();
    env.advance(1);
    let new_phone = Device::generate();
    let r = app::replace_key_by_operator(&env.ctx, &env.alice.sub, Some("not a key")).await;
    assert!(matches!(r, Err(AppError::Invalid(_))), "{r:?}");
    assert!(
        active(&env, &off.access_token).await,
        "a refused replacement changes nothing"
    );
    let (ident, ended) =
        app::replace_key_by_operator(&env.ctx, &env.alice.sub, Some(&new_phone.public_key()))
            .await
            .unwrap();
    assert_eq!(
        (ident.public_key.as_str(), ended),
        (new_phone.public_key().as_str(), 1)
    );
    assert!(!active(&env, &off.access_token).await);
    assert!(refused(
        env.refresh_shop(off.refresh_token.as_deref().unwrap())
            .await
    ));
    assert!(!session_live(&env, &offline.sid).await);
    // The old key signs nothing any more.
    let activity = env
        .phone
        .sign(&env.ctx, "activity+jwt", json!({ "sub": env.alice.sub }));
    let r = app::recent_logins(&env.ctx, &env.alice.sub, &activity).await;
    assert!(matches!(r, Err(AppError::Invalid(_))), "{r:?}");
    let unknown = app::replace_key_by_operator(&env.ctx, "nobody", None).await;
    assert!(
        matches!(unknown, Err(AppError::UnknownIdentity)),
        "{unknown:?}"
    );
}

#[tokio::test]
async fn a_login_through_an_sso_session_shows_in_the_recent_logins_marked_sso() {
    let env = env().await;
    let first = env.login(&env.shop_auth(&[])).await;
    env.advance(5);
    // The same browser, a remembered consent: a code at once, no QR step.
    let AuthorizeDecision::Respond(r) = env
        .authorize(&env.shop_auth(&[]), Some(&first.sso_cookie))
        .await
    else {
        panic!("expected a code at once");
    };
    assert!(param(&r, "code").is_some());
    let logins = recent(&env, &env.phone).await;
    assert_eq!(logins.len(), 2, "{logins:?}");
    assert_eq!(logins[0].method, "sso");
    assert_eq!(logins[0].sid.as_deref(), Some(first.sid.as_str()));
    assert_eq!(logins[0].outcome, "approved");
    assert_eq!(logins[1].method, "qr");
    assert!(logins[1].login_id.is_some());
    assert_ne!(logins[0].id, logins[1].id);
    assert!(logins.iter().all(|l| !l.id.is_empty()));
}

fn report(env: &TestEnv, phone: &Device, sub: &str, id: &str) -> String {
    phone.sign(&env.ctx, "report+jwt", json!({ "sub": sub, "login": id }))
}

#[tokio::test]
async fn this_wasn_t_me_revokes_that_login_s_tokens_ends_its_session_and_tells_its_clients() {
    let env = env().await;
    let mine = env.login(&env.shop_auth(&[])).await;
    let my = env.exchange_shop(&mine.code).await.unwrap();
    env.advance(1);
    let theirs = env
        .login(&env.shop_auth(&[("scope", "openid offline_access")]))
        .await;
    let their = env.exchange_shop(&theirs.code).await.unwrap();
    let logins = recent(&env, &env.phone).await;
    let entry = logins[0].clone();
    let s: SsoSession = env
        .store
        .sso_session(&theirs.sid, env.now())
        .await
        .unwrap()
        .unwrap()
        .value;
    assert_eq!(s.login, entry.login_id, "the session names the QR login");

    // Signed by another key, or naming another entry than the path: refused.
    let mallory = Device::generate();
    let forged = report(&env, &mallory, &env.alice.sub, &entry.id);
    let r = app::report_login(&env.ctx, &env.alice.sub, &entry.id, &forged, &env.source()).await;
    assert!(matches!(r, Err(AppError::Invalid(_))), "{r:?}");
    let other = report(&env, &env.phone, &env.alice.sub, &logins[1].id);
    let r = app::report_login(&env.ctx, &env.alice.sub, &entry.id, &other, &env.source()).await;
    assert!(matches!(r, Err(AppError::Invalid(_))), "{r:?}");
    let unknown = report(&env, &env.phone, &env.alice.sub, "nope");
    let r = app::report_login(&env.ctx, &env.alice.sub, "nope", &unknown, &env.source()).await;
    assert!(matches!(r, Err(AppError::UnknownActivity)), "{r:?}");
    assert!(env.deliveries.taken().is_empty());

    env.advance(1);
    let signed = report(&env, &env.phone, &env.alice.sub, &entry.id);
    let done = app::report_login(&env.ctx, &env.alice.sub, &entry.id, &signed, &env.source())
        .await
        .unwrap();
    assert_eq!(done.sid.as_deref(), Some(theirs.sid.as_str()));
    assert_eq!(done.entry.reported_at, Some(env.now()));
    // Their tokens are dead, the offline one too; their session ended; Shop was told.
    assert!(!active(&env, &their.access_token).await);
    assert!(refused(
        env.refresh_shop(their.refresh_token.as_deref().unwrap())
            .await
    ));
    assert!(!session_live(&env, &theirs.sid).await);
    let taken = env.deliveries.taken();
    assert_eq!(taken.len(), 1, "{taken:?}");
    assert_eq!(taken[0].client_id, SHOP);
    // Mine live on.
    assert!(active(&env, &my.access_token).await);
    assert!(session_live(&env, &mine.sid).await);
    env.refresh_shop(my.refresh_token.as_deref().unwrap())
        .await
        .unwrap();
    // The list says so.
    let logins = recent(&env, &env.phone).await;
    assert_eq!(logins[0].reported_at, Some(env.now()));
    assert_eq!(logins[1].reported_at, None);

    // The same request again: a replay. A new one: fine, the first time stays.
    let r = app::report_login(&env.ctx, &env.alice.sub, &entry.id, &signed, &env.source()).await;
    assert!(matches!(r, Err(AppError::Invalid(_))), "{r:?}");
    let reported_at = env.now();
    env.advance(3);
    let again = report(&env, &env.phone, &env.alice.sub, &entry.id);
    let done = app::report_login(&env.ctx, &env.alice.sub, &entry.id, &again, &env.source())
        .await
        .unwrap();
    assert_eq!(done.entry.reported_at, Some(reported_at));
    assert_eq!(env.deliveries.taken().len(), 1, "no second logout token");

    // Another identity cannot report Alice's login: 404.
    let bob_phone = Device::generate();
    let bob = app::signup(
        &env.ctx,
        &bob_phone.registration(&env.ctx, "bob"),
        &env.source(),
    )
    .await
    .unwrap();
    let bobs = report(&env, &bob_phone, &bob.sub, &entry.id);
    let r = app::report_login(&env.ctx, &bob.sub, &entry.id, &bobs, &env.source()).await;
    assert!(matches!(r, Err(AppError::UnknownActivity)), "{r:?}");
    // Alice's sub in the path with Bob's key: refused (not Alice's key).
    let r = app::report_login(&env.ctx, &env.alice.sub, &entry.id, &bobs, &env.source()).await;
    assert!(matches!(r, Err(AppError::Invalid(_))), "{r:?}");
}

#[tokio::test]
async fn this_wasn_t_me_on_an_sso_login_ends_the_session_it_used() {
    let env = env().await;
    let first = env.login(&env.shop_auth(&[])).await;
    let AuthorizeDecision::Respond(r) = env
        .authorize(&env.shop_auth(&[]), Some(&first.sso_cookie))
        .await
    else {
        panic!("expected a code at once");
    };
    let t = env.exchange_shop(param(&r, "code").unwrap()).await.unwrap();
    let entry = recent(&env, &env.phone).await[0].clone();
    assert_eq!(entry.method, "sso");
    let signed = report(&env, &env.phone, &env.alice.sub, &entry.id);
    app::report_login(&env.ctx, &env.alice.sub, &entry.id, &signed, &env.source())
        .await
        .unwrap();
    assert!(!active(&env, &t.access_token).await);
    assert!(!session_live(&env, &first.sid).await);
}

#[tokio::test]
async fn repeated_sso_logins_of_one_session_and_client_are_one_entry() {
    let env = env().await;
    let first = env.login(&env.shop_auth(&[])).await;
    for _ in 0..3 {
        env.advance(10);
        let AuthorizeDecision::Respond(_) = env
            .authorize(&env.shop_auth(&[]), Some(&first.sso_cookie))
            .await
        else {
            panic!("expected a code at once");
        };
    }
    let logins = recent(&env, &env.phone).await;
    let methods: Vec<&str> = logins.iter().map(|l| l.method.as_str()).collect();
    assert_eq!(
        methods,
        ["sso", "qr"],
        "silent renewals do not fill the list"
    );
    assert_eq!(logins[0].at, env.now(), "the newest renewal");
}

#[tokio::test]
async fn an_sso_session_from_before_every_session_ended_logs_nobody_in() {
    use crate::store::IdentityStore;
    let env = env().await;
    let first = env.login(&env.shop_auth(&[])).await;
    env.advance(1);
    // Every token ended, but (say, a failure meanwhile) the session record is still there.
    let (mut alice, v) = env
        .store
        .identity(&env.alice.sub, env.now())
        .await
        .unwrap()
        .unwrap();
    alice.tokens_not_before = Some(env.now());
    env.store
        .update_identity(&alice, v, env.now())
        .await
        .unwrap();
    assert!(session_live(&env, &first.sid).await);
    let d = env
        .authorize(&env.shop_auth(&[]), Some(&first.sso_cookie))
        .await;
    assert!(matches!(d, AuthorizeDecision::ShowQr { .. }), "{d:?}");
}
