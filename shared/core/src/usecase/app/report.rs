//! "This wasn't me" (app protocol §4): a recent login reported by the identity's app revokes
//! the grants of the SSO session it used, whatever became of that session, and ends the
//! session if it is still live.

use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::device_grant::{DeviceAuthorization, DeviceGrantStatus};
use crate::domain::identity::LoginActivity;
use crate::domain::login::{sid_of_login, LoginStatus};
use crate::domain::ratelimit::Source;
use crate::protocol::app_request::{self, AppRequest, Report};
use crate::service::app_error::{invalid, AppError};
use crate::service::sessions::end_known_session;
use crate::service::signed_request::signed_by_identity;
use crate::store::{DeviceGrants, Grants, IdentityStore, QrLogins, SsoSessions, StoreError};

/// What "this wasn't me" did.
#[derive(Debug)]
pub struct Reported {
    /// The entry, marked reported.
    pub entry: LoginActivity,
    /// The SSO session the login's tokens got, when the entry names it (every approved login
    /// since issue 38; an SSO login): its grants revoked, offline ones too.
    pub sid: Option<String>,
    /// Whether that session was still live, and is now ended (its clients told).
    pub session_ended: bool,
}

/// "This wasn't me" on the recent login `id` of identity `sub` (`report`, a `report+jwt`
/// signed by the device key, naming the entry in its `login` claim): every grant of the SSO
/// session the login's tokens got (refresh tokens and their access tokens, offline ones too)
/// is revoked whether or not the session is still live (idled out, logged out: issue 38),
/// the session ends if it is and its clients get back-channel logout, an audit event records
/// it, and the entry is marked reported. Idempotent: reporting again redoes the (harmless)
/// revocation and keeps the first report's time.
pub async fn report_login(
    ctx: &Context,
    sub: &str,
    id: &str,
    report: &str,
    who: &Source,
) -> Result<Reported, AppError> {
    let now = ctx.clock.now();
    let (ident, _, v) = signed_by_identity(ctx, sub, report, Report::TYP, now).await?;
    let r: Report = app_request::read(&v.claims).map_err(invalid)?;
    if r.login != id {
        return Err(invalid("login must name the reported login"));
    }
    if id.is_empty() || id.len() > 64 {
        return Err(AppError::UnknownActivity);
    }
    let entry = match ctx
        .store
        .report_login(&ident.sub, id, &[(v.jti, v.exp)], now)
        .await
    {
        Ok(Some(e)) => e,
        Ok(None) => return Err(AppError::UnknownActivity),
        Err(StoreError::ConditionFailed) => return Err(invalid("jti was already used")),
        Err(e) => return Err(e.into()),
    };
    let sid = match (&entry.sid, &entry.login_id) {
        (Some(sid), _) => Some(sid.clone()),
        (None, Some(login)) => Some(session_of_login(ctx, &ident.sub, login, now).await?),
        (None, None) => None,
    };
    if let Some(login) = &entry.login_id {
        close_if_unfinished(ctx, login, now).await?;
    }
    let mut session_ended = false;
    if let Some(sid) = &sid {
        // The offline grants outlive the session: revoked until the last could expire.
        let l = &ctx.settings.lifetimes;
        let until = now.plus_secs(l.offline_token.max(l.refresh_token)).secs();
        ctx.store.revoke_session_grants(sid, until, now).await?;
        if let Some(s) = ctx.store.sso_session(sid, now).await? {
            end_known_session(ctx, &s.value, now).await?;
            session_ended = true;
        }
    }
    Audit::new(Event::LoginReported)
        .client(&entry.client_id)
        .subject(&ident.sub)
        .source(who.as_str())
        .outcome(match (session_ended, sid.is_some()) {
            (true, _) => "session_ended",
            (false, true) => "grants_revoked",
            (false, false) => "no_session",
        })
        .emit();
    Ok(Reported {
        entry,
        sid,
        session_ended,
    })
}

/// A QR login approved on the phone whose browser has not finished it yet is closed, and a
/// device authorization approved but not yet redeemed by the device's poll is denied (the
/// device's next poll gets `access_denied`), so nothing (no code, no tokens, no session) comes
/// of it after the report; one finished or redeemed at the same moment loses either here or
/// there (then its session is ended below).
async fn close_if_unfinished(ctx: &Context, login: &str, now: Timestamp) -> Result<(), StoreError> {
    if let Some(device_code_hash) = login.strip_prefix("device:") {
        return match ctx
            .store
            .device_authorization(device_code_hash, now)
            .await?
        {
            Some(a) if matches!(a.value.status, DeviceGrantStatus::Approved { .. }) => {
                let denied = DeviceAuthorization {
                    status: DeviceGrantStatus::Denied,
                    ..a.value.clone()
                };
                let _ = ctx
                    .store
                    .update_device_authorization(&a, &denied, now)
                    .await?;
                Ok(())
            }
            _ => Ok(()),
        };
    }
    match ctx.store.qr_login(login, now).await? {
        Some(l) if matches!(l.value.status, LoginStatus::Approved { .. }) => {
            ctx.store.close_qr_login(&l, now).await.map(|_| ())
        }
        _ => Ok(()),
    }
}

/// The SSO session QR login (or device authorization) `login` started: the one its `sid`
/// names ([`sid_of_login`]), or a session started before sids came from logins, found by its
/// `login` among the identity's live sessions.
async fn session_of_login(
    ctx: &Context,
    sub: &str,
    login: &str,
    now: Timestamp,
) -> Result<String, StoreError> {
    for sid in ctx.store.identity_sessions(sub, now).await? {
        if let Some(s) = ctx.store.sso_session(&sid, now).await? {
            if s.value.login.as_deref() == Some(login) {
                return Ok(sid);
            }
        }
    }
    Ok(sid_of_login(login).to_string())
}
