//! Rate limits (`service::limits`): whole-minute windows, and failed client authentications
//! limited per source.

use super::*;

async fn count(env: &TestEnv, limit: Limit, who: &str) -> Counted {
    limits::count(
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
