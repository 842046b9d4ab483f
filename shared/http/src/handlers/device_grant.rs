//! The device authorization grant (RFC 8628): the device authorization endpoint, and the
//! verification page where a person types the device's code and logs in with the QR. The
//! token endpoint's `device_code` grant is in [`super::token`]; the app's scan of
//! `verification_uri_complete` in [`super::device_api::scan`].

use crate::i18n::Tr;
use serde_json::json;

use crate::domain::login;
use crate::pages;
use crate::protocol::OAuthError;
use crate::protocol::Params;
use crate::random;
use crate::usecase::app::AppError;
use crate::usecase::device_grant::{self, Entered};
use crate::usecase::token::Presented;
use crate::Context;
use crate::{
    check_realm, cookies, form_pairs, get_or_post_params, single, source, source_ip, user_agent,
    HttpError, Request, Response,
};

/// `POST .../protocol/openid-connect/auth/device` (RFC 8628 §3.1, §3.2): client
/// authentication as at the token endpoint.
pub(crate) async fn authorization(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    if req.uri().path().ends_with("/ext/ciba/auth") {
        return backchannel(ctx, req).await;
    }
    let params = Params::from_pairs(form_pairs(&req).map_err(|_| {
        OAuthError::invalid_request("the body must be application/x-www-form-urlencoded")
    })?);
    let presented = Presented::from_params(super::token::basic_credentials(&req)?, &params)?;
    let s = device_grant::start(ctx, &params, &presented, &source(&req), &user_agent(&req)).await?;
    Ok(super::token::no_store(
        200,
        &json!({
            "device_code": s.device_code.expose(),
            "user_code": s.user_code,
            "verification_uri": s.verification_uri,
            "verification_uri_complete": s.verification_uri_complete,
            "expires_in": s.expires_in,
            "interval": s.interval,
        }),
    ))
}

/// `POST .../protocol/openid-connect/ext/ciba/auth` (OpenID CIBA Core §7): client
/// authentication as at the token endpoint (served by the device authorization endpoint's
/// function: both store one request a person decides on the phone).
async fn backchannel(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    let params = Params::from_pairs(form_pairs(&req).map_err(|_| {
        OAuthError::invalid_request("the body must be application/x-www-form-urlencoded")
    })?);
    let presented = Presented::from_params(super::token::basic_credentials(&req)?, &params)?;
    let s = crate::usecase::ciba::start(ctx, &params, &presented, &source(&req), &user_agent(&req))
        .await?;
    Ok(super::token::no_store(
        200,
        &json!({
            "auth_req_id": s.auth_req_id.expose(),
            "expires_in": s.expires_in,
            "interval": s.interval,
        }),
    ))
}

/// The code entry form, with `user_code` prefilled and `error` said (status 200, 400 or
/// 403), and a fresh anti-CSRF pair: the cookie that [`form_token`] binds the form to.
fn form(ctx: &Context, tr: &Tr, status: u16, user_code: &str, error: &str) -> Response {
    let action = device_grant::verification_uri(ctx);
    // Offered for a code from `verification_uri_complete`, not for one that was refused.
    let app_link = if user_code.is_empty() || !error.is_empty() {
        String::new()
    } else {
        let q = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("user_code", user_code)
            .finish();
        format!("{}/app/scan?{q}", ctx.settings.issuer())
    };
    let secret = random::token(ctx.random.as_ref(), 32);
    let csrf = form_token(&secret);
    let cookie = cookies::set(
        ctx,
        &cookies::device_form(ctx),
        &secret,
        Some(ctx.settings.lifetimes.device_code),
    );
    pages::html(
        ctx.random.as_ref(),
        status,
        "'self'",
        vec![cookie],
        |nonce| {
            askama::Template::render(&crate::views::DevicePage {
                nonce,
                tr,
                action: &action,
                user_code,
                error: &if error.is_empty() {
                    String::new()
                } else {
                    tr.t(error)
                },
                app_link: &app_link,
                csrf: &csrf,
            })
        },
    )
}

/// The form's anti-CSRF token: bound to the secret of the form cookie its page set (a
/// `SameSite=Lax` cookie another site's page cannot send with a POST, nor read or set).
fn form_token(secret: &str) -> String {
    login::hash(&format!("device-form:{secret}"))
}

/// Whether a `POST .../device` comes from scanid's own form: no other site's page
/// (`Sec-Fetch-Site`, `Origin`), and the form's token matches this browser's form cookie.
/// Typing a code starts a login for whatever device owns it, so another site must not
/// submit one from a victim's browser (login CSRF with the attacker's device code).
/// `Origin: null` decides nothing: scanid's pages send no referrer, so browsers send `null`
/// for their own form too (and a hostile page can choose `null`); the token decides then.
fn from_own_form(ctx: &Context, req: &Request, pairs: &[(String, String)]) -> bool {
    let own_origin = url::Url::parse(&ctx.settings.issuer())
        .map(|u| u.origin().ascii_serialization())
        .unwrap_or_default();
    let header = |name: &str| {
        req.headers()
            .get(name)
            .map(|v| v.to_str().unwrap_or("invalid"))
    };
    if header("sec-fetch-site").is_some_and(|v| v != "same-origin" && v != "none") {
        return false;
    }
    if header("origin").is_some_and(|o| o != own_origin && o != "null") {
        return false;
    }
    let (Some(secret), Some(posted)) = (
        cookies::get(req, &cookies::device_form(ctx)),
        single(pairs, "csrf"),
    ) else {
        return false;
    };
    let expected = form_token(&secret);
    aws_lc_rs::constant_time::verify_slices_are_equal(posted.as_bytes(), expected.as_bytes())
        .is_ok()
}

/// `GET .../device[?user_code=]`: the form. `POST .../device`: the typed code starts a QR
/// login for the device authorization (rate limited per source, RFC 8628 §5.1), when the
/// form is scanid's own ([`from_own_form`]); otherwise the empty form again, 403.
pub(crate) async fn page(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let (pairs, after_post) = get_or_post_params(&req)?;
    let typed = single(&pairs, "user_code").unwrap_or_default();
    // Only what a code can be is echoed back into the form.
    let shown: String = typed
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .take(16)
        .collect();
    let tr = Tr::of(ctx, &req, None);
    if !after_post {
        let tr = if shown.is_empty() {
            tr
        } else {
            tr.keeping(&[("user_code".to_owned(), shown.clone())])
        };
        return Ok(form(ctx, &tr, 200, &shown, ""));
    }
    if !from_own_form(ctx, &req, &pairs) {
        // Not prefilled: the code came from whoever sent this request.
        return Ok(form(ctx, &tr, 403, "", "device-not-from-page"));
    }
    let entered = device_grant::enter_user_code(ctx, &typed, &source_ip(&req))
        .await
        .map_err(|e| match e {
            AppError::RateLimited { retry_after } => HttpError::RateLimited {
                html: true,
                retry_after,
            },
            AppError::Store(s) => HttpError::from_page_store(s),
            other => HttpError::from(other),
        })?;
    Ok(match entered {
        Entered::Unknown => form(ctx, &tr, 400, &shown, "device-unknown-code"),
        Entered::ShowQr {
            login,
            client_name,
            self_registered,
            user_code,
            browser_secret,
        } => {
            let cookie = cookies::set(
                ctx,
                &cookies::login(ctx, &login.id),
                browser_secret.expose(),
                Some(ctx.settings.lifetimes.login + login::RECORD_GRACE_SECS),
            );
            let named = tr.t2(
                "qr-device-client",
                "client",
                &client_name,
                "code",
                &user_code,
            );
            super::login::qr_page_noting(ctx, &tr, &login, (&named, self_registered), vec![cookie])
        }
    })
}

/// The end of a verification: the phone approved (the device is connected) or refused.
pub(crate) fn finished(
    ctx: &Context,
    tr: &Tr,
    approved: bool,
    client_name: &str,
    cookies: Vec<String>,
) -> Response {
    let (title, message) = if approved {
        ("device-connected", "device-connected-text")
    } else {
        ("device-refused", "device-refused-text")
    };
    pages::html(ctx.random.as_ref(), 200, "'self'", cookies, |nonce| {
        askama::Template::render(&crate::views::ErrorPage {
            nonce,
            tr,
            title: &tr.t(title),
            message: &tr.t1(message, "client", client_name),
            detail: "",
        })
    })
}
