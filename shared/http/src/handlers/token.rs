//! Token endpoint (spec 4.3), introspection (4.4, RFC 7662), userinfo (4.5), revocation
//! (RFC 7009) and RP-initiated logout.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use lambda_http::Body;
use serde_json::Value;

use crate::domain::authorize::Params;
use crate::pages;
use crate::protocol::OAuthError;
use crate::usecase::logout::{LogoutError, LogoutOutcome, LogoutRequest};
use crate::usecase::resource::{self, LiveToken};
use crate::usecase::token::{self, Presented};
use crate::{
    base, check_realm, cookies, cors, finish, form_pairs, get_or_post_params, json, query_pairs,
    source, HttpError, Request, Response,
};
use crate::{usecase, App};

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
fn no_store(status: u16, v: &Value) -> Response {
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
    let scope = live
        .claims
        .get("scope")
        .and_then(Value::as_str)
        .unwrap_or("");
    if !scope.split(' ').any(|s| s == "openid") {
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
    if after_post && pairs.iter().any(|(k, _)| k == "refresh_token") {
        return backchannel_logout(app, &req, pairs).await;
    }
    let cookie_name = cookies::sso(app);
    let cookie = cookies::get(&req, &cookie_name);
    let (hint, client_id, redirect, state, csrf) = (
        one(&pairs, "id_token_hint")?,
        one(&pairs, "client_id")?,
        one(&pairs, "post_logout_redirect_uri")?,
        one(&pairs, "state")?,
        if after_post {
            one(&pairs, "csrf")?
        } else {
            None
        },
    );
    let who = source(&req);
    let request = LogoutRequest {
        id_token_hint: hint.as_deref(),
        client_id: client_id.as_deref(),
        post_logout_redirect_uri: redirect.as_deref(),
        state: state.as_deref(),
        csrf: csrf.as_deref(),
        is_post: after_post,
        sso_cookie: cookie.as_deref(),
        source: who.as_str(),
    };
    let outcome = match usecase::logout::logout(app, &request).await {
        Ok(o) => o,
        Err(LogoutError::Invalid(why)) => {
            return Err(HttpError::page(400, "Invalid logout request", why))
        }
        Err(LogoutError::Store(e)) => return Err(HttpError::from_page_store(e)),
    };
    let clear = cookies::clear(app, &cookie_name);
    let clear_state = cookies::clear(app, &cookies::session_state(app));
    match outcome {
        LogoutOutcome::Refused => Err(HttpError::page(
            403,
            "Request refused",
            "This logout was not confirmed on the scanid logout page.",
        )),
        LogoutOutcome::Confirm {
            csrf,
            post_logout_redirect_uri,
            state,
            client_id,
        } => Ok(cors::none(confirm_page(
            app,
            &post_logout_redirect_uri,
            &state,
            &client_id,
            &csrf,
        ))),
        LogoutOutcome::Done {
            redirect: Some(location),
        } => Ok(cors::none(finish(
            pages::security_headers(base(if after_post { 303 } else { 302 }))
                .header("location", location)
                .header("set-cookie", clear)
                .header("set-cookie", clear_state),
            Body::Empty,
        ))),
        LogoutOutcome::Done { redirect: None } => Ok(cors::none(pages::html(
            app.random.as_ref(),
            200,
            "'none'",
            vec![clear, clear_state],
            |nonce| askama::Template::render(&crate::views::LoggedOut { nonce }),
        ))),
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
    let fields = [
        ("post_logout_redirect_uri", redirect),
        ("state", state),
        ("client_id", client_id),
    ]
    .into_iter()
    .filter_map(|(k, v)| Some((k, v.as_deref()?)))
    .collect();
    let form_action = pages::form_targets(redirect.as_deref());
    pages::html(
        app.random.as_ref(),
        200,
        &form_action,
        Vec::new(),
        |nonce| {
            askama::Template::render(&crate::views::LogoutConfirm {
                nonce,
                action: &format!("{}/protocol/openid-connect/logout", app.settings.issuer()),
                fields,
                csrf,
            })
        },
    )
}
