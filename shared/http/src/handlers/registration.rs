//! Dynamic client registration (RFC 7591) and management (RFC 7592), at Keycloak's paths:
//! `POST .../clients-registrations/openid-connect` and `GET|PUT|DELETE` on
//! `.../clients-registrations/openid-connect/{client_id}`.

use lambda_http::Body;

use crate::domain::registration::{self, Registered, MAX_BODY};
use crate::usecase::registration as usecase;
use crate::Context;
use crate::{base, check_realm, finish, path_param, source, HttpError, Request, Response};

/// One handler for the four routes (one Lambda function); the method says which. Browser
/// clients (an MCP client in a web page) may call it from the operator's listed origins
/// (`--registration-cors-origin`), errors included; `OPTIONS` is their preflight.
pub(crate) async fn registration(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let listed = &ctx.settings.registration_cors_origins;
    if req.method() == http::Method::OPTIONS {
        return Ok(crate::cors::listed_preflight(
            &req,
            listed,
            "GET, POST, PUT, DELETE, OPTIONS",
        ));
    }
    let resp = match answer(ctx, &req).await {
        Ok(r) => r,
        Err(e) if listed.is_empty() => return Err(e),
        Err(e) => e.into_response(),
    };
    Ok(crate::cors::for_listed(&req, listed, resp))
}

async fn answer(ctx: &Context, req: &Request) -> Result<Response, HttpError> {
    let token = crate::optional_bearer(req)?;
    let token = token.as_deref();
    match (req.method().as_str(), path_param(req, "client_id")) {
        ("POST", None) => {
            let r = usecase::register(ctx, token, crate::json_bytes(req, MAX_BODY)?, &source(req))
                .await?;
            Ok(information(ctx, 201, &r))
        }
        ("GET", Some(id)) => {
            let r = usecase::read(ctx, &id, token).await?;
            Ok(information(ctx, 200, &r))
        }
        ("PUT", Some(id)) => {
            let r = usecase::update(ctx, &id, token, crate::json_bytes(req, MAX_BODY)?).await?;
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
