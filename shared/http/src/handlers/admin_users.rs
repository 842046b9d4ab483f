//! The identities part of Keycloak's admin REST API (`.../users...` and `.../groups...`), called
//! from [`super::admin::admin`] once the realm is known to be this one. Parses and renders;
//! the authorization and the decisions are the use case's.

use crate::handlers::admin::{body, no_content, no_store};
use crate::usecase::admin::identities;
use crate::Context;
use crate::{json, path_param, query_pairs, HttpError, Request, Response};
use scanid_core::domain::admin::users::UserQuery;
use scanid_core::domain::ratelimit::Source;

/// Serves `.../users...` and `.../groups` (`rest`: the path after the realm).
pub(crate) async fn serve(
    ctx: &Context,
    req: &Request,
    token: Option<&str>,
    src: &Source,
    rest: &str,
) -> Result<Response, HttpError> {
    let id = path_param(req, "id");
    let group = path_param(req, "groupId");
    let method = req.method().as_str();
    let tail = rest.rsplit('/').next().unwrap_or("");
    let ok = |v: serde_json::Value| Ok(no_store(json(200, &v)));
    match (method, id.as_deref(), group.as_deref()) {
        ("GET", None, None) if rest == "groups" => {
            let q = user_query(req)?;
            let search = query_pairs(req)
                .into_iter()
                .find(|(k, _)| k == "search")
                .map(|(_, v)| v);
            let groups =
                identities::groups(ctx, token, src, search.as_deref(), q.first, q.max).await?;
            ok(groups.into())
        }
        // `groups/{id}` and `groups/{id}/members`, told apart by the raw path's segments (a
        // group's name may be `members`, or hold a `/` as `%2F`).
        ("GET", Some(name), None) if rest.starts_with("groups/") => {
            let q = user_query(req)?;
            match rest.split('/').count() {
                2 => ok(identities::group(ctx, token, src, name).await?),
                3 if rest.ends_with("/members") => {
                    let users = identities::members(ctx, token, src, name, q.first, q.max).await?;
                    ok(users.into())
                }
                _ => Err(HttpError::NotFound),
            }
        }
        ("GET", None, None) if rest == "users/count" => {
            let q = user_query(req)?;
            ok(identities::count(ctx, token, src, &q).await?.into())
        }
        ("GET", None, None) if rest == "users" => {
            let q = user_query(req)?;
            ok(identities::list(ctx, token, src, &q).await?.into())
        }
        ("GET", Some(id), None) if tail == "groups" => {
            ok(identities::groups_of(ctx, token, src, id).await?.into())
        }
        ("PUT" | "DELETE", Some(id), Some(g)) => {
            identities::set_group(ctx, token, src, id, g, method == "PUT").await?;
            Ok(no_content())
        }
        ("GET", Some(id), None) if tail == "sessions" => {
            ok(identities::sessions(ctx, token, src, id).await?.into())
        }
        ("GET", Some(id), None) if tail == "credentials" => {
            ok(identities::credentials(ctx, token, src, id).await?.into())
        }
        ("POST", Some(id), None) if tail == "logout" => {
            identities::logout(ctx, token, src, id).await?;
            Ok(no_content())
        }
        ("GET", Some(id), None) => ok(identities::read(ctx, token, src, id).await?),
        ("PUT", Some(id), None) => {
            let b = body(req)?;
            identities::update(ctx, token, src, id, b).await?;
            Ok(no_content())
        }
        ("DELETE", Some(id), None) => {
            identities::delete(ctx, token, src, id).await?;
            Ok(no_content())
        }
        _ => Err(HttpError::NotFound),
    }
}

/// `?search=&username=&exact=&enabled=&q=&email=&firstName=&lastName=&first=&max=`; a
/// malformed number is a 400.
fn user_query(req: &Request) -> Result<UserQuery, HttpError> {
    let mut q = UserQuery::default();
    for (k, v) in query_pairs(req) {
        let number = || {
            v.parse::<usize>()
                .map_err(|_| HttpError::bad_request("first and max are non-negative integers"))
        };
        match k.as_str() {
            "search" => q.search = Some(v.clone()),
            "username" => q.username = Some(v.clone()),
            "exact" => q.exact = v == "true",
            "enabled" => q.enabled = v.parse().ok(),
            "email" | "firstName" | "lastName" | "idpAlias" if !v.is_empty() => {
                q.unmatchable = true;
            }
            "q" => {
                for pair in v.split_whitespace() {
                    match pair.split_once(':') {
                        Some(("service_id", s)) => q.service_id = Some(s.to_owned()),
                        _ => q.unmatchable = true,
                    }
                }
            }
            "first" => q.first = number()?,
            "max" => q.max = Some(number()?),
            _ => {}
        }
    }
    Ok(q)
}
