//! The browser side of login: the authorization endpoint (spec 4.2), the QR page, its status
//! poll, and the consent page (app protocol §2, §5).

use lambda_http::Body;
use serde_json::json;

use crate::domain::authorize::Params;
use crate::domain::consent::{csrf_token, ConsentInput, ConsentRefusal};
use crate::domain::identity::Identity;
use crate::domain::login::{self, LoginSession};
use crate::pages::{self, escape, Page};
use crate::store::typed::Versioned;
use crate::store::QrLogins;
use crate::usecase::login::{
    self as flow, AuthorizeDecision, BrowserCookies, BrowserSecret, CompleteError, ConsentOutcome,
};
use crate::App;
use crate::{
    base, check_realm, cookies, finish, get_or_post_params, json, query_pairs, single, source_ip,
    user_agent, HttpError, Request, Response,
};

/// `GET|POST .../protocol/openid-connect/auth`
pub async fn authorize(app: &App, req: Request) -> Result<Response, HttpError> {
    check_realm(app, &req)?;
    let (pairs, after_post) = get_or_post_params(&req)?;
    let restart = {
        let mut s = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in &pairs {
            s.append_pair(k, v);
        }
        s.finish()
    };
    let cookies = BrowserCookies {
        sso: cookies::get(&req, &cookies::sso(app)),
    };
    let decision = flow::authorize(
        app,
        &Params::from_pairs(pairs),
        &cookies,
        &source_ip(&req),
        &user_agent(&req),
        restart,
    )
    .await
    .map_err(HttpError::from_page_store)?;
    let rng = app.random.as_ref();
    // The binding cookie lives as long as the login's record (the page can learn "expired").
    let browser_cookie = |session: &LoginSession, secret: &BrowserSecret| {
        cookies::set(
            app,
            &cookies::login(app, &session.id),
            secret.expose(),
            Some(app.settings.lifetimes.login + login::RECORD_GRACE_SECS),
        )
    };
    Ok(match decision {
        AuthorizeDecision::ErrorPage(why) => {
            pages::error_page(400, "This login request is not valid", why, rng)
        }
        AuthorizeDecision::Respond(r) => pages::auth_response(&r, after_post, Vec::new(), rng),
        AuthorizeDecision::RateLimited { retry_after } => {
            return Err(HttpError::RateLimited {
                html: true,
                retry_after,
            })
        }
        AuthorizeDecision::ShowQr {
            session,
            client_name,
            browser_secret,
        } => qr_page(
            app,
            &session,
            &client_name,
            vec![browser_cookie(&session, &browser_secret)],
        ),
        AuthorizeDecision::AskConsent {
            session,
            browser_secret,
        } => finish(
            pages::security_headers(base(if after_post { 303 } else { 302 }))
                .header("location", consent_url(app, &session.id))
                .header("set-cookie", browser_cookie(&session, &browser_secret)),
            Body::Empty,
        ),
    })
}

fn consent_url(app: &App, session: &str) -> String {
    format!(
        "{}/login-actions/consent?session={session}",
        app.settings.issuer()
    )
}

fn status_url(app: &App, session: &str) -> String {
    format!(
        "{}/login-actions/status?session={session}",
        app.settings.issuer()
    )
}

fn restart_url(app: &App, s: &LoginSession) -> String {
    format!(
        "{}/protocol/openid-connect/auth?{}",
        app.settings.issuer(),
        s.restart_query
    )
}

/// The app link the QR encodes (app protocol §2).
pub fn app_link(app: &App, s: &LoginSession, now: crate::clock::Timestamp) -> String {
    format!(
        "{}/app/scan?session={}&challenge={}",
        app.settings.issuer(),
        s.id,
        s.current_challenge(now)
    )
}

/// A string as a JavaScript string literal that cannot end the script element.
fn js_string(s: &str) -> String {
    serde_json::to_string(s)
        .unwrap_or_else(|_| "\"\"".into())
        .replace("</", "<\\/")
}

const POLL_SCRIPT: &str = r#"(function(){
var link=document.getElementById('app-link'),qr=document.getElementById('qr'),state=document.getElementById('state');
function poll(){fetch(STATUS,{credentials:'same-origin',headers:{'Accept':'application/json'},cache:'no-store'})
.then(function(r){return r.ok?r.json():null}).then(function(s){
if(!s){state.textContent='This login request is no longer valid.';return;}
if(s.status==='pending'){if(s.app_link&&s.app_link!==link.getAttribute('data-qr-payload')){
link.setAttribute('href',s.app_link);link.setAttribute('data-qr-payload',s.app_link);qr.innerHTML=s.qr_svg;}
setTimeout(poll,1000);return;}
if(s.status==='expired'){qr.innerHTML='';state.textContent='This QR code has expired. ';
var a=document.createElement('a');a.href=s.restart;a.id='restart';a.textContent='Start again';state.appendChild(a);return;}
if(s.next){state.textContent='Approved. Continuing…';window.location.assign(s.next);}
}).catch(function(){setTimeout(poll,2000);});}
setTimeout(poll,1000);})();"#;

fn qr_page(app: &App, s: &LoginSession, client_name: &str, cookies: Vec<String>) -> Response {
    let now = app.clock.now();
    let link = app_link(app, s, now);
    let (ios, android) = &app.settings.app_store_urls;
    let body = format!(
        "<h1>Log in to {client}</h1>\
         <p class=\"muted\">Scan this code with the scanid app to log in.</p>\
         <div class=\"qr\" id=\"qr\">{svg}</div>\
         <p class=\"applink\">On your phone? <a id=\"app-link\" href=\"{link}\" data-qr-payload=\"{link}\">Open the scanid app</a></p>\
         <p id=\"state\" class=\"muted\" role=\"status\">Waiting for the app…</p>\
         <p class=\"stores muted\">No scanid app yet? Get it and sign up: <a href=\"{ios}\">App Store</a> <a href=\"{android}\">Google Play</a></p>",
        client = escape(client_name),
        svg = pages::qr_svg(&link),
        link = escape(&link),
        ios = escape(ios),
        android = escape(android),
    );
    Page {
        status: 200,
        title: "Log in",
        body,
        script: Some(POLL_SCRIPT.replace("STATUS", &js_string(&status_url(app, &s.id)))),
        form_action: "'none'".into(),
        cookies,
    }
    .render(app.random.as_ref())
}

/// The session named by `?session=` that this browser opened: `Err` 404 when unknown or
/// expired, 403 when another browser opened it (SECURITY.md Q1).
async fn bound_session(
    app: &App,
    req: &Request,
    id: Option<&str>,
    html: bool,
) -> Result<Versioned<LoginSession>, HttpError> {
    let now = app.clock.now();
    let not_found = || {
        if html {
            HttpError::page(404, "Login request not found", "This login request does not exist or has expired. Start again from the application.")
        } else {
            HttpError::json(404, "not_found", "unknown login session")
        }
    };
    let id = id
        .filter(|i| (1..=64).contains(&i.len()))
        .ok_or_else(not_found)?;
    let s = app
        .store
        .qr_login(id, now)
        .await
        .map_err(HttpError::from_page_store)?
        .ok_or_else(not_found)?;
    if !s
        .value
        .bound_to(cookies::get(req, &cookies::login(app, id)).as_deref())
    {
        return Err(if html {
            HttpError::page(
                403,
                "Wrong browser",
                "This login can only be completed in the browser that started it.",
            )
        } else {
            not_found()
        });
    }
    Ok(s)
}

/// `GET .../login-actions/status?session=`: what the QR page polls.
pub async fn status(app: &App, req: Request) -> Result<Response, HttpError> {
    check_realm(app, &req)?;
    let pairs = query_pairs(&req);
    let s = bound_session(app, &req, single(&pairs, "session").as_deref(), false).await?;
    let now = app.clock.now();
    let status = s.value.public_status(now);
    let body = match status {
        "pending" => {
            let link = app_link(app, &s.value, now);
            json!({ "status": status, "app_link": link, "qr_svg": pages::qr_svg(&link),
                    "expires_at": s.value.expires_at.to_rfc3339_millis() })
        }
        "expired" => json!({ "status": status, "restart": restart_url(app, &s.value) }),
        _ => json!({ "status": status, "next": consent_url(app, &s.value.id) }),
    };
    let mut r = json(200, &body);
    r.headers_mut()
        .insert("cache-control", http::HeaderValue::from_static("no-store"));
    Ok(r)
}

/// `GET|POST .../login-actions/consent`
pub async fn consent(app: &App, req: Request) -> Result<Response, HttpError> {
    check_realm(app, &req)?;
    let (pairs, after_post) = get_or_post_params(&req)?;
    let s = bound_session(app, &req, single(&pairs, "session").as_deref(), true).await?;
    let browser = cookies::get(&req, &cookies::login(app, &s.value.id)).unwrap_or_default();
    let (csrf, choice) = (single(&pairs, "csrf"), single(&pairs, "consent"));
    let input = if after_post {
        ConsentInput::Submit {
            csrf: csrf.as_deref(),
            choice: choice.as_deref(),
        }
    } else {
        ConsentInput::Open
    };
    let rng = app.random.as_ref();
    match flow::consent(app, &s, &browser, input)
        .await
        .map_err(complete_error)?
    {
        ConsentOutcome::Refused(why) => Err(refused(why)),
        ConsentOutcome::Denied(r) => Ok(pages::auth_response(&r, after_post, ended(app, &s), rng)),
        ConsentOutcome::Ask { client, identity } => Ok(consent_page(
            app,
            &s.value,
            &client,
            &identity,
            &csrf_token(&browser, &s.value.id),
        )),
        ConsentOutcome::Completed(done) => Ok(login_completed(app, &s, done, after_post)),
    }
}

fn refused(why: ConsentRefusal) -> HttpError {
    match why {
        ConsentRefusal::Expired => HttpError::page(
            400,
            "Login request expired",
            "This login request has expired. Start again from the application.",
        ),
        ConsentRefusal::AlreadyCompleted => HttpError::page(
            400,
            "Already completed",
            "This login request was already completed. Start again from the application.",
        ),
        ConsentRefusal::NotApproved => HttpError::page(
            400,
            "Not approved yet",
            "Scan the QR code with the scanid app and approve the login first.",
        ),
        ConsentRefusal::UnknownClient => HttpError::page(
            400,
            "Unknown application",
            "The application that started this login no longer exists.",
        ),
        ConsentRefusal::Forged => HttpError::page(
            403,
            "Request refused",
            "This form was not submitted from the consent page.",
        ),
        ConsentRefusal::NoChoice => HttpError::page(
            400,
            "Choose allow or deny",
            "The consent form was incomplete.",
        ),
    }
}

/// The login is over: its browser-binding cookie goes (they would pile up otherwise).
fn ended(app: &App, s: &Versioned<LoginSession>) -> Vec<String> {
    vec![cookies::clear(app, &cookies::login(app, &s.value.id))]
}

fn complete_error(e: CompleteError) -> HttpError {
    match e {
        CompleteError::AlreadyCompleted => HttpError::page(
            400,
            "Already completed",
            "This login request was already completed. Start again from the application.",
        ),
        CompleteError::Store(s) => HttpError::from_page_store(s),
    }
}

fn login_completed(
    app: &App,
    s: &Versioned<LoginSession>,
    done: flow::Completed,
    after_post: bool,
) -> Response {
    let mut cookies = ended(app, s);
    if let Some(c) = done.sso_cookie {
        let sid = c.split('.').next().unwrap_or_default();
        cookies.push(cookies::set_session_state(app, sid));
        cookies.push(cookies::set(app, &cookies::sso(app), &c, None));
    }
    pages::auth_response(&done.response, after_post, cookies, app.random.as_ref())
}

fn consent_page(
    app: &App,
    s: &LoginSession,
    client: &crate::domain::client::Client,
    identity: &Identity,
    csrf: &str,
) -> Response {
    let host = url::Url::parse(&s.request.redirect_uri)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_default();
    let scopes: String = s
        .request
        .scopes
        .iter()
        .map(|sc| format!("<li>{}</li>", escape(pages::describe_scope(sc))))
        .collect();
    let body = format!(
        "<h1>{client} wants to access your scanid account</h1>\
         <p class=\"muted\">Logged in as {display} (@{name})</p>\
         <p>{client} will receive:</p><ul class=\"scopes\">{scopes}</ul>\
         <form method=\"post\" action=\"{action}\">\
         <input type=\"hidden\" name=\"session\" value=\"{session}\"><input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
         <div class=\"buttons\"><button class=\"deny\" type=\"submit\" name=\"consent\" value=\"deny\">Deny</button>\
         <button class=\"allow\" type=\"submit\" name=\"consent\" value=\"allow\">Allow</button></div></form>\
         <p class=\"muted\">You will be sent back to {host}.</p>",
        client = escape(&client.name),
        display = escape(&identity.display_name),
        name = escape(&identity.name),
        action = escape(&format!("{}/login-actions/consent", app.settings.issuer())),
        session = escape(&s.id),
        csrf = escape(csrf),
        host = escape(&host),
    );
    Page {
        status: 200,
        title: "Allow access",
        body,
        script: None,
        form_action: pages::form_targets(Some(&s.request.redirect_uri)),
        cookies: Vec::new(),
    }
    .render(app.random.as_ref())
}
