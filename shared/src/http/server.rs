//! `scanid serve`: every route of the table in one process.
//!
//! Each request is turned into the `lambda_http::Request` API Gateway (HTTP API, payload v2)
//! would deliver (path parameters from the route template, query parameters parsed from the
//! raw query string, the source IP in the request context) and passed to the same
//! [`dispatch`](crate::routes::dispatch) the Lambda functions use, so local and Lambda
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

use crate::http::{HttpError, Response};
use crate::routes::{self, Matched};
use crate::App;

/// The largest request body accepted (API Gateway's own limit is 10 MB; nothing here needs
/// more than a form or a small JSON document).
pub const MAX_BODY: usize = 64 * 1024;

/// Serves until `shutdown` resolves, then lets in-flight requests finish (at most 10 s).
pub async fn serve(
    app: Arc<App>,
    demo: Option<Arc<crate::http::demo::Demo>>,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
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
                let _ = stream.set_nodelay(true);
                let app = app.clone();
                let demo = demo.clone();
                let svc = hyper::service::service_fn(move |req| {
                    let app = app.clone();
                    let demo = demo.clone();
                    async move { Ok::<_, Infallible>(handle(&app, demo.as_deref(), req, remote).await) }
                });
                let conn = hyper::server::conn::http1::Builder::new()
                    .timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(Duration::from_secs(30))
                    .serve_connection(TokioIo::new(stream), svc);
                let conn = graceful.watch(conn);
                tokio::spawn(async move {
                    if let Err(e) = conn.await {
                        tracing::debug!(error = %e, "connection ended with an error");
                    }
                });
            }
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(Duration::from_secs(10)) => {
            tracing::warn!("connections still open after 10 s; closing them");
        }
    }
    Ok(())
}

async fn handle(
    app: &App,
    demo: Option<&crate::http::demo::Demo>,
    req: hyper::Request<Incoming>,
    remote: SocketAddr,
) -> hyper::Response<Full<Bytes>> {
    if let Some(demo) = demo.filter(|_| req.uri().path().starts_with("/demo")) {
        return match to_lambda(req, remote, HashMap::new()).await {
            Ok(r) => to_hyper(
                demo.handle(app, &r)
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
    match to_lambda(req, remote, params).await {
        Ok(req) => to_hyper(routes::dispatch(route.handler, app, req).await),
        Err(e) => to_hyper(e.into_response()),
    }
}

/// Builds the request API Gateway would hand a Lambda function.
pub async fn to_lambda(
    req: hyper::Request<Incoming>,
    remote: SocketAddr,
    path_params: HashMap<String, String>,
) -> Result<lambda_http::Request, HttpError> {
    let (parts, body) = req.into_parts();
    let bytes = Limited::new(body, MAX_BODY)
        .collect()
        .await
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
