//! Stored audit events (issue 37): the audit lines of [`crate::audit`], kept so that the admin
//! API can answer "who logged in to the shop yesterday" (Keycloak's `GET .../events` and
//! `.../admin-events`).
//!
//! Events are written in batches, never on a request's path: under `scanid serve` the audit
//! lines are collected in memory ([`crate::telemetry`]) and appended every second; on Lambda the
//! JSON audit lines already in CloudWatch Logs reach the events table through a subscription
//! filter (see the book's admin-api.md). Each event expires after the retention
//! (`--event-retention-days`): the embedded store deletes it in its sweep, DynamoDB by TTL, and
//! every read checks the expiry.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::StoreError;
use crate::clock::Timestamp;

/// One stored audit event.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredEvent {
    /// Unique per event: `{time in ms, 13 digits}-{random}`, so ids sort by time (DynamoDB
    /// sorts a partition by it) and break ties of equal times.
    pub id: String,
    /// When it happened, in milliseconds since the epoch.
    pub time: i64,
    /// scanid's event name (`login.approved`, ...).
    pub name: String,
    /// Keycloak's type of it (`LOGIN`, ...: [`crate::domain::admin::events::keycloak_type`]).
    #[serde(rename = "type")]
    pub kind: String,
    /// The client concerned (for an admin call: the caller).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// The identity concerned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub: Option<String>,
    /// Where it came from (an address, or who acted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// `success` or why not.
    pub outcome: String,
    /// A short fixed explanation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// What an admin call acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// Unix seconds after which it reads as absent.
    pub expires_at: i64,
}

impl StoredEvent {
    /// Whether this is an admin event (a call of the admin API, or its refusal).
    pub fn is_admin(&self) -> bool {
        self.name.starts_with("admin.")
    }

    /// Takes the audit line's field `field` (as [`crate::audit::Audit::emit`] names them:
    /// `event`, `outcome`, `client_id`, `sub`, `source`, `detail`, `object`); any other field
    /// is not the event's. The one mapping of an audit line to an event: the in-process capture
    /// ([`crate::telemetry`]) and the log reader ([`StoredEvent::from_audit_json`]) both use it.
    pub fn set_audit_field(&mut self, field: &str, value: &str) {
        let v = || Some(value.to_owned());
        match field {
            "event" => self.name = value.to_owned(),
            "outcome" => self.outcome = value.to_owned(),
            "client_id" => self.client_id = v(),
            "sub" => self.sub = v(),
            "source" => self.source = v(),
            "detail" => self.detail = v(),
            "object" => self.object = v(),
            _ => {}
        }
    }

    /// The event of one audit line as a JSON log line writes it (the Lambda functions'
    /// format, and `scanid` with `SCANID_LOG_FORMAT=json`: the fields at the top level, the
    /// message `audit`), at `time` (ms; the log line carries none, its log event does); `None`
    /// for any other line: not JSON, not an audit line, or one without an event name. Its id,
    /// type and expiry are the caller's to give.
    pub fn from_audit_json(line: &str, time: i64) -> Option<StoredEvent> {
        let serde_json::Value::Object(fields) = serde_json::from_str(line.trim()).ok()? else {
            return None;
        };
        let is_audit = |k: &str| fields.get(k).and_then(|v| v.as_str()) == Some("audit");
        if !is_audit("message") && !is_audit("target") {
            return None;
        }
        let mut e = StoredEvent {
            time,
            ..StoredEvent::default()
        };
        for (k, v) in &fields {
            if let Some(v) = v.as_str() {
                e.set_audit_field(k, v);
            }
        }
        (!e.name.is_empty() && !e.outcome.is_empty()).then_some(e)
    }
}

/// Which events a query wants; every filter given must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventQuery {
    /// Admin events (`admin.*`) or the others.
    pub admin: bool,
    /// Keycloak event types, any of them (empty: every type).
    pub types: Vec<String>,
    /// The client.
    pub client_id: Option<String>,
    /// The identity.
    pub sub: Option<String>,
    /// At or after, in ms.
    pub from: Option<i64>,
    /// At or before, in ms.
    pub to: Option<i64>,
    /// Skip this many of the matches (newest first).
    pub first: usize,
    /// At most this many.
    pub max: usize,
}

impl EventQuery {
    /// Whether `e` matches every filter (not `first`/`max`), and is live at `now`.
    pub fn matches(&self, e: &StoredEvent, now: Timestamp) -> bool {
        e.expires_at > now.secs()
            && e.is_admin() == self.admin
            && (self.types.is_empty() || self.types.contains(&e.kind))
            && self
                .client_id
                .as_ref()
                .is_none_or(|c| e.client_id.as_ref() == Some(c))
            && self.sub.as_ref().is_none_or(|s| e.sub.as_ref() == Some(s))
            && self.from.is_none_or(|f| e.time >= f)
            && self.to.is_none_or(|t| e.time <= t)
    }
}

/// Newest first; equal times by id, later first.
pub fn newest_first(a: &StoredEvent, b: &StoredEvent) -> std::cmp::Ordering {
    (b.time, &b.id).cmp(&(a.time, &a.id))
}

/// Where audit events are kept.
#[async_trait]
pub trait EventStore: Send + Sync {
    /// Stores `events` (a batch; the same id written twice is one event).
    async fn append(&self, events: Vec<StoredEvent>) -> Result<(), StoreError>;
    /// The live events that match `query`, newest first, `first` skipped, at most `max`.
    async fn events(
        &self,
        query: &EventQuery,
        now: Timestamp,
    ) -> Result<Vec<StoredEvent>, StoreError>;
}

/// Events in memory (tests, and the suite's reference).
#[cfg(any(test, feature = "test-support"))]
#[derive(Debug, Default)]
pub struct MemoryEvents(std::sync::Mutex<std::collections::BTreeMap<String, StoredEvent>>);

#[cfg(any(test, feature = "test-support"))]
#[async_trait]
impl EventStore for MemoryEvents {
    async fn append(&self, events: Vec<StoredEvent>) -> Result<(), StoreError> {
        let mut m = self
            .0
            .lock()
            .map_err(|_| StoreError::Unavailable("poisoned".into()))?;
        for e in events {
            m.insert(e.id.clone(), e);
        }
        Ok(())
    }
    async fn events(
        &self,
        query: &EventQuery,
        now: Timestamp,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let m = self
            .0
            .lock()
            .map_err(|_| StoreError::Unavailable("poisoned".into()))?;
        let mut all: Vec<_> = m
            .values()
            .filter(|e| query.matches(e, now))
            .cloned()
            .collect();
        all.sort_by(newest_first);
        Ok(all.into_iter().skip(query.first).take(query.max).collect())
    }
}

#[cfg(test)]
mod tests {
    crate::event_suite!(async { (crate::store::events::MemoryEvents::default(), ()) });

    use super::StoredEvent;

    #[test]
    fn an_audit_json_line_is_an_event_and_other_lines_are_not() {
        let line = r#"{"level":"INFO","event":"login.approved","client_id":"shop","sub":"s1","outcome":"success","message":"audit"}"#;
        let e = StoredEvent::from_audit_json(&format!("{line}\n"), 1234).unwrap();
        assert_eq!(
            (e.name.as_str(), e.outcome.as_str(), e.time),
            ("login.approved", "success", 1234)
        );
        assert_eq!(
            (e.client_id.as_deref(), e.sub.as_deref(), e.detail),
            (Some("shop"), Some("s1"), None)
        );
        // The CLI's JSON lines name the target.
        let cli = r#"{"level":"INFO","target":"audit","fields":{},"event":"key.rotated","outcome":"success","message":"x"}"#;
        assert!(StoredEvent::from_audit_json(cli, 1).is_some());
        for other in [
            "",
            "init",
            "[1,2]",
            r#"{"message":"init","event":"login.approved","outcome":"success"}"#,
            r#"{"message":"audit","outcome":"success"}"#,
            r#"{"message":"audit","event":"login.approved"}"#,
            r#"{"message":"audit","event":7,"outcome":"success"}"#,
        ] {
            assert_eq!(StoredEvent::from_audit_json(other, 1), None, "{other}");
        }
    }
}
