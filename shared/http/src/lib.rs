//! The edge: a `lambda_http::Request` in, a response out. Handlers parse, call the domain and
//! render; every error becomes a response in one place ([`error::HttpError`]). The same
//! handlers serve `scanid serve` and the Lambda functions, through the one route table
//! ([`routes`]).
#![forbid(unsafe_code)]
#![warn(unreachable_pub)]
#![warn(missing_docs)]

pub(crate) mod agent;
pub(crate) mod cookies;
pub(crate) mod cors;
pub(crate) mod edge;
pub mod error;
pub mod functions;
pub mod generate;
pub(crate) mod handlers;
pub mod i18n;
pub mod pages;
pub mod routes;
pub mod views;

#[cfg(test)]
mod properties;

// The core's modules under `crate::`, so handlers name them as they did in one crate.
use scanid_core::{clock, domain, geoip, keys, protocol, random, store, usecase, Context};

use lambda_http::{Body, RequestExt};

pub use error::HttpError;

/// What handlers receive: the same type in Lambda and under `scanid serve`.
pub type Request = lambda_http::Request;
/// What handlers return.
pub type Response = http::Response<Body>;

/// Standard headers for every response.
pub fn base(status: u16) -> http::response::Builder {
    http::Response::builder()
        .status(status)
        .header("x-content-type-options", "nosniff")
}

/// Finishes a builder; a builder error (a bad header value we produced) becomes a bare 500.
pub fn finish(b: http::response::Builder, body: Body) -> Response {
    match b.body(body) {
        Ok(r) => r,
        Err(e) => {
            tracing::error!(error = %e, "building a response");
            let mut r = http::Response::new(Body::Empty);
            *r.status_mut() = http::StatusCode::INTERNAL_SERVER_ERROR;
            r
        }
    }
}

/// A JSON response.
pub fn json<T: serde::Serialize>(status: u16, value: &T) -> Response {
    match serde_json::to_vec(value) {
        Ok(v) => finish(
            base(status).header("content-type", "application/json"),
            Body::Binary(v),
        ),
        Err(e) => {
            tracing::error!(error = %e, "serializing a response");
            HttpError::Internal.into_response()
        }
    }
}

/// The request's path parameter `name` (given by API Gateway or by the local router).
pub fn path_param(req: &Request, name: &str) -> Option<String> {
    req.path_parameters_ref()
        .and_then(|p| p.first(name))
        .map(str::to_owned)
}

/// The realm in the path must be the configured one; anything else is a 404.
pub fn check_realm(ctx: &crate::Context, req: &Request) -> Result<(), HttpError> {
    match path_param(req, "realm") {
        Some(r) if r == ctx.settings.realm => Ok(()),
        _ => Err(HttpError::NotFound),
    }
}

/// The client's IP as API Gateway saw it (the local server fills in the same field).
pub fn source_ip(req: &Request) -> String {
    match req.request_context_ref() {
        Some(lambda_http::request::RequestContext::ApiGatewayV2(c)) => {
            c.http.source_ip.clone().unwrap_or_default()
        }
        _ => String::new(),
    }
}

/// Who is asking, for rate limits and audit lines: the source address, IPv6 grouped by /64.
pub fn source(req: &Request) -> crate::domain::ratelimit::Source {
    crate::domain::ratelimit::Source::from_addr(&source_ip(req))
}

/// The `User-Agent` header, if text.
pub fn user_agent(req: &Request) -> String {
    req.headers()
        .get(http::header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned()
}

/// Name/value pairs of the raw query string.
pub fn query_pairs(req: &Request) -> Vec<(String, String)> {
    url::form_urlencoded::parse(req.uri().query().unwrap_or("").as_bytes())
        .into_owned()
        .collect()
}

/// Name/value pairs of an `application/x-www-form-urlencoded` body.
pub fn form_pairs(req: &Request) -> Result<Vec<(String, String)>, HttpError> {
    let ct = req
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !ct
        .to_ascii_lowercase()
        .starts_with("application/x-www-form-urlencoded")
    {
        return Err(HttpError::unsupported_media_type(
            "Content-Type must be application/x-www-form-urlencoded",
        ));
    }
    Ok(url::form_urlencoded::parse(req.body().as_ref())
        .into_owned()
        .collect())
}

/// The parameters of a GET (query) or POST (form body) request, and whether it was a POST.
pub fn get_or_post_params(req: &Request) -> Result<(Vec<(String, String)>, bool), HttpError> {
    if req.method() == http::Method::POST {
        Ok((form_pairs(req)?, true))
    } else {
        Ok((query_pairs(req), false))
    }
}

/// 415 unless the request says its body is JSON (`Content-Type: application/json`).
fn require_json(req: &Request) -> Result<(), HttpError> {
    let ct = req
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if ct.to_ascii_lowercase().starts_with("application/json") {
        Ok(())
    } else {
        Err(HttpError::unsupported_media_type(
            "Content-Type must be application/json",
        ))
    }
}

/// The JSON body, for the app API.
pub fn json_body<T: serde::de::DeserializeOwned>(req: &Request) -> Result<T, HttpError> {
    require_json(req)?;
    serde_json::from_slice(req.body().as_ref())
        .map_err(|_| HttpError::bad_request("malformed JSON body"))
}

/// The raw JSON body (`Content-Type: application/json`), at most `max` bytes (413 past it):
/// for the registration and admin APIs, whose use cases parse it themselves.
pub(crate) fn json_bytes(req: &Request, max: usize) -> Result<&[u8], HttpError> {
    require_json(req)?;
    let body: &[u8] = req.body().as_ref();
    if body.len() > max {
        return Err(HttpError::PayloadTooLarge);
    }
    Ok(body)
}

/// The bearer token of `Authorization` (RFC 6750 §2.1), if the header is there; a header of
/// another shape is `invalid_token`.
pub(crate) fn optional_bearer(req: &Request) -> Result<Option<String>, HttpError> {
    let Some(h) = req.headers().get(http::header::AUTHORIZATION) else {
        return Ok(None);
    };
    match h.to_str().ok().and_then(|h| h.split_once(' ')) {
        Some((scheme, t)) if scheme.eq_ignore_ascii_case("bearer") && !t.trim().is_empty() => {
            Ok(Some(t.trim().to_owned()))
        }
        _ => Err(HttpError::invalid_token(
            "the Authorization header must be: Bearer <token>",
        )),
    }
}

/// `true` when the client asks for JSON.
pub fn wants_json(req: &Request) -> bool {
    req.headers()
        .get(http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("application/json"))
}

/// The single value of `name` among `pairs`: `None` when absent or repeated.
pub fn single(pairs: &[(String, String)], name: &str) -> Option<String> {
    let mut it = pairs.iter().filter(|(k, _)| k == name);
    match (it.next(), it.next()) {
        (Some((_, v)), None) => Some(v.clone()),
        _ => None,
    }
}
