//! Time is passed in, so tests are exact and repeatable (STYLE.md practice 6).

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A point in time: milliseconds since the Unix epoch, UTC.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct Timestamp(i64);

impl Timestamp {
    /// The instant `ms` milliseconds after the Unix epoch.
    pub const fn from_millis(ms: i64) -> Self {
        Self(ms)
    }
    /// The instant `s` seconds after the Unix epoch (saturating).
    pub const fn from_secs(s: i64) -> Self {
        Self(s.saturating_mul(1000))
    }
    /// Milliseconds since the Unix epoch.
    pub const fn millis(self) -> i64 {
        self.0
    }
    /// Whole seconds (JWT `iat`/`exp`, DynamoDB TTL).
    pub const fn secs(self) -> i64 {
        self.0.div_euclid(1000)
    }
    /// `s` seconds later (saturating, never wrapping).
    pub const fn plus_secs(self, s: i64) -> Self {
        Self(self.0.saturating_add(s.saturating_mul(1000)))
    }

    /// ISO 8601 / RFC 3339 with milliseconds and the UTC designator: `2026-11-22T10:15:30.123Z`.
    pub fn to_rfc3339_millis(self) -> String {
        let nanos = i128::from(self.0) * 1_000_000;
        match time::OffsetDateTime::from_unix_timestamp_nanos(nanos) {
            Ok(t) => format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
                t.year(),
                u8::from(t.month()),
                t.day(),
                t.hour(),
                t.minute(),
                t.second(),
                t.millisecond()
            ),
            // Out of range for a calendar date: cannot come from a real clock.
            Err(_) => String::from("1970-01-01T00:00:00.000Z"),
        }
    }
}

/// Where "now" comes from.
pub trait Clock: Send + Sync {
    /// The current time.
    fn now(&self) -> Timestamp;
}

/// The real clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    #[allow(
        clippy::disallowed_methods,
        reason = "the real clock: the one place the service reads the system's time"
    )]
    fn now(&self) -> Timestamp {
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0);
        Timestamp(ms)
    }
}

/// A clock that only moves when told to; for tests.
#[derive(Debug)]
pub struct FixedClock(AtomicI64);

impl FixedClock {
    /// A clock stopped at `at`.
    pub fn new(at: Timestamp) -> Self {
        Self(AtomicI64::new(at.millis()))
    }
    /// Moves the clock `s` seconds on.
    pub fn advance_secs(&self, s: i64) {
        self.0.fetch_add(s * 1000, Ordering::SeqCst);
    }
    /// Puts the clock at `at`.
    pub fn set(&self, at: Timestamp) {
        self.0.store(at.millis(), Ordering::SeqCst);
    }
}

impl Clock for FixedClock {
    fn now(&self) -> Timestamp {
        Timestamp(self.0.load(Ordering::SeqCst))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_rfc3339_with_millis_and_z() {
        let t = Timestamp::from_millis(1_795_342_530_123);
        assert_eq!(t.to_rfc3339_millis(), "2026-11-22T10:15:30.123Z");
        assert_eq!(
            Timestamp::from_millis(0).to_rfc3339_millis(),
            "1970-01-01T00:00:00.000Z"
        );
    }

    #[test]
    fn secs_round_down() {
        assert_eq!(Timestamp::from_millis(1999).secs(), 1);
        assert_eq!(Timestamp::from_secs(5).plus_secs(2).secs(), 7);
    }

    #[test]
    fn fixed_clock_moves_only_when_told() {
        let c = FixedClock::new(Timestamp::from_secs(100));
        assert_eq!(c.now().secs(), 100);
        c.advance_secs(61);
        assert_eq!(c.now().secs(), 161);
    }
}
