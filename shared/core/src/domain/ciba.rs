//! OpenID Client-Initiated Backchannel Authentication (CIBA Core 1.0), poll mode: a client
//! (a call centre, a till, an agent) asks scanid to have a person approve a login on their
//! phone; the person sees the request in the scanid app and approves it with the same screen
//! and the same proof as a QR login; the client polls the token endpoint with the
//! `auth_req_id` (`urn:openid:params:grant-type:ciba`).
//!
//! A backchannel request is stored as a device authorization (RFC 8628, its polling and its
//! `slow_down` are the same) that carries a [`Backchannel`]: who is asked and the binding
//! message. It has no user code: only the person's app finds it (their pending requests).
//!
//! No directory oracle: a hint that names nobody (an unknown name, one that names two
//! identities, a disabled identity) starts a request all the same, which no phone sees; the
//! client polls `authorization_pending` until it expires (`expired_token`), exactly what it
//! gets from a known person who never answers. Refusal (`access_denied`) comes only from the
//! person.

use serde::{Deserialize, Serialize};

use crate::domain::discovery::SCOPES;
use crate::protocol::{OAuthError, OAuthErrorCode, Params, Scopes, Subject};

/// The longest binding message, in characters (CIBA Core §7.1: "relatively small").
pub const BINDING_MESSAGE_MAX_CHARS: usize = 64;
/// The shortest life a client may ask for (`requested_expiry`), seconds.
pub const MIN_EXPIRY_SECS: i64 = 2;
/// The longest `login_hint` read, bytes.
const MAX_HINT_LEN: usize = 256;
/// The most pending requests an identity's list keeps (the per-person limit bounds it first).
pub const MAX_PENDING: usize = 20;

/// What a device authorization that stands for a backchannel request adds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Backchannel {
    /// The person asked; `None` when the hint named nobody (the request then waits and
    /// expires as one its person never answers).
    pub sub: Option<Subject>,
    /// Shown on the phone, and nowhere else.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding_message: Option<String>,
    /// Ping mode: what the client is told with once the person decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ping: Option<Ping>,
    /// Asked by an agent (a client allowed token exchange): approving is the person's
    /// delegation to it (RFC 8693, [`crate::domain::delegation`]), recorded as its consent
    /// page's would be.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub delegation: bool,
    /// The resource servers (RFC 8707 `resource`) the agent asks to act at: the delegation
    /// covers them, as a consent page's resources.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<String>,
}

/// What a ping mode request keeps until it is decided (CIBA Core §10.2): the client's bearer
/// token for its notification endpoint, and the `auth_req_id` the notification names (a
/// poll mode request keeps only its hash).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ping {
    /// `client_notification_token`.
    pub token: String,
    /// The request's `auth_req_id`.
    pub auth_req_id: String,
}

/// Never prints the token or the id.
impl std::fmt::Debug for Ping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ping").finish_non_exhaustive()
    }
}

/// The longest `client_notification_token` (CIBA Core §7.1: 1024 characters at most).
const MAX_NOTIFICATION_TOKEN: usize = 1024;

/// A ping client's `client_notification_token` (CIBA Core §7.1): required, an RFC 6750
/// `b64token` of at most 1024 characters.
pub fn notification_token(t: Option<&str>) -> Result<String, OAuthError> {
    let t =
        t.ok_or_else(|| invalid("client_notification_token is required of a ping mode client"))?;
    let body = t.trim_end_matches('=');
    let ok = t.len() <= MAX_NOTIFICATION_TOKEN
        && !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b));
    if !ok {
        return Err(invalid(
            "client_notification_token: a bearer token (RFC 6750 b64token) of at most 1024 characters",
        ));
    }
    Ok(t.to_owned())
}

/// How the client names the person (CIBA Core §7.1: exactly one hint).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hint<'a> {
    /// `login_hint`: the identity's directory name or its `service_id`.
    Login(&'a str),
    /// `id_token_hint`: an ID token scanid issued to this client.
    IdToken(&'a str),
}

/// A backchannel authentication request as read from its form (client authentication is
/// read separately).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackchannelRequest<'a> {
    /// The scopes asked for (the ones scanid understands; `openid` among them).
    pub scopes: Scopes,
    /// Who is asked.
    pub hint: Hint<'a>,
    /// `binding_message`, checked.
    pub binding_message: Option<String>,
    /// `requested_expiry`, seconds, when given.
    pub requested_expiry: Option<i64>,
    /// `client_notification_token`, as sent (a ping client's is checked by
    /// [`notification_token`]).
    pub client_notification_token: Option<&'a str>,
    /// `resource` (RFC 8707), each value as sent: an agent's delegation request names the
    /// resource servers it asks to act at ([`delegation_resources`]).
    pub resources: Vec<&'a str>,
}

fn invalid(d: &'static str) -> OAuthError {
    OAuthError::invalid_request(d)
}

/// Reads a backchannel authentication request (CIBA Core §7.1, §13).
pub fn read(params: &Params) -> Result<BackchannelRequest<'_>, OAuthError> {
    let one = |n: &'static str| {
        params
            .one(n)
            .map_err(|_| invalid("a parameter is repeated"))
    };
    if one("request")?.is_some() {
        return Err(invalid(
            "signed authentication requests (request) are not supported: send the parameters in the form",
        ));
    }
    let scope = one("scope")?.unwrap_or("");
    if !scope.split(' ').any(|s| s == "openid") {
        return Err(OAuthError::new(
            OAuthErrorCode::InvalidScope,
            "scope must contain openid",
        ));
    }
    if one("user_code")?.is_some() {
        return Err(invalid(
            "user_code is not supported (backchannel_user_code_parameter_supported is false)",
        ));
    }
    let hint = hint(
        one("login_hint")?,
        one("id_token_hint")?,
        one("login_hint_token")?,
    )?;
    let binding_message = one("binding_message")?.map(binding_message).transpose()?;
    let requested_expiry = match one("requested_expiry")? {
        None => None,
        Some(v) => Some(
            v.parse::<i64>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| invalid("requested_expiry must be a positive integer"))?,
        ),
    };
    Ok(BackchannelRequest {
        scopes: Scopes::supported(scope, SCOPES),
        hint,
        binding_message,
        requested_expiry,
        client_notification_token: one("client_notification_token")?,
        resources: params.all("resource"),
    })
}

/// The resource servers a backchannel request's delegation covers: only an agent's request
/// (a client allowed token exchange, whose approval is a delegation) may name any, each one
/// a registered resource server (RFC 8707), as at the authorization endpoint.
pub fn delegation_resources(
    asked: &[&str],
    agent: bool,
    registered: &[String],
) -> Result<Vec<String>, OAuthError> {
    let target = |d: &'static str| OAuthError::new(OAuthErrorCode::InvalidTarget, d);
    if asked.is_empty() {
        return Ok(Vec::new());
    }
    if !agent {
        return Err(target(
            "resource: only an agent's request (a client allowed token exchange) names resource servers",
        ));
    }
    let asked: Vec<String> = asked.iter().map(|r| (*r).to_owned()).collect();
    crate::domain::resource_indicator::at_authorization(&asked, registered)
        .map_err(|e| target(e.description()))
}

/// Exactly one hint. `login_hint_token` is refused: CIBA defines no format for it, and a
/// token scanid cannot verify would name whoever its sender chose.
fn hint<'a>(
    login: Option<&'a str>,
    id_token: Option<&'a str>,
    token: Option<&'a str>,
) -> Result<Hint<'a>, OAuthError> {
    match (login, id_token, token) {
        (None, None, Some(_)) => Err(invalid(
            "login_hint_token is not supported: name the person with login_hint (their name or service_id) or id_token_hint",
        )),
        (Some(h), None, None) if h.len() <= MAX_HINT_LEN => Ok(Hint::Login(h)),
        (Some(_), None, None) => Err(invalid("login_hint is too long")),
        (None, Some(t), None) => Ok(Hint::IdToken(t)),
        (None, None, None) => Err(invalid(
            "one hint is required: login_hint or id_token_hint",
        )),
        _ => Err(invalid("exactly one hint: login_hint or id_token_hint")),
    }
}

/// A binding message the phone can show as it is: 1 to 64 characters of letters, digits,
/// single spaces inside and common punctuation (no control or formatting characters, which
/// could hide or reorder what the person reads).
pub fn binding_message(m: &str) -> Result<String, OAuthError> {
    let bad = |d: &'static str| OAuthError::new(OAuthErrorCode::InvalidBindingMessage, d);
    let n = m.chars().count();
    if n == 0 || n > BINDING_MESSAGE_MAX_CHARS {
        return Err(bad("binding_message: 1 to 64 characters"));
    }
    if m.trim() != m || m.contains("  ") {
        return Err(bad(
            "binding_message: no leading, trailing or double spaces",
        ));
    }
    let allowed = |c: char| c.is_alphanumeric() || c == ' ' || "-_.,:;!?#+*/()'@&%=".contains(c);
    if !m.chars().all(allowed) {
        return Err(bad(
            "binding_message: letters, digits, spaces and - _ . , : ; ! ? # + * / ( ) ' @ & % = only",
        ));
    }
    Ok(m.to_owned())
}

/// The request's life: what the client asked for, within [`MIN_EXPIRY_SECS`] and `max`
/// (the default when it asked for nothing).
pub fn expiry(requested: Option<i64>, max: i64) -> i64 {
    requested.map_or(max, |r| r.clamp(MIN_EXPIRY_SECS.min(max), max))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> Params {
        Params::from_pairs(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        )
    }

    fn refused(pairs: &[(&str, &str)]) -> (OAuthErrorCode, String) {
        let p = params(pairs);
        let e = read(&p).unwrap_err();
        (e.error, e.error_description.into_owned())
    }

    #[test]
    fn a_minimal_and_a_full_request() {
        let p = params(&[("scope", "openid"), ("login_hint", "alice")]);
        let r = read(&p).unwrap();
        assert_eq!(r.hint, Hint::Login("alice"));
        assert_eq!(r.scopes.to_vec(), vec!["openid".to_owned()]);
        let p = params(&[
            ("scope", "openid profile bogus"),
            ("id_token_hint", "e.y.j"),
            ("binding_message", "Till 4: order #1234"),
            ("requested_expiry", "120"),
        ]);
        let r = read(&p).unwrap();
        assert_eq!(r.hint, Hint::IdToken("e.y.j"));
        assert_eq!(r.scopes.to_vec(), vec!["openid", "profile"]);
        assert_eq!(r.binding_message.as_deref(), Some("Till 4: order #1234"));
        assert_eq!(r.requested_expiry, Some(120));
    }

    #[test]
    fn only_an_agents_request_names_registered_resource_servers() {
        let reg = vec!["https://api.example/v1".to_owned()];
        let ok = delegation_resources(&["https://api.example/v1"], true, &reg).unwrap();
        assert_eq!(ok, reg);
        assert!(delegation_resources(&[], false, &reg).unwrap().is_empty());
        let e = delegation_resources(&["https://api.example/v1"], false, &reg).unwrap_err();
        assert_eq!(e.error, OAuthErrorCode::InvalidTarget);
        let e = delegation_resources(&["https://other.example/"], true, &reg).unwrap_err();
        assert_eq!(e.error, OAuthErrorCode::InvalidTarget);
    }

    #[test]
    fn each_refusal_says_why() {
        let ok = [("scope", "openid"), ("login_hint", "alice")];
        assert_eq!(
            refused(&[("login_hint", "a")]).0,
            OAuthErrorCode::InvalidScope
        );
        assert_eq!(
            refused(&[("scope", "profile"), ("login_hint", "a")]).0,
            OAuthErrorCode::InvalidScope
        );
        assert!(refused(&[("scope", "openid")]).1.contains("one hint"));
        assert!(refused(&[("scope", "openid"), ("login_hint_token", "x")])
            .1
            .contains("login_hint_token is not supported"));
        assert!(refused(&[
            ("scope", "openid"),
            ("login_hint", "a"),
            ("id_token_hint", "b")
        ])
        .1
        .contains("exactly one"));
        let with = |k: &'static str, v: &'static str| {
            let mut p = ok.to_vec();
            p.push((k, v));
            refused(&p)
        };
        // An empty value is an absent one (as for every parameter).
        assert_eq!(
            with("binding_message", "\u{7}").0,
            OAuthErrorCode::InvalidBindingMessage
        );
        assert_eq!(
            with("binding_message", "line\nbreak").0,
            OAuthErrorCode::InvalidBindingMessage
        );
        assert_eq!(
            with("binding_message", "right\u{202e}left").0,
            OAuthErrorCode::InvalidBindingMessage
        );
        assert_eq!(
            with("binding_message", " padded").0,
            OAuthErrorCode::InvalidBindingMessage
        );
        assert_eq!(
            refused(&[
                ("scope", "openid"),
                ("login_hint", "a"),
                ("binding_message", &"x".repeat(65))
            ])
            .0,
            OAuthErrorCode::InvalidBindingMessage
        );
        assert!(with("requested_expiry", "0").1.contains("positive"));
        assert!(with("requested_expiry", "soon").1.contains("positive"));
        assert!(with("user_code", "1234").1.contains("user_code"));
        assert!(with("request", "e.y.j").1.contains("signed"));
        assert_eq!(
            refused(&[("scope", "openid"), ("login_hint", &"a".repeat(300))]).0,
            OAuthErrorCode::InvalidRequest
        );
    }

    #[test]
    fn binding_messages_in_any_script_are_shown_as_sent() {
        for m in [
            "Заказ 42",
            "注文 42",
            "طلب ٤٢",
            "Order A-17 (£12.50?)".replace('£', "").as_str(),
        ] {
            assert_eq!(binding_message(m).unwrap(), m);
        }
        assert!(binding_message(&"é".repeat(64)).is_ok());
        assert!(binding_message(&"é".repeat(65)).is_err());
    }

    #[test]
    fn a_notification_token_is_a_bearer_token() {
        assert_eq!(
            notification_token(Some("abc-._~+/==")).unwrap(),
            "abc-._~+/=="
        );
        assert!(notification_token(None).is_err());
        assert!(notification_token(Some("a b")).is_err());
        assert!(notification_token(Some("==")).is_err());
        assert!(notification_token(Some(&"a".repeat(1025))).is_err());
    }

    #[test]
    fn the_expiry_is_what_was_asked_within_bounds() {
        assert_eq!(expiry(None, 600), 600);
        assert_eq!(expiry(Some(120), 600), 120);
        assert_eq!(expiry(Some(1), 600), MIN_EXPIRY_SECS);
        assert_eq!(expiry(Some(86_400), 600), 600);
    }
}
