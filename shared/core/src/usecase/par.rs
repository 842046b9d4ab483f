//! `POST .../protocol/openid-connect/ext/par/request`: pushed authorization requests
//! (RFC 9126 §2). The client authenticates as at the token endpoint (a public client by its
//! `client_id`), with a `private_key_jwt` assertion addressed to the issuer only (FAPI 2.0);
//! the request is validated as the authorization endpoint validates it
//! ([`authorize::validate_with`]), then stored under a new `request_uri` for
//! [`pushed::LIFETIME_SECS`].

use crate::context::Context;
use crate::domain::authorize::{self, AuthorizeError};
use crate::domain::pushed::{self, PushedRequest};
use crate::domain::ratelimit::{Counted, Limit, Source};
use crate::protocol::{OAuthErrorCode, Params};

use crate::domain::client::Client;
use crate::domain::request_object;
use crate::service::client_auth::{authenticate, Presented};
use crate::service::dpop;
use crate::service::issuance::{oauth, TokenError};
use crate::service::limits;
use crate::service::request_objects;
use crate::store::PushedRequests;

/// The answer (RFC 9126 §2.2): the `request_uri` and its lifetime.
#[derive(Debug)]
pub struct Pushed {
    /// `urn:ietf:params:oauth:request_uri:...`.
    pub request_uri: String,
    /// Seconds it stays usable.
    pub expires_in: i64,
}

/// Authenticates, validates and stores the pushed request.
pub async fn push(
    ctx: &Context,
    params: &Params,
    presented: &Presented,
    source: &Source,
) -> Result<Pushed, TokenError> {
    let presented = Presented {
        at_par: true,
        ..presented.clone()
    };
    let client = authenticate(ctx, &presented, true, source).await?;
    // RFC 9126 §2.1: no request_uri in a pushed request.
    if params.one("request_uri").ok().flatten().is_some() {
        return Err(oauth(
            OAuthErrorCode::InvalidRequest,
            "a pushed request cannot carry request_uri",
        ));
    }
    // A signed request object carries the whole request (RFC 9101 §6.3): what is outside it
    // is ignored.
    let object = signed_object(ctx, &client, params).await?;
    let params = object.as_ref().unwrap_or(params);
    // DPoP (RFC 9449 §10.1): a proof at PAR binds the code to its key, as `dpop_jkt` would;
    // both must then name the same key.
    let proof = dpop::at_token(ctx, presented.dpop.as_ref()).await?;
    let mut request = PushedRequest::of(params, client.client_id.as_str());
    if let Some(p) = proof {
        match params.one("dpop_jkt").ok().flatten() {
            Some(j) if j != p.jkt => {
                return Err(oauth(
                    OAuthErrorCode::InvalidDpopProof,
                    "dpop_jkt is not the thumbprint of the DPoP proof's key",
                ))
            }
            Some(_) => {}
            None => request.params.push(("dpop_jkt".into(), p.jkt)),
        }
    }
    let now = ctx.clock.now();
    let issuer = ctx.settings.issuer();
    let policy = authorize::Policy {
        require_nonce: ctx.settings.require_nonce,
        resources: &ctx.settings.resources,
        issuer: &issuer,
        now,
        signing_alg: ctx.settings.signing_alg,
    };
    match authorize::validate_with(&request.params(), Some(&client), &policy) {
        Ok(_) => {}
        Err(AuthorizeError::Untrusted(why)) => {
            return Err(oauth(OAuthErrorCode::InvalidRequest, why))
        }
        Err(AuthorizeError::Redirect(_, e)) => return Err(TokenError::OAuth(e)),
    }
    // A pushed request is a login request: counted as the authorization endpoint counts a
    // new QR login (`--login-rate-per-minute`), so no source fills the store with them.
    match limits::count(
        ctx.store.as_ref(),
        &ctx.settings.limits,
        Limit::Login,
        source.as_str(),
        now,
    )
    .await?
    {
        Counted::Allowed => {}
        Counted::Limited { retry_after } => return Err(TokenError::RateLimited { retry_after }),
    }
    let (request_uri, hash) = pushed::new_request_uri(ctx.random.as_ref());
    ctx.store
        .push_request(&hash, &request, now.secs() + pushed::LIFETIME_SECS, now)
        .await?;
    Ok(Pushed {
        request_uri,
        expires_in: pushed::LIFETIME_SECS,
    })
}

/// The request a pushed, signed request object carries (RFC 9101, FAPI 2.0 Message Signing),
/// verified with the client's keys; `None` without one (refused for a client that must send
/// one). Unsigned (`alg: none`) objects are refused here, and RS256 for a FAPI 2.0 client.
async fn signed_object(
    ctx: &Context,
    client: &Client,
    params: &Params,
) -> Result<Option<Params>, TokenError> {
    let invalid = |why| oauth(OAuthErrorCode::InvalidRequestObject, why);
    let jwt = match params.one("request") {
        Ok(Some(j)) => j,
        Ok(None) if client.require_signed_request_object => {
            return Err(oauth(
                OAuthErrorCode::InvalidRequest,
                "this client must push a signed request object (request)",
            ))
        }
        Ok(None) => return Ok(None),
        Err(_) => return Err(invalid("request is repeated")),
    };
    if request_object::alg_of(jwt).as_deref() == Some("none") {
        return Err(invalid(
            "a pushed request object is signed with the client's keys (not alg none)",
        ));
    }
    request_objects::verify(ctx, client, jwt)
        .await
        .map(Some)
        .map_err(invalid)
}
