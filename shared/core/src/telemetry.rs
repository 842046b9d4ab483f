//! Logging with `tracing`: human-readable on a terminal, JSON in Lambda (CloudWatch).

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::{EnvFilter, Layer};

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
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter())
            .with_writer(std::io::stderr)
            .try_init();
    }
}

/// The Lambda log filter: `RUST_LOG` as a list of `target=level` directives (or one level),
/// parsed without the regular-expression engine `EnvFilter` links; `info` when unset or
/// malformed.
fn lambda_filter(directives: Option<&str>) -> Targets {
    directives
        .and_then(|d| d.parse::<Targets>().ok())
        .unwrap_or_else(|| Targets::new().with_default(LevelFilter::INFO))
}

/// For Lambda: one JSON object per line, no ANSI colours, no timestamp (CloudWatch adds it).
pub fn init_lambda() {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let format = tracing_subscriber::fmt::layer()
        .json()
        .flatten_event(true)
        .with_current_span(false)
        .with_ansi(false)
        .without_time()
        .with_target(false);
    let filter = lambda_filter(std::env::var("RUST_LOG").ok().as_deref());
    let _ = tracing_subscriber::registry()
        .with(format.with_filter(filter))
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lambda_filter_reads_levels_and_targets_and_defaults_to_info() {
        assert_eq!(lambda_filter(None).default_level(), Some(LevelFilter::INFO));
        assert_eq!(
            lambda_filter(Some("debug")).default_level(),
            Some(LevelFilter::DEBUG)
        );
        let f = lambda_filter(Some("warn,scanid_core=trace"));
        assert!(f.would_enable("scanid_core::audit", &tracing::Level::TRACE));
        assert!(!f.would_enable("aws_smithy_runtime", &tracing::Level::INFO));
        assert_eq!(
            lambda_filter(Some("=nonsense=")).default_level(),
            Some(LevelFilter::INFO)
        );
    }
}
