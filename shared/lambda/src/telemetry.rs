//! What a Lambda function tells its operator: JSON log lines (CloudWatch Logs) and CloudWatch
//! Embedded Metric Format (EMF) lines, which CloudWatch turns into metrics with no API call and
//! no agent.
//!
//! Metrics, in the namespace `SCANID_METRICS_NAMESPACE` (default `scanid`; the template sets
//! `scanid/<stack>`):
//!
//! - per request, dimension `Function`: `Requests`, `Latency` (ms), `Faults` (5xx),
//!   `ClientErrors` (4xx); and `Errors` by `Function` and `ErrorKind` (the OAuth or JSON error
//!   code, `unavailable`, `rate_limited`, ...) when the response is an error;
//! - per audit event ([`scanid_core::audit`]), dimension `Event` (and `Event`, `Detail` where
//!   the event has a detail: the grant type of `token.issued`, the limit of `rate_limited`):
//!   `Events`. Logins are `Event=login.approved`, tokens by grant `Event=token.issued`, refresh
//!   token reuse `Event=refresh.reused` (an alarm in template.yaml).

use std::io::Write;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};
use tracing::field::{Field, Visit};
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::Layer;

/// JSON logs (no ANSI colours, no timestamp: CloudWatch adds it) and the audit metrics.
pub fn init() {
    let filter = log_filter(std::env::var("RUST_LOG").ok().as_deref());
    let _ = tracing_subscriber::registry()
        .with(log_format(std::io::stdout).with_filter(filter))
        .with(
            AuditMetrics {
                namespace: namespace(),
                sink: Box::new(emit),
            }
            // Only audit events reach it: no other callsite is enabled on its account.
            .with_filter(Targets::new().with_target("audit", LevelFilter::INFO)),
        )
        .try_init();
}

/// The functions' log lines, written to `writer`: one JSON object per line, the event's fields
/// at the top level, no timestamp (CloudWatch stamps each log event), no target (an audit line
/// is the one whose `message` is `audit`). The events writer reads the audit lines back
/// ([`crate::events_writer`]).
pub fn log_format<S, W>(writer: W) -> impl Layer<S>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    W: for<'w> tracing_subscriber::fmt::MakeWriter<'w> + Send + Sync + 'static,
{
    tracing_subscriber::fmt::layer()
        .json()
        .flatten_event(true)
        .with_current_span(false)
        .with_ansi(false)
        .without_time()
        .with_target(false)
        .with_writer(writer)
}

/// The metric namespace.
pub fn namespace() -> String {
    std::env::var("SCANID_METRICS_NAMESPACE")
        .ok()
        .filter(|n| !n.is_empty() && n.len() <= 255)
        .unwrap_or_else(|| "scanid".into())
}

/// The log filter: `RUST_LOG` as a list of `target=level` directives (or one level), parsed
/// without the regular-expression engine `EnvFilter` links; `info` when unset or malformed.
fn log_filter(directives: Option<&str>) -> Targets {
    directives
        .and_then(|d| d.parse::<Targets>().ok())
        .unwrap_or_else(|| Targets::new().with_default(LevelFilter::INFO))
}

/// One EMF metric directive: these metrics, aggregated by each of these dimension sets.
pub struct Directive<'a> {
    /// Each a list of dimension names the metrics are aggregated by.
    pub dimension_sets: &'a [&'a [&'a str]],
    /// (name, unit)
    pub metrics: &'a [(&'a str, &'a str)],
}

/// One EMF line: the directives under `_aws`, and every dimension, metric value and property
/// at the top level (`values`).
pub fn emf_line(
    namespace: &str,
    at: SystemTime,
    directives: &[Directive<'_>],
    values: &[(&str, Value)],
) -> String {
    let timestamp = at
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_millis() as u64;
    let declared: Vec<Value> = directives
        .iter()
        .map(|d| {
            json!({
                "Namespace": namespace,
                "Dimensions": d.dimension_sets,
                "Metrics": d.metrics.iter()
                    .map(|(name, unit)| json!({ "Name": name, "Unit": unit }))
                    .collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut root = Map::new();
    root.insert(
        "_aws".into(),
        json!({ "Timestamp": timestamp, "CloudWatchMetrics": declared }),
    );
    for (k, v) in values {
        root.insert((*k).into(), v.clone());
    }
    Value::Object(root).to_string()
}

/// The metrics of one request: `Requests`, `Latency`, `Faults` and `ClientErrors` by
/// `Function`, and, for an error, `Errors` by `Function` and `ErrorKind` (only that metric:
/// each dimension set of each metric is a billed custom metric).
pub fn request_line(
    namespace: &str,
    at: SystemTime,
    function: &str,
    status: u16,
    latency: Duration,
    error_kind: Option<&str>,
) -> String {
    let latency_ms = (latency.as_secs_f64() * 10_000.0).round() / 10.0;
    let fault = f64::from(u8::from(status >= 500));
    let client_error = f64::from(u8::from((400..500).contains(&status)));
    let per_function = Directive {
        dimension_sets: &[&["Function"]],
        metrics: &[
            ("Requests", "Count"),
            ("Latency", "Milliseconds"),
            ("Faults", "Count"),
            ("ClientErrors", "Count"),
        ],
    };
    let by_kind = Directive {
        dimension_sets: &[&["Function", "ErrorKind"]],
        metrics: &[("Errors", "Count")],
    };
    let mut values = vec![
        ("Function", json!(function)),
        ("Requests", json!(1.0)),
        ("Latency", json!(latency_ms)),
        ("Faults", json!(fault)),
        ("ClientErrors", json!(client_error)),
        ("Status", json!(status)),
    ];
    match error_kind {
        Some(kind) => {
            values.push(("ErrorKind", json!(kind)));
            values.push(("Errors", json!(1.0)));
            emf_line(namespace, at, &[per_function, by_kind], &values)
        }
        None => emf_line(namespace, at, &[per_function], &values),
    }
}

/// The metric of one audit event: `Events` by `Event` (and by `Event` and `Detail`).
pub fn audit_line(namespace: &str, at: SystemTime, event: &str, detail: Option<&str>) -> String {
    let mut values = vec![("Event", json!(event)), ("Events", json!(1.0))];
    let sets: &[&[&str]] = match detail {
        Some(d) => {
            values.push(("Detail", json!(d)));
            &[&["Event"], &["Event", "Detail"]]
        }
        None => &[&["Event"]],
    };
    emf_line(
        namespace,
        at,
        &[Directive {
            dimension_sets: sets,
            metrics: &[("Events", "Count")],
        }],
        &values,
    )
}

/// Writes one line to stdout, where Lambda collects it (one request at a time per process,
/// so lines never interleave within a line).
pub fn emit(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
}

/// Turns every audit event (target `audit`) into an EMF line.
struct AuditMetrics {
    namespace: String,
    sink: Box<dyn Fn(&str) + Send + Sync>,
}

#[derive(Default)]
struct AuditFields {
    event: Option<String>,
    detail: Option<String>,
}

impl Visit for AuditFields {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "event" => self.event = Some(value.to_owned()),
            "detail" => self.detail = Some(value.to_owned()),
            _ => {}
        }
    }
    fn record_debug(&mut self, _field: &Field, _value: &dyn std::fmt::Debug) {}
}

impl<S: tracing::Subscriber> Layer<S> for AuditMetrics {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        if event.metadata().target() != "audit" {
            return;
        }
        let mut fields = AuditFields::default();
        event.record(&mut fields);
        if let Some(name) = &fields.event {
            #[allow(
                clippy::disallowed_methods,
                reason = "the audit line's timestamp is wall time, as CloudWatch reads it"
            )]
            let at = SystemTime::now();
            (self.sink)(&audit_line(
                &self.namespace,
                at,
                name,
                fields.detail.as_deref(),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(1_795_342_530_123)
    }

    #[test]
    fn a_request_line_declares_its_metrics_under_the_function() {
        let line = request_line(
            "scanid/prod",
            at(),
            "token",
            200,
            Duration::from_micros(3_250),
            None,
        );
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            v,
            json!({
                "_aws": {
                    "Timestamp": 1_795_342_530_123u64,
                    "CloudWatchMetrics": [{
                        "Namespace": "scanid/prod",
                        "Dimensions": [["Function"]],
                        "Metrics": [
                            {"Name": "Requests", "Unit": "Count"},
                            {"Name": "Latency", "Unit": "Milliseconds"},
                            {"Name": "Faults", "Unit": "Count"},
                            {"Name": "ClientErrors", "Unit": "Count"},
                        ],
                    }],
                },
                "Function": "token",
                "Requests": 1.0,
                "Latency": 3.3,
                "Faults": 0.0,
                "ClientErrors": 0.0,
                "Status": 200,
            })
        );
    }

    #[test]
    fn an_error_is_counted_by_its_kind_and_a_5xx_is_a_fault() {
        let v: Value = serde_json::from_str(&request_line(
            "scanid",
            at(),
            "token",
            503,
            Duration::from_millis(40),
            Some("unavailable"),
        ))
        .unwrap();
        // Only Errors is aggregated by kind: every other metric once, by function.
        assert_eq!(
            v["_aws"]["CloudWatchMetrics"],
            json!([
                {
                    "Namespace": "scanid",
                    "Dimensions": [["Function"]],
                    "Metrics": [
                        {"Name": "Requests", "Unit": "Count"},
                        {"Name": "Latency", "Unit": "Milliseconds"},
                        {"Name": "Faults", "Unit": "Count"},
                        {"Name": "ClientErrors", "Unit": "Count"},
                    ],
                },
                {
                    "Namespace": "scanid",
                    "Dimensions": [["Function", "ErrorKind"]],
                    "Metrics": [{"Name": "Errors", "Unit": "Count"}],
                },
            ])
        );
        assert_eq!(v["ErrorKind"], "unavailable");
        assert_eq!(v["Errors"], 1.0);
        assert_eq!(v["Faults"], 1.0);
        assert_eq!(v["ClientErrors"], 0.0);
        let v: Value = serde_json::from_str(&request_line(
            "scanid",
            at(),
            "token",
            400,
            Duration::ZERO,
            Some("invalid_grant"),
        ))
        .unwrap();
        assert_eq!(
            (v["Faults"].as_f64(), v["ClientErrors"].as_f64()),
            (Some(0.0), Some(1.0))
        );
    }

    #[test]
    fn an_audit_event_is_counted_by_name_and_detail() {
        let v: Value = serde_json::from_str(&audit_line(
            "scanid",
            at(),
            "token.issued",
            Some("refresh_token"),
        ))
        .unwrap();
        assert_eq!(
            v["_aws"]["CloudWatchMetrics"][0]["Dimensions"],
            json!([["Event"], ["Event", "Detail"]])
        );
        assert_eq!(
            (v["Event"].as_str(), v["Detail"].as_str()),
            (Some("token.issued"), Some("refresh_token"))
        );
        assert_eq!(v["Events"], 1.0);
        let v: Value =
            serde_json::from_str(&audit_line("scanid", at(), "refresh.reused", None)).unwrap();
        assert_eq!(
            v["_aws"]["CloudWatchMetrics"][0]["Dimensions"],
            json!([["Event"]])
        );
        assert!(v.get("Detail").is_none());
    }

    #[test]
    fn audit_events_become_metric_lines_and_nothing_else_does() {
        use std::sync::{Arc, Mutex};
        let lines = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = lines.clone();
        let layer = AuditMetrics {
            namespace: "scanid".into(),
            sink: Box::new(move |l| sink.lock().unwrap().push(l.to_owned())),
        };
        let subscriber = tracing_subscriber::registry().with(layer);
        tracing::subscriber::with_default(subscriber, || {
            scanid_core::audit::Audit::new(scanid_core::audit::Event::TokenIssued)
                .client("shop")
                .detail("client_credentials")
                .emit();
            scanid_core::audit::Audit::new(scanid_core::audit::Event::RefreshReused).emit();
            tracing::info!(target: "other", event = "not.audit", "x");
        });
        let got: Vec<(Value, Value)> = lines
            .lock()
            .unwrap()
            .iter()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                (
                    v["Event"].clone(),
                    v.get("Detail").cloned().unwrap_or(Value::Null),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (json!("token.issued"), json!("client_credentials")),
                (json!("refresh.reused"), Value::Null),
            ]
        );
    }

    #[test]
    fn the_log_filter_reads_levels_and_targets_and_defaults_to_info() {
        assert_eq!(log_filter(None).default_level(), Some(LevelFilter::INFO));
        assert_eq!(
            log_filter(Some("debug")).default_level(),
            Some(LevelFilter::DEBUG)
        );
        let f = log_filter(Some("warn,scanid_core=trace"));
        assert!(f.would_enable("scanid_core::audit", &tracing::Level::TRACE));
        assert!(!f.would_enable("aws_smithy_runtime", &tracing::Level::INFO));
        assert_eq!(
            log_filter(Some("=nonsense=")).default_level(),
            Some(LevelFilter::INFO)
        );
    }
}
