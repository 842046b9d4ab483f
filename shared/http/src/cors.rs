//! CORS for browser clients (single-page apps), per client, as Keycloak's "web origins".
//!
//! The token, userinfo, revocation and logout endpoints answer a request whose `Origin` is a
//! registered web origin with `Access-Control-Allow-Origin: <that origin>` (never `*`),
//! `Access-Control-Allow-Credentials: true` and `Vary: Origin`; any other origin gets no CORS
//! header at all, so the browser keeps the response from the page. Discovery and the JWKS are
//! public documents and stay open (`*`, in their handlers).
//!
//! * Where the handler knows the client (a token issued, userinfo for its access token), the
//!   client's own origins decide ([`for_client`]).
//! * Preflights and error responses name no client yet: the set of every client's origins
//!   decides ([`scanid_core::store::origins::OriginCache`]: read again every minute, or after
//!   five seconds when an origin is not in it, so a new client's origin works
//!   within seconds while unknown origins cannot make every request list the clients), with
//!   the origins of the client metadata documents the store keeps (`usecase::origins`).

use lambda_http::Body;

use crate::domain::client::Client;
use crate::usecase::origins;
use crate::Context;
use crate::{base, check_realm, finish, HttpError, Request, Response};

const ALLOW_METHODS: &str = "GET, POST, OPTIONS";
const ALLOW_HEADERS: &str = "Authorization, Content-Type, DPoP";

/// Marks a response whose CORS headers were decided by its client's own origins.
#[derive(Debug, Clone, Copy)]
struct Decided;

/// The request's `Origin`, if it has exactly one (and it is not `null`).
pub(crate) fn origin(req: &Request) -> Option<&str> {
    let mut it = req.headers().get_all(http::header::ORIGIN).iter();
    match (it.next(), it.next()) {
        (Some(v), None) => v.to_str().ok().filter(|o| *o != "null" && !o.is_empty()),
        _ => None,
    }
}

fn allow(mut resp: Response, origin: &str) -> Response {
    if let Ok(v) = http::HeaderValue::from_str(origin) {
        let h = resp.headers_mut();
        h.insert("access-control-allow-origin", v);
        h.insert(
            "access-control-allow-credentials",
            http::HeaderValue::from_static("true"),
        );
        h.insert(
            "access-control-expose-headers",
            http::HeaderValue::from_static("WWW-Authenticate, Retry-After, DPoP-Nonce"),
        );
    }
    resp
}

fn vary(mut resp: Response) -> Response {
    resp.headers_mut()
        .append("vary", http::HeaderValue::from_static("Origin"));
    resp
}

/// CORS by `client`'s own web origins.
pub(crate) fn for_client(req: &Request, client: &Client, resp: Response) -> Response {
    let mut resp = match origin(req) {
        Some(o) if client.allows_origin(o) => allow(resp, o),
        _ => resp,
    };
    resp.extensions_mut().insert(Decided);
    resp
}

/// No CORS on this response, whatever the origin (front-channel pages: the logout
/// confirmation carries an anti-CSRF token no other page may read).
pub(crate) fn none(mut resp: Response) -> Response {
    resp.extensions_mut().insert(Decided);
    resp
}

/// The last word on a CORS endpoint's response (routes::dispatch): unless the client's
/// origins decided already, the set of registered origins does; `Vary: Origin` always.
pub(crate) async fn finish_response(
    ctx: &Context,
    origin: Option<&str>,
    resp: Response,
) -> Response {
    let resp = match origin {
        Some(o) if resp.extensions().get::<Decided>().is_none() => {
            if origins::registered(ctx, o).await {
                allow(resp, o)
            } else {
                resp
            }
        }
        _ => resp,
    };
    vary(resp)
}

/// `OPTIONS` on the CORS endpoints: 204 with the CORS headers for a registered origin asking
/// for an allowed method; 403 without any CORS header otherwise.
pub(crate) async fn preflight(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let method_ok = req
        .headers()
        .get("access-control-request-method")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|m| matches!(m, "GET" | "POST"));
    let registered = match origin(&req) {
        Some(o) => origins::registered(ctx, o).await.then(|| o.to_owned()),
        None => None,
    };
    match registered {
        Some(o) if method_ok => {
            let resp = finish(
                base(204)
                    .header("access-control-allow-methods", ALLOW_METHODS)
                    .header("access-control-allow-headers", ALLOW_HEADERS)
                    .header("access-control-max-age", "3600"),
                Body::Empty,
            );
            Ok(vary(allow(resp, &o)))
        }
        _ => Ok(vary(
            HttpError::forbidden("cors_denied", "origin or method not allowed").into_response(),
        )),
    }
}

/// CORS by a fixed list of origins (the operator's `--registration-cors-origin`): the
/// response gets the CORS headers when the request's origin is listed; `OPTIONS` is its
/// preflight (204 for a listed origin, 403 otherwise). `Vary: Origin` always.
pub(crate) fn for_listed(req: &Request, listed: &[String], resp: Response) -> Response {
    let resp = match origin(req) {
        Some(o) if listed.iter().any(|l| l == o) => allow(resp, o),
        _ => resp,
    };
    vary(resp)
}

/// The preflight of an endpoint whose origins are a fixed list ([`for_listed`]).
pub(crate) fn listed_preflight(req: &Request, listed: &[String], methods: &str) -> Response {
    match origin(req) {
        Some(o) if listed.iter().any(|l| l == o) => {
            let resp = finish(
                base(204)
                    .header("access-control-allow-methods", methods)
                    .header("access-control-allow-headers", ALLOW_HEADERS)
                    .header("access-control-max-age", "3600"),
                Body::Empty,
            );
            vary(allow(resp, o))
        }
        _ => vary(
            HttpError::forbidden("cors_denied", "origin or method not allowed").into_response(),
        ),
    }
}
