//! An identity's login history as a decision reads and writes it ([`History`]): its places
//! and listed sessions parsed, each recent login only as far as its time, the logins
//! themselves kept as the record holds them.
//!
//! Why not the whole [`Activity`]: a QR login reads the history at the scan and at the
//! decision, and the decision writes it back with one login more. What they weigh is when the
//! recent logins were and where the identity approved from; the write puts the new entry in
//! front of the others as they were stored. Parsed whole (some twelve strings an entry, twenty
//! entries) and written back entry by entry, the history was about 7% of a whole QR login's
//! instructions; read this way, 1.4% fewer instructions a login in all (`callgrind`,
//! 2026-11-29: the read still scans every byte, and that scan is most of its cost). The
//! record written is the one [`Activity::with`] writes, byte for byte (a test holds the two
//! to each other, for entries in the form written now), so the app's listing ([`Activity`])
//! reads it as before. Entries written by older versions are kept as they were stored, not
//! rewritten in today's form; whoever reads them whole fills in the same defaults.
//!
//! Only each entry's time is checked at the read: an entry that reads no further (which
//! scanid never writes) no longer stops a decision, and the sessions the record lists are read
//! the same way when every session of the identity ends
//! ([`crate::store::SsoSessions::identity_sessions`]), so none is hidden by it.

use serde::de::Error as _;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::clock::Timestamp;
use crate::domain::identity::{
    live_sessions, repeats, with_place, with_session, Activity, ListedSession, LoginActivity,
    RECENT_LOGINS,
};

/// A login history, read for a decision ([`History::parse`]) and written with one login more
/// ([`History::with`]). Deserialized as the record is written now ([`Activity`]'s members).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct History {
    /// The recent logins, most recent first.
    pub logins: Vec<StoredLogin>,
    /// The places approved logins came from, most recent first.
    #[serde(default)]
    pub places: Vec<String>,
    /// The SSO sessions the identity's approved QR logins start ([`Activity::sessions`]).
    #[serde(default)]
    pub sessions: Vec<ListedSession>,
}

/// One recent login: when, and the entry as stored.
#[derive(Debug, Clone)]
pub struct StoredLogin {
    /// When the login was decided.
    pub at: Timestamp,
    raw: Box<RawValue>,
}

impl PartialEq for History {
    fn eq(&self, other: &Self) -> bool {
        self.places == other.places
            && self.sessions == other.sessions
            && self.logins.len() == other.logins.len()
            && self
                .logins
                .iter()
                .zip(&other.logins)
                .all(|(a, b)| a.at == b.at && a.raw.get() == b.raw.get())
    }
}
impl Eq for History {}

impl<'de> Deserialize<'de> for StoredLogin {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// The entry's time; its other members are skipped, not kept.
        #[derive(Deserialize)]
        struct At {
            at: Timestamp,
        }
        let raw = Box::<RawValue>::deserialize(d)?;
        let At { at } = serde_json::from_str(raw.get()).map_err(D::Error::custom)?;
        Ok(StoredLogin { at, raw })
    }
}

/// A history with a login added ([`History::with`]).
#[derive(Debug)]
pub struct Written {
    /// The record's body.
    pub body: String,
    /// Until when (Unix s) the last of the sessions it lists may live.
    pub sessions_until: Option<i64>,
}

/// What [`History::with`] writes: [`Activity`]'s members in its order, the logins as stored.
#[derive(Serialize)]
struct Body<'a> {
    logins: Vec<&'a RawValue>,
    places: &'a [String],
    #[serde(skip_serializing_if = "<[ListedSession]>::is_empty")]
    sessions: &'a [ListedSession],
}

impl History {
    /// The history in `body`, a stored [`Activity`], or the list of logins alone as written
    /// before the places were kept (told apart by the first token, as [`StoredActivity`]
    /// does).
    ///
    /// [`StoredActivity`]: crate::domain::identity::StoredActivity
    pub fn parse(body: &str) -> Result<History, serde_json::Error> {
        if body.trim_start().starts_with('[') {
            let logins = serde_json::from_str(body)?;
            return Ok(History {
                logins,
                ..History::default()
            });
        }
        serde_json::from_str(body)
    }

    /// The record's body with `entry` added, as [`Activity::with`] writes it: the entry first
    /// (replacing the newest when it repeats it), at most [`RECENT_LOGINS`]; its place, when
    /// approved, the most recent; `session` listed (sessions over by `now` leave the list).
    pub fn with(
        &self,
        entry: &LoginActivity,
        session: Option<&ListedSession>,
        now: Timestamp,
    ) -> Result<Written, serde_json::Error> {
        // Only an SSO login may repeat the newest entry: only then is that entry parsed.
        let repeat = match self.logins.first() {
            Some(newest) if entry.method == "sso" => {
                repeats(&serde_json::from_str(newest.raw.get())?, entry)
            }
            _ => false,
        };
        let first = serde_json::value::to_raw_value(entry)?;
        let mut logins = Vec::with_capacity(RECENT_LOGINS);
        logins.push(first.as_ref());
        logins.extend(
            self.logins
                .iter()
                .skip(usize::from(repeat))
                .take(RECENT_LOGINS - 1)
                .map(|l| l.raw.as_ref()),
        );
        let sessions = with_session(&self.sessions, session, now);
        Ok(Written {
            body: serde_json::to_string(&Body {
                logins,
                places: &with_place(&self.places, entry),
                sessions: &sessions,
            })?,
            sessions_until: sessions.iter().map(|s| s.until).max(),
        })
    }

    /// The listed sessions that may still be live at `now`.
    pub fn live_sessions(&self, now: Timestamp) -> impl Iterator<Item = &str> {
        live_sessions(&self.sessions, now)
    }

    /// The whole history, every entry parsed.
    pub fn activity(&self) -> Result<Activity, serde_json::Error> {
        Ok(Activity {
            logins: self
                .logins
                .iter()
                .map(|l| serde_json::from_str(l.raw.get()))
                .collect::<Result<_, _>>()?,
            places: self.places.clone(),
            sessions: self.sessions.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::identity::StoredActivity;

    /// A varied entry: QR or SSO logins, approved or not, with or without place and flags.
    // (`is_multiple_of` is Rust 1.87; the workspace's `rust-version` is 1.85.)
    #[allow(clippy::manual_is_multiple_of)]
    fn entry(n: u64) -> LoginActivity {
        let sso = n % 3 == 0;
        LoginActivity {
            at: Timestamp::from_secs(1_700_000_000 + i64::try_from(n).unwrap()),
            client_id: format!("client-{}", n % 2),
            client_name: "Shop \"quoted\" <b>".into(),
            outcome: if n % 4 == 1 { "denied" } else { "approved" }.into(),
            browser_ip: format!("198.51.100.{}", n % 7),
            user_agent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 \u{e9}".into(),
            location: None,
            network: None,
            place: (n % 5 != 0).then(|| format!("SE/AS6450{}", n % 3)),
            flags: if n % 2 == 0 {
                vec![crate::domain::risk::Flag::FirstFromHere]
            } else {
                Vec::new()
            },
            id: format!("id{n}"),
            method: if sso { "sso" } else { "qr" }.into(),
            login_id: (!sso).then(|| format!("login{n}")),
            sid: sso.then(|| format!("sid{}", n % 2)),
            reported_at: (n % 11 == 0).then(|| Timestamp::from_secs(5)),
        }
    }

    #[test]
    fn a_login_is_added_as_the_whole_activity_adds_it_byte_for_byte() {
        let now = Timestamp::from_secs(1_700_000_100);
        let mut activity = Activity::default();
        let mut body = serde_json::to_string(&activity).unwrap();
        for n in 0..60u64 {
            let e = entry(n);
            let session = (n % 2 == 0).then(|| ListedSession {
                sid: format!("s{}", n % 5),
                until: 1_700_000_000 + i64::try_from(n * 7 % 200).unwrap(),
            });
            let read = History::parse(&body).unwrap();
            assert_eq!(read.activity().unwrap(), activity, "entry {n}");
            let next = read.with(&e, session.as_ref(), now).unwrap();
            activity = activity.with(e, session.as_ref(), now);
            assert_eq!(
                next.body,
                serde_json::to_string(&activity).unwrap(),
                "entry {n}"
            );
            let until = activity.sessions.iter().map(|s| s.until).max();
            assert_eq!(next.sessions_until, until, "entry {n}");
            body = next.body;
        }
        assert_eq!(activity.logins.len(), RECENT_LOGINS);
        let read = History::parse(&body).unwrap();
        let times: Vec<Timestamp> = activity.logins.iter().map(|l| l.at).collect();
        let read_times: Vec<Timestamp> = read.logins.iter().map(|l| l.at).collect();
        assert_eq!(read_times, times);
    }

    #[test]
    fn an_sso_renewal_replaces_the_newest_entry_as_the_activity_does() {
        let now = Timestamp::from_secs(10);
        let mut renewal = entry(3);
        let base = Activity::default().with(renewal.clone(), None, now);
        renewal.at = Timestamp::from_secs(1_800_000_000);
        let body = serde_json::to_string(&base).unwrap();
        let next = History::parse(&body)
            .unwrap()
            .with(&renewal, None, now)
            .unwrap()
            .body;
        let want = base.with(renewal, None, now);
        assert_eq!(want.logins.len(), 1);
        assert_eq!(next, serde_json::to_string(&want).unwrap());
    }

    #[test]
    fn both_stored_shapes_read_and_bad_records_do_not() {
        let e = serde_json::to_string(&entry(1)).unwrap();
        let before = History::parse(&format!(" [{e},{e}]")).unwrap();
        assert_eq!(before.logins.len(), 2);
        assert!(before.places.is_empty());
        let now = History::parse(&format!(r#"{{"logins":[{e}],"places":["SE"]}}"#)).unwrap();
        assert_eq!(now.places, ["SE"]);
        assert_eq!(now.logins[0].at, entry(1).at);
        // The same history as the whole activity's reading of either shape.
        for body in [format!("[{e}]"), format!(r#"{{"logins":[{e}]}}"#)] {
            let whole: Activity = serde_json::from_str::<StoredActivity>(&body)
                .unwrap()
                .into();
            assert_eq!(History::parse(&body).unwrap().activity().unwrap(), whole);
        }
        for bad in [
            "\"x\"",
            "1",
            "null",
            "",
            r#"{"places":[]}"#,
            r#"[{"at":"x"}]"#,
            r#"[{"client_id":"c"}]"#,
            r#"{"logins":[1]}"#,
        ] {
            assert!(History::parse(bad).is_err(), "{bad}");
        }
    }
}
