//! The token endpoint (spec 4.3): client authentication, then one grant.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use crate::protocol::Params;
use crate::protocol::{OAuthError, OAuthErrorCode};
use crate::usecase::token::{self, DpopPresented, Presented};
use crate::Context;
use crate::{check_realm, cors, form_pairs, json, source, HttpError, Request, Response};

/// RFC 6749 §2.3.1 / App. B: `Authorization: Basic base64(urlencode(id):urlencode(secret))`.
pub(crate) fn basic_credentials(req: &Request) -> Result<Option<(String, String)>, HttpError> {
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

/// A token-endpoint style JSON answer: `no-store` (docs/requirements.md T6).
pub(crate) fn no_store<T: serde::Serialize>(status: u16, v: &T) -> Response {
    let mut r = json(status, v);
    r.headers_mut()
        .insert("cache-control", http::HeaderValue::from_static("no-store"));
    r.headers_mut()
        .insert("pragma", http::HeaderValue::from_static("no-cache"));
    r
}

/// The request's DPoP proof (RFC 9449 §4), with its method and the endpoint's public URL (the
/// issuer and the path from `/protocol/` on); more than one `DPoP` header, or one that is not
/// text, is refused with the reason.
pub(crate) fn dpop_presented(
    ctx: &Context,
    req: &Request,
) -> Result<Option<DpopPresented>, &'static str> {
    let values: Vec<&http::HeaderValue> = req.headers().get_all("dpop").iter().collect();
    let proof = match values.as_slice() {
        [] => return Ok(None),
        [one] => one.to_str().map_err(|_| "the DPoP header is not text")?,
        _ => return Err("send one DPoP header"),
    };
    let path = req.uri().path();
    let tail = path.find("/protocol/").map_or(path, |i| &path[i..]);
    Ok(Some(DpopPresented {
        proof: proof.trim().to_owned(),
        htm: req.method().as_str().to_owned(),
        htu: format!("{}{tail}", ctx.settings.issuer()),
    }))
}

/// `invalid_dpop_proof` (400) for a DPoP header that cannot be read.
fn bad_dpop(why: &'static str) -> HttpError {
    HttpError::OAuth(OAuthError::new(OAuthErrorCode::InvalidDpopProof, why))
}

/// The answer of the token or PAR endpoint, with the server's current `DPoP-Nonce` when
/// nonces are in use (RFC 9449 §8: with `use_dpop_nonce`, and with every answer so the client
/// has the next one).
pub(crate) fn with_dpop_nonce(ctx: &Context, answer: Result<Response, HttpError>) -> Response {
    let mut r = answer.unwrap_or_else(HttpError::into_response);
    if let Some(n) = token::dpop_nonce(ctx).and_then(|n| http::HeaderValue::from_str(&n).ok()) {
        r.headers_mut().insert("dpop-nonce", n);
    }
    r
}

/// The credentials of a token or PAR request, with its DPoP proof.
pub(crate) fn presented(
    ctx: &Context,
    req: &Request,
    params: &Params,
) -> Result<Presented, HttpError> {
    let mut presented = Presented::from_params(basic_credentials(req)?, params)?;
    presented.dpop = dpop_presented(ctx, req).map_err(bad_dpop)?;
    Ok(presented)
}

/// `POST .../token`
pub(crate) async fn token(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let answer = async {
        let params = Params::from_pairs(form_pairs(&req).map_err(|_| {
            OAuthError::invalid_request("the body must be application/x-www-form-urlencoded")
        })?);
        let presented = presented(ctx, &req, &params)?;
        let (client, issued) = token::token(ctx, &params, &presented, &source(&req)).await?;
        Ok(cors::for_client(
            &req,
            &client,
            no_store(200, &issued.response()),
        ))
    }
    .await;
    Ok(with_dpop_nonce(ctx, answer))
}
