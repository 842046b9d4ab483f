//! The device authorization grant (RFC 8628): a device without a browser (a TV, a CLI, a
//! kiosk) asks for a `device_code` and a `user_code`, shows the code (or a QR of
//! `verification_uri_complete`), and polls the token endpoint while a person approves it with
//! the scanid app or in a browser.
//!
//! ("Device" in the rest of the code is the person's phone app; here it is the relying
//! party's device, so everything is named `device_grant` / `DeviceAuthorization` / `user_code`.)

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;
use crate::domain::authn::Method;
use crate::protocol::{ClientId, Scopes, Subject};
use crate::random::Random;

/// RFC 8628 §6.1: 20 consonants without vowels (no words) and without look-alikes.
pub(crate) const USER_CODE_ALPHABET: &[u8; 20] = b"BCDFGHJKLMNPQRSTVWXZ";
/// Characters in a user code (20^8 ≈ 2^34.6).
pub(crate) const USER_CODE_LEN: usize = 8;
/// The minimum polling interval the endpoint answers (RFC 8628 §3.2 default).
pub(crate) const INTERVAL_SECS: i64 = 5;
/// How much a poll that came too soon adds to the interval (RFC 8628 §3.5).
pub(crate) const SLOW_DOWN_SECS: i64 = 5;
/// The interval never grows past this, whatever a client does.
pub(crate) const MAX_INTERVAL_SECS: i64 = 60;
/// The default lifetime of a device code (`SCANID_DEVICE_CODE_TTL`).
pub(crate) const DEVICE_CODE_TTL_SECS: i64 = 600;
/// The record outlives the code by this long, so a late poll learns `expired_token` rather
/// than `invalid_grant`; every decision checks the code's own expiry.
pub(crate) const RECORD_GRACE_SECS: i64 = 300;

/// A fresh user code, normalized (8 letters, no dash). Rejection sampling keeps it uniform.
pub(crate) fn new_user_code(rng: &dyn Random) -> String {
    let mut out = String::with_capacity(USER_CODE_LEN);
    while out.len() < USER_CODE_LEN {
        let mut b = [0u8; 16];
        rng.fill(&mut b);
        for x in b {
            // 240 = 12 * 20: bytes at or above it would favour the first letters.
            if x < 240 && out.len() < USER_CODE_LEN {
                out.push(char::from(USER_CODE_ALPHABET[usize::from(x % 20)]));
            }
        }
    }
    out
}

/// A normalized user code as people read it: `XXXX-XXXX`.
pub(crate) fn display_user_code(code: &str) -> String {
    if code.len() == USER_CODE_LEN && code.is_ascii() {
        format!("{}-{}", &code[..4], &code[4..])
    } else {
        code.to_owned()
    }
}

/// What a person typed, normalized (RFC 8628 §6.1: case, dashes and spaces do not matter);
/// `None` when it cannot be a user code.
pub(crate) fn normalize_user_code(input: &str) -> Option<String> {
    if input.len() > 32 {
        return None;
    }
    let code: String = input
        .chars()
        .filter(|c| *c != '-' && !c.is_whitespace())
        .map(|c| c.to_ascii_uppercase())
        .collect();
    (code.len() == USER_CODE_LEN && code.bytes().all(|b| USER_CODE_ALPHABET.contains(&b)))
        .then_some(code)
}

/// Where a device authorization is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum DeviceGrantStatus {
    /// Waiting for a person.
    Pending,
    /// A person approved (on the phone, or on the phone after typing the code in a browser),
    /// with the app's device key or a passkey.
    Approved {
        sub: Subject,
        auth_time: Timestamp,
        #[serde(default)]
        approved_with: Method,
    },
    /// A person refused.
    Denied,
}

/// One device authorization request, stored under the hash of its `device_code`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceAuthorization {
    pub client_id: ClientId,
    pub scopes: Scopes,
    /// Normalized (no dash).
    pub user_code: String,
    pub created_at: Timestamp,
    pub expires_at: Timestamp,
    /// The current minimum polling interval, seconds (grows with `slow_down`).
    pub interval: i64,
    /// The last poll that changed this record (too-soon polls are measured from it).
    #[serde(default)]
    pub last_poll: Option<Timestamp>,
    pub status: DeviceGrantStatus,
    /// Where the device asked from (its address and user agent): what the app shows and the
    /// identity's recent logins record, as a browser's for a login.
    #[serde(default)]
    pub device_ip: String,
    #[serde(default)]
    pub device_user_agent: String,
    /// A backchannel authentication request (OpenID CIBA, `crate::domain::ciba`): who is
    /// asked. It has no user code; only that person's app lists it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backchannel: Option<crate::domain::ciba::Backchannel>,
}

/// What the phone must say about every device authorization (RFC 8628 §5.4; the
/// cross-device BCP's "remote phishing"): whoever holds the device gets the tokens, so a code
/// someone else sent, read out or asked for is theirs, not the person's.
pub const DEVICE_NOTICE: &str = "A device code is a request from a device. Approve only if you are holding that device (or it is in front of you) and it shows this code. Nobody needs you to approve a code they sent you, read to you or asked you to type: if that is how you got it, deny.";

/// What links the phone's approval of a device authorization (its recent-logins entry) to the
/// session its tokens get: the device code's hash, which never leaves the store.
pub(crate) fn login_link(device_code_hash: &str) -> String {
    format!("device:{device_code_hash}")
}

/// What a poll of the token endpoint gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PollDecision {
    /// `authorization_pending`; store the poll's time.
    Pending,
    /// `slow_down`; store the grown interval.
    SlowDown,
    /// `expired_token`.
    Expired,
    /// `access_denied`.
    Denied,
    /// `invalid_grant`: the code belongs to another client.
    WrongClient,
    /// Issue the tokens (and spend the code).
    Issue {
        sub: Subject,
        auth_time: Timestamp,
        method: Method,
    },
}

/// Why a person's decision could not be recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettleError {
    /// The device code expired.
    Expired,
    /// Someone decided already.
    AlreadyDecided,
}

impl DeviceAuthorization {
    pub fn new(
        client_id: ClientId,
        scopes: Scopes,
        user_code: String,
        ttl_secs: i64,
        now: Timestamp,
    ) -> Self {
        Self {
            client_id,
            scopes,
            user_code,
            created_at: now,
            expires_at: now.plus_secs(ttl_secs),
            interval: INTERVAL_SECS,
            last_poll: None,
            status: DeviceGrantStatus::Pending,
            device_ip: String::new(),
            device_user_agent: String::new(),
            backchannel: None,
        }
    }

    pub fn expired(&self, now: Timestamp) -> bool {
        now >= self.expires_at
    }

    /// Whether `sub` may decide it: anyone who holds the device's code, for a device
    /// authorization; only the person it asks, for a backchannel request.
    pub fn asks(&self, sub: &str) -> bool {
        self.backchannel
            .as_ref()
            .is_none_or(|b| b.sub.as_ref().is_some_and(|s| s.as_str() == sub))
    }

    /// The device's poll by `client_id` at `now`: what to answer, with `self` updated for
    /// the answers that change it (the poll's time, the interval).
    pub fn poll(&mut self, client_id: &str, now: Timestamp) -> PollDecision {
        if self.client_id.as_str() != client_id {
            return PollDecision::WrongClient;
        }
        if self.expired(now) {
            return PollDecision::Expired;
        }
        match &self.status {
            DeviceGrantStatus::Denied => PollDecision::Denied,
            DeviceGrantStatus::Approved {
                sub,
                auth_time,
                approved_with,
            } => PollDecision::Issue {
                sub: sub.clone(),
                auth_time: *auth_time,
                method: *approved_with,
            },
            // Only the answers that must change the record change it: a pending poll at its
            // time (at most one per interval), and a too-soon one that grows the interval (at
            // most 11 times, up to the 60 s ceiling); each records its time, and too soon is
            // measured from it. A device that polls without pause at the ceiling gets
            // `slow_down` from a record it no longer changes, so its polls write nothing.
            DeviceGrantStatus::Pending => {
                let too_soon = self
                    .last_poll
                    .is_some_and(|t| now.secs() - t.secs() < self.interval);
                if !too_soon {
                    self.last_poll = Some(now);
                    PollDecision::Pending
                } else {
                    if self.interval < MAX_INTERVAL_SECS {
                        self.interval = (self.interval + SLOW_DOWN_SECS).min(MAX_INTERVAL_SECS);
                        self.last_poll = Some(now);
                    }
                    PollDecision::SlowDown
                }
            }
        }
    }

    /// A person's decision: approve as `sub` (with the app's device key or a passkey), or
    /// refuse.
    pub fn settle(
        &mut self,
        approved_by: Option<(&str, Method)>,
        now: Timestamp,
    ) -> Result<(), SettleError> {
        if self.expired(now) {
            return Err(SettleError::Expired);
        }
        if self.status != DeviceGrantStatus::Pending {
            return Err(SettleError::AlreadyDecided);
        }
        self.status = match approved_by {
            Some((sub, with)) => DeviceGrantStatus::Approved {
                sub: Subject::new(sub),
                auth_time: now,
                approved_with: with,
            },
            None => DeviceGrantStatus::Denied,
        };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::SeededRandom;

    const T0: i64 = 1_800_000_000;

    fn da(now: Timestamp) -> DeviceAuthorization {
        DeviceAuthorization::new(
            ClientId::new("tv"),
            Scopes::from_stored(["openid"]),
            "BCDFGHJK".into(),
            600,
            now,
        )
    }

    #[test]
    fn user_codes_are_eight_letters_of_the_alphabet_and_differ() {
        let rng = SeededRandom::new(3);
        let a = new_user_code(&rng);
        let b = new_user_code(&rng);
        assert_eq!(a.len(), 8);
        assert!(a.bytes().all(|c| USER_CODE_ALPHABET.contains(&c)));
        assert_ne!(a, b);
        assert_eq!(display_user_code("BCDFGHJK"), "BCDF-GHJK");
    }

    #[test]
    fn typed_codes_normalize_case_dashes_and_spaces() {
        assert_eq!(
            normalize_user_code("bcdf-ghjk").as_deref(),
            Some("BCDFGHJK")
        );
        assert_eq!(
            normalize_user_code(" BCDF GHJK ").as_deref(),
            Some("BCDFGHJK")
        );
        assert_eq!(normalize_user_code("BCDF-GHJ"), None, "too short");
        assert_eq!(normalize_user_code("BCDF-GHJA"), None, "a vowel");
        assert_eq!(normalize_user_code("ＢCDF-GHJK"), None, "not ASCII");
        assert_eq!(normalize_user_code(&"B".repeat(40)), None);
    }

    #[test]
    fn polls_pending_then_slow_down_when_too_soon() {
        let t0 = Timestamp::from_secs(T0);
        let mut d = da(t0);
        assert_eq!(d.poll("tv", t0), PollDecision::Pending);
        assert_eq!(d.poll("tv", t0.plus_secs(5)), PollDecision::Pending);
        assert_eq!(d.poll("tv", t0.plus_secs(7)), PollDecision::SlowDown);
        assert_eq!(d.interval, 10, "RFC 8628 §3.5: 5 s more");
        assert_eq!(d.poll("tv", t0.plus_secs(12)), PollDecision::SlowDown);
        assert_eq!(d.interval, 15);
        assert_eq!(d.poll("tv", t0.plus_secs(27)), PollDecision::Pending);
    }

    #[test]
    fn polls_without_pause_stop_changing_the_record_at_the_ceiling() {
        let t0 = Timestamp::from_secs(T0);
        let mut d = da(t0);
        assert_eq!(d.poll("tv", t0), PollDecision::Pending);
        let mut changes = 0;
        for i in 0..10_000 {
            let before = d.clone();
            let answer = d.poll("tv", t0.plus_secs(i / 1000));
            assert_eq!(answer, PollDecision::SlowDown);
            changes += usize::from(d != before);
        }
        assert_eq!(changes, 11, "5 s to 60 s, then nothing changes");
        assert_eq!((d.interval, d.last_poll), (MAX_INTERVAL_SECS, Some(t0)));
        // Measured from the last change: a poll a full interval later is pending.
        assert_eq!(d.poll("tv", t0.plus_secs(60)), PollDecision::Pending);
    }

    #[test]
    fn wrong_client_expired_denied_and_approved() {
        let t0 = Timestamp::from_secs(T0);
        let mut d = da(t0);
        assert_eq!(d.poll("other", t0), PollDecision::WrongClient);
        assert_eq!(d.last_poll, None, "a wrong client's poll changes nothing");
        let mut late = d.clone();
        assert_eq!(late.poll("tv", t0.plus_secs(600)), PollDecision::Expired);
        assert_eq!(
            late.settle(Some(("alice", Method::DeviceKey)), t0.plus_secs(600)),
            Err(SettleError::Expired)
        );
        let mut refused = d.clone();
        refused.settle(None, t0).unwrap();
        assert_eq!(refused.poll("tv", t0), PollDecision::Denied);
        d.settle(Some(("alice", Method::PasskeyUv)), t0.plus_secs(3))
            .unwrap();
        assert_eq!(
            d.settle(None, t0.plus_secs(4)),
            Err(SettleError::AlreadyDecided)
        );
        assert_eq!(
            d.poll("tv", t0.plus_secs(4)),
            PollDecision::Issue {
                sub: Subject::new("alice"),
                auth_time: t0.plus_secs(3),
                method: Method::PasskeyUv,
            }
        );
    }
}
