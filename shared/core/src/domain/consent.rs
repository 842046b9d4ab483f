//! The consent step's decision (app protocol §5): given the QR login, whether its identity may
//! still log in, whether a remembered consent covers the request, and what the browser sent,
//! say what happens. No I/O: [`crate::usecase::login::consent`] reads, asks, and writes.

use crate::clock::Timestamp;
use crate::domain::login::{self, Consent, LoginStatus, QrLogin};

/// What the browser did on the consent step.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ConsentInput<'a> {
    /// Opened the consent page (GET).
    Open,
    /// Submitted the consent form (POST) with this anti-CSRF token and choice.
    Submit {
        /// The form's anti-CSRF token.
        csrf: Option<&'a str>,
        /// The button pressed (`allow` or `deny`).
        choice: Option<&'a str>,
    },
}

/// Never prints the anti-CSRF token.
impl std::fmt::Debug for ConsentInput<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Open => f.write_str("Open"),
            Self::Submit { choice, .. } => f
                .debug_struct("Submit")
                .field("choice", choice)
                .finish_non_exhaustive(),
        }
    }
}

/// Why the consent step cannot go on (an error page; nothing is written).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsentRefusal {
    /// The login expired.
    Expired,
    /// The login already ended with a redirect.
    AlreadyCompleted,
    /// The phone has not approved the login yet.
    NotApproved,
    /// The client that started the login no longer exists.
    UnknownClient,
    /// The form was not submitted from the consent page (B3).
    Forged,
    /// Neither allow nor deny.
    NoChoice,
}

/// The decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConsentDecision {
    /// An error page, nothing written.
    Refuse(ConsentRefusal),
    /// End the login with `access_denied`: `by_user` when the person chose deny on the
    /// consent page (else: denied on the phone, or the identity can no longer log in).
    Deny {
        /// Whether the person denied on the consent page.
        by_user: bool,
    },
    /// Show the consent page.
    Ask,
    /// Issue the code, remembering this consent if there is one.
    Complete {
        /// The consent to remember, if any.
        remember: Option<Consent>,
    },
}

/// What is known about the login when deciding.
#[derive(Debug, Clone, Copy, Default)]
pub struct Known {
    /// The approving identity exists and is not disabled.
    pub identity_live: bool,
    /// The client still exists (read on [`ConsentInput::Open`] only).
    pub client_exists: bool,
    /// A remembered consent covers the request.
    pub remembered: bool,
}

/// Decides the consent step for `login` at `now`; `browser_secret` is the login's
/// browser-binding secret (the CSRF token derives from it).
pub fn decide(
    login: &QrLogin,
    browser_secret: &str,
    known: Known,
    input: ConsentInput<'_>,
    now: Timestamp,
) -> ConsentDecision {
    use ConsentDecision::{Ask, Complete, Deny, Refuse};
    match &login.status {
        LoginStatus::Approved { .. } | LoginStatus::Pending if login.expired(now) => {
            return Refuse(ConsentRefusal::Expired)
        }
        LoginStatus::Approved { .. } => {}
        LoginStatus::Denied => return Deny { by_user: false },
        LoginStatus::Completed => return Refuse(ConsentRefusal::AlreadyCompleted),
        LoginStatus::Pending => return Refuse(ConsentRefusal::NotApproved),
    }
    if !known.identity_live {
        return Deny { by_user: false };
    }
    // OIDC Core 5.5.1: a request naming its subject (claims id_token.sub.value) ends for anyone
    // else with access_denied, never a token.
    if let LoginStatus::Approved { sub, .. } = &login.status {
        if !login.request.claims.accepts(sub) {
            return Deny { by_user: false };
        }
    }
    match input {
        ConsentInput::Open if !known.client_exists => Refuse(ConsentRefusal::UnknownClient),
        ConsentInput::Open if known.remembered => Complete { remember: None },
        ConsentInput::Open => Ask,
        ConsentInput::Submit { csrf, choice } => {
            let matches = |expected: String| {
                csrf.is_some_and(|p| {
                    aws_lc_rs::constant_time::verify_slices_are_equal(
                        p.as_bytes(),
                        expected.as_bytes(),
                    )
                    .is_ok()
                })
            };
            // The agent's page carries its own token: the form proves what the page said.
            let delegation = matches(delegation_csrf_token(browser_secret, &login.id));
            if !delegation && !matches(csrf_token(browser_secret, &login.id)) {
                return Refuse(ConsentRefusal::Forged);
            }
            match choice {
                Some("allow") => Complete {
                    remember: Some(Consent {
                        scopes: login.request.scopes.clone(),
                        granted_at: now,
                        claims: login.request.claims.all(),
                        resources: login.request.resources.clone(),
                        delegation,
                    }),
                },
                Some("deny") => Deny { by_user: true },
                _ => Refuse(ConsentRefusal::NoChoice),
            }
        }
    }
}

/// The anti-CSRF token of the consent form: bound to this browser's secret and the login
/// (docs/requirements.md B3); nothing to store.
pub fn csrf_token(browser_secret: &str, login_id: &str) -> String {
    login::hash(&format!("consent-csrf:{browser_secret}:{login_id}"))
}

/// The consent form's anti-CSRF token on an agent's page (one that said the agent may act for
/// the person): allowing with it is a delegation (RFC 8693 token exchange,
/// [`crate::domain::delegation`]). Another token than the plain one, so the consent records
/// what the page said without reading the client again.
pub fn delegation_csrf_token(browser_secret: &str, login_id: &str) -> String {
    login::hash(&format!("consent-csrf-agent:{browser_secret}:{login_id}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::authorize::{AuthorizationRequest, Prompt, ResponseMode};
    use crate::protocol::{ClientId, RedirectUri, Scopes, Subject};
    use crate::random::SeededRandom;

    const T0: Timestamp = Timestamp::from_secs(1_800_000_000);
    const SECRET: &str = "browser-secret";
    const LIVE: Known = Known {
        identity_live: true,
        client_exists: true,
        remembered: false,
    };

    fn login(status: LoginStatus) -> QrLogin {
        let req = AuthorizationRequest {
            client_id: ClientId::new("rp"),
            redirect_uri: RedirectUri::new("https://rp.example/cb"),
            response_mode: ResponseMode::Query,
            state: None,
            nonce: None,
            scopes: Scopes::from_stored(["openid", "profile"]),
            code_challenge: None,
            dpop_jkt: None,
            prompt: Prompt::default(),
            max_age: None,
            login_hint: None,
            ui_locales: None,
            resources: Vec::new(),
            claims: Default::default(),
        };
        let mut l = QrLogin::new(
            300,
            req,
            SECRET,
            "203.0.113.1".into(),
            "ua".into(),
            T0,
            &SeededRandom::new(7),
        );
        l.status = status;
        l
    }

    fn approved() -> QrLogin {
        login(LoginStatus::Approved {
            sub: Subject::new("alice"),
            auth_time: T0,
            approved_with: Default::default(),
        })
    }

    fn submit<'a>(csrf: &'a str, choice: &'a str) -> ConsentInput<'a> {
        ConsentInput::Submit {
            csrf: Some(csrf),
            choice: Some(choice),
        }
    }

    #[test]
    fn an_approved_login_asks_unless_a_remembered_consent_covers_it() {
        let l = approved();
        assert_eq!(
            decide(&l, SECRET, LIVE, ConsentInput::Open, T0),
            ConsentDecision::Ask
        );
        let remembered = Known {
            remembered: true,
            ..LIVE
        };
        assert_eq!(
            decide(&l, SECRET, remembered, ConsentInput::Open, T0),
            ConsentDecision::Complete { remember: None }
        );
    }

    #[test]
    fn allow_on_an_agents_page_records_a_delegation() {
        let l = approved();
        let agent = delegation_csrf_token(SECRET, &l.id);
        let ConsentDecision::Complete { remember: Some(c) } =
            decide(&l, SECRET, LIVE, submit(&agent, "allow"), T0)
        else {
            panic!("expected a remembered consent");
        };
        assert!(c.delegation);
        let plain = csrf_token(SECRET, &l.id);
        let ConsentDecision::Complete { remember: Some(c) } =
            decide(&l, SECRET, LIVE, submit(&plain, "allow"), T0)
        else {
            panic!("expected a remembered consent");
        };
        assert!(!c.delegation);
        // Another login's agent token is no token.
        let other = delegation_csrf_token(SECRET, "another-login");
        assert_eq!(
            decide(&l, SECRET, LIVE, submit(&other, "allow"), T0),
            ConsentDecision::Refuse(ConsentRefusal::Forged)
        );
    }

    #[test]
    fn allow_remembers_exactly_the_requested_scopes_at_now() {
        let l = approved();
        let csrf = csrf_token(SECRET, &l.id);
        let later = T0.plus_secs(30);
        assert_eq!(
            decide(&l, SECRET, LIVE, submit(&csrf, "allow"), later),
            ConsentDecision::Complete {
                remember: Some(Consent {
                    scopes: Scopes::from_stored(["openid", "profile"]),
                    granted_at: later,
                    claims: vec![],
                    resources: vec![],
                    delegation: false,
                })
            }
        );
        assert_eq!(
            decide(&l, SECRET, LIVE, submit(&csrf, "deny"), later),
            ConsentDecision::Deny { by_user: true }
        );
        assert_eq!(
            decide(&l, SECRET, LIVE, submit(&csrf, "maybe"), later),
            ConsentDecision::Refuse(ConsentRefusal::NoChoice)
        );
    }

    #[test]
    fn a_request_naming_another_subject_ends_denied_whatever_the_browser_does() {
        // OIDC Core 5.5.1: claims id_token.sub.value names who may log in.
        let named = |sub: &str| {
            let mut l = approved();
            l.request.claims = crate::domain::claims_request::parse(&format!(
                r#"{{"id_token":{{"sub":{{"value":"{sub}"}}}}}}"#
            ))
            .unwrap();
            l
        };
        let l = named("bob");
        let csrf = csrf_token(SECRET, &l.id);
        let remembered = Known {
            remembered: true,
            ..LIVE
        };
        for (known, input) in [
            (LIVE, ConsentInput::Open),
            (remembered, ConsentInput::Open),
            (LIVE, submit(&csrf, "allow")),
        ] {
            assert_eq!(
                decide(&l, SECRET, known, input, T0),
                ConsentDecision::Deny { by_user: false },
                "{input:?}"
            );
        }
        // The named subject itself goes on as usual.
        assert_eq!(
            decide(&named("alice"), SECRET, LIVE, ConsentInput::Open, T0),
            ConsentDecision::Ask
        );
    }

    #[test]
    fn a_form_from_elsewhere_is_refused_before_its_choice_counts() {
        let l = approved();
        let other_browser = csrf_token("another-secret", &l.id);
        let other_login = csrf_token(SECRET, "another-login");
        for forged in [other_browser.as_str(), other_login.as_str(), ""] {
            assert_eq!(
                decide(&l, SECRET, LIVE, submit(forged, "allow"), T0),
                ConsentDecision::Refuse(ConsentRefusal::Forged)
            );
        }
        let missing = ConsentInput::Submit {
            csrf: None,
            choice: Some("allow"),
        };
        assert_eq!(
            decide(&l, SECRET, LIVE, missing, T0),
            ConsentDecision::Refuse(ConsentRefusal::Forged)
        );
    }

    #[test]
    fn the_logins_state_comes_first() {
        let expired_at = T0.plus_secs(300);
        assert_eq!(
            decide(&approved(), SECRET, LIVE, ConsentInput::Open, expired_at),
            ConsentDecision::Refuse(ConsentRefusal::Expired)
        );
        assert_eq!(
            decide(
                &login(LoginStatus::Pending),
                SECRET,
                LIVE,
                ConsentInput::Open,
                T0
            ),
            ConsentDecision::Refuse(ConsentRefusal::NotApproved)
        );
        assert_eq!(
            decide(
                &login(LoginStatus::Pending),
                SECRET,
                LIVE,
                ConsentInput::Open,
                expired_at
            ),
            ConsentDecision::Refuse(ConsentRefusal::Expired)
        );
        assert_eq!(
            decide(
                &login(LoginStatus::Completed),
                SECRET,
                LIVE,
                ConsentInput::Open,
                T0
            ),
            ConsentDecision::Refuse(ConsentRefusal::AlreadyCompleted)
        );
        // Denied on the phone: the login ends with access_denied, whatever the form says.
        let csrf = csrf_token(SECRET, "x");
        assert_eq!(
            decide(
                &login(LoginStatus::Denied),
                SECRET,
                LIVE,
                submit(&csrf, "allow"),
                T0
            ),
            ConsentDecision::Deny { by_user: false }
        );
    }

    #[test]
    fn a_disabled_identity_or_a_deleted_client_ends_the_login() {
        let l = approved();
        let disabled = Known {
            identity_live: false,
            ..LIVE
        };
        assert_eq!(
            decide(&l, SECRET, disabled, ConsentInput::Open, T0),
            ConsentDecision::Deny { by_user: false }
        );
        let no_client = Known {
            client_exists: false,
            ..LIVE
        };
        assert_eq!(
            decide(&l, SECRET, no_client, ConsentInput::Open, T0),
            ConsentDecision::Refuse(ConsentRefusal::UnknownClient)
        );
    }
}
