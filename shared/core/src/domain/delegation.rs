//! Delegation by token exchange (RFC 8693): what an agent (a client allowed the exchange
//! grant) may get for a person's access token. No I/O: the token endpoint reads the subject
//! token and the person's consent, asks here, and signs what is decided.
//!
//! The rules, each a refusal with RFC 8693 §2.2.2's error:
//! - the subject token is a person's (not a client's own token), and it is the agent's: issued
//!   to it (`azp`) or for it (`aud`, handed on by an earlier exchange: how a chain grows);
//! - the person delegated to the agent: they approved its consent page, which says that it
//!   may act for them (a remembered consent no older than the client's registration), and
//!   have not withdrawn it in the app;
//! - the new scopes are within both the subject token's and the consent's; no
//!   `offline_access` (an exchange issues no refresh token);
//! - the new audience is one target: a resource server the subject token was for or the
//!   person consented to for this agent, or another agent (`audience`, a client id) for a
//!   chain; by default the subject token's resource, else the agent itself;
//! - a chain is at most [`MAX_CHAIN`] agents long.

use crate::clock::Timestamp;
use crate::domain::login::Consent;
use crate::protocol::claims::Actor;
use crate::protocol::{AccessTokenClaims, OAuthError, OAuthErrorCode, Scopes};

/// The longest chain of agents (nested `act`) an exchanged token may carry.
pub const MAX_CHAIN: usize = 4;

/// What the exchange issues: the access token's scopes, audience and actor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delegated {
    /// The scopes (a subset of the subject token's).
    pub scopes: Scopes,
    /// The `aud`.
    pub audience: String,
    /// The `act`: the agent, with the earlier actors nested.
    pub act: Actor,
}

/// What the agent asked for.
#[derive(Debug, Clone, Copy)]
pub struct Asked<'a> {
    /// `scope`, if sent.
    pub scope: Option<&'a str>,
    /// `audience` (a client id), if sent.
    pub audience: Option<&'a str>,
    /// `resource` (RFC 8707), if sent.
    pub resource: Option<&'a str>,
}

/// The agent: its id and when it was registered.
#[derive(Debug, Clone, Copy)]
pub struct Agent<'a> {
    /// The authenticated client.
    pub client_id: &'a str,
    /// When it was registered (a consent older than that was given to another client).
    pub created_at: Timestamp,
}

fn refused(d: &'static str) -> OAuthError {
    OAuthError::invalid_request(d)
}

fn target(d: &'static str) -> OAuthError {
    OAuthError::new(OAuthErrorCode::InvalidTarget, d)
}

/// Decides an exchange. `is_agent(id)` says whether client `id` exists and may exchange
/// tokens (the only clients an `audience` may name).
pub fn decide(
    agent: Agent<'_>,
    subject: &AccessTokenClaims<'_>,
    consent: Option<&Consent>,
    asked: Asked<'_>,
    is_agent: impl Fn(&str) -> bool,
) -> Result<Delegated, OAuthError> {
    if subject.gty.is_some() {
        return Err(refused(
            "the subject token must be a person's access token, not a client's own",
        ));
    }
    if subject.azp.as_str() != agent.client_id && subject.aud != agent.client_id {
        return Err(refused(
            "the subject token was neither issued to this client nor exchanged for it",
        ));
    }
    let depth = subject.act.as_ref().map_or(0, |a| a.chain().count());
    if depth + 1 > MAX_CHAIN {
        return Err(refused("the chain of agents is too long"));
    }
    let consent = consent
        .filter(|c| c.delegation && c.granted_at.secs() >= agent.created_at.secs())
        .ok_or_else(|| {
            refused("the person has not delegated to this client (its consent page asks them)")
        })?;
    let scopes = scopes(subject, consent, asked.scope)?;
    let audience = audience(agent, subject, consent, asked, is_agent)?;
    Ok(Delegated {
        scopes,
        audience,
        act: Actor {
            sub: agent.client_id.to_owned(),
            act: subject.act.clone().map(Box::new),
        },
    })
}

fn scopes(
    subject: &AccessTokenClaims<'_>,
    consent: &Consent,
    asked: Option<&str>,
) -> Result<Scopes, OAuthError> {
    let held: Vec<&str> = subject
        .scopes()
        .filter(|s| consent.scopes.contains(s) && *s != "offline_access")
        .collect();
    let Some(asked) = asked else {
        return Ok(Scopes::from_stored(held));
    };
    let asked = Scopes::parse(asked).map_err(|_| {
        OAuthError::new(
            OAuthErrorCode::InvalidScope,
            "scope: malformed scope tokens",
        )
    })?;
    if !asked.is_subset_of(&held) {
        return Err(OAuthError::new(
            OAuthErrorCode::InvalidScope,
            "scope: only scopes both the subject token and the person's delegation have",
        ));
    }
    Ok(asked)
}

fn audience(
    agent: Agent<'_>,
    subject: &AccessTokenClaims<'_>,
    consent: &Consent,
    asked: Asked<'_>,
    is_agent: impl Fn(&str) -> bool,
) -> Result<String, OAuthError> {
    match (asked.resource, asked.audience) {
        (Some(_), Some(_)) => Err(target("resource or audience, not both")),
        (Some(r), None) => {
            let held = subject.for_resource_server() && subject.aud == r;
            if held || consent.covers_resources(&[r.to_owned()]) {
                Ok(r.to_owned())
            } else {
                Err(target(
                    "resource: neither the subject token's nor one the person allowed this client",
                ))
            }
        }
        (None, Some(a)) if is_agent(a) => Ok(a.to_owned()),
        (None, Some(_)) => Err(target(
            "audience: not a client that may act for the person (token exchange)",
        )),
        (None, None) if subject.for_resource_server() => Ok(subject.aud.clone().into_owned()),
        (None, None) => Ok(agent.client_id.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ClientId, GrantId, Subject, TokenTyp};
    use std::borrow::Cow;

    fn subject(azp: &str, aud: &str, scope: &str) -> AccessTokenClaims<'static> {
        AccessTokenClaims {
            exp: 1300,
            iat: 1000,
            auth_time: 1000,
            jti: "j".into(),
            iss: "https://id/realms/r".into(),
            aud: Cow::Owned(aud.into()),
            sub: Cow::Owned(Subject::new("person")),
            typ: TokenTyp::Bearer,
            azp: Cow::Owned(ClientId::new(azp)),
            acr: "1".into(),
            scope: Cow::Owned(scope.into()),
            gid: Cow::Owned(GrantId::new("g")),
            session_state: None,
            sid: None,
            gty: None,
            client_id: None,
            service_id: None,
            preferred_username: None,
            groups: None,
            act: None,
            cnf: None,
        }
    }

    fn consent(scopes: &[&str], resources: &[&str]) -> Consent {
        Consent {
            scopes: Scopes::from_stored(scopes.iter().copied()),
            granted_at: Timestamp::from_secs(900),
            claims: vec![],
            resources: resources.iter().map(|r| (*r).to_owned()).collect(),
            delegation: true,
        }
    }

    const AGENT: Agent<'static> = Agent {
        client_id: "agent",
        created_at: Timestamp::from_secs(500),
    };

    fn ask<'a>(
        scope: Option<&'a str>,
        audience: Option<&'a str>,
        resource: Option<&'a str>,
    ) -> Asked<'a> {
        Asked {
            scope,
            audience,
            resource,
        }
    }

    fn no_agents(_: &str) -> bool {
        false
    }

    #[test]
    fn the_agents_own_token_narrowed_to_a_resource_it_was_allowed() {
        let s = subject("agent", "agent", "openid profile groups");
        let c = consent(&["openid", "profile", "groups"], &["https://api.example"]);
        let d = decide(
            AGENT,
            &s,
            Some(&c),
            ask(Some("groups"), None, Some("https://api.example")),
            no_agents,
        )
        .unwrap();
        assert_eq!(d.scopes.as_ref(), ["groups"]);
        assert_eq!(d.audience, "https://api.example");
        assert_eq!(
            d.act,
            Actor {
                sub: "agent".into(),
                act: None
            }
        );
    }

    #[test]
    fn by_default_the_scopes_both_hold_and_the_agent_itself() {
        let s = subject("agent", "agent", "openid profile groups offline_access");
        let c = consent(&["openid", "groups", "offline_access"], &[]);
        let d = decide(AGENT, &s, Some(&c), ask(None, None, None), no_agents).unwrap();
        assert_eq!(d.scopes.as_ref(), ["openid", "groups"]);
        assert_eq!(d.audience, "agent");
    }

    #[test]
    fn a_chain_nests_the_earlier_agent_and_has_a_limit() {
        let mut s = subject("first", "agent", "openid");
        s.act = Some(Actor {
            sub: "first".into(),
            act: None,
        });
        let c = consent(&["openid"], &[]);
        let d = decide(AGENT, &s, Some(&c), ask(None, Some("next"), None), |a| {
            a == "next"
        })
        .unwrap();
        assert_eq!(d.audience, "next");
        assert_eq!(d.act.chain().collect::<Vec<_>>(), ["agent", "first"]);
        let mut long = d.act.clone();
        for i in 0..MAX_CHAIN {
            long = Actor {
                sub: format!("a{i}"),
                act: Some(Box::new(long)),
            };
        }
        s.act = Some(long);
        let e = decide(AGENT, &s, Some(&c), ask(None, None, None), no_agents).unwrap_err();
        assert_eq!(e.error, OAuthErrorCode::InvalidRequest);
    }

    #[test]
    fn refusals() {
        let c = consent(&["openid", "profile"], &["https://api.example"]);
        let mine = subject("agent", "agent", "openid profile");
        let code = |r: Result<Delegated, OAuthError>| r.unwrap_err().error;
        // Another client's token, not handed to this agent.
        let other = subject("app", "app", "openid profile");
        assert_eq!(
            code(decide(
                AGENT,
                &other,
                Some(&c),
                ask(None, None, None),
                no_agents
            )),
            OAuthErrorCode::InvalidRequest
        );
        // A client's own token.
        let mut own = mine.clone();
        own.gty = Some(crate::protocol::claims::Gty::ClientCredentials);
        assert_eq!(
            code(decide(
                AGENT,
                &own,
                Some(&c),
                ask(None, None, None),
                no_agents
            )),
            OAuthErrorCode::InvalidRequest
        );
        // No consent, or one given to an earlier client of the same id.
        assert_eq!(
            code(decide(AGENT, &mine, None, ask(None, None, None), no_agents)),
            OAuthErrorCode::InvalidRequest
        );
        let old = Consent {
            granted_at: Timestamp::from_secs(100),
            ..c.clone()
        };
        // A consent given before the client became an agent is no delegation.
        let plain = Consent {
            delegation: false,
            ..c.clone()
        };
        assert_eq!(
            code(decide(
                AGENT,
                &mine,
                Some(&plain),
                ask(None, None, None),
                no_agents
            )),
            OAuthErrorCode::InvalidRequest
        );
        assert_eq!(
            code(decide(
                AGENT,
                &mine,
                Some(&old),
                ask(None, None, None),
                no_agents
            )),
            OAuthErrorCode::InvalidRequest
        );
        // Wider scope than the subject token's or the consent's.
        assert_eq!(
            code(decide(
                AGENT,
                &mine,
                Some(&c),
                ask(Some("groups"), None, None),
                no_agents
            )),
            OAuthErrorCode::InvalidScope
        );
        let narrow = consent(&["openid"], &[]);
        assert_eq!(
            code(decide(
                AGENT,
                &mine,
                Some(&narrow),
                ask(Some("profile"), None, None),
                no_agents
            )),
            OAuthErrorCode::InvalidScope
        );
        assert_eq!(
            code(decide(
                AGENT,
                &mine,
                Some(&c),
                ask(Some("bad\"scope"), None, None),
                no_agents
            )),
            OAuthErrorCode::InvalidScope
        );
        // A resource not allowed, an audience that is no agent, or both.
        assert_eq!(
            code(decide(
                AGENT,
                &mine,
                Some(&c),
                ask(None, None, Some("https://other")),
                no_agents
            )),
            OAuthErrorCode::InvalidTarget
        );
        assert_eq!(
            code(decide(
                AGENT,
                &mine,
                Some(&c),
                ask(None, Some("app"), None),
                no_agents
            )),
            OAuthErrorCode::InvalidTarget
        );
        assert_eq!(
            code(decide(
                AGENT,
                &mine,
                Some(&c),
                ask(None, Some("agent"), Some("https://api.example")),
                |_| true
            )),
            OAuthErrorCode::InvalidTarget
        );
    }

    #[test]
    fn a_subject_token_for_a_resource_keeps_it() {
        let s = subject("agent", "https://api.example", "openid");
        let c = consent(&["openid"], &[]);
        let d = decide(AGENT, &s, Some(&c), ask(None, None, None), no_agents).unwrap();
        assert_eq!(d.audience, "https://api.example");
        let d = decide(
            AGENT,
            &s,
            Some(&c),
            ask(None, None, Some("https://api.example")),
            no_agents,
        )
        .unwrap();
        assert_eq!(d.audience, "https://api.example");
    }
}
