//! The public directory (spec 4.6-4.8): profiles by subject and by service identifier, and the
//! avatar redirect. No token needed; `ETag` + `Cache-Control` on 200s, `304` for a matching
//! `If-None-Match`, CORS open for GET. Unknown, malformed and oversized ids all get the same
//! 404 JSON (docs/requirements.md DIR2); the avatar redirects only to a photo URL validated when it was
//! written, and validated again here (DIR1).

use lambda_http::Body;

use crate::domain::identity::PublicProfile;
use crate::domain::{login, photo};
use crate::usecase::app;
use crate::usecase::directory::{self, Avatar};
use crate::Context;
use crate::{base, finish, path_param, HttpError, Request, Response};

fn not_found() -> HttpError {
    HttpError::not_found("identity not found")
}

fn cors(b: http::response::Builder) -> http::response::Builder {
    b.header("access-control-allow-origin", "*")
        .header("access-control-expose-headers", "ETag")
}

fn profile_response(req: &Request, profile: &PublicProfile) -> Result<Response, HttpError> {
    let body = serde_json::to_vec(profile).map_err(|_| HttpError::Internal)?;
    let etag = format!(
        "\"{}\"",
        &login::hash(&String::from_utf8_lossy(&body))[..22]
    );
    let (b, matches) = validated(req, etag, "public, max-age=60");
    Ok(if matches {
        finish(b, Body::Empty)
    } else {
        finish(
            b.header("content-type", "application/json"),
            Body::Binary(body),
        )
    })
}

/// A public answer with its `ETag` and `Cache-Control`: 304 when `If-None-Match` names the
/// `etag` (or `*`), else 200; and whether it was 304 (then the body stays empty).
fn validated(
    req: &Request,
    etag: String,
    cache_control: &'static str,
) -> (http::response::Builder, bool) {
    let matches = req
        .headers()
        .get(http::header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let b = cors(base(if matches { 304 } else { 200 }))
        .header("etag", etag)
        .header("cache-control", cache_control);
    (b, matches)
}

/// `GET /v1/directory/{sub}`
pub(crate) async fn by_sub(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    let sub = path_param(&req, "sub").ok_or_else(not_found)?;
    let profile = directory::profile_by_sub(ctx, &sub)
        .await?
        .ok_or_else(not_found)?;
    profile_response(&req, &profile)
}

/// `GET /v1/directory/profile/{service_id}`
pub(crate) async fn by_service_id(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    let sid = path_param(&req, "service_id").ok_or_else(not_found)?;
    let profile = directory::profile_by_service_id(ctx, &sid)
        .await?
        .ok_or_else(not_found)?;
    profile_response(&req, &profile)
}

/// `GET /v1/photos/{sub}/{hash}`: a hosted photo while it is its live identity's current
/// one, typed by its magic bytes, in a sandbox of its own (a photo is never a document),
/// cached for five minutes ([`photo::CACHE_CONTROL`]: a replaced or deleted photo must leave
/// caches soon).
pub(crate) async fn photo(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    let (sub, hash) = (path_param(&req, "sub"), path_param(&req, "hash"));
    let (Some(sub), Some(hash)) = (sub, hash) else {
        return Err(HttpError::not_found("photo not found"));
    };
    let (bytes, format) = app::hosted_photo(ctx, &sub, &hash)
        .await?
        .ok_or_else(|| HttpError::not_found("photo not found"))?;
    // Its name is its content: the hash is a strong validator. Checked only once the photo is
    // known to be served (a deleted one is 404, never 304).
    let etag = format!("\"{hash}\"");
    let (b, matches) = validated(&req, etag, photo::CACHE_CONTROL);
    if matches {
        return Ok(finish(b, Body::Empty));
    }
    Ok(finish(
        b.header("content-type", format.content_type())
            .header(
                "content-security-policy",
                "default-src 'none'; sandbox; frame-ancestors 'none'",
            )
            .header("cross-origin-resource-policy", "cross-origin"),
        Body::Binary(bytes),
    ))
}

/// `GET /v1/directory/{sub}/avatar`: 302 to the photo, 404 when there is none.
pub(crate) async fn avatar(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    let sub = path_param(&req, "sub").ok_or_else(not_found)?;
    let photo = match directory::avatar(ctx, &sub).await? {
        Avatar::NoIdentity => return Err(not_found()),
        Avatar::NoPhoto => return Err(HttpError::not_found("profile image not found")),
        Avatar::At(url) => url,
    };
    Ok(finish(
        cors(base(302))
            .header("location", photo)
            .header("cache-control", "public, max-age=300"),
        Body::Empty,
    ))
}
