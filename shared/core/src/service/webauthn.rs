//! The server's side of WebAuthn that several app requests share: this deployment's relying
//! party, the single-use challenges it issued, and a new passkey's name.

use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::passkey::RelyingParty;
use crate::service::app_error::{invalid, AppError};
use crate::store::Passkeys;

/// The relying party of this deployment (the issuer's origin and host).
pub(crate) fn relying_party(ctx: &Context) -> Result<RelyingParty, AppError> {
    RelyingParty::for_issuer(&ctx.settings.issuer())
        .ok_or_else(|| invalid("this issuer has no host: passkeys are unavailable"))
}

/// Spends the request's `webauthn_challenge` claim (issued by the app's
/// `POST .../app/passkey-challenges`).
pub(crate) async fn spend_challenge(
    ctx: &Context,
    claims: &serde_json::Map<String, serde_json::Value>,
    now: Timestamp,
) -> Result<(), AppError> {
    let c = claims
        .get("webauthn_challenge")
        .and_then(serde_json::Value::as_str)
        .ok_or_else(|| invalid("webauthn_challenge: required (POST .../app/passkey-challenges)"))?;
    if ctx.store.take_webauthn_challenge(c, now).await? {
        Ok(())
    } else {
        Err(invalid("webauthn_challenge: unknown, expired or used"))
    }
}

/// A key's name: the one given (trimmed, at most 64 characters), else "Passkey".
pub(crate) fn key_name(v: Option<&serde_json::Value>) -> String {
    let n: String = v
        .and_then(serde_json::Value::as_str)
        .map(str::trim)
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_control())
        .take(64)
        .collect();
    if n.is_empty() {
        "Passkey".into()
    } else {
        n
    }
}
