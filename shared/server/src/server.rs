//! `scanid serve`: every route of the table in one process.
//!
//! Each request is turned into the `lambda_http::Request` API Gateway (HTTP API, payload v2)
//! would deliver (path parameters from the route template, query parameters parsed from the
//! raw query string, the source IP in the request context) and passed to the same
//! [`dispatch`](scanid_http::routes::dispatch) the Lambda functions use, so local and Lambda
//! behaviour cannot drift.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use lambda_http::request::RequestContext;
use lambda_http::{Body, RequestExt};
use tokio::net::TcpListener;

use crate::Context;
use scanid_http::routes::{self, Matched};
use scanid_http::{HttpError, Response};

/// The largest request body accepted by default (API Gateway's own limit is 10 MB; nothing
/// here needs more than a form or a small JSON document).
pub const MAX_BODY: usize = 64 * 1024;

/// What one client may hold of the server: API Gateway enforces the same in Lambda.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// A request's head must arrive within this (the first byte of the next one too, on a
    /// kept-alive connection), else the connection is closed: a client that trickles its head
    /// holds a connection slot at most this long.
    pub head_timeout: Duration,
    /// The body must arrive within this once the head has: a stalled client is answered 408
    /// and its connection closed (it cannot hold shutdown either).
    pub request_timeout: Duration,
    /// Larger bodies are refused with 413.
    pub max_body: usize,
    /// Connections served at once; one more is answered 503 + `Retry-After` and closed.
    pub max_connections: usize,
    /// Connections one source (an IPv4 address, an IPv6 /64) may hold at once; one more is
    /// answered 429 + `Retry-After` and closed, so one address cannot fill every slot.
    /// Trusted proxies are not counted (their clients are behind them).
    pub max_connections_per_source: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            head_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            max_body: MAX_BODY,
            max_connections: 1024,
            max_connections_per_source: 64,
        }
    }
}

/// Who a connection counts against: an IPv4 address, or an IPv6 /64 (one host may use any
/// address of its network), as the rate limits count (`domain::ratelimit::Source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum SourceKey {
    V4(std::net::Ipv4Addr),
    V6(u64),
}

impl SourceKey {
    fn of(ip: std::net::IpAddr) -> Self {
        match ip {
            std::net::IpAddr::V4(v4) => Self::V4(v4),
            std::net::IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Self::V4(v4),
                None => Self::V6((v6.to_bits() >> 64) as u64),
            },
        }
    }
}

/// Open connections per source. Touched once when a connection opens and once when it
/// closes (never per request), under a lock held for a map update.
struct PerSource {
    max: usize,
    open: std::sync::Mutex<HashMap<SourceKey, usize>>,
}

/// One source's connection slot; given back when dropped.
struct SourceSlot {
    table: Arc<PerSource>,
    key: SourceKey,
}

impl PerSource {
    fn new(max: usize) -> Arc<Self> {
        Arc::new(Self {
            max,
            open: std::sync::Mutex::new(HashMap::new()),
        })
    }

    /// A slot for `key`, or `None` when the source holds its maximum already.
    fn acquire(self: &Arc<Self>, key: SourceKey) -> Option<SourceSlot> {
        let mut open = self
            .open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let n = open.entry(key).or_insert(0);
        if *n >= self.max {
            return None;
        }
        *n += 1;
        Some(SourceSlot {
            table: self.clone(),
            key,
        })
    }
}

impl Drop for SourceSlot {
    fn drop(&mut self) {
        let mut open = self
            .table
            .open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(n) = open.get_mut(&self.key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                open.remove(&self.key);
            }
        }
    }
}

/// What a listener serves.
#[derive(Clone)]
pub enum Site {
    /// The route table: the issuer, the device API, the directory.
    Issuer,
    /// The demo relying party, on a listener (an origin) of its own.
    Demo(Arc<crate::demo::Demo>),
}

/// Serves `site` until `shutdown` resolves, then lets in-flight requests finish (at most
/// 10 s).
pub async fn serve(
    ctx: Arc<Context>,
    site: Site,
    listener: TcpListener,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    let per_source = PerSource::new(limits.max_connections_per_source);
    // Refusing answers and drains briefly; past this many refusals in flight a refused
    // connection is closed at once (a flood must not turn into open descriptors).
    let refusing = Arc::new(tokio::sync::Semaphore::new(REFUSALS_IN_FLIGHT));
    // Refusals are logged at most once a second (with how many there were), so a flood of
    // connections does not become a flood of log lines.
    let mut refusals = RefusalLog::default();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, remote) = match accepted {
                    Ok(x) => x,
                    Err(e) => {
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                // A trusted proxy speaks for many clients: only the global cap applies to it.
                let source_slot = if ctx.settings.trusted_proxies.contains(&remote.ip()) {
                    None
                } else {
                    match per_source.acquire(SourceKey::of(remote.ip())) {
                        Some(s) => Some(s),
                        None => {
                            refusals.note(Refusal::Source, remote.ip());
                            refuse_bounded(&refusing, stream, Refusal::Source);
                            continue;
                        }
                    }
                };
                let Ok(slot) = slots.clone().try_acquire_owned() else {
                    refusals.note(Refusal::Server, remote.ip());
                    refuse_bounded(&refusing, stream, Refusal::Server);
                    continue;
                };
                let _ = stream.set_nodelay(true);
                let ctx = ctx.clone();
                let site = site.clone();
                let svc = hyper::service::service_fn(move |req| {
                    let ctx = ctx.clone();
                    let site = site.clone();
                    async move { Ok::<_, Infallible>(handle(&ctx, &site, req, remote, limits).await) }
                });
                let conn = hyper::server::conn::http1::Builder::new()
                    .timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(limits.head_timeout)
                    .serve_connection(
                        TokioIo::new(crate::stall::WriteDeadline::new(stream, limits.request_timeout)),
                        svc,
                    );
                let conn = graceful.watch(conn);
                tokio::spawn(async move {
                    if let Err(e) = conn.await {
                        tracing::debug!(error = %e, "connection ended with an error");
                    }
                    drop(slot);
                    drop(source_slot);
                });
            }
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    // Held status polls are answered now, not after the 10 s below.
    if let Some(w) = &ctx.login_watch {
        w.close();
    }
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(Duration::from_secs(10)) => {
            tracing::warn!("connections still open after 10 s; closing them");
        }
    }
    Ok(())
}

/// Refusals answered at once (each holds its socket for at most half a second).
const REFUSALS_IN_FLIGHT: usize = 256;

/// Answers a refused connection if fewer than [`REFUSALS_IN_FLIGHT`] are being answered, else
/// closes it at once.
fn refuse_bounded(
    refusing: &Arc<tokio::sync::Semaphore>,
    stream: tokio::net::TcpStream,
    why: Refusal,
) {
    match refusing.clone().try_acquire_owned() {
        Ok(permit) => {
            tokio::spawn(async move {
                refuse(stream, why).await;
                drop(permit);
            });
        }
        Err(_) => drop(stream),
    }
}

/// Counts refused connections and logs them at most once a second.
#[derive(Default)]
struct RefusalLog {
    since: Option<std::time::Instant>,
    by_source: u64,
    full: u64,
}

impl RefusalLog {
    fn note(&mut self, why: Refusal, source: std::net::IpAddr) {
        match why {
            Refusal::Source => self.by_source += 1,
            Refusal::Server => self.full += 1,
        }
        let now = std::time::Instant::now();
        if self
            .since
            .is_some_and(|t| now.duration_since(t) < Duration::from_secs(1))
        {
            return;
        }
        tracing::warn!(
            last_source = %source,
            over_source_limit = self.by_source,
            server_full = self.full,
            "connections refused (counts since the last such line)"
        );
        *self = Self {
            since: Some(now),
            ..Self::default()
        };
    }
}

/// Why a connection was refused at once.
#[derive(Debug, Clone, Copy)]
enum Refusal {
    /// Every connection slot is taken.
    Server,
    /// Its source holds its share of the slots already.
    Source,
}

/// A connection over a cap: a plain 503 (the server is full) or 429 (its source is) with
/// `Retry-After`, then close. The request is drained briefly first, so the client reads the
/// answer rather than a reset.
async fn refuse(mut stream: tokio::net::TcpStream, why: Refusal) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let answer: &[u8] = match why {
        Refusal::Server => b"HTTP/1.1 503 Service Unavailable\r\nretry-after: 1\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        Refusal::Source => b"HTTP/1.1 429 Too Many Requests\r\nretry-after: 1\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
    };
    let _ = stream.write_all(answer).await;
    let _ = stream.shutdown().await;
    let mut sink = [0u8; 4096];
    let _ = tokio::time::timeout(Duration::from_millis(500), async {
        while let Ok(n) = stream.read(&mut sink).await {
            if n == 0 {
                break;
            }
        }
    })
    .await;
}

/// The client's address: the peer, or behind a trusted proxy the right-most
/// `X-Forwarded-For` entry that is not itself a trusted proxy (entries left of it are the
/// client's own claims and are never believed).
pub fn client_ip(
    peer: std::net::IpAddr,
    forwarded_for: &[&str],
    trusted: &[std::net::IpAddr],
) -> std::net::IpAddr {
    if !trusted.contains(&peer) {
        return peer;
    }
    let hops = forwarded_for
        .iter()
        .flat_map(|h| h.split(','))
        .map(str::trim)
        .collect::<Vec<_>>();
    for hop in hops.iter().rev() {
        match hop.parse::<std::net::IpAddr>() {
            Ok(ip) if trusted.contains(&ip) => continue,
            Ok(ip) => return ip,
            Err(_) => return peer,
        }
    }
    peer
}

async fn handle(
    ctx: &Context,
    site: &Site,
    req: hyper::Request<Incoming>,
    peer: SocketAddr,
    limits: Limits,
) -> hyper::Response<Full<Bytes>> {
    let forwarded: Vec<&str> = req
        .headers()
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    let ip = client_ip(peer.ip(), &forwarded, &ctx.settings.trusted_proxies);
    let remote = SocketAddr::new(ip, peer.port());
    if let Site::Demo(demo) = site {
        return match to_lambda(req, remote, HashMap::new(), limits).await {
            Ok(r) => to_hyper(
                demo.handle(ctx, &r)
                    .await
                    .unwrap_or_else(|| HttpError::NotFound.into_response()),
            ),
            Err(e) => to_hyper(e.into_response()),
        };
    }
    let (route, params) = match routes::match_route(req.method().as_str(), req.uri().path()) {
        Matched::Found(r, p) => (r, p),
        Matched::MethodNotAllowed(allow) => {
            return to_hyper(HttpError::MethodNotAllowed(allow).into_response())
        }
        Matched::NotFound => return to_hyper(HttpError::NotFound.into_response()),
    };
    let limits = Limits {
        max_body: route
            .handler
            .body_limit()
            .map_or(limits.max_body, |l| l.max(limits.max_body)),
        ..limits
    };
    match to_lambda(req, remote, params, limits).await {
        Ok(req) => to_hyper(routes::dispatch(route.handler, ctx, req).await),
        Err(e) => to_hyper(e.into_response()),
    }
}

/// Builds the request API Gateway would hand a Lambda function: the body whole, within the
/// limits.
pub async fn to_lambda(
    req: hyper::Request<Incoming>,
    remote: SocketAddr,
    path_params: HashMap<String, String>,
    limits: Limits,
) -> Result<lambda_http::Request, HttpError> {
    let (parts, body) = req.into_parts();
    let bytes = tokio::time::timeout(
        limits.request_timeout,
        Limited::new(body, limits.max_body).collect(),
    )
    .await
    .map_err(|_| HttpError::RequestTimeout)?
    .map_err(|_| HttpError::PayloadTooLarge)?
    .to_bytes();
    let body = if bytes.is_empty() {
        Body::Empty
    } else {
        match String::from_utf8(bytes.to_vec()) {
            Ok(s) => Body::Text(s),
            Err(e) => Body::Binary(e.into_bytes()),
        }
    };
    Ok(with_gateway_context(
        http::Request::from_parts(parts, body),
        remote.ip().to_string(),
        path_params,
    ))
}

/// Adds what API Gateway adds: query and path parameters, and the request context.
pub fn with_gateway_context(
    req: lambda_http::Request,
    source_ip: String,
    path_params: HashMap<String, String>,
) -> lambda_http::Request {
    let query: lambda_http::aws_lambda_events::query_map::QueryMap =
        req.uri().query().unwrap_or("").parse().unwrap_or_default();
    let mut ctx = lambda_http::aws_lambda_events::apigw::ApiGatewayV2httpRequestContext::default();
    ctx.http.method = req.method().clone();
    ctx.http.path = Some(req.uri().path().to_owned());
    ctx.http.source_ip = Some(source_ip);
    ctx.http.user_agent = req
        .headers()
        .get(http::header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    req.with_query_string_parameters(query)
        .with_path_parameters(path_params)
        .with_request_context(RequestContext::ApiGatewayV2(ctx))
}

fn to_hyper(resp: Response) -> hyper::Response<Full<Bytes>> {
    let (parts, body) = resp.into_parts();
    let bytes = match body {
        Body::Empty => Bytes::new(),
        Body::Text(s) => Bytes::from(s),
        Body::Binary(v) => Bytes::from(v),
        _ => Bytes::new(),
    };
    hyper::Response::from_parts(parts, Full::new(bytes))
}

#[cfg(test)]
mod tests {
    use super::client_ip;
    use std::net::IpAddr;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap_or(IpAddr::from([0, 0, 0, 0]))
    }

    #[test]
    fn forwarded_for_is_believed_only_from_a_trusted_proxy() {
        let proxy = ip("10.0.0.1");
        let trusted = [proxy, ip("10.0.0.2")];
        // Not a proxy: its header is the client's own claim.
        assert_eq!(
            client_ip(ip("198.51.100.9"), &["1.2.3.4"], &trusted),
            ip("198.51.100.9")
        );
        // The right-most untrusted hop; what the client prepended is ignored.
        assert_eq!(
            client_ip(proxy, &["6.6.6.6, 203.0.113.7"], &trusted),
            ip("203.0.113.7")
        );
        assert_eq!(
            client_ip(proxy, &["6.6.6.6", "203.0.113.7, 10.0.0.2"], &trusted),
            ip("203.0.113.7")
        );
        // No header, or garbage: the proxy itself.
        assert_eq!(client_ip(proxy, &[], &trusted), proxy);
        assert_eq!(client_ip(proxy, &["not-an-ip"], &trusted), proxy);
        assert_eq!(client_ip(proxy, &["10.0.0.2"], &trusted), proxy);
    }
}
