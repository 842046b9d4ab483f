//! The edge: a `lambda_http::Request` in, a response out. Handlers parse, call the domain and
//! render; every error becomes a response in one place ([`error::HttpError`]).

pub mod error;
pub mod handlers;
pub mod server;

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
pub fn check_realm(app: &crate::App, req: &Request) -> Result<(), HttpError> {
    match path_param(req, "realm") {
        Some(r) if r == app.settings.realm => Ok(()),
        _ => Err(HttpError::NotFound),
    }
}
