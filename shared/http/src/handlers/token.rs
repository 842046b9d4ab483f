//! Token endpoint (spec 4.3), introspection (4.4, RFC 7662), userinfo (4.5), revocation
//! (RFC 7009) and RP-initiated logout.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use lambda_http::Body;
use serde_json::{Map, Value};

use crate::audit::{Audit, Event};
use crate::domain::authorize::Params;
use crate::domain::logout::{self, LogoutDecision};
use crate::keys::jwt;
use crate::pages::{self, escape, Page};
use crate::protocol::OAuthError;
use crate::store::ClientStore;
use crate::usecase::login::sso_session;
use crate::usecase::resource::{self, LiveToken};
use crate::usecase::token::{self, Presented};
use crate::App;
use crate::{
    base, check_realm, cookies, cors, finish, form_pairs, get_or_post_params, json, query_pairs,
    source, HttpError, Request, Response,
};

/// RFC 6749 §2.3.1 / App. B: `Authorization: Basic base64(urlencode(id):urlencode(secret))`.
pub fn basic_credentials(req: &Request) -> Result<Option<(String, String)>, HttpError> {
    let Some(h) = req.headers().get(http::header::AUTHORIZATION) else {
        return Ok(None);
    };
    let h = h
        .to_str()
        .map_err(|_| HttpError::InvalidClient("malformed Authorization header"))?;
    let Some((scheme, rest)) = h.split_once(' ') else {
        return Err(HttpError::InvalidClient("malformed Authorization header"));
    };
    if !scheme.eq_ignore_ascii_case("basic") {
        return Ok(None);
    }
    let decoded = STANDARD
        .decode(rest.trim())
        .map_err(|_| HttpError::InvalidClient("malformed Basic credentials"))?;
    let text = String::from_utf8(decoded)
        .map_err(|_| HttpError::InvalidClient("malformed Basic credentials"))?;
    let (id, secret) = text
        .split_once(':')
        .ok_or(HttpError::InvalidClient("malformed Basic credentials"))?;
    let dec = |s: &str| -> String {
        url::form_urlencoded::parse(format!("x={s}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    };
    Ok(Some((dec(id), dec(secret))))
}

/// A token-endpoint style JSON answer: `no-store` (SECURITY.md T6).
fn no_store<T: serde::Serialize>(status: u16, v: &T) -> Response {
    let mut r = json(status, v);
    r.headers_mut()
        .insert("cache-control", http::HeaderValue::from_static("no-store"));
    r.headers_mut()
        .insert("pragma", http::HeaderValue::from_static("no-cache"));
    r
}

/// `POST .../token`
pub async fn token(app: &App, req: Request) -> Result<Response, HttpError> {
    check_realm(app, &req)?;
    let params = Params::from_pairs(form_pairs(&req).map_err(|_| {
        OAuthError::invalid_request("the body must be application/x-www-form-urlencoded")
    })?);
    let presented = Presented::from_params(basic_credentials(&req)?, &params)?;
    let (client, issued) = token::token(app, &params, &presented, &source(&req)).await?;
    Ok(cors::for_client(
        &req,
        &client,
        no_store(200, &issued.response()),
    ))
}

/// `POST .../introspect`: client authentication required (SECURITY.md I1). A client sees its
/// own tokens; a resource server also other clients' access tokens; anything else is
/// `{"active":false}`.
pub async fn introspect(app: &App, req: Request) -> Result<Response, HttpError> {
    check_realm(app, &req)?;
    let params = Params::from_pairs(form_pairs(&req).map_err(|_| {
        OAuthError::invalid_request("the body must be application/x-www-form-urlencoded")
    })?);
    let presented = Presented::from_params(basic_credentials(&req)?, &params)?;
    let client = token::authenticate(app, &presented, false, &source(&req)).await?;
    let t = params
        .one("token")
        .map_err(|_| OAuthError::invalid_request("token is repeated"))?
        .ok_or_else(|| OAuthError::invalid_request("token is required"))?;
    let now = app.clock.now();
    Ok(no_store(
        200,
        &resource::introspect(app, &client, t, now).await?,
    ))
}

/// `POST .../revoke` (RFC 7009): 200 for unknown and foreign tokens alike (SECURITY.md V1).
pub async fn revoke(app: &App, req: Request) -> Result<Response, HttpError> {
    check_realm(app, &req)?;
    let params = Params::from_pairs(form_pairs(&req).map_err(|_| {
        OAuthError::invalid_request("the body must be application/x-www-form-urlencoded")
    })?);
    let presented = Presented::from_params(basic_credentials(&req)?, &params)?;
    let client = token::authenticate(app, &presented, true, &source(&req)).await?;
    let t = params
        .one("token")
        .map_err(|_| OAuthError::invalid_request("token is repeated"))?
        .ok_or_else(|| OAuthError::invalid_request("token is required"))?;
    resource::revoke(app, &client.client_id, t, app.clock.now()).await?;
    Ok(cors::for_client(
        &req,
        &client,
        finish(base(200).header("cache-control", "no-store"), Body::Empty),
    ))
}

/// The bearer token, from exactly one place (RFC 6750 §2; SECURITY.md U3).
fn bearer(req: &Request) -> Result<String, HttpError> {
    let mut found: Vec<String> = Vec::new();
    if let Some(h) = req.headers().get(http::header::AUTHORIZATION) {
        let h = h.to_str().unwrap_or("");
        match h.split_once(' ') {
            Some((scheme, t)) if scheme.eq_ignore_ascii_case("bearer") && !t.trim().is_empty() => {
                found.push(t.trim().to_owned())
            }
            _ => {
                return Err(HttpError::Bearer {
                    status: 401,
                    error: Some("invalid_token"),
                    description: "malformed Authorization header",
                })
            }
        }
    }
    if req.method() == http::Method::POST {
        if let Ok(pairs) = form_pairs(req) {
            found.extend(
                pairs
                    .into_iter()
                    .filter(|(k, _)| k == "access_token")
                    .map(|(_, v)| v),
            );
        }
    }
    // RFC 6750 §2.3 is not offered: a token in the URL ends up in logs and histories.
    if query_pairs(req).iter().any(|(k, _)| k == "access_token") {
        return Err(HttpError::Bearer {
            status: 400,
            error: Some("invalid_request"),
            description: "send the access token in the Authorization header or the form body, never in the URL",
        });
    }
    match found.len() {
        0 => Err(HttpError::Bearer {
            status: 401,
            error: None,
            description: "an access token is required",
        }),
        1 => Ok(found.remove(0)),
        _ => Err(HttpError::Bearer {
            status: 400,
            error: Some("invalid_request"),
            description: "the access token was sent more than one way",
        }),
    }
}

/// `GET|POST .../userinfo` (SECURITY.md U1-U4, C1).
pub async fn userinfo(app: &App, req: Request) -> Result<Response, HttpError> {
    check_realm(app, &req)?;
    let t = bearer(&req)?;
    let now = app.clock.now();
    let Some(live) = resource::live_access_token(app, &t, now).await? else {
        return Err(HttpError::Bearer {
            status: 401,
            error: Some("invalid_token"),
            description: "the access token is invalid, expired or revoked",
        });
    };
    let LiveToken { identity, .. } = &live;
    let Some(identity) = identity else {
        return Err(HttpError::Bearer {
            status: 401,
            error: Some("invalid_token"),
            description: "userinfo needs a user's access token",
        });
    };
    if !live.claims.has_scope("openid") {
        return Err(HttpError::Bearer {
            status: 403,
            error: Some("insufficient_scope"),
            description: "the openid scope is required",
        });
    }
    let mut r = json(200, &resource::userinfo(&live, identity));
    r.headers_mut()
        .insert("cache-control", http::HeaderValue::from_static("no-store"));
    Ok(cors::for_client(&req, &live.client, r))
}

fn one(pairs: &[(String, String)], name: &str) -> Result<Option<String>, HttpError> {
    let mut it = pairs.iter().filter(|(k, _)| k == name);
    match (it.next(), it.next()) {
        (Some((_, v)), None) => Ok(Some(v.clone()).filter(|v| !v.is_empty())),
        (None, _) => Ok(None),
        _ => Err(HttpError::page(
            400,
            "Invalid logout request",
            "A parameter is repeated.",
        )),
    }
}

/// `GET|POST .../logout` (OIDC RP-Initiated Logout 1.0). Ends only the session this browser
/// holds, and without asking only when the `id_token_hint` names that very session
/// ([`logout::decide`]).
pub async fn logout(app: &App, req: Request) -> Result<Response, HttpError> {
    check_realm(app, &req)?;
    let (pairs, after_post) = get_or_post_params(&req)?;
    let now = app.clock.now();
    if after_post && pairs.iter().any(|(k, _)| k == "refresh_token") {
        return backchannel_logout(app, &req, pairs).await;
    }
    let hint = match one(&pairs, "id_token_hint")? {
        Some(h) => Some(
            jwt::verify_ignoring_expiry::<Map<String, Value>>(
                &*app.keyring().await,
                &h,
                &app.settings.issuer(),
            )
            .map_err(|_| {
                HttpError::page(
                    400,
                    "Invalid logout request",
                    "The id_token_hint is not a token of this service.",
                )
            })?,
        ),
        None => None,
    };
    // Only an ID token is a hint: an access or refresh token also names the session, but may
    // be held by a resource server or leak from one.
    if hint
        .as_ref()
        .is_some_and(|c| c.get("typ").and_then(Value::as_str) != Some("ID"))
    {
        return Err(HttpError::page(
            400,
            "Invalid logout request",
            "The id_token_hint is not an ID token.",
        ));
    }
    let hint_client = hint
        .as_ref()
        .and_then(|c| c.get("aud"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let client_id = match (one(&pairs, "client_id")?, hint_client) {
        (Some(a), Some(b)) if a != b => {
            return Err(HttpError::page(
                400,
                "Invalid logout request",
                "client_id does not match the id_token_hint.",
            ))
        }
        (a, b) => a.or(b),
    };
    let redirect = match one(&pairs, "post_logout_redirect_uri")? {
        None => None,
        Some(uri) => {
            let client = match &client_id {
                Some(id) => app
                    .store
                    .client(id, now)
                    .await
                    .map_err(HttpError::from_page_store)?
                    .map(|(c, _)| c),
                None => None,
            };
            match client {
                Some(c) if c.post_logout_redirect_uris.contains(&uri) => Some(uri),
                _ => {
                    return Err(HttpError::page(
                        400,
                        "Invalid logout request",
                        "post_logout_redirect_uri is not registered for this client.",
                    ))
                }
            }
        }
    };
    let state = one(&pairs, "state")?;
    let cookie_name = cookies::sso(app);
    let cookie = cookies::get(&req, &cookie_name);
    let session = sso_session(app, cookie.as_deref(), now)
        .await
        .map_err(HttpError::from_page_store)?;
    let claim = |k: &str| {
        hint.as_ref()
            .and_then(|c| c.get(k))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let hint = hint.as_ref().map(|_| logout::Hint {
        sid: claim("sid"),
        sub: claim("sub"),
    });
    let browser = match (&session, &cookie) {
        (Some(s), Some(c)) => Some(logout::BrowserSession {
            sid: &s.value.sid,
            sub: &s.value.sub,
            cookie: c,
        }),
        _ => None,
    };
    let csrf = if after_post {
        one(&pairs, "csrf")?
    } else {
        None
    };
    match logout::decide(hint.as_ref(), browser.as_ref(), after_post, csrf.as_deref()) {
        LogoutDecision::NothingToEnd => {}
        LogoutDecision::Refuse => {
            return Err(HttpError::page(
                403,
                "Request refused",
                "This logout was not confirmed on the scanid logout page.",
            ))
        }
        LogoutDecision::Confirm { csrf } => {
            return Ok(cors::none(confirm_page(
                app, &redirect, &state, &client_id, &csrf,
            )))
        }
        LogoutDecision::End { sid } => {
            // The decision ends the browser's own session, read above: no second read.
            let ended = match session.as_ref().filter(|s| s.value.sid == sid) {
                Some(s) => resource::end_known_session(app, &s.value, now).await,
                None => resource::end_session(app, &sid, now).await,
            };
            ended.map_err(HttpError::from_page_store)?;
            let sub = session.as_ref().map(|s| s.value.sub.as_str()).unwrap_or("");
            let who = source(&req);
            let mut a = Audit::new(Event::Logout).subject(sub).source(who.as_str());
            if let Some(c) = &client_id {
                a = a.client(c);
            }
            a.emit();
        }
    }
    let clear = cookies::clear(app, &cookie_name);
    let clear_state = cookies::clear(app, &cookies::session_state(app));
    match redirect {
        Some(uri) => {
            let mut location = uri.clone();
            if let Some(st) = state {
                let sep = if uri.contains('?') { '&' } else { '?' };
                location.push(sep);
                location.push_str(
                    &url::form_urlencoded::Serializer::new(String::new())
                        .append_pair("state", &st)
                        .finish(),
                );
            }
            Ok(cors::none(finish(
                pages::security_headers(base(if after_post { 303 } else { 302 }))
                    .header("location", location)
                    .header("set-cookie", clear)
                    .header("set-cookie", clear_state),
                Body::Empty,
            )))
        }
        None => Ok(cors::none(
            Page {
                status: 200,
                title: "Logged out",
                body: "<h1>You are logged out</h1><p>You can close this window.</p>".into(),
                script: None,
                form_action: "'none'".into(),
                cookies: vec![clear, clear_state],
            }
            .render(app.random.as_ref()),
        )),
    }
}

/// Keycloak's back-channel logout: `POST .../logout` with client authentication (a public
/// client sends its `client_id`) and `refresh_token`: 204, the grant and its SSO session end.
async fn backchannel_logout(
    app: &App,
    req: &Request,
    pairs: Vec<(String, String)>,
) -> Result<Response, HttpError> {
    let params = Params::from_pairs(pairs);
    let presented = Presented::from_params(basic_credentials(req)?, &params)?;
    let client = token::authenticate(app, &presented, true, &source(req)).await?;
    let rt = params
        .one("refresh_token")
        .map_err(|_| OAuthError::invalid_request("refresh_token is repeated"))?
        .unwrap_or_default();
    let now = app.clock.now();
    if !resource::logout_by_refresh_token(app, &client.client_id, rt, now).await? {
        return Err(OAuthError::new(
            crate::protocol::OAuthErrorCode::InvalidGrant,
            "invalid refresh token",
        )
        .into());
    }
    Ok(cors::for_client(
        req,
        &client,
        finish(base(204).header("cache-control", "no-store"), Body::Empty),
    ))
}

/// "Log out of scanid?": a form that posts the request back with the anti-CSRF token.
fn confirm_page(
    app: &App,
    redirect: &Option<String>,
    state: &Option<String>,
    client_id: &Option<String>,
    csrf: &str,
) -> Response {
    let mut hidden = String::new();
    for (k, v) in [
        ("post_logout_redirect_uri", redirect),
        ("state", state),
        ("client_id", client_id),
    ] {
        if let Some(v) = v {
            hidden.push_str(&format!(
                "<input type=\"hidden\" name=\"{k}\" value=\"{}\">",
                escape(v)
            ));
        }
    }
    hidden.push_str(&format!(
        "<input type=\"hidden\" name=\"csrf\" value=\"{}\">",
        escape(csrf)
    ));
    Page {
        status: 200,
        title: "Log out",
        body: format!(
            "<h1>Log out of scanid?</h1><form method=\"post\" action=\"{}\">{hidden}\
             <div class=\"buttons\"><button class=\"allow\" type=\"submit\">Log out</button></div></form>",
            escape(&format!("{}/protocol/openid-connect/logout", app.settings.issuer()))
        ),
        script: None,
        form_action: pages::form_targets(redirect.as_deref()),
        cookies: Vec::new(),
    }
    .render(app.random.as_ref())
}
