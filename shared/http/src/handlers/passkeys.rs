//! Passkeys (issue 26): the server's WebAuthn challenges, and an identity's keys listed,
//! added and removed. One handler serves the four routes (one Lambda function, `app-passkeys`);
//! it parses, calls one use case ([`crate::usecase::app`]) and renders.

use serde::Deserialize;
use serde_json::json;

use crate::usecase::app;
use crate::Context;
use crate::{check_realm, json, json_body, path_param, source, HttpError, Request, Response};

#[derive(Deserialize)]
struct KeysBody {
    keys: String,
}

#[derive(Deserialize)]
struct AddBody {
    passkey: String,
}

#[derive(Deserialize)]
struct RemovalBody {
    removal: String,
}

/// `POST .../app/passkey-challenges`, `POST .../app/identities/{sub}/keys` (the list),
/// `POST .../app/identities/{sub}/passkeys` (add) and
/// `DELETE .../app/identities/{sub}/keys/{key_id}` (remove).
pub(crate) async fn passkeys(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let who = source(&req);
    let Some(sub) = path_param(&req, "sub") else {
        let c = app::new_challenge(ctx, &who).await?;
        return Ok(json(201, &c));
    };
    if req.method() == http::Method::DELETE {
        let key_id = path_param(&req, "key_id").ok_or(HttpError::NotFound)?;
        let body: RemovalBody = json_body(&req)?;
        app::remove_key(ctx, &sub, &key_id, &body.removal, &who).await?;
        return Ok(json(200, &json!({ "status": "removed" })));
    }
    if req.uri().path().ends_with("/passkeys") {
        let body: AddBody = json_body(&req)?;
        let added = app::add_passkey(ctx, &sub, &body.passkey, &who).await?;
        return Ok(json(201, &added));
    }
    let body: KeysBody = json_body(&req)?;
    let keys = app::keys(ctx, &sub, &body.keys, &who).await?;
    Ok(json(200, &keys))
}
