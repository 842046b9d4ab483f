#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Passkeys end to end through the use cases (issue 26): sign-up, approvals, upgrade,
//! removal; the verification's own table is in `domain::passkey`.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::{json, Value};

use crate::domain::app_jws;
use crate::domain::login::ApprovedWith;
use crate::domain::passkey::RelyingParty;
use crate::store::Passkeys;
use crate::testing::passkey::SoftAuthenticator;
use crate::testing::{Builder, TestEnv};
use crate::usecase::app::{self, AppError, Decision};

fn b64(b: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(b)
}

fn rp(env: &TestEnv) -> RelyingParty {
    RelyingParty::for_issuer(&env.ctx.settings.issuer()).unwrap()
}

async fn challenge(env: &TestEnv) -> String {
    app::new_challenge(&env.ctx, &env.source())
        .await
        .unwrap()
        .challenge
}

fn base_claims(env: &TestEnv, extra: Value) -> Value {
    let now = env.now().secs();
    let mut c = json!({
        "aud": env.ctx.settings.issuer(), "iat": now, "exp": now + 120,
        "jti": uuid::Uuid::new_v4().to_string(),
    });
    if let (Some(c), Value::Object(extra)) = (c.as_object_mut(), extra) {
        c.extend(extra);
    }
    c
}

/// A request signed by `auth`'s assertion, over a fresh server challenge.
async fn by_passkey(
    env: &TestEnv,
    auth: &mut SoftAuthenticator,
    typ: &str,
    extra: Value,
) -> String {
    let mut extra = extra;
    extra["webauthn_challenge"] = challenge(env).await.into();
    let claims = base_claims(env, extra);
    let kid = b64(&auth.credential_id);
    app_jws::passkey_signed(typ, Some(&kid), &claims, |ch| {
        let a = auth.assert(ch);
        json!({
            "clientDataJSON": b64(&a.client_data_json),
            "authenticatorData": b64(&a.authenticator_data),
            "signature": b64(&a.signature),
        })
    })
}

/// A sign-up with a passkey made by `auth`.
async fn signup(
    env: &TestEnv,
    auth: &SoftAuthenticator,
    name: &str,
) -> crate::domain::identity::Identity {
    let claims = base_claims(
        env,
        json!({ "name": name, "display_name": "Pat Passkey", "country_code": "SE",
                "webauthn_challenge": challenge(env).await, "passkey_name": "Pixel" }),
    );
    let reg = app_jws::passkey_signed("registration+jwt", None, &claims, |ch| {
        let (cd, att) = auth.register(ch);
        json!({ "clientDataJSON": b64(&cd), "attestationObject": b64(&att), "transports": ["internal"] })
    });
    app::signup(&env.ctx, &reg, &env.source()).await.unwrap()
}

/// A QR login scanned (without a proof, as a passkey identity's app scans): its id, the
/// challenge and the number shown.
async fn scanned_login(env: &TestEnv) -> (String, String, u8) {
    let (login, _) = env.show_qr(&env.shop_auth(&[])).await;
    let ch = login.current_challenge(env.now());
    app::scan(&env.ctx, &login.id, &ch, None, &env.source())
        .await
        .unwrap();
    let n = env.number_shown(&login.id).await.unwrap();
    (login.id.to_string(), ch, n)
}

#[tokio::test]
async fn a_passkey_identity_approves_with_a_verified_assertion_and_a_replay_is_refused() {
    let env = Builder::new().build().await;
    let mut auth = SoftAuthenticator::new(&rp(&env), b"cred-signup").unwrap();
    let ident = signup(&env, &auth, "pat").await;
    assert!(ident.device_key_retired);
    let keys = app::keys_for_operator(&env.ctx, ident.sub.as_str())
        .await
        .unwrap();
    assert!(keys.device_key.is_none());
    assert_eq!(keys.passkeys.len(), 1);
    assert_eq!(keys.passkeys[0].name, "Pixel");

    let (id, ch, n) = scanned_login(&env).await;
    let approval = by_passkey(
        &env,
        &mut auth,
        "approval+jwt",
        json!({ "sub": ident.sub, "session": id, "challenge": ch, "decision": "approve", "number": n }),
    )
    .await;
    let d = app::decide(&env.ctx, &id, &approval, &env.source())
        .await
        .unwrap();
    assert_eq!(d, Decision::Approve);
    assert_eq!(
        env.qr_login(&id).await.value.approved_with,
        Some(ApprovedWith::PasskeyUv)
    );
    let used = env
        .store
        .passkey(&b64(b"cred-signup"), env.now())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(used.value.sign_count, 1);
    assert_eq!(
        used.value.last_used_from.as_deref(),
        Some(crate::testing::IP)
    );

    // The same approval again: refused (its counter did not grow), on another login too.
    let (id2, _, _) = scanned_login(&env).await;
    let again = app::decide(&env.ctx, &id2, &approval, &env.source()).await;
    assert!(matches!(again, Err(AppError::Invalid(_))), "{again:?}");
    // A device key's ES256 approval is refused for a passkey identity.
    let es = env
        .phone
        .approval(&env.ctx, ident.sub.as_str(), &id2, "x", "approve", Some(1));
    let r = app::decide(&env.ctx, &id2, &es, &env.source()).await;
    assert!(
        matches!(r, Err(AppError::Invalid(ref m)) if m.contains("passkeys")),
        "{r:?}"
    );
}

#[tokio::test]
async fn an_assertion_without_user_verification_or_a_spent_challenge_is_refused() {
    let env = Builder::new().build().await;
    let mut auth = SoftAuthenticator::new(&rp(&env), b"cred-uv").unwrap();
    let ident = signup(&env, &auth, "uvless").await;
    let (id, ch, n) = scanned_login(&env).await;
    let claims = json!({ "sub": ident.sub, "session": id, "challenge": ch, "decision": "approve", "number": n });
    auth.user_verified = false;
    let approval = by_passkey(&env, &mut auth, "approval+jwt", claims.clone()).await;
    let r = app::decide(&env.ctx, &id, &approval, &env.source()).await;
    assert!(
        matches!(r, Err(AppError::Invalid(ref m)) if m.contains("UV")),
        "{r:?}"
    );
    auth.user_verified = true;
    // A challenge the server never issued.
    let mut extra = claims.clone();
    extra["webauthn_challenge"] = "made-up".into();
    let c = base_claims(&env, extra);
    let kid = b64(&auth.credential_id);
    let forged = app_jws::passkey_signed("approval+jwt", Some(&kid), &c, |x| {
        let a = auth.assert(x);
        json!({ "clientDataJSON": b64(&a.client_data_json),
                "authenticatorData": b64(&a.authenticator_data), "signature": b64(&a.signature) })
    });
    let r = app::decide(&env.ctx, &id, &forged, &env.source()).await;
    assert!(
        matches!(r, Err(AppError::Invalid(ref m)) if m.contains("webauthn_challenge")),
        "{r:?}"
    );
    // Still pending: a good approval goes through.
    let ok = by_passkey(&env, &mut auth, "approval+jwt", claims).await;
    assert_eq!(
        app::decide(&env.ctx, &id, &ok, &env.source())
            .await
            .unwrap(),
        Decision::Approve
    );
}

#[tokio::test]
async fn a_device_key_identity_upgrades_and_never_removes_its_last_key() {
    let env = Builder::new().build().await;
    let sub = env.alice.sub.to_string();
    // A device-key approval is recorded as such.
    let (login, _) = env.show_qr(&env.shop_auth(&[])).await;
    env.scan_and_decide(&login, "approve").await.unwrap();
    assert_eq!(
        env.qr_login(&login.id).await.value.approved_with,
        Some(ApprovedWith::DeviceKey)
    );

    // The upgrade, signed by the old key, retiring it.
    let mut first = SoftAuthenticator::new(&rp(&env), b"cred-up-1").unwrap();
    let c = challenge(&env).await;
    let (cd, att) = first.register(c.as_bytes());
    let up = env.phone.sign(&env.ctx, "passkey+jwt", json!({
        "sub": sub, "webauthn_challenge": c, "retire_device_key": true, "name": "Phone",
        "credential": { "clientDataJSON": b64(&cd), "attestationObject": b64(&att), "transports": ["internal"] },
    }));
    let added = app::add_passkey(&env.ctx, &sub, &up, &env.source())
        .await
        .unwrap();
    assert_eq!(added.name, "Phone");
    // The same request again: its challenge is spent.
    assert!(app::add_passkey(&env.ctx, &sub, &up, &env.source())
        .await
        .is_err());
    let keys = app::keys_for_operator(&env.ctx, &sub).await.unwrap();
    assert!(keys.device_key.is_none());
    assert_eq!(keys.passkeys.len(), 1);
    // The retired device key signs nothing any more.
    let (login, _) = env.show_qr(&env.shop_auth(&[])).await;
    assert!(matches!(
        env.scan_and_decide(&login, "approve").await,
        Err(AppError::Invalid(_))
    ));

    // The last key is not removed.
    let rm = by_passkey(
        &env,
        &mut first,
        "key-removal+jwt",
        json!({ "sub": sub, "key": added.credential_id }),
    )
    .await;
    let r = app::remove_key(&env.ctx, &sub, &added.credential_id, &rm, &env.source()).await;
    assert!(matches!(r, Err(AppError::LastKey)), "{r:?}");
    let rm = by_passkey(
        &env,
        &mut first,
        "key-removal+jwt",
        json!({ "sub": sub, "key": "device" }),
    )
    .await;
    let r = app::remove_key(&env.ctx, &sub, "device", &rm, &env.source()).await;
    assert!(matches!(r, Err(AppError::UnknownKey)), "{r:?}");

    // A second passkey, signed by the first's assertion (its challenge serves both).
    let mut second = SoftAuthenticator::new(&rp(&env), b"cred-up-2").unwrap();
    let c = challenge(&env).await;
    let (cd, att) = second.register(c.as_bytes());
    let claims = base_claims(
        &env,
        json!({
            "sub": sub, "webauthn_challenge": c, "name": "Laptop",
            "credential": { "clientDataJSON": b64(&cd), "attestationObject": b64(&att) },
        }),
    );
    let kid = b64(&first.credential_id);
    let add = app_jws::passkey_signed("passkey+jwt", Some(&kid), &claims, |x| {
        let a = first.assert(x);
        json!({ "clientDataJSON": b64(&a.client_data_json),
                "authenticatorData": b64(&a.authenticator_data), "signature": b64(&a.signature) })
    });
    app::add_passkey(&env.ctx, &sub, &add, &env.source())
        .await
        .unwrap();
    // Now the first may go; removal names its key, signed by the second.
    let wrong = by_passkey(
        &env,
        &mut second,
        "key-removal+jwt",
        json!({ "sub": sub, "key": "other" }),
    )
    .await;
    assert!(
        app::remove_key(&env.ctx, &sub, &added.credential_id, &wrong, &env.source())
            .await
            .is_err()
    );
    let rm = by_passkey(
        &env,
        &mut second,
        "key-removal+jwt",
        json!({ "sub": sub, "key": added.credential_id }),
    )
    .await;
    app::remove_key(&env.ctx, &sub, &added.credential_id, &rm, &env.source())
        .await
        .unwrap();
    let keys = app::keys_for_operator(&env.ctx, &sub).await.unwrap();
    assert_eq!(
        keys.passkeys
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>(),
        ["Laptop"]
    );
    // The removed passkey signs nothing.
    let r = by_passkey(&env, &mut first, "keys+jwt", json!({ "sub": sub })).await;
    assert!(app::keys(&env.ctx, &sub, &r, &env.source()).await.is_err());
    let r = by_passkey(&env, &mut second, "keys+jwt", json!({ "sub": sub })).await;
    assert_eq!(
        app::keys(&env.ctx, &sub, &r, &env.source())
            .await
            .unwrap()
            .passkeys
            .len(),
        1
    );
}

/// After an upgrade that retires the device key, the old key (a stolen copy of it) signs no
/// request of any kind: not an approval, a profile change, a photo, a key rotation (which
/// would put a device key back in service), a deletion, a report, the recent logins, the
/// keys, a passkey of its own, nor a key removal. Every refusal says why.
#[tokio::test]
async fn a_retired_device_key_signs_no_request_of_any_kind() {
    let env = Builder::new().build().await;
    let sub = env.alice.sub.to_string();
    let mut phone = SoftAuthenticator::new(&rp(&env), b"cred-retire").unwrap();
    let c = challenge(&env).await;
    let (cd, att) = phone.register(c.as_bytes());
    let up = env.phone.sign(
        &env.ctx,
        "passkey+jwt",
        json!({
            "sub": sub, "webauthn_challenge": c, "retire_device_key": true,
            "credential": { "clientDataJSON": b64(&cd), "attestationObject": b64(&att) },
        }),
    );
    let added = app::add_passkey(&env.ctx, &sub, &up, &env.source())
        .await
        .unwrap();

    let old = |typ: &str, extra: Value| {
        let mut claims = json!({ "sub": sub });
        if let (Some(c), Value::Object(extra)) = (claims.as_object_mut(), extra) {
            c.extend(extra);
        }
        env.phone.sign(&env.ctx, typ, claims)
    };
    let refused = |what: &str, r: Result<(), AppError>| match r {
        Err(AppError::Invalid(m)) if m.contains("signs with its passkeys") => {}
        other => panic!("{what}: {other:?}"),
    };

    refused(
        "profile",
        app::update_profile(
            &env.ctx,
            &sub,
            &old("profile+jwt", json!({ "display_name": "Mallory" })),
        )
        .await
        .map(|_| ()),
    );
    refused(
        "photo",
        app::upload_photo(&env.ctx, &sub, &old("photo+jwt", json!({})), b"\x89PNG")
            .await
            .map(|_| ()),
    );
    let mallory = crate::testing::Device::generate();
    let proof = mallory.sign(&env.ctx, "key-proof+jwt", json!({ "sub": sub }));
    refused(
        "key rotation",
        app::rotate_key(
            &env.ctx,
            &sub,
            &old(
                "key-rotation+jwt",
                json!({ "public_key": mallory.public_key(), "proof": proof }),
            ),
        )
        .await
        .map(|_| ()),
    );
    refused(
        "report",
        app::report_login(
            &env.ctx,
            &sub,
            "login-1",
            &old("report+jwt", json!({ "login": "login-1" })),
            &env.source(),
        )
        .await
        .map(|_| ()),
    );
    refused(
        "recent logins",
        app::recent_logins(&env.ctx, &sub, &old("activity+jwt", json!({})))
            .await
            .map(|_| ()),
    );
    refused(
        "keys",
        app::keys(&env.ctx, &sub, &old("keys+jwt", json!({})), &env.source())
            .await
            .map(|_| ()),
    );
    let theirs = SoftAuthenticator::new(&rp(&env), b"cred-mallory").unwrap();
    let c = challenge(&env).await;
    let (cd, att) = theirs.register(c.as_bytes());
    refused(
        "a passkey of the thief's own",
        app::add_passkey(
            &env.ctx,
            &sub,
            &old(
                "passkey+jwt",
                json!({ "webauthn_challenge": c,
                        "credential": { "clientDataJSON": b64(&cd), "attestationObject": b64(&att) } }),
            ),
            &env.source(),
        )
        .await
        .map(|_| ()),
    );
    refused(
        "removal of the passkey",
        app::remove_key(
            &env.ctx,
            &sub,
            &added.credential_id,
            &old("key-removal+jwt", json!({ "key": added.credential_id })),
            &env.source(),
        )
        .await,
    );
    refused(
        "deletion",
        app::delete_identity(
            &env.ctx,
            &sub,
            &old("deletion+jwt", json!({})),
            &env.source(),
        )
        .await,
    );
    // The identity is as it was: its passkey, no device key, and it still signs.
    let keys = app::keys_for_operator(&env.ctx, &sub).await.unwrap();
    assert!(keys.device_key.is_none());
    assert_eq!(keys.passkeys.len(), 1);
    let r = by_passkey(&env, &mut phone, "keys+jwt", json!({ "sub": sub })).await;
    assert!(app::keys(&env.ctx, &sub, &r, &env.source()).await.is_ok());
}

/// A scan proof signed by a retired device key does not make the scan its identity's: a thief
/// holding the old key cannot scan logins in the person's name (and so cannot put cancelled
/// logins in their recent logins). The scan still goes through, as an anonymous one.
#[tokio::test]
async fn a_scan_proof_by_a_retired_device_key_scans_as_nobody() {
    use crate::domain::login::Scanner;
    let env = Builder::new().build().await;
    let sub = env.alice.sub.to_string();
    let phone = SoftAuthenticator::new(&rp(&env), b"cred-scan").unwrap();
    let c = challenge(&env).await;
    let (cd, att) = phone.register(c.as_bytes());
    let up = env.phone.sign(
        &env.ctx,
        "passkey+jwt",
        json!({
            "sub": sub, "webauthn_challenge": c, "retire_device_key": true,
            "credential": { "clientDataJSON": b64(&cd), "attestationObject": b64(&att) },
        }),
    );
    app::add_passkey(&env.ctx, &sub, &up, &env.source())
        .await
        .unwrap();
    let (login, _) = env.show_qr(&env.shop_auth(&[])).await;
    let ch = login.current_challenge(env.now());
    let proof = env.phone.scan_proof(&env.ctx, &sub, &login.id, &ch);
    app::scan(&env.ctx, &login.id, &ch, Some(&proof), &env.source())
        .await
        .unwrap();
    assert_eq!(
        env.qr_login(&login.id).await.value.scanned_by,
        Some(Scanner::Anonymous)
    );
}
