//! Sign-up (app protocol §1): a new identity, proved by the key that will sign its requests
//! (the device key's ES256, or a passkey's WebAuthn registration), and whether a name is
//! still free while the person types it.

use crate::audit::{Audit, Event};
use crate::context::Context;
use crate::domain::app_jws::{self, PasskeyProof, PasskeySigned};
use crate::domain::identity::{self, Identity};
use crate::domain::passkey;
use crate::domain::ratelimit::{Limit, Source};
use crate::protocol::app_request::{self, AppRequest, Registration};
use crate::service::app_error::{invalid, AppError};
use crate::service::limits;
use crate::service::webauthn::{key_name, relying_party, spend_challenge};
use crate::store::{IdentityStore, NewIdentityError, Passkeys};

/// Sign-up with proof of possession of the device key: the new identity.
pub async fn signup(ctx: &Context, registration: &str, who: &Source) -> Result<Identity, AppError> {
    let now = ctx.clock.now();
    let jws = match app_jws::parse_signed(registration, Registration::TYP).map_err(invalid)? {
        app_jws::Signed::Es256(jws) => jws,
        app_jws::Signed::Passkey(p) => return signup_with_passkey(ctx, p, who).await,
    };
    let key = jws
        .str_claim("public_key")
        .ok_or_else(|| invalid("public_key: required"))?;
    let spki = identity::parse_public_key(key).map_err(invalid)?;
    let verified = jws
        .verify(&spki, &ctx.settings.issuer(), now)
        .map_err(invalid)?;
    let reg: Registration = app_request::read(&verified.claims).map_err(invalid)?;
    limits::within(ctx, Limit::Signup, who.as_str(), now).await?;
    // A fresh service_id on the rare collision; name and jti conflicts are final.
    for _ in 0..3 {
        let ident =
            identity::new_identity(&reg, &ctx.settings.photo_hosts, now, ctx.random.as_ref())
                .map_err(invalid)?;
        let jti = Some((format!("reg:{}", verified.jti), verified.exp));
        match ctx.store.create_identity(&ident, jti, now).await {
            Ok(()) => {
                Audit::new(Event::IdentityCreated)
                    .subject(&ident.sub)
                    .source(who.as_str())
                    .emit();
                return Ok(ident);
            }
            Err(NewIdentityError::ServiceIdTaken) => continue,
            Err(NewIdentityError::NameTaken) => return Err(AppError::NameTaken),
            Err(NewIdentityError::Replay) => return Err(invalid("jti was already used")),
            Err(NewIdentityError::Store(e)) => return Err(e.into()),
        }
    }
    Err(AppError::Busy)
}

/// Sign-up with a passkey: the registration's claims as with a device key (without
/// `public_key`: the passkey's key is published), its WebAuthn registration made over them.
async fn signup_with_passkey(
    ctx: &Context,
    p: PasskeySigned,
    who: &Source,
) -> Result<Identity, AppError> {
    let now = ctx.clock.now();
    let PasskeyProof::Registration {
        client_data_json,
        attestation_object,
        transports,
    } = &p.proof
    else {
        return Err(invalid("a passkey sign-up carries a WebAuthn registration"));
    };
    let rp = relying_party(ctx)?;
    let cred =
        passkey::verify_registration(&rp, client_data_json, attestation_object, &p.challenge)
            .map_err(invalid)?;
    let spki = passkey::es256_spki(&cred.public_key)
        .ok_or_else(|| invalid("a sign-up passkey must be ES256 (COSE -7)"))?;
    let v =
        app_jws::check_claims(p.claims.clone(), &ctx.settings.issuer(), now).map_err(invalid)?;
    let mut claims = v.claims.clone();
    claims.insert(
        "public_key".into(),
        base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &spki).into(),
    );
    let reg: Registration = serde_json::from_value(serde_json::Value::Object(claims))
        .map_err(|_| invalid("registration claims must be strings"))?;
    limits::within(ctx, Limit::Signup, who.as_str(), now).await?;
    spend_challenge(ctx, &v.claims, now).await?;
    let name = key_name(v.claims.get("passkey_name"));
    for _ in 0..3 {
        let mut ident =
            identity::new_identity(&reg, &ctx.settings.photo_hosts, now, ctx.random.as_ref())
                .map_err(invalid)?;
        ident.device_key_retired = true;
        let key = cred
            .clone()
            .into_passkey(ident.sub.as_str(), &name, transports.clone(), now);
        let jti = Some((format!("reg:{}", v.jti), v.exp));
        match ctx
            .store
            .create_identity_with_passkey(&ident, &key, jti, now)
            .await
        {
            Ok(()) => {
                Audit::new(Event::IdentityCreated)
                    .subject(&ident.sub)
                    .source(who.as_str())
                    .detail("passkey")
                    .emit();
                return Ok(ident);
            }
            Err(NewIdentityError::ServiceIdTaken) => continue,
            Err(NewIdentityError::NameTaken) => return Err(AppError::NameTaken),
            Err(NewIdentityError::Replay) => return Err(invalid("jti or passkey already used")),
            Err(NewIdentityError::Store(e)) => return Err(e.into()),
        }
    }
    Err(AppError::Busy)
}

/// Whether `name` is free for a new identity (the sign-up form asks as the person types; the
/// sign-up itself still decides, atomically). A name held after its identity was deleted is
/// not free. Lookups count against their source ([`Limit::NameLookup`]): the answer is the
/// same oracle sign-up is, without sign-up's cost.
pub async fn name_available(ctx: &Context, name: &str, who: &Source) -> Result<bool, AppError> {
    identity::validate_name(name).map_err(invalid)?;
    let now = ctx.clock.now();
    limits::within(ctx, Limit::NameLookup, who.as_str(), now).await?;
    Ok(!ctx.store.name_taken(name, now).await?)
}
