//! Keycloak's admin REST API (`{auth_url}/admin/serverinfo`, `{auth_url}/admin/realms/{realm}`
//! and its `clients...`): one handler for its routes (one Lambda function); the method and
//! the path say which call. Every call's authorization is the use case's; this parses and
//! renders.

use lambda_http::Body;

use crate::usecase::admin::{clients, info};
use crate::Context;
use crate::{base, finish, json, path_param, query_pairs, source, HttpError, Request, Response};

/// The largest body accepted: a client's representation is a few KB.
pub(crate) const MAX_BODY: usize = 64 * 1024;

/// Serves every admin route.
pub(crate) async fn admin(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    let token = crate::optional_bearer(&req)?;
    let token = token.as_deref();
    let src = source(&req);
    // `.../clients/` is `.../clients` (as API Gateway routes it; Keycloak's admin client
    // asks so).
    let path = req.uri().path().trim_end_matches('/').to_owned();
    let method = req.method().as_str().to_owned();
    if path.ends_with("/admin/serverinfo") {
        return Ok(no_store(json(
            200,
            &info::server_info(ctx, token, &src).await?,
        )));
    }
    let realm = path_param(&req, "realm").unwrap_or_default();
    if realm != ctx.settings.realm {
        // Another realm: authorized first, so its existence is no oracle.
        info::realm(ctx, token, &realm, &src).await?;
        return Err(HttpError::NotFound);
    }
    // `.../users...` and `.../groups`: the identities (Keycloak's users).
    let prefix = format!("/admin/realms/{realm}/");
    let rest = path.split_once(&prefix).map_or("", |(_, r)| r);
    if rest.starts_with("users") || rest.starts_with("groups") {
        return super::admin_users::serve(ctx, &req, token, &src, rest).await;
    }
    if let Some(answer) = super::admin_ops::serve(ctx, &req, token, &src).await {
        return answer;
    }
    let id = path_param(&req, "id");
    match (method.as_str(), id.as_deref()) {
        ("GET", None) if path.ends_with("/clients") => {
            let q = list_query(&req)?;
            Ok(no_store(json(
                200,
                &clients::list(ctx, token, &src, &q).await?,
            )))
        }
        ("POST", None) if path.ends_with("/clients") => {
            let body = body(&req)?;
            let id = clients::create(ctx, token, &src, body).await?;
            let location = format!(
                "{}/admin/realms/{}/clients/{}",
                ctx.settings.public_url.trim_end_matches('/'),
                ctx.settings.realm,
                utf8_percent(&id)
            );
            Ok(finish(base(201).header("location", location), Body::Empty))
        }
        ("GET", None) => Ok(no_store(json(
            200,
            &info::realm(ctx, token, &realm, &src).await?,
        ))),
        ("GET", Some(id)) if path.ends_with("/client-secret") => Ok(no_store(json(
            200,
            &clients::secret(ctx, token, &src, id).await?,
        ))),
        ("POST", Some(id)) if path.ends_with("/client-secret") => Ok(no_store(json(
            200,
            &clients::regenerate_secret(ctx, token, &src, id).await?,
        ))),
        ("GET", Some(id)) if path.ends_with("/service-account-user") => Ok(no_store(json(
            200,
            &clients::service_account_user(ctx, token, &src, id).await?,
        ))),
        ("GET", Some(id)) => Ok(no_store(json(
            200,
            &clients::read(ctx, token, &src, id).await?,
        ))),
        ("PUT", Some(id)) => {
            let body = body(&req)?;
            clients::update(ctx, token, &src, id, body).await?;
            Ok(no_content())
        }
        ("DELETE", Some(id)) => {
            clients::delete(ctx, token, &src, id).await?;
            Ok(no_content())
        }
        _ => Err(HttpError::NotFound),
    }
}

pub(crate) fn no_content() -> Response {
    finish(base(204), Body::Empty)
}

/// Admin answers are never cached (a regenerated secret among them).
pub(crate) fn no_store(mut r: Response) -> Response {
    r.headers_mut().insert(
        http::header::CACHE_CONTROL,
        http::HeaderValue::from_static("no-store"),
    );
    r
}

/// A path segment: every byte but RFC 3986's unreserved characters percent-encoded.
fn utf8_percent(s: &str) -> String {
    const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    percent_encoding::utf8_percent_encode(s, SEGMENT).to_string()
}

/// `?clientId=&search=&first=&max=`; a malformed number is a 400.
fn list_query(req: &Request) -> Result<clients::ListQuery, HttpError> {
    let mut q = clients::ListQuery::default();
    for (k, v) in query_pairs(req) {
        let number = || {
            v.parse::<usize>()
                .map_err(|_| HttpError::bad_request("first and max are non-negative integers"))
        };
        match k.as_str() {
            "clientId" => q.client_id = Some(v.clone()),
            "search" => q.search = v == "true",
            "first" => q.first = number()?,
            "max" => q.max = Some(number()?),
            _ => {}
        }
    }
    Ok(q)
}

/// The JSON body (`Content-Type: application/json`), at most [`MAX_BODY`] bytes.
pub(crate) fn body(req: &Request) -> Result<&[u8], HttpError> {
    crate::json_bytes(req, MAX_BODY)
}
