//! Cookies of the login pages: the browser binding of each QR login and the SSO session.
//!
//! The one place cookie names and attributes are decided, so none can be weaker than this:
//! `HttpOnly`, `SameSite=Lax`, and on https `Secure` with the `__Host-` prefix and `Path=/`
//! (the browser then refuses the cookie from a sibling subdomain or over plain HTTP, so it
//! cannot be planted). On plain HTTP (local development) the names have no prefix and the
//! cookies are scoped to the realm.
//!
//! A browser-binding value is only ever issued by the server: each QR login gets a fresh
//! random secret in a cookie named after that login (docs/requirements.md Q1). A value the request
//! brings is never adopted, so an attacker who plants a cookie binds nothing.

use crate::Context;
use crate::Request;

/// The SSO session cookie's base name; its value is `sid.secret`.
const SSO: &str = "scanid_session";
/// The base name of a QR login's browser-binding cookie: `scanid_login_{login id}`.
const LOGIN: &str = "scanid_login_";
/// The SSO session's public id (`session_state`), readable by the login-status iframe (OIDC
/// Session Management; Keycloak's `KEYCLOAK_SESSION`). Not a secret: it proves nothing.
const SESSION_STATE: &str = "scanid_session_state";
/// The secret the device code form's anti-CSRF token is bound to (`{issuer}/device`).
const DEVICE_FORM: &str = "scanid_device_form";

fn prefixed(ctx: &Context, base: &str) -> String {
    if ctx.settings.secure_cookies() {
        format!("__Host-{base}")
    } else {
        base.to_owned()
    }
}

/// The SSO session cookie's name.
pub(crate) fn sso(ctx: &Context) -> String {
    prefixed(ctx, SSO)
}

/// The browser-binding cookie's name for the QR login `login_id`.
pub(crate) fn login(ctx: &Context, login_id: &str) -> String {
    prefixed(ctx, &format!("{LOGIN}{login_id}"))
}

/// The cookie that remembers the language picked on a page ([`crate::i18n::COOKIE`]).
pub(crate) fn locale(ctx: &Context) -> String {
    prefixed(ctx, crate::i18n::COOKIE)
}

/// The device code form's cookie name.
pub(crate) fn device_form(ctx: &Context) -> String {
    prefixed(ctx, DEVICE_FORM)
}

/// The value of cookie `name`, if the request carries it exactly once.
pub(crate) fn get(req: &Request, name: &str) -> Option<String> {
    let mut found = None;
    for header in req.headers().get_all(http::header::COOKIE) {
        let Ok(text) = header.to_str() else { continue };
        if let Some(v) = parse(text, name) {
            match v {
                Some(v) if found.is_none() => found = Some(v),
                _ => return None,
            }
        }
    }
    found
}

/// Looks for `name` in one `Cookie` header: `None` when absent, `Some(None)` when repeated,
/// `Some(Some(value))` when present once.
pub(crate) fn parse(header: &str, name: &str) -> Option<Option<String>> {
    let mut found: Option<Option<String>> = None;
    for pair in header.split(';') {
        if let Some((k, v)) = pair.trim().split_once('=') {
            if k == name {
                found = Some(match found {
                    None => Some(v.trim_matches('"').to_owned()),
                    Some(_) => None,
                });
            }
        }
    }
    found
}

/// A `Set-Cookie` value for `name` (a name from [`sso`] or [`login`]). `max_age` `None` makes
/// a browser-session cookie.
pub(crate) fn set(ctx: &Context, name: &str, value: &str, max_age: Option<i64>) -> String {
    let mut c = if ctx.settings.secure_cookies() {
        format!("{name}={value}; Path=/; HttpOnly; SameSite=Lax; Secure")
    } else {
        format!(
            "{name}={value}; Path=/realms/{}/; HttpOnly; SameSite=Lax",
            ctx.settings.realm
        )
    };
    if let Some(s) = max_age {
        c.push_str(&format!("; Max-Age={s}"));
    }
    c
}

/// The session-state cookie's name.
pub(crate) fn session_state(ctx: &Context) -> String {
    prefixed(ctx, SESSION_STATE)
}

/// The session-state cookie for SSO session `sid`: readable by script (the login-status iframe
/// compares it with the relying party's `session_state`), and on https sent in third-party
/// frames too (`SameSite=None`), as that iframe is one.
pub(crate) fn set_session_state(ctx: &Context, sid: &str) -> String {
    if ctx.settings.secure_cookies() {
        format!(
            "{}={sid}; Path=/; SameSite=None; Secure",
            session_state(ctx)
        )
    } else {
        format!(
            "{}={sid}; Path=/realms/{}/; SameSite=Lax",
            session_state(ctx),
            ctx.settings.realm
        )
    }
}

/// A `Set-Cookie` value that deletes the cookie.
pub(crate) fn clear(ctx: &Context, name: &str) -> String {
    set(ctx, name, "", Some(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_finds_one_and_refuses_repeats() {
        assert_eq!(parse("a=1; b=2", "b"), Some(Some("2".into())));
        assert_eq!(parse("a=1; b=\"2\"", "b"), Some(Some("2".into())));
        assert_eq!(parse("a=1", "b"), None);
        assert_eq!(parse("b=1; b=2", "b"), Some(None));
        assert_eq!(parse("bb=1; b", "b"), None);
        assert_eq!(parse("", "b"), None);
    }
}
