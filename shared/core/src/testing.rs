// Test support (the `test-support` feature): the suite's functions and the doubles' fields
// are named for what they hold; the module documents them, not each item.
#![allow(missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Test support: an [`Context`] over the in-memory store with a fixed clock, seeded randomness and
//! in-memory signing keys, two registered clients and an identity whose device key is held
//! here, so the use cases can be walked step by step at exact times, without a server.
//!
//! ```ignore
//! let env = testing::Builder::new().build().await;
//! let done = env.login(&env.shop_auth(&[])).await;   // QR, scan, approve, consent
//! let tokens = env.exchange_shop(&done.code).await.unwrap();
//! env.advance(301);                                   // the access token has expired
//! ```
//!
//! [`passkey`] holds the software authenticator the passkey tests register and sign with.

pub mod passkey;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::rsa::KeySize;
use aws_lc_rs::signature::{
    EcdsaKeyPair, KeyPair as _, RsaKeyPair, ECDSA_P256_SHA256_FIXED_SIGNING,
};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Value};

use crate::clock::{Clock, FixedClock, Timestamp};
use crate::config::{RawSettings, Settings};
use crate::context::Context;
use crate::domain::app_jws;
use crate::domain::client::{register, Client, NewClient};
use crate::domain::consent::{csrf_token, ConsentInput};
use crate::domain::grant::Issued;
use crate::domain::identity::{new_identity, Identity, Registration};
use crate::domain::login::QrLogin;
use crate::domain::ratelimit::Source;
use crate::keys::local::LocalSigner;
use crate::keys::{Alg, Keyring, Signer};
use crate::protocol::Params;
use crate::random::SeededRandom;
use crate::store::memory::MemoryStore;
use crate::store::typed::Versioned;
use crate::store::{ClientStore, IdentityStore, QrLogins};
use crate::usecase::app::{self, Decision};
use crate::usecase::login::{
    self, AuthResponse, AuthorizeDecision, BrowserCookies, BrowserSecret, ConsentOutcome,
};
use crate::usecase::token::{self, Presented, TokenError};

/// `{auth_url}`; the issuer is `https://id.example.com/realms/scanid`.
pub const PUBLIC_URL: &str = "https://id.example.com";
/// Where every test starts: a whole minute (so a rate-limit window starts here) and a whole
/// challenge step (5 s).
pub const T0: Timestamp = Timestamp::from_secs(1_800_000_000);
/// The browser's and the phone's address.
pub const IP: &str = "203.0.113.7";
pub const USER_AGENT: &str = "scanid-tests";

/// The confidential client.
pub const SHOP: &str = "shop";
pub const SHOP_REDIRECT: &str = "https://shop.example/cb";
pub const SHOP_LOGGED_OUT: &str = "https://shop.example/bye";
/// The public client (PKCE required).
pub const SPA: &str = "spa";
pub const SPA_REDIRECT: &str = "https://spa.example/cb";
/// RFC 7636 appendix B: a verifier and its S256 challenge.
pub const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
pub const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

/// One RS256 and one ES256 key, both active; made once per test binary (RSA generation is
/// slow) and shared.
pub fn keyring() -> Arc<Keyring> {
    static RING: OnceLock<Arc<Keyring>> = OnceLock::new();
    RING.get_or_init(|| {
        let rsa = RsaKeyPair::generate(KeySize::Rsa2048).expect("RSA key");
        let rsa_der = rsa.as_der().expect("RSA PKCS#8").as_ref().to_vec();
        let ec = EcdsaKeyPair::generate(&ECDSA_P256_SHA256_FIXED_SIGNING).expect("P-256 key");
        let ec_der = ec.to_pkcs8v1().expect("P-256 PKCS#8").as_ref().to_vec();
        let mut signers: Vec<Arc<dyn Signer>> = Vec::new();
        let mut published = Vec::new();
        for (alg, der) in [(Alg::RS256, rsa_der), (Alg::ES256, ec_der)] {
            let (signer, jwk) = LocalSigner::from_pkcs8(alg, &der).expect("signer");
            signers.push(Arc::new(signer));
            published.push(jwk);
        }
        Arc::new(Keyring::new(signers, published).expect("keyring"))
    })
    .clone()
}

/// Request parameters from pairs.
pub fn params(pairs: &[(&str, &str)]) -> Params {
    Params::from_pairs(
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
    )
}

/// `base` with each of `extra` replacing the value of the same name, or added.
fn merged(base: &[(&str, &str)], extra: &[(&str, &str)]) -> Params {
    let mut all: Vec<(&str, &str)> = base
        .iter()
        .filter(|(k, _)| !extra.iter().any(|(e, _)| e == k))
        .copied()
        .collect();
    all.extend(extra.iter().filter(|(_, v)| !v.is_empty()).copied());
    params(&all)
}

/// The value of `name` in an authorization response.
pub fn param<'a>(r: &'a AuthResponse, name: &str) -> Option<&'a str> {
    r.params
        .iter()
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.as_str())
}

/// A phone: a P-256 device key, and the identity it signed up (once it has).
pub struct Device {
    pub key: EcdsaKeyPair,
    jtis: AtomicU64,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device").finish_non_exhaustive()
    }
}

impl Device {
    /// A phone with a new device key.
    pub fn generate() -> Self {
        Self {
            key: EcdsaKeyPair::generate(&ECDSA_P256_SHA256_FIXED_SIGNING).expect("P-256 key"),
            jtis: AtomicU64::new(0),
        }
    }

    /// The device key as the identity holds it: standard base64 of the DER SPKI.
    pub fn public_key(&self) -> String {
        STANDARD.encode(self.key.public_key().as_der().expect("SPKI").as_ref())
    }

    /// A `jti` this device has not used yet.
    pub fn fresh_jti(&self) -> String {
        format!("jti-{}", self.jtis.fetch_add(1, Ordering::SeqCst))
    }

    /// Signs `claims` as the app does (app protocol, Keys), adding `aud` (the issuer), `iat`
    /// (now), `exp` (two minutes on) and a fresh `jti` unless `claims` has them.
    pub fn sign(&self, ctx: &Context, typ: &str, claims: Value) -> String {
        let now = ctx.clock.now().secs();
        let mut c = json!({
            "aud": ctx.settings.issuer(), "iat": now, "exp": now + 120, "jti": self.fresh_jti(),
        });
        if let (Some(c), Value::Object(extra)) = (c.as_object_mut(), claims) {
            c.extend(extra);
        }
        app_jws::sign(&self.key, typ, &c).expect("app JWS")
    }

    /// A `registration+jwt` for an identity named `name`, with proof of this device key.
    pub fn registration(&self, ctx: &Context, name: &str) -> String {
        self.sign(
            ctx,
            "registration+jwt",
            json!({
                "name": name, "display_name": "Alice Example", "country_code": "SE",
                "public_key": self.public_key(),
            }),
        )
    }

    /// An `approval+jwt` by `sub` on QR login `session`, presenting `challenge`; `decision`
    /// is `approve` or `deny`; `number` the number picked (none: no `number` claim).
    pub fn approval(
        &self,
        ctx: &Context,
        sub: &str,
        session: &str,
        challenge: &str,
        decision: &str,
        number: Option<u8>,
    ) -> String {
        let mut claims =
            json!({ "sub": sub, "session": session, "challenge": challenge, "decision": decision });
        if let Some(n) = number {
            claims["number"] = json!(n);
        }
        self.sign(ctx, "approval+jwt", claims)
    }

    /// A `scan+jwt` by `sub`: the proof of which identity scans `challenge` of `session`.
    pub fn scan_proof(&self, ctx: &Context, sub: &str, session: &str, challenge: &str) -> String {
        self.sign(
            ctx,
            "scan+jwt",
            json!({ "sub": sub, "session": session, "challenge": challenge }),
        )
    }
}

/// Builds a [`TestEnv`].
#[derive(Debug)]
pub struct Builder {
    raw: RawSettings,
    at: Timestamp,
    seed: u64,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    /// The defaults of the config module for public URL [`PUBLIC_URL`], at [`T0`], seed 1.
    pub fn new() -> Self {
        Self {
            raw: RawSettings {
                public_url: Some(PUBLIC_URL.to_owned()),
                ..Default::default()
            },
            at: T0,
            seed: 1,
        }
    }

    /// Changes raw settings (as `SCANID_*` variables would) before validation.
    pub fn setting(mut self, change: impl FnOnce(&mut RawSettings)) -> Self {
        change(&mut self.raw);
        self
    }

    pub fn at(mut self, at: Timestamp) -> Self {
        self.at = at;
        self
    }

    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The app, with clients [`SHOP`] (confidential, secret in [`TestEnv::shop_secret`]) and
    /// [`SPA`] (public), and identity `alice` whose device is [`TestEnv::phone`].
    pub async fn build(self) -> TestEnv {
        let settings = Settings::from_raw(&self.raw).expect("test settings");
        let store = Arc::new(MemoryStore::default());
        let clock = Arc::new(FixedClock::new(self.at));
        let random = Arc::new(SeededRandom::new(self.seed));
        let deliveries = Arc::new(RecordedDeliveries::default());
        let ctx = Context::new(
            settings,
            store.clone(),
            keyring(),
            clock.clone(),
            random.clone(),
        )
        .expect("app")
        .with_backchannel(deliveries.clone());
        let now = clock.now();
        let (shop, secret) = register(
            NewClient {
                name: "Shop".into(),
                client_id: Some(SHOP.into()),
                redirect_uris: vec![SHOP_REDIRECT.into()],
                post_logout_redirect_uris: vec![SHOP_LOGGED_OUT.into()],
                ..Default::default()
            },
            now,
            random.as_ref(),
        )
        .expect("shop registers");
        let (spa, _) = register(
            NewClient {
                name: "Single-page app".into(),
                client_id: Some(SPA.into()),
                redirect_uris: vec![SPA_REDIRECT.into()],
                public: true,
                ..Default::default()
            },
            now,
            random.as_ref(),
        )
        .expect("spa registers");
        for c in [&shop, &spa] {
            store.create_client(c, now).await.expect("client stored");
        }
        let phone = Device::generate();
        let mut alice = new_identity(
            &Registration {
                name: Some("alice".into()),
                display_name: Some("Alice Example".into()),
                country_code: Some("SE".into()),
                profile_photo: None,
                public_key: Some(phone.public_key()),
            },
            &[],
            now,
            random.as_ref(),
        )
        .expect("identity");
        alice.groups = vec!["staff".into()];
        store
            .create_identity(&alice, None, now)
            .await
            .expect("identity stored");
        TestEnv {
            ctx,
            store,
            clock,
            random,
            shop_secret: secret.expect("a secret").expose().to_owned(),
            shop,
            spa,
            alice,
            phone,
            deliveries,
        }
    }
}

/// A back-channel logout port that keeps what it is handed.
#[derive(Debug, Default)]
pub struct RecordedDeliveries(std::sync::Mutex<Vec<crate::backchannel::Delivery>>);

impl RecordedDeliveries {
    /// What it was handed so far.
    pub fn taken(&self) -> Vec<crate::backchannel::Delivery> {
        self.0.lock().map(|d| d.clone()).unwrap_or_default()
    }
}

#[async_trait::async_trait]
impl crate::backchannel::LogoutDelivery for RecordedDeliveries {
    async fn send(&self, deliveries: Vec<crate::backchannel::Delivery>) {
        if let Ok(mut d) = self.0.lock() {
            d.extend(deliveries);
        }
    }
}

/// A login that ended with a code.
#[derive(Debug)]
pub struct LoggedIn {
    pub code: String,
    /// The SSO cookie set by this login (`sid.secret`).
    pub sso_cookie: String,
    /// The SSO session's id (`session_state`).
    pub sid: String,
    pub response: AuthResponse,
}

/// An app to test the use cases on, and what it holds.
pub struct TestEnv {
    pub ctx: Context,
    pub store: Arc<MemoryStore>,
    pub clock: Arc<FixedClock>,
    pub random: Arc<SeededRandom>,
    pub shop: Client,
    pub shop_secret: String,
    pub spa: Client,
    pub alice: Identity,
    /// Alice's phone.
    pub phone: Device,
    /// The back-channel logout deliveries the context handed to its port.
    pub deliveries: Arc<RecordedDeliveries>,
}

impl std::fmt::Debug for TestEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestEnv")
            .field("now", &self.now())
            .finish_non_exhaustive()
    }
}

impl TestEnv {
    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// Moves the clock on by `secs`.
    pub fn advance(&self, secs: i64) {
        self.clock.advance_secs(secs);
    }

    /// The rate-limit source of [`IP`].
    pub fn source(&self) -> Source {
        Source::from_addr(IP)
    }

    /// A valid authorization request of [`SHOP`] (`openid profile`, state and nonce, no
    /// PKCE); `extra` replaces or adds parameters (an empty value removes one).
    pub fn shop_auth(&self, extra: &[(&str, &str)]) -> Params {
        merged(
            &[
                ("client_id", SHOP),
                ("redirect_uri", SHOP_REDIRECT),
                ("response_type", "code"),
                ("scope", "openid profile"),
                ("state", "st-1"),
                ("nonce", "n-1"),
            ],
            extra,
        )
    }

    /// A valid authorization request of [`SPA`] with PKCE ([`CHALLENGE`]).
    pub fn spa_auth(&self, extra: &[(&str, &str)]) -> Params {
        merged(
            &[
                ("client_id", SPA),
                ("redirect_uri", SPA_REDIRECT),
                ("response_type", "code"),
                ("scope", "openid"),
                ("code_challenge", CHALLENGE),
                ("code_challenge_method", "S256"),
            ],
            extra,
        )
    }

    /// `usecase::login::authorize` from [`IP`], with the SSO cookie if given.
    pub async fn authorize(&self, p: &Params, sso_cookie: Option<&str>) -> AuthorizeDecision {
        let cookies = BrowserCookies {
            sso: sso_cookie.map(crate::protocol::Secret::new),
            ..BrowserCookies::default()
        };
        login::authorize(&self.ctx, p, &cookies, IP, USER_AGENT)
            .await
            .expect("authorize")
    }

    /// Authorizes and expects the QR page: the new login and its browser secret.
    pub async fn show_qr(&self, p: &Params) -> (QrLogin, BrowserSecret) {
        match self.authorize(p, None).await {
            AuthorizeDecision::ShowQr {
                login,
                browser_secret,
                ..
            } => (login, browser_secret),
            other => panic!("expected the QR page, got {other:?}"),
        }
    }

    /// The QR login as stored now.
    pub async fn qr_login(&self, id: &str) -> Versioned<QrLogin> {
        self.store
            .qr_login(id, self.now())
            .await
            .expect("store")
            .unwrap_or_else(|| panic!("no QR login {id}"))
    }

    /// Whether the QR login's record is gone (expired) now.
    pub async fn qr_login_gone(&self, id: &str) -> bool {
        self.store
            .qr_login(id, self.now())
            .await
            .expect("store")
            .is_none()
    }

    /// Alice's phone scans the QR as it shows now (with her scan proof) and signs `decision`
    /// on it, picking the number the page shows.
    pub async fn scan_and_decide(
        &self,
        login: &QrLogin,
        decision: &str,
    ) -> Result<Decision, app::AppError> {
        let challenge = self.scan(login).await?;
        let number = self.number_shown(&login.id).await;
        let approval = self.phone.approval(
            &self.ctx,
            &self.alice.sub,
            &login.id,
            &challenge,
            decision,
            number,
        );
        app::decide(&self.ctx, &login.id, &approval, &self.source()).await
    }

    /// Alice's phone scans the QR as it shows now, proving it is hers: the challenge.
    pub async fn scan(&self, login: &QrLogin) -> Result<String, app::AppError> {
        let challenge = login.current_challenge(self.now());
        let proof = self
            .phone
            .scan_proof(&self.ctx, &self.alice.sub, &login.id, &challenge);
        app::scan(
            &self.ctx,
            &login.id,
            &challenge,
            Some(&proof),
            &self.source(),
        )
        .await?;
        Ok(challenge)
    }

    /// The number the login page shows once scanned.
    pub async fn number_shown(&self, id: &str) -> Option<u8> {
        self.qr_login(id).await.value.number
    }

    /// The consent step of `login` in the browser holding `secret`.
    pub async fn consent(
        &self,
        login_id: &str,
        secret: &BrowserSecret,
        input: ConsentInput<'_>,
    ) -> ConsentOutcome {
        let l = self.qr_login(login_id).await;
        login::consent(&self.ctx, &l, secret.expose(), input)
            .await
            .expect("consent")
    }

    /// Submits the consent form with the genuine CSRF token and `choice`.
    pub async fn submit_consent(
        &self,
        login_id: &str,
        secret: &BrowserSecret,
        choice: &str,
    ) -> ConsentOutcome {
        let csrf = csrf_token(secret.expose(), login_id);
        self.consent(
            login_id,
            secret,
            ConsentInput::Submit {
                csrf: Some(&csrf),
                choice: Some(choice),
            },
        )
        .await
    }

    /// A whole login in a new browser: the QR page, Alice's scan and approval, and the consent
    /// page answered "allow" (unless a remembered consent covers the request); the code and
    /// the new SSO session.
    pub async fn login(&self, p: &Params) -> LoggedIn {
        let (session, secret) = self.show_qr(p).await;
        let d = self
            .scan_and_decide(&session, "approve")
            .await
            .expect("approved");
        assert_eq!(d, Decision::Approve);
        let outcome = match self.consent(&session.id, &secret, ConsentInput::Open).await {
            ConsentOutcome::Ask { .. } => self.submit_consent(&session.id, &secret, "allow").await,
            remembered => remembered,
        };
        match outcome {
            ConsentOutcome::Completed(done) => {
                let response = done.response;
                LoggedIn {
                    code: param(&response, "code").expect("a code").to_owned(),
                    sid: param(&response, "session_state")
                        .expect("session_state")
                        .to_owned(),
                    sso_cookie: done
                        .sso_cookie
                        .expect("a new SSO session")
                        .expose()
                        .to_owned(),
                    response,
                }
            }
            other => panic!("expected a code, got {other:?}"),
        }
    }

    /// A token request of [`SHOP`], authenticated with HTTP Basic.
    pub async fn shop_token(&self, pairs: &[(&str, &str)]) -> Result<Issued, TokenError> {
        let presented = Presented {
            basic: Some((SHOP.to_owned(), self.shop_secret.clone())),
            ..Default::default()
        };
        token::token(&self.ctx, &params(pairs), &presented, &self.source())
            .await
            .map(|(_, issued)| issued)
    }

    /// A token request of [`SPA`] (public: `client_id` in the body, no secret).
    pub async fn spa_token(&self, pairs: &[(&str, &str)]) -> Result<Issued, TokenError> {
        let presented = Presented {
            body_id: Some(SPA.to_owned()),
            ..Default::default()
        };
        token::token(&self.ctx, &params(pairs), &presented, &self.source())
            .await
            .map(|(_, issued)| issued)
    }

    /// [`SHOP`] exchanges `code` (redirect URI [`SHOP_REDIRECT`]).
    pub async fn exchange_shop(&self, code: &str) -> Result<Issued, TokenError> {
        self.shop_token(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", SHOP_REDIRECT),
        ])
        .await
    }

    /// [`SHOP`] refreshes with `refresh_token`.
    pub async fn refresh_shop(&self, refresh_token: &str) -> Result<Issued, TokenError> {
        self.shop_token(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token),
        ])
        .await
    }
}
