//! The consent step (`usecase::login::consent`): allow, deny, and a forged form.

use super::*;

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
    // Completed by the session it started (the login is not written: issue 41), the login
    // stays as approved; the form cannot be submitted twice, and the second try writes
    // nothing (the consent stays remembered, no second code).
    let sid = crate::domain::login::sid_of_login(&login.id);
    assert!(env
        .store
        .sso_session(&sid, env.now())
        .await
        .unwrap()
        .is_some());
    let l = env.qr_login(&login.id).await;
    assert!(matches!(l.value.status, LoginStatus::Approved { .. }));
    let again = crate::usecase::login::consent(
        &env.ctx,
        &l,
        secret.expose(),
        ConsentInput::Submit {
            csrf: Some(&csrf_token(secret.expose(), &login.id)),
            choice: Some("allow"),
        },
    )
    .await;
    assert!(
        matches!(
            again,
            Err(crate::usecase::login::CompleteError::AlreadyCompleted)
        ),
        "{again:?}"
    );
    assert_eq!(
        env.store
            .consent(&env.alice.sub, SHOP, env.now())
            .await
            .unwrap()
            .expect("still remembered")
            .granted_at,
        T0.plus_secs(7)
    );
    // Decided, its record lives a minute past the login's end (the page's next poll learns the
    // outcome), not the whole grace a pending login keeps.
    env.advance(l.value.expires_at.secs() - env.now().secs() + COMPLETED_GRACE_SECS - 1);
    assert!(!env.qr_login_gone(&login.id).await);
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

#[tokio::test]
async fn a_consent_from_before_the_client_became_an_agent_is_asked_again_and_then_delegates() {
    use crate::domain::client::GrantType;
    use crate::store::ClientStore;
    let env = env().await;
    let first = env.login(&env.shop_auth(&[])).await;
    let plain = env
        .store
        .consent(&env.alice.sub, SHOP, env.now())
        .await
        .unwrap();
    assert!(
        !plain.expect("remembered").delegation,
        "the shop is no agent"
    );
    // The operator makes the shop an agent (Keycloak's standard.token.exchange.enabled).
    let (mut shop, v) = env.store.client(SHOP, env.now()).await.unwrap().unwrap();
    shop.grant_types.push(GrantType::TokenExchange);
    env.store.update_client(&shop, v, env.now()).await.unwrap();
    env.advance(10);
    // The remembered consent said nothing of acting for the person: the page is shown again.
    let d = env
        .authorize(&env.shop_auth(&[]), Some(&first.sso_cookie))
        .await;
    let AuthorizeDecision::AskConsent {
        login,
        browser_secret,
    } = d
    else {
        panic!("expected the consent page again, got {d:?}");
    };
    // The page said the shop may act for Alice: its form carries the agent page's token.
    let csrf = crate::domain::consent::delegation_csrf_token(browser_secret.expose(), &login.id);
    let submit = ConsentInput::Submit {
        csrf: Some(&csrf),
        choice: Some("allow"),
    };
    let ConsentOutcome::Completed(_) = env.consent(&login.id, &browser_secret, submit).await else {
        panic!("expected a code");
    };
    let now_delegated = env
        .store
        .consent(&env.alice.sub, SHOP, env.now())
        .await
        .unwrap();
    assert!(now_delegated.expect("remembered").delegation);
}

/// A login completes by the session it starts (issue 41): a denial after the completion
/// landed loses, and a session ended while its login lives closes the login, so the browser
/// cannot complete it again (with a remembered consent, opening the page would).
#[tokio::test]
async fn a_completed_login_is_neither_denied_after_nor_completed_again_once_its_session_ends() {
    let env = env().await;
    let (login, secret) = env.show_qr(&env.shop_auth(&[])).await;
    env.scan_and_decide(&login, "approve").await.unwrap();
    let l = env.qr_login(&login.id).await;
    let ConsentOutcome::Completed(_) = env.submit_consent(&login.id, &secret, "allow").await else {
        panic!("expected a code");
    };
    // The deny form, sent on the login as read before the completion.
    let denied = crate::usecase::login::deny(&env.ctx, &l).await;
    assert!(
        matches!(
            denied,
            Err(crate::usecase::login::CompleteError::AlreadyCompleted)
        ),
        "{denied:?}"
    );

    let (login, secret) = env.show_qr(&env.shop_auth(&[("state", "two")])).await;
    env.scan_and_decide(&login, "approve").await.unwrap();
    let ConsentOutcome::Completed(_) = env.consent(&login.id, &secret, ConsentInput::Open).await
    else {
        panic!("the remembered consent completes at once");
    };
    let sid = crate::domain::login::sid_of_login(&login.id);
    crate::service::sessions::end_session(&env.ctx, &sid, env.now())
        .await
        .unwrap();
    let l = env.qr_login(&login.id).await;
    assert!(
        !matches!(l.value.status, LoginStatus::Approved { .. }),
        "closed"
    );
    let again = env.consent(&login.id, &secret, ConsentInput::Open).await;
    assert!(
        !matches!(again, ConsentOutcome::Completed(_)),
        "completed again"
    );
    assert!(env
        .store
        .sso_session(&sid, env.now())
        .await
        .unwrap()
        .is_none());
}
