//! The browser side of login: the authorization endpoint (spec 4.2), the QR page, its status
//! poll, and the consent page (app protocol §2, §5).

use lambda_http::Body;
use serde_json::json;

use crate::domain::consent::{csrf_token, delegation_csrf_token, ConsentInput};
use crate::domain::identity::Identity;
use crate::domain::login::{self, QrLogin};
use crate::i18n::Tr;
use crate::pages;
use crate::protocol::Params;
use crate::protocol::Secret;
use crate::usecase::login::{
    self as flow, AuthorizeDecision, BoundLoginError, BrowserCookies, BrowserSecret,
    ConsentOutcome, VersionedLogin,
};
use crate::Context;
use crate::{
    base, check_realm, cookies, finish, get_or_post_params, json, query_pairs, single, source,
    source_ip, user_agent, HttpError, Request, Response,
};

/// `GET|POST .../protocol/openid-connect/auth`
pub(crate) async fn authorize(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let (pairs, after_post) = get_or_post_params(&req)?;
    let tr = Tr::of(ctx, &req, single(&pairs, "ui_locales").as_deref());
    // Once the request is valid, the selector shows the same login again (by GET, with a
    // posted request too).
    let valid = tr.clone().keeping(&pairs);
    let cookies = BrowserCookies {
        sso: cookies::get(&req, &cookies::sso(ctx)).map(Secret::new),
        page_locale: Some(tr.locale.tag().to_owned()),
    };
    let decision = flow::authorize(
        ctx,
        &Params::from_pairs(pairs),
        &cookies,
        &source_ip(&req),
        &user_agent(&req),
    )
    .await
    .map_err(HttpError::from_page_store)?;
    let rng = ctx.random.as_ref();
    // The binding cookie lives as long as the login's record (the page can learn "expired").
    let browser_cookie = |login: &QrLogin, secret: &BrowserSecret| {
        cookies::set(
            ctx,
            &cookies::login(ctx, &login.id),
            secret.expose(),
            Some(ctx.settings.lifetimes.login + login::RECORD_GRACE_SECS),
        )
    };
    Ok(match decision {
        AuthorizeDecision::ErrorPage(why) => {
            let ids = ("error-request-invalid", "error-request-invalid-text");
            pages::error_page(&tr, 400, ids, &why, rng)
        }
        AuthorizeDecision::Respond(r) => pages::auth_response(&tr, &r, after_post, Vec::new(), rng),
        AuthorizeDecision::RateLimited { retry_after } => {
            return Err(HttpError::RateLimited {
                html: true,
                retry_after,
            })
        }
        AuthorizeDecision::ShowQr {
            login,
            client_name,
            self_registered,
            browser_secret,
        } => qr_page_noting(
            ctx,
            &valid,
            &login,
            (&client_name, self_registered),
            vec![browser_cookie(&login, &browser_secret)],
        ),
        AuthorizeDecision::AskConsent {
            login,
            browser_secret,
        } => finish(
            pages::security_headers(base(if after_post { 303 } else { 302 }))
                .header("location", consent_url(ctx, &login.id))
                .header("set-cookie", browser_cookie(&login, &browser_secret)),
            Body::Empty,
        ),
    })
}

fn consent_url(ctx: &Context, session: &str) -> String {
    format!(
        "{}/login-actions/consent?session={session}",
        ctx.settings.issuer()
    )
}

fn passkey_url(ctx: &Context, session: &str) -> String {
    format!(
        "{}/login-actions/passkey?session={session}",
        ctx.settings.issuer()
    )
}

/// Where the QR page polls: the issuer's status endpoint (the browser sends the login's
/// cookie), or the same path under `SCANID_LOGIN_STATUS_URL` (another origin, the
/// login-status function's own URL, which the cookie is not sent to) with the login's
/// read-only poll token.
fn status_url(ctx: &Context, s: &QrLogin) -> String {
    match &ctx.settings.login_status_url {
        None => format!(
            "{}/login-actions/status?session={}",
            ctx.settings.issuer(),
            s.id
        ),
        Some(base) => format!(
            "{base}/realms/{}/login-actions/status?session={}&poll={}",
            ctx.settings.realm,
            s.id,
            s.poll_token()
        ),
    }
}

fn restart_url(ctx: &Context, s: &QrLogin) -> String {
    // A login for a device authorization starts again where the code is typed.
    if s.device_grant.is_some() {
        return crate::usecase::device_grant::verification_uri(ctx);
    }
    format!(
        "{}/protocol/openid-connect/auth?{}",
        ctx.settings.issuer(),
        s.restart_query()
    )
}

/// The app link the QR encodes (app protocol §2).
pub(crate) fn app_link(ctx: &Context, s: &QrLogin, now: crate::clock::Timestamp) -> String {
    link_for(ctx, s, &s.current_challenge(now))
}

fn link_for(ctx: &Context, s: &QrLogin, challenge: &str) -> String {
    format!(
        "{}/app/scan?session={}&challenge={challenge}",
        ctx.settings.issuer(),
        s.id,
    )
}

/// The QR codes of the current and the next steps, each with the time it is to be shown: the
/// page redraws the code every second from these, between polls. Only the steps after `after`
/// (the last code the page has, [`poll_after`]): each code is drawn once, the poll's main work.
/// Also the current step's link, and its QR code unless the page said what it has (then it draws
/// from the codes it has).
fn upcoming(
    ctx: &Context,
    s: &QrLogin,
    now: crate::clock::Timestamp,
    count: i64,
    after: Option<crate::clock::Timestamp>,
) -> (serde_json::Value, String, Option<String>) {
    let link = app_link(ctx, s, now);
    let mut current = None;
    let codes = s
        .upcoming_challenges_after(now, count, after)
        .iter()
        .map(|(at, c)| {
            let l = link_for(ctx, s, c);
            let svg = pages::qr_svg(&l);
            if current.is_none() && l == link {
                current = Some(svg.clone());
            }
            json!({ "at": at.to_rfc3339_millis(), "qr_svg": svg, "app_link": l })
        })
        .collect();
    let svg = match after {
        Some(_) => None,
        None => Some(current.unwrap_or_else(|| pages::qr_svg(&link))),
    };
    (codes, link, svg)
}

/// The poll's `after`: the second (Unix time) of the last code the page has, if it says.
fn poll_after(pairs: &[(String, String)]) -> Result<Option<crate::clock::Timestamp>, HttpError> {
    let mut given = pairs.iter().filter(|(k, _)| k == "after");
    match (given.next(), given.next()) {
        (None, _) => Ok(None),
        (Some((_, v)), None) => match v.parse::<i64>() {
            Ok(secs) if secs >= 0 && v.bytes().all(|b| b.is_ascii_digit()) => {
                Ok(Some(crate::clock::Timestamp::from_secs(secs)))
            }
            _ => Err(HttpError::bad_request(
                "after: the second (Unix time, a whole number) of the last code the page has",
            )),
        },
        (Some(_), Some(_)) => Err(HttpError::bad_request("after: given more than once")),
    }
}

/// The QR page for the client `(name, self_registered)`: a client that registered itself
/// (RFC 7591) chose its own name, and the page says nobody checked it, as the consent page and
/// the phone do (a confusable name is the computer's first sight of the client).
pub(crate) fn qr_page_noting(
    ctx: &Context,
    tr: &Tr,
    s: &QrLogin,
    (client_name, self_registered): (&str, bool),
    cookies: Vec<String>,
) -> Response {
    let now = ctx.clock.now();
    // The page's own codes need only last until its first poll and one retry.
    let (codes, link, svg) = upcoming(ctx, s, now, login::CHALLENGES_ON_PAGE, None);
    let svg = svg.unwrap_or_default();
    let (ios, android) = &ctx.settings.app_store_urls;
    let rng = ctx.random.as_ref();
    // The next codes, for the page's script to draw until its first poll answers: JSON in a
    // data block, `<` escaped so nothing in it can end the block.
    // (`serde_json::to_string`, not `Value`'s `Display`: the codes are some 20 KB, and
    // `Display` writes them through `fmt` piece by piece.)
    let ahead = serde_json::to_string(
        &json!({ "server_time": now.to_rfc3339_millis(), "challenges": codes }),
    )
    .unwrap_or_default()
    .replace('<', "\\u003c");
    let text = script_text(tr);
    // Where the page polls from another origin, its script may fetch from there too.
    let connect = match ctx.settings.login_status_url.as_deref() {
        Some(base) => format!(
            "'self' {}",
            scanid_core::domain::client::origin_of(base).unwrap_or_default()
        ),
        None => "'self'".to_owned(),
    };
    // `'self'`: the language selector's form.
    pages::html_connecting(rng, (200, "'self'", &connect), cookies, |nonce| {
        askama::Template::render(&crate::views::QrPage {
            nonce,
            tr,
            text: &text,
            client: client_name,
            self_registered,
            qr_svg: &svg,
            ahead: &ahead,
            app_link: &link,
            status_url: &status_url(ctx, s),
            // Where polls are held, the first one is sent at once and waits.
            poll_ms: if ctx.login_watch.is_some() {
                0
            } else {
                s.poll_after_ms()
            },
            web_app: &format!("{}/app/", ctx.settings.issuer()),
            ios,
            android,
            // A device authorization's login is approved on the phone only.
            passkey_url: &if s.device_grant.is_some() {
                String::new()
            } else {
                passkey_url(ctx, &s.id)
            },
        })
    })
}

/// The words of the login page's scripts (static/poll.js, static/passkey.js) in `tr`'s
/// language, as the JSON object of the page's `#text` block, every `<` escaped. `{n}`,
/// `{link}` and `{reason}` are filled in by the scripts.
fn script_text(tr: &Tr) -> String {
    let ids = [
        "qr-scanned-pick",
        "qr-scanned",
        "qr-gone",
        "qr-expired",
        "qr-restart",
        "qr-wrong-number",
        "qr-second-device",
        "qr-denied",
        "qr-approved",
        "passkey-waiting",
        "passkey-signed-in",
        "passkey-cancelled",
    ];
    let mut text: serde_json::Map<String, serde_json::Value> = ids
        .iter()
        .map(|id| ((*id).to_owned(), tr.t(id).into()))
        .collect();
    text.insert("qr-pick".into(), tr.t1("qr-pick", "number", "{n}").into());
    text.insert("qr-alt".into(), tr.t1("qr-alt", "link", "{link}").into());
    text.insert(
        "passkey-failed".into(),
        tr.t1("passkey-failed", "reason", "{reason}").into(),
    );
    serde_json::Value::Object(text)
        .to_string()
        .replace('<', "\\u003c")
}

/// The login the status poll asks about ([`flow::polled_login`]: eventually consistent).
async fn polled_qr_login(
    ctx: &Context,
    req: &Request,
    id: Option<&str>,
    poll_token: Option<&str>,
) -> Result<VersionedLogin, HttpError> {
    let id = id.unwrap_or_default();
    let browser = cookies::get(req, &cookies::login(ctx, id)).map(Secret::new);
    let poller = match poll_token {
        Some(t) => flow::Poller::Token(t),
        None => flow::Poller::Browser(browser.as_ref()),
    };
    match flow::polled_login(ctx, id, poller, ctx.clock.now()).await {
        Ok(s) => Ok(s),
        Err(BoundLoginError::NotFound | BoundLoginError::OtherBrowser) => {
            Err(HttpError::not_found("unknown login session"))
        }
        // JSON, as every answer of the poll: the page's script reads it, no person does.
        Err(BoundLoginError::Store(e)) => Err(HttpError::from(e)),
    }
}

/// The QR login named by `?session=` that this browser opened: `Err` 404 when unknown or
/// expired, 403 when another browser opened it (docs/requirements.md Q1).
async fn bound_qr_login(
    ctx: &Context,
    req: &Request,
    id: Option<&str>,
    html: bool,
) -> Result<VersionedLogin, HttpError> {
    let not_found = || {
        if html {
            HttpError::page_not_found("error-login-not-found", "error-login-not-found-text")
        } else {
            HttpError::not_found("unknown login session")
        }
    };
    let id = id.unwrap_or_default();
    let browser = cookies::get(req, &cookies::login(ctx, id)).map(Secret::new);
    match flow::bound_login(ctx, id, browser.as_ref(), ctx.clock.now()).await {
        Ok(s) => Ok(s),
        Err(BoundLoginError::NotFound) => Err(not_found()),
        Err(BoundLoginError::OtherBrowser) if html => Err(HttpError::page_forbidden(
            "error-wrong-browser",
            "error-wrong-browser-text",
        )),
        Err(BoundLoginError::OtherBrowser) => Err(not_found()),
        Err(BoundLoginError::Store(e)) => Err(HttpError::from_page_store(e)),
    }
}

/// What the page shows while the login is pending (the poll's `seen`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    /// The QR code: nobody has scanned yet.
    Code,
    /// The number to pick in the app: the phone scanned.
    Number,
}

/// The poll's `seen`, if the page says what it shows.
fn poll_seen(pairs: &[(String, String)]) -> Result<Option<Seen>, HttpError> {
    let mut given = pairs.iter().filter(|(k, _)| k == "seen");
    match (given.next(), given.next()) {
        (None, _) => Ok(None),
        (Some((_, v)), None) => match v.as_str() {
            "code" => Ok(Some(Seen::Code)),
            "number" => Ok(Some(Seen::Number)),
            _ => Err(HttpError::bad_request(
                "seen: what the page shows, code or number",
            )),
        },
        (Some(_), Some(_)) => Err(HttpError::bad_request("seen: given more than once")),
    }
}

/// How long a poll may be held on login `l`, whose page shows `seen` and has codes up to the
/// second `after`: until the login would look different to the page, at most
/// [`login::POLL_HOLD_MAX_MS`], never past its expiry, and, before the scan, only until the
/// page needs new codes ([`login::POLL_HOLD_MARGIN_MS`] before its last one). `None`: answer
/// now (the login already looks different, or the page has no codes to show meanwhile).
fn hold_for(
    l: &QrLogin,
    seen: Seen,
    after: Option<crate::clock::Timestamp>,
    now: crate::clock::Timestamp,
) -> Option<std::time::Duration> {
    if l.public_status(now) != "pending" {
        return None;
    }
    let shows = match l.shown_number() {
        Some(_) => Seen::Number,
        None => Seen::Code,
    };
    if shows != seen {
        return None;
    }
    let mut until = (now.millis() + i64::from(login::POLL_HOLD_MAX_MS)).min(l.expires_at.millis());
    if shows == Seen::Code {
        until = until.min(after?.millis() - login::POLL_HOLD_MARGIN_MS);
    }
    let wait = until - now.millis();
    (wait >= 100).then(|| std::time::Duration::from_millis(wait.unsigned_abs()))
}

/// `GET .../login-actions/status?session=`: what the QR page polls. With `seen` (what the page
/// shows: `code` or `number`) and a process that sees every write to the login
/// ([`Context::login_watch`]: `scanid serve` on the embedded store), the answer waits until
/// the login would look different (see [`hold_for`]) and says `poll_ms: 0`: ask again at once.
///
/// Every answer, errors too, lets the public URL's pages read it (`Access-Control-Allow-Origin`
/// the public origin, never the request's, and no credentials), for a page that polls from
/// `SCANID_LOGIN_STATUS_URL` (another origin; a GET with no credentials and no header beyond
/// `Accept` is a CORS simple request, so no preflight). Always, not only where that setting is
/// set: on Lambda the status function serves that URL and cannot be told it (its URL is its
/// own attribute), and to a page of the same origin the header says nothing new.
pub(crate) async fn status(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    let mut r = status_answer(ctx, req)
        .await
        .unwrap_or_else(HttpError::into_response);
    let public = scanid_core::domain::client::origin_of(&ctx.settings.public_url);
    if let Some(v) = public.and_then(|o| http::HeaderValue::from_str(&o).ok()) {
        r.headers_mut().insert("access-control-allow-origin", v);
    }
    Ok(r)
}

async fn status_answer(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let pairs = query_pairs(&req);
    let after = poll_after(&pairs)?;
    let seen = poll_seen(&pairs)?;
    let session = single(&pairs, "session");
    let poll_token = single(&pairs, "poll");
    // The watch is taken before the login is read: a scan written between the read and the
    // wait still wakes it.
    let watch = match (&ctx.login_watch, seen, session.as_deref()) {
        (Some(w), Some(_), Some(id)) if id.len() <= 64 => Some(w.watch(id)),
        _ => None,
    };
    let changed = watch.as_ref().map(|w| w.changed());
    let mut s = polled_qr_login(ctx, &req, session.as_deref(), poll_token.as_deref()).await?;
    // (Not while the server shuts down: asked after the watch is registered, see
    // `LoginWatch::is_open`.)
    let open = ctx.login_watch.as_ref().is_some_and(|w| w.is_open());
    if let (Some(changed), Some(seen), true) = (changed, seen, open) {
        if let Some(wait) = hold_for(&s.value, seen, after, ctx.clock.now()) {
            // Changed or not, the page is answered with the login as it is now.
            let _ = scanid_core::service::login_watch::within(changed, wait).await;
            s = polled_qr_login(ctx, &req, session.as_deref(), poll_token.as_deref()).await?;
        }
    }
    let held = watch.is_some() && open;
    let now = ctx.clock.now();
    let status = s.value.public_status(now);
    let l = &s.value;
    let body = match status {
        "pending" => {
            let scanned = l.shown_number();
            // "Ask again at once" only to a page whose next poll will be held: before the
            // scan, one that says which codes it has.
            let held = held && (scanned.is_some() || after.is_some());
            let (codes, link, svg) = match scanned {
                // A page that says what it has shows the number, no code: none is drawn.
                Some(_) => {
                    let link = app_link(ctx, l, now);
                    let svg = after.is_none().then(|| pages::qr_svg(&link));
                    (None, link, svg)
                }
                None => {
                    let (codes, link, svg) = upcoming(ctx, l, now, login::CHALLENGES_AHEAD, after);
                    (Some(codes), link, svg)
                }
            };
            let mut b = json!({ "status": status, "app_link": link,
                    "expires_at": l.expires_at.to_rfc3339_millis(),
                    "server_time": now.to_rfc3339_millis(),
                    "scanned": l.is_scanned(),
                    "poll_ms": if held { 0 } else { l.poll_after_ms() } });
            if let Some(svg) = svg {
                b["qr_svg"] = json!(svg);
            }
            match (scanned, codes) {
                // Scanned: the number to pick in the app, and no more codes (any other
                // phone's scan would cancel the login).
                (Some(n), _) => {
                    b["number"] = json!(n);
                    b["pick_ms"] = json!(if held { 0 } else { login::POLL_PICK_MS });
                }
                (None, codes) => b["challenges"] = codes.unwrap_or_default(),
            }
            b
        }
        "expired" => json!({ "status": status, "restart": restart_url(ctx, l) }),
        _ => {
            let mut b = json!({ "status": status, "next": consent_url(ctx, &l.id) });
            if let Some(r) = l.cancel_reason() {
                b["reason"] = json!(r.as_str());
            }
            b
        }
    };
    let mut r = json(200, &body);
    r.headers_mut()
        .insert("cache-control", http::HeaderValue::from_static("no-store"));
    Ok(r)
}

/// The body of `POST .../login-actions/passkey`: nothing (or `{}`) asks for a challenge; an
/// `assertion` (what `navigator.credentials.get` returned, its buffers base64url) signs in.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PasskeyBody {
    #[serde(default)]
    assertion: Option<PasskeyAssertion>,
}

/// Other members (`userHandle`, `type`, ...) are ignored: the credential id names the passkey.
#[derive(serde::Deserialize)]
struct PasskeyAssertion {
    /// The credential id (`rawId`), base64url.
    id: String,
    authenticator_data: String,
    client_data_json: String,
    signature: String,
}

/// `POST .../login-actions/passkey?session=`: "Sign in with a passkey" on the login page, for
/// the browser that opened the login (its cookie). `{}`: the options for
/// `navigator.credentials.get` (a challenge for this login, `allowCredentials: []`,
/// `userVerification: "required"`). `{"assertion": ...}`: the sign-in; then the page goes on to
/// the consent step (`next`), as after an approval on the phone.
pub(crate) async fn passkey(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    use crate::usecase::passkey_login::{self, AssertionInput};
    check_realm(ctx, &req)?;
    let pairs = query_pairs(&req);
    let s = bound_qr_login(ctx, &req, single(&pairs, "session").as_deref(), false).await?;
    let body: PasskeyBody = if req.body().is_empty() {
        PasskeyBody { assertion: None }
    } else {
        match crate::json_body::<serde_json::Value>(&req)? {
            v @ serde_json::Value::Object(_) => serde_json::from_value(v).map_err(|_| {
                HttpError::bad_request("the body must be {} or {\"assertion\": {...}}")
            })?,
            _ => return Err(HttpError::bad_request("the body must be a JSON object")),
        }
    };
    let answer = match body.assertion {
        None => {
            let o = passkey_login::options(ctx, &s, &source(&req)).await?;
            json!({ "publicKey": {
                "challenge": o.challenge, "rpId": o.rp_id, "timeout": o.timeout_ms,
                "userVerification": "required", "allowCredentials": [],
            } })
        }
        Some(a) => {
            let input = AssertionInput {
                credential_id: &a.id,
                authenticator_data: &a.authenticator_data,
                client_data_json: &a.client_data_json,
                signature: &a.signature,
            };
            passkey_login::sign_in(ctx, &s, &input, &source_ip(&req)).await?;
            json!({ "status": "approved", "next": consent_url(ctx, &s.value.id) })
        }
    };
    let mut r = json(200, &answer);
    r.headers_mut()
        .insert("cache-control", http::HeaderValue::from_static("no-store"));
    Ok(r)
}

/// `GET|POST .../login-actions/consent`
pub(crate) async fn consent(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let (pairs, after_post) = get_or_post_params(&req)?;
    let s = bound_qr_login(ctx, &req, single(&pairs, "session").as_deref(), true).await?;
    let tr = Tr::of(ctx, &req, s.value.request.ui_locales.as_deref())
        .keeping(&[("session".to_owned(), s.value.id.to_string())]);
    let browser = cookies::get(&req, &cookies::login(ctx, &s.value.id)).unwrap_or_default();
    let (csrf, choice) = (single(&pairs, "csrf"), single(&pairs, "consent"));
    let input = if after_post {
        ConsentInput::Submit {
            csrf: csrf.as_deref(),
            choice: choice.as_deref(),
        }
    } else {
        ConsentInput::Open
    };
    let rng = ctx.random.as_ref();
    match flow::consent(ctx, &s, &browser, input)
        .await
        .map_err(HttpError::from)?
    {
        ConsentOutcome::Refused(why) => Err(why.into()),
        ConsentOutcome::Denied(r) => Ok(pages::auth_response(
            &tr,
            &r,
            after_post,
            ended(ctx, &s),
            rng,
        )),
        ConsentOutcome::Ask { client, identity } => Ok(consent_page(
            ctx,
            &tr,
            &s.value,
            &client,
            &identity,
            // An agent's page says it may act for the person; its form's token says so back.
            &if client.allows(crate::domain::client::GrantType::TokenExchange) {
                delegation_csrf_token(&browser, &s.value.id)
            } else {
                csrf_token(&browser, &s.value.id)
            },
        )),
        ConsentOutcome::Completed(done) => Ok(login_completed(ctx, &tr, &s, done, after_post)),
        ConsentOutcome::DeviceGrant {
            approved,
            client_name,
        } => Ok(super::device_grant::finished(
            ctx,
            &tr,
            approved,
            &client_name,
            ended(ctx, &s),
        )),
    }
}

/// The login is over: its browser-binding cookie goes (they would pile up otherwise).
fn ended(ctx: &Context, s: &VersionedLogin) -> Vec<String> {
    vec![cookies::clear(ctx, &cookies::login(ctx, &s.value.id))]
}

fn login_completed(
    ctx: &Context,
    tr: &Tr,
    s: &VersionedLogin,
    done: flow::Completed,
    after_post: bool,
) -> Response {
    let mut cookies = ended(ctx, s);
    if let Some(c) = done.sso_cookie {
        let sid = c.expose().split('.').next().unwrap_or_default();
        cookies.push(cookies::set_session_state(ctx, sid));
        cookies.push(cookies::set(ctx, &cookies::sso(ctx), c.expose(), None));
    }
    pages::auth_response(tr, &done.response, after_post, cookies, ctx.random.as_ref())
}

fn consent_page(
    ctx: &Context,
    tr: &Tr,
    s: &QrLogin,
    client: &crate::domain::client::Client,
    identity: &Identity,
    csrf: &str,
) -> Response {
    let host = url::Url::parse(&s.request.redirect_uri)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_default();
    let rng = ctx.random.as_ref();
    let form_action = pages::form_targets(Some(&s.request.redirect_uri));
    pages::html(rng, 200, &form_action, Vec::new(), |nonce| {
        askama::Template::render(&crate::views::ConsentPage {
            nonce,
            tr,
            client: &client.name,
            display_name: &identity.display_name,
            user_name: &identity.name,
            scopes: pages::describe_request(&s.request)
                .into_iter()
                .map(|id| tr.t(id))
                .collect(),
            resources: s.request.resources.iter().map(String::as_str).collect(),
            action: &format!("{}/login-actions/consent", ctx.settings.issuer()),
            session: &s.id,
            csrf,
            host: &host,
            self_registered: crate::domain::registration::self_registered(client),
            agent: client.allows(crate::domain::client::GrantType::TokenExchange),
        })
    })
}
