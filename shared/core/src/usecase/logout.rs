//! RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0): checks the request, asks the
//! domain ([`crate::domain::logout::decide`]) whether to end the browser's SSO session, ask
//! first, or refuse, and ends the session (telling its clients) when the decision says so.

use serde::Deserialize;

use crate::audit::{Audit, Event};
use crate::context::Context;
use crate::domain::logout::{self, BrowserSession, Hint, LogoutDecision};
use crate::keys::jwt;
use crate::protocol::Secret;
use crate::service::sessions::{self, sso_session};
use crate::store::{ClientStore, StoreError};

/// What a logout reads from an `id_token_hint` (any token of ours verifies into it; only an
/// ID token is accepted).
#[derive(Debug, Deserialize)]
struct HintClaims {
    typ: Option<String>,
    sub: Option<String>,
    sid: Option<String>,
    aud: Option<String>,
}

/// A logout request as the browser sent it.
#[derive(Default)]
pub struct LogoutRequest<'a> {
    /// `id_token_hint`.
    pub id_token_hint: Option<&'a str>,
    /// `client_id`.
    pub client_id: Option<&'a str>,
    /// `post_logout_redirect_uri`.
    pub post_logout_redirect_uri: Option<&'a str>,
    /// `state`.
    pub state: Option<&'a str>,
    /// The confirmation form's anti-CSRF token (POST only).
    pub csrf: Option<&'a str>,
    /// Whether the browser POSTed (the confirmation form does).
    pub is_post: bool,
    /// The SSO cookie's value.
    pub sso_cookie: Option<&'a str>,
    /// Where the request came from (for the audit log).
    pub source: &'a str,
}

/// Never prints the SSO cookie, the hint or the anti-CSRF token.
impl std::fmt::Debug for LogoutRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogoutRequest")
            .field("client_id", &self.client_id)
            .field("post_logout_redirect_uri", &self.post_logout_redirect_uri)
            .field("state", &self.state)
            .field("is_post", &self.is_post)
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

/// Why a logout request is not valid (an error page says so; nothing is ended).
#[derive(Debug, thiserror::Error)]
pub enum LogoutError {
    /// A request the specification refuses (the text says why).
    #[error("{0}")]
    Invalid(&'static str),
    /// The store failed.
    #[error("store")]
    Store(#[from] StoreError),
}

/// What happened.
#[derive(Debug, PartialEq, Eq)]
pub enum LogoutOutcome {
    /// Ask the person first: a confirmation page whose form carries these values.
    Confirm {
        /// The confirmation form's anti-CSRF token.
        csrf: Secret,
        /// `post_logout_redirect_uri`, posted back.
        post_logout_redirect_uri: Option<String>,
        /// `state`, posted back.
        state: Option<String>,
        /// `client_id`, posted back.
        client_id: Option<String>,
    },
    /// A POST without the confirmation page's token: nothing was ended.
    Refused,
    /// Logged out (or there was nothing to end): go to `redirect` (the registered
    /// `post_logout_redirect_uri` with `state`), or show "logged out".
    Done {
        /// Where to send the browser, if anywhere.
        redirect: Option<String>,
    },
}

/// Handles one logout request.
pub async fn logout(ctx: &Context, r: &LogoutRequest<'_>) -> Result<LogoutOutcome, LogoutError> {
    let now = ctx.clock.now();
    let hint = match r.id_token_hint {
        Some(h) => Some(
            jwt::verify_ignoring_expiry::<HintClaims>(
                &*ctx.keyring().await,
                h,
                &ctx.settings.issuer(),
            )
            .map_err(|_| {
                LogoutError::Invalid("The id_token_hint is not a token of this service.")
            })?,
        ),
        None => None,
    };
    // Only an ID token is a hint: an access or refresh token also names the session, but may
    // be held by a resource server or leak from one.
    if hint
        .as_ref()
        .is_some_and(|h| h.typ.as_deref() != Some("ID"))
    {
        return Err(LogoutError::Invalid(
            "The id_token_hint is not an ID token.",
        ));
    }
    let client_id = match (r.client_id, hint.as_ref().and_then(|h| h.aud.clone())) {
        (Some(a), Some(b)) if a != b => {
            return Err(LogoutError::Invalid(
                "client_id does not match the id_token_hint.",
            ))
        }
        (a, b) => a.map(str::to_owned).or(b),
    };
    // A self-registered client's redirect is followed only once this request ended the
    // browser's session (see below).
    let (redirect, self_registered) =
        match registered_redirect(ctx, client_id.as_deref(), r.post_logout_redirect_uri, now)
            .await?
        {
            Some((uri, self_registered)) => (Some(uri), self_registered),
            None => (None, false),
        };
    let session = sso_session(ctx, r.sso_cookie, now).await?;
    let hint = hint.map(|h| Hint {
        sid: h.sid,
        sub: h.sub,
    });
    let browser = match (&session, r.sso_cookie) {
        (Some(s), Some(cookie)) => Some(BrowserSession {
            sid: &s.value.sid,
            sub: &s.value.sub,
            cookie,
        }),
        _ => None,
    };
    let csrf = if r.is_post { r.csrf } else { None };
    match logout::decide(hint.as_ref(), browser.as_ref(), r.is_post, csrf) {
        // Nothing ended, so nothing shows that this client's user is here: a client that
        // registered itself (anyone may, with any URI) gets no redirect out of it, or the
        // issuer would send any browser to any site with no session and no click (RFC 9700
        // §4.11.2). The person sees "logged out". The operator's clients: as the spec says.
        LogoutDecision::NothingToEnd if self_registered => {
            return Ok(LogoutOutcome::Done { redirect: None })
        }
        LogoutDecision::NothingToEnd => {}
        LogoutDecision::Refuse => return Ok(LogoutOutcome::Refused),
        LogoutDecision::Confirm { csrf } => {
            return Ok(LogoutOutcome::Confirm {
                csrf: Secret::new(csrf),
                post_logout_redirect_uri: redirect,
                state: r.state.map(str::to_owned),
                client_id,
            })
        }
        LogoutDecision::End { sid } => {
            // The decision ends the browser's own session, read above: no second read.
            match session.as_ref().filter(|s| s.value.sid == sid) {
                Some(s) => sessions::end_known_session(ctx, &s.value, now).await?,
                None => sessions::end_session(ctx, &sid, now).await?,
            }
            let sub = session.as_ref().map(|s| s.value.sub.as_str()).unwrap_or("");
            let mut a = Audit::new(Event::Logout).subject(sub).source(r.source);
            if let Some(c) = &client_id {
                a = a.client(c);
            }
            a.emit();
        }
    }
    Ok(LogoutOutcome::Done {
        redirect: redirect.map(|uri| with_state(&uri, r.state)),
    })
}

/// The `post_logout_redirect_uri` asked for, if any, when `client_id` registered it (else the
/// request is invalid), and whether that client registered itself.
async fn registered_redirect(
    ctx: &Context,
    client_id: Option<&str>,
    uri: Option<&str>,
    now: crate::clock::Timestamp,
) -> Result<Option<(String, bool)>, LogoutError> {
    let Some(uri) = uri else {
        return Ok(None);
    };
    let client = match client_id {
        Some(id) => ctx.store.client(id, now).await?.map(|(c, _)| c),
        None => None,
    };
    match client {
        Some(c) if c.post_logout_redirect_uris.iter().any(|u| u == uri) => {
            Ok(Some((uri.to_owned(), c.registration.is_some())))
        }
        _ => Err(LogoutError::Invalid(
            "post_logout_redirect_uri is not registered for this client.",
        )),
    }
}

/// `uri` with `state` added to its query.
fn with_state(uri: &str, state: Option<&str>) -> String {
    let mut location = uri.to_owned();
    if let Some(st) = state {
        location.push(if uri.contains('?') { '&' } else { '?' });
        location.push_str(
            &url::form_urlencoded::Serializer::new(String::new())
                .append_pair("state", st)
                .finish(),
        );
    }
    location
}
