//! Logging with `tracing` for the `scanid` command and server: human-readable text (coloured
//! only on a terminal), JSON lines on request. (Lambda functions log through `scanid-lambda`.)
//!
//! Audit lines are also kept in memory ([`take_audit`]) for `scanid serve` to store them in
//! batches as events ([`crate::store::events`]): the request that wrote one never waits for it.

use std::sync::Mutex;

use tracing::field::{Field, Visit};
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

use crate::clock::Clock;
use crate::store::events::StoredEvent;

/// The most audit lines held before they are stored; past it the oldest go (the log keeps them).
const HELD: usize = 100_000;

static AUDIT: Mutex<Vec<StoredEvent>> = Mutex::new(Vec::new());

/// The audit lines collected since the last call, oldest first, without id or expiry (the
/// caller gives them).
pub fn take_audit() -> Vec<StoredEvent> {
    AUDIT
        .lock()
        .map(|mut v| std::mem::take(&mut *v))
        .unwrap_or_default()
}

/// Collects audit events ([`crate::audit`]) for [`take_audit`].
struct AuditCapture;

#[derive(Default)]
struct Fields(StoredEvent);

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        let v = Some(value.to_owned());
        match field.name() {
            "event" => self.0.name = value.to_owned(),
            "outcome" => self.0.outcome = value.to_owned(),
            "client_id" => self.0.client_id = v,
            "sub" => self.0.sub = v,
            "source" => self.0.source = v,
            "detail" => self.0.detail = v,
            "object" => self.0.object = v,
            _ => {}
        }
    }
    fn record_debug(&mut self, _: &Field, _: &dyn std::fmt::Debug) {}
}

impl<S: tracing::Subscriber> Layer<S> for AuditCapture {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        let mut f = Fields::default();
        event.record(&mut f);
        if f.0.name.is_empty() {
            return;
        }
        f.0.time = crate::clock::SystemClock.now().millis();
        if let Ok(mut held) = AUDIT.lock() {
            if held.len() >= HELD {
                held.remove(0);
            }
            held.push(f.0);
        }
    }
}

fn audit_capture<S>() -> impl Layer<S>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    // Only audit events reach it: no other callsite is enabled on its account.
    AuditCapture.with_filter(Targets::new().with_target("audit", LevelFilter::INFO))
}

fn filter() -> EnvFilter {
    EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"))
}

/// For the `scanid` command: logs to stderr, so stdout carries only the JSON results. With
/// `SCANID_LOG_FORMAT=json`, one JSON object per line (audit events included, with their fields
/// at the top level) for a log shipper.
pub fn init_cli() {
    if std::env::var("SCANID_LOG_FORMAT").is_ok_and(|f| f == "json") {
        let format = tracing_subscriber::fmt::layer()
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_writer(std::io::stderr);
        let _ = tracing_subscriber::registry()
            .with(format.with_filter(filter()))
            .with(audit_capture())
            .try_init();
    } else {
        // Colour only on a terminal: a file or a pipe gets plain text, no escape codes.
        use std::io::IsTerminal;
        let format = tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_ansi(std::io::stderr().is_terminal());
        let _ = tracing_subscriber::registry()
            .with(format.with_filter(filter()))
            .with(audit_capture())
            .try_init();
    }
}
