//! Logging with `tracing` for the `scanid` command and server: human-readable text (coloured
//! only on a terminal), JSON lines on request. (Lambda functions log through `scanid-lambda`.)
//!
//! Audit lines are also kept in memory ([`take_audit`]) for `scanid serve` to store them in
//! batches as events ([`crate::store::events`]): the request that wrote one never waits for it.
//! They wait in a channel, not a vector under a lock: a request hands its line over without
//! taking a lock every other request takes (std's channel is lock-free on the sending side),
//! and only the once-a-second reader takes the receiving end's lock. (Not std's bounded
//! channel: it allocates and touches all its slots at once, 20 MB for `HELD` lines.)

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Mutex, OnceLock};

use tracing::field::{Field, Visit};
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

use crate::clock::Clock;
use crate::store::events::StoredEvent;

/// The most audit lines held before they are stored; past it new ones are not kept (the log
/// has them) and counted ([`take_audit`]).
const HELD: usize = 100_000;

struct Held {
    lines: Sender<StoredEvent>,
    taken: Mutex<Receiver<StoredEvent>>,
    /// Lines sent and not yet taken.
    waiting: AtomicUsize,
    /// Lines not kept because [`HELD`] were waiting.
    dropped: AtomicU64,
}

fn held() -> &'static Held {
    static HELD_LINES: OnceLock<Held> = OnceLock::new();
    HELD_LINES.get_or_init(|| {
        let (lines, taken) = channel();
        Held {
            lines,
            taken: Mutex::new(taken),
            waiting: AtomicUsize::new(0),
            dropped: AtomicU64::new(0),
        }
    })
}

/// The audit lines collected since the last call, oldest first, without id or expiry (the
/// caller gives them), and how many were not kept since because too many were waiting.
pub fn take_audit() -> (Vec<StoredEvent>, u64) {
    let held = held();
    let lines: Vec<StoredEvent> = held
        .taken
        .lock()
        .map(|r| r.try_iter().collect())
        .unwrap_or_default();
    held.waiting.fetch_sub(lines.len(), Ordering::Relaxed);
    (lines, held.dropped.swap(0, Ordering::Relaxed))
}

/// Collects audit events ([`crate::audit`]) for [`take_audit`].
struct AuditCapture;

#[derive(Default)]
struct Fields(StoredEvent);

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.set_audit_field(field.name(), value);
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
        let held = held();
        if held.waiting.fetch_add(1, Ordering::Relaxed) >= HELD || held.lines.send(f.0).is_err() {
            held.waiting.fetch_sub(1, Ordering::Relaxed);
            held.dropped.fetch_add(1, Ordering::Relaxed);
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
