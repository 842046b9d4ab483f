//! The device API's use cases (app protocol §1, §3, §4): sign-up, reading a scanned QR login,
//! approving or denying it, updating the profile and rotating the device key. Every write is
//! a JWS signed by the device key; its `jti` is spent in the same transaction as the write, so
//! a replay is refused.

use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::app_jws::{self, Verified};
use crate::domain::client::Client;
use crate::domain::device_grant::SettleError;
use crate::domain::identity::{self, Identity, LoginActivity, Registration};
use crate::domain::login::{CancelReason, DecideError, QrLogin, ScanError, Scanner};
use crate::domain::photo;
use crate::domain::ratelimit::{self, Counted, Limit, Source};
use crate::store::{
    ClientStore, DeviceGrants, IdentityStore, NewIdentityError, Outcome, QrLogins, SsoSessions,
    StoreError,
};

/// Why a device request fails; the HTTP layer chooses the status.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// A malformed or unverifiable request (400 `invalid_request`).
    #[error("{0}")]
    Invalid(String),
    /// An unknown or expired QR login, or a wrong challenge.
    #[error("unknown or expired login session, or a wrong challenge")]
    UnknownLogin,
    /// An unknown or disabled identity.
    #[error("unknown identity")]
    UnknownIdentity,
    #[error("this name is taken")]
    NameTaken,
    #[error("this login session was decided already")]
    AlreadyDecided,
    /// The login is cancelled for good (a wrong number, a second phone).
    #[error("{}", cancel_text(*.0))]
    Cancelled(CancelReason),
    /// A `jti` used, or the identity changed meanwhile.
    #[error("{0}")]
    Conflict(&'static str),
    #[error("too many requests")]
    RateLimited { retry_after: i64 },
    /// The device key on file cannot be read (a corrupt record).
    #[error("the stored device key is unreadable")]
    StoredKey,
    /// Lost every retry of a race (503).
    #[error("busy")]
    Busy,
    /// This deployment hosts no photos (no photo store configured).
    #[error("this service hosts no photos")]
    NoPhotos,
    /// A stored photo could not be read or written (503).
    #[error("the photo store is unavailable")]
    PhotosUnavailable,
    #[error("store")]
    Store(#[from] StoreError),
}

/// What the app is told when a login is cancelled.
fn cancel_text(r: CancelReason) -> &'static str {
    match r {
        CancelReason::WrongNumber => {
            "the number did not match the one on the login page: this login is cancelled"
        }
        CancelReason::SecondDevice => {
            "another phone scanned or decided this login: it is cancelled"
        }
    }
}

fn invalid(e: impl std::fmt::Display) -> DeviceError {
    DeviceError::Invalid(e.to_string())
}

/// Counts one event and refuses past the limit.
async fn limit(ctx: &Context, l: Limit, who: &str, now: Timestamp) -> Result<(), DeviceError> {
    match ratelimit::count(ctx.store.as_ref(), &ctx.settings.limits, l, who, now).await? {
        Counted::Allowed => Ok(()),
        Counted::Limited { retry_after } => Err(DeviceError::RateLimited { retry_after }),
    }
}

/// Sign-up with proof of possession of the device key: the new identity.
pub async fn signup(
    ctx: &Context,
    registration: &str,
    who: &Source,
) -> Result<Identity, DeviceError> {
    let now = ctx.clock.now();
    let jws = app_jws::parse(registration, "registration+jwt").map_err(invalid)?;
    let key = jws
        .str_claim("public_key")
        .ok_or_else(|| invalid("public_key: required"))?;
    let spki = identity::parse_public_key(key).map_err(invalid)?;
    let verified = jws
        .verify(&spki, &ctx.settings.issuer(), now)
        .map_err(invalid)?;
    let reg: Registration =
        serde_json::from_value(serde_json::Value::Object(verified.claims.clone()))
            .map_err(|_| invalid("registration claims must be strings"))?;
    limit(ctx, Limit::Signup, who.as_str(), now).await?;
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
            Err(NewIdentityError::NameTaken) => return Err(DeviceError::NameTaken),
            Err(NewIdentityError::Replay) => return Err(invalid("jti was already used")),
            Err(NewIdentityError::Store(e)) => return Err(e.into()),
        }
    }
    Err(DeviceError::Busy)
}

/// A scanned QR login, as the phone shows it before approving (Q3).
#[derive(Debug)]
pub struct Scanned {
    pub login: QrLogin,
    pub client: Client,
    /// For a login that stands for a device authorization (RFC 8628): its user code, for the
    /// person to compare with the device's screen.
    pub user_code: Option<String>,
}

/// Accepts a scan of QR login `id` with `challenge` (spent, and remembered, so the approval
/// must come from a device that saw the code) and says what is being asked. `proof`, a
/// `scan+jwt` signed by the scanning identity's device key, says which identity scanned; a
/// later scan by anyone else cancels the login.
pub async fn scan(
    ctx: &Context,
    id: &str,
    challenge: &str,
    proof: Option<&str>,
    who: &Source,
) -> Result<Scanned, DeviceError> {
    let now = ctx.clock.now();
    if id.len() > 64 || challenge.len() > 64 {
        return Err(DeviceError::UnknownLogin);
    }
    let scanner = match proof {
        None => Scanner::Anonymous,
        Some(p) => scan_proof(ctx, p, id, challenge, who, now).await?,
    };
    let ttl = ctx.settings.lifetimes.qr_challenge;
    // A concurrent scan may win the write: read again and retry (the challenge is then spent).
    for _ in 0..3 {
        let Some(s) = ctx.store.qr_login(id, now).await? else {
            return Err(DeviceError::UnknownLogin);
        };
        let mut next = s.value.clone();
        let accepted = next.accept_scan(challenge, &scanner, ttl, now, ctx.random.as_ref());
        if accepted == Err(ScanError::NotFound) {
            return Err(DeviceError::UnknownLogin);
        }
        if ctx.store.update_qr_login(&s, &next, now).await? == Outcome::Lost {
            continue;
        }
        if let Err(ScanError::Cancelled(reason)) = accepted {
            cancelled(ctx, &next, reason, first_scanner(&next), who, now).await;
            return Err(DeviceError::Cancelled(reason));
        }
        let client = ctx
            .store
            .client(&next.request.client_id, now)
            .await?
            .map(|(c, _)| c)
            .ok_or(DeviceError::UnknownLogin)?;
        let user_code = super::device_grant::user_code_of(ctx, &next, now).await?;
        return Ok(Scanned {
            login: next,
            client,
            user_code,
        });
    }
    Err(DeviceError::Busy)
}

/// The identity a scan proof (`scan+jwt`) names, verified with its device key and bound to
/// this login and challenge. Its `jti` is not spent: the proof names a challenge, and a
/// challenge is accepted once.
async fn scan_proof(
    ctx: &Context,
    proof: &str,
    id: &str,
    challenge: &str,
    who: &Source,
    now: Timestamp,
) -> Result<Scanner, DeviceError> {
    let jws =
        app_jws::parse(proof, "scan+jwt").map_err(|e| invalid(format!("Scanid-Proof: {e}")))?;
    let sub = jws
        .str_claim("sub")
        .ok_or_else(|| invalid("Scanid-Proof: sub: required"))?
        .to_owned();
    let ident = match ctx.store.identity(&sub, now).await? {
        Some((i, _)) if !i.disabled && sub.len() <= 64 => i,
        _ => {
            unverified(ctx, who, now).await?;
            return Err(DeviceError::UnknownIdentity);
        }
    };
    let spki = identity::parse_public_key(&ident.public_key).map_err(|_| DeviceError::StoredKey)?;
    let v = match jws.verify(&spki, &ctx.settings.issuer(), now) {
        Ok(v) => v,
        Err(e) => {
            unverified(ctx, who, now).await?;
            return Err(invalid(format!("Scanid-Proof: {e}")));
        }
    };
    let claim = |n: &str| v.claims.get(n).and_then(serde_json::Value::as_str);
    if claim("session") != Some(id) || claim("challenge") != Some(challenge) {
        return Err(invalid(
            "Scanid-Proof: session and challenge must name this scan",
        ));
    }
    Ok(Scanner::Identity(ident.sub))
}

/// The identity that scanned `login` first, if it proved itself.
fn first_scanner(login: &QrLogin) -> Option<&str> {
    match &login.scanned_by {
        Some(Scanner::Identity(sub)) => Some(sub.as_str()),
        _ => None,
    }
}

/// A login was cancelled (and written so): the audit line, and the recent logins of `first`,
/// the identity whose login it was (the first scanner, or the one that named a wrong number).
async fn cancelled(
    ctx: &Context,
    login: &QrLogin,
    reason: CancelReason,
    first: Option<&str>,
    who: &Source,
    now: Timestamp,
) {
    let mut a = Audit::new(Event::LoginCancelled)
        .client(&login.request.client_id)
        .source(who.as_str())
        .outcome(reason.as_str());
    if let Some(sub) = first {
        a = a.subject(sub);
    }
    a.emit();
    if let Some(sub) = first {
        remember_login(ctx, sub, login, reason.as_str(), now).await;
    }
}

/// The phone's decision on a QR login.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Approve,
    Deny,
}

impl Decision {
    fn parse(s: Option<&str>) -> Result<Self, DeviceError> {
        match s {
            Some("approve") => Ok(Self::Approve),
            Some("deny") => Ok(Self::Deny),
            _ => Err(invalid("decision must be approve or deny")),
        }
    }
}

/// Records the decision signed in `approval` on QR login `id`.
pub async fn decide(
    ctx: &Context,
    id: &str,
    approval: &str,
    who: &Source,
) -> Result<Decision, DeviceError> {
    let now = ctx.clock.now();
    if id.len() > 64 {
        return Err(DeviceError::UnknownLogin);
    }
    let jws = app_jws::parse(approval, "approval+jwt").map_err(invalid)?;
    let sub = jws
        .str_claim("sub")
        .ok_or_else(|| invalid("sub: required"))?
        .to_owned();
    if sub.len() > 64 {
        return Err(DeviceError::UnknownLogin);
    }
    let ident = match ctx.store.identity(&sub, now).await? {
        Some((i, _)) if !i.disabled => i,
        _ => {
            unverified(ctx, who, now).await?;
            return Err(DeviceError::UnknownIdentity);
        }
    };
    let spki = identity::parse_public_key(&ident.public_key).map_err(|_| DeviceError::StoredKey)?;
    let v = match jws.verify(&spki, &ctx.settings.issuer(), now) {
        Ok(v) => v,
        Err(e) => {
            unverified(ctx, who, now).await?;
            return Err(invalid(e));
        }
    };
    // Only a decision the identity's own key signed counts against the identity: a
    // stranger naming a (public) sub must not be able to block its owner (docs/requirements.md Q4).
    limit(ctx, Limit::Decision, &sub, now).await?;
    let claim = |n: &str| v.claims.get(n).and_then(serde_json::Value::as_str);
    if claim("session") != Some(id) {
        return Err(invalid("session must name this login session"));
    }
    let challenge = claim("challenge").ok_or_else(|| invalid("challenge: required"))?;
    let decision = Decision::parse(claim("decision"))?;
    let number = match v.claims.get("number") {
        None | Some(serde_json::Value::Null) => None,
        Some(n) => Some(
            n.as_i64()
                .ok_or_else(|| invalid("number: the number shown on the login page, an integer"))?,
        ),
    };
    let Some(s) = ctx.store.qr_login(id, now).await? else {
        return Err(DeviceError::UnknownLogin);
    };
    let mut next = s.value.clone();
    // A cancellation (a wrong number, another identity than the scanner) is written like a
    // refusal, for good, in the write that spends the jti.
    let cancel = match next.decide(&sub, challenge, decision == Decision::Approve, number, now) {
        Ok(()) => None,
        Err(DecideError::NotFound) => return Err(DeviceError::UnknownLogin),
        Err(DecideError::AlreadyDecided) => return Err(DeviceError::AlreadyDecided),
        Err(DecideError::MissingNumber) => {
            return Err(invalid(
                "number: required to approve (the number shown on the login page)",
            ))
        }
        Err(DecideError::Cancelled(reason)) => Some(reason),
    };
    // A login that stands for a device authorization (RFC 8628): the decision on the phone
    // (which showed the client, the scopes and the user code) settles it, in the same
    // transaction.
    let written = match &next.device_grant {
        None => {
            ctx.store
                .record_decision(&s, &next, &sub, &v.jti, v.exp, now)
                .await?
        }
        Some(hash) => {
            // A cancelled login refuses the device authorization too: its device stops
            // polling with access_denied.
            let approver =
                (decision == Decision::Approve && cancel.is_none()).then_some(sub.as_str());
            let mut tries = 0;
            loop {
                let Some(d) = ctx.store.device_authorization(hash, now).await? else {
                    return Err(DeviceError::UnknownLogin);
                };
                let mut settled = d.value.clone();
                match settled.settle(approver, now) {
                    Ok(()) => {}
                    Err(SettleError::Expired) => return Err(DeviceError::UnknownLogin),
                    Err(SettleError::AlreadyDecided) => return Err(DeviceError::AlreadyDecided),
                }
                let o = ctx
                    .store
                    .record_device_decision((&s, &next), (&d, &settled), &sub, &v.jti, v.exp, now)
                    .await?;
                // The device polls every few seconds, and each poll moves the authorization on
                // (its time, its interval): read it again, unless the login itself changed or
                // the jti was spent (then the loss is real).
                let login_unchanged = || async {
                    Ok::<_, StoreError>(
                        ctx.store
                            .qr_login(id, now)
                            .await?
                            .is_some_and(|l| l.record.version == s.record.version),
                    )
                };
                if o == Outcome::Lost
                    && !ctx.store.jti_used(&sub, &v.jti, now).await?
                    && login_unchanged().await?
                {
                    if tries == 3 {
                        return Err(DeviceError::Busy);
                    }
                    tries += 1;
                    continue;
                }
                break o;
            }
        }
    };
    match (written, cancel) {
        (Outcome::Done, Some(reason)) => {
            let first = match reason {
                CancelReason::WrongNumber => Some(sub.as_str()),
                CancelReason::SecondDevice => first_scanner(&next),
            };
            cancelled(ctx, &next, reason, first, who, now).await;
            Err(DeviceError::Cancelled(reason))
        }
        (Outcome::Done, None) => {
            let (event, outcome) = match decision {
                Decision::Approve => (Event::LoginApproved, "approved"),
                Decision::Deny => (Event::LoginDenied, "denied"),
            };
            Audit::new(event)
                .client(&next.request.client_id)
                .subject(&sub)
                .source(who.as_str())
                .outcome(outcome)
                .emit();
            remember_login(ctx, &sub, &next, outcome, now).await;
            Ok(decision)
        }
        (Outcome::Lost, _) if ctx.store.jti_used(&sub, &v.jti, now).await? => {
            Err(invalid("jti was already used"))
        }
        (Outcome::Lost, _) => Err(DeviceError::AlreadyDecided),
    }
}

/// Adds the decided login to the identity's recent logins. The decision stands whatever
/// happens here: a failure is logged, not answered.
async fn remember_login(ctx: &Context, sub: &str, login: &QrLogin, outcome: &str, now: Timestamp) {
    let client_name = match ctx.store.client(&login.request.client_id, now).await {
        Ok(Some((c, _))) => c.name,
        _ => login.request.client_id.to_string(),
    };
    let entry = LoginActivity {
        at: now,
        client_id: login.request.client_id.to_string(),
        client_name,
        outcome: outcome.to_owned(),
        browser_ip: login.browser_ip.clone(),
        user_agent: login.user_agent.clone(),
    };
    if let Err(e) = ctx.store.record_login(sub, entry, now).await {
        tracing::warn!(error = %e, "recording a login in the identity's recent logins");
    }
}

/// A signed device request that did not verify counts against its source: past the limit
/// the source gets 429 instead of 400.
async fn unverified(ctx: &Context, who: &Source, now: Timestamp) -> Result<(), DeviceError> {
    limit(ctx, Limit::UnverifiedDecision, who.as_str(), now).await
}

/// The identity `sub`, if it exists and may act, with its version.
async fn acting_identity(
    ctx: &Context,
    sub: &str,
    now: Timestamp,
) -> Result<(Identity, u64), DeviceError> {
    if sub.len() > 64 {
        return Err(DeviceError::UnknownIdentity);
    }
    match ctx.store.identity(sub, now).await? {
        Some((i, v)) if !i.disabled => Ok((i, v)),
        _ => Err(DeviceError::UnknownIdentity),
    }
}

/// Parses `jws` of type `typ` and verifies it with the device key of identity `sub`; the
/// JWS's `sub` must name that identity.
async fn signed_by_identity(
    ctx: &Context,
    sub: &str,
    jws: &str,
    typ: &str,
    now: Timestamp,
) -> Result<(Identity, u64, Verified), DeviceError> {
    let jws = app_jws::parse(jws, typ).map_err(invalid)?;
    let (ident, version) = acting_identity(ctx, sub, now).await?;
    if jws.str_claim("sub") != Some(ident.sub.as_str()) {
        return Err(invalid("sub must name this identity"));
    }
    let spki = identity::parse_public_key(&ident.public_key).map_err(|_| DeviceError::StoredKey)?;
    let v = jws
        .verify(&spki, &ctx.settings.issuer(), now)
        .map_err(invalid)?;
    Ok((ident, version, v))
}

/// Writes the changed identity and spends the `jti`s, in one transaction.
async fn commit(
    ctx: &Context,
    next: Identity,
    version: u64,
    jtis: &[(String, i64)],
    now: Timestamp,
) -> Result<Identity, DeviceError> {
    // Every change the app makes (profile, photo, key) is a change of the identity's
    // information: OIDC Core's `updated_at`.
    let next = Identity {
        updated_at: Some(now),
        ..next
    };
    match ctx
        .store
        .update_identity_signed(&next, version, jtis, now)
        .await
    {
        Ok(()) => Ok(next),
        Err(StoreError::ConditionFailed) => Err(DeviceError::Conflict(
            "jti already used, or the identity changed meanwhile; sign a new request",
        )),
        Err(e) => Err(e.into()),
    }
}

/// A profile update of identity `sub`, signed by its device key.
pub async fn update_profile(
    ctx: &Context,
    sub: &str,
    update: &str,
) -> Result<Identity, DeviceError> {
    let now = ctx.clock.now();
    let (ident, version, v) = signed_by_identity(ctx, sub, update, "profile+jwt", now).await?;
    let next =
        identity::apply_update(&ident, &v.claims, &ctx.settings.photo_hosts).map_err(invalid)?;
    let next = commit(ctx, next, version, &[(v.jti, v.exp)], now).await?;
    forget_replaced_photo(ctx, &ident, &next).await;
    Ok(next)
}

/// Removes the hosted photo `before` had when `after` no longer shows it. Best effort: a
/// failure leaves an unreferenced object, and is logged.
async fn forget_replaced_photo(ctx: &Context, before: &Identity, after: &Identity) {
    let own = |i: &Identity| {
        i.profile_photo
            .as_deref()
            .and_then(|u| photo::own_object(&i.sub, u))
    };
    let Some(old) = own(before) else {
        return;
    };
    if own(after) == Some(old.clone()) {
        return;
    }
    if let Some(p) = &ctx.photos {
        if let Err(e) = p.delete_photo(&old).await {
            tracing::warn!(error = %e, "removing a replaced photo");
        }
    }
}

/// A photo upload of identity `sub`, signed by its device key (`upload` carries the image's
/// SHA-256 as `sha256`, base64url): counted against the identity's hourly upload limit, the
/// photo is checked (JPEG, PNG or WebP by its magic bytes, at most 1 MB, bounded
/// dimensions), becomes the profile photo in the commit that spends the `jti`, and only then
/// is stored under its content hash.
///
/// Stored after the commit (issue 25.2), so a refused upload (a spent `jti`, a changed or
/// deleted identity, a bad image, the limit) never writes a byte. A crash between the commit
/// and the store leaves a record naming a photo that is not there: served as 404 like any
/// missing photo, mended by the app's next upload; never an object that no record names. An
/// object written after its identity was deleted is removed here (see [`erase`]).
pub async fn upload_photo(
    ctx: &Context,
    sub: &str,
    upload: &str,
    image: &[u8],
) -> Result<Identity, DeviceError> {
    let now = ctx.clock.now();
    let (ident, version, v) = signed_by_identity(ctx, sub, upload, "photo+jwt", now).await?;
    let photos = ctx.photos.as_ref().ok_or(DeviceError::NoPhotos)?;
    limit(ctx, Limit::PhotoUpload, &ident.sub, now).await?;
    let format = photo::check(image).map_err(invalid)?;
    let hash = photo::content_hash(image);
    let signed_hash = v
        .claims
        .get("sha256")
        .and_then(serde_json::Value::as_str)
        .ok_or_else(|| invalid("sha256: required"))?;
    let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, image);
    if signed_hash
        != base64::Engine::encode(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
            digest.as_ref(),
        )
    {
        return Err(invalid("sha256 does not match the image"));
    }
    let name = photo::object_name(&ident.sub, &hash);
    let mut next = ident.clone();
    next.profile_photo = Some(photo::url(&ctx.settings.public_url, &ident.sub, &hash));
    let next = commit(ctx, next, version, &[(v.jti, v.exp)], now).await?;
    let stored = photos.put_photo(&name, image, format.content_type()).await;
    // Deleted meanwhile (after its photos were removed): this one goes too. A failed read
    // here does not fail the accepted upload (the object is then left, never served, only
    // if the deletion's second pass ran before this store).
    if stored.is_ok() && matches!(ctx.store.identity(&ident.sub, now).await, Ok(None)) {
        if let Err(e) = photos.delete_photos_of(&ident.sub).await {
            tracing::error!(error = %e, "removing a deleted identity's photos");
        }
        return Err(DeviceError::UnknownIdentity);
    }
    // The old photo is no longer current once committed, whether or not the new one stored.
    forget_replaced_photo(ctx, &ident, &next).await;
    stored.map_err(|e| {
        tracing::error!(error = %e, "storing a photo");
        DeviceError::PhotosUnavailable
    })?;
    Ok(next)
}

/// A hosted photo, by owner and content hash: its bytes and their format (told again by the
/// magic bytes, never by anything stored beside them). `None` unless it is the current photo
/// of a live identity: not a replaced one, nor one of a disabled or deleted identity, nor an
/// object no record names (issue 25.2); all these are the same 404 as an unknown name.
pub async fn hosted_photo(
    ctx: &Context,
    sub: &str,
    hash: &str,
) -> Result<Option<(Vec<u8>, photo::Format)>, DeviceError> {
    let photos = ctx.photos.as_ref().ok_or(DeviceError::NoPhotos)?;
    if uuid::Uuid::parse_str(sub).is_err() || sub.len() != 36 || !photo::is_content_hash(hash) {
        return Ok(None);
    }
    let name = photo::object_name(sub, hash);
    let current = match ctx.store.identity(sub, ctx.clock.now()).await? {
        Some((i, _)) if !i.disabled => i
            .profile_photo
            .as_deref()
            .and_then(|u| photo::own_object(&i.sub, u)),
        _ => None,
    };
    if current.as_deref() != Some(name.as_str()) {
        return Ok(None);
    }
    let bytes = photos.photo(&name).await.map_err(|e| {
        tracing::error!(error = %e, "reading a photo");
        DeviceError::PhotosUnavailable
    })?;
    Ok(bytes.and_then(|b| photo::sniff(&b).map(|f| (b, f))))
}

/// A device-key rotation of identity `sub`: signed by the old key, carrying the new key with a
/// proof of possession signed by the new key.
pub async fn rotate_key(ctx: &Context, sub: &str, rotation: &str) -> Result<Identity, DeviceError> {
    let now = ctx.clock.now();
    let (ident, version, v) =
        signed_by_identity(ctx, sub, rotation, "key-rotation+jwt", now).await?;
    let claim = |n: &str| v.claims.get(n).and_then(serde_json::Value::as_str);
    let new_key = claim("public_key").ok_or_else(|| invalid("public_key: required"))?;
    let new_spki = identity::parse_public_key(new_key).map_err(invalid)?;
    if new_key == ident.public_key {
        return Err(invalid(
            "public_key: the new key must differ from the old one",
        ));
    }
    let proof = app_jws::parse(
        claim("proof").ok_or_else(|| invalid("proof: required"))?,
        "key-proof+jwt",
    )
    .map_err(invalid)?;
    if proof.str_claim("sub") != Some(ident.sub.as_str()) {
        return Err(invalid("proof: sub must name this identity"));
    }
    let p = proof
        .verify(&new_spki, &ctx.settings.issuer(), now)
        .map_err(invalid)?;
    // One jti, one request: the two JWS must not share one (each is recorded once).
    if p.jti == v.jti {
        return Err(DeviceError::Conflict(
            "the rotation and its proof must carry different jti values",
        ));
    }
    let mut next = ident.clone();
    next.public_key = new_key.to_owned();
    let jtis = [(v.jti.clone(), v.exp), (p.jti, p.exp)];
    commit(ctx, next, version, &jtis, now).await
}

/// Whether `name` is free for a new identity (the sign-up form asks as the person types; the
/// sign-up itself still decides, atomically). A name held after its identity was deleted is
/// not free. Lookups count against their source ([`Limit::NameLookup`]): the answer is the
/// same oracle sign-up is, without sign-up's cost.
pub async fn name_available(ctx: &Context, name: &str, who: &Source) -> Result<bool, DeviceError> {
    identity::validate_name(name).map_err(invalid)?;
    let now = ctx.clock.now();
    limit(ctx, Limit::NameLookup, who.as_str(), now).await?;
    Ok(!ctx.store.name_taken(name, now).await?)
}

/// Deletes identity `sub`, asked by its device (`deletion`, signed by the device key).
pub async fn delete_identity(
    ctx: &Context,
    sub: &str,
    deletion: &str,
    who: &Source,
) -> Result<(), DeviceError> {
    let now = ctx.clock.now();
    let (ident, version, v) = signed_by_identity(ctx, sub, deletion, "deletion+jwt", now).await?;
    erase(ctx, &ident, version, &[(v.jti, v.exp)], who.as_str()).await
}

/// Deletes an identity (its device asked, or an operator, `source`): its SSO sessions end
/// (its clients are told by back-channel logout), its remembered consents go, then one
/// transaction removes the identity and frees its name, so its tokens are dead and the
/// directory answers 404. Its `service_id` stays reserved; the audit line keeps the `sub`.
pub async fn erase(
    ctx: &Context,
    ident: &Identity,
    version: u64,
    jtis: &[(String, i64)],
    source: &str,
) -> Result<(), DeviceError> {
    let now = ctx.clock.now();
    let ended = crate::usecase::resource::end_sessions_of(ctx, &ident.sub, now).await?;
    ctx.store.forget_consents(&ident.sub, now).await?;
    // Its hosted photos go first, every object under its name (also one no record names):
    // should the store fail here, the identity is still there to delete again.
    match &ctx.photos {
        Some(photos) => photos.delete_photos_of(&ident.sub).await.map_err(|e| {
            tracing::error!(error = %e, "removing a deleted identity's photos");
            DeviceError::PhotosUnavailable
        })?,
        // A hosted photo, and no photo store to remove it from (an operator command without
        // the bucket): refused, rather than leave it behind.
        None if ident
            .profile_photo
            .as_deref()
            .and_then(|u| photo::own_object(&ident.sub, u))
            .is_some() =>
        {
            return Err(DeviceError::NoPhotos)
        }
        None => {}
    }
    let quarantine = ctx.settings.lifetimes.name_quarantine;
    let name_held_until = (quarantine > 0).then(|| now.secs() + quarantine);
    match ctx
        .store
        .delete_identity(ident, version, jtis, name_held_until, now)
        .await
    {
        Ok(()) => {}
        Err(StoreError::ConditionFailed) => {
            return Err(DeviceError::Conflict(
                "jti already used, or the identity changed meanwhile; sign a new request",
            ))
        }
        Err(e) => return Err(e.into()),
    }
    // And once more now that the record is gone: an upload committed before the deletion
    // may have stored its object after the first pass (an upload that stores later sees
    // the record gone and removes it itself). Best effort: the identity is deleted.
    if let Some(photos) = &ctx.photos {
        if let Err(e) = photos.delete_photos_of(&ident.sub).await {
            tracing::error!(error = %e, "removing a deleted identity's photos");
        }
    }
    tracing::info!(sessions = ended, "identity deleted");
    Audit::new(Event::IdentityDeleted)
        .subject(&ident.sub)
        .source(source)
        .emit();
    Ok(())
}

/// The recent logins of identity `sub`, asked by its device (`activity`, signed).
pub async fn recent_logins(
    ctx: &Context,
    sub: &str,
    activity: &str,
) -> Result<Vec<LoginActivity>, DeviceError> {
    let now = ctx.clock.now();
    let (ident, _, v) = signed_by_identity(ctx, sub, activity, "activity+jwt", now).await?;
    match ctx
        .store
        .spend_jtis(&ident.sub, &[(v.jti, v.exp)], now)
        .await
    {
        Ok(()) => {}
        Err(StoreError::ConditionFailed) => return Err(invalid("jti was already used")),
        Err(e) => return Err(e.into()),
    }
    Ok(ctx.store.recent_logins(&ident.sub, now).await?)
}
