//! Passkeys and WebAuthn challenges.

use super::*;

fn passkey_of(sub: &str, credential_id: &str) -> crate::domain::passkey::Passkey {
    crate::domain::passkey::Passkey {
        credential_id: credential_id.to_owned(),
        sub: sub.to_owned(),
        public_key: "cose".into(),
        alg: -7,
        sign_count: 0,
        transports: vec!["internal".into()],
        name: "phone".into(),
        created_at: T0,
        last_used_at: None,
        last_used_from: None,
        enrolled_by_device_key: false,
    }
}

pub async fn webauthn_challenges_are_spent_once_and_expire<B: Backend + 'static>(s: Arc<B>) {
    use crate::store::{Outcome, Passkeys};
    let c = id("wc");
    let exp = T0.secs() + 300;
    assert_eq!(
        s.issue_webauthn_challenge(&c, exp, T0).await.unwrap(),
        Outcome::Done
    );
    assert_eq!(
        s.issue_webauthn_challenge(&c, exp, T0).await.unwrap(),
        Outcome::Lost
    );
    let mut tasks = Vec::new();
    for _ in 0..10 {
        let (s, c) = (s.clone(), c.clone());
        tasks.push(tokio::spawn(async move {
            s.take_webauthn_challenge(&c, T0).await
        }));
    }
    let mut winners = 0;
    for t in tasks {
        if t.await.unwrap().unwrap() {
            winners += 1;
        }
    }
    assert_eq!(winners, 1, "a challenge is spent once");
    assert!(!s.take_webauthn_challenge(&id("unknown"), T0).await.unwrap());
    assert!(!s.take_webauthn_challenge("", T0).await.unwrap());
    let late = id("wc-late");
    s.issue_webauthn_challenge(&late, exp, T0).await.unwrap();
    assert!(
        !s.take_webauthn_challenge(&late, Timestamp::from_secs(exp))
            .await
            .unwrap(),
        "an expired challenge is refused"
    );
}

pub async fn passkeys_are_found_by_credential_and_by_identity<B: Backend>(s: Arc<B>) {
    use crate::store::{IdentityStore, NewIdentityError, NewPasskey, Passkeys};
    let mut ident = identity(&short("pk"), &short("s"));
    ident.device_key_retired = true;
    let first = passkey_of(&ident.sub, &id("cred-a"));
    s.create_identity_with_passkey(&ident, &first, Some((id("reg:pk"), T0.secs() + 60)), T0)
        .await
        .unwrap();
    // The same credential for another identity: nothing is written.
    let other = identity(&short("pk2"), &short("s"));
    let taken = passkey_of(&other.sub, &first.credential_id);
    assert!(matches!(
        s.create_identity_with_passkey(&other, &taken, None, T0)
            .await,
        Err(NewIdentityError::Replay)
    ));
    assert!(s.identity(&other.sub, T0).await.unwrap().is_none());
    let got = s.passkey(&first.credential_id, T0).await.unwrap().unwrap();
    assert_eq!(got.value, first);
    assert!(s.passkey(&id("nobody"), T0).await.unwrap().is_none());
    assert!(s.passkey("", T0).await.unwrap().is_none());
    let (read, v) = s.identity(&ident.sub, T0).await.unwrap().unwrap();
    let second = passkey_of(&ident.sub, &id("cred-b"));
    let jti = (id("add"), T0.secs() + 60);
    assert_eq!(
        s.add_passkey(&second, (&read, v), std::slice::from_ref(&jti), T0)
            .await
            .unwrap(),
        NewPasskey::Added
    );
    assert_eq!(
        s.passkeys_of(&ident.sub, T0).await.unwrap(),
        vec![first.clone(), second.clone()]
    );
    // Adding on the identity as read before (it changed: version + 1) writes nothing.
    let third = passkey_of(&ident.sub, &id("cred-c"));
    assert_eq!(
        s.add_passkey(&third, (&read, v), &[], T0).await.unwrap(),
        NewPasskey::Conflict
    );
    let (read, v) = s.identity(&ident.sub, T0).await.unwrap().unwrap();
    assert_eq!(
        s.add_passkey(&second, (&read, v), &[], T0).await.unwrap(),
        NewPasskey::Taken
    );
    // A spent jti writes nothing.
    assert_eq!(
        s.add_passkey(&third, (&read, v), std::slice::from_ref(&jti), T0)
            .await
            .unwrap(),
        NewPasskey::Conflict
    );
    assert!(s.passkey(&third.credential_id, T0).await.unwrap().is_none());
    assert_eq!(s.passkeys_of(&id("none"), T0).await.unwrap(), vec![]);
    s.forget_passkeys(&ident.sub, T0).await.unwrap();
    assert!(s.passkeys_of(&ident.sub, T0).await.unwrap().is_empty());
    assert!(s.passkey(&first.credential_id, T0).await.unwrap().is_none());
}

pub async fn a_passkey_use_is_one_conditional_write<B: Backend>(s: Arc<B>) {
    use crate::store::{IdentityStore, Outcome, Passkeys};
    let ident = identity(&short("pu"), &short("s"));
    let pk = passkey_of(&ident.sub, &id("cred-u"));
    s.create_identity_with_passkey(&ident, &pk, None, T0)
        .await
        .unwrap();
    let read = s.passkey(&pk.credential_id, T0).await.unwrap().unwrap();
    let later = T0.plus_secs(5);
    assert_eq!(
        s.passkey_used(&read, 3, Some("Stockholm, SE".into()), later)
            .await
            .unwrap(),
        Outcome::Done
    );
    // A second use on the same read loses: the counter never moves twice from one read.
    assert_eq!(
        s.passkey_used(&read, 4, None, later).await.unwrap(),
        Outcome::Lost
    );
    let now = s
        .passkey(&pk.credential_id, T0)
        .await
        .unwrap()
        .unwrap()
        .value;
    assert_eq!(now.sign_count, 3);
    assert_eq!(now.last_used_at, Some(later));
    assert_eq!(now.last_used_from.as_deref(), Some("Stockholm, SE"));
    assert!(s.identity(&ident.sub, T0).await.unwrap().is_some());
}

pub async fn the_last_key_is_never_removed<B: Backend>(s: Arc<B>) {
    use crate::store::{IdentityStore, Passkeys, Removal};
    let ident = identity(&short("rm"), &short("s"));
    let a = passkey_of(&ident.sub, &id("cred-ra"));
    s.create_identity_with_passkey(&ident, &a, None, T0)
        .await
        .unwrap();
    let (read, v) = s.identity(&ident.sub, T0).await.unwrap().unwrap();
    let b = passkey_of(&ident.sub, &id("cred-rb"));
    s.add_passkey(&b, (&read, v), &[], T0).await.unwrap();
    let (read, v) = s.identity(&ident.sub, T0).await.unwrap().unwrap();
    // Retire the device key: allowed while a passkey is left.
    let retired = crate::domain::identity::Identity {
        device_key_retired: true,
        ..read.clone()
    };
    assert!(s
        .update_identity_keeping_passkeys(&retired, v, &[], T0)
        .await
        .unwrap());
    let (read, v) = s.identity(&ident.sub, T0).await.unwrap().unwrap();
    assert!(read.device_key_retired);
    assert_eq!(
        s.remove_passkey((&read, v), &id("nope"), &[], T0)
            .await
            .unwrap(),
        Removal::NotFound
    );
    assert_eq!(
        s.remove_passkey((&read, v - 1), &a.credential_id, &[], T0)
            .await
            .unwrap(),
        Removal::Conflict,
        "an identity changed meanwhile"
    );
    assert_eq!(
        s.remove_passkey(
            (&read, v),
            &a.credential_id,
            &[(id("rm"), T0.secs() + 60)],
            T0
        )
        .await
        .unwrap(),
        Removal::Removed
    );
    assert!(s.passkey(&a.credential_id, T0).await.unwrap().is_none());
    assert_eq!(
        s.remove_passkey((&read, v), &b.credential_id, &[], T0)
            .await
            .unwrap(),
        Removal::LastKey
    );
    assert_eq!(
        s.passkeys_of(&ident.sub, T0).await.unwrap(),
        vec![b.clone()]
    );
    // With the device key in service, the last passkey may go; then the device key may
    // not be retired (no passkey left).
    let active = crate::domain::identity::Identity {
        device_key_retired: false,
        ..read.clone()
    };
    s.update_identity(&active, v, T0).await.unwrap();
    let (read, v) = s.identity(&ident.sub, T0).await.unwrap().unwrap();
    assert_eq!(
        s.remove_passkey((&read, v), &b.credential_id, &[], T0)
            .await
            .unwrap(),
        Removal::Removed
    );
    let retired = crate::domain::identity::Identity {
        device_key_retired: true,
        ..read.clone()
    };
    assert!(!s
        .update_identity_keeping_passkeys(&retired, v, &[], T0)
        .await
        .unwrap());
}
