//! The token endpoint (spec 4.3): client authentication, then one grant.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use crate::protocol::OAuthError;
use crate::protocol::Params;
use crate::usecase::token::{self, Presented};
use crate::Context;
use crate::{check_realm, cors, form_pairs, json, source, HttpError, Request, Response};

/// RFC 6749 §2.3.1 / App. B: `Authorization: Basic base64(urlencode(id):urlencode(secret))`.
pub(crate) fn basic_credentials(req: &Request) -> Result<Option<(String, String)>, HttpError> {
    let Some(h) = req.headers().get(http::header::AUTHORIZATION) else {
        return Ok(None);
    };
    let h = h
        .to_str()
        .map_err(|_| HttpError::InvalidClient("malformed Authorization header"))?;
    let Some((scheme, rest)) = h.split_once(' ') else {
        return Err(HttpError::InvalidClient("malformed Authorization header"));
    };
    if !scheme.eq_ignore_ascii_case("basic") {
        return Ok(None);
    }
    let decoded = STANDARD
        .decode(rest.trim())
        .map_err(|_| HttpError::InvalidClient("malformed Basic credentials"))?;
    let text = String::from_utf8(decoded)
        .map_err(|_| HttpError::InvalidClient("malformed Basic credentials"))?;
    let (id, secret) = text
        .split_once(':')
        .ok_or(HttpError::InvalidClient("malformed Basic credentials"))?;
    let dec = |s: &str| -> String {
        url::form_urlencoded::parse(format!("x={s}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    };
    Ok(Some((dec(id), dec(secret))))
}

/// A token-endpoint style JSON answer: `no-store` (docs/requirements.md T6).
pub(crate) fn no_store<T: serde::Serialize>(status: u16, v: &T) -> Response {
    let mut r = json(status, v);
    r.headers_mut()
        .insert("cache-control", http::HeaderValue::from_static("no-store"));
    r.headers_mut()
        .insert("pragma", http::HeaderValue::from_static("no-cache"));
    r
}

/// `POST .../token`
pub(crate) async fn token(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let params = Params::from_pairs(form_pairs(&req).map_err(|_| {
        OAuthError::invalid_request("the body must be application/x-www-form-urlencoded")
    })?);
    let presented = Presented::from_params(basic_credentials(&req)?, &params)?;
    let (client, issued) = token::token(ctx, &params, &presented, &source(&req)).await?;
    Ok(cors::for_client(
        &req,
        &client,
        no_store(200, &issued.response()),
    ))
}
