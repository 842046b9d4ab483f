//! Discovery (spec 4.1; OpenID Connect Discovery 1.0 §4; RFC 8414) and the JWKS (RFC 7517 §5), both
//! served from bytes prepared once at start.

use lambda_http::Body;

use crate::Context;
use crate::{base, check_realm, finish, HttpError, Request, Response};

/// Clients may cache both documents for [`crate::keys::fresh::JWKS_MAX_AGE_SECS`] (four
/// minutes): a new key is published as `next` five minutes before it signs, and every process
/// sees it within a minute ([`crate::keys::fresh`]).
const CACHE: &str = "public, max-age=240";

fn cached_json(bytes: &bytes::Bytes) -> Response {
    finish(
        base(200)
            .header("content-type", "application/json")
            .header("cache-control", CACHE)
            // Public metadata: browser-based relying parties read it cross-origin.
            .header("access-control-allow-origin", "*"),
        Body::Binary(bytes.to_vec()),
    )
}

/// `GET /realms/{realm}/.well-known/openid-configuration`, and the same document as RFC 8414
/// Authorization Server Metadata at `GET /realms/{realm}/.well-known/oauth-authorization-server`
/// and `GET /.well-known/oauth-authorization-server/realms/{realm}`
/// ([`crate::domain::discovery`]).
///
/// The same function answers the protected resource metadata (RFC 9728) of scanid's own
/// APIs at `GET /.well-known/oauth-protected-resource/realms/{realm}` (and
/// `/realms/{realm}/.well-known/oauth-protected-resource`).
pub(crate) async fn discovery(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    if req.uri().path().contains("/oauth-protected-resource") {
        let doc = crate::domain::discovery::protected_resource(&ctx.settings);
        return Ok(cached_json(&bytes::Bytes::from(
            serde_json::to_vec(&doc).unwrap_or_default(),
        )));
    }
    Ok(cached_json(&ctx.discovery_json))
}

/// `GET /realms/{realm}/protocol/openid-connect/certs`: public members only (docs/requirements.md D2).
pub(crate) async fn jwks(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    Ok(cached_json(&ctx.keyring().await.jwks_json()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_cache_header_says_the_rotation_schedule_s_max_age() {
        assert_eq!(
            super::CACHE,
            format!("public, max-age={}", crate::keys::fresh::JWKS_MAX_AGE_SECS)
        );
    }
}
