//! Dynamic client registration (RFC 7591) and management (RFC 7592), at Keycloak's paths:
//! `POST .../clients-registrations/openid-connect` and `GET|PUT|DELETE` on
//! `.../clients-registrations/openid-connect/{client_id}`.

use lambda_http::Body;

use crate::domain::registration::{self, Registered, MAX_BODY};
use crate::usecase::registration as usecase;
use crate::Context;
use crate::{base, check_realm, finish, path_param, source, HttpError, Request, Response};

/// One handler for the four routes (one Lambda function); the method says which.
pub(crate) async fn registration(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let token = bearer(&req)?;
    let token = token.as_deref();
    match (req.method().as_str(), path_param(&req, "client_id")) {
        ("POST", None) => {
            let r = usecase::register(ctx, token, json_bytes(&req)?, &source(&req)).await?;
            Ok(information(ctx, 201, &r))
        }
        ("GET", Some(id)) => {
            let r = usecase::read(ctx, &id, token).await?;
            Ok(information(ctx, 200, &r))
        }
        ("PUT", Some(id)) => {
            let r = usecase::update(ctx, &id, token, json_bytes(&req)?).await?;
            Ok(information(ctx, 200, &r))
        }
        ("DELETE", Some(id)) => {
            usecase::delete(ctx, &id, token).await?;
            Ok(finish(
                base(204).header("cache-control", "no-store"),
                Body::Empty,
            ))
        }
        _ => Err(HttpError::NotFound),
    }
}

/// The client information response: it carries secrets, so never stored by caches.
fn information(ctx: &Context, status: u16, r: &Registered) -> Response {
    let issuer = ctx.settings.issuer();
    let body = registration::information(&issuer, r);
    let location = registration::client_uri(&issuer, &r.client.client_id);
    match serde_json::to_vec(&body) {
        Ok(v) => finish(
            base(status)
                .header("content-type", "application/json")
                .header("cache-control", "no-store")
                .header("pragma", "no-cache")
                .header("location", location),
            Body::Binary(v),
        ),
        Err(e) => {
            tracing::error!(error = %e, "serializing a client information response");
            HttpError::Internal.into_response()
        }
    }
}

/// The body of a registration or update: JSON, at most [`MAX_BODY`] bytes.
fn json_bytes(req: &Request) -> Result<&[u8], HttpError> {
    let ct = req
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !ct.to_ascii_lowercase().starts_with("application/json") {
        return Err(HttpError::unsupported_media_type(
            "Content-Type must be application/json",
        ));
    }
    let body: &[u8] = req.body().as_ref();
    if body.len() > MAX_BODY {
        return Err(HttpError::PayloadTooLarge);
    }
    Ok(body)
}

/// The bearer token of the `Authorization` header (RFC 6750 §2.1), if any: the initial
/// access token of a registration, the registration access token of the management calls.
fn bearer(req: &Request) -> Result<Option<String>, HttpError> {
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
