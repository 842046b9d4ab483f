//! Logging with `tracing` for the `scanid` command and server: human-readable text (coloured
//! only on a terminal), JSON lines on request. (Lambda functions log through `scanid-lambda`.)

use tracing_subscriber::EnvFilter;

fn filter() -> EnvFilter {
    EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"))
}

/// For the `scanid` command: logs to stderr, so stdout carries only the JSON results. With
/// `SCANID_LOG_FORMAT=json`, one JSON object per line (audit events included, with their fields
/// at the top level) for a log shipper.
pub fn init_cli() {
    if std::env::var("SCANID_LOG_FORMAT").is_ok_and(|f| f == "json") {
        let _ = tracing_subscriber::fmt()
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_env_filter(filter())
            .with_writer(std::io::stderr)
            .try_init();
    } else {
        // Colour only on a terminal: a file or a pipe gets plain text, no escape codes.
        use std::io::IsTerminal;
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter())
            .with_writer(std::io::stderr)
            .with_ansi(std::io::stderr().is_terminal())
            .try_init();
    }
}
