//! Where a login came from, judged: the risk flags the app shows before the person approves
//! (issue 24), and the client's policy for each (warn, the default, or refuse).
//!
//! - `location_mismatch`: the browser's and the phone's countries are both known and differ.
//!   The network alone never raises it: a phone on mobile data and a laptop on the home or
//!   office line are on different networks in the same place every day.
//! - `first_from_here`: the browser's place (country and autonomous system, or its `/24` or
//!   `/48` without a database: [`crate::geoip::place`]) is not among the places the identity
//!   approved logins from. Not raised before the identity approved any login with a place
//!   (nothing to compare with).
//! - `high_usage`: more login attempts for the identity within an hour than the setting
//!   `SCANID_HIGH_USAGE_LOGINS_PER_HOUR` (this one included).
//!
//! The identity-based flags need the identity: without it (a scan that does not say who
//! scans) only `location_mismatch` is computed; the decision always knows the identity.

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;
use crate::geoip::Geo;

/// A risk flag, in the order the app lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flag {
    /// The browser's and the phone's countries are both known and differ.
    LocationMismatch,
    /// The identity never approved a login from the browser's place.
    FirstFromHere,
    /// More login attempts for the identity within an hour than the setting allows.
    HighUsage,
}

impl Flag {
    /// Every flag, in the app's order.
    pub const ALL: [Flag; 3] = [Flag::LocationMismatch, Flag::FirstFromHere, Flag::HighUsage];

    /// The flag's wire name (`location_mismatch`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            Flag::LocationMismatch => "location_mismatch",
            Flag::FirstFromHere => "first_from_here",
            Flag::HighUsage => "high_usage",
        }
    }

    /// A flag by its wire name.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.as_str() == s)
    }

    /// A comma-separated list of flag names (`--refuse-on`); `none` or nothing: no flag.
    /// Sorted, without repeats.
    pub fn parse_list(s: &str) -> Result<Vec<Flag>, String> {
        let mut out = Vec::new();
        for name in s.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if name == "none" {
                continue;
            }
            out.push(Self::parse(name).ok_or_else(|| {
                format!(
                    "{name:?}: expected {} (comma-separated) or none",
                    Self::ALL.map(Flag::as_str).join(", ")
                )
            })?);
        }
        out.sort();
        out.dedup();
        Ok(out)
    }
}

impl std::fmt::Display for Flag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the identity's recent logins say, when the identity is known.
#[derive(Debug, Clone, Copy)]
pub struct History<'a> {
    /// The places the identity approved logins from (most recent first, bounded).
    pub approved_places: &'a [String],
    /// When its recent login attempts were decided (approved, denied, refused...).
    pub attempts: &'a [Timestamp],
}

/// How long `high_usage` looks back.
pub const HIGH_USAGE_WINDOW_SECS: i64 = 3600;

/// The flags of a login started in a browser at `browser` (its place `browser_place`) and
/// looked at from a phone at `phone`; `history` is the identity's, when known.
pub fn flags(
    browser: &Geo,
    browser_place: &str,
    phone: &Geo,
    history: Option<History<'_>>,
    high_usage_per_hour: u64,
    now: Timestamp,
) -> Vec<Flag> {
    let mut out = Vec::new();
    let country = |g: &Geo| g.location.as_ref().and_then(|l| l.country_code.clone());
    if let (Some(b), Some(p)) = (country(browser), country(phone)) {
        if b != p {
            out.push(Flag::LocationMismatch);
        }
    }
    if let Some(h) = history {
        if !h.approved_places.is_empty() && !h.approved_places.iter().any(|p| p == browser_place) {
            out.push(Flag::FirstFromHere);
        }
        let since = now.secs() - HIGH_USAGE_WINDOW_SECS;
        let recent = h
            .attempts
            .iter()
            .filter(|t| t.secs() > since && t.secs() <= now.secs())
            .count() as u64;
        // This attempt counts too.
        if recent + 1 > high_usage_per_hour {
            out.push(Flag::HighUsage);
        }
    }
    out
}

/// The flags among `flags` the client's policy refuses (`refuse_on`); empty: approvable.
pub fn refusing(flags: &[Flag], refuse_on: &[Flag]) -> Vec<Flag> {
    flags
        .iter()
        .copied()
        .filter(|f| refuse_on.contains(f))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geoip::{Location, Network};

    fn at(country: Option<&str>, asn: Option<u32>) -> Geo {
        Geo {
            location: country.map(|c| Location {
                city: None,
                country: None,
                country_code: Some(c.into()),
            }),
            network: asn.map(|asn| Network { asn, org: None }),
        }
    }

    const NOW: i64 = 1_800_000_000;

    fn times(ago: &[i64]) -> Vec<Timestamp> {
        ago.iter().map(|a| Timestamp::from_secs(NOW - a)).collect()
    }

    #[test]
    fn the_rules_table() {
        let se = at(Some("SE"), Some(64500));
        let se_mobile = at(Some("SE"), Some(64510));
        let ng = at(Some("NG"), Some(64501));
        let unknown = at(None, None);
        let asn_only = at(None, Some(64501));
        let home = vec!["SE/AS64500".to_owned()];
        let none: Vec<String> = vec![];
        let few = times(&[10, 100]);
        let nine = times(&[1, 2, 3, 4, 5, 6, 7, 8, 9]);
        let ten = times(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        let old = times(&[3600, 3601, 3602, 4000, 5000, 6000, 7000, 8000, 9000, 9500]);
        use Flag::*;
        #[allow(clippy::type_complexity)]
        let cases: Vec<(
            &str,
            &Geo,
            &str,
            &Geo,
            Option<(&[String], &[Timestamp])>,
            Vec<Flag>,
        )> = vec![
            (
                "same country, other network",
                &se,
                "SE/AS64500",
                &se_mobile,
                None,
                vec![],
            ),
            (
                "countries differ",
                &ng,
                "NG/AS64501",
                &se,
                None,
                vec![LocationMismatch],
            ),
            (
                "browser unknown",
                &unknown,
                "203.0.113.0/24",
                &se,
                None,
                vec![],
            ),
            ("phone unknown", &ng, "NG/AS64501", &unknown, None, vec![]),
            (
                "network alone never mismatches",
                &asn_only,
                "-/AS64501",
                &se,
                None,
                vec![],
            ),
            (
                "known place",
                &se,
                "SE/AS64500",
                &se,
                Some((&home, &few)),
                vec![],
            ),
            (
                "new place",
                &ng,
                "NG/AS64501",
                &se,
                Some((&home, &few)),
                vec![LocationMismatch, FirstFromHere],
            ),
            (
                "nothing approved yet",
                &ng,
                "NG/AS64501",
                &ng,
                Some((&none, &few)),
                vec![],
            ),
            (
                "ten attempts with this one",
                &se,
                "SE/AS64500",
                &se,
                Some((&home, &nine)),
                vec![],
            ),
            (
                "eleven attempts with this one",
                &se,
                "SE/AS64500",
                &se,
                Some((&home, &ten)),
                vec![HighUsage],
            ),
            (
                "attempts older than an hour",
                &se,
                "SE/AS64500",
                &se,
                Some((&home, &old)),
                vec![],
            ),
            (
                "everything",
                &ng,
                "NG/AS64501",
                &se,
                Some((&home, &ten)),
                vec![LocationMismatch, FirstFromHere, HighUsage],
            ),
        ];
        for (name, browser, place, phone, history, want) in cases {
            let h = history.map(|(approved_places, attempts)| History {
                approved_places,
                attempts,
            });
            let got = flags(browser, place, phone, h, 10, Timestamp::from_secs(NOW));
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn policy_refuses_only_its_flags() {
        use Flag::*;
        assert_eq!(
            refusing(&[LocationMismatch, HighUsage], &[HighUsage]),
            vec![HighUsage]
        );
        assert!(
            refusing(&[LocationMismatch], &[]).is_empty(),
            "warn by default"
        );
        assert!(refusing(&[], &Flag::ALL).is_empty());
    }

    #[test]
    fn flag_lists_parse() {
        assert_eq!(
            Flag::parse_list("high_usage, location_mismatch,high_usage").unwrap(),
            vec![Flag::LocationMismatch, Flag::HighUsage]
        );
        assert!(Flag::parse_list("none").unwrap().is_empty());
        assert!(Flag::parse_list("").unwrap().is_empty());
        let e = Flag::parse_list("location_mismatch,vpn").unwrap_err();
        assert!(e.contains("\"vpn\""), "{e}");
        assert_eq!(
            serde_json::to_string(&Flag::FirstFromHere).unwrap(),
            "\"first_from_here\""
        );
    }
}
