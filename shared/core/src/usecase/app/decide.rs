//! The decision on a scanned QR login (app protocol §3): approve or deny, signed by the
//! identity's device key or one of its passkeys; the client's policy on the login's risk
//! flags and the `acr` it requires hold; a login that stands for a device authorization is
//! settled in the same transaction, which spends the decision's `jti`.

use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::app_jws;
use crate::domain::authn::Method;
use crate::domain::client::Client;
use crate::domain::device_grant::{DeviceAuthorization, SettleError};
use crate::domain::login::{ApprovedWith, CancelReason, Consent, DecideError, QrLogin};
use crate::domain::ratelimit::{Limit, Source};
use crate::domain::risk::Flag;
use crate::protocol::app_request::{self, AppRequest, Approval, Decision};
use crate::service::app_error::{flag_list, invalid, AppError};
use crate::service::assessment::{assess_in, who_addr, Assessment};
use crate::service::backchannel::ping;
use crate::service::limits;
use crate::service::login_history::{cancelled, first_scanner, remember_login};
use crate::service::signed_request::{unverified, verify_signed};
use crate::store::typed::Versioned;
use crate::store::{
    ClientStore, DeviceGrants, Eventual, IdentityStore, Outcome, QrLogins, SsoSessions, StoreError,
};

/// Records the decision signed in `approval` on QR login `id`.
pub async fn decide(
    ctx: &Context,
    id: &str,
    approval: &str,
    who: &Source,
) -> Result<Decision, AppError> {
    let now = ctx.clock.now();
    if id.len() > 64 {
        return Err(AppError::UnknownLogin);
    }
    let signed = signed_decision(ctx, id, approval, who, now).await?;
    let Some(s) = ctx.store.qr_login(id, now).await? else {
        return Err(AppError::UnknownLogin);
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
        Err(DecideError::NotFound) => return Err(AppError::UnknownLogin),
        Err(DecideError::AlreadyDecided) => return Err(AppError::AlreadyDecided),
        Err(DecideError::MissingNumber) => {
            return Err(invalid(
                "number: required to approve (the number shown on the login page)",
            ))
        }
        Err(DecideError::Cancelled(reason)) => Some(reason),
        Err(DecideError::AcrNotMet(required)) => return Err(AppError::AcrNotMet(required)),
    };
    if approve && cancel.is_none() {
        next.approved_with = Some(signed.approved_with);
    }
    // A cancelled login refuses the device authorization it stands for too: its device stops
    // polling with access_denied.
    let approver =
        (approve && cancel.is_none()).then_some((signed.sub.as_str(), signed.approved_with));
    let written = write_decision(ctx, id, (&s, &next), approver, &signed, now).await?;
    if written == Outcome::Done {
        // A poll held on this login answers now.
        ctx.login_changed(id);
    }
    // A backchannel request's ping mode client is told (OpenID CIBA Core §10.2).
    if let (Outcome::Done, Some(hash)) = (written, &next.device_grant) {
        ping(ctx, hash, now).await;
    }
    match (written, cancel) {
        (Outcome::Done, Some(reason)) => {
            let first = match reason {
                CancelReason::WrongNumber => Some(signed.sub.as_str()),
                CancelReason::SecondDevice => first_scanner(&next),
            };
            cancelled(ctx, &next, reason, first, who, now).await;
            Err(AppError::Cancelled(reason))
        }
        (Outcome::Done, None) => decided(ctx, &next, &signed, policy, who, now).await,
        (Outcome::Lost, _) if ctx.store.jti_used(&signed.sub, &signed.jti, now).await? => {
            Err(invalid("jti was already used"))
        }
        (Outcome::Lost, _) => Err(AppError::AlreadyDecided),
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
) -> Result<SignedDecision, AppError> {
    let jws = app_jws::parse_signed(approval, Approval::TYP).map_err(invalid)?;
    let sub = jws
        .str_claim("sub")
        .ok_or_else(|| invalid("sub: required"))?
        .to_owned();
    if sub.len() > 64 {
        return Err(AppError::UnknownLogin);
    }
    let ident = match ctx.store.identity(&sub, now).await? {
        Some((i, _)) if !i.disabled => i,
        _ => {
            unverified(ctx, who, now).await?;
            return Err(AppError::UnknownIdentity);
        }
    };
    let (v, approved_with) = match verify_signed(ctx, &ident, jws, Some(who), now).await {
        Ok(v) => v,
        Err(e @ (AppError::Invalid(_) | AppError::StoredKey)) => {
            unverified(ctx, who, now).await?;
            return Err(e);
        }
        Err(e) => return Err(e),
    };
    // Only a decision the identity's own key signed counts against the identity: a
    // stranger naming a (public) sub must not be able to block its owner (docs/requirements.md Q4).
    limits::within(ctx, Limit::Decision, &sub, now).await?;
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
///
/// The client and the identity's recent logins are read at the eventually consistent price
/// (issue 41): they describe and judge, and decide nothing by themselves. The client's name
/// and policy, and the history the flags weigh, may be a second old; the history's write that
/// follows is conditional on the version read, so a stale read costs a second write, never a
/// lost login. What the decision verifies and writes on, the identity's key and the login, is
/// read consistently.
async fn client_policy(
    ctx: &Context,
    login: &QrLogin,
    signed: &SignedDecision,
    who: &Source,
    now: Timestamp,
) -> Result<ClientPolicy, AppError> {
    let eventual = Eventual(ctx.store.as_ref());
    let client = eventual
        .client(&login.request.client_id, now)
        .await?
        .map(|(c, _)| c);
    let assessment = match &client {
        Some(c) => Some(
            assess_in(
                ctx,
                &eventual,
                login,
                c,
                &who_addr(who),
                Some(&signed.sub),
                now,
            )
            .await?,
        ),
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
) -> Result<Outcome, AppError> {
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
            return Err(AppError::UnknownLogin);
        };
        // A backchannel request (OpenID CIBA) is decided by the person it asks, only.
        if !d.value.asks(&signed.sub) {
            return Err(AppError::UnknownLogin);
        }
        let mut settled = d.value.clone();
        match settled.settle(approver, now) {
            Ok(()) => {}
            Err(SettleError::Expired) => return Err(AppError::UnknownLogin),
            Err(SettleError::AlreadyDecided) => return Err(AppError::AlreadyDecided),
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
                return Err(AppError::Busy);
            }
            tries += 1;
            continue;
        }
        if o == Outcome::Done && approver.is_some() {
            delegate(ctx, &settled, &signed.sub, now).await?;
        }
        return Ok(o);
    }
}

/// An agent's backchannel request approved: the person's delegation to it (RFC 8693), recorded
/// as allowing its consent page records it, with the scopes and resource servers the phone
/// showed. A denied or expired request records nothing.
async fn delegate(
    ctx: &Context,
    settled: &DeviceAuthorization,
    sub: &str,
    now: Timestamp,
) -> Result<(), StoreError> {
    let Some(b) = settled.backchannel.as_ref().filter(|b| b.delegation) else {
        return Ok(());
    };
    let consent = Consent {
        scopes: settled.scopes.clone(),
        granted_at: now,
        claims: Vec::new(),
        resources: b.resources.clone(),
        delegation: true,
    };
    ctx.store
        .remember_consent(sub, settled.client_id.as_str(), &consent, now)
        .await?;
    Audit::new(Event::ConsentGranted)
        .client(&settled.client_id)
        .subject(sub)
        .emit();
    Ok(())
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
) -> Result<Decision, AppError> {
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
        return Err(AppError::Refused(policy.refused));
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
