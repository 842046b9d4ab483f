//! Grants: refresh token rotation, records of an earlier shape, and revocation by session.

use super::codes::{code_grant_fixture, pending_code_fixture, store_pending_code};
use super::*;

/// Issue 27's fourth cut: a grant from a code exchange keeps its refresh tokens in its record
/// with its family key's hash. A rotation is ONE conditional write (no record per token); of
/// two concurrent rotations one wins. The current token and the one before are found by their
/// hashes with their generations; any other token that carries the family key is an earlier
/// one (`EARLIER_GENERATION`, a reuse even within the grace period); a token with neither, or
/// naming another grant, finds nothing. Expiry on every read; a revocation keeps the hashes,
/// so a replay is still recognised.
pub async fn a_refresh_family_rotates_in_its_grants_record<B: Backend + 'static>(s: Arc<B>) {
    use crate::domain::grant::{RefreshCheck, RefreshRecord, EARLIER_GENERATION};
    use crate::store::flows::{Codes, Grants, Outcome};

    let (hash, gid, grant, pending) = pending_code_fixture(s.as_ref()).await;
    let later = T0.secs() + 1800;
    let (family, rt1) = (id("family"), id("rt-1"));
    assert_eq!(
        s.redeem_code(&pending, &grant, &rt1, &family, later, T0)
            .await
            .unwrap(),
        Outcome::Done
    );
    let rec = |generation| RefreshRecord {
        grant_id: gid.clone(),
        client_id: ClientId::new("shop"),
        generation,
    };
    let find = |rt: &str, fam: Option<&str>, at: Timestamp| {
        let (s, gid, rt, fam) = (
            s.clone(),
            gid.clone(),
            rt.to_owned(),
            fam.map(str::to_owned),
        );
        async move {
            s.find_refresh_token(&rt, Some(&gid), fam.as_deref(), at)
                .await
                .unwrap()
        }
    };
    assert_eq!(find(&rt1, Some(&family), T0).await, Some(rec(1)));
    assert_eq!(find(&rt1, None, T0).await, Some(rec(1)));
    assert_eq!(find(&id("rt"), None, T0).await, None);
    assert_eq!(find(&id("rt"), Some(&id("family")), T0).await, None);
    let other = crate::store::flows::code_grant_id(&crate::protocol::CodeHash::new(id("other")));
    assert_eq!(
        s.find_refresh_token(&rt1, Some(&other), Some(&family), T0)
            .await
            .unwrap(),
        None
    );

    // Two rotations of the version read: one wins; neither token gets a record of its own.
    let stored = s.grant(&gid, T0).await.unwrap().unwrap();
    let at = Timestamp::from_secs(T0.secs() + 100);
    let mut next = grant.clone();
    next.generation = 2;
    next.rotated_at = at;
    let renewed = later + 100;
    let rotate = |rt: String| {
        let (s, stored, next, r) = (s.clone(), stored.clone(), next.clone(), rec(2));
        async move {
            s.rotate_grant(&stored, &next, &rt, &r, renewed, at)
                .await
                .unwrap()
        }
    };
    let (rt2a, rt2b) = (id("rt-2a"), id("rt-2b"));
    let (a, b) = tokio::join!(rotate(rt2a.clone()), rotate(rt2b.clone()));
    let (rt2, lost) = one_wins((a, rt2a), (b, rt2b));
    assert_eq!(s.refresh_token(&rt2, at).await.unwrap(), None);
    assert_eq!(s.refresh_token(&lost, at).await.unwrap(), None);
    let rotated = s.grant(&gid, at).await.unwrap().unwrap();
    assert_eq!(rotated.value, next);
    assert_eq!(rotated.record.expires_at, Some(renewed));
    assert_eq!(rotated.record.version, stored.record.version + 1);
    assert_eq!(find(&rt2, Some(&family), at).await, Some(rec(2)));
    // Read with its grant, in one read of the same record.
    let (r, kept) = s
        .refresh_token_with_grant(&rt2, Some(&gid), Some(&family), at)
        .await
        .unwrap()
        .unwrap();
    let kept = kept.unwrap();
    assert_eq!(r, rec(2));
    assert_eq!(kept.value, rotated.value);
    assert_eq!(kept.record, rotated.record);
    assert_eq!(find(&rt1, None, at).await, Some(rec(1)), "the one before");
    assert_eq!(find(&lost, None, at).await, None);

    // A third generation: the first token is now an earlier one, known by its family key only.
    let at3 = Timestamp::from_secs(at.secs() + 1);
    let mut third = next.clone();
    third.generation = 3;
    third.rotated_at = at3;
    let rt3 = id("rt-3");
    let rotate3 = |rt: String| {
        let (s, rotated, third) = (s.clone(), rotated.clone(), third.clone());
        async move {
            s.rotate_grant(&rotated, &third, &rt, &rec(3), renewed + 1, at3)
                .await
                .unwrap()
        }
    };
    assert_eq!(rotate3(rt3.clone()).await, Outcome::Done);
    assert_eq!(rotate3(id("rt")).await, Outcome::Lost);
    let rotated = s.grant(&gid, at3).await.unwrap().unwrap();
    assert_eq!(find(&rt3, Some(&family), at3).await, Some(rec(3)));
    assert_eq!(find(&rt2, Some(&family), at3).await, Some(rec(2)));
    assert_eq!(rotated.value.check(2, at3), RefreshCheck::Grace);
    let earlier = find(&rt1, Some(&family), at3).await.unwrap();
    assert_eq!(earlier, rec(EARLIER_GENERATION));
    assert_eq!(
        rotated.value.check(earlier.generation, at3),
        RefreshCheck::Reused
    );
    assert_eq!(find(&rt1, None, at3).await, None);

    // Expiry on every read.
    let dead = Timestamp::from_secs(renewed + 1);
    assert!(s.grant(&gid, dead).await.unwrap().is_none());
    assert_eq!(find(&rt3, Some(&family), dead).await, None);
    assert_eq!(find(&rt1, Some(&family), dead).await, None);

    // A revocation marks the grant and keeps what recognises its tokens.
    s.revoke_grant(&gid, at3).await.unwrap();
    assert!(s.grant(&gid, at3).await.unwrap().unwrap().value.revoked);
    assert_eq!(find(&rt3, None, at3).await, Some(rec(3)));
    assert_eq!(
        find(&rt1, Some(&family), at3).await,
        Some(rec(EARLIER_GENERATION))
    );
    assert_eq!(s.redeemed_as(&hash, at3).await.unwrap(), Some(gid));
}

/// An upgrade: a grant, its refresh tokens and a redeemed code's record written in the shapes
/// of before issue 27's third cut (a grant record of its own under a random id, refresh
/// records of their own, the code's record holding only the grant's id) are read, rotated,
/// refused when reused and revoked as before; a code written then is redeemed the new way.
pub async fn grants_and_refresh_tokens_of_the_previous_shape_are_honoured<B: Backend + 'static>(
    s: Arc<B>,
) {
    use crate::domain::grant::{RefreshCheck, RefreshRecord};
    use crate::store::flows::{Codes, Grants, Outcome};

    let old_id = crate::protocol::GrantId::new(id("g-old"));
    let (grant, code) = code_grant_fixture(old_id.clone());
    let later = T0.secs() + 1800;
    let old_hash = crate::protocol::CodeHash::new(id("old-code"));
    let (rt1, rt2) = (id("old-rt-1"), id("old-rt-2"));
    let first = RefreshRecord {
        grant_id: old_id.clone(),
        client_id: ClientId::new("shop"),
        generation: 1,
    };
    // Exactly what the code exchange wrote before.
    for (key, body) in [
        (
            Key::new(Kind::Grant, &old_id),
            serde_json::to_value(&grant).unwrap(),
        ),
        (
            Key::new(Kind::Refresh, &rt1),
            serde_json::to_value(&first).unwrap(),
        ),
        (
            Key::new(Kind::Code, &old_hash),
            serde_json::json!({ "grant_id": old_id.as_str() }),
        ),
    ] {
        s.put(
            Record::new(key, &body, Some(later)).unwrap(),
            Cond::Absent,
            T0,
        )
        .await
        .unwrap();
    }
    assert_eq!(
        s.redeemed_as(&old_hash, T0).await.unwrap(),
        Some(old_id.clone())
    );
    assert!(s.pending_code(&old_hash, T0).await.unwrap().is_none());
    let stored = s.grant(&old_id, T0).await.unwrap().unwrap();
    assert_eq!(stored.value, grant);
    // A token of the previous shape names no grant: found by its hash alone.
    assert_eq!(
        s.find_refresh_token(&rt1, None, None, T0).await.unwrap(),
        Some(first.clone())
    );
    let at = Timestamp::from_secs(T0.secs() + 100);
    let mut next = grant.clone();
    next.generation = 2;
    next.rotated_at = at;
    let second = RefreshRecord {
        generation: 2,
        ..first.clone()
    };
    assert_eq!(
        s.rotate_grant(&stored, &next, &rt2, &second, later + 100, at)
            .await
            .unwrap(),
        Outcome::Done
    );
    let rotated = s.grant(&old_id, at).await.unwrap().unwrap();
    assert_eq!(rotated.value, next);
    assert_eq!(
        s.get(&Key::new(Kind::Grant, &old_id), at)
            .await
            .unwrap()
            .unwrap()
            .value::<crate::domain::grant::Grant>()
            .unwrap(),
        next,
        "the grant stays in its own record"
    );
    assert_eq!(
        s.refresh_token(&rt2, at).await.unwrap(),
        Some(second.clone())
    );
    // A token of a record of its own comes without its grant (read by its id).
    assert_eq!(
        s.refresh_token_with_grant(&rt2, None, None, at)
            .await
            .unwrap()
            .map(|(r, g)| (r, g.is_none())),
        Some((second, true))
    );
    let reused = s.refresh_token(&rt1, at).await.unwrap().unwrap();
    assert_eq!(
        rotated
            .value
            .check(reused.generation, Timestamp::from_secs(at.secs() + 60)),
        RefreshCheck::Reused
    );
    s.revoke_grant(&old_id, at).await.unwrap();
    assert!(s.grant(&old_id, at).await.unwrap().unwrap().value.revoked);

    // A code written before the change is redeemed the new way.
    let hash = crate::protocol::CodeHash::new(id("code-then"));
    let pending = store_pending_code(s.as_ref(), &hash, &code).await;
    let new_grant = crate::domain::grant::Grant {
        id: pending.grant_id(),
        ..grant.clone()
    };
    let rt = id("new-rt");
    let refresh = RefreshRecord {
        grant_id: new_grant.id.clone(),
        ..first.clone()
    };
    assert_eq!(
        s.redeem_code(&pending, &new_grant, &rt, &id("family"), later, T0)
            .await
            .unwrap(),
        Outcome::Done
    );
    assert_eq!(
        s.find_refresh_token(&rt, Some(&new_grant.id), None, T0)
            .await
            .unwrap(),
        Some(refresh)
    );
}

/// A session's grants revoked (offline ones included) by one marker, which expires.
pub async fn a_session_s_grants_are_revoked_until_the_marker_expires<B: Backend>(s: Arc<B>) {
    use crate::store::Grants;
    let (sid, other) = (id("sid"), id("sid"));
    assert!(!s.session_grants_revoked(&sid, T0).await.unwrap());
    s.revoke_session_grants(&sid, T0.secs() + 100, T0)
        .await
        .unwrap();
    // Idempotent.
    s.revoke_session_grants(&sid, T0.secs() + 100, T0)
        .await
        .unwrap();
    assert!(s.session_grants_revoked(&sid, T0).await.unwrap());
    assert!(!s.session_grants_revoked(&other, T0).await.unwrap());
    assert!(!s
        .session_grants_revoked(&sid, T0.plus_secs(100))
        .await
        .unwrap());
}
