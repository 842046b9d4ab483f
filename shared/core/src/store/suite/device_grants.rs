//! Device authorizations (RFC 8628).

use super::*;

fn device_authorization(user_code: &str) -> crate::domain::device_grant::DeviceAuthorization {
    crate::domain::device_grant::DeviceAuthorization::new(
        ClientId::new("tv"),
        Scopes::from_stored(["openid"]),
        user_code.to_owned(),
        600,
        T0,
    )
}

pub async fn device_authorizations_are_found_by_user_code_and_expire<B: Backend>(s: Arc<B>) {
    use crate::store::device_grants::DeviceGrants;
    use crate::store::flows::Outcome;

    let (hash, user_code) = (id("dc"), id("uc"));
    let d = device_authorization(&user_code);
    assert_eq!(
        s.create_device_authorization(&hash, &d, T0).await.unwrap(),
        Outcome::Done
    );
    // A second authorization drawing the same user code loses, and writes nothing.
    let other = id("dc");
    assert_eq!(
        s.create_device_authorization(&other, &d, T0).await.unwrap(),
        Outcome::Lost
    );
    assert!(s.device_authorization(&other, T0).await.unwrap().is_none());
    let found = s
        .device_authorization_by_user_code(&user_code, T0)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.device_code_hash, hash);
    assert_eq!(found.authorization.value, d);
    // A conditional update at the version read: the second writer of that version loses.
    let mut next = d.clone();
    next.interval = 10;
    let old = found.authorization;
    assert_eq!(
        s.update_device_authorization(&old, &next, T0)
            .await
            .unwrap(),
        Outcome::Done
    );
    assert_eq!(
        s.update_device_authorization(&old, &next, T0)
            .await
            .unwrap(),
        Outcome::Lost
    );
    assert_eq!(
        s.device_authorization(&hash, T0)
            .await
            .unwrap()
            .unwrap()
            .value
            .interval,
        10
    );
    // Expiry is checked on every read, by device code and by user code (the record outlives
    // the code by a grace, so a late poll learns `expired_token`).
    let end = d
        .expires_at
        .plus_secs(crate::domain::device_grant::RECORD_GRACE_SECS);
    assert!(s
        .device_authorization(&hash, end.plus_secs(-1))
        .await
        .unwrap()
        .is_some());
    assert!(s.device_authorization(&hash, end).await.unwrap().is_none());
    assert!(s
        .device_authorization_by_user_code(&user_code, end)
        .await
        .unwrap()
        .is_none());
    assert!(s
        .device_authorization_by_user_code(&id("uc"), T0)
        .await
        .unwrap()
        .is_none());
}

pub async fn a_device_code_is_redeemed_once<B: Backend + 'static>(s: Arc<B>) {
    use crate::domain::grant::{Grant, GrantKind, RefreshRecord};
    use crate::domain::login::SsoSession;
    use crate::random::SeededRandom;
    use crate::store::device_grants::DeviceGrants;
    use crate::store::flows::{Grants, Outcome};

    let (hash, user_code) = (id("dc"), id("uc"));
    let mut d = device_authorization(&user_code);
    s.create_device_authorization(&hash, &d, T0).await.unwrap();
    d.settle(Some(("sub-1", crate::domain::authn::Method::PasskeyUv)), T0)
        .unwrap();
    let old = s.device_authorization(&hash, T0).await.unwrap().unwrap();
    s.update_device_authorization(&old, &d, T0).await.unwrap();
    let approved = s.device_authorization(&hash, T0).await.unwrap().unwrap();
    // How the person approved is kept (the tokens' amr and acr).
    assert!(matches!(
        approved.value.status,
        crate::domain::device_grant::DeviceGrantStatus::Approved {
            approved_with: crate::domain::authn::Method::PasskeyUv,
            ..
        }
    ));
    let later = T0.secs() + 1800;
    let sid = id("sid");
    let redeem = |seed: u64| {
        let (s, approved, hash) = (s.clone(), approved.clone(), hash.clone());
        let sid = sid.clone();
        async move {
            let (mut sso, _) = SsoSession::new("sub-1", T0, T0, &SeededRandom::new(seed));
            sso.sid = SessionId::new(sid);
            sso.method = crate::domain::authn::Method::PasskeyUv;
            let grant = Grant {
                id: crate::protocol::GrantId::new(id("grant")),
                kind: GrantKind::AuthorizationCode,
                client_id: ClientId::new("tv"),
                sub: Subject::new("sub-1"),
                sid: Some(sso.sid.clone()),
                scopes: Scopes::from_stored(["openid"]),
                auth_time: T0,
                nonce: None,
                created_at: T0,
                offline: false,
                generation: 1,
                rotated_at: T0,
                revoked: false,
                alg: crate::keys::Alg::ES256,
                claims: Default::default(),
                resources: Vec::new(),
                method: Default::default(),
            };
            let refresh = RefreshRecord {
                grant_id: grant.id.clone(),
                client_id: ClientId::new("tv"),
                generation: 1,
            };
            let o = s
                .redeem_device_code(
                    &hash,
                    &approved,
                    (&sso, later),
                    &grant,
                    &id("rt"),
                    &refresh,
                    later,
                    T0,
                )
                .await
                .unwrap();
            (o, grant.id)
        }
    };
    let ((a, ga), (b, gb)) = tokio::join!(redeem(1), redeem(2));
    let (winner, loser) = one_wins((a, ga), (b, gb));
    assert!(s.grant(&winner, T0).await.unwrap().is_some());
    assert!(
        s.grant(&loser, T0).await.unwrap().is_none(),
        "all or nothing"
    );
    // The session keeps how it began (every SSO login's amr and acr).
    let sso = crate::store::SsoSessions::sso_session(s.as_ref(), &sid, T0)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(sso.value.method, crate::domain::authn::Method::PasskeyUv);
    assert!(s.device_authorization(&hash, T0).await.unwrap().is_none());
    assert!(s
        .device_authorization_by_user_code(&user_code, T0)
        .await
        .unwrap()
        .is_none());
    assert_eq!(redeem(3).await.0, Outcome::Lost);
}

/// Backchannel requests (OpenID CIBA): stored with their person's list in one write; the
/// list gives only the live, undecided requests that ask that person; a request that names
/// nobody is stored without a list; concurrent requests for one person both land (the loser
/// of the list's version retries).
pub async fn backchannel_requests_are_listed_for_their_person<B: Backend + 'static>(s: Arc<B>) {
    use crate::domain::ciba::Backchannel;
    use crate::store::backchannel::Backchannels;
    use crate::store::device_grants::DeviceGrants;
    use crate::store::flows::Outcome;

    let sub = id("sub");
    let request = |who: Option<&str>, ttl: i64| {
        let mut d = crate::domain::device_grant::DeviceAuthorization::new(
            ClientId::new("desk"),
            Scopes::from_stored(["openid"]),
            String::new(),
            ttl,
            T0,
        );
        d.backchannel = Some(Backchannel {
            sub: who.map(Subject::new),
            binding_message: Some("Till 4".into()),
            ping: None,
            delegation: false,
            resources: Vec::new(),
        });
        d
    };
    let (a, b, short, nobody) = (id("a"), id("b"), id("short"), id("nobody"));
    let d = request(Some(&sub), 600);
    assert_eq!(
        s.create_backchannel_request(&a, &d, T0).await.unwrap(),
        Outcome::Done
    );
    assert_eq!(
        s.create_backchannel_request(&a, &d, T0).await.unwrap(),
        Outcome::Lost,
        "the same key twice"
    );
    s.create_backchannel_request(&short, &request(Some(&sub), 10), T0)
        .await
        .unwrap();
    s.create_backchannel_request(&nobody, &request(None, 600), T0)
        .await
        .unwrap();
    assert!(s.device_authorization(&nobody, T0).await.unwrap().is_some());
    let listed = |at: Timestamp| {
        let s = s.clone();
        let sub = sub.clone();
        async move {
            s.pending_backchannel(&sub, at)
                .await
                .unwrap()
                .into_iter()
                .map(|f| f.hash)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(listed(T0).await, vec![a.clone(), short.clone()]);
    assert_eq!(listed(T0.plus_secs(10)).await, vec![a.clone()], "expired");
    assert!(s
        .backchannel_request("someone-else", &a, T0)
        .await
        .unwrap()
        .is_none());
    // Two at once: the list's version decides, the loser writes nothing and may retry.
    let (c, dc) = (id("c"), request(Some(&sub), 600));
    let (r1, r2) = tokio::join!(
        s.create_backchannel_request(&b, &dc, T0),
        s.create_backchannel_request(&c, &dc, T0),
    );
    let outcomes = [r1.unwrap(), r2.unwrap()];
    assert!(outcomes.contains(&Outcome::Done));
    if outcomes.contains(&Outcome::Lost) {
        assert_eq!(listed(T0).await.len(), 3);
    }
    // Decided: no longer listed.
    let old = s.device_authorization(&a, T0).await.unwrap().unwrap();
    let mut next = old.value.clone();
    next.settle(None, T0).unwrap();
    s.update_device_authorization(&old, &next, T0)
        .await
        .unwrap();
    assert!(!listed(T0).await.contains(&a));
}

/// Push subscriptions (Web Push to the app): kept per identity, one per endpoint (a second
/// registration of an endpoint replaces it), the oldest dropped past the cap; removed by
/// endpoint; two registrations at once both land.
pub async fn push_subscriptions_are_kept_per_identity<B: Backend + 'static>(s: Arc<B>) {
    use crate::store::push_subscriptions::{
        PushSubscription, PushSubscriptions, MAX_SUBSCRIPTIONS,
    };

    let (sub, other) = (id("push-sub"), id("push-other"));
    let subscription = |n: usize| PushSubscription {
        kind: "webpush".into(),
        endpoint: format!("https://push.example/{n}"),
        p256dh: "key".into(),
        auth: format!("auth{n}"),
        created_at: T0.secs(),
    };
    assert!(s.push_subscriptions(&sub, T0).await.unwrap().is_empty());
    s.add_push_subscription(&sub, &subscription(1), T0)
        .await
        .unwrap();
    let mut again = subscription(1);
    again.auth = "renewed".into();
    s.add_push_subscription(&sub, &again, T0).await.unwrap();
    let list = s.push_subscriptions(&sub, T0).await.unwrap();
    assert_eq!(list, vec![again]);
    assert!(s.push_subscriptions(&other, T0).await.unwrap().is_empty());

    let (a, b) = (s.clone(), s.clone());
    let (sa, sb) = (sub.clone(), sub.clone());
    let (ra, rb) = tokio::join!(
        async move { a.add_push_subscription(&sa, &subscription(2), T0).await },
        async move { b.add_push_subscription(&sb, &subscription(3), T0).await },
    );
    ra.unwrap();
    rb.unwrap();
    assert_eq!(s.push_subscriptions(&sub, T0).await.unwrap().len(), 3);

    assert!(s
        .remove_push_subscription(&sub, "https://push.example/2", T0)
        .await
        .unwrap());
    assert!(!s
        .remove_push_subscription(&sub, "https://push.example/2", T0)
        .await
        .unwrap());
    let endpoints: Vec<String> = s
        .push_subscriptions(&sub, T0)
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.endpoint)
        .collect();
    assert_eq!(
        endpoints,
        ["https://push.example/1", "https://push.example/3"]
    );

    for n in 10..10 + MAX_SUBSCRIPTIONS {
        s.add_push_subscription(&sub, &subscription(n), T0)
            .await
            .unwrap();
    }
    let list = s.push_subscriptions(&sub, T0).await.unwrap();
    assert_eq!(list.len(), MAX_SUBSCRIPTIONS);
    assert_eq!(
        list.first().map(|p| p.endpoint.as_str()),
        Some("https://push.example/10")
    );
}
