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

use lambda_http::Body;

use crate::random;
use crate::store::ClientStore;
use crate::App;
use crate::{
    base, check_realm, cookies, finish, query_pairs, single, HttpError, Request, Response,
};

/// A frameable page with one nonce'd inline script.
fn frame_page(app: &App, script: &str, connect_self: bool) -> Response {
    let nonce = random::token(app.random.as_ref(), 16);
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
        Body::Text(format!(
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>scanid</title></head><body>\
             <script nonce=\"{nonce}\">{script}</script></body></html>"
        )),
    )
}

const STEP1: &str =
    "document.cookie='KEYCLOAK_3P_COOKIE_SAMESITE=supported; Max-Age=60; SameSite=None; Secure';\
document.cookie='KEYCLOAK_3P_COOKIE=supported; Max-Age=60';\
window.location='step2.html';";

const STEP2: &str = "if(document.cookie.indexOf('KEYCLOAK_3P_COOKIE')!==-1){\
document.cookie='KEYCLOAK_3P_COOKIE_SAMESITE=; Max-Age=0; SameSite=None; Secure';\
document.cookie='KEYCLOAK_3P_COOKIE=; Max-Age=0';\
window.parent.postMessage('supported','*');}else{window.parent.postMessage('unsupported','*');}";

/// The four pages, by path (one Lambda function serves them all).
pub async fn page(app: &App, req: Request) -> Result<Response, HttpError> {
    check_realm(app, &req)?;
    let path = req.uri().path();
    if path.ends_with("/3p-cookies/step1.html") {
        Ok(frame_page(app, STEP1, false))
    } else if path.ends_with("/3p-cookies/step2.html") {
        Ok(frame_page(app, STEP2, false))
    } else if path.ends_with("/login-status-iframe.html") {
        Ok(login_status_iframe(app))
    } else if path.ends_with("/login-status-iframe.html/init") {
        login_status_iframe_init(app, &req).await
    } else {
        Err(HttpError::NotFound)
    }
}

/// `GET .../protocol/openid-connect/login-status-iframe.html`
fn login_status_iframe(app: &App) -> Response {
    let cookie = serde_json::to_string(&cookies::session_state(app)).unwrap_or_default();
    let script = format!(
        "var init,COOKIE={cookie};\
function state(){{var p=document.cookie.split(';');for(var i=0;i<p.length;i++){{var c=p[i].trim();\
if(c.indexOf(COOKIE+'=')===0)return c.substring(COOKIE.length+1);}}return '';}}\
function check(clientId,origin,sessionState,done){{\
function compare(){{if(clientId===init.clientId&&origin===init.origin){{var s=state();\
if(!s){{done(sessionState!==''?'changed':'unchanged');}}else{{done(s===sessionState?'unchanged':'changed');}}}}else{{done('error');}}}}\
if(init){{compare();return;}}\
var r=new XMLHttpRequest();r.open('GET',location.href.split('?')[0]+'/init?client_id='+encodeURIComponent(clientId)+'&origin='+encodeURIComponent(origin),true);\
r.onreadystatechange=function(){{if(r.readyState!==4)return;if(r.status===204||r.status===1223){{init={{clientId:clientId,origin:origin}};compare();}}else{{done('error');}}}};r.send();}}\
window.addEventListener('message',function(e){{if(typeof e.data!=='string')return;var d=e.data.split(' ');if(d.length!==2)return;\
var o=e.origin;check(d[0],o,d[1],function(result){{e.source.postMessage(result,o);}});}},false);"
    );
    frame_page(app, &script, true)
}

/// `GET .../login-status-iframe.html/init?client_id=&origin=`: 204 when the client exists
/// and `origin` is one of its web origins, 403 otherwise.
async fn login_status_iframe_init(app: &App, req: &Request) -> Result<Response, HttpError> {
    let pairs = query_pairs(req);
    let (Some(client_id), Some(origin)) = (single(&pairs, "client_id"), single(&pairs, "origin"))
    else {
        return Err(HttpError::json(
            400,
            "invalid_request",
            "client_id and origin are required",
        ));
    };
    let allowed = crate::domain::client::validate_client_id(&client_id).is_ok()
        && app
            .store
            .client(&client_id, app.clock.now())
            .await?
            .is_some_and(|(c, _)| c.allows_origin(&origin));
    if allowed {
        Ok(finish(
            base(204).header("cache-control", "no-store"),
            Body::Empty,
        ))
    } else {
        Err(HttpError::json(
            403,
            "forbidden",
            "unknown client or origin",
        ))
    }
}
