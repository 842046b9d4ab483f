//! The login session behind the QR page (app protocol §2-§5; docs/requirements.md Q1-Q3).
//!
//! * Bound to the browser that opened it: the browser holds a random secret in an HttpOnly
//!   cookie; the session stores only its SHA-256 (Q1).
//! * The QR's challenge rotates BankID-style: `HMAC-SHA256(session secret, time step)`, a step
//!   of [`CHALLENGE_STEP_SECS`] seconds, a scan accepted for the last [`CHALLENGE_WINDOW`] steps (Q2).
//! * Decided at most once: `Pending` -> `Approved`/`Denied` -> `Completed`, each step a
//!   conditional write on the session's version.

use aws_lc_rs::constant_time::verify_slices_are_equal;
use aws_lc_rs::hmac;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;
use crate::domain::authorize::AuthorizationRequest;
use crate::protocol::{ClientId, QrLoginId, RedirectUri, Secret, SessionId, Subject};
use crate::random::{self, Random};

/// A login session lives at most five minutes (the default of `SCANID_LOGIN_TTL`).
pub const LOGIN_TTL_SECS: i64 = 300;
/// The record outlives the session by this long, so the page can still learn "expired" and
/// offer a fresh start; every decision checks the session's own expiry.
pub const RECORD_GRACE_SECS: i64 = 600;
/// A completed (or denied) login's record lives this long after the end: the page learns the
/// outcome at its next poll, seconds later, and then leaves. (Kept the full grace, completed
/// logins were most of the embedded store's size in the soak.)
pub const COMPLETED_GRACE_SECS: i64 = 60;
/// The QR redraws with a new challenge every few seconds.
pub const CHALLENGE_STEP_SECS: i64 = 5;
/// A scan must present one of the last three steps (at most 15 s old).
pub const CHALLENGE_WINDOW: i64 = 3;
/// How often the login page asks for its status before the app has scanned: twice per
/// challenge step, so the QR it shows is never more than 2 s behind (a scan accepts the last
/// 15 s), at a fraction of a 1 s poll's requests.
pub const POLL_IDLE_MS: u32 = 2000;
/// How often it asks once the app has scanned: the approval is seconds away, and the page
/// should follow it at once.
pub const POLL_SCANNED_MS: u32 = 1000;

/// Where the session is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum LoginStatus {
    Pending,
    /// The identity approved on the phone (or an SSO session vouched for it).
    Approved {
        sub: Subject,
        auth_time: Timestamp,
    },
    /// Denied on the phone.
    Denied,
    /// The browser was sent back to the client (with a code or an error).
    Completed,
}

/// One login session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QrLogin {
    pub id: QrLoginId,
    pub request: AuthorizationRequest,
    /// The original authorization query, to offer a fresh start when this one expires.
    pub restart_query: String,
    /// SHA-256 of the browser-binding secret, base64url.
    pub browser_hash: String,
    /// The HMAC key of the rotating challenge; never leaves the server.
    pub secret: Secret,
    pub browser_ip: String,
    pub user_agent: String,
    pub created_at: Timestamp,
    pub expires_at: Timestamp,
    /// Challenges accepted at scan time; a decision must present one of them.
    #[serde(default)]
    pub scanned: Vec<String>,
    pub status: LoginStatus,
    /// An SSO session (sid) that vouched for the identity, when the QR step was skipped.
    #[serde(default)]
    pub sso_sid: Option<SessionId>,
    /// The device authorization (RFC 8628; its device code's hash) this login approves: the
    /// phone's decision settles it, and no code is issued to a redirect URI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_grant: Option<String>,
}

/// SHA-256, base64url.
pub fn hash(s: &str) -> String {
    URL_SAFE_NO_PAD.encode(aws_lc_rs::digest::digest(
        &aws_lc_rs::digest::SHA256,
        s.as_bytes(),
    ))
}

/// Constant-time comparison of `hash(secret)` with a stored hash.
pub fn hash_matches(secret: &str, stored: &str) -> bool {
    verify_slices_are_equal(hash(secret).as_bytes(), stored.as_bytes()).is_ok()
}

impl QrLogin {
    /// A new pending session.
    pub fn new(
        ttl_secs: i64,
        request: AuthorizationRequest,
        browser_secret: &str,
        browser_ip: String,
        user_agent: String,
        now: Timestamp,
        rng: &dyn Random,
    ) -> Self {
        Self {
            id: random::token(rng, 16).into(),
            restart_query: request.restart_query(),
            request,
            browser_hash: hash(browser_secret),
            secret: Secret::new(random::token(rng, 32)),
            browser_ip,
            user_agent: user_agent.chars().take(512).collect(),
            created_at: now,
            expires_at: now.plus_secs(ttl_secs),
            scanned: Vec::new(),
            status: LoginStatus::Pending,
            sso_sid: None,
            device_grant: None,
        }
    }

    pub fn expired(&self, now: Timestamp) -> bool {
        now >= self.expires_at
    }

    /// Is `browser_secret` the one that opened this session?
    pub fn bound_to(&self, browser_secret: Option<&str>) -> bool {
        browser_secret.is_some_and(|s| hash_matches(s, &self.browser_hash))
    }

    fn challenge_at(&self, step: i64) -> String {
        let key = hmac::Key::new(hmac::HMAC_SHA256, self.secret.expose().as_bytes());
        let tag = hmac::sign(&key, &step.to_be_bytes());
        URL_SAFE_NO_PAD.encode(&tag.as_ref()[..16])
    }

    /// The challenge the QR shows now.
    pub fn current_challenge(&self, now: Timestamp) -> String {
        self.challenge_at(now.secs().div_euclid(CHALLENGE_STEP_SECS))
    }

    /// When the current challenge stops being the newest (the page redraws then).
    pub fn next_rotation(now: Timestamp) -> Timestamp {
        Timestamp::from_secs((now.secs().div_euclid(CHALLENGE_STEP_SECS) + 1) * CHALLENGE_STEP_SECS)
    }

    /// Does `challenge` belong to one of the last [`CHALLENGE_WINDOW`] steps?
    pub fn challenge_is_fresh(&self, challenge: &str, now: Timestamp) -> bool {
        let step = now.secs().div_euclid(CHALLENGE_STEP_SECS);
        (0..CHALLENGE_WINDOW).any(|i| {
            verify_slices_are_equal(self.challenge_at(step - i).as_bytes(), challenge.as_bytes())
                .is_ok()
        })
    }

    /// The app scanned `challenge`: accept it if the session is pending, live and the challenge
    /// fresh, and remember it for the decision. `false` means "not found" to the app.
    pub fn accept_scan(&mut self, challenge: &str, now: Timestamp) -> bool {
        if self.status != LoginStatus::Pending
            || self.expired(now)
            || !self.challenge_is_fresh(challenge, now)
        {
            return false;
        }
        if !self.scanned.iter().any(|c| c == challenge) {
            self.scanned.push(challenge.to_owned());
            if self.scanned.len() > 8 {
                self.scanned.remove(0);
            }
        }
        true
    }

    /// The app decided. Errors say what to answer.
    pub fn decide(
        &mut self,
        sub: &str,
        challenge: &str,
        approve: bool,
        now: Timestamp,
    ) -> Result<(), DecideError> {
        if self.expired(now)
            || !self
                .scanned
                .iter()
                .any(|c| verify_slices_are_equal(c.as_bytes(), challenge.as_bytes()).is_ok())
        {
            return Err(DecideError::NotFound);
        }
        if self.status != LoginStatus::Pending {
            return Err(DecideError::AlreadyDecided);
        }
        self.status = if approve {
            LoginStatus::Approved {
                sub: sub.into(),
                auth_time: now,
            }
        } else {
            LoginStatus::Denied
        };
        Ok(())
    }

    /// Has the app scanned this session? (It stays true after the decision.)
    pub fn is_scanned(&self) -> bool {
        !self.scanned.is_empty()
    }

    /// When the login page should ask again (`poll_ms` in its status answer).
    pub fn poll_after_ms(&self) -> u32 {
        if self.is_scanned() {
            POLL_SCANNED_MS
        } else {
            POLL_IDLE_MS
        }
    }

    /// What the browser's poll reports.
    pub fn public_status(&self, now: Timestamp) -> &'static str {
        match &self.status {
            LoginStatus::Pending if self.expired(now) => "expired",
            LoginStatus::Pending => "pending",
            LoginStatus::Approved { .. } | LoginStatus::Completed => "approved",
            LoginStatus::Denied => "denied",
        }
    }
}

/// Why a decision was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecideError {
    /// Unknown or expired session, or a challenge it never accepted.
    NotFound,
    /// The session was decided already.
    AlreadyDecided,
}

/// An SSO session: who logged in in this browser, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SsoSession {
    /// Public id: `sid` in tokens, `session_state` in responses.
    pub sid: SessionId,
    pub sub: Subject,
    pub auth_time: Timestamp,
    pub created_at: Timestamp,
    /// SHA-256 of the cookie's secret part.
    pub secret_hash: String,
    /// The clients that got a code in this session (OIDC Back-Channel Logout: who to tell
    /// when it ends).
    #[serde(default)]
    pub clients: Vec<ClientId>,
    /// The QR login that started this session, so "this wasn't me" on that login finds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login: Option<String>,
}

impl SsoSession {
    /// A new session and the cookie value (`sid.secret`) that proves it.
    pub fn new(
        sub: &str,
        auth_time: Timestamp,
        now: Timestamp,
        rng: &dyn Random,
    ) -> (Self, String) {
        let sid = random::uuid_v4(rng).to_string();
        let secret = random::token(rng, 32);
        let cookie = format!("{sid}.{secret}");
        (
            Self {
                sid: sid.into(),
                sub: sub.into(),
                auth_time,
                created_at: now,
                secret_hash: hash(&secret),
                clients: Vec::new(),
                login: None,
            },
            cookie,
        )
    }

    /// Splits a cookie value into `(sid, secret)`.
    pub fn parse_cookie(value: &str) -> Option<(&str, &str)> {
        let (sid, secret) = value.split_once('.')?;
        (sid.len() == 36 && !secret.is_empty() && secret.len() <= 64).then_some((sid, secret))
    }

    /// Expiry: idle timeout from `now`, capped by the absolute maximum.
    pub fn expires_at(&self, now: Timestamp, idle: i64, max: i64) -> i64 {
        now.plus_secs(idle)
            .secs()
            .min(self.created_at.plus_secs(max).secs())
    }
}

/// A remembered consent: the scopes an identity granted a client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Consent {
    pub scopes: Vec<String>,
    pub granted_at: Timestamp,
    /// The claims asked for by name (OIDC Core §5.5) beyond the scopes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<String>,
}

impl Consent {
    /// Whether this consent covers `scopes` and the `claims` asked for by name (each granted
    /// by name before, or released by a granted scope).
    pub fn covers(&self, scopes: &[String], claims: &[String]) -> bool {
        scopes.iter().all(|s| self.scopes.contains(s))
            && claims.iter().all(|c| {
                self.claims.contains(c)
                    || crate::domain::claims_request::scopes_release(&self.scopes, c)
            })
    }
    pub fn key(sub: &str, client_id: &str) -> String {
        format!("{sub}:{client_id}")
    }
}

/// An authorization code's grant, stored under the code's hash; single use, short-lived.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthCode {
    pub client_id: ClientId,
    pub redirect_uri: RedirectUri,
    pub scopes: Vec<String>,
    #[serde(default)]
    pub nonce: Option<String>,
    /// What the `claims` parameter asked for (OIDC Core §5.5).
    #[serde(default)]
    pub claims: crate::domain::claims_request::RequestedClaims,
    pub code_challenge: Option<String>,
    /// The resources granted (RFC 8707); the token request may narrow to one.
    #[serde(default)]
    pub resources: Vec<String>,
    pub sub: Subject,
    pub sid: SessionId,
    pub auth_time: Timestamp,
    pub issued_at: Timestamp,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::authorize::{Prompt, ResponseMode};
    use crate::random::SeededRandom;

    fn session(now: Timestamp) -> QrLogin {
        session_seeded(now, 5)
    }

    fn session_seeded(now: Timestamp, seed: u64) -> QrLogin {
        let req = AuthorizationRequest {
            client_id: "rp".into(),
            redirect_uri: "https://rp.example/cb".into(),
            response_mode: ResponseMode::Query,
            state: Some("s".into()),
            nonce: Some("n".into()),
            scopes: vec!["openid".into()],
            code_challenge: None,
            prompt: Prompt::default(),
            max_age: None,
            login_hint: None,
            ui_locales: None,
            resources: Vec::new(),
            claims: Default::default(),
        };
        QrLogin::new(
            LOGIN_TTL_SECS,
            req,
            "browser-secret",
            "127.0.0.1".into(),
            "ua".into(),
            now,
            &SeededRandom::new(seed),
        )
    }

    #[test]
    fn a_consent_covers_its_scopes_and_the_claims_it_was_given_or_its_scopes_release() {
        let v = |x: &[&str]| x.iter().map(|s| (*s).to_owned()).collect::<Vec<String>>();
        let c = Consent {
            scopes: v(&["openid", "groups"]),
            granted_at: Timestamp::from_secs(0),
            claims: v(&["address"]),
        };
        let table: &[(&[&str], &[&str], bool)] = &[
            (&["openid"], &[], true),
            (&["openid", "groups"], &["address"], true),
            // groups is released by the groups scope already.
            (&["openid"], &["groups", "address"], true),
            (&["openid", "profile"], &[], false),
            (&["openid"], &["name"], false),
            (&["openid"], &["address", "picture"], false),
        ];
        for (scopes, claims, covered) in table {
            assert_eq!(
                c.covers(&v(scopes), &v(claims)),
                *covered,
                "{scopes:?} {claims:?}"
            );
        }
        // An old record without claims reads as none given by name.
        let old: Consent =
            serde_json::from_value(serde_json::json!({ "scopes": ["openid"], "granted_at": 0 }))
                .unwrap();
        assert!(old.claims.is_empty());
        assert!(!old.covers(&v(&["openid"]), &v(&["name"])));
    }

    #[test]
    fn q2_challenges_rotate_and_age_out() {
        let t0 = Timestamp::from_secs(1_800_000_000);
        let s = session(t0);
        let c0 = s.current_challenge(t0);
        assert_eq!(c0.len(), 22, "128 bits");
        assert_eq!(s.current_challenge(t0.plus_secs(4)), c0, "same step");
        assert_ne!(s.current_challenge(t0.plus_secs(5)), c0, "rotates");
        assert!(s.challenge_is_fresh(&c0, t0.plus_secs(14)));
        assert!(
            !s.challenge_is_fresh(&c0, t0.plus_secs(15)),
            "older than three steps is dead"
        );
        assert!(!s.challenge_is_fresh("AAAAAAAAAAAAAAAAAAAAAA", t0));
        let other = session_seeded(t0, 6);
        assert_ne!(other.current_challenge(t0), c0, "per-session secret");
    }

    #[test]
    fn decided_once_and_only_for_a_scanned_challenge() {
        let t0 = Timestamp::from_secs(1_800_000_000);
        let mut s = session(t0);
        let c = s.current_challenge(t0);
        assert_eq!(
            s.decide("alice", &c, true, t0),
            Err(DecideError::NotFound),
            "not scanned yet"
        );
        assert!(s.accept_scan(&c, t0));
        // The decision may come after the challenge rotated: it was accepted at scan time.
        s.decide("alice", &c, true, t0.plus_secs(60)).unwrap();
        assert!(matches!(s.status, LoginStatus::Approved { .. }));
        assert_eq!(
            s.decide("alice", &c, false, t0.plus_secs(61)),
            Err(DecideError::AlreadyDecided)
        );
        assert!(
            !s.accept_scan(&s.current_challenge(t0.plus_secs(62)), t0.plus_secs(62)),
            "decided sessions cannot be scanned"
        );
        assert_eq!(s.public_status(t0), "approved");
    }

    #[test]
    fn the_page_polls_slowly_until_the_app_scans_then_every_second() {
        let t0 = Timestamp::from_secs(1_800_000_000);
        let mut s = session(t0);
        assert!(!s.is_scanned());
        assert_eq!(s.poll_after_ms(), POLL_IDLE_MS);
        assert!(
            !s.accept_scan("not-a-challenge", t0),
            "a wrong challenge is no scan"
        );
        assert_eq!(s.poll_after_ms(), POLL_IDLE_MS);
        let c = s.current_challenge(t0);
        assert!(s.accept_scan(&c, t0));
        assert!(s.is_scanned());
        assert_eq!(s.poll_after_ms(), POLL_SCANNED_MS);
        // Twice per challenge step: the QR on the page is at most 2 s old.
        assert!(i64::from(POLL_IDLE_MS) * 2 <= CHALLENGE_STEP_SECS * 1000);
    }

    #[test]
    fn expires_after_five_minutes() {
        let t0 = Timestamp::from_secs(1_800_000_000);
        let mut s = session(t0);
        let late = t0.plus_secs(LOGIN_TTL_SECS);
        assert!(!s.accept_scan(&s.current_challenge(late), late));
        assert_eq!(s.public_status(late), "expired");
    }

    #[test]
    fn q1_bound_to_the_opening_browser() {
        let s = session(Timestamp::from_secs(0));
        assert!(s.bound_to(Some("browser-secret")));
        assert!(!s.bound_to(Some("other")));
        assert!(!s.bound_to(None));
        assert_ne!(s.browser_hash, "browser-secret", "stored hashed");
    }

    #[test]
    fn sso_cookie_round_trip_and_expiry() {
        let rng = SeededRandom::new(1);
        let t0 = Timestamp::from_secs(1000);
        let (s, cookie) = SsoSession::new("alice", t0, t0, &rng);
        let (sid, secret) = SsoSession::parse_cookie(&cookie).unwrap();
        assert_eq!(sid, s.sid);
        assert!(hash_matches(secret, &s.secret_hash));
        assert!(SsoSession::parse_cookie("garbage").is_none());
        assert_eq!(s.expires_at(t0, 1800, 36000), 2800);
        assert_eq!(
            s.expires_at(t0.plus_secs(35000), 1800, 36000),
            37000,
            "capped by the maximum"
        );
    }
}
