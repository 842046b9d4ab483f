//! Introspection (spec 4.4, RFC 7662), userinfo (4.5) and revocation (RFC 7009): what a
//! client or resource server asks about a token.

use lambda_http::Body;

use crate::domain::client::Client;
use crate::handlers::token::no_store;
use crate::protocol::OAuthError;
use crate::protocol::Params;
use crate::usecase::resource::{self, LiveToken};
use crate::usecase::token;
use crate::Context;
use crate::{
    base, check_realm, cors, finish, form_pairs, json, query_pairs, source, HttpError, Request,
    Response,
};

/// `POST .../introspect`: client authentication required (docs/requirements.md I1). A client sees its
/// own tokens; a resource server also other clients' access tokens; anything else is
/// `{"active":false}`.
pub(crate) async fn introspect(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let (client, t) = client_and_token(ctx, &req, false).await?;
    let now = ctx.clock.now();
    let answer = resource::introspect(ctx, &client, &t, now).await?;
    if !wants_jwt(&req) {
        return Ok(no_store(200, &answer));
    }
    // RFC 9701: the caller asked for the response signed.
    let signed = resource::signed_introspection(ctx, &client, &answer, now).await?;
    let b = base(200)
        .header(
            "content-type",
            format!("application/{}", resource::INTROSPECTION_JWT),
        )
        .header("cache-control", "no-store")
        .header("pragma", "no-cache");
    Ok(finish(b, Body::Text(signed)))
}

/// Whether the request's `Accept` names `application/token-introspection+jwt` (RFC 9701 §4).
fn wants_jwt(req: &Request) -> bool {
    req.headers()
        .get_all(http::header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| {
            t.split(';').next().is_some_and(|m| {
                m.trim()
                    .eq_ignore_ascii_case("application/token-introspection+jwt")
            })
        })
}

/// The authenticated client and the `token` parameter of an introspection or revocation
/// request (`public`: whether a public client may ask).
async fn client_and_token(
    ctx: &Context,
    req: &Request,
    public: bool,
) -> Result<(Client, String), HttpError> {
    let params = Params::from_pairs(form_pairs(req).map_err(|_| {
        OAuthError::invalid_request("the body must be application/x-www-form-urlencoded")
    })?);
    let presented = super::token::presented(ctx, req, &params)?;
    let client = token::authenticate(ctx, &presented, public, &source(req)).await?;
    // A DPoP proof, when one came, is checked (RFC 9449 §4.3) and spent; it binds nothing here.
    if let Some(p) = &presented.dpop {
        resource::check_dpop(ctx, p, None, false)
            .await
            .map_err(token::TokenError::from)?;
    }
    let t = params
        .one("token")
        .map_err(|_| OAuthError::invalid_request("token is repeated"))?
        .ok_or_else(|| OAuthError::invalid_request("token is required"))?;
    Ok((client, t.to_owned()))
}

/// `POST .../revoke` (RFC 7009): 200 for unknown and foreign tokens alike (docs/requirements.md V1).
pub(crate) async fn revoke(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let (client, t) = client_and_token(ctx, &req, true).await?;
    resource::revoke(ctx, &client.client_id, &t, ctx.clock.now()).await?;
    Ok(cors::for_client(
        &req,
        &client,
        finish(base(200).header("cache-control", "no-store"), Body::Empty),
    ))
}

/// The access token, from exactly one place (RFC 6750 §2; docs/requirements.md U3), and
/// whether it came in the `DPoP` scheme (RFC 9449 §7.1; the scheme's name in any case).
fn bearer(req: &Request) -> Result<(String, bool), HttpError> {
    let mut found: Vec<String> = Vec::new();
    let mut dpop = false;
    if let Some(h) = req.headers().get(http::header::AUTHORIZATION) {
        let h = h.to_str().unwrap_or("");
        match h.split_once(' ') {
            Some((scheme, t)) if scheme.eq_ignore_ascii_case("bearer") && !t.trim().is_empty() => {
                found.push(t.trim().to_owned())
            }
            Some((scheme, t)) if scheme.eq_ignore_ascii_case("dpop") && !t.trim().is_empty() => {
                dpop = true;
                found.push(t.trim().to_owned())
            }
            _ => return Err(HttpError::invalid_token("malformed Authorization header")),
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
        return Err(HttpError::bearer_invalid_request(
            "send the access token in the Authorization header or the form body, never in the URL",
        ));
    }
    match found.len() {
        0 => Err(HttpError::token_required("an access token is required")),
        1 => Ok((found.remove(0), dpop)),
        _ => Err(HttpError::bearer_invalid_request(
            "the access token was sent more than one way",
        )),
    }
}

/// A DPoP challenge (RFC 9449 §7.1).
fn dpop_error(error: &'static str, description: &'static str) -> HttpError {
    HttpError::Dpop { error, description }
}

/// The request's DPoP proof for the access token `t`, checked and spent: its key's thumbprint.
async fn dpop_proof(ctx: &Context, req: &Request, t: &str) -> Result<String, HttpError> {
    let p = match super::token::dpop_presented(ctx, req) {
        Ok(Some(p)) => p,
        Ok(None) => {
            return Err(dpop_error(
                "invalid_dpop_proof",
                "the DPoP scheme needs a DPoP proof",
            ))
        }
        Err(why) => return Err(dpop_error("invalid_dpop_proof", why)),
    };
    match resource::check_dpop(ctx, &p, Some(t), false).await {
        Ok(proof) => Ok(proof.jkt),
        Err(resource::DpopError::Refused(r)) => Err(dpop_error(r.code(), r.description())),
        Err(resource::DpopError::Store(e)) => Err(e.into()),
    }
}

/// `GET|POST .../userinfo` (docs/requirements.md U1-U4, C1); its bearer challenges name
/// the protected resource metadata (RFC 9728 §5.1).
pub(crate) async fn userinfo(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    match userinfo_of(ctx, &req).await {
        Err(e) => {
            let metadata = crate::domain::discovery::resource_metadata_url(
                &ctx.settings.public_url,
                &ctx.settings.realm,
            );
            match e.bearer_with_metadata(&metadata) {
                Some(r) => Ok(r),
                None => Err(e),
            }
        }
        ok => ok,
    }
}

async fn userinfo_of(ctx: &Context, req: &Request) -> Result<Response, HttpError> {
    let (t, dpop_scheme) = bearer(req)?;
    let now = ctx.clock.now();
    let proof = if dpop_scheme {
        Some(dpop_proof(ctx, req, &t).await?)
    } else {
        None
    };
    let Some(live) = resource::live_access_token(ctx, &t, now).await? else {
        return Err(match proof {
            Some(_) => dpop_error(
                "invalid_token",
                "the access token is invalid, expired or revoked",
            ),
            None => HttpError::invalid_token("the access token is invalid, expired or revoked"),
        });
    };
    // RFC 9449 §7: a DPoP-bound token only with a proof by its key; a bearer token only as one.
    match (live.claims.cnf.as_ref(), proof.as_deref()) {
        (Some(cnf), Some(jkt)) if cnf.jkt == jkt => {}
        (Some(_), Some(_)) => {
            return Err(dpop_error(
                "invalid_token",
                "the DPoP proof's key is not the one the access token is bound to",
            ))
        }
        (Some(_), None) => {
            return Err(dpop_error(
                "invalid_token",
                "the access token is DPoP-bound: send it in the DPoP scheme with a proof",
            ))
        }
        (None, Some(_)) => {
            return Err(dpop_error(
                "invalid_token",
                "the access token is not DPoP-bound: send it in the Bearer scheme",
            ))
        }
        (None, None) => {}
    }
    // RFC 8707: a token for a resource server is that server's, not userinfo's.
    if live.claims.for_resource_server() {
        return Err(HttpError::invalid_token(
            "the access token is for a resource server (its aud), not for userinfo",
        ));
    }
    let LiveToken { identity, .. } = &live;
    let Some(identity) = identity else {
        return Err(HttpError::invalid_token(
            "userinfo needs a user's access token",
        ));
    };
    if !live.claims.has_scope("openid") {
        return Err(HttpError::insufficient_scope(
            "the openid scope is required",
        ));
    }
    let mut r = json(200, &resource::userinfo(&live, identity));
    r.headers_mut()
        .insert("cache-control", http::HeaderValue::from_static("no-store"));
    Ok(cors::for_client(req, &live.client, r))
}
