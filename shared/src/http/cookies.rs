//! Cookies of the login pages: the browser-binding secret and the SSO session. Both are
//! `HttpOnly`, `SameSite=Lax`, scoped to the realm, and `Secure` unless the service runs on
//! plain HTTP (local development).

use crate::http::Request;
use crate::App;

/// The browser-binding secret (SECURITY.md Q1).
pub const BROWSER: &str = "scanid_browser";
/// The SSO session: `sid.secret`.
pub const SSO: &str = "scanid_session";

/// The value of cookie `name`, if the request carries it once.
pub fn get(req: &Request, name: &str) -> Option<String> {
    let mut found = None;
    for header in req.headers().get_all(http::header::COOKIE) {
        let Ok(text) = header.to_str() else { continue };
        for pair in text.split(';') {
            if let Some((k, v)) = pair.trim().split_once('=') {
                if k == name {
                    if found.is_some() {
                        return None;
                    }
                    found = Some(v.trim_matches('"').to_owned());
                }
            }
        }
    }
    found
}

/// A `Set-Cookie` value. `max_age` `None` makes a browser-session cookie.
pub fn set(app: &App, name: &str, value: &str, max_age: Option<i64>) -> String {
    let mut c = format!(
        "{name}={value}; Path=/realms/{}/; HttpOnly; SameSite=Lax",
        app.settings.realm
    );
    if app.settings.secure_cookies() {
        c.push_str("; Secure");
    }
    if let Some(s) = max_age {
        c.push_str(&format!("; Max-Age={s}"));
    }
    c
}

/// A `Set-Cookie` value that deletes the cookie.
pub fn clear(app: &App, name: &str) -> String {
    set(app, name, "", Some(0))
}
