//! Fixed-window rate limits on the store's atomic counter, so every Lambda instance and the
//! local server share them (docs/requirements.md Q4, T2).
//!
//! Limits that protect against an outside party count per [`Source`] (the client's network
//! address) and never per the *target* of a request (a `client_id` or a `sub` is public, so a
//! limit keyed on it hands attackers a switch to lock its owner out).

use std::net::IpAddr;

use crate::clock::Timestamp;
use crate::config::Limits;
use crate::store::{Backend, Counters, StoreError};

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
        }
    }

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
        }
    }
}

/// The outcome of counting one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    Allowed,
    /// Over the limit: retry after this many seconds (the rest of the window).
    Limited {
        retry_after: i64,
    },
}

/// Counts one event for `who` under `limit` and says whether it is within its budget
/// ([`Limit::budget`]).
pub async fn count(
    store: &dyn Backend,
    limits: &Limits,
    limit: Limit,
    who: &str,
    now: Timestamp,
) -> Result<Counted, StoreError> {
    let (max, window_secs) = limit.budget(limits);
    let window = now.secs().div_euclid(window_secs);
    let expires_at = (window + 2) * window_secs;
    let name = format!("{}:{who}:{window}", limit.name());
    if store.count_event(&name, expires_at, now).await? <= max {
        Ok(Counted::Allowed)
    } else {
        let retry_after = ((window + 1) * window_secs - now.secs()).max(1);
        crate::audit::rate_limited(limit, who);
        Ok(Counted::Limited { retry_after })
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
}
