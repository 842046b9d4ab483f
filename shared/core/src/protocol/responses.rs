//! The JSON answers of the token endpoint (RFC 6749 §5.1, spec 2.2), introspection (RFC 7662
//! §2.2, spec 2.3) and userinfo (OIDC Core §5.3, spec 2.4).

use serde::{Deserialize, Serialize};

use super::claims::{ProfileClaims, TokenTyp};

/// `token_type` (RFC 6749 §7.1; introspection's for a refresh token is Keycloak's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TokenType {
    /// `Bearer` (RFC 6750).
    Bearer,
    /// `DPoP` (RFC 9449 §5): the access token is bound to the client's key.
    DPoP,
    #[serde(rename = "refresh_token")]
    /// `refresh_token` (introspection of a refresh token).
    RefreshToken,
}

/// A successful token response. Its `Debug` never shows a token.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenResponse {
    /// The access token (a JWT).
    pub access_token: String,
    /// Seconds until the access token expires.
    pub expires_in: i64,
    /// 0 for an offline grant's and for no refresh token (as Keycloak).
    pub refresh_expires_in: i64,
    /// [`TokenType::Bearer`], or [`TokenType::DPoP`] for a DPoP-bound access token.
    pub token_type: TokenType,
    /// Keycloak's; always 0.
    #[serde(rename = "not-before-policy")]
    pub not_before_policy: i64,
    /// `scope`: the scopes, space-separated (RFC 6749 §3.3).
    pub scope: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The refresh token, for a grant that has one.
    pub refresh_token: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The ID token, with the `openid` scope.
    pub id_token: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `session_state`: the SSO session, as Keycloak names it.
    pub session_state: Option<String>,
    /// RFC 8693 §2.2.1: what a token exchange issued.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issued_token_type: Option<String>,
}

impl std::fmt::Debug for TokenResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenResponse")
            .field("access_token", &"<redacted>")
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "<redacted>"),
            )
            .field("id_token", &self.id_token.as_ref().map(|_| "<redacted>"))
            .field("expires_in", &self.expires_in)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

/// An introspection response: [`IntrospectionResponse::inactive`] is exactly
/// `{"active":false}`; an active one carries what the token's claims (or, for a refresh token,
/// its grant) say.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntrospectionResponse {
    /// Whether the token is live (RFC 7662 §2.2); alone when it is not.
    pub active: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `exp`: when it expires, in seconds since the epoch.
    pub exp: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `iat`: when it was issued, in seconds since the epoch.
    pub iat: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `auth_time`: when the person authenticated, in seconds since the epoch.
    pub auth_time: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `jti`: the token's unique id.
    pub jti: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `iss`: the issuer (`{public_url}/realms/{realm}`).
    pub iss: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `aud`: who the token is for.
    pub aud: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `sub`: the identity (for client credentials, the client).
    pub sub: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `typ`: the token's kind, as its `typ` claim.
    pub typ: Option<TokenTyp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `azp`: the client the token was issued to.
    pub azp: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `session_state`: the SSO session, as Keycloak names it.
    pub session_state: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `acr`: always `super::claims::ACR`.
    pub acr: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `scope`: the scopes, space-separated (RFC 6749 §3.3).
    pub scope: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `sid`: the SSO session.
    pub sid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `service_id`: the identity's service id (spec 2.4).
    pub service_id: Option<String>,
    /// With `groups` or `profile` (spec 2.3), `[]` when the identity has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `client_id`: the client the token was issued to.
    pub client_id: Option<String>,
    /// With `profile` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `token_type`: `Bearer`, `DPoP` or Keycloak's `refresh_token`.
    pub token_type: Option<TokenType>,
    /// `cnf`: the key a DPoP-bound token is bound to (RFC 9449 §6.2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cnf: Option<super::claims::Confirmation>,
    /// RFC 8693 §4.1: the agents acting for the person, for an exchanged token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub act: Option<super::claims::Actor>,
}

impl IntrospectionResponse {
    /// `{"active":false}`: not live, or not the caller's to see (RFC 7662 §2.2, §4).
    pub fn inactive() -> Self {
        Self::default()
    }
}

/// The userinfo response: `sub` and `service_id`, then what the scopes release; with `profile`
/// also the spec's spelling `peferred_username` and `username`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserinfoResponse<'a> {
    /// `sub`: the identity.
    pub sub: String,
    /// `service_id`: the identity's service id (spec 2.4).
    pub service_id: String,
    #[serde(flatten)]
    /// What the scopes release (flattened into the object).
    pub profile: ProfileClaims<'a>,
    /// Sic (spec 2.4), next to the standard `preferred_username`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peferred_username: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `username`: with `profile`, the identity's name (spec 2.4).
    pub username: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn round_trip<T>(v: &T, expected: Value)
    where
        T: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
    {
        assert_eq!(serde_json::to_value(v).unwrap(), expected);
        let back: T = serde_json::from_value(expected).unwrap();
        assert_eq!(&back, v);
    }

    #[test]
    fn token_response_minimal_and_full() {
        let minimal = TokenResponse {
            access_token: "at".into(),
            expires_in: 300,
            refresh_expires_in: 0,
            token_type: TokenType::Bearer,
            not_before_policy: 0,
            scope: String::new(),
            refresh_token: None,
            id_token: None,
            session_state: None,
            issued_token_type: None,
        };
        round_trip(
            &minimal,
            json!({
                "access_token": "at", "expires_in": 300, "refresh_expires_in": 0,
                "token_type": "Bearer", "not-before-policy": 0, "scope": "",
            }),
        );
        let full = TokenResponse {
            refresh_expires_in: 1800,
            scope: "openid profile".into(),
            refresh_token: Some("rt".into()),
            id_token: Some("it".into()),
            session_state: Some("s".into()),
            ..minimal
        };
        round_trip(
            &full,
            json!({
                "access_token": "at", "expires_in": 300, "refresh_expires_in": 1800,
                "token_type": "Bearer", "not-before-policy": 0, "scope": "openid profile",
                "refresh_token": "rt", "id_token": "it", "session_state": "s",
            }),
        );
        let printed = format!("{full:?}");
        for secret in ["\"at\"", "\"rt\"", "\"it\""] {
            assert!(!printed.contains(secret), "{printed}");
        }
    }

    #[test]
    fn inactive_is_exactly_active_false() {
        assert_eq!(
            serde_json::to_string(&IntrospectionResponse::inactive()).unwrap(),
            r#"{"active":false}"#
        );
        round_trip(
            &IntrospectionResponse::inactive(),
            json!({ "active": false }),
        );
    }

    #[test]
    fn introspection_of_an_access_token() {
        let r = IntrospectionResponse {
            active: true,
            exp: Some(1300),
            iat: Some(1000),
            auth_time: Some(900),
            jti: Some("j".into()),
            iss: Some("i".into()),
            aud: Some("shop".into()),
            sub: Some("u".into()),
            typ: Some(TokenTyp::Bearer),
            azp: Some("shop".into()),
            session_state: Some("s".into()),
            acr: Some("1".into()),
            scope: Some("openid profile groups".into()),
            sid: Some("s".into()),
            service_id: Some("sv".into()),
            groups: Some(vec!["staff".into()]),
            client_id: Some("shop".into()),
            username: Some("alice".into()),
            token_type: Some(TokenType::Bearer),
            cnf: None,
            act: None,
        };
        round_trip(
            &r,
            json!({
                "active": true, "exp": 1300, "iat": 1000, "auth_time": 900, "jti": "j",
                "iss": "i", "aud": "shop", "sub": "u", "typ": "Bearer", "azp": "shop",
                "session_state": "s", "acr": "1", "scope": "openid profile groups", "sid": "s",
                "service_id": "sv", "groups": ["staff"], "client_id": "shop",
                "username": "alice", "token_type": "Bearer",
            }),
        );
    }

    #[test]
    fn introspection_of_a_refresh_token() {
        let r = IntrospectionResponse {
            active: true,
            iat: Some(1000),
            iss: Some("i".into()),
            aud: Some("shop".into()),
            sub: Some("u".into()),
            typ: Some(TokenTyp::Offline),
            azp: Some("shop".into()),
            scope: Some("openid offline_access".into()),
            client_id: Some("shop".into()),
            token_type: Some(TokenType::RefreshToken),
            ..IntrospectionResponse::inactive()
        };
        round_trip(
            &r,
            json!({
                "active": true, "iat": 1000, "iss": "i", "aud": "shop", "sub": "u",
                "typ": "Offline", "azp": "shop", "scope": "openid offline_access",
                "client_id": "shop", "token_type": "refresh_token",
            }),
        );
    }

    #[test]
    fn userinfo_minimal_and_full() {
        let minimal = UserinfoResponse {
            sub: "u".into(),
            service_id: "sv".into(),
            profile: ProfileClaims::default(),
            peferred_username: None,
            username: None,
        };
        round_trip(&minimal, json!({ "sub": "u", "service_id": "sv" }));
        let full = UserinfoResponse {
            profile: ProfileClaims {
                name: Some("Alice A".into()),
                preferred_username: Some("alice".into()),
                picture: Some("https://p/a.png".into()),
                updated_at: Some(1000),
                groups: Some(vec!["staff".to_owned()].into()),
                address: None,
                locale: None,
            },
            peferred_username: Some("alice".into()),
            username: Some("alice".into()),
            ..minimal
        };
        round_trip(
            &full,
            json!({
                "sub": "u", "service_id": "sv", "name": "Alice A",
                "preferred_username": "alice", "peferred_username": "alice",
                "username": "alice", "picture": "https://p/a.png", "updated_at": 1000,
                "groups": ["staff"],
            }),
        );
    }
}
