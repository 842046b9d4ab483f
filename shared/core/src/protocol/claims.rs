//! The claim sets of the JWTs scanid issues: access tokens and ID tokens (OIDC Core §2, with
//! Keycloak's extra claims), refresh tokens (shaped like Keycloak's, never verified) and logout
//! tokens (OIDC Back-Channel Logout 1.0 §2.4).
//!
//! Every optional claim is absent, never `null`, when it does not apply: profile claims appear
//! only with the scope that releases them.
//!
//! The claim sets borrow (`Cow<'a, _>`): issuing a token points them at the grant, the identity
//! and the settings instead of copying each value (token issuance is the hot path); a token
//! read back (`verify`) owns its values (`'static`).

use std::borrow::Cow;

use super::ids::{ClientId, GrantId, SessionId, Subject};
use serde::{Deserialize, Serialize};

macro_rules! borrows_as_cow {
    ($($name:ident),*) => {$(
        impl<'a> From<&'a $name> for Cow<'a, $name> {
            fn from(id: &'a $name) -> Self {
                Cow::Borrowed(id)
            }
        }
    )*};
}
borrows_as_cow!(ClientId, GrantId, SessionId, Subject);

/// The lowest `acr` (Keycloak's value for a full authentication): a client's own tokens carry it
/// (`crate::domain::authn::Acr` are the levels a person's login reaches).
pub(crate) const ACR: &str = "1";

/// The `typ` claim (Keycloak's marker of what a token is for).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TokenTyp {
    /// An access token.
    Bearer,
    /// An ID token (what logout requires of an `id_token_hint`).
    #[serde(rename = "ID")]
    Id,
    /// A refresh token of a grant that ends with its SSO session.
    Refresh,
    /// A refresh token of an `offline_access` grant.
    Offline,
}

/// The `gty` claim: how an access token's grant started, when it is not a user's login.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Gty {
    #[serde(rename = "client_credentials")]
    /// `client_credentials`.
    ClientCredentials,
}

/// What the `profile`, `groups` and `address` scopes release, in the ID token and at userinfo
/// (flattened into both). Build it with the domain's `grant::profile_claims`, the one rule
/// of what each scope releases.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileClaims<'a> {
    /// `profile`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Cow<'a, str>>,
    /// `profile`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preferred_username: Option<Cow<'a, str>>,
    /// `profile`, when the identity has a photo.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub picture: Option<Cow<'a, str>>,
    /// `profile`: when the identity last changed, in seconds since the epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<i64>,
    /// `profile` or `groups` (spec 2.4), `[]` when the identity has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups: Option<Cow<'a, [String]>>,
    /// `address`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<Address<'a>>,
    /// `profile`: the language the person used on scanid's pages for this login (BCP 47).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locale: Option<Cow<'a, str>>,
}

/// The `address` claim (OIDC Core §5.1.1): scanid knows only the country, and gives its ISO
/// 3166-1 alpha-2 code (e.g. `SE`) in `country`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Address<'a> {
    /// ISO 3166-1 alpha-2 (`SE`).
    pub country: Cow<'a, str>,
}

/// An access token's claims.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessTokenClaims<'a> {
    /// `exp`: when it expires, in seconds since the epoch.
    pub exp: i64,
    /// `iat`: when it was issued, in seconds since the epoch.
    pub iat: i64,
    /// `auth_time`: when the person authenticated, in seconds since the epoch.
    pub auth_time: i64,
    /// `jti`: the token's unique id.
    pub jti: Cow<'a, str>,
    /// `iss`: the issuer (`{public_url}/realms/{realm}`).
    pub iss: Cow<'a, str>,
    /// The client.
    pub aud: Cow<'a, str>,
    /// `sub`: the identity (for client credentials, the client).
    pub sub: Cow<'a, Subject>,
    /// Always [`TokenTyp::Bearer`].
    pub typ: TokenTyp,
    /// `azp`: the client the token was issued to.
    pub azp: Cow<'a, ClientId>,
    /// `acr`: the level the authentication reached, as in the ID token (`ACR` for a
    /// client's own token).
    pub acr: Cow<'a, str>,
    /// `scope`: the scopes, space-separated (RFC 6749 §3.3).
    pub scope: Cow<'a, str>,
    /// The grant the token belongs to.
    pub gid: Cow<'a, GrantId>,
    /// The SSO session, for a user's grant (both names carry it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_state: Option<Cow<'a, SessionId>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `sid`: the SSO session.
    pub sid: Option<Cow<'a, SessionId>>,
    /// Client credentials only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gty: Option<Gty>,
    /// Client credentials only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_id: Option<Cow<'a, ClientId>>,
    /// A user's token only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service_id: Option<Cow<'a, str>>,
    /// A user's token with `profile`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preferred_username: Option<Cow<'a, str>>,
    /// A user's token with `groups` or `profile`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups: Option<Cow<'a, [String]>>,
    /// `cnf` (RFC 7800): the key a DPoP-bound token is bound to (RFC 9449 §6.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cnf: Option<Confirmation>,
    /// RFC 8693 §4.1: the agent acting for the person (a token exchanged by a client the
    /// person delegated to), with the earlier actors nested in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub act: Option<Actor>,
}

/// `cnf` of a DPoP-bound token: `{"jkt": <the key's JWK SHA-256 thumbprint>}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confirmation {
    /// The JWK SHA-256 thumbprint (RFC 7638) of the key, base64url.
    pub jkt: String,
}

/// RFC 8693 §4.1 `act`: who acts (a client id as `sub`), and who acted before it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Actor {
    /// The acting client's id.
    pub sub: String,
    /// The actor before this one in the chain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub act: Option<Box<Actor>>,
}

impl Actor {
    /// The acting clients, the current one first.
    pub fn chain(&self) -> impl Iterator<Item = &str> {
        std::iter::successors(Some(self), |a| a.act.as_deref()).map(|a| a.sub.as_str())
    }
}

impl AccessTokenClaims<'_> {
    /// The scopes of the `scope` claim.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        super::Scopes::tokens(&self.scope)
    }

    /// Issued for a resource server (RFC 8707: `aud` is the resource, not the client). Such a
    /// token is not for userinfo (as node-oidc-provider has it): its audience is elsewhere.
    pub fn for_resource_server(&self) -> bool {
        self.aud != self.azp.as_str()
    }

    /// Whether `scope` is among the token's scopes.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes().any(|s| s == scope)
    }
}

/// An ID token's claims (OIDC Core §2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdTokenClaims<'a> {
    /// `iss`: the issuer (`{public_url}/realms/{realm}`).
    pub iss: Cow<'a, str>,
    /// Always [`TokenTyp::Id`].
    pub typ: TokenTyp,
    /// `sub`: the identity (for client credentials, the client).
    pub sub: Cow<'a, Subject>,
    /// `aud`: who the token is for.
    pub aud: Cow<'a, ClientId>,
    /// `exp`: when it expires, in seconds since the epoch.
    pub exp: i64,
    /// `iat`: when it was issued, in seconds since the epoch.
    pub iat: i64,
    /// `auth_time`: when the person authenticated, in seconds since the epoch.
    pub auth_time: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `nonce`: the authorization request's, when it had one.
    pub nonce: Option<Cow<'a, str>>,
    /// `at_hash`: the left half of the access token's SHA-256 (OIDC Core §3.1.3.6).
    pub at_hash: Cow<'a, str>,
    /// `azp`: the client the token was issued to.
    pub azp: Cow<'a, ClientId>,
    /// `acr`: the level the authentication reached (`crate::domain::authn::Acr`), as the
    /// request asked to hear it.
    pub acr: Cow<'a, str>,
    /// `amr` (RFC 8176): how the person authenticated (`crate::domain::authn::Method::amr`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub amr: Vec<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `sid`: the SSO session.
    pub sid: Option<Cow<'a, SessionId>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `session_state`: the SSO session, as Keycloak names it.
    pub session_state: Option<Cow<'a, SessionId>>,
    /// `service_id`: the identity's service id (spec 2.4).
    pub service_id: Cow<'a, str>,
    #[serde(flatten)]
    /// What the scopes release (flattened into the object).
    pub profile: ProfileClaims<'a>,
}

/// A refresh token's claims (decoded by Keycloak's JavaScript adapter; nobody verifies them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefreshTokenClaims<'a> {
    /// `exp`: when it expires, in seconds since the epoch.
    pub exp: i64,
    /// `iat`: when it was issued, in seconds since the epoch.
    pub iat: i64,
    /// `jti`: the token's unique id.
    pub jti: Cow<'a, str>,
    /// `iss`: the issuer (`{public_url}/realms/{realm}`).
    pub iss: Cow<'a, str>,
    /// The issuer, as Keycloak has it.
    pub aud: Cow<'a, str>,
    /// `sub`: the identity (for client credentials, the client).
    pub sub: Cow<'a, Subject>,
    /// [`TokenTyp::Refresh`] or [`TokenTyp::Offline`].
    pub typ: TokenTyp,
    /// `azp`: the client the token was issued to.
    pub azp: Cow<'a, ClientId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `sid`: the SSO session.
    pub sid: Option<Cow<'a, SessionId>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `session_state`: the SSO session, as Keycloak names it.
    pub session_state: Option<Cow<'a, SessionId>>,
    /// `scope`: the scopes, space-separated (RFC 6749 §3.3).
    pub scope: Cow<'a, str>,
    /// `gid`: the grant whose record keeps this token (a grant from a code exchange, issue
    /// 27), so it is found with the grant in one read; absent on tokens kept in records of
    /// their own. Only a locator: the token counts only when its hash, or its family key's,
    /// is one kept there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gid: Option<Cow<'a, GrantId>>,
    /// `fam`: the key every refresh token of the grant carries (with `gid`), of which the
    /// grant's record keeps only the hash: proof that a token which is no longer current was
    /// issued to this family, so that presenting it again revokes the family (issue 27).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fam: Option<Cow<'a, str>>,
    /// `cnf`: the DPoP key a public client's refresh token is bound to (RFC 9449 §5): a
    /// refresh needs a proof by that key. Trusted only once the token was found by its hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cnf: Option<Confirmation>,
}

/// The `events` claim of a logout token: exactly the back-channel logout event, whose value is
/// an empty object (§2.4).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogoutEvents {
    /// Named [`crate::backchannel::EVENT`].
    #[serde(rename = "http://schemas.openid.net/event/backchannel-logout")]
    pub backchannel_logout: Empty,
}

/// `{}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Empty {}

/// A logout token's claims (OIDC Back-Channel Logout 1.0 §2.4). It has no `nonce`, and its
/// kind is said by the header's `typ` (`logout+jwt`), not by a claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogoutTokenClaims {
    /// `iss`: the issuer (`{public_url}/realms/{realm}`).
    pub iss: String,
    /// `aud`: who the token is for.
    pub aud: ClientId,
    /// `iat`: when it was issued, in seconds since the epoch.
    pub iat: i64,
    /// `exp`: when it expires, in seconds since the epoch.
    pub exp: i64,
    /// `jti`: the token's unique id.
    pub jti: String,
    /// `sub`: the identity (for client credentials, the client).
    pub sub: Subject,
    /// `sid`: the SSO session.
    pub sid: SessionId,
    /// `events`: the back-channel logout event.
    pub events: LogoutEvents,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// An owned claim value (what a token read back holds).
    fn o<T: Clone>(v: T) -> Cow<'static, T> {
        Cow::Owned(v)
    }

    fn to_json<T: Serialize>(v: &T) -> Value {
        serde_json::to_value(v).unwrap()
    }

    /// Serializes to `expected` and reads back to the same value.
    fn round_trip<T>(v: &T, expected: Value)
    where
        T: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
    {
        assert_eq!(to_json(v), expected);
        let back: T = serde_json::from_value(expected).unwrap();
        assert_eq!(&back, v);
    }

    fn access_minimal() -> AccessTokenClaims<'static> {
        AccessTokenClaims {
            exp: 1300,
            iat: 1000,
            auth_time: 1000,
            jti: "j".into(),
            iss: "https://id/realms/r".into(),
            aud: "svc".into(),
            sub: o(Subject::new("svc")),
            typ: TokenTyp::Bearer,
            azp: o(ClientId::new("svc")),
            acr: ACR.into(),
            scope: "".into(),
            gid: o(GrantId::new("g")),
            session_state: None,
            sid: None,
            gty: None,
            client_id: None,
            service_id: None,
            preferred_username: None,
            groups: None,
            cnf: None,
            act: None,
        }
    }

    #[test]
    fn access_token_minimal() {
        round_trip(
            &access_minimal(),
            json!({
                "exp": 1300, "iat": 1000, "auth_time": 1000, "jti": "j",
                "iss": "https://id/realms/r", "aud": "svc", "sub": "svc", "typ": "Bearer",
                "azp": "svc", "acr": "1", "scope": "", "gid": "g",
            }),
        );
    }

    #[test]
    fn access_token_client_credentials() {
        let c = AccessTokenClaims {
            gty: Some(Gty::ClientCredentials),
            client_id: Some(o(ClientId::new("svc"))),
            scope: "groups".into(),
            ..access_minimal()
        };
        let v = to_json(&c);
        assert_eq!(v["gty"], "client_credentials");
        assert_eq!(v["client_id"], "svc");
        assert!(c.has_scope("groups") && !c.has_scope("openid"));
        round_trip(&c, v);
    }

    #[test]
    fn access_token_full() {
        let c = AccessTokenClaims {
            aud: "shop".into(),
            sub: o(Subject::new("u")),
            azp: o(ClientId::new("shop")),
            scope: "openid profile groups".into(),
            session_state: Some(o(SessionId::new("s"))),
            sid: Some(o(SessionId::new("s"))),
            service_id: Some("sv".into()),
            preferred_username: Some("alice".into()),
            groups: Some(vec!["staff".to_owned()].into()),
            ..access_minimal()
        };
        round_trip(
            &c,
            json!({
                "exp": 1300, "iat": 1000, "auth_time": 1000, "jti": "j",
                "iss": "https://id/realms/r", "aud": "shop", "sub": "u", "typ": "Bearer",
                "azp": "shop", "acr": "1", "scope": "openid profile groups", "gid": "g",
                "session_state": "s", "sid": "s", "service_id": "sv",
                "preferred_username": "alice", "groups": ["staff"],
            }),
        );
        assert_eq!(
            c.scopes().collect::<Vec<_>>(),
            ["openid", "profile", "groups"]
        );
    }

    #[test]
    fn access_token_typ_must_be_known() {
        let mut v = to_json(&access_minimal());
        v["typ"] = json!("Other");
        assert!(serde_json::from_value::<AccessTokenClaims>(v).is_err());
    }

    fn id_minimal() -> IdTokenClaims<'static> {
        IdTokenClaims {
            iss: "i".into(),
            typ: TokenTyp::Id,
            sub: o(Subject::new("u")),
            aud: o(ClientId::new("shop")),
            exp: 1300,
            iat: 1000,
            auth_time: 900,
            nonce: None,
            at_hash: "h".into(),
            azp: o(ClientId::new("shop")),
            acr: ACR.into(),
            amr: Vec::new(),
            sid: None,
            session_state: None,
            service_id: "sv".into(),
            profile: ProfileClaims::default(),
        }
    }

    #[test]
    fn id_token_minimal_has_no_profile_claims() {
        round_trip(
            &id_minimal(),
            json!({
                "iss": "i", "typ": "ID", "sub": "u", "aud": "shop", "exp": 1300, "iat": 1000,
                "auth_time": 900, "at_hash": "h", "azp": "shop", "acr": "1", "service_id": "sv",
            }),
        );
    }

    #[test]
    fn id_token_full_flattens_the_profile() {
        let c = IdTokenClaims {
            nonce: Some("n".into()),
            acr: "2".into(),
            amr: vec!["pop".into(), "hwk".into(), "user".into()],
            sid: Some(o(SessionId::new("s"))),
            session_state: Some(o(SessionId::new("s"))),
            profile: ProfileClaims {
                name: Some("Alice A".into()),
                preferred_username: Some("alice".into()),
                picture: Some("https://p/a.png".into()),
                updated_at: Some(1000),
                groups: Some(Vec::new().into()),
                address: Some(Address {
                    country: "SE".into(),
                }),
                locale: None,
            },
            ..id_minimal()
        };
        round_trip(
            &c,
            json!({
                "iss": "i", "typ": "ID", "sub": "u", "aud": "shop", "exp": 1300, "iat": 1000,
                "auth_time": 900, "nonce": "n", "at_hash": "h", "azp": "shop", "acr": "2",
                "amr": ["pop", "hwk", "user"], "sid": "s", "session_state": "s", "service_id": "sv", "name": "Alice A",
                "preferred_username": "alice", "picture": "https://p/a.png", "updated_at": 1000,
                "groups": [], "address": { "country": "SE" },
            }),
        );
    }

    #[test]
    fn refresh_token() {
        let minimal = RefreshTokenClaims {
            exp: 2800,
            iat: 1000,
            jti: "j".into(),
            iss: "i".into(),
            aud: "i".into(),
            sub: o(Subject::new("u")),
            typ: TokenTyp::Refresh,
            azp: o(ClientId::new("shop")),
            sid: None,
            session_state: None,
            scope: "openid".into(),
            gid: None,
            fam: None,
            cnf: None,
        };
        round_trip(
            &minimal,
            json!({
                "exp": 2800, "iat": 1000, "jti": "j", "iss": "i", "aud": "i", "sub": "u",
                "typ": "Refresh", "azp": "shop", "scope": "openid",
            }),
        );
        let full = RefreshTokenClaims {
            typ: TokenTyp::Offline,
            sid: Some(o(SessionId::new("s"))),
            session_state: Some(o(SessionId::new("s"))),
            scope: "openid offline_access".into(),
            gid: Some(o(GrantId::new("c.h"))),
            fam: Some("f".into()),
            ..minimal
        };
        round_trip(
            &full,
            json!({
                "exp": 2800, "iat": 1000, "jti": "j", "iss": "i", "aud": "i", "sub": "u",
                "typ": "Offline", "azp": "shop", "sid": "s", "session_state": "s", "gid": "c.h",
                "fam": "f", "scope": "openid offline_access",
            }),
        );
    }

    #[test]
    fn logout_token() {
        let c = LogoutTokenClaims {
            iss: "i".into(),
            aud: ClientId::new("shop"),
            iat: 1000,
            exp: 1120,
            jti: "j".into(),
            sub: Subject::new("u"),
            sid: SessionId::new("s"),
            events: LogoutEvents::default(),
        };
        round_trip(
            &c,
            json!({
                "iss": "i", "aud": "shop", "iat": 1000, "exp": 1120, "jti": "j", "sub": "u",
                "sid": "s", "events": { crate::backchannel::EVENT: {} },
            }),
        );
        assert_eq!(
            serde_json::to_string(&c.events).unwrap(),
            r#"{"http://schemas.openid.net/event/backchannel-logout":{}}"#
        );
    }

    #[test]
    fn a_token_whose_aud_is_not_its_client_is_for_a_resource_server() {
        let mut c: AccessTokenClaims = serde_json::from_value(serde_json::json!({
            "exp": 2, "iat": 1, "auth_time": 1, "jti": "j", "iss": "i", "aud": "shop",
            "sub": "u", "typ": "Bearer", "azp": "shop", "acr": "1", "scope": "openid", "gid": "g"
        }))
        .unwrap();
        assert!(!c.for_resource_server());
        c.aud = "https://api.example/".into();
        assert!(c.for_resource_server());
    }
}
