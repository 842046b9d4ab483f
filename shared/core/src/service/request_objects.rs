//! Signed request objects (RFC 9101): verified with the client's keys (`jwks` or `jwks_uri`),
//! pushed (RFC 9126, `usecase::par`) or passed by value at the authorization endpoint
//! (`request`, `usecase::login`). The same checks both ways: `alg` never `none` (and never
//! RS256 from a FAPI 2.0 client), the signature by one of the client's keys, then
//! [`RequestObject::check_signed`] (`iss`, `aud`, `exp`, `nbf`, `client_id`). The request is
//! then the object's parameters only ([`RequestObject::pushed_params`]).

use serde_json::{Map, Value};

use crate::context::Context;
use crate::domain::client::Client;
use crate::domain::client_assertion::{self, Refused};
use crate::domain::request_object::{self, RequestObject};
use crate::protocol::Params;
use crate::service::client_auth;

/// Why a signed request object was refused (`invalid_request_object`, with this
/// description).
pub type Invalid = &'static str;

/// Is `jwt` a request object that claims a signature (an `alg` other than `none`)? Such an
/// object is verified here; an unsigned one is the authorization endpoint's plain request.
pub fn claims_signature(jwt: &str) -> bool {
    request_object::alg_of(jwt).is_some_and(|a| a != "none")
}

/// The request `jwt` carries, once verified as `client`'s signed request object.
pub async fn verify(ctx: &Context, client: &Client, jwt: &str) -> Result<Params, Invalid> {
    if jwt.len() > request_object::MAX_LEN {
        return Err("the request object is longer than 16384 characters");
    }
    match request_object::alg_of(jwt).as_deref() {
        None => return Err("the request object is not a signed JWT"),
        Some("none") => {
            return Err("a signed request object is signed with the client's keys (not alg none)")
        }
        Some("RS256") if client.profile.is_some() => {
            return Err(
                "a FAPI 2.0 client signs its request objects with ES256, PS256 or EdDSA, not RS256",
            )
        }
        Some(_) => {}
    }
    let Some(keys) = client.jwks.clone() else {
        return Err(
            "this client registered no keys (jwks or jwks_uri) to verify its request object",
        );
    };
    let claims = client_auth::with_keys(ctx, client, &keys, |set| {
        client_assertion::signed_by::<Map<String, Value>>(jwt, None, set)
    })
    .await
    .map_err(|r| match r {
        Ok(why) => why,
        Err(Refused::UnknownKey) => "the request object's kid names none of the client's keys",
        Err(Refused::Invalid(_)) => {
            "the request object's signature does not verify with the client's keys"
        }
    })?;
    let object = RequestObject::verified(claims);
    let issuer = ctx.settings.issuer();
    object.check_signed(client.client_id.as_str(), &issuer, ctx.clock.now())?;
    Ok(object.pushed_params(client.client_id.as_str()))
}
