//! OIDC Back-Channel Logout 1.0: when an SSO session ends, every client that took part in it
//! and registered a `backchannel_logout_uri` receives a signed `logout_token` (§2.4) by a
//! direct POST (§2.5).
//!
//! The core signs the tokens while the request that ended the session runs ([`notify`]) and
//! hands them to the context's delivery port ([`LogoutDelivery`]), which returns at once: the
//! core links no HTTP client and never waits for a relying party. The adapters POST them:
//! `scanid serve` in parallel in the process (`scanid-backchannel`), AWS through an SQS
//! queue read by the `backchannel-sender` function (`scanid-aws`, `scanid-lambda`). Both
//! follow one [`RetryPolicy`]: a per-attempt timeout, exponential backoff, a bounded number
//! of attempts and a bounded age (a token is worth nothing once it expires), and one
//! `backchannel_logout.failed` audit event per delivery given up.

use std::time::Duration;

use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::domain::login::SsoSession;
use crate::keys::jwt;
use crate::protocol::claims::LogoutEvents;
use crate::protocol::LogoutTokenClaims;
use crate::random;
use crate::reach::Reach;
use crate::store::ClientStore;
use crate::Context;

/// The event a logout token carries (§2.4).
pub const EVENT: &str = "http://schemas.openid.net/event/backchannel-logout";
/// How long a logout token is valid.
pub const TOKEN_LIFETIME_SECS: i64 = 120;

/// One signed logout token for one client, ready to be POSTed (and, on AWS, the body of one
/// queue message).
#[derive(Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Delivery {
    /// The client the token is for.
    pub client_id: String,
    /// The client's `backchannel_logout_uri`.
    pub uri: String,
    /// The signed logout token.
    pub token: String,
    /// The subject whose session ended (for the audit line).
    pub sub: String,
    /// When the token was signed: the age bound counts from here.
    pub issued_at: Timestamp,
    /// Which addresses the delivery may connect to ([`crate::reach`]): the URI's host is
    /// resolved at delivery and only vetted addresses are connected to.
    #[serde(default)]
    pub reach: Reach,
    /// An OpenID CIBA ping (Core §10.2) instead of a logout token: the body is
    /// `{"auth_req_id": ...}` with this id, and `token` is the client's
    /// `client_notification_token`, sent as `Authorization: Bearer`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ciba_auth_req_id: Option<String>,
    /// A Web Push message (RFC 8030) to a person's app instead: `uri` is the subscription's
    /// endpoint, `sub` its identity, `client_id` the client whose request it announces, and
    /// `token` is empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push: Option<PushMessage>,
}

/// A push message ready to be POSTed to a push service (RFC 8030 §5): encrypted for the
/// subscription (RFC 8291) and authorized with VAPID (RFC 8292) when it was made.
#[derive(Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PushMessage {
    /// The `Authorization` header: `vapid t=..., k=...`.
    pub authorization: String,
    /// The `aes128gcm` body, base64url (JSON-safe on the queue).
    pub body: String,
    /// The `TTL` header: how long the push service may keep it (s).
    pub ttl: i64,
}

impl PushMessage {
    /// The body's octets (`None`: not base64url, a message nobody here wrote).
    pub fn body_octets(&self) -> Option<Vec<u8>> {
        use base64::Engine as _;
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(&self.body)
            .ok()
    }
}

impl std::fmt::Debug for Delivery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the token.
        f.debug_struct("Delivery")
            .field("client_id", &self.client_id)
            .field("uri", &self.uri)
            .field("issued_at", &self.issued_at)
            .field("reach", &self.reach)
            .finish_non_exhaustive()
    }
}

/// The port the context holds: takes the deliveries of one ended session and returns without
/// waiting for any relying party.
#[async_trait::async_trait]
pub trait LogoutDelivery: Send + Sync {
    /// Starts (or queues) the deliveries; a delivery that cannot even be started is given up
    /// here ([`gave_up`]).
    async fn send(&self, deliveries: Vec<Delivery>);

    /// Waits for the deliveries still running in this process (an operator command, before
    /// it exits). Nothing to wait for by default.
    async fn settle(&self) {}
}

/// The port of a context with no delivery configured: every delivery is given up at once
/// (logged and audited), never silently dropped.
#[derive(Debug, Default, Clone, Copy)]
pub struct Undeliverable;

#[async_trait::async_trait]
impl LogoutDelivery for Undeliverable {
    async fn send(&self, deliveries: Vec<Delivery>) {
        for d in &deliveries {
            tracing::error!(
                client_id = %d.client_id,
                "back-channel logout: no delivery is configured in this process"
            );
            gave_up(d, GiveUp::NoDelivery);
        }
    }
}

/// How one attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attempt {
    /// A 2xx answer.
    Delivered,
    /// A 4xx answer other than 429: the relying party will not take it (§2.8); never retried.
    Refused(u16),
    /// No answer in time, no connection, a 5xx or 429: worth another try.
    Failed,
    /// The URI's host is, or resolves to, an address its reach refuses
    /// ([`crate::reach::Reach`]): nothing was sent; never retried.
    AddressRefused,
}

impl Attempt {
    /// The outcome of an answer with `status`.
    pub fn of_status(status: u16) -> Self {
        match status {
            200..=299 => Attempt::Delivered,
            429 => Attempt::Failed,
            400..=499 => Attempt::Refused(status),
            _ => Attempt::Failed,
        }
    }
}

/// Why a delivery was given up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GiveUp {
    /// The relying party answered 4xx.
    Refused,
    /// Every attempt the policy allows failed.
    Attempts,
    /// Another attempt would end after the token's age bound.
    Expired,
    /// The delivery could not be queued.
    NotQueued,
    /// The process has no delivery configured.
    NoDelivery,
    /// A queued delivery could not be read.
    Unreadable,
    /// The endpoint is at an address the client may not reach (nothing was sent).
    AddressRefused,
}

impl GiveUp {
    /// The audit line's detail.
    pub const fn detail(self) -> &'static str {
        match self {
            GiveUp::Refused => "refused",
            GiveUp::Attempts => "attempts",
            GiveUp::Expired => "expired",
            GiveUp::NotQueued => "not_queued",
            GiveUp::NoDelivery => "no_delivery",
            GiveUp::Unreadable => "unreadable",
            GiveUp::AddressRefused => "address_refused",
        }
    }
}

/// What to do after an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Delivered: nothing more.
    Done,
    /// Try again at this time.
    RetryAt(Timestamp),
    /// Stop; audit it ([`gave_up`]).
    GiveUp(GiveUp),
}

/// When to try a delivery again, and when to stop. A pure function of the attempt count and
/// the times, so it is tested with exact times; both adapters follow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// The most time one attempt (connect, send, answer) may take.
    pub attempt_timeout: Duration,
    /// The wait after the first failed attempt; it doubles after each further one.
    pub first_backoff: Duration,
    /// The longest wait between two attempts.
    pub max_backoff: Duration,
    /// Attempts in all (on AWS, the queue's `maxReceiveCount`).
    pub max_attempts: u32,
    /// No attempt may end later than this after the token was signed (it expires at
    /// [`TOKEN_LIFETIME_SECS`]).
    pub max_age: Duration,
}

impl RetryPolicy {
    /// Attempts at 0, 3, 7, 13 and 23 s at most (each up to 2 s); all over well within the
    /// token's 120 s.
    pub const DEFAULT: Self = Self {
        attempt_timeout: Duration::from_secs(2),
        first_backoff: Duration::from_secs(1),
        max_backoff: Duration::from_secs(16),
        max_attempts: 5,
        max_age: Duration::from_secs(100),
    };

    /// The wait after `failures` failed attempts (1 after the first).
    pub fn backoff(&self, failures: u32) -> Duration {
        let doublings = failures.saturating_sub(1).min(31);
        self.first_backoff
            .saturating_mul(1u32 << doublings)
            .min(self.max_backoff)
    }

    /// The latest time an attempt of a token signed at `issued` may end.
    pub fn deadline(&self, issued: Timestamp) -> Timestamp {
        Timestamp::from_millis(issued.millis().saturating_add(millis(self.max_age)))
    }

    /// Whether an attempt starting at `now` could still end in time.
    pub fn may_attempt(&self, issued: Timestamp, now: Timestamp) -> bool {
        now.millis().saturating_add(millis(self.attempt_timeout)) <= self.deadline(issued).millis()
    }

    /// What to do once attempt number `attempts` (1 for the first) of a token signed at
    /// `issued` ended with `outcome` at `now`.
    pub fn next(&self, issued: Timestamp, attempts: u32, outcome: Attempt, now: Timestamp) -> Next {
        match outcome {
            Attempt::Delivered => Next::Done,
            Attempt::Refused(_) => Next::GiveUp(GiveUp::Refused),
            Attempt::AddressRefused => Next::GiveUp(GiveUp::AddressRefused),
            Attempt::Failed if attempts >= self.max_attempts => Next::GiveUp(GiveUp::Attempts),
            Attempt::Failed => {
                let at = Timestamp::from_millis(
                    now.millis().saturating_add(millis(self.backoff(attempts))),
                );
                if self.may_attempt(issued, at) {
                    Next::RetryAt(at)
                } else {
                    Next::GiveUp(GiveUp::Expired)
                }
            }
        }
    }
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// The audit line of a delivered token.
pub fn delivered(d: &Delivery) {
    if d.push.is_some() {
        tracing::info!(client_id = %d.client_id, "push message accepted by the push service");
        return;
    }
    let event = match d.ciba_auth_req_id {
        Some(_) => Event::CibaPing,
        None => Event::BackchannelLogout,
    };
    Audit::new(event)
        .client(&d.client_id)
        .subject(&d.sub)
        .outcome("delivered")
        .emit();
}

/// The audit line (and warning) of a delivery given up: one per delivery, at the end.
pub fn gave_up(d: &Delivery, why: GiveUp) {
    if d.push.is_some() {
        tracing::warn!(client_id = %d.client_id, uri = %d.uri, reason = why.detail(), "push message given up");
        return;
    }
    let (event, what) = match d.ciba_auth_req_id {
        Some(_) => (Event::CibaPingFailed, "CIBA ping given up"),
        None => (
            Event::BackchannelLogoutFailed,
            "back-channel logout given up",
        ),
    };
    tracing::warn!(
        client_id = %d.client_id,
        uri = %d.uri,
        reason = why.detail(),
        "{what}"
    );
    Audit::new(event)
        .client(&d.client_id)
        .subject(&d.sub)
        .outcome("failed")
        .detail(why.detail())
        .emit();
}

/// Tells the clients of `session` (which has just ended) that it is over: signs one logout
/// token per client with a `backchannel_logout_uri` and hands them to the context's port.
pub async fn notify(ctx: &Context, session: &SsoSession, now: Timestamp) {
    let mut deliveries = Vec::new();
    for client_id in &session.clients {
        let client = match ctx.store.client(client_id, now).await {
            Ok(Some((c, _))) => c,
            Ok(None) => continue,
            Err(e) => {
                tracing::warn!(error = %e, client_id = %client_id, "back-channel logout: reading the client failed");
                continue;
            }
        };
        let Some(uri) = client.backchannel_logout_uri.clone() else {
            continue;
        };
        let reach = Reach::of(
            ctx.settings.local_development(),
            client.registration.is_some(),
        );
        let claims = LogoutTokenClaims {
            iss: ctx.settings.issuer(),
            aud: client.client_id.clone(),
            iat: now.secs(),
            exp: now.secs() + TOKEN_LIFETIME_SECS,
            jti: random::uuid_v4(ctx.random.as_ref()).to_string(),
            sub: session.sub.clone(),
            sid: session.sid.clone(),
            events: LogoutEvents::default(),
        };
        let keys = ctx.keyring().await;
        let alg = client.token_alg.unwrap_or(ctx.settings.signing_alg);
        let token = match keys.signer(alg) {
            Ok(signer) => jwt::encode(signer.as_ref(), "logout+jwt", &claims).await,
            Err(e) => Err(e),
        };
        match token {
            Ok(token) => deliveries.push(Delivery {
                client_id: client.client_id.into_string(),
                uri,
                token,
                sub: session.sub.to_string(),
                issued_at: now,
                reach,
                ciba_auth_req_id: None,
                push: None,
            }),
            Err(e) => {
                tracing::warn!(error = %e, client_id = %client_id, "back-channel logout: signing failed")
            }
        }
    }
    if !deliveries.is_empty() {
        ctx.backchannel.send(deliveries).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::client::{register, NewClient};
    use crate::protocol::ClientId;
    use crate::store::ClientStore;
    use crate::testing::Builder;

    #[tokio::test]
    async fn an_ended_session_hands_one_signed_token_per_receiver_to_the_port() {
        let env = Builder::new().build().await;
        let now = env.now();
        let (rp, _) = register(
            NewClient {
                name: "Receiver".into(),
                client_id: Some("rp".into()),
                redirect_uris: vec!["https://rp.example/cb".into()],
                backchannel_logout_uri: Some("https://rp.example/bcl".into()),
                ..Default::default()
            },
            now,
            env.random.as_ref(),
        )
        .unwrap();
        env.store.create_client(&rp, now).await.unwrap();
        let (mut session, _) = SsoSession::new(&env.alice.sub, now, now, env.random.as_ref());
        // Shop has no receiver, "gone" no longer exists: only rp is told.
        session.clients = vec![
            ClientId::new("shop"),
            ClientId::new("rp"),
            ClientId::new("gone"),
        ];
        notify(&env.ctx, &session, now).await;
        let taken = env.deliveries.taken();
        assert_eq!(taken.len(), 1, "{taken:?}");
        let d = &taken[0];
        assert_eq!(
            (
                d.client_id.as_str(),
                d.uri.as_str(),
                d.sub.as_str(),
                d.issued_at
            ),
            ("rp", "https://rp.example/bcl", env.alice.sub.as_str(), now)
        );
        let claims: serde_json::Map<String, serde_json::Value> = jwt::verify(
            &crate::testing::keyring(),
            &d.token,
            &env.ctx.settings.issuer(),
            now,
        )
        .unwrap();
        assert_eq!(claims["aud"], "rp");
        assert_eq!(claims["sid"], session.sid.as_str());
        assert_eq!(claims["iat"], now.secs());
        assert_eq!(claims["exp"], now.secs() + TOKEN_LIFETIME_SECS);
        // A delivery serializes (the queue message) without losing anything.
        let back: Delivery = serde_json::from_str(&serde_json::to_string(d).unwrap()).unwrap();
        assert_eq!(&back, d);
        assert!(
            !format!("{d:?}").contains(&d.token),
            "Debug never shows the token"
        );
        // The operator's client may be anywhere it registered; a self-registered one only
        // at public addresses (outside local development), checked at delivery.
        assert_eq!(d.reach, Reach::Any);
        let mut own = rp.clone();
        own.client_id = ClientId::new("self");
        own.registration = Some(crate::domain::client::Registration {
            access_token_hash: "h".into(),
            token_endpoint_auth_method: crate::domain::client::AuthMethod::ClientSecretBasic,
        });
        env.store.create_client(&own, now).await.unwrap();
        session.clients = vec![ClientId::new("self")];
        notify(&env.ctx, &session, now).await;
        let taken = env.deliveries.taken();
        let want = Reach::of(env.ctx.settings.local_development(), true);
        assert_eq!(
            want,
            Reach::Public,
            "the test settings are not local development"
        );
        assert_eq!(taken.last().map(|d| d.reach), Some(want));
    }

    const T0: Timestamp = Timestamp::from_secs(1_000_000);

    fn at(ms: i64) -> Timestamp {
        Timestamp::from_millis(T0.millis() + ms)
    }

    #[test]
    fn a_push_message_travels_the_queue_as_json_and_a_logout_token_keeps_its_shape() {
        let mut d = Delivery {
            client_id: "desk".into(),
            uri: "https://push.example/wpush/1".into(),
            token: String::new(),
            sub: "s".into(),
            issued_at: Timestamp::from_secs(1),
            reach: Reach::Public,
            ciba_auth_req_id: None,
            push: Some(PushMessage {
                authorization: "vapid t=a.b.c, k=K".into(),
                body: "AAEC".into(),
                ttl: 300,
            }),
        };
        let json = serde_json::to_string(&d).expect("json");
        assert_eq!(serde_json::from_str::<Delivery>(&json).expect("back"), d);
        assert_eq!(
            d.push.as_ref().and_then(PushMessage::body_octets),
            Some(vec![0, 1, 2])
        );
        d.push = None;
        let json = serde_json::to_string(&d).expect("json");
        assert!(!json.contains("\"push\""), "{json}");
    }

    #[test]
    fn answers_are_delivered_refused_or_worth_another_try() {
        assert_eq!(Attempt::of_status(200), Attempt::Delivered);
        assert_eq!(Attempt::of_status(204), Attempt::Delivered);
        assert_eq!(Attempt::of_status(400), Attempt::Refused(400));
        assert_eq!(Attempt::of_status(404), Attempt::Refused(404));
        assert_eq!(Attempt::of_status(429), Attempt::Failed);
        assert_eq!(Attempt::of_status(500), Attempt::Failed);
        assert_eq!(Attempt::of_status(503), Attempt::Failed);
        assert_eq!(Attempt::of_status(302), Attempt::Failed);
    }

    #[test]
    fn backoff_doubles_up_to_its_cap() {
        let p = RetryPolicy::DEFAULT;
        let secs: Vec<u64> = (1..=7).map(|n| p.backoff(n).as_secs()).collect();
        assert_eq!(secs, [1, 2, 4, 8, 16, 16, 16]);
        assert_eq!(p.backoff(u32::MAX), Duration::from_secs(16));
    }

    #[test]
    fn the_default_policy_tries_five_times_within_the_tokens_life() {
        let p = RetryPolicy::DEFAULT;
        // Every attempt times out (2 s): tries at 0, 3, 7, 13 and 23 s, then gives up.
        let mut start = 0;
        let mut starts = vec![start];
        for attempt in 1.. {
            let ended = start + 2_000;
            match p.next(T0, attempt, Attempt::Failed, at(ended)) {
                Next::RetryAt(t) => {
                    start = t.millis() - T0.millis();
                    starts.push(start);
                }
                Next::GiveUp(why) => {
                    assert_eq!((attempt, why), (5, GiveUp::Attempts));
                    break;
                }
                Next::Done => panic!("not delivered"),
            }
        }
        assert_eq!(starts, [0, 3_000, 7_000, 13_000, 23_000]);
        assert!(p.max_age.as_secs() + 2 < TOKEN_LIFETIME_SECS as u64);
    }

    #[test]
    fn delivered_is_done_and_refused_is_never_retried() {
        let p = RetryPolicy::DEFAULT;
        assert_eq!(p.next(T0, 1, Attempt::Delivered, at(10)), Next::Done);
        assert_eq!(p.next(T0, 4, Attempt::Delivered, at(10)), Next::Done);
        assert_eq!(
            p.next(T0, 1, Attempt::Refused(403), at(10)),
            Next::GiveUp(GiveUp::Refused)
        );
    }

    #[test]
    fn no_attempt_may_end_after_the_age_bound() {
        let p = RetryPolicy::DEFAULT;
        // Late (a slow queue): a retry 1 s on would start at 97 s and could end at 99 s.
        assert_eq!(
            p.next(T0, 1, Attempt::Failed, at(96_000)),
            Next::RetryAt(at(97_000))
        );
        // ... at 98 s it could end at exactly 100 s: still allowed.
        assert_eq!(
            p.next(T0, 1, Attempt::Failed, at(97_000)),
            Next::RetryAt(at(98_000))
        );
        // ... one millisecond later, not.
        assert_eq!(
            p.next(T0, 1, Attempt::Failed, at(97_001)),
            Next::GiveUp(GiveUp::Expired)
        );
        assert!(p.may_attempt(T0, at(98_000)));
        assert!(!p.may_attempt(T0, at(98_001)));
        assert_eq!(p.deadline(T0), at(100_000));
    }
}
