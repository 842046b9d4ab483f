//! The secrets of `client_secret_jwt` clients, sealed and opened with the service's sealing
//! key (`keys::seal`): sealed whenever such a client gets a secret (registration, the CLI,
//! the admin API, a rotation), opened to check an assertion's MAC. Every other client's
//! secret is kept as a hash only.

use crate::context::Context;
use crate::domain::client::{Client, ClientSecret};
use crate::keys::SignError;

/// Why `client_secret_jwt` is not offered where no sealing key is held.
pub const NOT_OFFERED: &str = "client_secret_jwt needs the service's sealing key, held with local signing keys (SCANID_SIGNING=local) or kms-envelope ones";

/// Whether this process holds a sealing key (so `client_secret_jwt` clients can be made).
pub fn offered(ctx: &Context) -> bool {
    ctx.sealing.is_some()
}

/// Seals `secret` into `client` when it authenticates by `client_secret_jwt` (nothing to do
/// otherwise); bound to its client id.
pub async fn seal(
    ctx: &Context,
    client: &mut Client,
    secret: &ClientSecret,
) -> Result<(), SignError> {
    let Some(jwt) = client.secret_jwt.as_mut() else {
        return Ok(());
    };
    let sealing = ctx
        .sealing
        .as_ref()
        .ok_or_else(|| SignError::Key(NOT_OFFERED.into()))?;
    let key = sealing.key().await?;
    jwt.sealed = Some(key.seal(
        secret.expose().as_bytes(),
        client.client_id.as_str(),
        ctx.random.as_ref(),
    )?);
    Ok(())
}

/// The secret of a `client_secret_jwt` client, to check a MAC with; why not otherwise.
pub async fn open(ctx: &Context, client: &Client) -> Result<Vec<u8>, &'static str> {
    let sealed = client
        .secret_jwt
        .as_ref()
        .and_then(|s| s.sealed.as_deref())
        .ok_or("this client has no secret (client_secret_jwt)")?;
    let Some(sealing) = ctx.sealing.as_ref() else {
        return Err(NOT_OFFERED);
    };
    let key = sealing.key().await.map_err(|e| {
        tracing::error!(error = %e, "the sealing key could not be read");
        "the service's sealing key could not be read"
    })?;
    key.open(sealed, client.client_id.as_str())
        .ok_or("this client's sealed secret does not open with the service's sealing key")
}
