//! The check of every signed app request (app protocol §1): the identity it names, read
//! consistently and allowed to act; its signature, by the identity's device key (ES256) or
//! by one of its passkeys (a WebAuthn assertion over the server's challenge); and the write
//! that spends its `jti` with the change it asks for, so a replay is refused.

use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::app_jws::{self, PasskeyProof, PasskeySigned, Signed, Verified};
use crate::domain::identity::{self, Identity};
use crate::domain::login::ApprovedWith;
use crate::domain::passkey;
use crate::domain::ratelimit::{Limit, Source};
use crate::geoip;
use crate::service::app_error::{invalid, AppError};
use crate::service::{limits, webauthn};
use crate::store::{IdentityStore, Outcome, Passkeys, StoreError};

/// A signed app request that did not verify counts against its source: past the limit
/// the source gets 429 instead of 400.
pub(crate) async fn unverified(
    ctx: &Context,
    who: &Source,
    now: Timestamp,
) -> Result<(), AppError> {
    limits::within(ctx, Limit::UnverifiedDecision, who.as_str(), now).await
}

/// The identity `sub`, if it exists and may act, with its version.
async fn acting_identity(
    ctx: &Context,
    sub: &str,
    now: Timestamp,
) -> Result<(Identity, u64), AppError> {
    if sub.len() > 64 {
        return Err(AppError::UnknownIdentity);
    }
    match ctx.store.identity(sub, now).await? {
        Some((i, v)) if !i.disabled => Ok((i, v)),
        _ => Err(AppError::UnknownIdentity),
    }
}

/// Parses `jws` of type `typ` and verifies it with a key of identity `sub` (its device key,
/// or one of its passkeys); the request's `sub` must name that identity.
pub(crate) async fn signed_by_identity(
    ctx: &Context,
    sub: &str,
    jws: &str,
    typ: &str,
    now: Timestamp,
) -> Result<(Identity, u64, Verified), AppError> {
    let (ident, version, v, _) = signed_request(ctx, sub, jws, typ, None, now).await?;
    Ok((ident, version, v))
}

/// [`signed_by_identity`], saying what signed it; a passkey's use is recorded as from `from`.
pub(crate) async fn signed_request(
    ctx: &Context,
    sub: &str,
    jws: &str,
    typ: &str,
    from: Option<&Source>,
    now: Timestamp,
) -> Result<(Identity, u64, Verified, ApprovedWith), AppError> {
    let jws = app_jws::parse_signed(jws, typ).map_err(invalid)?;
    let (ident, version) = acting_identity(ctx, sub, now).await?;
    if jws.str_claim("sub") != Some(ident.sub.as_str()) {
        return Err(invalid("sub must name this identity"));
    }
    let (v, with) = verify_signed(ctx, &ident, jws, from, now).await?;
    Ok((ident, version, v, with))
}

/// Verifies a signed request of identity `ident`: an ES256 JWS with its device key (unless
/// retired), or a passkey's assertion (user verified, this origin and RP ID, a counter that
/// grows, the credential the identity's, the server's challenge spent once). The passkey's
/// use is recorded (`from`: where the request came from).
pub(crate) async fn verify_signed(
    ctx: &Context,
    ident: &Identity,
    signed: Signed,
    from: Option<&Source>,
    now: Timestamp,
) -> Result<(Verified, ApprovedWith), AppError> {
    let issuer = ctx.settings.issuer();
    match signed {
        Signed::Es256(jws) => {
            if ident.device_key_retired {
                return Err(invalid(
                    "this identity signs with its passkeys: send a WebAuthn assertion (alg webauthn)",
                ));
            }
            let spki =
                identity::parse_public_key(&ident.public_key).map_err(|_| AppError::StoredKey)?;
            let v = jws.verify(&spki, &issuer, now).map_err(invalid)?;
            Ok((v, ApprovedWith::DeviceKey))
        }
        Signed::Passkey(p) => verify_assertion(ctx, ident, p, from, now).await,
    }
}

async fn verify_assertion(
    ctx: &Context,
    ident: &Identity,
    p: PasskeySigned,
    from: Option<&Source>,
    now: Timestamp,
) -> Result<(Verified, ApprovedWith), AppError> {
    let PasskeyProof::Assertion(assertion) = &p.proof else {
        return Err(invalid("a signed request carries a WebAuthn assertion"));
    };
    let kid = p
        .credential_id
        .as_deref()
        .ok_or_else(|| invalid("kid: the passkey's credential id is required"))?;
    let rp = webauthn::relying_party(ctx)?;
    let Some(key) = ctx.store.passkey(kid, now).await? else {
        return Err(invalid("unknown passkey"));
    };
    let ok =
        passkey::verify_assertion(&rp, &key.value, ident.sub.as_str(), assertion, &p.challenge)
            .map_err(invalid)?;
    let v = app_jws::check_claims(p.claims, &ctx.settings.issuer(), now).map_err(invalid)?;
    webauthn::spend_challenge(ctx, &v.claims, now).await?;
    let from = from.map(|w| where_from(ctx, w));
    match ctx
        .store
        .passkey_used(&key, ok.sign_count, from, now)
        .await?
    {
        // A passkey the device key enrolled signs at the device key's level (issue 38).
        Outcome::Done => Ok((v, key.value.level(ApprovedWith::PasskeyUv))),
        Outcome::Lost => Err(AppError::Conflict(
            "this passkey was used at the same moment; sign a new request",
        )),
    }
}

/// Where a request came from, as a person reads it: "City, Country" when located, else
/// the address.
fn where_from(ctx: &Context, who: &Source) -> String {
    let geo = geoip::locate(ctx.geoip.as_ref(), who.as_str());
    let place = geo.location.as_ref().map(|l| {
        [l.city.as_deref(), l.country.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(", ")
    });
    match place {
        Some(p) if !p.is_empty() => p,
        _ => who.as_str().to_owned(),
    }
}

/// Writes the changed identity and spends the `jti`s, in one transaction.
pub(crate) async fn commit(
    ctx: &Context,
    next: Identity,
    version: u64,
    jtis: &[(String, i64)],
    now: Timestamp,
) -> Result<Identity, AppError> {
    // Every change the app makes (profile, photo, key) is a change of the identity's
    // information: OIDC Core's `updated_at`.
    let next = Identity {
        updated_at: Some(now),
        ..next
    };
    ctx.store
        .update_identity_signed(&next, version, jtis, now)
        .await
        .map_err(AppError::from_signed_write)?;
    Ok(next)
}

/// Spends a verified app request's `jti` for `sub` (one conditional write): a request sent
/// twice is refused the second time.
pub async fn spend_jti(
    ctx: &Context,
    sub: &str,
    jti: String,
    exp: i64,
    now: Timestamp,
) -> Result<(), AppError> {
    match ctx.store.spend_jtis(sub, &[(jti, exp)], now).await {
        Ok(()) => Ok(()),
        Err(StoreError::ConditionFailed) => Err(invalid("jti was already used")),
        Err(e) => Err(e.into()),
    }
}
