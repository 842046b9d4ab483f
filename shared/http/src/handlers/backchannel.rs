//! The app's side of OpenID CIBA (app protocol §4): the backchannel requests waiting for the
//! identity, and one opened for the approval screen (then decided at
//! `POST .../app/login-sessions/{session}` like a scanned QR login). The client's side is the
//! backchannel authentication endpoint ([`super::device_grant`]) and the token endpoint.

use serde::Deserialize;
use serde_json::json;

use crate::usecase::app::{self, OpenedBackchannel};
use crate::Context;
use crate::{json, json_body, source, HttpError, Request, Response};

#[derive(Deserialize)]
struct Body {
    #[serde(default)]
    requests: Option<String>,
    #[serde(default)]
    open: Option<String>,
}

/// `POST .../app/identities/{sub}/backchannel-requests` (`backchannel+jwt`): the requests
/// waiting for the identity; `POST .../backchannel-requests/open` (`backchannel-open+jwt`
/// naming one): that request as a scanned login session, for the approval screen.
pub(crate) async fn requests(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    let body: Body = json_body(&req)?;
    let sub = super::device_api::path_sub(&req)?;
    if req.uri().path().ends_with("/open") {
        let request = body.open.ok_or_else(|| {
            HttpError::bad_request("open: a signed backchannel-open+jwt is required")
        })?;
        let o = app::open_backchannel(ctx, &sub, &request, &source(&req)).await?;
        return Ok(json(200, &opened(&o)));
    }
    let request = body
        .requests
        .ok_or_else(|| HttpError::bad_request("requests: a signed backchannel+jwt is required"))?;
    let list: Vec<_> = app::backchannel_requests(ctx, &sub, &request)
        .await?
        .into_iter()
        .map(|p| {
            json!({
                "id": p.id,
                "client": {
                    "client_id": p.client_id,
                    "name": p.client_name,
                    "host": p.client_host,
                    "self_registered": p.self_registered,
                },
                "binding_message": p.binding_message,
                "delegation": p.delegation,
                "scopes": p.scopes,
                "resources": p.resources,
                "requested_at": p.requested_at.to_rfc3339_millis(),
                "expires_at": p.expires_at.to_rfc3339_millis(),
                "from": {
                    "ip": p.ip,
                    "user_agent": p.user_agent,
                    "agent": crate::agent::summary(&p.user_agent),
                },
            })
        })
        .collect();
    Ok(json(200, &json!({ "requests": list })))
}

/// An opened request as a scan answer: the same fields as a scanned QR login's, with the
/// binding message and `backchannel: true`.
fn opened(o: &OpenedBackchannel) -> serde_json::Value {
    let a = &o.assessment;
    let l = &o.login;
    let mut out = json!({
        "session": l.id,
        "challenge": o.challenge,
        "backchannel": true,
        "binding_message": o.binding_message,
        "delegation": o.delegation,
        "client": {
            "client_id": o.client.client_id,
            "name": o.client.name,
            "redirect_host": app::backchannel::client_host(&o.client),
            "self_registered": crate::domain::registration::self_registered(&o.client),
        },
        "scopes": l.request.scopes,
        "resources": l.request.resources,
        "browser": {
            "ip": l.browser_ip,
            "user_agent": l.user_agent,
            "agent": crate::agent::summary(&l.user_agent),
            "location": a.browser.location,
            "network": a.browser.network,
        },
        "started_here": false,
        "expires_at": l.expires_at.to_rfc3339_millis(),
        "requested_at": l.created_at.to_rfc3339_millis(),
    });
    super::device_api::where_from(&mut out, a);
    out
}
