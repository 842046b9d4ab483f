//! The authorization endpoint's side of pushed authorization requests (RFC 9126 §4): the
//! pushed request a `request_uri` names, spent by this read.

use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::pushed;
use crate::protocol::Params;
use crate::store::{PushedRequests, StoreError};

/// The pushed request's parameters when the request names one (`client_id` and a
/// `urn:ietf:params:oauth:request_uri:...`), spent by this read; `Ok(None)` for a request
/// that names none (another `request_uri`, by reference, OIDC Core §6.2, is refused by the
/// validation as `request_uri_not_supported`); `Err(why)` when it is unknown, used, expired
/// or another client's: an error page, as the redirect URI is unknown then.
pub async fn params_of(
    ctx: &Context,
    params: &Params,
    now: Timestamp,
) -> Result<Result<Option<Params>, &'static str>, StoreError> {
    let Some(uri) = params
        .one("request_uri")
        .ok()
        .flatten()
        .filter(|u| u.starts_with(pushed::URN_PREFIX))
    else {
        return Ok(Ok(None));
    };
    if params.one("request").ok().flatten().is_some() {
        return Ok(Err("request and request_uri cannot both be sent"));
    }
    let Some(hash) = pushed::hash_of(uri) else {
        return Ok(Err(
            "request_uri is unknown, used or expired: push the request again",
        ));
    };
    let Ok(Some(client_id)) = params.one("client_id") else {
        return Ok(Err("client_id is required with request_uri"));
    };
    Ok(match ctx.store.take_pushed_request(&hash, now).await? {
        None => Err("request_uri is unknown, used or expired: push the request again"),
        Some(r) if r.client_id != client_id => Err("request_uri was pushed by another client"),
        Some(r) => Ok(Some(r.params())),
    })
}
