//! RP-initiated logout's decision (OIDC RP-Initiated Logout 1.0 §2-§3; docs/requirements.md B3's rule
//! applied to logout): when may a request end the browser's SSO session without asking?
//!
//! * Only a session the browser itself holds (its cookie) can be ended. An `id_token_hint`
//!   names a session but never ends one on its own.
//! * Without asking only when the hint's `sid` and `sub` are the browser's session: then the
//!   relying party that logged this very session in is asking.
//! * Otherwise the person confirms on our page; the confirmation's POST carries an anti-CSRF
//!   token derived from the SSO cookie, so a cross-site form cannot log anyone out.

use crate::domain::login;

/// What the `id_token_hint` says (signature verified; expiry ignored, as the spec allows).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    /// The hint's `sid`, if any.
    pub sid: Option<String>,
    /// The hint's `sub`, if any.
    pub sub: Option<String>,
}

/// The browser's live SSO session.
#[derive(Clone, PartialEq, Eq)]
pub struct BrowserSession<'a> {
    /// The session's id.
    pub sid: &'a str,
    /// Who is logged in.
    pub sub: &'a str,
    /// The SSO cookie's whole value (the CSRF token derives from it).
    pub cookie: &'a str,
}

/// Never prints the cookie.
impl std::fmt::Debug for BrowserSession<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrowserSession")
            .field("sid", &self.sid)
            .field("sub", &self.sub)
            .finish_non_exhaustive()
    }
}

/// What to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogoutDecision {
    /// The browser holds no session: nothing to end; finish (redirect or "logged out").
    NothingToEnd,
    /// End this SSO session, then finish.
    End {
        /// The session to end.
        sid: String,
    },
    /// Ask the person; the form carries this anti-CSRF token.
    Confirm {
        /// The form's anti-CSRF token.
        csrf: String,
    },
    /// A POST without the confirmation page's token: refuse (403), end nothing.
    Refuse,
}

/// The confirmation form's anti-CSRF token for the SSO cookie `cookie`.
pub fn csrf_token(cookie: &str) -> String {
    login::hash(&format!("logout-csrf:{cookie}"))
}

/// Decides a logout request. `presented_csrf` is the form's token on a POST (`None` on a GET).
pub fn decide(
    hint: Option<&Hint>,
    session: Option<&BrowserSession<'_>>,
    is_post: bool,
    presented_csrf: Option<&str>,
) -> LogoutDecision {
    let Some(s) = session else {
        return LogoutDecision::NothingToEnd;
    };
    let hint_matches =
        hint.is_some_and(|h| h.sid.as_deref() == Some(s.sid) && h.sub.as_deref() == Some(s.sub));
    if hint_matches {
        return LogoutDecision::End {
            sid: s.sid.to_owned(),
        };
    }
    let expected = csrf_token(s.cookie);
    if is_post {
        let ok = presented_csrf.is_some_and(|p| {
            aws_lc_rs::constant_time::verify_slices_are_equal(p.as_bytes(), expected.as_bytes())
                .is_ok()
        });
        if ok {
            LogoutDecision::End {
                sid: s.sid.to_owned(),
            }
        } else {
            LogoutDecision::Refuse
        }
    } else {
        LogoutDecision::Confirm { csrf: expected }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COOKIE: &str = "sid-1.secret";

    fn session() -> BrowserSession<'static> {
        BrowserSession {
            sid: "sid-1",
            sub: "alice",
            cookie: COOKIE,
        }
    }

    fn hint(sid: &str, sub: &str) -> Hint {
        Hint {
            sid: Some(sid.into()),
            sub: Some(sub.into()),
        }
    }

    #[test]
    fn a_matching_hint_ends_the_browsers_session_at_once() {
        let d = decide(Some(&hint("sid-1", "alice")), Some(&session()), false, None);
        assert_eq!(
            d,
            LogoutDecision::End {
                sid: "sid-1".into()
            }
        );
    }

    #[test]
    fn a_foreign_hint_asks_and_ends_nothing() {
        for h in [
            hint("sid-2", "mallory"),
            hint("sid-1", "mallory"),
            hint("sid-2", "alice"),
            Hint {
                sid: None,
                sub: Some("alice".into()),
            },
        ] {
            let d = decide(Some(&h), Some(&session()), false, None);
            assert_eq!(
                d,
                LogoutDecision::Confirm {
                    csrf: csrf_token(COOKIE)
                },
                "{h:?}"
            );
        }
    }

    #[test]
    fn a_post_needs_the_confirmation_token() {
        let s = session();
        assert_eq!(decide(None, Some(&s), true, None), LogoutDecision::Refuse);
        assert_eq!(
            decide(None, Some(&s), true, Some("x")),
            LogoutDecision::Refuse
        );
        assert_eq!(
            decide(None, Some(&s), true, Some(&csrf_token("other.cookie"))),
            LogoutDecision::Refuse
        );
        assert_eq!(
            decide(Some(&hint("sid-2", "mallory")), Some(&s), true, None),
            LogoutDecision::Refuse
        );
        assert_eq!(
            decide(None, Some(&s), true, Some(&csrf_token(COOKIE))),
            LogoutDecision::End {
                sid: "sid-1".into()
            }
        );
    }

    #[test]
    fn without_a_session_nothing_is_ended() {
        for post in [false, true] {
            assert_eq!(
                decide(Some(&hint("sid-1", "alice")), None, post, None),
                LogoutDecision::NothingToEnd
            );
        }
    }
}
