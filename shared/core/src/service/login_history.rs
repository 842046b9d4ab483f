//! The identity's recent logins (app protocol §4), as every way of logging in adds to them:
//! a QR login decided or cancelled on the phone, a passkey sign-in on the login page, a login
//! through an SSO session. Best effort: the login stands whatever happens here.

use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::identity::{ListedSession, LoginActivity};
use crate::domain::login::{sid_of_login, CancelReason, QrLogin, Scanner};
use crate::domain::ratelimit::Source;
use crate::geoip;
use crate::service::assessment::Assessment;
use crate::store::{ClientStore, IdentityStore};

/// The identity that scanned `login` first, if it proved itself.
pub(crate) fn first_scanner(login: &QrLogin) -> Option<&str> {
    match &login.scanned_by {
        Some(Scanner::Identity(sub)) => Some(sub.as_str()),
        _ => None,
    }
}

/// A login was cancelled (and written so): the audit line, and the recent logins of `first`,
/// the identity whose login it was (the first scanner, or the one that named a wrong number).
pub(crate) async fn cancelled(
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

/// Adds the decided login to the identity's recent logins, with where it came from (an
/// approved login's place joins the identity's places). The decision stands whatever
/// happens here: a failure is logged, not answered.
pub(crate) async fn remember_login(
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
    // An approved QR login starts its SSO session when it completes ([`sid_of_login`]): the
    // session is listed now, in this write, so ending the identity's sessions finds it. It
    // may start until the login expires, and lives at most the SSO maximum from then.
    let session = (outcome == "approved" && login.device_grant.is_none()).then(|| ListedSession {
        sid: sid_of_login(&login.id).to_string(),
        until: login
            .expires_at
            .plus_secs(ctx.settings.lifetimes.sso_max)
            .secs(),
    });
    let session = session.as_ref();
    let recorded = match assessment.and_then(|a| a.history.as_ref()) {
        Some(read) => {
            ctx.store
                .record_login_after(sub, entry, session, read, now)
                .await
        }
        None => ctx.store.record_login(sub, entry, session, now).await,
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
    if let Err(e) = ctx.store.record_login(sub, entry, None, now).await {
        tracing::warn!(error = %e, "recording an SSO login in the identity's recent logins");
    }
}
