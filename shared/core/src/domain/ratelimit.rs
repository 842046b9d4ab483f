//! Fixed-window rate limits on the store's atomic counter, so every Lambda instance and the
//! local server share them (docs/requirements.md Q4, T2).
//!
//! The decision only: which counter an event counts on ([`Limit::window`]) and whether a
//! count is within its budget ([`Window::decide`]). The counting is the store's
//! (`store::Counters::count_event`, one atomic increment); `service::limits::count` puts
//! the two together.
//!
//! Limits that protect against an outside party count per [`Source`] (the client's network
//! address) and never per the *target* of a request (a `client_id` or a `sub` is public, so a
//! limit keyed on it hands attackers a switch to lock its owner out).

use std::net::IpAddr;

use crate::clock::Timestamp;

/// Rate limits (docs/requirements.md Q4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Login requests per source and minute.
    pub logins_per_minute: u64,
    /// Verified app decisions per identity and minute; unverified ones per source and minute.
    pub decisions_per_minute: u64,
    /// Failed client authentications per source and minute (docs/requirements.md T2).
    pub auth_failures_per_minute: u64,
    /// App sign-ups per source and hour.
    pub signups_per_hour: u64,
    /// Name availability lookups per source and minute.
    pub name_lookups_per_minute: u64,
    /// Photo uploads per identity and hour.
    pub photo_uploads_per_hour: u64,
    /// Dynamic client registration requests per source and hour.
    pub registrations_per_hour: u64,
    /// User code look-ups (RFC 8628 §5.1: brute force) per source and minute.
    pub user_codes_per_minute: u64,
    /// The login page's passkey challenges per source and minute (each is a write).
    pub passkey_challenges_per_minute: u64,
    /// The passkey challenges one QR login may be issued (its live ones are within it).
    pub passkey_challenges_per_login: u64,
    /// Device authorizations (RFC 8628 §3.1) per source and minute.
    pub device_authorizations_per_minute: u64,
    /// Device codes started per client and hour: bounds what one client holds pending.
    pub device_codes_per_client_per_hour: u64,
    /// Backchannel authentication requests (CIBA) per client and hour.
    pub ciba_requests_per_client_per_hour: u64,
    /// Backchannel authentication requests (CIBA) per person (or per unknown hint) and hour:
    /// no one floods a person's phone.
    pub ciba_requests_per_person_per_hour: u64,
}

/// Who a rate limit counts: an IPv4 address, or an IPv6 /64 (one customer's network: a
/// single host can use any of its 2^64 addresses).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Source(String);

impl Source {
    /// The source of a request from `addr` (as API Gateway or `scanid serve` reports it).
    /// Anything that is not an IP address is kept as text (bounded), so it still counts.
    pub fn from_addr(addr: &str) -> Self {
        match addr.parse::<IpAddr>() {
            Ok(IpAddr::V4(v4)) => Self(v4.to_string()),
            Ok(IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
                Some(v4) => Self(v4.to_string()),
                None => {
                    let s = v6.segments();
                    Self(format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3]))
                }
            },
            Err(_) => {
                // At most 64 bytes of it (it becomes part of a storage key), cut on a
                // character boundary.
                let mut end = addr.len().min(64);
                while !addr.is_char_boundary(end) {
                    end -= 1;
                }
                Self(format!("raw:{}", &addr[..end]))
            }
        }
    }

    /// The source as a counter key.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a limit counts, per source or per identity; the bucket names are stable (they are
/// storage keys and audit fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// Login requests (authorization pages) per source.
    Login,
    /// Failed client authentications per source.
    ClientAuthFailure,
    /// App requests whose signature did not verify, per source.
    UnverifiedDecision,
    /// Verified decisions per identity.
    Decision,
    /// Sign-ups per source.
    Signup,
    /// Name availability lookups per source (sign-up's oracle, without its cost).
    NameLookup,
    /// Photo uploads per identity (counted once the upload's signature verified, so only the
    /// device key spends its identity's budget).
    PhotoUpload,
    /// Dynamic client registration requests (RFC 7591) per source.
    Registration,
    /// User code look-ups per source (RFC 8628 §5.1).
    UserCode,
    /// The login page's passkey challenges per source.
    PasskeyChallenge,
    /// Passkey challenges per QR login (counted on the login's id: only its own browser, which
    /// holds its cookie, can ask), over a window as long as a challenge lives.
    PasskeyChallengePerLogin,
    /// Device authorizations per source (each stores a device code and its user code).
    DeviceAuthorization,
    /// Device codes started per client: the one limit keyed on a target, because it bounds
    /// storage, not guessing. What it costs the client when spent (its devices cannot start
    /// for the rest of the hour) is the price of a bound on what it holds pending (at most
    /// twice the budget: a device code lives at most 30 minutes).
    DeviceCodesPerClient,
    /// Backchannel authentication requests (CIBA) per client: bounds what it holds pending.
    CibaPerClient,
    /// Backchannel authentication requests (CIBA) per person asked (keyed on the `sub`; on
    /// the hint itself when it names nobody, so an unknown hint is limited as a known one).
    CibaPerPerson,
}

impl Limit {
    /// How many events per how many seconds, from the configured limits.
    pub const fn budget(self, limits: &Limits) -> (u64, i64) {
        match self {
            Limit::Login => (limits.logins_per_minute, 60),
            Limit::ClientAuthFailure => (limits.auth_failures_per_minute, 60),
            Limit::UnverifiedDecision | Limit::Decision => (limits.decisions_per_minute, 60),
            Limit::Signup => (limits.signups_per_hour, 3600),
            Limit::NameLookup => (limits.name_lookups_per_minute, 60),
            Limit::PhotoUpload => (limits.photo_uploads_per_hour, 3600),
            Limit::Registration => (limits.registrations_per_hour, 3600),
            Limit::UserCode => (limits.user_codes_per_minute, 60),
            Limit::PasskeyChallenge => (limits.passkey_challenges_per_minute, 60),
            Limit::PasskeyChallengePerLogin => (
                limits.passkey_challenges_per_login,
                crate::domain::passkey::CHALLENGE_TTL_SECS,
            ),
            Limit::DeviceAuthorization => (limits.device_authorizations_per_minute, 60),
            Limit::DeviceCodesPerClient => (limits.device_codes_per_client_per_hour, 3600),
            Limit::CibaPerClient => (limits.ciba_requests_per_client_per_hour, 3600),
            Limit::CibaPerPerson => (limits.ciba_requests_per_person_per_hour, 3600),
        }
    }

    /// The limit's name (its counter's prefix, the audit line's detail).
    pub const fn name(self) -> &'static str {
        match self {
            Limit::Login => "login",
            Limit::ClientAuthFailure => "client_auth",
            Limit::UnverifiedDecision => "unverified_decision",
            Limit::Decision => "decide",
            Limit::Signup => "signup",
            Limit::NameLookup => "name_lookup",
            Limit::PhotoUpload => "photo_upload",
            Limit::Registration => "registration",
            Limit::UserCode => "user_code",
            Limit::PasskeyChallenge => "passkey_challenge",
            Limit::PasskeyChallengePerLogin => "passkey_challenge_login",
            Limit::DeviceAuthorization => "device_authorization",
            Limit::DeviceCodesPerClient => "device_codes_per_client",
            Limit::CibaPerClient => "ciba_per_client",
            Limit::CibaPerPerson => "ciba_per_person",
        }
    }
}

/// The outcome of counting one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// Under the limit: go on.
    Allowed,
    /// Over the limit: retry after this many seconds (the rest of the window).
    Limited {
        /// Seconds to wait.
        retry_after: i64,
    },
}

/// The counter one event of a limit counts on: one per limit, `who` and fixed window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// The counter's name: the limit, `who` and the window's number.
    pub counter: String,
    /// When the counter may be forgotten (Unix s): a window after this one ends.
    pub expires_at: i64,
    /// When this window ends (Unix s).
    pub ends_at: i64,
    /// The events the budget allows in one window.
    pub max: u64,
}

impl Limit {
    /// The window an event for `who` at `now` counts in ([`Limit::budget`]).
    pub fn window(self, limits: &Limits, who: &str, now: Timestamp) -> Window {
        let (max, window_secs) = self.budget(limits);
        let window = now.secs().div_euclid(window_secs);
        Window {
            counter: format!("{}:{who}:{window}", self.name()),
            expires_at: (window + 2) * window_secs,
            ends_at: (window + 1) * window_secs,
            max,
        }
    }
}

impl Window {
    /// Whether the event that brought the window's count to `count` is within its budget;
    /// over it, the wait is the rest of the window (at least 1 s).
    pub fn decide(&self, count: u64, now: Timestamp) -> Counted {
        if count <= self.max {
            Counted::Allowed
        } else {
            Counted::Limited {
                retry_after: (self.ends_at - now.secs()).max(1),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_group_ipv6_by_64_and_keep_ipv4() {
        assert_eq!(Source::from_addr("203.0.113.7").as_str(), "203.0.113.7");
        let a = Source::from_addr("2001:db8:1:2:aaaa::1");
        let b = Source::from_addr("2001:db8:1:2:ffff:1:2:3");
        let c = Source::from_addr("2001:db8:1:3::1");
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.as_str(), "2001:db8:1:2::/64");
        assert_eq!(Source::from_addr("::ffff:192.0.2.1").as_str(), "192.0.2.1");
        assert_eq!(Source::from_addr("").as_str(), "raw:");
        assert_eq!(Source::from_addr(&"x".repeat(500)).as_str().len(), 68);
        assert!(Source::from_addr(&"\u{200b}".repeat(100)).as_str().len() <= 68);
    }

    fn limits() -> Limits {
        Limits {
            logins_per_minute: 30,
            decisions_per_minute: 20,
            auth_failures_per_minute: 10,
            signups_per_hour: 5,
            name_lookups_per_minute: 60,
            photo_uploads_per_hour: 20,
            registrations_per_hour: 10,
            user_codes_per_minute: 10,
            passkey_challenges_per_minute: 30,
            passkey_challenges_per_login: 10,
            device_authorizations_per_minute: 30,
            device_codes_per_client_per_hour: 1000,
            ciba_requests_per_client_per_hour: 1000,
            ciba_requests_per_person_per_hour: 10,
        }
    }

    #[test]
    fn a_window_is_one_counter_per_limit_who_and_period() {
        let l = limits();
        let t = Timestamp::from_secs(6_000_030); // 30 s into minute 100_000
        let w = Limit::ClientAuthFailure.window(&l, "a", t);
        assert_eq!(
            w,
            Window {
                counter: "client_auth:a:100000".into(),
                expires_at: 6_000_120,
                ends_at: 6_000_060,
                max: 10,
            }
        );
        // The same minute, the same counter; the next minute, another; another who, another.
        assert_eq!(
            Limit::ClientAuthFailure.window(&l, "a", Timestamp::from_secs(6_000_059)),
            w
        );
        assert_ne!(
            Limit::ClientAuthFailure
                .window(&l, "a", Timestamp::from_secs(6_000_060))
                .counter,
            w.counter
        );
        assert_ne!(
            Limit::ClientAuthFailure.window(&l, "b", t).counter,
            w.counter
        );
        assert_ne!(Limit::Login.window(&l, "a", t).counter, w.counter);
        // An hourly limit counts by the hour.
        let h = Limit::Signup.window(&l, "a", t);
        assert_eq!(
            (h.counter.as_str(), h.ends_at, h.max),
            ("signup:a:1666", 6_001_200, 5)
        );
    }

    #[test]
    fn a_count_over_the_budget_waits_for_the_rest_of_the_window() {
        let w = Limit::ClientAuthFailure.window(&limits(), "a", Timestamp::from_secs(6_000_030));
        let now = Timestamp::from_secs(6_000_030);
        for (count, expected) in [
            (1, Counted::Allowed),
            (10, Counted::Allowed),
            (11, Counted::Limited { retry_after: 30 }),
            (1_000, Counted::Limited { retry_after: 30 }),
        ] {
            assert_eq!(w.decide(count, now), expected, "count {count}");
        }
        // At the window's very end the wait is still at least a second.
        assert_eq!(
            w.decide(11, Timestamp::from_secs(6_000_060)),
            Counted::Limited { retry_after: 1 }
        );
    }
}
