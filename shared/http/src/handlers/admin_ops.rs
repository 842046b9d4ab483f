//! The admin API's operations beside clients and users: `events` and `admin-events` (the
//! stored audit events), `keys` (the signing keys). Reached from [`super::admin::admin`] once the realm is checked.

use crate::usecase::admin::events::{self, EventsQuery};
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
    let answer = match method {
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
        "GET" if path.ends_with("/keys") => crate::usecase::admin::keys::keys(ctx, token, src)
            .await
            .map(|v| no_store(json(200, &v)))
            .map_err(HttpError::from),
        _ => return None,
    };
    Some(answer)
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
