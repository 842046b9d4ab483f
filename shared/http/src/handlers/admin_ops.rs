//! The admin API's operations beside clients and users: `events` and `admin-events` (the
//! stored audit events) and `events/config` (how they are kept), `keys` (the signing keys,
//! their rotation steps). Reached from [`super::admin::admin`] once the realm is checked.

use crate::usecase::admin::events::{self, EventsQuery};
use crate::usecase::admin::keys;
use crate::Context;
use crate::{json, query_pairs, HttpError, Request, Response};

use super::admin::no_store;

/// Serves `req` if its path is one of these operations' (`None`: not one of them).
pub(crate) async fn serve(
    ctx: &Context,
    req: &Request,
    token: Option<&str>,
    src: &crate::domain::ratelimit::Source,
) -> Option<Result<Response, HttpError>> {
    let path = req.uri().path();
    let method = req.method().as_str();
    let events_config = path.trim_end_matches('/').ends_with("/events/config");
    let answer = match method {
        "GET" if events_config => events::events_config(ctx, token, src)
            .await
            .map(|v| no_store(json(200, &v)))
            .map_err(HttpError::from),
        // The retention is a setting of the deployment, not a call (declared, so that API
        // Gateway answers as `scanid serve` does).
        "PUT" if events_config => Err(HttpError::MethodNotAllowed(vec!["GET"])),
        "GET" if path.ends_with("/admin-events") => {
            let q = match events_query(req, true) {
                Ok(q) => q,
                Err(e) => return Some(Err(e)),
            };
            events::admin_events(ctx, token, src, &q)
                .await
                .map(|v| no_store(json(200, &v)))
                .map_err(HttpError::from)
        }
        "GET" if path.ends_with("/events") => {
            let q = match events_query(req, false) {
                Ok(q) => q,
                Err(e) => return Some(Err(e)),
            };
            events::events(ctx, token, src, &q)
                .await
                .map(|v| no_store(json(200, &v)))
                .map_err(HttpError::from)
        }
        "GET" if path.ends_with("/keys") => keys::keys(ctx, token, src)
            .await
            .map(|v| no_store(json(200, &v)))
            .map_err(HttpError::from),
        "POST" if path.trim_end_matches('/').ends_with("/keys/rotate") => {
            let (alg, force) = match key_query(req) {
                Ok(q) => q,
                Err(e) => return Some(Err(e)),
            };
            keys::rotate(ctx, token, src, alg.as_deref(), force)
                .await
                .map(|v| no_store(json(200, &v)))
                .map_err(HttpError::from)
        }
        "DELETE" if path.contains("/keys/") => {
            let Some(kid) = crate::path_param(req, "kid") else {
                return Some(Err(HttpError::NotFound));
            };
            let force = match key_query(req) {
                Ok((_, force)) => force,
                Err(e) => return Some(Err(e)),
            };
            keys::remove(ctx, token, src, &kid, force)
                .await
                .map(|()| crate::finish(crate::base(204), lambda_http::Body::Empty))
                .map_err(HttpError::from)
        }
        "POST" if path.ends_with("/partialImport") => partial_import(ctx, req, token, src).await,
        _ => return None,
    };
    Some(answer)
}

/// The rotation calls' query: `alg` (`RS256`, the default, or `ES256`) and `force` (`true`:
/// skip the waits, as the CLI's `--force`).
fn key_query(req: &Request) -> Result<(Option<String>, bool), HttpError> {
    let mut alg = None;
    let mut force = false;
    for (k, v) in query_pairs(req) {
        match k.as_str() {
            "alg" => alg = Some(v),
            "force" => {
                force = match v.as_str() {
                    "true" => true,
                    "false" => false,
                    _ => return Err(HttpError::bad_request("force: true or false")),
                }
            }
            _ => {}
        }
    }
    Ok((alg, force))
}

/// Keycloak's query parameters: `type` (repeatable, or comma-separated), `client`, `user`,
/// `dateFrom`, `dateTo`, `first`, `max`; for admin events `operationTypes`, `authClient`,
/// `authUser`.
fn events_query(req: &Request, admin: bool) -> Result<EventsQuery, HttpError> {
    let mut q = EventsQuery::default();
    for (k, v) in query_pairs(req) {
        let number = || {
            v.parse::<usize>()
                .map_err(|_| HttpError::bad_request("first and max are non-negative integers"))
        };
        match (k.as_str(), admin) {
            ("type", false) | ("operationTypes", true) => q
                .types
                .extend(v.split(',').filter(|t| !t.is_empty()).map(str::to_owned)),
            ("client", false) | ("authClient", true) => q.client = Some(v.clone()),
            ("user", false) | ("authUser", true) => q.user = Some(v.clone()),
            ("dateFrom", _) => q.date_from = Some(v.clone()),
            ("dateTo", _) => q.date_to = Some(v.clone()),
            ("first", _) => q.first = number()?,
            ("max", _) => q.max = Some(number()?),
            _ => {}
        }
    }
    Ok(q)
}

/// The largest realm export accepted (a few hundred clients).
const MAX_IMPORT: usize = 1024 * 1024;

/// `POST .../partialImport`: Keycloak's `PartialImportRepresentation` (a realm export with
/// `ifResourceExists` `FAIL`, `SKIP` or `OVERWRITE`): its clients through the admin API's own
/// create and update calls (each authorized and audited as one), everything else listed in
/// `notImported`, what a client lost in `warnings`. With `FAIL` (the default) a client that
/// exists already stops the import before anything is written (409); with `OVERWRITE` a client
/// that cannot be overwritten does (403, 400).
async fn partial_import(
    ctx: &Context,
    req: &Request,
    token: Option<&str>,
    src: &crate::domain::ratelimit::Source,
) -> Result<Response, HttpError> {
    use crate::usecase::admin::clients;
    // Authorized first: an anonymous caller learns nothing about the body's checks.
    clients::list(
        ctx,
        token,
        src,
        &clients::ListQuery {
            max: Some(0),
            ..Default::default()
        },
    )
    .await?;
    let body: &[u8] = req.body().as_ref();
    if body.len() > MAX_IMPORT {
        return Err(HttpError::PayloadTooLarge);
    }
    let export: serde_json::Value =
        serde_json::from_slice(body).map_err(|_| HttpError::bad_request("the body is not JSON"))?;
    let policy = export
        .get("ifResourceExists")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("FAIL")
        .to_owned();
    if !["FAIL", "SKIP", "OVERWRITE"].contains(&policy.as_str()) {
        return Err(HttpError::bad_request(
            "ifResourceExists: FAIL, SKIP or OVERWRITE",
        ));
    }
    let plan = crate::domain::admin::import::plan(&export, ctx.settings.local_development())
        .map_err(HttpError::bad_request)?;
    let exists = existing(ctx, token, src, &plan.clients, &policy).await?;
    let (mut added, mut overwritten, mut skipped) = (0, 0, 0);
    let mut results = Vec::new();
    for ((id, rep), exists) in plan.clients.iter().zip(exists) {
        let bytes = rep.to_string();
        let action = match (exists, policy.as_str()) {
            (true, "SKIP") => {
                skipped += 1;
                "SKIPPED"
            }
            (true, _) => {
                clients::update(ctx, token, src, id, bytes.as_bytes()).await?;
                overwritten += 1;
                "OVERWRITTEN"
            }
            (false, _) => {
                clients::create(ctx, token, src, bytes.as_bytes()).await?;
                added += 1;
                "ADDED"
            }
        };
        results.push(serde_json::json!({
            "action": action, "resourceType": "CLIENT", "resourceName": id, "id": id,
        }));
    }
    Ok(no_store(json(
        200,
        &serde_json::json!({
            "added": added,
            "overwritten": overwritten,
            "skipped": skipped,
            "results": results,
            "notImported": plan.not_imported,
            "warnings": plan.warnings,
        }),
    )))
}

/// Which of the export's clients exist already; with `FAIL` one that does stops the import
/// (409), and with `OVERWRITE` every one it would replace is checked first (the caller's
/// reach, the export's settings), so a refusal writes nothing.
async fn existing(
    ctx: &Context,
    token: Option<&str>,
    src: &crate::domain::ratelimit::Source,
    plan: &[(String, serde_json::Value)],
    policy: &str,
) -> Result<Vec<bool>, HttpError> {
    use crate::usecase::admin::clients;
    use scanid_core::service::admin::AdminError;
    let mut exists = Vec::new();
    for (id, _) in plan {
        exists.push(match clients::read(ctx, token, src, id).await {
            Ok(_) => true,
            Err(AdminError::NotFound(_)) => false,
            Err(e) => return Err(e.into()),
        });
    }
    for ((id, rep), _) in plan.iter().zip(&exists).filter(|(_, e)| **e) {
        match policy {
            "FAIL" => {
                return Err(AdminError::Conflict(format!(
                    "client {id} exists already (ifResourceExists FAIL): nothing was imported"
                ))
                .into())
            }
            "OVERWRITE" => {
                clients::check_update(ctx, token, src, id, rep.to_string().as_bytes()).await?
            }
            _ => {}
        }
    }
    Ok(exists)
}
