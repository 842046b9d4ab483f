//! The `events-writer` function: the audit lines the HTTP functions log (JSON lines, message
//! `audit`, in CloudWatch Logs) reach the events table (`SCANID_EVENTS_TABLE`, template.yaml's
//! `EventsTable`) that the admin API's `GET .../events` reads. A CloudWatch Logs subscription
//! filter on each function's log group hands this function the matching lines, a batch at a
//! time: `{"awslogs": {"data": base64(gzip(JSON))}}`, the JSON naming the log group and stream
//! and holding `logEvents[]` of `{id, timestamp, message}`.
//!
//! Each line is read as [`StoredEvent::from_audit_json`] reads it (the one mapping of an audit
//! line's fields), stamped by [`store_logged`] (Keycloak's type, the expiry from
//! `SCANID_EVENT_RETENTION_DAYS`, an id derived from the log event's id, so a batch handed over
//! again writes the same items, not twins) and written with `BatchWriteItem`s of 25.
//!
//! * A line that is not an audit event (or not JSON) is skipped and counted in one warning
//!   line; it never fails the batch.
//! * A payload that cannot be read (not base64, not gzip, not the JSON above, or inflating past
//!   [`MAX_INFLATED`]) is logged as an error and dropped: handing it over again would not make
//!   it readable. A `CONTROL_MESSAGE` (CloudWatch checking the destination) writes nothing.
//! * A store that does not answer (DynamoDB unavailable, throttled past the retries) is the
//!   invocation's error, so Lambda invokes it again with the same batch.

use std::io::{Read, Write};
use std::sync::Arc;

use base64::Engine;
use scanid_core::store::events::{EventStore, StoredEvent};
use scanid_core::store::StoreError;
use scanid_core::usecase::admin::events::store_logged;
use serde::{Deserialize, Serialize};

/// The most a payload may inflate to. CloudWatch Logs hands over at most about 1 MB of log
/// events at once; anything far larger is not a subscription payload.
pub const MAX_INFLATED: u64 = 8 * 1024 * 1024;

/// The event a CloudWatch Logs subscription invokes a function with.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct LogsEvent {
    /// The payload.
    pub awslogs: AwsLogs,
}

/// The payload of a [`LogsEvent`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct AwsLogs {
    /// base64 of gzip of a [`LogsData`] as JSON.
    pub data: String,
}

/// What a [`LogsEvent`] carries, once inflated.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogsData {
    /// `DATA_MESSAGE`, or `CONTROL_MESSAGE` (CloudWatch checking that the destination answers).
    pub message_type: String,
    /// The account of the log group.
    #[serde(default)]
    pub owner: String,
    /// The log group (`/aws/lambda/<function>`).
    #[serde(default)]
    pub log_group: String,
    /// The log stream (one per execution environment).
    #[serde(default)]
    pub log_stream: String,
    /// The subscription filters that matched.
    #[serde(default)]
    pub subscription_filters: Vec<String>,
    /// The lines.
    #[serde(default)]
    pub log_events: Vec<LogEvent>,
}

/// One log line of a [`LogsData`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
pub struct LogEvent {
    /// CloudWatch's id of it: unique, and the same when the batch is handed over again.
    pub id: String,
    /// When it was logged, in ms since the epoch.
    pub timestamp: i64,
    /// The line, as the function wrote it.
    pub message: String,
}

/// Why a payload could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable(pub String);

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unreadable {}

/// Inflates a subscription payload: base64, then gzip, then JSON.
pub fn decode(data: &str) -> Result<LogsData, Unreadable> {
    let gz = base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .map_err(|e| Unreadable(format!("not base64: {e}")))?;
    let mut json = Vec::new();
    flate2::read::GzDecoder::new(gz.as_slice())
        .take(MAX_INFLATED + 1)
        .read_to_end(&mut json)
        .map_err(|e| Unreadable(format!("not gzip: {e}")))?;
    if json.len() as u64 > MAX_INFLATED {
        return Err(Unreadable(format!("inflates past {MAX_INFLATED} bytes")));
    }
    serde_json::from_slice(&json)
        .map_err(|e| Unreadable(format!("not a CloudWatch Logs payload: {e}")))
}

/// A subscription payload as CloudWatch Logs sends it (gzip, then base64): for tests and the
/// sample event (`events/events-writer.json`).
pub fn encode(data: &LogsData) -> Result<String, std::io::Error> {
    let json = serde_json::to_vec(data)?;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&json)?;
    Ok(base64::engine::general_purpose::STANDARD.encode(gz.finish()?))
}

/// What became of one payload.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Written {
    /// Audit events stored.
    pub stored: usize,
    /// Lines that were not audit events.
    pub skipped: usize,
    /// The payload could not be read (dropped, logged).
    pub unreadable: bool,
    /// A control message (nothing to write).
    pub control: bool,
}

/// The writer: where events go, and how long they are kept (seconds).
#[derive(Clone)]
pub struct Writer {
    events: Arc<dyn EventStore>,
    retention: i64,
}

impl Writer {
    /// A writer to `events`, each event expiring `retention` seconds after it happened.
    pub fn new(events: Arc<dyn EventStore>, retention: i64) -> Self {
        Self { events, retention }
    }

    /// Writes the audit lines of one payload; an error only when the store did not take them
    /// (so Lambda hands the same payload over again).
    pub async fn handle(&self, event: &LogsEvent) -> Result<Written, StoreError> {
        let data = match decode(&event.awslogs.data) {
            Ok(d) => d,
            Err(e) => {
                tracing::error!(error = %e, "events writer: an unreadable payload, dropped");
                return Ok(Written {
                    unreadable: true,
                    ..Written::default()
                });
            }
        };
        if data.message_type != "DATA_MESSAGE" {
            return Ok(Written {
                control: true,
                ..Written::default()
            });
        }
        let mut lines = Vec::with_capacity(data.log_events.len());
        let mut skipped = 0;
        for line in &data.log_events {
            match StoredEvent::from_audit_json(&line.message, line.timestamp) {
                Some(e) => lines.push((
                    format!("{}\n{}\n{}", data.log_group, data.log_stream, line.id),
                    e,
                )),
                None => skipped += 1,
            }
        }
        let stored = store_logged(&*self.events, self.retention, lines).await?;
        if skipped > 0 {
            tracing::warn!(
                skipped,
                stored,
                log_group = %data.log_group,
                "events writer: lines that are not audit events skipped"
            );
        }
        Ok(Written {
            stored,
            skipped,
            ..Written::default()
        })
    }
}

/// Runs the `events-writer` function: settings from the environment (`SCANID_EVENTS_TABLE`,
/// `SCANID_EVENT_RETENTION_DAYS`); no table, key set or KMS at init.
pub async fn run() -> Result<(), lambda_http::Error> {
    crate::telemetry::init();
    let writer = writer().inspect_err(|e| tracing::error!(error = %e, "init failed"))?;
    let writer = Arc::new(writer);
    lambda_http::lambda_runtime::run(lambda_http::service_fn(
        move |event: lambda_http::LambdaEvent<LogsEvent>| {
            let writer = writer.clone();
            async move {
                let written = writer.handle(&event.payload).await.inspect_err(
                    |e| tracing::error!(error = %e, "events writer: the events table did not take the batch"),
                )?;
                Ok::<_, lambda_http::Error>(written)
            }
        },
    ))
    .await
}

fn writer() -> Result<Writer, lambda_http::Error> {
    use scanid_core::config::{ConfigError, RawSettings, Settings};
    let settings = Settings::from_raw(&RawSettings::from_env())?;
    let table = settings.events_table.clone().ok_or_else(|| ConfigError {
        setting: "SCANID_EVENTS_TABLE",
        reason: "the events writer writes the events table: set its name".into(),
    })?;
    let config = scanid_aws::env_config()?;
    Ok(Writer::new(
        Arc::new(scanid_aws::events::DynamoEvents::new(&config, table)),
        settings.lifetimes.event_retention,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(message_type: &str, lines: &[&str]) -> LogsEvent {
        let data = LogsData {
            message_type: message_type.into(),
            owner: "123456789012".into(),
            log_group: "/aws/lambda/token".into(),
            log_stream: "2026/11/28/[$LATEST]abc".into(),
            subscription_filters: vec!["audit".into()],
            log_events: lines
                .iter()
                .enumerate()
                .map(|(i, m)| LogEvent {
                    id: format!("3795342530123000000000000000000000000000000000000{i:07}"),
                    timestamp: 1_795_342_530_123,
                    message: (*m).to_owned(),
                })
                .collect(),
        };
        LogsEvent {
            awslogs: AwsLogs {
                data: encode(&data).unwrap(),
            },
        }
    }

    #[test]
    fn a_payload_decodes_as_it_was_encoded() {
        let e = payload("DATA_MESSAGE", &["a", "b"]);
        let d = decode(&e.awslogs.data).unwrap();
        assert_eq!(d.log_group, "/aws/lambda/token");
        assert_eq!(d.log_events.len(), 2);
        assert_eq!(d.log_events[1].message, "b");
    }

    #[test]
    fn unreadable_payloads_say_why() {
        let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
        assert!(decode("%%% not base64")
            .unwrap_err()
            .0
            .starts_with("not base64"));
        assert!(decode(&b64(b"{\"plain\": \"json\"}"))
            .unwrap_err()
            .0
            .starts_with("not gzip"));
        let gz = |b: &[u8]| {
            let mut g = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            g.write_all(b).unwrap();
            b64(&g.finish().unwrap())
        };
        assert!(decode(&gz(b"[1, 2]"))
            .unwrap_err()
            .0
            .starts_with("not a CloudWatch"));
        // A small payload that inflates past the bound is refused, not read whole.
        let bomb = gz(&vec![b' '; (MAX_INFLATED + 10) as usize]);
        assert!(bomb.len() < 100_000);
        assert!(decode(&bomb).unwrap_err().0.starts_with("inflates past"));
    }

    #[tokio::test]
    async fn audit_lines_are_stored_and_the_rest_skipped() {
        use scanid_core::clock::Timestamp;
        use scanid_core::store::events::{EventQuery, MemoryEvents};
        let store = Arc::new(MemoryEvents::default());
        let w = Writer::new(store.clone(), 86_400);
        let event = payload(
            "DATA_MESSAGE",
            &[
                r#"{"level":"INFO","event":"login.approved","client_id":"shop","sub":"s1","outcome":"success","message":"audit"}"#,
                "not json",
                r#"{"level":"INFO","message":"init","init_ms":3.1}"#,
                r#"{"level":"INFO","event":"token.issued","client_id":"shop","outcome":"success","detail":"client_credentials","message":"audit"}"#,
            ],
        );
        let written = w.handle(&event).await.unwrap();
        assert_eq!((written.stored, written.skipped), (2, 2));
        // Handed over again (a retry): the same two events, no twins.
        assert_eq!(w.handle(&event).await.unwrap().stored, 2);
        let q = EventQuery {
            max: 10,
            ..EventQuery::default()
        };
        let got = store
            .events(&q, Timestamp::from_millis(1_795_342_530_123))
            .await
            .unwrap();
        let mut kinds: Vec<&str> = got.iter().map(|e| e.kind.as_str()).collect();
        kinds.sort_unstable();
        assert_eq!(kinds, ["CLIENT_LOGIN", "LOGIN"]);
        for (kind, data) in [
            (
                "CONTROL_MESSAGE",
                payload("CONTROL_MESSAGE", &["CWL CONTROL MESSAGE"]),
            ),
            (
                "unreadable",
                LogsEvent {
                    awslogs: AwsLogs {
                        data: "bm90IGd6aXA=".into(),
                    },
                },
            ),
        ] {
            let w2 = w.handle(&data).await.unwrap();
            assert_eq!(w2.stored, 0, "{kind}");
            assert!(w2.control || w2.unreadable, "{kind}");
        }
    }

    #[tokio::test]
    async fn a_store_that_does_not_answer_fails_the_batch() {
        struct Down;
        #[async_trait::async_trait]
        impl EventStore for Down {
            async fn append(&self, _: Vec<StoredEvent>) -> Result<(), StoreError> {
                Err(StoreError::Unavailable("down".into()))
            }
            async fn events(
                &self,
                _: &scanid_core::store::events::EventQuery,
                _: scanid_core::clock::Timestamp,
            ) -> Result<Vec<StoredEvent>, StoreError> {
                Ok(vec![])
            }
        }
        let w = Writer::new(Arc::new(Down), 86_400);
        let line = r#"{"event":"logout","outcome":"success","message":"audit"}"#;
        assert!(w.handle(&payload("DATA_MESSAGE", &[line])).await.is_err());
        // Nothing to write: nothing to fail.
        assert!(w
            .handle(&payload("DATA_MESSAGE", &["not audit"]))
            .await
            .is_ok());
    }
}
