//! `POST .../protocol/openid-connect/ext/par/request` (RFC 9126 §2): a pushed authorization
//! request, authenticated as at the token endpoint; answered 201 with its `request_uri`.

use serde_json::json;

use crate::protocol::OAuthError;
use crate::protocol::Params;
use crate::usecase::par;
use crate::Context;
use crate::{check_realm, form_pairs, source, HttpError, Request, Response};

/// Stores the pushed request; `201 {request_uri, expires_in}` (RFC 9126 §2.2), errors as at
/// the token endpoint (RFC 9126 §2.3).
pub(crate) async fn push(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let answer = async {
        let params = Params::from_pairs(form_pairs(&req).map_err(|_| {
            OAuthError::invalid_request("the body must be application/x-www-form-urlencoded")
        })?);
        let presented = super::token::presented(ctx, &req, &params)?;
        let pushed = par::push(ctx, &params, &presented, &source(&req)).await?;
        Ok(super::token::no_store(
            201,
            &json!({
                "request_uri": pushed.request_uri,
                "expires_in": pushed.expires_in,
            }),
        ))
    }
    .await;
    Ok(super::token::with_dpop_nonce(ctx, answer))
}
