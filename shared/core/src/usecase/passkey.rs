//! Passkeys (issue 26): the server's WebAuthn challenges, every signed app request checked
//! whichever way it is signed (the device key's ES256, or a passkey's assertion), sign-up
//! with a passkey, and the identity's keys listed, added and removed (never the last).

use serde::Serialize;

use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::app_jws::{self, PasskeyProof, PasskeySigned, Signed, Verified};
use crate::domain::identity::{self, Identity, Registration};
use crate::domain::login::ApprovedWith;
use crate::domain::passkey::{self, Passkey, RelyingParty, CHALLENGE_TTL_SECS};
use crate::domain::ratelimit::{Limit, Source};
use crate::geoip;
use crate::random;
use crate::store::{
    IdentityStore, NewIdentityError, NewPasskey, Outcome, Passkeys, Removal, StoreError,
};
use crate::usecase::device::DeviceError;

fn invalid(e: impl std::fmt::Display) -> DeviceError {
    DeviceError::Invalid(e.to_string())
}

/// The relying party of this deployment (the issuer's origin and host).
pub fn relying_party(ctx: &Context) -> Result<RelyingParty, DeviceError> {
    RelyingParty::for_issuer(&ctx.settings.issuer())
        .ok_or_else(|| invalid("this issuer has no host: passkeys are unavailable"))
}

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
pub async fn new_challenge(ctx: &Context, who: &Source) -> Result<Challenge, DeviceError> {
    let now = ctx.clock.now();
    let rp = relying_party(ctx)?;
    crate::usecase::device::count(ctx, Limit::Login, who.as_str(), now).await?;
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
    Err(DeviceError::Busy)
}

/// Where a request came from, as a person reads it: "City, Country" when located, else
/// the address.
pub fn where_from(ctx: &Context, who: &Source) -> String {
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

/// Spends the request's `webauthn_challenge` claim (issued by [`new_challenge`]).
async fn spend_challenge(
    ctx: &Context,
    claims: &serde_json::Map<String, serde_json::Value>,
    now: Timestamp,
) -> Result<(), DeviceError> {
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
) -> Result<(Verified, ApprovedWith), DeviceError> {
    let issuer = ctx.settings.issuer();
    match signed {
        Signed::Es256(jws) => {
            if ident.device_key_retired {
                return Err(invalid(
                    "this identity signs with its passkeys: send a WebAuthn assertion (alg webauthn)",
                ));
            }
            let spki = identity::parse_public_key(&ident.public_key)
                .map_err(|_| DeviceError::StoredKey)?;
            let v = jws.verify(&spki, &issuer, now).map_err(invalid)?;
            Ok((v, ApprovedWith::DeviceKey))
        }
        Signed::Passkey(p) => {
            let v = verify_assertion(ctx, ident, p, from, now).await?;
            Ok((v, ApprovedWith::PasskeyUv))
        }
    }
}

async fn verify_assertion(
    ctx: &Context,
    ident: &Identity,
    p: PasskeySigned,
    from: Option<&Source>,
    now: Timestamp,
) -> Result<Verified, DeviceError> {
    let PasskeyProof::Assertion(assertion) = &p.proof else {
        return Err(invalid("a signed request carries a WebAuthn assertion"));
    };
    let kid = p
        .credential_id
        .as_deref()
        .ok_or_else(|| invalid("kid: the passkey's credential id is required"))?;
    let rp = relying_party(ctx)?;
    let Some(key) = ctx.store.passkey(kid, now).await? else {
        return Err(invalid("unknown passkey"));
    };
    let ok =
        passkey::verify_assertion(&rp, &key.value, ident.sub.as_str(), assertion, &p.challenge)
            .map_err(invalid)?;
    let v = app_jws::check_claims(p.claims, &ctx.settings.issuer(), now).map_err(invalid)?;
    spend_challenge(ctx, &v.claims, now).await?;
    let from = from.map(|w| where_from(ctx, w));
    match ctx
        .store
        .passkey_used(&key, ok.sign_count, from, now)
        .await?
    {
        Outcome::Done => Ok(v),
        Outcome::Lost => Err(DeviceError::Conflict(
            "this passkey was used at the same moment; sign a new request",
        )),
    }
}

/// Sign-up with a passkey: the registration's claims as with a device key (without
/// `public_key`: the passkey's key is published), its WebAuthn registration made over them.
pub(crate) async fn signup(
    ctx: &Context,
    p: PasskeySigned,
    who: &Source,
) -> Result<Identity, DeviceError> {
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
    crate::usecase::device::count(ctx, Limit::Signup, who.as_str(), now).await?;
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
            Err(NewIdentityError::NameTaken) => return Err(DeviceError::NameTaken),
            Err(NewIdentityError::Replay) => return Err(invalid("jti or passkey already used")),
            Err(NewIdentityError::Store(e)) => return Err(e.into()),
        }
    }
    Err(DeviceError::Busy)
}

/// A key's name: the one given (trimmed, at most 64 characters), else "Passkey".
fn key_name(v: Option<&serde_json::Value>) -> String {
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
        }
    }
}

async fn keys_of_identity(
    ctx: &Context,
    ident: &Identity,
    now: Timestamp,
) -> Result<Keys, DeviceError> {
    let passkeys = ctx.store.passkeys_of(ident.sub.as_str(), now).await?;
    Ok(Keys {
        device_key: (!ident.device_key_retired).then(|| DeviceKey {
            public_key: ident.public_key.clone(),
        }),
        passkeys: passkeys.iter().map(PasskeyView::from).collect(),
    })
}

/// The identity's keys, for operators (`scanid identity show`).
pub async fn keys_for_operator(ctx: &Context, sub: &str) -> Result<Keys, DeviceError> {
    let now = ctx.clock.now();
    let Some((ident, _)) = ctx.store.identity(sub, now).await? else {
        return Err(DeviceError::UnknownIdentity);
    };
    keys_of_identity(ctx, &ident, now).await
}

/// The identity's keys, asked for by its app (`keys+jwt`, signed as any request).
pub async fn keys(
    ctx: &Context,
    sub: &str,
    request: &str,
    who: &Source,
) -> Result<Keys, DeviceError> {
    let now = ctx.clock.now();
    let (ident, _, v, _) =
        crate::usecase::device::signed_request(ctx, sub, request, "keys+jwt", Some(who), now)
            .await?;
    ctx.store
        .spend_jtis(ident.sub.as_str(), &[(v.jti, v.exp)], now)
        .await
        .map_err(|e| match e {
            StoreError::ConditionFailed => invalid("jti was already used"),
            e => e.into(),
        })?;
    keys_of_identity(ctx, &ident, now).await
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
) -> Result<PasskeyView, DeviceError> {
    let now = ctx.clock.now();
    let (ident, version, v, signed_with) =
        crate::usecase::device::signed_request(ctx, sub, request, "passkey+jwt", Some(who), now)
            .await?;
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Credential {
        #[serde(rename = "clientDataJSON")]
        client_data_json: String,
        attestation_object: String,
        #[serde(default)]
        transports: Vec<String>,
    }
    let cred: Credential = v
        .claims
        .get("credential")
        .cloned()
        .and_then(|c| serde_json::from_value(c).ok())
        .ok_or_else(|| {
            invalid("credential: {clientDataJSON, attestationObject, transports} required")
        })?;
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
    if signed_with == ApprovedWith::DeviceKey
        && !ctx.store.take_webauthn_challenge(&challenge, now).await?
    {
        return Err(invalid("webauthn_challenge: unknown, expired or used"));
    }
    let key = new.into_passkey(
        ident.sub.as_str(),
        &key_name(v.claims.get("name")),
        cred.transports,
        now,
    );
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
        NewPasskey::Taken => Err(DeviceError::Conflict("this passkey is registered already")),
        NewPasskey::TooMany => Err(invalid("an identity holds at most 10 passkeys")),
        NewPasskey::Conflict => Err(DeviceError::Conflict(
            "jti already used, or the identity changed meanwhile; sign a new request",
        )),
    }
}

/// Removes key `key_id` of identity `sub` (`key-removal+jwt`): a passkey's credential id, or
/// `device` for the device key. Never the last key.
pub async fn remove_key(
    ctx: &Context,
    sub: &str,
    key_id: &str,
    request: &str,
    who: &Source,
) -> Result<(), DeviceError> {
    let now = ctx.clock.now();
    let (ident, version, v, _) = crate::usecase::device::signed_request(
        ctx,
        sub,
        request,
        "key-removal+jwt",
        Some(who),
        now,
    )
    .await?;
    if v.claims.get("key").and_then(serde_json::Value::as_str) != Some(key_id) {
        return Err(invalid("key must name the key this request removes"));
    }
    let jtis = [(v.jti, v.exp)];
    if key_id == "device" {
        if ident.device_key_retired {
            return Err(DeviceError::UnknownKey);
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
            Ok(false) => Err(DeviceError::LastKey),
            Err(StoreError::ConditionFailed) => Err(DeviceError::Conflict(
                "jti already used, or the identity changed meanwhile; sign a new request",
            )),
            Err(e) => Err(e.into()),
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
        Removal::NotFound => Err(DeviceError::UnknownKey),
        Removal::LastKey => Err(DeviceError::LastKey),
        Removal::Conflict => Err(DeviceError::Conflict(
            "jti already used, or the identity changed meanwhile; sign a new request",
        )),
    }
}
