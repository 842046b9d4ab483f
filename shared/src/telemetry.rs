//! Logging with `tracing`: human-readable on a terminal, JSON in Lambda (CloudWatch).

use tracing_subscriber::EnvFilter;

fn filter() -> EnvFilter {
    EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"))
}

/// For the `scanid` command: logs to stderr, so stdout carries only the JSON results.
pub fn init_cli() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter())
        .with_writer(std::io::stderr)
        .try_init();
}

/// For Lambda: one JSON object per line, no ANSI colours, no timestamp (CloudWatch adds it).
pub fn init_lambda() {
    let _ = tracing_subscriber::fmt()
        .json()
        .with_env_filter(filter())
        .with_current_span(false)
        .with_ansi(false)
        .without_time()
        .with_target(false)
        .try_init();
}
