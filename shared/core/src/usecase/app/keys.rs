//! The identity's keys (app protocol §4): passkeys added over the server's single-use
//! WebAuthn challenge (the device key may retire then), the keys listed, a key removed (never
//! the last), the device key rotated by the app or replaced by an operator when the phone is
//! lost; the new key in place, every session and token of the identity can end.

use serde::Serialize;

use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::app_jws;
use crate::domain::identity::{self, Identity};
use crate::domain::login::ApprovedWith;
use crate::domain::passkey::{self, Passkey, CHALLENGE_TTL_SECS};
use crate::domain::ratelimit::{Limit, Source};
use crate::protocol::app_request::{self, AppRequest, KeyProof, KeyRotation};
use crate::random;
use crate::service::app_error::{invalid, AppError};
use crate::service::limits;
use crate::service::sessions::end_sessions_of;
use crate::service::signed_request::{commit, signed_by_identity, signed_request};
use crate::service::webauthn::{key_name, relying_party};
use crate::store::{IdentityStore, NewPasskey, Outcome, Passkeys, Removal, StoreError};

/// A server-issued WebAuthn challenge, as the app receives it.
#[derive(Debug, Clone, Serialize)]
pub struct Challenge {
    /// The challenge, base64url (the WebAuthn `challenge`, and the request's `webauthn_challenge` claim).
    pub challenge: String,
    /// Seconds until it can no longer be spent.
    pub expires_in: i64,
    /// The RP ID to create or get credentials for (the issuer's host).
    pub rp_id: String,
}

/// Issues a single-use challenge (counted per source like a login).
pub async fn new_challenge(ctx: &Context, who: &Source) -> Result<Challenge, AppError> {
    let now = ctx.clock.now();
    let rp = relying_party(ctx)?;
    limits::within(ctx, Limit::Login, who.as_str(), now).await?;
    for _ in 0..3 {
        let c = random::token(ctx.random.as_ref(), 32);
        let exp = now.secs() + CHALLENGE_TTL_SECS;
        if ctx.store.issue_webauthn_challenge(&c, exp, now).await? == Outcome::Done {
            return Ok(Challenge {
                challenge: c,
                expires_in: CHALLENGE_TTL_SECS,
                rp_id: rp.id,
            });
        }
    }
    Err(AppError::Busy)
}

/// The WebAuthn registration a `passkey+jwt` carries in its `credential` claim (base64url
/// fields, decoded when verified).
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Credential {
    #[serde(rename = "clientDataJSON")]
    client_data_json: String,
    attestation_object: String,
    #[serde(default)]
    transports: Vec<String>,
}

impl Credential {
    fn of(claims: &serde_json::Map<String, serde_json::Value>) -> Result<Self, AppError> {
        claims
            .get("credential")
            .cloned()
            .and_then(|c| serde_json::from_value(c).ok())
            .ok_or_else(|| {
                invalid("credential: {clientDataJSON, attestationObject, transports} required")
            })
    }
}

/// Adds a passkey to identity `sub` (`passkey+jwt`, signed by one of its keys: the device key
/// for an upgrade): the claim `credential` is the WebAuthn registration
/// (`clientDataJSON`, `attestationObject`, `transports`) made over the request's
/// `webauthn_challenge`; `retire_device_key: true` stops the device key signing requests.
pub async fn add_passkey(
    ctx: &Context,
    sub: &str,
    request: &str,
    who: &Source,
) -> Result<PasskeyView, AppError> {
    let now = ctx.clock.now();
    let (ident, version, v, signed_with) =
        signed_request(ctx, sub, request, "passkey+jwt", Some(who), now).await?;
    // Signed by the device key (not a passkey's assertion, which spent the challenge).
    let by_device_key = matches!(
        crate::domain::app_jws::parse_signed(request, "passkey+jwt"),
        Ok(crate::domain::app_jws::Signed::Es256(_))
    );
    let cred = Credential::of(&v.claims)?;
    let b = |s: &str| {
        base64::Engine::decode(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
            s.trim_end_matches('='),
        )
        .map_err(|_| invalid("credential: base64url fields"))
    };
    let challenge = v
        .claims
        .get("webauthn_challenge")
        .and_then(serde_json::Value::as_str)
        .ok_or_else(|| invalid("webauthn_challenge: required (POST .../app/passkey-challenges)"))?
        .to_owned();
    let rp = relying_party(ctx)?;
    let new = passkey::verify_registration(
        &rp,
        &b(&cred.client_data_json)?,
        &b(&cred.attestation_object)?,
        challenge.as_bytes(),
    )
    .map_err(invalid)?;
    let retire = match v.claims.get("retire_device_key") {
        None => false,
        Some(serde_json::Value::Bool(b)) => *b,
        Some(_) => return Err(invalid("retire_device_key: a boolean")),
    };
    // A passkey's assertion spent the challenge already; a device-key request spends it here.
    if by_device_key && !ctx.store.take_webauthn_challenge(&challenge, now).await? {
        return Err(invalid("webauthn_challenge: unknown, expired or used"));
    }
    let mut key = new.into_passkey(
        ident.sub.as_str(),
        &key_name(v.claims.get("name")),
        cred.transports,
        now,
    );
    // The device key alone (no user verification) cannot make a passkey that logs in at a
    // higher level than itself: one it enrols (or a passkey it enrolled) stays at acr 1
    // (issue 38). A user-verified passkey's enrolment gets its full level.
    key.enrolled_by_device_key = signed_with == ApprovedWith::DeviceKey;
    let next = Identity {
        device_key_retired: ident.device_key_retired || retire,
        updated_at: Some(now),
        ..ident.clone()
    };
    match ctx
        .store
        .add_passkey(&key, (&next, version), &[(v.jti, v.exp)], now)
        .await?
    {
        NewPasskey::Added => {
            Audit::new(Event::PasskeyAdded)
                .subject(&ident.sub)
                .source(who.as_str())
                .detail(if retire {
                    "device key retired"
                } else {
                    "added"
                })
                .emit();
            Ok(PasskeyView::from(&key))
        }
        NewPasskey::Taken => Err(AppError::Conflict("this passkey is registered already")),
        NewPasskey::TooMany => Err(invalid("an identity holds at most 10 passkeys")),
        NewPasskey::Conflict => Err(AppError::SIGNED_WRITE_LOST),
    }
}

/// An identity's keys as its app and operators see them.
#[derive(Debug, Clone, Serialize)]
pub struct Keys {
    /// The device key (ES256), while it signs requests.
    pub device_key: Option<DeviceKey>,
    /// Its passkeys, oldest first.
    pub passkeys: Vec<PasskeyView>,
}

#[derive(Debug, Clone, Serialize)]
/// The identity's device key, as its app and operators see it.
pub struct DeviceKey {
    /// Standard base64 of its SubjectPublicKeyInfo.
    pub public_key: String,
}

#[derive(Debug, Clone, Serialize)]
/// One passkey, as its app and operators see it.
pub struct PasskeyView {
    /// Its credential id, base64url (the id to remove it by).
    pub credential_id: String,
    /// Its name.
    pub name: String,
    /// The transports the browser reported at registration.
    pub transports: Vec<String>,
    /// When it was registered (RFC 3339).
    pub created_at: String,
    /// When it last signed an accepted request (RFC 3339).
    pub last_used_at: Option<String>,
    /// Where it was last used: the place or address of that request.
    pub last_used_from: Option<String>,
    /// The highest `acr` its logins reach: `1` for a passkey the device key enrolled (or a
    /// passkey so enrolled), else `3` (`2` when it approves in the app; issue 38).
    pub max_acr: &'static str,
}

impl From<&Passkey> for PasskeyView {
    fn from(p: &Passkey) -> Self {
        Self {
            credential_id: p.credential_id.clone(),
            name: p.name.clone(),
            transports: p.transports.clone(),
            created_at: p.created_at.to_rfc3339_millis(),
            last_used_at: p.last_used_at.map(Timestamp::to_rfc3339_millis),
            last_used_from: p.last_used_from.clone(),
            max_acr: if p.enrolled_by_device_key { "1" } else { "3" },
        }
    }
}

async fn keys_of_identity(
    ctx: &Context,
    ident: &Identity,
    now: Timestamp,
) -> Result<Keys, AppError> {
    let passkeys = ctx.store.passkeys_of(ident.sub.as_str(), now).await?;
    Ok(Keys {
        device_key: (!ident.device_key_retired).then(|| DeviceKey {
            public_key: ident.public_key.clone(),
        }),
        passkeys: passkeys.iter().map(PasskeyView::from).collect(),
    })
}

/// The identity's keys, for operators (`scanid identity show`).
pub async fn keys_for_operator(ctx: &Context, sub: &str) -> Result<Keys, AppError> {
    let now = ctx.clock.now();
    let Some((ident, _)) = ctx.store.identity(sub, now).await? else {
        return Err(AppError::UnknownIdentity);
    };
    keys_of_identity(ctx, &ident, now).await
}

/// The identity's keys, asked for by its app (`keys+jwt`, signed as any request).
pub async fn keys(ctx: &Context, sub: &str, request: &str, who: &Source) -> Result<Keys, AppError> {
    let now = ctx.clock.now();
    let (ident, _, v, _) = signed_request(ctx, sub, request, "keys+jwt", Some(who), now).await?;
    ctx.store
        .spend_jtis(ident.sub.as_str(), &[(v.jti, v.exp)], now)
        .await
        .map_err(|e| match e {
            StoreError::ConditionFailed => invalid("jti was already used"),
            e => e.into(),
        })?;
    keys_of_identity(ctx, &ident, now).await
}

/// Removes key `key_id` of identity `sub` (`key-removal+jwt`): a passkey's credential id, or
/// `device` for the device key. Never the last key.
pub async fn remove_key(
    ctx: &Context,
    sub: &str,
    key_id: &str,
    request: &str,
    who: &Source,
) -> Result<(), AppError> {
    let now = ctx.clock.now();
    let (ident, version, v, _) =
        signed_request(ctx, sub, request, "key-removal+jwt", Some(who), now).await?;
    if v.claims.get("key").and_then(serde_json::Value::as_str) != Some(key_id) {
        return Err(invalid("key must name the key this request removes"));
    }
    let jtis = [(v.jti, v.exp)];
    if key_id == "device" {
        if ident.device_key_retired {
            return Err(AppError::UnknownKey);
        }
        let next = Identity {
            device_key_retired: true,
            updated_at: Some(now),
            ..ident.clone()
        };
        return match ctx
            .store
            .update_identity_keeping_passkeys(&next, version, &jtis, now)
            .await
        {
            Ok(true) => {
                Audit::new(Event::PasskeyRemoved)
                    .subject(&ident.sub)
                    .source(who.as_str())
                    .detail("device key retired")
                    .emit();
                Ok(())
            }
            Ok(false) => Err(AppError::LastKey),
            Err(e) => Err(AppError::from_signed_write(e)),
        };
    }
    match ctx
        .store
        .remove_passkey((&ident, version), key_id, &jtis, now)
        .await?
    {
        Removal::Removed => {
            Audit::new(Event::PasskeyRemoved)
                .subject(&ident.sub)
                .source(who.as_str())
                .emit();
            Ok(())
        }
        Removal::NotFound => Err(AppError::UnknownKey),
        Removal::LastKey => Err(AppError::LastKey),
        Removal::Conflict => Err(AppError::SIGNED_WRITE_LOST),
    }
}

/// A device-key rotation of identity `sub`: signed by the old key, carrying the new key with a
/// proof of possession signed by the new key.
pub async fn rotate_key(ctx: &Context, sub: &str, rotation: &str) -> Result<Identity, AppError> {
    let now = ctx.clock.now();
    let (ident, version, v) = signed_by_identity(ctx, sub, rotation, KeyRotation::TYP, now).await?;
    let r: KeyRotation = app_request::read(&v.claims).map_err(invalid)?;
    let new_key = r.public_key.as_str();
    let new_spki = identity::parse_public_key(new_key).map_err(invalid)?;
    if new_key == ident.public_key {
        return Err(invalid(
            "public_key: the new key must differ from the old one",
        ));
    }
    let proof = app_jws::parse(&r.proof, KeyProof::TYP).map_err(invalid)?;
    if proof.str_claim("sub") != Some(ident.sub.as_str()) {
        return Err(invalid("proof: sub must name this identity"));
    }
    let p = proof
        .verify(&new_spki, &ctx.settings.issuer(), now)
        .map_err(invalid)?;
    let _: KeyProof = app_request::read(&p.claims).map_err(|e| invalid(format!("proof: {e}")))?;
    // One jti, one request: the two JWS must not share one (each is recorded once).
    if p.jti == v.jti {
        return Err(AppError::Conflict(
            "the rotation and its proof must carry different jti values",
        ));
    }
    let end_sessions = r.end_sessions;
    let mut next = ident.clone();
    next.public_key = new_key.to_owned();
    // A new device key signs again (a passkey identity that rotates gets one back).
    next.device_key_retired = false;
    if end_sessions {
        next.tokens_not_before = Some(now);
    }
    let jtis = [(v.jti.clone(), v.exp), (p.jti, p.exp)];
    let next = commit(ctx, next, version, &jtis, now).await?;
    Audit::new(Event::DeviceKeyReplaced)
        .subject(&next.sub)
        .source("device")
        .detail(if end_sessions {
            "sessions ended"
        } else {
            "sessions kept"
        })
        .emit();
    // The new key is in place and every token is dead already (`tokens_not_before`; an SSO
    // session from before can log nobody in either): a failure to end the sessions must not
    // tell the app that the rotation failed, or it would keep a key that no longer works.
    if end_sessions {
        if let Err(e) = end_everything(ctx, &next.sub, now).await {
            tracing::error!(error = %e, "ending the sessions of a replaced key");
        }
    }
    Ok(next)
}

/// Ends every SSO session of identity `sub` and tells their clients (OIDC Back-Channel
/// Logout). Its grants died with the `tokens_not_before` the caller committed first, so a
/// failure here leaves no token alive, only sessions to end again (the same request again,
/// or the operator's `scanid identity revoke-sessions`).
async fn end_everything(ctx: &Context, sub: &str, now: Timestamp) -> Result<usize, AppError> {
    let ended = end_sessions_of(ctx, sub, now).await?;
    tracing::info!(sessions = ended, "every session of an identity ended");
    Audit::new(Event::SessionsEnded).subject(sub).emit();
    Ok(ended)
}

/// The operator's answer to a lost device key (`scanid identity replace-key` and
/// `revoke-sessions`): always ends every session and token of the identity; with `new_key`
/// (standard base64 of a P-256 SubjectPublicKeyInfo, from the person's new phone) the device
/// key is replaced too, in the same write that kills the tokens. Returns the identity and
/// how many sessions were live.
pub async fn replace_key_by_operator(
    ctx: &Context,
    who: &str,
    new_key: Option<&str>,
) -> Result<(Identity, usize), AppError> {
    for _ in 0..3 {
        let now = ctx.clock.now();
        let Some((ident, version)) = ctx.store.identity(who, now).await? else {
            return Err(AppError::UnknownIdentity);
        };
        let mut next = ident.clone();
        if let Some(key) = new_key {
            identity::parse_public_key(key).map_err(invalid)?;
            next.public_key = key.to_owned();
        }
        next.tokens_not_before = Some(now);
        next.updated_at = Some(now);
        match ctx.store.update_identity(&next, version, now).await {
            Ok(()) => {}
            Err(StoreError::ConditionFailed) => continue,
            Err(e) => return Err(e.into()),
        }
        if new_key.is_some() {
            Audit::new(Event::DeviceKeyReplaced)
                .subject(&next.sub)
                .source("operator")
                .detail("sessions ended")
                .emit();
        }
        let ended = end_everything(ctx, &next.sub, now).await?;
        return Ok((next, ended));
    }
    Err(AppError::Busy)
}
