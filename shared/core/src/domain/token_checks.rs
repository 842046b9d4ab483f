//! The token endpoint's checks of an authorization code (RFC 6749 §4.1.3, RFC 7636 §4.6) and
//! of a refresh token (RFC 6749 §6), as pure functions: the stored records, what the request
//! presents and the instant in; accepted (with what it grants) or the one reason for refusing
//! out. The use cases ([`crate::usecase::token`]) read the records, call these, and act on the
//! answer (burn the code, revoke a replayed code's grant, rotate).

use crate::clock::Timestamp;
use crate::domain::client::Client;
use crate::domain::grant::{self, Grant, RefreshRecord};
use crate::domain::login::AuthCode;
use crate::domain::resource_indicator::{self, TargetError};
use crate::protocol::{OAuthErrorCode, Scopes};

/// A record as the store holds it: its value, and the instant it expires.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stored<'a, T> {
    pub value: &'a T,
    pub expires_at: Option<i64>,
}

impl<T> Stored<'_, T> {
    fn expired(&self, now: Timestamp) -> bool {
        // The store's rule ([`crate::store::Record::is_live`]): live while `now < expires_at`.
        self.expires_at.is_some_and(|e| now.secs() >= e)
    }
}

/// What a token request presents with an authorization code.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CodePresented<'a> {
    pub redirect_uri: &'a str,
    pub code_verifier: Option<&'a str>,
    /// RFC 8707 `resource` values (at most one is accepted).
    pub resource: &'a [String],
}

/// Why an authorization code is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CodeRefusal {
    /// No live code under its hash: unknown, already redeemed, or burned.
    NotLive,
    /// Past its lifetime.
    Expired,
    /// Issued to another client.
    OtherClient,
    /// Issued to an earlier registration of this `client_id` (deleted, then registered again).
    EarlierRegistration,
    /// `redirect_uri` differs from the authorization request's.
    RedirectUriMismatch,
    /// RFC 7636 §4.6: the verifier does not hash to the challenge (or is malformed).
    VerifierMismatch,
    /// A challenge was sent at authorization, no verifier now.
    VerifierMissing,
    /// A verifier without a challenge at authorization.
    VerifierUnexpected,
    /// RFC 8707: a `resource` that was not granted, not registered, or more than one.
    Target(TargetError),
}

impl CodeRefusal {
    /// Whether the code must be burned: presented wrongly, it may be known to an attacker.
    /// A refused `resource` does not burn it (the client may ask again for a granted one).
    pub(crate) fn burns_code(self) -> bool {
        !matches!(self, Self::NotLive | Self::Expired | Self::Target(_))
    }

    /// The OAuth error code of the refusal.
    pub(crate) fn error_code(self) -> OAuthErrorCode {
        match self {
            Self::Target(_) => OAuthErrorCode::InvalidTarget,
            _ => OAuthErrorCode::InvalidGrant,
        }
    }

    /// The `error_description`.
    pub(crate) fn description(self) -> &'static str {
        match self {
            Self::NotLive | Self::Expired => "invalid, expired or already used code",
            Self::OtherClient | Self::EarlierRegistration => {
                "the code was issued to another client"
            }
            Self::RedirectUriMismatch => "redirect_uri differs from the authorization request",
            Self::VerifierMismatch => "code_verifier does not match the code_challenge",
            Self::VerifierMissing => "code_verifier is required",
            Self::VerifierUnexpected => {
                "code_verifier without a code_challenge in the authorization request"
            }
            Self::Target(e) => e.description(),
        }
    }
}

/// Checks a code presented by `client`: `Ok` with the access token's audience (RFC 8707:
/// the resource, or `None` for the client itself), or the first reason to refuse, in this
/// order: liveness, client, `redirect_uri`, PKCE, resource. `registered` is the operator's
/// resource servers.
pub(crate) fn check_code(
    code: Option<Stored<'_, AuthCode>>,
    client: &Client,
    presented: &CodePresented<'_>,
    registered: &[String],
    now: Timestamp,
) -> Result<Option<String>, CodeRefusal> {
    let Some(stored) = code else {
        return Err(CodeRefusal::NotLive);
    };
    if stored.expired(now) {
        return Err(CodeRefusal::Expired);
    }
    let c = stored.value;
    if c.client_id != client.client_id {
        return Err(CodeRefusal::OtherClient);
    }
    if c.issued_at.secs() < client.created_at.secs() {
        return Err(CodeRefusal::EarlierRegistration);
    }
    if c.redirect_uri != presented.redirect_uri {
        return Err(CodeRefusal::RedirectUriMismatch);
    }
    match (&c.code_challenge, presented.code_verifier) {
        (Some(ch), Some(v)) if grant::pkce_matches(v, ch) => {}
        (Some(_), Some(_)) => return Err(CodeRefusal::VerifierMismatch),
        (Some(_), None) => return Err(CodeRefusal::VerifierMissing),
        (None, Some(_)) => return Err(CodeRefusal::VerifierUnexpected),
        (None, None) => {}
    }
    resource_indicator::at_token(presented.resource, Some(&c.resources), registered)
        .map_err(CodeRefusal::Target)
}

/// What a refresh request presents besides the token.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RefreshPresented<'a> {
    /// The `scope` parameter: a narrowing of the granted scope (RFC 6749 §6).
    pub scope: Option<&'a str>,
    /// RFC 8707 `resource` values (at most one is accepted).
    pub resource: &'a [String],
}

/// What an accepted refresh token issues: the (possibly narrowed) scopes and the access
/// token's audience.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RefreshAccepted {
    pub scopes: Scopes,
    pub aud: Option<String>,
}

/// Why a refresh token is refused (before its generation is looked at:
/// [`Grant::check`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RefreshRefusal {
    /// No live refresh token under its hash, or its grant is gone.
    NotLive,
    /// Its grant is past its lifetime.
    Expired,
    /// Issued to another client.
    OtherClient,
    /// Its grant was revoked.
    Revoked,
    /// Its grant belongs to an earlier registration of this `client_id`.
    EarlierRegistration,
    /// `scope` asks for a scope that was not granted.
    ScopeWidened,
    /// RFC 8707: a `resource` that was not granted, not registered, or more than one.
    Target(TargetError),
}

impl RefreshRefusal {
    /// The OAuth error code of the refusal.
    pub(crate) fn error_code(self) -> OAuthErrorCode {
        match self {
            Self::ScopeWidened => OAuthErrorCode::InvalidScope,
            Self::Target(_) => OAuthErrorCode::InvalidTarget,
            _ => OAuthErrorCode::InvalidGrant,
        }
    }

    /// The `error_description`.
    pub(crate) fn description(self) -> &'static str {
        match self {
            Self::NotLive | Self::Expired | Self::EarlierRegistration => {
                "invalid or expired refresh token"
            }
            Self::OtherClient => "the refresh token was issued to another client",
            Self::Revoked => "the grant was revoked",
            Self::ScopeWidened => "scope may only narrow the granted scope",
            Self::Target(e) => e.description(),
        }
    }
}

/// Checks a refresh token presented by `client`: its record, its grant (as stored), the
/// narrowing of `scope` (values scanid does not understand are ignored, as at authorization:
/// `supported`) and the resource. The first reason to refuse, in this order: liveness,
/// client, grant revoked, earlier registration, scope, resource.
pub(crate) fn check_refresh(
    record: Option<&RefreshRecord>,
    grant: Option<Stored<'_, Grant>>,
    client: &Client,
    presented: &RefreshPresented<'_>,
    (supported, registered): (&[&str], &[String]),
    now: Timestamp,
) -> Result<RefreshAccepted, RefreshRefusal> {
    let Some(r) = record else {
        return Err(RefreshRefusal::NotLive);
    };
    if r.client_id != client.client_id {
        return Err(RefreshRefusal::OtherClient);
    }
    let Some(stored) = grant.filter(|g| g.value.id == r.grant_id) else {
        return Err(RefreshRefusal::NotLive);
    };
    if stored.expired(now) {
        return Err(RefreshRefusal::Expired);
    }
    let g = stored.value;
    if g.revoked {
        return Err(RefreshRefusal::Revoked);
    }
    if g.created_at.secs() < client.created_at.secs() {
        return Err(RefreshRefusal::EarlierRegistration);
    }
    let scopes = match presented.scope {
        None => g.scopes.clone(),
        Some(s) => {
            let asked = Scopes::supported(s, supported);
            if !asked.is_subset_of(&g.scopes) {
                return Err(RefreshRefusal::ScopeWidened);
            }
            asked
        }
    };
    let aud = resource_indicator::at_token(presented.resource, Some(&g.resources), registered)
        .map_err(RefreshRefusal::Target)?;
    Ok(RefreshAccepted { scopes, aud })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::discovery::SCOPES;
    use crate::domain::grant::GrantKind;
    use crate::protocol::Alg;
    use crate::protocol::GrantId;
    use crate::protocol::{ClientId, RedirectUri, SessionId, Subject};

    const API: &str = "https://api.example/";
    const OTHER_API: &str = "https://other.example/";
    const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

    fn t(secs: i64) -> Timestamp {
        Timestamp::from_secs(secs)
    }

    fn registered() -> Vec<String> {
        vec![API.to_owned(), OTHER_API.to_owned()]
    }

    /// The shop client, registered at `created_at`.
    fn shop_at(created_at: i64) -> Client {
        Client {
            created_at: t(created_at),
            ..crate::strategies::shop()
        }
    }

    fn code(challenge: Option<&str>) -> AuthCode {
        AuthCode {
            client_id: ClientId::new("shop"),
            redirect_uri: RedirectUri::new("https://shop.example/cb"),
            scopes: Scopes::from_stored(["openid"]),
            nonce: None,
            claims: Default::default(),
            code_challenge: challenge.map(str::to_owned),
            dpop_jkt: None,
            resources: vec![API.to_owned()],
            sub: Subject::new("u"),
            sid: SessionId::new("s"),
            auth_time: t(1000),
            issued_at: t(1000),
            method: Default::default(),
        }
    }

    #[test]
    fn every_code_refusal_is_one_row() {
        let with_pkce = code(Some(CHALLENGE));
        let without_pkce = code(None);
        let other_client = AuthCode {
            client_id: ClientId::new("other"),
            ..code(Some(CHALLENGE))
        };
        let api = vec![API.to_owned()];
        let other_api = vec![OTHER_API.to_owned()];
        let two = vec![API.to_owned(), OTHER_API.to_owned()];
        let none: Vec<String> = Vec::new();
        // (what, stored code, client registered at, redirect_uri, verifier, resource, now,
        //  expected)
        type Row<'a> = (
            &'a str,
            Option<&'a AuthCode>,
            i64,
            &'a str,
            Option<&'a str>,
            &'a [String],
            i64,
            Result<Option<String>, CodeRefusal>,
        );
        let cb = "https://shop.example/cb";
        let table: Vec<Row> = vec![
            (
                "accepted",
                Some(&with_pkce),
                0,
                cb,
                Some(VERIFIER),
                &none,
                1010,
                Ok(Some(API.to_owned())),
            ),
            (
                "accepted without PKCE",
                Some(&without_pkce),
                0,
                cb,
                None,
                &api,
                1010,
                Ok(Some(API.to_owned())),
            ),
            (
                "unknown, used or burned",
                None,
                0,
                cb,
                Some(VERIFIER),
                &none,
                1010,
                Err(CodeRefusal::NotLive),
            ),
            (
                "expired",
                Some(&with_pkce),
                0,
                cb,
                Some(VERIFIER),
                &none,
                1060,
                Err(CodeRefusal::Expired),
            ),
            (
                "another client's",
                Some(&other_client),
                0,
                cb,
                Some(VERIFIER),
                &none,
                1010,
                Err(CodeRefusal::OtherClient),
            ),
            (
                "client deleted and registered again",
                Some(&with_pkce),
                1005,
                cb,
                Some(VERIFIER),
                &none,
                1010,
                Err(CodeRefusal::EarlierRegistration),
            ),
            (
                "redirect_uri differs",
                Some(&with_pkce),
                0,
                "https://shop.example/cb2",
                Some(VERIFIER),
                &none,
                1010,
                Err(CodeRefusal::RedirectUriMismatch),
            ),
            (
                "verifier wrong",
                Some(&with_pkce),
                0,
                cb,
                Some("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXj"),
                &none,
                1010,
                Err(CodeRefusal::VerifierMismatch),
            ),
            (
                "verifier malformed",
                Some(&with_pkce),
                0,
                cb,
                Some("short"),
                &none,
                1010,
                Err(CodeRefusal::VerifierMismatch),
            ),
            (
                "verifier missing",
                Some(&with_pkce),
                0,
                cb,
                None,
                &none,
                1010,
                Err(CodeRefusal::VerifierMissing),
            ),
            (
                "verifier unexpected",
                Some(&without_pkce),
                0,
                cb,
                Some(VERIFIER),
                &none,
                1010,
                Err(CodeRefusal::VerifierUnexpected),
            ),
            (
                "resource not granted",
                Some(&with_pkce),
                0,
                cb,
                Some(VERIFIER),
                &other_api,
                1010,
                Err(CodeRefusal::Target(TargetError::NotGranted)),
            ),
            (
                "two resources",
                Some(&with_pkce),
                0,
                cb,
                Some(VERIFIER),
                &two,
                1010,
                Err(CodeRefusal::Target(TargetError::OnePerToken)),
            ),
        ];
        for (what, stored, created, redirect_uri, verifier, resource, now, expected) in table {
            let stored = stored.map(|c| Stored {
                value: c,
                expires_at: Some(1060),
            });
            let presented = CodePresented {
                redirect_uri,
                code_verifier: verifier,
                resource,
            };
            let got = check_code(stored, &shop_at(created), &presented, &registered(), t(now));
            assert_eq!(got, expected, "{what}");
        }
    }

    #[test]
    fn a_code_presented_wrongly_is_burned_and_a_refused_resource_does_not_burn_it() {
        use CodeRefusal::*;
        for r in [
            OtherClient,
            EarlierRegistration,
            RedirectUriMismatch,
            VerifierMismatch,
            VerifierMissing,
            VerifierUnexpected,
        ] {
            assert!(r.burns_code(), "{r:?}");
            assert_eq!(r.error_code(), OAuthErrorCode::InvalidGrant);
        }
        for r in [NotLive, Expired, Target(TargetError::NotGranted)] {
            assert!(!r.burns_code(), "{r:?}");
        }
        assert_eq!(
            Target(TargetError::NotGranted).error_code(),
            OAuthErrorCode::InvalidTarget
        );
    }

    fn grant() -> Grant {
        Grant {
            id: GrantId::new("g"),
            kind: GrantKind::AuthorizationCode,
            client_id: ClientId::new("shop"),
            sub: Subject::new("u"),
            sid: Some(SessionId::new("s")),
            scopes: Scopes::from_stored(["openid", "profile", "offline_access"]),
            auth_time: t(1000),
            nonce: None,
            claims: Default::default(),
            created_at: t(1000),
            offline: true,
            generation: 2,
            rotated_at: t(1000),
            revoked: false,
            alg: Alg::RS256,
            resources: vec![API.to_owned()],
            method: Default::default(),
        }
    }

    #[test]
    fn every_refresh_refusal_is_one_row() {
        let g = grant();
        let revoked = Grant {
            revoked: true,
            ..grant()
        };
        let record = RefreshRecord {
            grant_id: GrantId::new("g"),
            client_id: ClientId::new("shop"),
            generation: 2,
        };
        let others = RefreshRecord {
            client_id: ClientId::new("other"),
            ..record.clone()
        };
        let of_another_grant = RefreshRecord {
            grant_id: GrantId::new("g2"),
            ..record.clone()
        };
        let api = vec![API.to_owned()];
        let other_api = vec![OTHER_API.to_owned()];
        let none: Vec<String> = Vec::new();
        let all = || {
            Ok(RefreshAccepted {
                scopes: g.scopes.clone(),
                aud: Some(API.to_owned()),
            })
        };
        // (what, record, grant, client registered at, scope, resource, now, expected)
        type Row<'a> = (
            &'a str,
            Option<&'a RefreshRecord>,
            Option<&'a Grant>,
            i64,
            Option<&'a str>,
            &'a [String],
            i64,
            Result<RefreshAccepted, RefreshRefusal>,
        );
        let table: Vec<Row> = vec![
            (
                "accepted",
                Some(&record),
                Some(&g),
                0,
                None,
                &none,
                1500,
                all(),
            ),
            (
                "accepted, resource named",
                Some(&record),
                Some(&g),
                0,
                None,
                &api,
                1500,
                all(),
            ),
            (
                "narrowed; unknown values ignored",
                Some(&record),
                Some(&g),
                0,
                Some("profile email openid"),
                &none,
                1500,
                Ok(RefreshAccepted {
                    scopes: Scopes::from_stored(["profile", "openid"]),
                    aud: Some(API.to_owned()),
                }),
            ),
            (
                "unknown token",
                None,
                Some(&g),
                0,
                None,
                &none,
                1500,
                Err(RefreshRefusal::NotLive),
            ),
            (
                "grant gone",
                Some(&record),
                None,
                0,
                None,
                &none,
                1500,
                Err(RefreshRefusal::NotLive),
            ),
            (
                "another grant's record",
                Some(&of_another_grant),
                Some(&g),
                0,
                None,
                &none,
                1500,
                Err(RefreshRefusal::NotLive),
            ),
            (
                "expired",
                Some(&record),
                Some(&g),
                0,
                None,
                &none,
                2000,
                Err(RefreshRefusal::Expired),
            ),
            (
                "another client's",
                Some(&others),
                Some(&g),
                0,
                None,
                &none,
                1500,
                Err(RefreshRefusal::OtherClient),
            ),
            (
                "grant revoked",
                Some(&record),
                Some(&revoked),
                0,
                None,
                &none,
                1500,
                Err(RefreshRefusal::Revoked),
            ),
            (
                "client deleted and registered again",
                Some(&record),
                Some(&g),
                1200,
                None,
                &none,
                1500,
                Err(RefreshRefusal::EarlierRegistration),
            ),
            (
                "scope widened",
                Some(&record),
                Some(&g),
                0,
                Some("openid groups"),
                &none,
                1500,
                Err(RefreshRefusal::ScopeWidened),
            ),
            (
                "resource not granted",
                Some(&record),
                Some(&g),
                0,
                None,
                &other_api,
                1500,
                Err(RefreshRefusal::Target(TargetError::NotGranted)),
            ),
        ];
        for (what, record, grant, created, scope, resource, now, expected) in table {
            let grant = grant.map(|g| Stored {
                value: g,
                expires_at: Some(2000),
            });
            let presented = RefreshPresented { scope, resource };
            let got = check_refresh(
                record,
                grant,
                &shop_at(created),
                &presented,
                (SCOPES, &registered()),
                t(now),
            );
            assert_eq!(got, expected, "{what}");
        }
    }

    #[test]
    fn refresh_refusals_keep_their_errors() {
        use RefreshRefusal::*;
        assert_eq!(ScopeWidened.error_code(), OAuthErrorCode::InvalidScope);
        assert_eq!(
            Target(TargetError::NotGranted).error_code(),
            OAuthErrorCode::InvalidTarget
        );
        for r in [NotLive, Expired, OtherClient, Revoked, EarlierRegistration] {
            assert_eq!(r.error_code(), OAuthErrorCode::InvalidGrant, "{r:?}");
        }
    }
}
