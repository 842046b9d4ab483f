//! Authorization codes and the grants they are redeemed as.

use super::*;

/// Redeeming spends a code and leaves, under its hash, the grant it became (so a replay can
/// revoke it); a second redemption loses. A marker of kind `code_used` (older releases wrote
/// one) is still read.
pub async fn a_redeemed_code_points_to_its_grant<B: Backend + 'static>(s: Arc<B>) {
    use crate::domain::grant::{Grant, GrantKind};
    use crate::domain::login::AuthCode;
    use crate::store::flows::{Codes, Outcome};

    let hash = crate::protocol::CodeHash::new(id("code"));
    let code = AuthCode {
        client_id: ClientId::new("shop"),
        redirect_uri: RedirectUri::new("https://shop.example/cb"),
        scopes: Scopes::from_stored(["openid"]),
        nonce: None,
        // What the `claims` parameter asked for travels with the code and the grant.
        claims: crate::domain::claims_request::parse(
            r#"{"userinfo":{"name":{"essential":true}},"id_token":{"address":null,"acr":{"essential":true,"values":["2"]}}}"#,
        )
        .unwrap(),
        code_challenge: None,
        dpop_jkt: None,
        // RFC 8707: the granted resources travel with the code and the grant.
        resources: vec!["https://api.example/".into(), "urn:example:mcp".into()],
        sub: Subject::new("sub-1"),
        sid: SessionId::new("sid-1"),
        auth_time: T0,
        issued_at: T0,
        method: crate::domain::authn::Method::PasskeySignIn,
    };
    let exp = T0.secs() + 60;
    let pending = store_pending_code(s.as_ref(), &hash, &code).await;
    assert_eq!(pending.code, code);
    assert_eq!(s.redeemed_as(&hash, T0).await.unwrap(), None);
    let grant = Grant {
        id: pending.grant_id(),
        kind: GrantKind::AuthorizationCode,
        client_id: ClientId::new("shop"),
        sub: Subject::new("sub-1"),
        sid: Some(SessionId::new("sid-1")),
        scopes: Scopes::from_stored(["openid"]),
        auth_time: T0,
        nonce: None,
        claims: code.claims.clone(),
        created_at: T0,
        offline: false,
        generation: 1,
        rotated_at: T0,
        revoked: false,
        alg: crate::keys::Alg::ES256,
        resources: code.resources.clone(),
        method: crate::domain::authn::Method::PasskeyUv,
    };
    let later = T0.secs() + 1800;
    // Two redemptions of the code, each with a refresh token and a nonce of its own: only the
    // code's version can make one of them lose, and the one that won is what was stored.
    let redeem = |rt: String, nonce: &str| {
        let (s, pending) = (s.clone(), pending.clone());
        let grant = Grant {
            nonce: Some(nonce.to_owned()),
            ..grant.clone()
        };
        async move {
            s.redeem_code(&pending, &grant, &rt, &id("family"), later, T0)
                .await
                .unwrap()
        }
    };
    let (rt_a, rt_b) = (id("rt-a"), id("rt-b"));
    let (first, second) = tokio::join!(redeem(rt_a.clone(), "a"), redeem(rt_b.clone(), "b"));
    let (won, lost) = one_wins((first, (rt_a, "a")), (second, (rt_b, "b")));
    let grant = Grant {
        nonce: Some(won.1.to_owned()),
        ..grant.clone()
    };
    assert_eq!(
        s.redeemed_as(&hash, T0).await.unwrap(),
        Some(grant.id.clone())
    );
    assert!(s.pending_code(&hash, T0).await.unwrap().is_none());
    {
        use crate::store::flows::Grants;
        let found = |rt: String| {
            let (s, gid) = (s.clone(), grant.id.clone());
            async move {
                s.find_refresh_token(&rt, Some(&gid), None, T0)
                    .await
                    .unwrap()
            }
        };
        assert_eq!(found(won.0).await.map(|r| r.generation), Some(1));
        assert_eq!(
            found(lost.0).await,
            None,
            "the loser's token was not stored"
        );
        let stored = s.grant(&grant.id, T0).await.unwrap().unwrap().value;
        assert_eq!(
            stored, grant,
            "the grant reads back whole, its claims request too"
        );
        assert_eq!(stored.claims.userinfo, vec!["name".to_owned()]);
        assert_eq!(stored.resources, code.resources);
    }
    // The marker outlives the code's own lifetime: it lives as long as the grant.
    let after_code = Timestamp::from_secs(exp + 10);
    assert_eq!(
        s.redeemed_as(&hash, after_code).await.unwrap(),
        Some(grant.id.clone())
    );
    assert_eq!(redeem(id("rt-c"), "c").await, Outcome::Lost);
    // A grant whose id is not the code's is refused, and spends nothing.
    let hash2 = crate::protocol::CodeHash::new(id("code-2"));
    let pending2 = store_pending_code(s.as_ref(), &hash2, &code).await;
    assert!(matches!(
        s.redeem_code(&pending2, &grant, &id("rt"), &id("family"), later, T0)
            .await,
        Err(StoreError::Corrupt(_))
    ));
    assert!(s.pending_code(&hash2, T0).await.unwrap().is_some());

    let legacy = crate::protocol::CodeHash::new(id("legacy"));
    s.put(
        Record::new(
            Key::new(Kind::CodeUsed, &legacy),
            &serde_json::json!({ "grant_id": "g-old" }),
            Some(later),
        )
        .unwrap(),
        Cond::Absent,
        T0,
    )
    .await
    .unwrap();
    assert_eq!(
        s.redeemed_as(&legacy, T0).await.unwrap(),
        Some(crate::protocol::GrantId::new("g-old"))
    );
}

/// A grant and first refresh token for the code `hash` (issue 27: kept in the code's record).
/// A code exchange's write that landed but whose answer was lost (DynamoDB's SDK then retries
/// it, and the retry fails its condition) is recognised as this exchange's own: the same
/// redemption again is `Done`, and the grant stays live with its first refresh token. Another
/// exchange of the same code (another refresh token) still loses, and the record is unchanged.
pub async fn a_code_exchange_whose_answer_was_lost_is_its_own_on_retry<B: Backend + 'static>(
    s: Arc<B>,
) {
    use crate::domain::grant::RefreshRecord;
    use crate::store::flows::{Codes, Grants, Outcome};

    let (hash, gid, grant, pending) = pending_code_fixture(s.as_ref()).await;
    let later = T0.secs() + 1800;
    let (rt, family) = (id("rt-ours"), id("family"));
    let redeem = |rt: String| {
        let (s, pending, grant, family) = (
            Arc::clone(&s),
            pending.clone(),
            grant.clone(),
            family.clone(),
        );
        async move {
            s.redeem_code(&pending, &grant, &rt, &family, later, T0)
                .await
                .unwrap()
        }
    };
    assert_eq!(redeem(rt.clone()).await, Outcome::Done);
    let key = Key::new(Kind::Code, &hash);
    let written = s.get(&key, T0).await.unwrap().unwrap();
    // The retry of the write that landed.
    assert_eq!(redeem(rt.clone()).await, Outcome::Done);
    // Someone else's exchange of the same code (a replay): lost.
    assert_eq!(redeem(id("rt-theirs")).await, Outcome::Lost);
    let stored = s.get(&key, T0).await.unwrap().unwrap();
    assert_eq!(
        (stored.version, &stored.body),
        (written.version, &written.body)
    );
    assert_eq!(s.redeemed_as(&hash, T0).await.unwrap(), Some(gid.clone()));
    assert_eq!(
        s.find_refresh_token(&rt, Some(&gid), None, T0)
            .await
            .unwrap(),
        Some(RefreshRecord {
            grant_id: gid.clone(),
            client_id: ClientId::new("shop"),
            generation: 1,
        })
    );
    assert!(!s.grant(&gid, T0).await.unwrap().unwrap().value.revoked);
    assert!(s
        .find_refresh_token(&id("rt-theirs"), Some(&gid), None, T0)
        .await
        .unwrap()
        .is_none());
    // Past the record's expiry nothing is found, and nothing is redeemed.
    let after = Timestamp::from_secs(later);
    assert!(s.redeemed_as(&hash, after).await.unwrap().is_none());
}

/// `code` stored for 60 s from `T0` under `hash`, as the authorization endpoint stores it, and
/// read back as the token endpoint finds it.
pub(super) async fn store_pending_code<B: Backend + ?Sized>(
    s: &B,
    hash: &crate::protocol::CodeHash,
    code: &crate::domain::login::AuthCode,
) -> crate::store::flows::PendingCode {
    use crate::store::flows::Codes;
    s.put(
        Record::new(Key::new(Kind::Code, hash), code, Some(T0.secs() + 60)).unwrap(),
        Cond::Absent,
        T0,
    )
    .await
    .unwrap();
    s.pending_code(hash, T0).await.unwrap().unwrap()
}

/// A code issued at `T0` for 60 s, as the authorization endpoint stores it, read back as the
/// token endpoint finds it: the code's hash, its grant's id, the grant its exchange would
/// create, the pending code.
pub(super) async fn pending_code_fixture<B: Backend>(
    s: &B,
) -> (
    crate::protocol::CodeHash,
    crate::protocol::GrantId,
    crate::domain::grant::Grant,
    crate::store::flows::PendingCode,
) {
    let hash = crate::protocol::CodeHash::new(id("code"));
    let gid = crate::store::flows::code_grant_id(&hash);
    let (grant, code) = code_grant_fixture(gid.clone());
    let pending = store_pending_code(s, &hash, &code).await;
    (hash, gid, grant, pending)
}

pub(super) fn code_grant_fixture(
    grant_id: crate::protocol::GrantId,
) -> (crate::domain::grant::Grant, crate::domain::login::AuthCode) {
    use crate::domain::grant::{Grant, GrantKind};
    let code = crate::domain::login::AuthCode {
        client_id: ClientId::new("shop"),
        redirect_uri: RedirectUri::new("https://shop.example/cb"),
        scopes: Scopes::from_stored(["openid", "offline_access"]),
        nonce: Some("n-1".into()),
        claims: Default::default(),
        code_challenge: None,
        dpop_jkt: None,
        resources: vec![],
        sub: Subject::new("sub-1"),
        sid: SessionId::new("sid-1"),
        auth_time: T0,
        issued_at: T0,
        method: crate::domain::authn::Method::PasskeySignIn,
    };
    let grant = Grant {
        id: grant_id,
        kind: GrantKind::AuthorizationCode,
        client_id: ClientId::new("shop"),
        sub: Subject::new("sub-1"),
        sid: Some(SessionId::new("sid-1")),
        scopes: code.scopes.clone(),
        auth_time: T0,
        nonce: code.nonce.clone(),
        claims: Default::default(),
        created_at: T0,
        offline: true,
        generation: 1,
        rotated_at: T0,
        revoked: false,
        alg: crate::keys::Alg::ES256,
        resources: vec![],
        method: crate::domain::authn::Method::PasskeySignIn,
    };
    (grant, code)
}

/// Issue 27's third cut: the code exchange's grant (its id names the code) and its first
/// refresh token became the code's record (no family key: records written before the fourth
/// cut, read as they were). The grant is read by its id, the first refresh token by its hash
/// with the grant it names (a wrong hash or a wrong grant finds nothing, nor does a family
/// key), both expire with the record; a rotation writes the grant back there and the new
/// token in a record of its own (the first token still reads, with its old generation, so its
/// reuse is seen) and a stale rotation loses; a revocation marks it; a replay finds it.
pub async fn a_code_is_redeemed_as_its_grant_and_first_refresh_token<B: Backend + 'static>(
    s: Arc<B>,
) {
    use crate::domain::grant::{RefreshCheck, RefreshRecord};
    use crate::store::flows::{Codes, Grants, Outcome};

    let (hash, gid, grant, pending) = pending_code_fixture(s.as_ref()).await;
    assert_eq!(pending.grant_id(), gid);
    let later = T0.secs() + 1800;
    let first = RefreshRecord {
        grant_id: gid.clone(),
        client_id: ClientId::new("shop"),
        generation: 1,
    };
    // Exactly what the third cut's code exchange wrote: the code's record at its next
    // version, holding the grant and its first refresh token's hash (no family).
    let (won, lost) = (id("rt-a"), id("rt-b"));
    let mut spent = Record::new(
        Key::new(Kind::Code, &hash),
        &serde_json::json!({ "grant": grant, "refresh": won, "refresh_generation": 1 }),
        Some(later),
    )
    .unwrap();
    spent.version = 2;
    s.put(spent, Cond::Version(1), T0).await.unwrap();
    assert!(s.pending_code(&hash, T0).await.unwrap().is_none());
    assert_eq!(s.redeemed_as(&hash, T0).await.unwrap(), Some(gid.clone()));
    assert_eq!(
        s.redeem_code(&pending, &grant, &id("rt-c"), &id("family"), later, T0)
            .await
            .unwrap(),
        Outcome::Lost
    );
    let stored = s.grant(&gid, T0).await.unwrap().unwrap();
    assert_eq!(stored.value, grant);
    assert_eq!(stored.record.expires_at, Some(later));
    assert_eq!(
        s.find_refresh_token(&won, Some(&gid), None, T0)
            .await
            .unwrap(),
        Some(first.clone())
    );
    assert_eq!(
        s.find_refresh_token(&lost, Some(&gid), None, T0)
            .await
            .unwrap(),
        None
    );
    let other = crate::store::flows::code_grant_id(&crate::protocol::CodeHash::new(id("other")));
    assert_eq!(
        s.find_refresh_token(&won, Some(&other), None, T0)
            .await
            .unwrap(),
        None
    );
    assert_eq!(s.refresh_token(&won, T0).await.unwrap(), None);
    assert_eq!(
        s.find_refresh_token(&lost, Some(&gid), Some(&id("family")), T0)
            .await
            .unwrap(),
        None,
        "a record without a family recognises no family key"
    );
    // Expiry on every read.
    let dead = Timestamp::from_secs(later);
    assert!(s.grant(&gid, dead).await.unwrap().is_none());
    assert_eq!(
        s.find_refresh_token(&won, Some(&gid), None, dead)
            .await
            .unwrap(),
        None
    );

    // A rotation writes the grant back into the code's record; a stale one loses.
    let at = Timestamp::from_secs(T0.secs() + 100);
    let mut next = grant.clone();
    next.generation = 2;
    next.rotated_at = at;
    let second = RefreshRecord {
        generation: 2,
        ..first.clone()
    };
    let renewed = later + 100;
    let rt2 = id("rt-2");
    assert_eq!(
        s.rotate_grant(&stored, &next, &rt2, &second, renewed, at)
            .await
            .unwrap(),
        Outcome::Done
    );
    assert_eq!(
        s.rotate_grant(&stored, &next, &id("rt-3"), &second, renewed, at)
            .await
            .unwrap(),
        Outcome::Lost
    );
    let rotated = s.grant(&gid, at).await.unwrap().unwrap();
    assert_eq!(rotated.value, next);
    assert_eq!(rotated.record.expires_at, Some(renewed));
    assert_eq!(s.refresh_token(&rt2, at).await.unwrap(), Some(second));
    let replayed = s
        .find_refresh_token(&won, Some(&gid), None, at)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(replayed.generation, 1);
    let long_after = Timestamp::from_secs(at.secs() + 60);
    assert_eq!(
        rotated.value.check(replayed.generation, long_after),
        RefreshCheck::Reused
    );
    // Revocation.
    s.revoke_grant(&gid, at).await.unwrap();
    assert!(s.grant(&gid, at).await.unwrap().unwrap().value.revoked);
    s.revoke_grant(&gid, at).await.unwrap();
    assert!(s
        .find_refresh_token(&won, Some(&gid), None, at)
        .await
        .unwrap()
        .is_some());
    assert_eq!(s.redeemed_as(&hash, at).await.unwrap(), Some(gid));
}
