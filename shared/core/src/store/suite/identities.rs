//! Identities: uniqueness of names and service ids, deletion, quarantine and login activity.

use super::*;

pub async fn identity_uniqueness_is_enforced<B: Backend>(s: Arc<B>) {
    use crate::store::{IdentityStore, NewIdentityError};
    let (name, sid) = (short("n"), short("s"));
    let a = identity(&name, &sid);
    s.create_identity(&a, None, T0).await.unwrap();
    let (got, _) = s.identity(&a.sub, T0).await.unwrap().unwrap();
    assert_eq!(got, a);
    assert_eq!(
        s.identity_by_service_id(&sid, T0)
            .await
            .unwrap()
            .unwrap()
            .sub,
        a.sub
    );
    assert_eq!(
        s.identity_by_name(&name, T0).await.unwrap().unwrap().sub,
        a.sub
    );
    let same_name = identity(&name, &short("s"));
    assert!(matches!(
        s.create_identity(&same_name, None, T0).await,
        Err(NewIdentityError::NameTaken)
    ));
    let same_sid = identity(&short("n"), &sid);
    assert!(matches!(
        s.create_identity(&same_sid, None, T0).await,
        Err(NewIdentityError::ServiceIdTaken)
    ));
    // A jti is accepted once.
    let jti = (format!("reg:{}", short("j")), T0.secs() + 300);
    let b = identity(&short("n"), &short("s"));
    s.create_identity(&b, Some(jti.clone()), T0).await.unwrap();
    let c = identity(&short("n"), &short("s"));
    assert!(matches!(
        s.create_identity(&c, Some(jti), T0).await,
        Err(NewIdentityError::Replay)
    ));
    assert!(
        s.identity(&c.sub, T0).await.unwrap().is_none(),
        "nothing half-written"
    );
    assert!(s.identity(&same_name.sub, T0).await.unwrap().is_none());
}

pub async fn concurrent_signups_claiming_one_service_id_have_one_winner<B: Backend + 'static>(
    s: Arc<B>,
) {
    use crate::store::{IdentityStore, NewIdentityError};
    let sid = short("race");
    let mut tasks = Vec::new();
    for _ in 0..10 {
        let s = s.clone();
        let ident = identity(&short("n"), &sid);
        tasks.push(tokio::spawn(async move {
            s.create_identity(&ident, None, T0).await
        }));
    }
    let mut winners = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(()) => winners += 1,
            Err(NewIdentityError::ServiceIdTaken) => {}
            Err(e) => panic!("unexpected {e:?}"),
        }
    }
    assert_eq!(winners, 1);
}

pub async fn identity_deletion_frees_the_name_and_keeps_the_service_id<B: Backend>(s: Arc<B>) {
    use crate::domain::identity::LoginActivity;
    use crate::domain::login::Consent;
    use crate::store::{IdentityStore, NewIdentityError, SsoSessions, Typed};
    let (name, sid) = (short("n"), short("s"));
    let a = identity(&name, &sid);
    s.create_identity(&a, None, T0).await.unwrap();
    // A consent for a registered client, and recent logins (newest first, bounded).
    let client = Client {
        client_id: ClientId::new(id("client")),
        name: "Suite".into(),
        client_type: ClientType::Public,
        secret_hash: None,
        redirect_uris: vec![RedirectUri::new("https://rp.example/cb")],
        post_logout_redirect_uris: vec![],
        grant_types: vec![GrantType::AuthorizationCode],
        created_at: T0,
        token_alg: None,
        resource_server: false,
        web_origins: vec![],
        backchannel_logout_uri: None,
        ciba_notification_endpoint: None,
        registration: None,
        refuse_on: vec![],
        require_acr: None,
        require_pkce: false,
        disabled: false,
        admin_roles: vec![],
        jwks: None,
        secret_jwt: None,
        require_par: false,
        require_signed_request_object: false,
        profile: None,
        refresh_rotation: Default::default(),
        dpop_bound_access_tokens: false,
    };
    s.create_client(&client, T0).await.unwrap();
    let consent = Consent {
        scopes: Scopes::from_stored(["openid"]),
        granted_at: T0,
        claims: vec!["name".into()],
        resources: Vec::new(),
        // A delegation (the client is an agent) reads back as one.
        delegation: true,
    };
    let key = Consent::key(&a.sub, &client.client_id);
    s.create(Kind::Consent, &key, &consent, None, T0)
        .await
        .unwrap();
    assert_eq!(
        s.consent(&a.sub, &client.client_id, T0).await.unwrap(),
        Some(consent.clone()),
        "a consent reads back with the claims granted by name"
    );
    // Withdrawn (a delegation, in the app), it is gone; given again, it is back.
    s.forget_consent(&a.sub, &client.client_id, T0)
        .await
        .unwrap();
    assert_eq!(
        s.consent(&a.sub, &client.client_id, T0).await.unwrap(),
        None
    );
    s.forget_consent(&a.sub, &client.client_id, T0)
        .await
        .unwrap();
    s.create(Kind::Consent, &key, &consent, None, T0)
        .await
        .unwrap();
    let login = |n: usize| LoginActivity {
        client_id: client.client_id.to_string(),
        client_name: format!("login {n}"),
        ..approved_login(n)
    };
    assert!(s.recent_logins(&a.sub, T0).await.unwrap().is_empty());
    for n in 0..25 {
        s.record_login(&a.sub, login(n), None, T0).await.unwrap();
    }
    let recent = s.recent_logins(&a.sub, T0).await.unwrap();
    assert_eq!(recent.len(), crate::domain::identity::RECENT_LOGINS);
    assert_eq!(recent[0], login(24), "newest first");
    // A jti is spent once.
    let jti = [(short("j"), T0.secs() + 300)];
    s.spend_jtis(&a.sub, &jti, T0).await.unwrap();
    assert!(matches!(
        s.spend_jtis(&a.sub, &jti, T0).await,
        Err(StoreError::ConditionFailed)
    ));

    let (_, version) = s.identity(&a.sub, T0).await.unwrap().unwrap();
    // A stale version, or a used jti, deletes nothing.
    assert!(matches!(
        s.delete_identity(&a, version + 1, &[], None, T0).await,
        Err(StoreError::ConditionFailed)
    ));
    assert!(matches!(
        s.delete_identity(&a, version, &jti, None, T0).await,
        Err(StoreError::ConditionFailed)
    ));
    assert!(s.identity(&a.sub, T0).await.unwrap().is_some());
    let del_jti = [(short("j"), T0.secs() + 300)];
    // A push subscription goes with the identity.
    {
        use crate::store::push_subscriptions::{PushSubscription, PushSubscriptions};
        let p = PushSubscription {
            kind: "webpush".into(),
            endpoint: "https://push.example/deleted".into(),
            p256dh: String::new(),
            auth: String::new(),
            created_at: T0.secs(),
        };
        s.add_push_subscription(a.sub.as_str(), &p, T0)
            .await
            .unwrap();
    }
    s.forget_consents(&a.sub, T0).await.unwrap();
    s.delete_identity(&a, version, &del_jti, None, T0)
        .await
        .unwrap();
    assert!(s.identity(&a.sub, T0).await.unwrap().is_none());
    assert!(s.identity_by_name(&name, T0).await.unwrap().is_none());
    assert!(
        crate::store::PushSubscriptions::push_subscriptions(s.as_ref(), a.sub.as_str(), T0)
            .await
            .unwrap()
            .is_empty(),
        "the identity's push subscriptions are deleted with it"
    );
    assert!(s.identity_by_service_id(&sid, T0).await.unwrap().is_none());
    assert!(s.recent_logins(&a.sub, T0).await.unwrap().is_empty());
    assert!(s
        .consent(&a.sub, &client.client_id, T0)
        .await
        .unwrap()
        .is_none());
    // The name is free again; the service_id is not.
    let again = identity(&name, &short("s"));
    s.create_identity(&again, None, T0).await.unwrap();
    assert!(matches!(
        s.create_identity(&identity(&short("n"), &sid), None, T0)
            .await,
        Err(NewIdentityError::ServiceIdTaken)
    ));
    s.delete_client(&client.client_id, T0).await.unwrap();
}

/// A deleted identity's name is held (taken, naming nobody) until the time given, then free:
/// the hold expires by itself (checked on every read; DynamoDB's TTL may lag).
/// The places an identity approved logins from are kept with its recent logins (bounded,
/// most recent first, only approvals), with the location, network and flags of each login;
/// a record written before the places were kept (a list of logins) still reads.
/// An approved QR login at `T0 + n` s, to client `suite`, entry id `id{n}`.
fn approved_login(n: usize) -> crate::domain::identity::LoginActivity {
    crate::domain::identity::LoginActivity {
        at: T0.plus_secs(i64::try_from(n).unwrap()),
        client_id: "suite".into(),
        client_name: "Suite".into(),
        outcome: "approved".into(),
        browser_ip: "192.0.2.1".into(),
        user_agent: "suite".into(),
        location: None,
        network: None,
        place: None,
        flags: Vec::new(),
        id: format!("id{n}"),
        method: "qr".into(),
        login_id: None,
        sid: None,
        reported_at: None,
    }
}

/// `sub`'s login history as read, every entry parsed.
async fn whole_history<B: Backend>(s: &B, sub: &str) -> crate::domain::identity::Activity {
    use crate::store::IdentityStore;
    let read = s.login_history(sub, T0).await.unwrap();
    read.history.activity().unwrap()
}

pub async fn an_identity_keeps_the_places_it_approved_logins_from<B: Backend>(s: Arc<B>) {
    use crate::domain::identity::{LoginActivity, APPROVED_PLACES, RECENT_LOGINS_TTL_SECS};
    use crate::domain::risk::Flag;
    use crate::geoip::{Location, Network};
    use crate::store::{IdentityStore, Typed};
    let sub = id("sub");
    let login = |n: usize, outcome: &str, place: &str| LoginActivity {
        at: T0.plus_secs(n as i64),
        client_id: "suite".into(),
        client_name: "Suite".into(),
        outcome: outcome.into(),
        browser_ip: "198.51.100.7".into(),
        user_agent: "suite".into(),
        location: Some(Location {
            city: Some("Stockholm".into()),
            country: Some("Sweden".into()),
            country_code: Some("SE".into()),
        }),
        network: Some(Network {
            asn: 64500,
            org: Some("Example Nordic Telecom".into()),
        }),
        place: Some(place.into()),
        flags: vec![Flag::FirstFromHere],
        id: format!("id{n}"),
        method: "qr".into(),
        login_id: None,
        sid: None,
        reported_at: None,
    };
    assert_eq!(
        s.login_history(&sub, T0)
            .await
            .unwrap()
            .history
            .places
            .len(),
        0
    );
    s.record_login(&sub, login(0, "approved", "SE/AS64500"), None, T0)
        .await
        .unwrap();
    s.record_login(&sub, login(1, "refused", "NG/AS64501"), None, T0)
        .await
        .unwrap();
    s.record_login(&sub, login(2, "denied", "NG/AS64502"), None, T0)
        .await
        .unwrap();
    s.record_login(&sub, login(3, "approved", "DE/AS64503"), None, T0)
        .await
        .unwrap();
    s.record_login(&sub, login(4, "approved", "SE/AS64500"), None, T0)
        .await
        .unwrap();
    let h = whole_history(s.as_ref(), &sub).await;
    assert_eq!(
        h.places,
        vec!["SE/AS64500", "DE/AS64503"],
        "approvals only, no repeats"
    );
    assert_eq!(h.logins.len(), 5);
    assert_eq!(
        h.logins[3],
        login(1, "refused", "NG/AS64501"),
        "read back whole"
    );
    assert_eq!(s.recent_logins(&sub, T0).await.unwrap(), h.logins);
    for n in 0..APPROVED_PLACES + 4 {
        s.record_login(
            &sub,
            login(10 + n, "approved", &format!("{n}.0.0.0/24")),
            None,
            T0,
        )
        .await
        .unwrap();
    }
    let h = whole_history(s.as_ref(), &sub).await;
    assert_eq!(h.places.len(), APPROVED_PLACES, "bounded");
    assert_eq!(h.places[0], format!("{}.0.0.0/24", APPROVED_PLACES + 3));
    assert!(
        !h.places.contains(&"SE/AS64500".to_owned()),
        "the oldest go"
    );
    // A login added on the history as read: one conditional write; on a history that
    // changed meanwhile it is added all the same, nothing lost.
    let read = s.login_history(&sub, T0).await.unwrap();
    s.record_login_after(&sub, login(40, "approved", "FI/AS1"), None, &read, T0)
        .await
        .unwrap();
    s.record_login_after(&sub, login(41, "denied", "FI/AS1"), None, &read, T0)
        .await
        .unwrap();
    let h = whole_history(s.as_ref(), &sub).await;
    assert_eq!(h.logins[0], login(41, "denied", "FI/AS1"));
    assert_eq!(h.logins[1], login(40, "approved", "FI/AS1"));
    assert_eq!(h.places[0], "FI/AS1");
    let fresh = id("sub");
    let none = s.login_history(&fresh, T0).await.unwrap();
    s.record_login_after(&fresh, login(1, "approved", "SE/AS64500"), None, &none, T0)
        .await
        .unwrap();
    s.record_login_after(&fresh, login(2, "approved", "NO/AS2"), None, &none, T0)
        .await
        .unwrap();
    let h = whole_history(s.as_ref(), &fresh).await;
    assert_eq!(h.places, vec!["NO/AS2", "SE/AS64500"]);
    // Expiry is checked on read: the whole history goes with its record.
    let later = T0.plus_secs(RECENT_LOGINS_TTL_SECS + 1);
    assert_eq!(
        s.login_history(&sub, later)
            .await
            .unwrap()
            .history
            .places
            .len(),
        0
    );

    // A record as written before the places were kept: a list of logins.
    let before = id("sub");
    let legacy = serde_json::json!([{
        "at": T0, "client_id": "suite", "client_name": "Suite", "outcome": "approved",
        "browser_ip": "192.0.2.1", "user_agent": "suite",
    }]);
    s.create(
        Kind::IdentityActivity,
        &before,
        &legacy,
        Some(T0.secs() + 60),
        T0,
    )
    .await
    .unwrap();
    let h = whole_history(s.as_ref(), &before).await;
    assert_eq!((h.logins.len(), h.places.len()), (1, 0));
    s.record_login(&before, login(5, "approved", "SE/AS64500"), None, T0)
        .await
        .unwrap();
    let h = whole_history(s.as_ref(), &before).await;
    assert_eq!(
        (h.logins.len(), h.places.as_slice()),
        (2, &["SE/AS64500".to_owned()][..])
    );
}

/// A decision reads the recent logins as far as each one's time (`domain::history`): an entry
/// that reads no further (here a client id of another type) still takes a new login in front
/// of it, and the session that login lists is found when every session of the identity ends.
pub async fn a_history_entry_read_to_its_time_hides_no_session<B: Backend>(s: Arc<B>) {
    use crate::domain::identity::{ListedSession, LoginActivity};
    use crate::store::{IdentityStore, SsoSessions, Typed};
    let sub = id("sub");
    let odd = serde_json::json!({ "logins": [{ "at": T0, "client_id": 7 }], "places": [] });
    s.create(Kind::IdentityActivity, &sub, &odd, Some(T0.secs() + 60), T0)
        .await
        .unwrap();
    let entry = LoginActivity {
        id: "e1".into(),
        ..approved_login(1)
    };
    let session = ListedSession {
        sid: "sid-1".into(),
        until: T0.secs() + 600,
    };
    let read = s.login_history(&sub, T0).await.unwrap();
    assert_eq!(read.history.logins.len(), 1);
    s.record_login_after(&sub, entry, Some(&session), &read, T0)
        .await
        .unwrap();
    let h = s.login_history(&sub, T0).await.unwrap().history;
    assert_eq!((h.logins.len(), h.logins[0].at), (2, T0.plus_secs(1)));
    assert_eq!(s.identity_sessions(&sub, T0).await.unwrap(), ["sid-1"]);
    // Past the session's end it is no longer listed.
    let later = T0.plus_secs(601);
    assert!(s.identity_sessions(&sub, later).await.unwrap().is_empty());
}

pub async fn a_deleted_identity_name_is_held_until_its_quarantine_ends<B: Backend>(s: Arc<B>) {
    use crate::store::{IdentityStore, NewIdentityError};
    let (name, sid) = (short("n"), short("s"));
    let a = identity(&name, &sid);
    s.create_identity(&a, None, T0).await.unwrap();
    let (_, version) = s.identity(&a.sub, T0).await.unwrap().unwrap();
    let until = T0.secs() + 100;
    s.delete_identity(&a, version, &[], Some(until), T0)
        .await
        .unwrap();
    assert!(s.identity_by_name(&name, T0).await.unwrap().is_none());
    assert!(s.name_taken(&name, T0).await.unwrap(), "held");
    let again = identity(&name, &short("s"));
    assert!(matches!(
        s.create_identity(&again, None, T0).await,
        Err(NewIdentityError::NameTaken)
    ));
    let later = Timestamp::from_secs(until - 1);
    assert!(s.name_taken(&name, later).await.unwrap(), "still held");
    let free = Timestamp::from_secs(until);
    assert!(!s.name_taken(&name, free).await.unwrap(), "free at the end");
    s.create_identity(&again, None, free).await.unwrap();
    assert_eq!(
        s.identity_by_name(&name, free).await.unwrap().unwrap().sub,
        again.sub
    );
}

/// "This wasn't me" (issue 24): the entry is marked and the request's jti spent in one
/// write; an unknown entry writes nothing; a second report keeps the first time.
pub async fn a_reported_login_is_marked_with_its_jti_spent<B: Backend>(s: Arc<B>) {
    use crate::domain::identity::LoginActivity;
    use crate::store::IdentityStore;
    let a = identity(&short("n"), &short("s"));
    s.create_identity(&a, None, T0).await.unwrap();
    let login = |n: usize| LoginActivity {
        at: T0.plus_secs(n as i64),
        client_id: "shop".into(),
        client_name: "Shop".into(),
        outcome: "approved".into(),
        browser_ip: "192.0.2.1".into(),
        user_agent: "suite".into(),
        id: format!("entry{n}"),
        location: None,
        network: None,
        place: None,
        flags: vec![],
        method: if n == 0 { "sso".into() } else { "qr".into() },
        login_id: Some(format!("login{n}")),
        sid: None,
        reported_at: None,
    };
    let jti = |j: &str| [(format!("{j}{}", short("j")), T0.secs() + 300)];
    // No list yet, then an unknown id: nothing, and the jti stays unspent.
    let unspent = jti("a");
    assert_eq!(
        s.report_login(&a.sub, "entry0", &unspent, T0)
            .await
            .unwrap(),
        None
    );
    s.record_login(&a.sub, login(0), None, T0).await.unwrap();
    s.record_login(&a.sub, login(1), None, T0).await.unwrap();
    assert_eq!(
        s.report_login(&a.sub, "nope", &unspent, T0).await.unwrap(),
        None
    );
    assert_eq!(
        s.report_login(&a.sub, "", &unspent, T0).await.unwrap(),
        None
    );
    s.spend_jtis(&a.sub, &unspent, T0).await.unwrap();

    let first = jti("b");
    let t1 = T0.plus_secs(5);
    let e = s
        .report_login(&a.sub, "entry0", &first, t1)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(e.reported_at, Some(t1));
    assert_eq!((e.id.as_str(), e.method.as_str()), ("entry0", "sso"));
    // The same jti again: refused, nothing written.
    assert!(matches!(
        s.report_login(&a.sub, "entry1", &first, t1).await,
        Err(StoreError::ConditionFailed)
    ));
    let list = s.recent_logins(&a.sub, t1).await.unwrap();
    assert_eq!(
        list[0].reported_at, None,
        "entry1 (newest) was not reported"
    );
    assert_eq!(list[1].reported_at, Some(t1));
    // Reported again later: the first time stays.
    let again = s
        .report_login(&a.sub, "entry0", &jti("c"), T0.plus_secs(9))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again.reported_at, Some(t1));
    // Another identity's entry is not found.
    let b = identity(&short("n"), &short("s"));
    s.create_identity(&b, None, T0).await.unwrap();
    assert_eq!(
        s.report_login(&b.sub, "entry0", &jti("d"), t1)
            .await
            .unwrap(),
        None
    );

    // The identity's tokens_not_before survives a write.
    let (mut i, v) = s.identity(&a.sub, T0).await.unwrap().unwrap();
    i.tokens_not_before = Some(t1);
    s.update_identity(&i, v, t1).await.unwrap();
    let (read, _) = s.identity(&a.sub, t1).await.unwrap().unwrap();
    assert_eq!(read.tokens_not_before, Some(t1));
}
