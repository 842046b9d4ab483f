//! SSO sessions as several use cases need them: the live session a browser's cookie proves,
//! and the end of a session (its non-offline tokens die at once; its clients are told by
//! OIDC Back-Channel Logout 1.0), of one or of every session of an identity.

use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::login::{self, SsoSession};
use crate::store::typed::Versioned;
use crate::store::{IdentityStore, QrLogins, SsoSessions, StoreError};

/// A live SSO session from the cookie, if the cookie proves one and its identity may log in.
pub async fn sso_session(
    ctx: &Context,
    cookie: Option<&str>,
    now: Timestamp,
) -> Result<Option<Versioned<SsoSession>>, StoreError> {
    let Some((sid, secret)) = cookie.and_then(SsoSession::parse_cookie) else {
        return Ok(None);
    };
    let Some(s) = ctx.store.sso_session(sid, now).await? else {
        return Ok(None);
    };
    if !login::hash_matches(secret, &s.value.secret_hash) {
        return Ok(None);
    }
    match ctx.store.identity(&s.value.sub, now).await? {
        // A session from before the identity ended every session (a replaced key) vouches
        // for nobody, should it still be there.
        Some((i, _))
            if !i.disabled
                && i.tokens_not_before
                    .is_none_or(|nb| s.value.auth_time.millis() >= nb.millis()) =>
        {
            Ok(Some(s))
        }
        _ => Ok(None),
    }
}

/// Ends every remembered SSO session of identity `sub` (it was disabled or deleted) and tells
/// their clients. Returns how many sessions were still live.
pub async fn end_sessions_of(
    ctx: &Context,
    sub: &str,
    now: Timestamp,
) -> Result<usize, StoreError> {
    let mut ended = 0;
    for sid in ctx.store.identity_sessions(sub, now).await? {
        if let Some(s) = ctx.store.sso_session(&sid, now).await? {
            end_known_session(ctx, &s.value, now).await?;
            ended += 1;
        }
    }
    ctx.store.forget_identity_sessions(sub, now).await?;
    Ok(ended)
}

/// Ends the SSO session `sid` (its non-offline tokens become inactive at once) and tells the
/// clients that took part in it (OIDC Back-Channel Logout 1.0).
pub async fn end_session(ctx: &Context, sid: &str, now: Timestamp) -> Result<(), StoreError> {
    match ctx.store.sso_session(sid, now).await? {
        Some(s) => end_known_session(ctx, &s.value, now).await,
        None => Ok(()),
    }
}

/// As [`end_session`], for a session the caller has read already.
pub async fn end_known_session(
    ctx: &Context,
    session: &SsoSession,
    now: Timestamp,
) -> Result<(), StoreError> {
    ctx.store.end_sso_session(&session.sid, now).await?;
    close_its_login(ctx, session, now).await?;
    crate::backchannel::notify(ctx, session, now).await;
    Ok(())
}

/// Records that `client_id` took part in the SSO session `sid` (who back-channel logout tells
/// when it ends). Best effort after the code was issued: a failure only means that client is
/// not told.
pub async fn note_client(ctx: &Context, sid: &str, client_id: &str, now: Timestamp) {
    if let Err(e) = ctx.store.add_session_client(sid, client_id, now).await {
        tracing::warn!(error = %e, "recording a session's client failed");
    }
}

/// Records the new SSO session `sid` under its identity, so disabling the identity can end it
/// (and tell its clients). Best effort, like [`note_client`].
pub async fn note_session(ctx: &Context, sub: &str, sid: &str, now: Timestamp) {
    let expires = now.plus_secs(ctx.settings.lifetimes.sso_max).secs();
    if let Err(e) = ctx
        .store
        .remember_identity_session(sub, sid, expires, now)
        .await
    {
        tracing::warn!(error = %e, "recording an identity's session failed");
    }
}

/// The QR login that started `session`, closed if it is still approved (a session ended
/// while its login lives): the session's write is what completes a login once (issue 41), so
/// with the session gone the login could otherwise be completed again by its browser.
async fn close_its_login(
    ctx: &Context,
    session: &SsoSession,
    now: Timestamp,
) -> Result<(), StoreError> {
    let Some(id) = session.login.as_deref() else {
        return Ok(());
    };
    // Only a login that may still live is read (a device authorization's link is no login).
    let lived = now.secs() - session.created_at.secs() <= ctx.settings.lifetimes.login + 60;
    if !lived || id.starts_with("device:") {
        return Ok(());
    }
    if let Some(l) = ctx.store.qr_login(id, now).await? {
        if matches!(l.value.status, login::LoginStatus::Approved { .. }) {
            ctx.store.close_qr_login(&l, now).await?;
        }
    }
    Ok(())
}
