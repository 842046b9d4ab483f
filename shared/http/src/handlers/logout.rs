//! RP-initiated logout (OIDC RP-Initiated Logout 1.0) and Keycloak's back-channel logout.

use lambda_http::Body;

use crate::handlers::token::basic_credentials;
use crate::pages;
use crate::protocol::OAuthError;
use crate::protocol::Params;
use crate::usecase::logout::{LogoutOutcome, LogoutRequest};
use crate::usecase::resource;
use crate::usecase::token;
use crate::usecase::token::Presented;
use crate::{
    base, check_realm, cookies, cors, finish, get_or_post_params, source, HttpError, Request,
    Response,
};
use crate::{usecase, Context};

fn one(pairs: &[(String, String)], name: &str) -> Result<Option<String>, HttpError> {
    let mut it = pairs.iter().filter(|(k, _)| k == name);
    match (it.next(), it.next()) {
        (Some((_, v)), None) => Ok(Some(v.clone()).filter(|v| !v.is_empty())),
        (None, _) => Ok(None),
        _ => Err(HttpError::page_bad_request(
            "error-logout-invalid",
            "error-logout-repeated-text",
        )),
    }
}

/// `GET|POST .../logout` (OIDC RP-Initiated Logout 1.0). Ends only the session this browser
/// holds, and without asking only when the `id_token_hint` names that very session
/// ([`domain::logout::decide`](crate::domain::logout::decide)).
pub(crate) async fn logout(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let (pairs, after_post) = get_or_post_params(&req)?;
    if after_post && pairs.iter().any(|(k, _)| k == "refresh_token") {
        return backchannel_logout(ctx, &req, pairs).await;
    }
    let tr = crate::i18n::Tr::of(ctx, &req, None);
    let cookie_name = cookies::sso(ctx);
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
    let outcome = usecase::logout::logout(ctx, &request).await?;
    let clear = cookies::clear(ctx, &cookie_name);
    let clear_state = cookies::clear(ctx, &cookies::session_state(ctx));
    match outcome {
        LogoutOutcome::Refused => Err(HttpError::page_forbidden(
            "error-refused",
            "error-logout-refused-text",
        )),
        LogoutOutcome::Confirm {
            csrf,
            post_logout_redirect_uri,
            state,
            client_id,
        } => Ok(cors::none(confirm_page(
            ctx,
            &tr,
            &post_logout_redirect_uri,
            &state,
            &client_id,
            csrf.expose(),
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
            ctx.random.as_ref(),
            200,
            "'self'",
            vec![clear, clear_state],
            |nonce| askama::Template::render(&crate::views::LoggedOut { nonce, tr: &tr }),
        ))),
    }
}

/// Keycloak's back-channel logout: `POST .../logout` with client authentication (a public
/// client sends its `client_id`) and `refresh_token`: 204, the grant and its SSO session end.
async fn backchannel_logout(
    ctx: &Context,
    req: &Request,
    pairs: Vec<(String, String)>,
) -> Result<Response, HttpError> {
    let params = Params::from_pairs(pairs);
    let presented = Presented::from_params(basic_credentials(req)?, &params)?;
    let client = token::authenticate(ctx, &presented, true, &source(req)).await?;
    let rt = params
        .one("refresh_token")
        .map_err(|_| OAuthError::invalid_request("refresh_token is repeated"))?
        .unwrap_or_default();
    let now = ctx.clock.now();
    if !resource::logout_by_refresh_token(ctx, &client.client_id, rt, now).await? {
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
    ctx: &Context,
    tr: &crate::i18n::Tr,
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
        ctx.random.as_ref(),
        200,
        &form_action,
        Vec::new(),
        |nonce| {
            askama::Template::render(&crate::views::LogoutConfirm {
                nonce,
                tr,
                action: &format!("{}/protocol/openid-connect/logout", ctx.settings.issuer()),
                fields,
                csrf,
            })
        },
    )
}
