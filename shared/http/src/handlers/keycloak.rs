//! Pages Keycloak's JavaScript adapter (`keycloak-js`) loads with its default options, served
//! as Keycloak serves them, so an SPA switches from Keycloak by changing its URL:
//!
//! * `3p-cookies/step1.html` and `step2.html`: the third-party-cookie probe. Step 1 sets a test
//!   cookie and moves to step 2, which tells the parent page whether it came back.
//! * `login-status-iframe.html`: OIDC Session Management 1.0's OP iframe (discovery's
//!   `check_session_iframe`). The relying party posts `"<client_id> <session_state>"`; the
//!   frame answers `unchanged`, `changed` or `error` by comparing `session_state` (scanid's
//!   `sid`) with the session-state cookie, after `login-status-iframe.html/init` confirmed the
//!   client and its origin.
//!
//! These pages are made to be framed by relying parties, so unlike the login pages they allow
//! any `frame-ancestors`; they hold no data and act on nothing.

use askama::Template;
use lambda_http::Body;

use crate::random;
use crate::usecase::origins;
use crate::views;
use crate::Context;
use crate::{
    base, check_realm, cookies, finish, query_pairs, single, HttpError, Request, Response,
};

/// A frameable page with one nonce'd inline script, `script` (a static file of
/// [`crate::views`]); `cookie` names the session-state cookie for the login-status script.
fn frame_page(
    ctx: &Context,
    script: &'static str,
    cookie: Option<&str>,
    connect_self: bool,
) -> Response {
    let nonce = random::token(ctx.random.as_ref(), 16);
    let html = match (views::FramePage {
        nonce: &nonce,
        script,
        cookie,
    })
    .render()
    {
        Ok(html) => html,
        Err(e) => {
            tracing::error!(error = %e, "rendering a page");
            return finish(base(500).header("cache-control", "no-store"), Body::Empty);
        }
    };
    let connect = if connect_self {
        " connect-src 'self';"
    } else {
        ""
    };
    let csp = format!("default-src 'none'; script-src 'nonce-{nonce}';{connect} frame-ancestors *");
    finish(
        base(200)
            .header("content-type", "text/html; charset=utf-8")
            .header("content-security-policy", csp)
            .header("referrer-policy", "no-referrer")
            .header("cache-control", "no-store"),
        Body::Text(html),
    )
}

/// The four pages, by path (one Lambda function serves them all).
pub(crate) async fn page(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let path = req.uri().path();
    if path.ends_with("/3p-cookies/step1.html") {
        Ok(frame_page(
            ctx,
            views::THIRD_PARTY_COOKIES_STEP1_JS,
            None,
            false,
        ))
    } else if path.ends_with("/3p-cookies/step2.html") {
        Ok(frame_page(
            ctx,
            views::THIRD_PARTY_COOKIES_STEP2_JS,
            None,
            false,
        ))
    } else if path.ends_with("/login-status-iframe.html") {
        Ok(login_status_iframe(ctx))
    } else if path.ends_with("/login-status-iframe.html/init") {
        login_status_iframe_init(ctx, &req).await
    } else {
        Err(HttpError::NotFound)
    }
}

/// `GET .../protocol/openid-connect/login-status-iframe.html`
fn login_status_iframe(ctx: &Context) -> Response {
    let cookie = cookies::session_state(ctx);
    frame_page(ctx, views::LOGIN_STATUS_JS, Some(&cookie), true)
}

/// `GET .../login-status-iframe.html/init?client_id=&origin=`: 204 when the client exists
/// and `origin` is one of its web origins, 403 otherwise.
async fn login_status_iframe_init(ctx: &Context, req: &Request) -> Result<Response, HttpError> {
    let pairs = query_pairs(req);
    let (Some(client_id), Some(origin)) = (single(&pairs, "client_id"), single(&pairs, "origin"))
    else {
        return Err(HttpError::bad_request("client_id and origin are required"));
    };
    if origins::client_allows(ctx, &client_id, &origin).await? {
        Ok(finish(
            base(204).header("cache-control", "no-store"),
            Body::Empty,
        ))
    } else {
        Err(HttpError::forbidden(
            "forbidden",
            "unknown client or origin",
        ))
    }
}
