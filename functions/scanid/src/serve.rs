//! `scanid serve`.

use std::sync::Arc;

use clap::Args;
use serde_json::json;

use crate::cli::{print_json, CliError, ConfigArgs};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on; port 0 picks a free port (printed on start).
    #[arg(long, default_value = "127.0.0.1:8080", env = "SCANID_ADDR")]
    pub addr: String,
    /// Do not serve the demo relying party (never served on a DynamoDB table).
    #[arg(long)]
    pub no_demo: bool,
    /// Address of the demo relying party: an origin of its own, never the issuer's, on
    /// loopback only (elsewhere the demo is not served). Default: the next port after --addr
    /// (port 0 when --addr picks one).
    #[arg(long, env = "SCANID_DEMO_ADDR")]
    pub demo_addr: Option<String>,
    /// Seconds a client has to send a request's head (and, on a kept-alive connection, to
    /// start the next one); else the connection is closed.
    #[arg(long, default_value_t = 10, env = "SCANID_HEAD_TIMEOUT_SECS",
          value_parser = clap::value_parser!(u64).range(1..=300))]
    pub head_timeout_secs: u64,
    /// Seconds a client has to send a request's body once its head arrived; else 408.
    #[arg(long, default_value_t = 30, env = "SCANID_REQUEST_TIMEOUT_SECS",
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub request_timeout_secs: u64,
    /// The largest request body accepted, in bytes; larger is 413.
    #[arg(long, default_value_t = 65536, env = "SCANID_MAX_BODY_BYTES",
          value_parser = clap::value_parser!(u64).range(1024..=10_485_760))]
    pub max_body_bytes: u64,
    /// Seconds between purges of expired records from the embedded store (reads ignore them
    /// already; the purge keeps the file from growing).
    #[arg(long, default_value_t = 300, env = "SCANID_PURGE_INTERVAL_SECS",
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub purge_interval_secs: u64,
    /// Connections served at once; one more gets 503 + Retry-After.
    #[arg(long, default_value_t = 1024, env = "SCANID_MAX_CONNECTIONS",
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_connections: u64,
    /// Connections one source address (IPv4, or IPv6 /64) may hold at once; one more gets
    /// 429 + Retry-After. Trusted proxies (--trusted-proxy) are not counted.
    #[arg(long, default_value_t = 64, env = "SCANID_MAX_CONNECTIONS_PER_SOURCE",
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_connections_per_source: u64,
    #[command(flatten)]
    pub config: ConfigArgs,
}

pub async fn run(args: ServeArgs) -> Result<(), CliError> {
    let listener = tokio::net::TcpListener::bind(&args.addr)
        .await
        .map_err(|e| CliError::Failed(format!("--addr {}: {e}", args.addr)))?;
    let addr = listener
        .local_addr()
        .map_err(|e| CliError::Failed(format!("--addr: {e}")))?;
    let settings = args.config.settings(&format!("http://{addr}"))?;
    let ctx = Arc::new(scanid_server::open::context(settings).await?);
    let issuer = ctx.settings.issuer();
    // The demo writes its client into the store: never into a shared DynamoDB table.
    let on_table = matches!(
        ctx.settings.store,
        scanid_core::config::StoreSettings::DynamoDb { .. }
    );
    let demo = if args.no_demo || on_table {
        None
    } else {
        start_demo(&args, &ctx, addr).await?
    };
    let demo_url = demo.as_ref().map(|(d, _)| d.url());
    announce(&ctx, addr, &issuer, demo_url.as_deref());
    tracing::info!(%addr, %issuer, "scanid serving; Ctrl-C to stop");
    spawn_purger(ctx.clone(), args.purge_interval_secs);
    spawn_event_writer(ctx.clone());
    if let Some(d) = &demo_url {
        tracing::info!("demo relying party: {d}");
    }
    let limits = limits(&args);
    // One shutdown for both listeners.
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let until_stopped = |mut rx: tokio::sync::watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|s| *s).await;
    };
    let demo_task = demo.map(|(demo, demo_listener)| {
        let serving = scanid_server::server::serve(
            ctx.clone(),
            scanid_server::server::Site::Demo(demo),
            demo_listener,
            limits,
            until_stopped(stopped.clone()),
        );
        tokio::spawn(serving)
    });
    let deliveries = ctx.clone();
    let issuer_site = scanid_server::server::serve(
        ctx,
        scanid_server::server::Site::Issuer,
        listener,
        limits,
        until_stopped(stopped),
    );
    tokio::pin!(issuer_site);
    let served = tokio::select! {
        r = &mut issuer_site => r,
        () = shutdown_signal() => {
            let _ = stop.send(true);
            issuer_site.await
        }
    };
    served.map_err(|e| CliError::Failed(format!("server: {e}")))?;
    if let Some(task) = demo_task {
        let _ = task.await;
    }
    // Back-channel logouts still being delivered get a few seconds more (each is audited as
    // delivered or given up); past that they are lost with the process.
    if tokio::time::timeout(
        std::time::Duration::from_secs(5),
        deliveries.backchannel.settle(),
    )
    .await
    .is_err()
    {
        tracing::warn!("back-channel logout deliveries still running at shutdown were dropped");
    }
    // The audit lines of the last second.
    store_events(&deliveries).await;
    tracing::info!("stopped");
    Ok(())
}

/// The demo relying party on its own loopback origin (the port after `--addr` unless
/// `--demo-addr` says otherwise), its client installed; `None` off loopback.
async fn start_demo(
    args: &ServeArgs,
    ctx: &Arc<scanid_core::context::Context>,
    addr: std::net::SocketAddr,
) -> Result<Option<(Arc<scanid_server::demo::Demo>, tokio::net::TcpListener)>, CliError> {
    let asked_port = args
        .addr
        .rsplit_once(':')
        .and_then(|(_, p)| p.parse::<u16>().ok());
    let demo_addr = args.demo_addr.clone().unwrap_or_else(|| {
        let port = match asked_port {
            Some(0) | None => 0,
            Some(p) => p.checked_add(1).unwrap_or(0),
        };
        std::net::SocketAddr::new(addr.ip(), port).to_string()
    });
    let loopback = demo_addr
        .parse::<std::net::SocketAddr>()
        .is_ok_and(|a| a.ip().is_loopback());
    if loopback {
        let demo_listener = tokio::net::TcpListener::bind(&demo_addr)
            .await
            .map_err(|e| CliError::Failed(format!("--demo-addr {demo_addr}: {e}")))?;
        let demo_addr = demo_listener
            .local_addr()
            .map_err(|e| CliError::Failed(format!("--demo-addr: {e}")))?;
        let demo = scanid_server::demo::Demo::install(ctx, format!("http://{demo_addr}"))
            .await
            .map_err(|e| CliError::Failed(format!("demo client: {e}")))?;
        Ok(Some((demo, demo_listener)))
    } else {
        // Its redirect URI is plain http: registrable on loopback only, and a demo is no
        // business of a reachable address anyway.
        tracing::warn!(%demo_addr, "the demo relying party is served on loopback only; not serving it");
        Ok(None)
    }
}

/// The start line on stdout: where everything is.
fn announce(
    ctx: &scanid_core::context::Context,
    addr: std::net::SocketAddr,
    issuer: &str,
    demo_url: Option<&str>,
) {
    print_json(&json!({
        "demo": demo_url,
        "demo_client_id": demo_url.map(|_| scanid_server::demo::CLIENT_ID),
        "addr": addr.to_string(),
        "issuer": issuer,
        "discovery": format!("{issuer}/.well-known/openid-configuration"),
        "jwks_uri": format!("{issuer}/protocol/openid-connect/certs"),
        "data_dir": ctx.settings.data_dir.display().to_string(),
        "store": match &ctx.settings.store {
            scanid_core::config::StoreSettings::Embedded { data_dir } => format!("embedded:{}", data_dir.display()),
            scanid_core::config::StoreSettings::DynamoDb { table } => format!("dynamodb:{table}"),
        },
        "signing": ctx.settings.signing.as_str(),
    }));
}

/// Expired records are invisible already; purge them every `secs` so the file does not grow.
fn spawn_purger(purger: Arc<scanid_core::context::Context>, secs: u64) {
    let purge_every = std::time::Duration::from_secs(secs);
    tokio::spawn(async move {
        let mut every = tokio::time::interval(purge_every);
        loop {
            every.tick().await;
            match purger.store.purge_expired(purger.clock.now()).await {
                Ok(n) if n > 0 => tracing::info!(purged = n, "expired records purged"),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "purging expired records failed"),
            }
        }
    });
}

/// Audit events are stored five times a second, in one batch each: no request waits for
/// their write (`scanid_core::store::events`). (Once a second, a second's worth of lines, some
/// 14,000 at 7,000 token requests a second, waited in memory at once: glibc's arenas kept the
/// room, and the server's peak RSS grew with the request rate.)
fn spawn_event_writer(ctx: Arc<scanid_core::context::Context>) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_millis(200));
        loop {
            every.tick().await;
            store_events(&ctx).await;
        }
    });
}

async fn store_events(ctx: &scanid_core::context::Context) {
    let (lines, dropped) = scanid_core::telemetry::take_audit();
    if dropped > 0 {
        tracing::warn!(
            dropped,
            "audit events not stored: too many waited (the log has them)"
        );
    }
    if let Err(e) = scanid_core::usecase::admin::events::store_captured(ctx, lines).await {
        tracing::warn!(error = %e, "storing audit events failed (the log has them)");
    }
}

/// The server's limits from the flags.
fn limits(args: &ServeArgs) -> scanid_server::server::Limits {
    scanid_server::server::Limits {
        head_timeout: std::time::Duration::from_secs(args.head_timeout_secs),
        request_timeout: std::time::Duration::from_secs(args.request_timeout_secs),
        max_body: usize::try_from(args.max_body_bytes).unwrap_or(usize::MAX),
        max_connections: usize::try_from(args.max_connections).unwrap_or(usize::MAX),
        max_connections_per_source: usize::try_from(args.max_connections_per_source)
            .unwrap_or(usize::MAX),
    }
}

/// Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}
