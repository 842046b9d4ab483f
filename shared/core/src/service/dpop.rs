//! DPoP proofs at the endpoints (RFC 9449): a proof checked against the request it came
//! with ([`crate::domain::dpop`]) and its `jti` spent by one conditional write; the server's
//! nonce, when the operator set a secret (`--dpop-nonce-secret`), at the token and PAR
//! endpoints.

use crate::context::Context;
use crate::domain::dpop::{self, Proof, Refused};
use crate::protocol::OAuthErrorCode;
use crate::service::issuance::{oauth, TokenError};
use crate::store::{DpopProofs, Outcome, StoreError};

/// The `DPoP` header of a request, with the request's method and public URL.
#[derive(Debug, Clone, Default)]
pub struct Presented {
    /// The proof (one `DPoP` header).
    pub proof: String,
    /// The request's method (`htm`).
    pub htm: String,
    /// The endpoint's public URL (`htu`): the public URL and the request's path.
    pub htu: String,
}

/// Why a proof was refused, or the store failed.
#[derive(Debug)]
pub enum DpopError {
    /// `invalid_dpop_proof` or `use_dpop_nonce`.
    Refused(Refused),
    /// The store failed.
    Store(StoreError),
}

impl From<StoreError> for DpopError {
    fn from(e: StoreError) -> Self {
        DpopError::Store(e)
    }
}

impl From<DpopError> for TokenError {
    fn from(e: DpopError) -> Self {
        match e {
            DpopError::Refused(r @ Refused::Invalid(_)) => {
                oauth(OAuthErrorCode::InvalidDpopProof, r.description())
            }
            DpopError::Refused(r @ Refused::UseNonce(_)) => {
                oauth(OAuthErrorCode::UseDpopNonce, r.description())
            }
            DpopError::Store(s) => TokenError::Store(s),
        }
    }
}

/// Where nonces are asked for: the token and PAR endpoints (`with_nonce`), when the operator
/// set a nonce secret.
fn nonce_secret(ctx: &Context, with_nonce: bool) -> Option<&[u8]> {
    ctx.settings
        .dpop_nonce_secret
        .as_ref()
        .filter(|_| with_nonce)
        .map(|s| s.expose().as_bytes())
}

/// The server's current nonce, for the `DPoP-Nonce` header, when nonces are in use.
pub fn current_nonce(ctx: &Context) -> Option<String> {
    nonce_secret(ctx, true).map(|s| dpop::nonce(s, ctx.clock.now()))
}

/// Checks `p` (with `access_token`, whose hash it must carry) and spends its `jti`: the
/// key's thumbprint.
pub async fn check(
    ctx: &Context,
    p: &Presented,
    access_token: Option<&str>,
    with_nonce: bool,
) -> Result<Proof, DpopError> {
    let now = ctx.clock.now();
    let expected = dpop::Expected {
        htm: &p.htm,
        htu: &p.htu,
        access_token,
        nonce_secret: nonce_secret(ctx, with_nonce),
    };
    let proof = dpop::verify(&p.proof, &expected, now).map_err(DpopError::Refused)?;
    let until = dpop::replay_expiry(proof.iat, now);
    match ctx
        .store
        .spend_dpop_proof(&proof.jkt, &proof.jti, until, now)
        .await?
    {
        Outcome::Done => Ok(proof),
        Outcome::Lost => Err(DpopError::Refused(Refused::Invalid(
            "this DPoP proof was used already (jti)",
        ))),
    }
}

/// The proof of a token or PAR request, if one came: checked, nonce and all.
pub async fn at_token(ctx: &Context, p: Option<&Presented>) -> Result<Option<Proof>, TokenError> {
    match p {
        Some(p) => Ok(Some(check(ctx, p, None, true).await?)),
        None => Ok(None),
    }
}
