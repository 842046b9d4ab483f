//! `GET .../events` and `GET .../admin-events`: the stored audit events
//! ([`crate::store::events`]) as Keycloak's `EventRepresentation` and
//! `AdminEventRepresentation`, newest first; and storing the audit lines a process collected
//! ([`store_captured`]).
//!
//! An event's Keycloak type is Keycloak's where it has one
//! ([`crate::domain::admin::events::keycloak_type`]), and scanid's own event name is always in
//! `details.scanid_event`. Admin events never carry a representation (a client's secret could
//! be in it).

use serde_json::{json, Map, Value};

use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::admin::events::{is_failure, keycloak_type, operation_type, resource_type};
use crate::domain::admin::{AdminRole, Need};
use crate::domain::ratelimit::Source;
use crate::service::admin::{self, authorize, AdminError};
use crate::store::events::{EventQuery, EventStore, StoredEvent};
use crate::store::StoreError;

const VIEW: Need = Need::Role(AdminRole::ViewEvents);

/// The most events one answer holds (Keycloak's `max` defaults to 100).
pub const MAX_EVENTS: usize = 1000;

/// What a query of events asks, as Keycloak's query parameters name it.
#[derive(Debug, Clone, Default)]
pub struct EventsQuery {
    /// `type` (repeatable; for admin events `operationTypes`... are not filters of scanid's).
    pub types: Vec<String>,
    /// `client` (admin events: `authClient`).
    pub client: Option<String>,
    /// `user` (admin events: `authUser`).
    pub user: Option<String>,
    /// `dateFrom`: `yyyy-MM-dd` (that day's start, UTC) or epoch milliseconds.
    pub date_from: Option<String>,
    /// `dateTo`: `yyyy-MM-dd` (through that day's end, UTC) or epoch milliseconds.
    pub date_to: Option<String>,
    /// `first`.
    pub first: usize,
    /// `max` (100 when absent, at most [`MAX_EVENTS`]).
    pub max: Option<usize>,
}

/// A `dateFrom`/`dateTo` value in epoch ms: a day's first (or, with `end`, last) millisecond,
/// or the number itself.
fn date(v: &str, end: bool) -> Result<i64, AdminError> {
    let bad =
        || AdminError::BadRequest(format!("{v:?}: a date is yyyy-MM-dd or epoch milliseconds"));
    if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        return v.parse().map_err(|_| bad());
    }
    let mut parts = v.splitn(3, '-').map(str::parse::<i64>);
    let (Some(Ok(y)), Some(Ok(m)), Some(Ok(d))) = (parts.next(), parts.next(), parts.next()) else {
        return Err(bad());
    };
    let month = time::Month::try_from(u8::try_from(m).map_err(|_| bad())?).map_err(|_| bad())?;
    let day = time::Date::from_calendar_date(
        i32::try_from(y).map_err(|_| bad())?,
        month,
        u8::try_from(d).map_err(|_| bad())?,
    )
    .map_err(|_| bad())?;
    let start = day.midnight().assume_utc().unix_timestamp() * 1000;
    Ok(if end { start + 86_400_000 - 1 } else { start })
}

fn store_query(q: &EventsQuery, admin: bool, ctx: &Context) -> Result<EventQuery, AdminError> {
    let now = ctx.clock.now();
    let oldest = now
        .plus_secs(-ctx.settings.lifetimes.event_retention)
        .millis();
    let from = q.date_from.as_deref().map(|v| date(v, false)).transpose()?;
    Ok(EventQuery {
        admin,
        types: q.types.clone(),
        client_id: q.client.clone(),
        sub: q.user.clone(),
        from: Some(from.map_or(oldest, |f| f.max(oldest))),
        to: q.date_to.as_deref().map(|v| date(v, true)).transpose()?,
        first: q.first,
        max: q.max.unwrap_or(100).min(MAX_EVENTS),
    })
}

fn events_of(ctx: &Context) -> Result<&dyn crate::store::EventStore, AdminError> {
    ctx.events
        .as_deref()
        .ok_or_else(|| AdminError::Store(StoreError::Unavailable("no event store here".into())))
}

/// `GET .../events`: login, token, logout and registration events (Keycloak's user events).
pub async fn events(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    q: &EventsQuery,
) -> Result<Vec<Value>, AdminError> {
    let caller = authorize(ctx, token, VIEW, "events.list", source).await?;
    let r: Result<_, AdminError> = async {
        let query = store_query(q, false, ctx)?;
        let found = events_of(ctx)?.events(&query, ctx.clock.now()).await?;
        Ok(found.iter().map(|e| representation(ctx, e)).collect())
    }
    .await;
    caller.finish("events.list", None, r)
}

/// `GET .../events/config`: Keycloak's `RealmEventsConfigRepresentation`, as scanid stores
/// events: both kinds (user events and the admin API's) wherever there is an event store (`scanid
/// serve` always; Lambda with its events table), each kept for `--event-retention-days`
/// (`eventsExpiration`, in seconds). It is read-only: the retention is a setting of the
/// deployment, and Keycloak's `PUT` is answered 405.
pub async fn events_config(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
) -> Result<Value, AdminError> {
    let caller = authorize(ctx, token, VIEW, "events.config", source).await?;
    caller.finish("events.config", None, Ok(admin::events_config(ctx)))
}

/// `GET .../admin-events`: the admin API's calls and refusals.
pub async fn admin_events(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    q: &EventsQuery,
) -> Result<Vec<Value>, AdminError> {
    let caller = authorize(ctx, token, VIEW, "events.admin_list", source).await?;
    let r: Result<_, AdminError> = async {
        let mut query = store_query(q, true, ctx)?;
        // Keycloak's admin events filter by operation type, not event type.
        query.types.clear();
        let found = events_of(ctx)?.events(&query, ctx.clock.now()).await?;
        Ok(found
            .iter()
            .filter(|e| {
                q.types.is_empty()
                    || q.types
                        .iter()
                        .any(|t| t == operation_type(e.detail.as_deref().unwrap_or_default()))
            })
            .map(|e| admin_representation(ctx, e))
            .collect())
    }
    .await;
    caller.finish("events.admin_list", None, r)
}

fn ip(source: Option<&str>) -> Value {
    source
        .filter(|s| s.parse::<std::net::IpAddr>().is_ok())
        .map_or(Value::Null, |s| json!(s))
}

/// Keycloak's `EventRepresentation`.
fn representation(ctx: &Context, e: &StoredEvent) -> Value {
    let mut details = Map::new();
    details.insert("scanid_event".into(), json!(e.name));
    details.insert("outcome".into(), json!(e.outcome));
    if let Some(d) = &e.detail {
        details.insert("detail".into(), json!(d));
    }
    if let Some(s) = e
        .source
        .as_deref()
        .filter(|s| s.parse::<std::net::IpAddr>().is_err())
    {
        details.insert("source".into(), json!(s));
    }
    json!({
        "id": e.id,
        "time": e.time,
        "type": e.kind,
        "realmId": ctx.settings.realm,
        "clientId": e.client_id,
        "userId": e.sub,
        "sessionId": Value::Null,
        "ipAddress": ip(e.source.as_deref()),
        "error": is_failure(&e.outcome).then_some(&e.outcome),
        "details": details,
    })
}

/// Keycloak's `AdminEventRepresentation` (never a `representation`).
fn admin_representation(ctx: &Context, e: &StoredEvent) -> Value {
    let op = e.detail.as_deref().unwrap_or_default();
    let resource = resource_type(op);
    let path = match (op.split('.').next(), &e.object) {
        (Some(kind), Some(o)) => format!("{kind}/{o}"),
        (Some(kind), None) => kind.to_owned(),
        _ => String::new(),
    };
    json!({
        "id": e.id,
        "time": e.time,
        "realmId": ctx.settings.realm,
        "authDetails": {
            "realmId": ctx.settings.realm,
            "clientId": e.client_id,
            "userId": e.sub,
            "ipAddress": ip(e.source.as_deref()),
        },
        "operationType": operation_type(op),
        "resourceType": resource,
        "resourcePath": path,
        "error": is_failure(&e.outcome).then_some(&e.outcome),
        "details": {"scanid_event": e.name, "operation": op, "outcome": e.outcome},
    })
}

/// Stores the audit lines `lines` (as [`crate::telemetry::take_audit`] collected them): each
/// gets its Keycloak type, an id (its time and random bits: unique across processes) and its
/// expiry (`--event-retention-days` after it happened). Returns how many.
pub async fn store_captured(ctx: &Context, lines: Vec<StoredEvent>) -> Result<usize, StoreError> {
    let Some(store) = ctx.events.as_deref() else {
        return Ok(0);
    };
    let n = lines.len();
    if n == 0 {
        return Ok(0);
    }
    let retention = ctx.settings.lifetimes.event_retention;
    let stamped = lines
        .into_iter()
        .map(|e| {
            let mut bits = [0u8; 8];
            ctx.random.fill(&mut bits);
            stamp(e, &hex(&bits), retention)
        })
        .collect();
    store.append(stamped).await?;
    Ok(n)
}

/// Stores audit lines read back from a log (the Lambda `events-writer`: CloudWatch Logs hands
/// it the functions' audit lines), each with the key of its log record (its log group, stream
/// and log event id): stamped as [`store_captured`] does, but with an id derived from that key,
/// so the same lines handed over again (Lambda retries a failed batch) are written over
/// themselves, not twice. `retention` is `--event-retention-days`, in seconds. Returns how many.
pub async fn store_logged(
    store: &dyn EventStore,
    retention: i64,
    lines: Vec<(String, StoredEvent)>,
) -> Result<usize, StoreError> {
    let n = lines.len();
    if n == 0 {
        return Ok(0);
    }
    let stamped = lines
        .into_iter()
        .map(|(key, e)| {
            let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, key.as_bytes());
            let tail = hex(digest.as_ref().get(..8).unwrap_or_default());
            stamp(e, &tail, retention)
        })
        .collect();
    store.append(stamped).await?;
    Ok(n)
}

/// An event's id (`{time ms, 13 digits}-{tail}`), Keycloak type and expiry.
fn stamp(mut e: StoredEvent, tail: &str, retention: i64) -> StoredEvent {
    e.id = format!("{:013}-{tail}", e.time);
    e.kind = keycloak_type(&e.name, &e.outcome, e.detail.as_deref());
    e.expires_at = Timestamp::from_millis(e.time).plus_secs(retention).secs();
    e
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::date;

    #[tokio::test]
    async fn logged_lines_get_ids_from_their_keys_so_a_retry_writes_no_twin() {
        use crate::clock::Timestamp;
        use crate::store::events::{EventQuery, EventStore, MemoryEvents, StoredEvent};
        let store = MemoryEvents::default();
        let line = |name: &str, outcome: &str| StoredEvent {
            time: 1_795_342_530_123,
            name: name.into(),
            outcome: outcome.into(),
            client_id: Some("shop".into()),
            ..StoredEvent::default()
        };
        let batch = vec![
            ("g\ns\n1".to_owned(), line("login.approved", "success")),
            ("g\ns\n2".to_owned(), line("login.denied", "denied")),
        ];
        assert_eq!(
            super::store_logged(&store, 86_400, batch.clone())
                .await
                .ok(),
            Some(2)
        );
        assert_eq!(
            super::store_logged(&store, 86_400, batch).await.ok(),
            Some(2)
        );
        let q = EventQuery {
            max: 10,
            ..EventQuery::default()
        };
        let got = store
            .events(&q, Timestamp::from_millis(1_795_342_530_123))
            .await
            .unwrap();
        assert_eq!(got.len(), 2, "{got:?}");
        let mut kinds: Vec<&str> = got.iter().map(|e| e.kind.as_str()).collect();
        kinds.sort_unstable();
        assert_eq!(kinds, ["LOGIN", "LOGIN_ERROR"]);
        assert!(got
            .iter()
            .all(|e| e.id.starts_with("1795342530123-") && e.id.len() == 30));
        assert!(got.iter().all(|e| e.expires_at == 1_795_342_530 + 86_400));
        let later = Timestamp::from_millis(1_795_342_530_123 + 86_401_000);
        assert!(store.events(&q, later).await.unwrap().is_empty());
    }

    #[test]
    fn dates_are_days_or_milliseconds() {
        assert_eq!(date("1970-01-02", false).ok(), Some(86_400_000));
        assert_eq!(date("1970-01-01", true).ok(), Some(86_399_999));
        assert_eq!(date("1234", false).ok(), Some(1234));
        assert!(date("yesterday", false).is_err());
        assert!(date("2026-13-01", false).is_err());
    }
}
