//! The device API (app protocol §1, §3, §4), the endpoints the phone calls: sign-up, reading a
//! scanned QR login, approving or denying it, the profile and the device key. Each handler
//! parses, calls one use case ([`crate::usecase::app`]) and renders.

use serde::Deserialize;
use serde_json::json;

use crate::cookies;
use crate::domain::identity::Identity;
use crate::geoip::Geo;
use crate::usecase::app::{self, Assessment, Decision, Scanned};
use crate::usecase::device_grant;
use crate::Context;
use crate::{
    check_realm, json, json_body, path_param, query_pairs, single, source, source_ip, wants_json,
    HttpError, Request, Response,
};

#[derive(Deserialize)]
struct SignupBody {
    registration: String,
}

/// `POST .../app/identities`: sign-up with proof of possession of the device key.
pub(crate) async fn signup(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let body: SignupBody = json_body(&req)?;
    let ident = app::signup(ctx, &body.registration, &source(&req)).await?;
    Ok(json(201, &identity_json(&ident)?))
}

/// An identity as the device API returns it: its public profile with `sub` and `service_id`.
fn identity_json(i: &Identity) -> Result<serde_json::Value, HttpError> {
    let mut out = serde_json::to_value(i.public_profile()).map_err(|_| HttpError::Internal)?;
    out["sub"] = json!(i.sub);
    out["service_id"] = json!(i.service_id);
    Ok(out)
}

fn not_found() -> HttpError {
    HttpError::not_found("unknown or expired login session, or a wrong challenge")
}

/// `GET .../app/scan?session=&challenge=`: what the app shows before approving (Q3). A
/// browser (no `Accept: application/json`), i.e. a phone's camera opening the QR's link, gets
/// the web app ([`super::app`]), which asks this same URL for the JSON.
pub(crate) async fn scan(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    if !wants_json(&req) {
        return super::app::shell(ctx, &req);
    }
    let pairs = query_pairs(&req);
    if let Some(user_code) = single(&pairs, "user_code") {
        return scan_user_code(ctx, &req, &user_code).await;
    }
    let (Some(id), Some(challenge)) = (single(&pairs, "session"), single(&pairs, "challenge"))
    else {
        return Err(not_found());
    };
    // A web app on the issuer's origin, in the browser that started the login, sends that
    // login's binding cookie: the proof of "started on this phone" (a native app has none).
    let browser_secret = cookies::get(&req, &cookies::login(ctx, &id));
    let proof = match req.headers().get("scanid-proof") {
        None => None,
        Some(v) => Some(
            v.to_str()
                .map_err(|_| HttpError::bad_request("Scanid-Proof: a compact JWS"))?,
        ),
    };
    let Scanned {
        login,
        client,
        user_code,
        started_here,
        assessment,
    } = app::scan_from(
        ctx,
        &id,
        &challenge,
        app::ScanBy {
            proof,
            browser_secret: browser_secret.as_deref(),
            who: &source(&req),
            phone_ip: &source_ip(&req),
        },
    )
    .await?;
    // A login that stands for a device authorization names no redirect URI of the client.
    let host = if user_code.is_some() {
        String::new()
    } else {
        url::Url::parse(&login.request.redirect_uri)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_default()
    };
    let mut out = json!({
        "session": login.id,
        // A self-registered client (RFC 7591) chose its own name: the app says so, as the
        // consent page does.
        "client": {
            "client_id": client.client_id,
            "name": client.name,
            "redirect_host": host,
            "self_registered": crate::domain::registration::self_registered(&client),
        },
        "scopes": login.request.scopes,
        // The resource servers (RFC 8707) its access tokens would be for: shown to the person.
        "resources": login.request.resources,
        "browser": {
            "ip": login.browser_ip,
            "user_agent": login.user_agent,
            "agent": crate::agent::summary(&login.user_agent),
            "location": assessment.browser.location,
            "network": assessment.browser.network,
        },
        "started_here": started_here,
        "expires_at": login.expires_at.to_rfc3339_millis(),
        "requested_at": login.created_at.to_rfc3339_millis(),
        // Number matching: the page shows one of these; the approval names it.
        "number_choices": login.number_choices(),
    });
    where_from(&mut out, &assessment);
    if let Some(code) = user_code {
        out["user_code"] = json!(code);
        device_request(&mut out);
    }
    // Started in this very browser (it holds the login's binding cookie): a phone that opened
    // the app from its own login page has left the page that shows the number, and this
    // browser may read it from its status poll anyway.
    if started_here {
        if let Some(n) = login.number {
            out["number"] = json!(n);
        }
    }
    Ok(json(200, &out))
}

/// The phone's own address and place, the risk flags and whether the client's policy
/// refuses them (issue 24), added to a scan answer.
pub(crate) fn where_from(out: &mut serde_json::Value, a: &Assessment) {
    let Geo { location, network } = &a.phone;
    out["phone"] = json!({ "ip": a.phone_ip, "location": location, "network": network });
    out["flags"] = json!(a.flags);
    out["refused"] = json!(!a.refused.is_empty());
}

/// A device authorization's scan answer (by its user code, or by the QR of the page where
/// the code was typed): `browser` is the device (its address, and a user agent it chose
/// itself), and the app must say that a device code is a request from a device the person is
/// holding (RFC 8628 §5.4).
fn device_request(out: &mut serde_json::Value) {
    out["device_request"] = json!({
        "notice": device_grant::DEVICE_NOTICE,
        "user_agent_chosen_by_device": true,
    });
}

/// `GET .../app/scan?user_code=XXXX-XXXX`: the app scanned a device's
/// `verification_uri_complete` (RFC 8628 §3.3.1). The answer is a scanned login session, with
/// the challenge its decision names (`POST .../app/login-sessions/{session}` as for any
/// login), and the user code to compare with the device's screen.
async fn scan_user_code(
    ctx: &Context,
    req: &Request,
    user_code: &str,
) -> Result<Response, HttpError> {
    let s = device_grant::scan_user_code(ctx, user_code, &source(req)).await?;
    let a = app::assess(
        ctx,
        &s.login,
        &s.client,
        &source_ip(req),
        None,
        ctx.clock.now(),
    )
    .await?;
    let mut out = json!({
        "session": s.login.id,
        "challenge": s.challenge,
        "user_code": s.user_code,
        "client": {
            "client_id": s.client.client_id,
            "name": s.client.name,
            "redirect_host": "",
            "self_registered": crate::domain::registration::self_registered(&s.client),
        },
        "scopes": s.login.request.scopes,
        "resources": s.login.request.resources,
        "browser": {
            "ip": s.login.browser_ip,
            "user_agent": s.login.user_agent,
            "agent": crate::agent::summary(&s.login.user_agent),
            "location": a.browser.location,
            "network": a.browser.network,
        },
        // A device authorization is another device by definition.
        "started_here": false,
        "expires_at": s.login.expires_at.to_rfc3339_millis(),
        "requested_at": s.login.created_at.to_rfc3339_millis(),
    });
    where_from(&mut out, &a);
    device_request(&mut out);
    Ok(json(200, &out))
}

#[derive(Deserialize)]
struct DecideBody {
    approval: String,
}

/// `POST .../app/login-sessions/{login_session_id}`: approve or deny, signed by the device key.
pub(crate) async fn decide(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let id = path_param(&req, "login_session_id")
        .filter(|i| i.len() <= 64)
        .ok_or_else(not_found)?;
    let body: DecideBody = json_body(&req)?;
    let status = match app::decide(ctx, &id, &body.approval, &source(&req)).await? {
        Decision::Approve => "approved",
        Decision::Deny => "denied",
    };
    Ok(json(200, &json!({ "status": status })))
}

#[derive(Deserialize)]
struct UpdateBody {
    update: String,
}

/// The identity named in the path.
pub(crate) fn path_sub(req: &Request) -> Result<String, HttpError> {
    path_param(req, "sub").ok_or_else(|| HttpError::not_found("unknown identity"))
}

/// `PATCH .../app/identities/{sub}`: a profile update signed by the device key.
pub(crate) async fn update_profile(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let body: UpdateBody = json_body(&req)?;
    let ident = app::update_profile(ctx, &path_sub(&req)?, &body.update).await?;
    Ok(json(200, &identity_json(&ident)?))
}

#[derive(Deserialize)]
struct RotationBody {
    rotation: String,
}

/// `POST .../app/identities/{sub}/key`: device-key rotation. The request is signed by the old
/// key and carries the new key with a proof of possession signed by the new key.
pub(crate) async fn rotate_key(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let body: RotationBody = json_body(&req)?;
    let ident = app::rotate_key(ctx, &path_sub(&req)?, &body.rotation).await?;
    Ok(json(200, &identity_json(&ident)?))
}

/// `GET .../app/names/{name}`: whether a name is free, so the sign-up form can say at once
/// that it is taken. Names are public (the directory shows them); a malformed name is a 400
/// with the rule.
pub(crate) async fn name(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let name = path_param(&req, "name").unwrap_or_default();
    let available = app::name_available(ctx, &name, &source(&req)).await?;
    Ok(json(200, &json!({ "name": name, "available": available })))
}

#[derive(Deserialize)]
struct DeletionBody {
    deletion: String,
}

/// `DELETE .../app/identities/{sub}`: the identity deletes itself, signed by its device key.
pub(crate) async fn delete_identity(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let body: DeletionBody = json_body(&req)?;
    app::delete_identity(ctx, &path_sub(&req)?, &body.deletion, &source(&req)).await?;
    Ok(json(200, &json!({ "status": "deleted" })))
}

#[derive(Deserialize)]
struct ActivityBody {
    activity: String,
}

/// `POST .../app/identities/{sub}/activity`: the identity's recent logins, newest first, for
/// its own device (a signed request: where someone logs in is nobody else's business).
pub(crate) async fn activity(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let path = req.uri().path();
    if path.ends_with("/delegations") || path.ends_with("/delegations/withdraw") {
        return delegations(ctx, req).await;
    }
    if path.ends_with("/backchannel-requests") || path.ends_with("/backchannel-requests/open") {
        return super::backchannel::requests(ctx, req).await;
    }
    if path.ends_with("/push-subscriptions") || path.ends_with("/push-subscriptions/withdraw") {
        return push_subscriptions(ctx, req).await;
    }
    let body: ActivityBody = json_body(&req)?;
    let logins = app::recent_logins(ctx, &path_sub(&req)?, &body.activity).await?;
    let logins: Vec<_> = logins.iter().map(activity_json).collect();
    Ok(json(200, &json!({ "logins": logins })))
}

#[derive(Deserialize)]
struct PushBody {
    #[serde(default)]
    subscribe: Option<String>,
    #[serde(default)]
    withdraw: Option<String>,
}

/// `POST .../app/identities/{sub}/push-subscriptions`: with `subscribe` (a signed
/// `push-subscribe+jwt`), registers the subscription; without, only the key to subscribe
/// with. `POST .../push-subscriptions/withdraw` (`withdraw`, a `push-withdraw+jwt`):
/// withdraws one. Each answer names the key (`null`: this service sends no push).
async fn push_subscriptions(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    let body: PushBody = json_body(&req)?;
    let sub = path_sub(&req)?;
    let key = app::application_server_key(ctx);
    if req.uri().path().ends_with("/withdraw") {
        let request = body.withdraw.ok_or_else(|| {
            HttpError::bad_request("withdraw: a signed push-withdraw+jwt is required")
        })?;
        let withdrawn = app::withdraw_push(ctx, &sub, &request).await?;
        return Ok(json(
            200,
            &json!({ "withdrawn": withdrawn, "application_server_key": key }),
        ));
    }
    let subscribed = match body.subscribe {
        Some(request) => {
            app::subscribe(ctx, &sub, &request).await?;
            true
        }
        None => false,
    };
    Ok(json(
        200,
        &json!({ "subscribed": subscribed, "application_server_key": key }),
    ))
}

#[derive(Deserialize)]
struct DelegationsBody {
    #[serde(default)]
    delegations: Option<String>,
    #[serde(default)]
    withdraw: Option<String>,
}

/// `POST .../app/identities/{sub}/delegations` (`delegations+jwt`): the agents the identity
/// delegates to; `POST .../delegations/withdraw` (`withdraw+jwt` naming the agent): withdraws
/// one, and the agent's exchanged tokens stop working at once.
async fn delegations(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    let body: DelegationsBody = json_body(&req)?;
    let sub = path_sub(&req)?;
    if req.uri().path().ends_with("/withdraw") {
        let request = body
            .withdraw
            .ok_or_else(|| HttpError::bad_request("withdraw: a signed withdraw+jwt is required"))?;
        let withdrawn = app::withdraw(ctx, &sub, &request).await?;
        let status = if withdrawn { "withdrawn" } else { "none" };
        return Ok(json(200, &json!({ "status": status })));
    }
    let request = body.delegations.ok_or_else(|| {
        HttpError::bad_request("delegations: a signed delegations+jwt is required")
    })?;
    let list: Vec<_> = app::delegations(ctx, &sub, &request)
        .await?
        .into_iter()
        .map(|d| {
            json!({
                "client_id": d.client_id,
                "client_name": d.client_name,
                "scopes": d.scopes,
                "resources": d.resources,
                "granted_at": d.granted_at.to_rfc3339_millis(),
            })
        })
        .collect();
    Ok(json(200, &json!({ "delegations": list })))
}

/// One recent login as the app sees it.
fn activity_json(l: &crate::domain::identity::LoginActivity) -> serde_json::Value {
    json!({
        "id": l.id,
        "at": l.at.to_rfc3339_millis(),
        "client_id": l.client_id,
        "client_name": l.client_name,
        "outcome": l.outcome,
        "method": l.method,
        "browser_ip": l.browser_ip,
        "user_agent": l.user_agent,
        "location": l.location,
        "network": l.network,
        "flags": l.flags,
        "reported": l.reported_at.is_some(),
        "reported_at": l.reported_at.map(|t| t.to_rfc3339_millis()),
    })
}

#[derive(Deserialize)]
struct ReportBody {
    report: String,
}

/// `POST .../app/identities/{sub}/logins/{login_id}/report`: "this wasn't me", signed by the
/// device key (`report+jwt` naming the entry in `login`). The login's tokens are revoked
/// (`tokens_revoked`), its session ends if still live (`session_ended`; its clients get
/// back-channel logout); the entry, marked reported.
pub(crate) async fn report(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    if req.uri().path().ends_with("/sign-out") {
        return sign_out(ctx, req).await;
    }
    let body: ReportBody = json_body(&req)?;
    let id = path_param(&req, "login_id").unwrap_or_default();
    let done = app::report_login(ctx, &path_sub(&req)?, &id, &body.report, &source(&req)).await?;
    Ok(json(
        200,
        &json!({
            "status": "reported",
            "login": activity_json(&done.entry),
            "session_ended": done.session_ended,
            "tokens_revoked": done.sid.is_some(),
        }),
    ))
}

#[derive(Deserialize)]
struct SignOutBody {
    sign_out: String,
}

/// `POST .../app/identities/{sub}/sign-out`: "sign out everywhere", signed by any of the
/// identity's keys (`sign-out+jwt`): every session and token ends, the sessions' clients get
/// back-channel logout (served by the `app-report` function, which signs those tokens too).
async fn sign_out(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    let body: SignOutBody = json_body(&req)?;
    let ended =
        app::sign_out_everywhere(ctx, &path_sub(&req)?, &body.sign_out, &source(&req)).await?;
    Ok(json(
        200,
        &json!({ "status": "signed_out", "sessions_ended": ended }),
    ))
}

#[derive(Deserialize)]
struct PhotoBody {
    upload: String,
    /// The image, standard base64.
    image: String,
}

/// `POST .../app/identities/{sub}/photo`: a profile photo upload, signed by the device key
/// (`photo+jwt` carrying the image's `sha256`); the identity with its new photo URL.
pub(crate) async fn upload_photo(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let body: PhotoBody = json_body(&req)?;
    let image = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, &body.image)
        .map_err(|_| HttpError::bad_request("image: standard base64"))?;
    let ident = app::upload_photo(ctx, &path_sub(&req)?, &body.upload, &image).await?;
    Ok(json(200, &identity_json(&ident)?))
}
