//! "This wasn't me" (app protocol §4): a recent login reported by the identity's app ends the
//! SSO session it used and revokes that session's grants.

use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::identity::LoginActivity;
use crate::domain::ratelimit::Source;
use crate::protocol::app_request::{self, AppRequest, Report};
use crate::service::app_error::{invalid, AppError};
use crate::service::sessions::end_session;
use crate::service::signed_request::signed_by_identity;
use crate::store::{Grants, IdentityStore, SsoSessions, StoreError};

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
        (None, Some(login)) => session_of_login(ctx, &ident.sub, login, now).await?,
        (None, None) => None,
    };
    if let Some(sid) = &sid {
        // The offline grants outlive the session: revoked until the last could expire.
        let l = &ctx.settings.lifetimes;
        let until = now.plus_secs(l.offline_token.max(l.refresh_token)).secs();
        ctx.store.revoke_session_grants(sid, until, now).await?;
        end_session(ctx, sid, now).await?;
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
