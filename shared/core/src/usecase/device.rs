//! The device API's use cases (app protocol §1, §3, §4): sign-up, reading a scanned QR login,
//! approving or denying it, updating the profile and rotating the device key. Every write is
//! a JWS signed by the device key; its `jti` is spent in the same transaction as the write, so
//! a replay is refused.

use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::app_jws::{self, Verified};
use crate::domain::authn::{Acr, Method};
use crate::domain::client::Client;
use crate::domain::device_grant::SettleError;
use crate::domain::identity::{self, Identity, LoginActivity};
use crate::domain::login::{ApprovedWith, CancelReason, DecideError, QrLogin, ScanError, Scanner};
use crate::domain::photo;
use crate::domain::ratelimit::{Counted, Limit, Source};
use crate::domain::risk::{self, Flag};
use crate::geoip::{self, Geo};
pub use crate::protocol::app_request::Decision;
use crate::protocol::app_request::{
    self, Activity, AppRequest, Approval, Deletion, KeyProof, KeyRotation, PhotoUpload,
    ProfileUpdate, Registration, Report, ScanProof,
};
use crate::protocol::Subject;
use crate::store::typed::Versioned;
use crate::store::{
    Backend, ClientStore, DeviceGrants, Eventual, Grants, IdentityStore, LoginHistory,
    NewIdentityError, Outcome, Passkeys, QrLogins, SsoSessions, StoreError,
};
use crate::usecase::ratelimit;

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
    /// The identity has no key with this id (a passkey's credential id, or `device`).
    #[error("unknown key")]
    UnknownKey,
    /// The identity's last key: it would have none left to sign with.
    #[error("this is the identity's last key: add another before removing it")]
    LastKey,
    /// No entry of this identity's recent logins has this id.
    #[error("unknown login")]
    UnknownActivity,
    /// The name is taken.
    #[error("this name is taken")]
    NameTaken,
    /// The login was decided already.
    #[error("this login session was decided already")]
    AlreadyDecided,
    /// The login is cancelled for good (a wrong number, a second phone).
    #[error("{}", cancel_text(*.0))]
    Cancelled(CancelReason),
    /// A `jti` used, or the identity changed meanwhile.
    #[error("{0}")]
    Conflict(&'static str),
    /// Too many requests from this source or identity.
    #[error("too many requests")]
    RateLimited {
        /// Seconds until the next try may succeed.
        retry_after: i64,
    },
    /// The device key on file cannot be read (a corrupt record).
    #[error("the stored device key is unreadable")]
    StoredKey,
    /// An approval the client's policy refuses for these risk flags (403 `login_refused`):
    /// the login was cancelled.
    #[error("this login cannot be approved: the client refuses logins flagged {}", flag_list(.0))]
    Refused(Vec<Flag>),
    /// An approval below the `acr` the login's request or its client requires (403
    /// `acr_not_met`); nothing was written: approve again with what it needs.
    #[error("this service requires {}: approve with it (acr {})", .0.needs(), .0.as_str())]
    AcrNotMet(Acr),
    /// Lost every retry of a race (503).
    #[error("busy")]
    Busy,
    /// This deployment hosts no photos (no photo store configured).
    #[error("this service hosts no photos")]
    NoPhotos,
    /// A stored photo could not be read or written (503).
    #[error("the photo store is unavailable")]
    PhotosUnavailable,
    /// The store failed.
    #[error("store")]
    Store(#[from] StoreError),
}

fn flag_list(flags: &[Flag]) -> String {
    flags
        .iter()
        .map(|f| f.as_str())
        .collect::<Vec<_>>()
        .join(", ")
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

/// Counts one event and refuses past the limit (for the other device use cases).
pub(crate) async fn count(
    ctx: &Context,
    l: Limit,
    who: &str,
    now: Timestamp,
) -> Result<(), DeviceError> {
    limit(ctx, l, who, now).await
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
    let jws = match app_jws::parse_signed(registration, Registration::TYP).map_err(invalid)? {
        app_jws::Signed::Es256(jws) => jws,
        app_jws::Signed::Passkey(p) => return crate::usecase::passkey::signup(ctx, p, who).await,
    };
    let key = jws
        .str_claim("public_key")
        .ok_or_else(|| invalid("public_key: required"))?;
    let spki = identity::parse_public_key(key).map_err(invalid)?;
    let verified = jws
        .verify(&spki, &ctx.settings.issuer(), now)
        .map_err(invalid)?;
    let reg: Registration = app_request::read(&verified.claims).map_err(invalid)?;
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
    /// The scanned login.
    pub login: QrLogin,
    /// Its client.
    pub client: Client,
    /// For a login that stands for a device authorization (RFC 8628): its user code, for the
    /// person to compare with the device's screen.
    pub user_code: Option<String>,
    /// The scan came with the browser-binding secret of this very login: the login was
    /// started in the browser the app runs in (a login on the phone itself). Decided from
    /// that proof only, never from the User-Agent; without the secret (another device, or a
    /// native app) it is `false`.
    pub started_here: bool,
    /// Where the login came from and where the phone is, with the risk flags.
    pub assessment: Assessment,
}

/// Where a login came from, judged (issue 24; [`risk`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assessment {
    /// The browser's location and network (nothing known without a GeoIP database).
    pub browser: Geo,
    /// The browser's place, as the identity's approved places remember it.
    pub place: String,
    /// The address the phone's request came from, and where it is.
    pub phone_ip: String,
    /// Where the phone is.
    pub phone: Geo,
    /// The risk flags raised.
    pub flags: Vec<Flag>,
    /// The flags the client's policy refuses: non-empty, the login cannot be approved.
    pub refused: Vec<Flag>,
    /// The identity's login history as read (when the identity is known): the decision adds
    /// its login to it without reading it again.
    pub history: Option<LoginHistory>,
}

/// Judges `login` of `client`, looked at by a phone at `phone_ip`. `sub`, the identity, when
/// known (the decision always; a scan once it proves who scans): only then are its recent
/// logins read and the identity-based flags computed.
pub async fn assess(
    ctx: &Context,
    login: &QrLogin,
    client: &Client,
    phone_ip: &str,
    sub: Option<&str>,
    now: Timestamp,
) -> Result<Assessment, StoreError> {
    assess_in(ctx, ctx.store.as_ref(), login, client, phone_ip, sub, now).await
}

/// [`assess`] reading the identity's recent logins from `store` (the scan's eventually
/// consistent view: the decision assesses again, reading consistently).
async fn assess_in(
    ctx: &Context,
    store: &dyn Backend,
    login: &QrLogin,
    client: &Client,
    phone_ip: &str,
    sub: Option<&str>,
    now: Timestamp,
) -> Result<Assessment, StoreError> {
    let browser = geoip::locate(ctx.geoip.as_ref(), &login.browser_ip);
    let place = geoip::place(&login.browser_ip, &browser);
    let phone = geoip::locate(ctx.geoip.as_ref(), phone_ip);
    let history = match sub {
        Some(sub) => Some(store.login_history(sub, now).await?),
        None => None,
    };
    let attempts: Vec<Timestamp> = history
        .as_ref()
        .map(|h| h.activity.logins.iter().map(|l| l.at).collect())
        .unwrap_or_default();
    let flags = risk::flags(
        &browser,
        &place,
        &phone,
        history.as_ref().map(|h| risk::History {
            approved_places: &h.activity.places,
            attempts: &attempts,
        }),
        ctx.settings.high_usage_logins_per_hour,
        now,
    );
    let refused = risk::refusing(&flags, &client.refuse_on);
    Ok(Assessment {
        browser,
        place,
        phone_ip: phone_ip.to_owned(),
        phone,
        flags,
        refused,
        history,
    })
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
    let phone_ip = who_addr(who);
    let by = ScanBy {
        proof,
        browser_secret: None,
        who,
        phone_ip: &phone_ip,
    };
    scan_from(ctx, id, challenge, by).await
}

/// What a scan request brought besides the code: the scan proof, the login's browser-binding
/// cookie (when the app runs in the browser that started the login), and where it came from.
#[derive(Debug, Clone, Copy)]
pub struct ScanBy<'a> {
    /// A `scan+jwt` signed by the scanning identity's device key (`Scanid-Proof`).
    pub proof: Option<&'a str>,
    /// The login's browser-binding secret, when the scan request carries it: proof that the
    /// login was started in the browser the app runs in.
    pub browser_secret: Option<&'a str>,
    /// The request's source, as rate limits count it.
    pub who: &'a Source,
    /// The phone's address, for where it is.
    pub phone_ip: &'a str,
}

/// [`scan`] with everything the request brought: the answer also says whether the login was
/// started in this very browser, where it came from, where the phone is, and the risk flags
/// (the identity-based ones once the proof names the identity).
pub async fn scan_from(
    ctx: &Context,
    id: &str,
    challenge: &str,
    by: ScanBy<'_>,
) -> Result<Scanned, DeviceError> {
    let now = ctx.clock.now();
    if id.len() > 64 || challenge.len() > 64 {
        return Err(DeviceError::UnknownLogin);
    }
    let scanner = match by.proof {
        None => Scanner::Anonymous,
        Some(p) => scan_proof(ctx, p, id, challenge, by.who, now).await?,
    };
    let ttl = ctx.settings.lifetimes.qr_challenge;
    // What the scan reads besides the login, it reads eventually consistent (half the read
    // units): the decision reads the identity, the client and the identity's recent logins
    // again, consistently, before anything is approved.
    let eventual = Eventual(ctx.store.as_ref());
    // The login's first read is eventually consistent too: the write is conditional on the
    // version read, so a stale read can only lose it, and anything but a won write (no login,
    // a refused scan, a lost write) reads again, consistently. A concurrent scan may win the
    // write: read again and retry (the challenge is then spent).
    for attempt in 0..4 {
        let read = if attempt == 0 {
            eventual.qr_login(id, now).await?
        } else {
            ctx.store.qr_login(id, now).await?
        };
        let Some(s) = read else {
            if attempt == 0 {
                continue;
            }
            return Err(DeviceError::UnknownLogin);
        };
        let mut next = s.value.clone();
        let accepted = next.accept_scan(challenge, &scanner, ttl, now, ctx.random.as_ref());
        if accepted == Err(ScanError::NotFound) {
            if attempt == 0 {
                continue;
            }
            return Err(DeviceError::UnknownLogin);
        }
        if ctx.store.update_qr_login(&s, &next, now).await? == Outcome::Lost {
            continue;
        }
        if let Err(ScanError::Cancelled(reason)) = accepted {
            cancelled(ctx, &next, reason, first_scanner(&next), by.who, now).await;
            return Err(DeviceError::Cancelled(reason));
        }
        let client = eventual
            .client(&next.request.client_id, now)
            .await?
            .map(|(c, _)| c)
            .ok_or(DeviceError::UnknownLogin)?;
        let user_code = super::device_grant::user_code_of(ctx, &next, now).await?;
        // The identity-based flags need the identity: a scan proof names it; without one
        // they wait for the decision.
        let sub = match &scanner {
            Scanner::Identity(sub) => Some(sub.as_str()),
            Scanner::Anonymous => None,
        };
        let assessment = assess_in(ctx, &eventual, &next, &client, by.phone_ip, sub, now).await?;
        return Ok(Scanned {
            started_here: next.bound_to(by.browser_secret),
            login: next,
            client,
            user_code,
            assessment,
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
        app_jws::parse(proof, ScanProof::TYP).map_err(|e| invalid(format!("Scanid-Proof: {e}")))?;
    let sub = jws
        .str_claim("sub")
        .ok_or_else(|| invalid("Scanid-Proof: sub: required"))?
        .to_owned();
    // Eventually consistent (half the read units): the proof only says who scanned; the
    // decision verifies its own request against the identity read consistently, and refuses a
    // disabled identity or a replaced key then.
    let ident = match Eventual(ctx.store.as_ref()).identity(&sub, now).await? {
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
    let p: ScanProof =
        app_request::read(&v.claims).map_err(|e| invalid(format!("Scanid-Proof: {e}")))?;
    if p.session != id || p.challenge != challenge {
        return Err(invalid(
            "Scanid-Proof: session and challenge must name this scan",
        ));
    }
    // A retired device key (the identity signs with its passkeys) speaks for nobody: whoever
    // still holds it scans as anyone without a proof does.
    if ident.device_key_retired {
        return Ok(Scanner::Anonymous);
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
        remember_login(ctx, sub, login, reason.as_str(), None, None, now).await;
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
    let signed = signed_decision(ctx, id, approval, who, now).await?;
    let Some(s) = ctx.store.qr_login(id, now).await? else {
        return Err(DeviceError::UnknownLogin);
    };
    let policy = client_policy(ctx, &s.value, &signed, who, now).await?;
    let approve = signed.decision == Decision::Approve && policy.refused.is_empty();
    let mut next = s.value.clone();
    // A cancellation (a wrong number, another identity than the scanner) is written like a
    // refusal, for good, in the write that spends the jti. An approval the client's policy
    // refuses is written as a denial.
    let cancel = match next.decide(
        &signed.sub,
        &signed.challenge,
        (approve, signed.approved_with),
        signed.number,
        now,
    ) {
        Ok(()) => None,
        Err(DecideError::NotFound) => return Err(DeviceError::UnknownLogin),
        Err(DecideError::AlreadyDecided) => return Err(DeviceError::AlreadyDecided),
        Err(DecideError::MissingNumber) => {
            return Err(invalid(
                "number: required to approve (the number shown on the login page)",
            ))
        }
        Err(DecideError::Cancelled(reason)) => Some(reason),
        Err(DecideError::AcrNotMet(required)) => return Err(DeviceError::AcrNotMet(required)),
    };
    if approve && cancel.is_none() {
        next.approved_with = Some(signed.approved_with);
    }
    // A cancelled login refuses the device authorization it stands for too: its device stops
    // polling with access_denied.
    let approver =
        (approve && cancel.is_none()).then_some((signed.sub.as_str(), signed.approved_with));
    let written = write_decision(ctx, id, (&s, &next), approver, &signed, now).await?;
    match (written, cancel) {
        (Outcome::Done, Some(reason)) => {
            let first = match reason {
                CancelReason::WrongNumber => Some(signed.sub.as_str()),
                CancelReason::SecondDevice => first_scanner(&next),
            };
            cancelled(ctx, &next, reason, first, who, now).await;
            Err(DeviceError::Cancelled(reason))
        }
        (Outcome::Done, None) => decided(ctx, &next, &signed, policy, who, now).await,
        (Outcome::Lost, _) if ctx.store.jti_used(&signed.sub, &signed.jti, now).await? => {
            Err(invalid("jti was already used"))
        }
        (Outcome::Lost, _) => Err(DeviceError::AlreadyDecided),
    }
}

/// A decision on QR login `id` that its identity's own key signed: who decided, and what.
struct SignedDecision {
    sub: String,
    jti: String,
    exp: i64,
    challenge: String,
    decision: Decision,
    number: Option<i64>,
    /// What signed it: a passkey (user verified) or the device key.
    approved_with: ApprovedWith,
}

/// Verifies `approval` (an `approval+jwt`) with the key of the identity it names, counts it
/// against that identity's decision limit, and reads its claims.
async fn signed_decision(
    ctx: &Context,
    id: &str,
    approval: &str,
    who: &Source,
    now: Timestamp,
) -> Result<SignedDecision, DeviceError> {
    let jws = app_jws::parse_signed(approval, Approval::TYP).map_err(invalid)?;
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
    let (v, approved_with) =
        match crate::usecase::passkey::verify_signed(ctx, &ident, jws, Some(who), now).await {
            Ok(v) => v,
            Err(e @ (DeviceError::Invalid(_) | DeviceError::StoredKey)) => {
                unverified(ctx, who, now).await?;
                return Err(e);
            }
            Err(e) => return Err(e),
        };
    // Only a decision the identity's own key signed counts against the identity: a
    // stranger naming a (public) sub must not be able to block its owner (docs/requirements.md Q4).
    limit(ctx, Limit::Decision, &sub, now).await?;
    let a: Approval = app_request::read(&v.claims).map_err(invalid)?;
    if a.session != id {
        return Err(invalid("session must name this login session"));
    }
    Ok(SignedDecision {
        sub,
        jti: v.jti,
        exp: v.exp,
        challenge: a.challenge,
        decision: a.decision,
        number: a.number,
        approved_with,
    })
}

/// The login's client, its assessment of the login, and the flags its policy refuses for an
/// approval (none for a denial).
struct ClientPolicy {
    client: Option<Client>,
    assessment: Option<Assessment>,
    refused: Vec<Flag>,
}

/// The client's policy on the login's risk flags, now that the identity is known: an
/// approval a flag refuses cancels the login (recorded as refused).
async fn client_policy(
    ctx: &Context,
    login: &QrLogin,
    signed: &SignedDecision,
    who: &Source,
    now: Timestamp,
) -> Result<ClientPolicy, DeviceError> {
    let client = ctx
        .store
        .client(&login.request.client_id, now)
        .await?
        .map(|(c, _)| c);
    let assessment = match &client {
        Some(c) => Some(assess(ctx, login, c, &who_addr(who), Some(&signed.sub), now).await?),
        None => None,
    };
    let refused = match &assessment {
        Some(a) if signed.decision == Decision::Approve => a.refused.clone(),
        _ => Vec::new(),
    };
    Ok(ClientPolicy {
        client,
        assessment,
        refused,
    })
}

/// Writes the decided login `next` over `s` (QR login `id`), spending the decision's jti. A login that stands
/// for a device authorization (RFC 8628): the decision on the phone (which showed the client,
/// the scopes and the user code) settles it, in the same transaction, approved by `approver`.
async fn write_decision(
    ctx: &Context,
    id: &str,
    (s, next): (&Versioned<QrLogin>, &QrLogin),
    approver: Option<(&str, Method)>,
    signed: &SignedDecision,
    now: Timestamp,
) -> Result<Outcome, DeviceError> {
    let Some(hash) = &next.device_grant else {
        let (sub, jti, exp) = (&signed.sub, &signed.jti, signed.exp);
        return Ok(ctx
            .store
            .record_decision(s, next, sub, jti, exp, now)
            .await?);
    };
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
            .record_device_decision(
                (s, next),
                (&d, &settled),
                &signed.sub,
                &signed.jti,
                signed.exp,
                now,
            )
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
            && !ctx.store.jti_used(&signed.sub, &signed.jti, now).await?
            && login_unchanged().await?
        {
            if tries == 3 {
                return Err(DeviceError::Busy);
            }
            tries += 1;
            continue;
        }
        return Ok(o);
    }
}

/// A decision written: refused by the client's policy, or approved or denied as signed; the
/// audit line and the identity's recent logins say which.
async fn decided(
    ctx: &Context,
    next: &QrLogin,
    signed: &SignedDecision,
    policy: ClientPolicy,
    who: &Source,
    now: Timestamp,
) -> Result<Decision, DeviceError> {
    let client_name = policy.client.map(|c| c.name);
    let assessment = policy.assessment.as_ref();
    if !policy.refused.is_empty() {
        let detail = flag_list(&policy.refused);
        Audit::new(Event::LoginRefused)
            .client(&next.request.client_id)
            .subject(&signed.sub)
            .source(who.as_str())
            .outcome("refused")
            .detail(&detail)
            .emit();
        remember_login(
            ctx,
            &signed.sub,
            next,
            "refused",
            client_name,
            assessment,
            now,
        )
        .await;
        return Err(DeviceError::Refused(policy.refused));
    }
    let (event, outcome) = match signed.decision {
        Decision::Approve => (Event::LoginApproved, "approved"),
        Decision::Deny => (Event::LoginDenied, "denied"),
    };
    Audit::new(event)
        .client(&next.request.client_id)
        .subject(&signed.sub)
        .source(who.as_str())
        .outcome(outcome)
        .emit();
    remember_login(
        ctx,
        &signed.sub,
        next,
        outcome,
        client_name,
        assessment,
        now,
    )
    .await;
    Ok(signed.decision)
}

/// The address a phone's request came from, as far as its rate-limit source tells (an IPv6
/// source is its /64, located by its first address: GeoIP data is never finer).
fn who_addr(who: &Source) -> String {
    who.as_str().trim_end_matches("/64").to_owned()
}

/// Adds the decided login to the identity's recent logins, with where it came from (an
/// approved login's place joins the identity's places). The decision stands whatever
/// happens here: a failure is logged, not answered.
/// A passkey signed `login` in on the login page: the identity's recent logins show it as
/// an approval (no phone, so no place of its own).
pub(crate) async fn remember_passkey_login(
    ctx: &Context,
    sub: &str,
    login: &QrLogin,
    now: Timestamp,
) {
    remember_login(ctx, sub, login, "approved", None, None, now).await;
}

async fn remember_login(
    ctx: &Context,
    sub: &str,
    login: &QrLogin,
    outcome: &str,
    client_name: Option<String>,
    assessment: Option<&Assessment>,
    now: Timestamp,
) {
    let entry = LoginActivity {
        at: now,
        client_id: login.request.client_id.to_string(),
        client_name: client_name.unwrap_or_else(|| login.request.client_id.to_string()),
        outcome: outcome.to_owned(),
        browser_ip: login.browser_ip.clone(),
        user_agent: login.user_agent.clone(),
        location: assessment.and_then(|a| a.browser.location.clone()),
        network: assessment.and_then(|a| a.browser.network.clone()),
        place: assessment.map(|a| a.place.clone()),
        flags: assessment.map(|a| a.flags.clone()).unwrap_or_default(),
        id: crate::random::token(ctx.random.as_ref(), 12),
        method: "qr".to_owned(),
        // The session its tokens get names this: the QR login, or the device authorization
        // it stood for.
        login_id: Some(match &login.device_grant {
            Some(hash) => crate::domain::device_grant::login_link(hash),
            None => login.id.to_string(),
        }),
        sid: None,
        reported_at: None,
    };
    let recorded = match assessment.and_then(|a| a.history.as_ref()) {
        Some(read) => ctx.store.record_login_after(sub, entry, read, now).await,
        None => ctx.store.record_login(sub, entry, now).await,
    };
    if let Err(e) = recorded {
        tracing::warn!(error = %e, "recording a login in the identity's recent logins");
    }
}

/// Adds a login completed through the SSO session `sid` (no QR step) to the identity's
/// recent logins, marked `sso`. Best effort, like the QR logins' entries. `client_name` when
/// the caller holds the client already (else it is read).
pub async fn remember_sso_login(
    ctx: &Context,
    sub: &str,
    (client_id, client_name): (&str, Option<&str>),
    sid: &str,
    browser: (&str, &str),
    now: Timestamp,
) {
    let client_name = match client_name {
        Some(name) => name.to_owned(),
        None => match ctx.store.client(client_id, now).await {
            Ok(Some((c, _))) => c.name,
            _ => client_id.to_owned(),
        },
    };
    let geo = geoip::locate(ctx.geoip.as_ref(), browser.0);
    let entry = LoginActivity {
        at: now,
        client_id: client_id.to_owned(),
        client_name,
        outcome: "approved".to_owned(),
        browser_ip: browser.0.to_owned(),
        user_agent: browser.1.to_owned(),
        place: Some(geoip::place(browser.0, &geo)),
        location: geo.location,
        network: geo.network,
        flags: Vec::new(),
        id: crate::random::token(ctx.random.as_ref(), 12),
        method: "sso".to_owned(),
        login_id: None,
        sid: Some(sid.to_owned()),
        reported_at: None,
    };
    if let Err(e) = ctx.store.record_login(sub, entry, now).await {
        tracing::warn!(error = %e, "recording an SSO login in the identity's recent logins");
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

/// Parses `jws` of type `typ` and verifies it with a key of identity `sub` (its device key,
/// or one of its passkeys); the request's `sub` must name that identity.
async fn signed_by_identity(
    ctx: &Context,
    sub: &str,
    jws: &str,
    typ: &str,
    now: Timestamp,
) -> Result<(Identity, u64, Verified), DeviceError> {
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
) -> Result<(Identity, u64, Verified, ApprovedWith), DeviceError> {
    let jws = app_jws::parse_signed(jws, typ).map_err(invalid)?;
    let (ident, version) = acting_identity(ctx, sub, now).await?;
    if jws.str_claim("sub") != Some(ident.sub.as_str()) {
        return Err(invalid("sub must name this identity"));
    }
    let (v, with) = crate::usecase::passkey::verify_signed(ctx, &ident, jws, from, now).await?;
    Ok((ident, version, v, with))
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
    let (ident, version, v) = signed_by_identity(ctx, sub, update, ProfileUpdate::TYP, now).await?;
    let u: ProfileUpdate = app_request::read(&v.claims).map_err(invalid)?;
    let next = identity::apply_update(&ident, &u, &ctx.settings.photo_hosts).map_err(invalid)?;
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
    let (ident, version, v) = signed_by_identity(ctx, sub, upload, PhotoUpload::TYP, now).await?;
    let photos = ctx.photos.as_ref().ok_or(DeviceError::NoPhotos)?;
    limit(ctx, Limit::PhotoUpload, &ident.sub, now).await?;
    let format = photo::check(image).map_err(invalid)?;
    let hash = photo::content_hash(image);
    let signed: PhotoUpload = app_request::read(&v.claims).map_err(invalid)?;
    let signed_hash = signed.sha256;
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
    if Subject::parse_identity(sub).is_err() || !photo::is_content_hash(hash) {
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
        return Err(DeviceError::Conflict(
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
async fn end_everything(ctx: &Context, sub: &str, now: Timestamp) -> Result<usize, DeviceError> {
    let ended = crate::usecase::resource::end_sessions_of(ctx, sub, now).await?;
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
) -> Result<(Identity, usize), DeviceError> {
    for _ in 0..3 {
        let now = ctx.clock.now();
        let Some((ident, version)) = ctx.store.identity(who, now).await? else {
            return Err(DeviceError::UnknownIdentity);
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
    Err(DeviceError::Busy)
}

/// What "this wasn't me" did.
#[derive(Debug)]
pub struct Reported {
    /// The entry, marked reported.
    pub entry: LoginActivity,
    /// The SSO session the login used, when it was found: ended (its clients told), and its
    /// grants revoked, offline ones too.
    pub sid: Option<String>,
}

/// "This wasn't me" on the recent login `id` of identity `sub` (`report`, a `report+jwt`
/// signed by the device key, naming the entry in its `login` claim): the SSO session the
/// login used ends and its clients get back-channel logout, every grant of that session
/// (refresh tokens and their access tokens, offline ones too) is revoked, an audit event
/// records it, and the entry is marked reported. Idempotent: reporting again redoes the
/// (harmless) ending and keeps the first report's time.
pub async fn report_login(
    ctx: &Context,
    sub: &str,
    id: &str,
    report: &str,
    who: &Source,
) -> Result<Reported, DeviceError> {
    let now = ctx.clock.now();
    let (ident, _, v) = signed_by_identity(ctx, sub, report, Report::TYP, now).await?;
    let r: Report = app_request::read(&v.claims).map_err(invalid)?;
    if r.login != id {
        return Err(invalid("login must name the reported login"));
    }
    if id.is_empty() || id.len() > 64 {
        return Err(DeviceError::UnknownActivity);
    }
    let entry = match ctx
        .store
        .report_login(&ident.sub, id, &[(v.jti, v.exp)], now)
        .await
    {
        Ok(Some(e)) => e,
        Ok(None) => return Err(DeviceError::UnknownActivity),
        Err(StoreError::ConditionFailed) => return Err(invalid("jti was already used")),
        Err(e) => return Err(e.into()),
    };
    let sid = match (&entry.sid, &entry.login_id) {
        (Some(sid), _) => Some(sid.clone()),
        (None, Some(login)) => session_of_login(ctx, &ident.sub, login, now).await?,
        (None, None) => None,
    };
    if let Some(sid) = &sid {
        // The offline grants outlive the session: revoked until the last could expire.
        let l = &ctx.settings.lifetimes;
        let until = now.plus_secs(l.offline_token.max(l.refresh_token)).secs();
        ctx.store.revoke_session_grants(sid, until, now).await?;
        crate::usecase::resource::end_session(ctx, sid, now).await?;
    }
    Audit::new(Event::LoginReported)
        .client(&entry.client_id)
        .subject(&ident.sub)
        .source(who.as_str())
        .outcome(if sid.is_some() {
            "session_ended"
        } else {
            "no_session"
        })
        .emit();
    Ok(Reported { entry, sid })
}

/// The SSO session QR login `login` started, among the identity's recent sessions.
async fn session_of_login(
    ctx: &Context,
    sub: &str,
    login: &str,
    now: Timestamp,
) -> Result<Option<String>, StoreError> {
    for sid in ctx.store.identity_sessions(sub, now).await? {
        if let Some(s) = ctx.store.sso_session(&sid, now).await? {
            if s.value.login.as_deref() == Some(login) {
                return Ok(Some(sid));
            }
        }
    }
    Ok(None)
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
    let (ident, version, v) = signed_by_identity(ctx, sub, deletion, Deletion::TYP, now).await?;
    let _: Deletion = app_request::read(&v.claims).map_err(invalid)?;
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
    // Its passkeys go too (best effort: one left behind names an identity that is gone, and
    // is refused as such).
    if let Err(e) = ctx.store.forget_passkeys(ident.sub.as_str(), now).await {
        tracing::error!(error = %e, "removing a deleted identity's passkeys");
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
    let (ident, _, v) = signed_by_identity(ctx, sub, activity, Activity::TYP, now).await?;
    let _: Activity = app_request::read(&v.claims).map_err(invalid)?;
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
