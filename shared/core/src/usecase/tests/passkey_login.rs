//! "Sign in with a passkey" on the login page ([`crate::usecase::passkey_login`]), with part 1's
//! software authenticator: the same consent and tokens as a QR login, `amr` `hwk user pop` and
//! `acr` 3; and every refusal (replay, another login's challenge, UV false, a disabled identity,
//! an unknown credential, malformed input) writes nothing.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use crate::domain::consent::ConsentInput;
use crate::domain::login::{LoginStatus, QrLogin};
use crate::domain::passkey::{Assertion, NewCredential, PasskeyError, RelyingParty};
use crate::store::{IdentityStore, NewPasskey, Passkeys};
use crate::testing::passkey::SoftAuthenticator;
use crate::testing::{param, Builder, TestEnv};
use crate::usecase::login::{BrowserSecret, ConsentOutcome};
use crate::usecase::passkey_login::{self, AssertionInput, PasskeyLoginError};

async fn with_passkey() -> (TestEnv, SoftAuthenticator) {
    let env = Builder::new().build().await;
    let rp = RelyingParty::for_issuer(&env.ctx.settings.issuer()).unwrap();
    let auth = SoftAuthenticator::new(&rp, b"alice-passkey-1").unwrap();
    let pk = NewCredential {
        credential_id: auth.credential_id.clone(),
        public_key: auth.cose_key(),
        alg: crate::domain::passkey::COSE_ES256,
        sign_count: 0,
    }
    .into_passkey(&env.alice.sub, "laptop", vec!["internal".into()], env.now());
    let (identity, version) = env
        .store
        .identity(&env.alice.sub, env.now())
        .await
        .unwrap()
        .unwrap();
    let added = env
        .store
        .add_passkey(&pk, (&identity, version), &[], env.now())
        .await
        .unwrap();
    assert_eq!(added, NewPasskey::Added);
    (env, auth)
}

fn b64(v: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(v)
}

/// The fields of `a` as the page posts them.
struct Posted {
    credential_id: String,
    authenticator_data: String,
    client_data_json: String,
    signature: String,
}

impl Posted {
    /// `auth`'s assertion over `challenge`.
    fn of(auth: &mut SoftAuthenticator, challenge: &[u8]) -> Self {
        let a: Assertion = auth.assert(challenge);
        Self {
            credential_id: b64(&auth.credential_id),
            authenticator_data: b64(&a.authenticator_data),
            client_data_json: b64(&a.client_data_json),
            signature: b64(&a.signature),
        }
    }
    fn input(&self) -> AssertionInput<'_> {
        AssertionInput {
            credential_id: &self.credential_id,
            authenticator_data: &self.authenticator_data,
            client_data_json: &self.client_data_json,
            signature: &self.signature,
        }
    }
}

/// A new login's page asks for a challenge: the login, its browser secret, the challenge.
async fn page(env: &TestEnv) -> (QrLogin, BrowserSecret, Vec<u8>) {
    let (login, secret) = env.show_qr(&env.shop_auth(&[])).await;
    let who = crate::domain::ratelimit::Source::from_addr("192.0.2.7");
    let opts = passkey_login::options(&env.ctx, &env.qr_login(&login.id).await, &who)
        .await
        .unwrap();
    assert_eq!(opts.rp_id, "id.example.com");
    assert!(opts.timeout_ms > 0);
    let challenge = URL_SAFE_NO_PAD.decode(&opts.challenge).unwrap();
    (login, secret, challenge)
}

async fn sign_in(env: &TestEnv, login: &QrLogin, p: &Posted) -> Result<(), PasskeyLoginError> {
    let l = env.qr_login(&login.id).await;
    passkey_login::sign_in(&env.ctx, &l, &p.input(), "192.0.2.7").await
}

#[tokio::test]
async fn a_passkey_signs_in_to_the_same_consent_and_tokens_with_amr_hwk_user_pop_and_acr_3() {
    let (env, mut auth) = with_passkey().await;
    let (login, secret, challenge) = page(&env).await;
    let posted = Posted::of(&mut auth, &challenge);
    sign_in(&env, &login, &posted).await.unwrap();
    let l = env.qr_login(&login.id).await;
    assert_eq!(l.value.public_status(env.now()), "approved");
    let outcome = match env.consent(&login.id, &secret, ConsentInput::Open).await {
        ConsentOutcome::Ask { identity, .. } => {
            assert_eq!(identity.sub, env.alice.sub);
            env.submit_consent(&login.id, &secret, "allow").await
        }
        other => other,
    };
    let ConsentOutcome::Completed(done) = outcome else {
        panic!("a code: {outcome:?}");
    };
    let code = param(&done.response, "code").unwrap().to_owned();
    let t = env.exchange_shop(&code).await.unwrap();
    let id: serde_json::Map<String, serde_json::Value> = crate::keys::jwt::verify(
        &crate::testing::keyring(),
        t.id_token.as_deref().unwrap(),
        &env.ctx.settings.issuer(),
        env.now(),
    )
    .unwrap();
    assert_eq!(id["sub"], env.alice.sub.as_str());
    assert_eq!(id["amr"], serde_json::json!(["hwk", "user", "pop"]));
    assert_eq!(id["acr"], "3");
    // The passkey's counter and last use were recorded.
    let key = env
        .store
        .passkey(&posted.credential_id, env.now())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(key.value.sign_count, auth.counter);
    assert_eq!(key.value.last_used_from.as_deref(), Some("192.0.2.7"));
    // The identity's recent logins show it.
    let recent = env
        .store
        .recent_logins(&env.alice.sub, env.now())
        .await
        .unwrap();
    assert!(recent.iter().any(|e| e.outcome == "approved"), "{recent:?}");
}

#[tokio::test]
async fn a_replayed_assertion_or_challenge_is_refused() {
    let (env, mut auth) = with_passkey().await;
    let (login, _, challenge) = page(&env).await;
    let posted = Posted::of(&mut auth, &challenge);
    let before = env.qr_login(&login.id).await;
    sign_in(&env, &login, &posted).await.unwrap();
    // The same assertion on a second login of the same browser flow: not its challenge.
    let (second, _, _) = page(&env).await;
    assert!(matches!(
        sign_in(&env, &second, &posted).await,
        Err(PasskeyLoginError::Challenge)
    ));
    // The same assertion again on its own login: decided already.
    assert!(matches!(
        sign_in(&env, &login, &posted).await,
        Err(PasskeyLoginError::AlreadyDecided)
    ));
    assert_ne!(
        before.value.status,
        env.qr_login(&login.id).await.value.status
    );
    // A fresh assertion over a spent challenge, on a pending login: refused, nothing written.
    let (third, _, c3) = page(&env).await;
    let first = Posted::of(&mut auth, &c3);
    let l3 = env.qr_login(&third.id).await;
    // Spend the challenge with a bad signature first.
    let mut bad = Posted::of(&mut auth, &c3);
    bad.signature = b64(b"not a signature");
    assert!(matches!(
        sign_in(&env, &third, &bad).await,
        Err(PasskeyLoginError::Rejected(PasskeyError::Signature))
    ));
    assert!(matches!(
        sign_in(&env, &third, &first).await,
        Err(PasskeyLoginError::Challenge)
    ));
    assert_eq!(env.qr_login(&third.id).await.value, l3.value);
}

#[tokio::test]
async fn user_verification_false_a_disabled_identity_and_an_unknown_credential_are_refused() {
    let (env, mut auth) = with_passkey().await;
    let (login, _, c) = page(&env).await;
    let mut no_uv = auth.twin().unwrap();
    no_uv.user_verified = false;
    let posted = Posted::of(&mut no_uv, &c);
    assert!(matches!(
        sign_in(&env, &login, &posted).await,
        Err(PasskeyLoginError::Rejected(PasskeyError::UserVerified))
    ));
    let (login, _, c) = page(&env).await;
    let mut stranger = Posted::of(&mut auth, &c);
    stranger.credential_id = b64(b"nobody's");
    assert!(matches!(
        sign_in(&env, &login, &stranger).await,
        Err(PasskeyLoginError::UnknownCredential)
    ));
    let (identity, version) = env
        .store
        .identity(&env.alice.sub, env.now())
        .await
        .unwrap()
        .unwrap();
    let disabled = crate::domain::identity::Identity {
        disabled: true,
        ..identity
    };
    env.store
        .update_identity(&disabled, version, env.now())
        .await
        .unwrap();
    let (login, _, c) = page(&env).await;
    let posted = Posted::of(&mut auth, &c);
    assert!(matches!(
        sign_in(&env, &login, &posted).await,
        Err(PasskeyLoginError::UnknownCredential)
    ));
    assert_eq!(
        env.qr_login(&login.id).await.value.status,
        LoginStatus::Pending
    );
}

#[tokio::test]
async fn malformed_input_is_invalid_and_writes_nothing() {
    let (env, mut auth) = with_passkey().await;
    let (login, _, c) = page(&env).await;
    let good = Posted::of(&mut auth, &c);
    let huge = "A".repeat(5000);
    type Change = Box<dyn Fn(&mut Posted)>;
    let cases: Vec<Change> = vec![
        Box::new(|p| p.credential_id = String::new()),
        Box::new(|p| p.authenticator_data = "***".into()),
        Box::new(|p| p.client_data_json = String::new()),
        Box::new(|p| p.client_data_json = b64(b"not json")),
        Box::new(|p| p.client_data_json = b64(br#"{"type":"webauthn.get"}"#)),
        Box::new(move |p| p.signature = huge.clone()),
    ];
    for (i, change) in cases.iter().enumerate() {
        let mut p = Posted {
            credential_id: good.credential_id.clone(),
            authenticator_data: good.authenticator_data.clone(),
            client_data_json: good.client_data_json.clone(),
            signature: good.signature.clone(),
        };
        change(&mut p);
        assert!(
            matches!(
                sign_in(&env, &login, &p).await,
                Err(PasskeyLoginError::Invalid(_))
            ),
            "case {i}"
        );
    }
    // None of them spent the challenge: the good assertion still signs in.
    sign_in(&env, &login, &good).await.unwrap();
}
