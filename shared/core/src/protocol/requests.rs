//! The token request (RFC 6749 §4.1.3, §4.4.2, §6; RFC 7636 §4.5), read from its form.
//!
//! It is read in two steps because the endpoint checks in this order: `grant_type`
//! ([`TokenRequest::grant_type`]), then client authentication and whether the client may use
//! that grant type, then the grant type's own parameters ([`TokenRequest::parameters`]).

use super::Params;
use super::{OAuthError, OAuthErrorCode};
use serde::{Deserialize, Serialize};

/// The device authorization grant's `grant_type` (RFC 8628 §3.4).
pub const DEVICE_CODE_GRANT: &str = "urn:ietf:params:oauth:grant-type:device_code";

/// CIBA Core §10.1: the backchannel authentication grant's `grant_type`.
pub(crate) const CIBA_GRANT: &str = "urn:openid:params:grant-type:ciba";

/// RFC 8693 §2.1: the token exchange grant type.
pub(crate) const TOKEN_EXCHANGE_GRANT: &str = "urn:ietf:params:oauth:grant-type:token-exchange";

/// The grants a client may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrantType {
    /// RFC 6749 §4.1: `authorization_code`.
    AuthorizationCode,
    /// RFC 6749 §6: `refresh_token`.
    RefreshToken,
    /// RFC 6749 §4.4: `client_credentials`.
    ClientCredentials,
    /// RFC 8628: `urn:ietf:params:oauth:grant-type:device_code`.
    DeviceCode,
    /// RFC 8693: `urn:ietf:params:oauth:grant-type:token-exchange` (delegation to an agent).
    TokenExchange,
    /// OpenID CIBA Core 1.0: `urn:openid:params:grant-type:ciba` (a person approves on the
    /// phone a request the client started by the back channel).
    Ciba,
}

impl GrantType {
    /// The `grant_type` parameter's value.
    pub const fn as_str(self) -> &'static str {
        match self {
            GrantType::AuthorizationCode => "authorization_code",
            GrantType::RefreshToken => "refresh_token",
            GrantType::ClientCredentials => "client_credentials",
            GrantType::DeviceCode => DEVICE_CODE_GRANT,
            GrantType::TokenExchange => TOKEN_EXCHANGE_GRANT,
            GrantType::Ciba => CIBA_GRANT,
        }
    }
}

/// A token request's grant and its parameters (client credentials are read separately).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum TokenRequest<'a> {
    /// `authorization_code` (RFC 6749 §4.1.3).
    AuthorizationCode {
        /// `code`.
        code: &'a str,
        /// `redirect_uri`, as sent at authorization.
        redirect_uri: &'a str,
        /// `code_verifier` (RFC 7636 §4.5).
        code_verifier: Option<&'a str>,
    },
    /// `refresh_token` (RFC 6749 §6).
    RefreshToken {
        /// `refresh_token`.
        refresh_token: &'a str,
        /// `scope`: a narrowing of the granted scope, or what is asked for.
        scope: Option<&'a str>,
    },
    /// `client_credentials` (RFC 6749 §4.4).
    ClientCredentials {
        /// `scope`: a narrowing of the granted scope, or what is asked for.
        scope: Option<&'a str>,
    },
    /// RFC 8628 §3.4.
    DeviceCode {
        /// `device_code` (RFC 8628 §3.4).
        device_code: &'a str,
    },
    /// RFC 8693 §2.1: a person's access token exchanged by an agent for a narrower one.
    TokenExchange {
        /// `subject_token`: the access token the agent acts with.
        subject_token: &'a str,
        /// `scope`: a narrowing of the subject token's scopes.
        scope: Option<&'a str>,
        /// `audience`: the client the new token is for (another agent, for a chain).
        audience: Option<&'a str>,
    },
    /// CIBA Core §10.1: the poll for a backchannel authentication request.
    Ciba {
        /// `auth_req_id`.
        auth_req_id: &'a str,
    },
}

/// Never prints a code, verifier or refresh token.
impl std::fmt::Debug for TokenRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::AuthorizationCode { redirect_uri, .. } => f
                .debug_struct("AuthorizationCode")
                .field("redirect_uri", redirect_uri)
                .finish_non_exhaustive(),
            Self::RefreshToken { scope, .. } => f
                .debug_struct("RefreshToken")
                .field("scope", scope)
                .finish_non_exhaustive(),
            Self::ClientCredentials { scope } => f
                .debug_struct("ClientCredentials")
                .field("scope", scope)
                .finish(),
            Self::DeviceCode { .. } => f.debug_struct("DeviceCode").finish_non_exhaustive(),
            Self::Ciba { .. } => f.debug_struct("Ciba").finish_non_exhaustive(),
            Self::TokenExchange {
                scope, audience, ..
            } => f
                .debug_struct("TokenExchange")
                .field("scope", scope)
                .field("audience", audience)
                .finish_non_exhaustive(),
        }
    }
}

fn invalid_request(d: &'static str) -> OAuthError {
    OAuthError::invalid_request(d)
}

impl<'a> TokenRequest<'a> {
    /// The `grant_type`: required, once, one of the three scanid supports.
    pub fn grant_type(params: &Params) -> Result<GrantType, OAuthError> {
        let grant_type = params
            .one("grant_type")
            .map_err(|_| invalid_request("grant_type is repeated"))?
            .ok_or_else(|| invalid_request("grant_type is required"))?;
        match grant_type {
            "authorization_code" => Ok(GrantType::AuthorizationCode),
            "refresh_token" => Ok(GrantType::RefreshToken),
            "client_credentials" => Ok(GrantType::ClientCredentials),
            DEVICE_CODE_GRANT => Ok(GrantType::DeviceCode),
            TOKEN_EXCHANGE_GRANT => Ok(GrantType::TokenExchange),
            CIBA_GRANT => Ok(GrantType::Ciba),
            _ => Err(OAuthError::new(
                OAuthErrorCode::UnsupportedGrantType,
                "supported: authorization_code, refresh_token, client_credentials, urn:ietf:params:oauth:grant-type:device_code, urn:ietf:params:oauth:grant-type:token-exchange, urn:openid:params:grant-type:ciba",
            )),
        }
    }

    /// The parameters of a `grant_type` request: each at most once, the required ones present
    /// (an empty value counts as absent).
    pub fn parameters(grant_type: GrantType, params: &'a Params) -> Result<Self, OAuthError> {
        let one = |n: &'static str| {
            params
                .one(n)
                .map_err(|_| invalid_request("a parameter is repeated"))
        };
        Ok(match grant_type {
            GrantType::AuthorizationCode => Self::AuthorizationCode {
                code: one("code")?.ok_or_else(|| invalid_request("code is required"))?,
                redirect_uri: one("redirect_uri")?
                    .ok_or_else(|| invalid_request("redirect_uri is required"))?,
                code_verifier: one("code_verifier")?,
            },
            GrantType::RefreshToken => Self::RefreshToken {
                refresh_token: one("refresh_token")?
                    .ok_or_else(|| invalid_request("refresh_token is required"))?,
                scope: one("scope")?,
            },
            GrantType::ClientCredentials => Self::ClientCredentials {
                scope: one("scope")?,
            },
            GrantType::DeviceCode => Self::DeviceCode {
                device_code: one("device_code")?
                    .ok_or_else(|| invalid_request("device_code is required"))?,
            },
            GrantType::TokenExchange => Self::token_exchange(params)?,
            GrantType::Ciba => Self::Ciba {
                auth_req_id: one("auth_req_id")?
                    .ok_or_else(|| invalid_request("auth_req_id is required"))?,
            },
        })
    }

    /// Both steps at once (for a caller that has no client to authenticate in between).
    pub fn from_params(params: &'a Params) -> Result<Self, OAuthError> {
        Self::parameters(Self::grant_type(params)?, params)
    }

    /// The request's grant type.
    pub fn kind(&self) -> GrantType {
        match self {
            Self::AuthorizationCode { .. } => GrantType::AuthorizationCode,
            Self::RefreshToken { .. } => GrantType::RefreshToken,
            Self::ClientCredentials { .. } => GrantType::ClientCredentials,
            Self::DeviceCode { .. } => GrantType::DeviceCode,
            Self::TokenExchange { .. } => GrantType::TokenExchange,
            Self::Ciba { .. } => GrantType::Ciba,
        }
    }

    /// RFC 8693 §2.1: `subject_token` of type access token (or JWT: scanid's access tokens
    /// are JWTs); no `actor_token` (the actor is the authenticated client); only an access
    /// token asked for; at most one `audience`.
    fn token_exchange(params: &'a Params) -> Result<Self, OAuthError> {
        let one = |n: &'static str| {
            params
                .one(n)
                .map_err(|_| invalid_request("a parameter is repeated"))
        };
        let subject_token =
            one("subject_token")?.ok_or_else(|| invalid_request("subject_token is required"))?;
        match one("subject_token_type")? {
            Some(ACCESS_TOKEN_TYPE | JWT_TOKEN_TYPE) => {}
            Some(_) => {
                return Err(invalid_request(
                    "subject_token_type: only urn:ietf:params:oauth:token-type:access_token (or :jwt) is accepted",
                ))
            }
            None => return Err(invalid_request("subject_token_type is required")),
        }
        if one("actor_token")?.is_some() || one("actor_token_type")?.is_some() {
            return Err(invalid_request(
                "actor_token is not accepted: the actor is the authenticated client",
            ));
        }
        match one("requested_token_type")? {
            None | Some(ACCESS_TOKEN_TYPE) => {}
            Some(_) => {
                return Err(invalid_request(
                    "requested_token_type: only urn:ietf:params:oauth:token-type:access_token is issued",
                ))
            }
        }
        if params.all("audience").len() > 1 {
            return Err(OAuthError::new(
                OAuthErrorCode::InvalidTarget,
                "one audience at most",
            ));
        }
        Ok(Self::TokenExchange {
            subject_token,
            scope: one("scope")?,
            audience: params
                .all("audience")
                .first()
                .copied()
                .filter(|a| !a.is_empty()),
        })
    }
}

/// RFC 8693 §3: the token type URI of an access token (what the exchange issues).
pub(crate) const ACCESS_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:access_token";
/// RFC 8693 §3: the token type URI of a JWT.
pub(crate) const JWT_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:jwt";

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
        let e = TokenRequest::from_params(&p).unwrap_err();
        (e.error, e.error_description.into_owned())
    }

    #[test]
    fn each_grant_type_minimal_and_full() {
        let p = params(&[
            ("grant_type", "authorization_code"),
            ("code", "c"),
            ("redirect_uri", "https://rp/cb"),
        ]);
        let r = TokenRequest::from_params(&p).unwrap();
        assert_eq!(
            r,
            TokenRequest::AuthorizationCode {
                code: "c",
                redirect_uri: "https://rp/cb",
                code_verifier: None
            }
        );
        assert_eq!(r.kind(), GrantType::AuthorizationCode);
        let p = params(&[
            ("grant_type", "authorization_code"),
            ("code", "c"),
            ("redirect_uri", "https://rp/cb"),
            ("code_verifier", "v"),
            ("client_id", "ignored here"),
        ]);
        assert_eq!(
            TokenRequest::from_params(&p).unwrap(),
            TokenRequest::AuthorizationCode {
                code: "c",
                redirect_uri: "https://rp/cb",
                code_verifier: Some("v")
            }
        );
        let p = params(&[("grant_type", "refresh_token"), ("refresh_token", "rt")]);
        assert_eq!(
            TokenRequest::from_params(&p).unwrap(),
            TokenRequest::RefreshToken {
                refresh_token: "rt",
                scope: None
            }
        );
        let p = params(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", "rt"),
            ("scope", "openid"),
        ]);
        assert_eq!(
            TokenRequest::from_params(&p).unwrap(),
            TokenRequest::RefreshToken {
                refresh_token: "rt",
                scope: Some("openid")
            }
        );
        let p = params(&[("grant_type", "client_credentials"), ("scope", "")]);
        let r = TokenRequest::from_params(&p).unwrap();
        assert_eq!(r, TokenRequest::ClientCredentials { scope: None });
        assert_eq!(r.kind(), GrantType::ClientCredentials);
    }

    type Case<'a> = (&'a [(&'a str, &'a str)], OAuthErrorCode, &'a str);

    #[test]
    fn the_errors_of_the_token_endpoint() {
        use OAuthErrorCode::*;
        let cases: &[Case] = &[
            (&[], InvalidRequest, "grant_type is required"),
            (
                &[("grant_type", "")],
                InvalidRequest,
                "grant_type is required",
            ),
            (
                &[
                    ("grant_type", "refresh_token"),
                    ("grant_type", "refresh_token"),
                ],
                InvalidRequest,
                "grant_type is repeated",
            ),
            (
                &[("grant_type", "password")],
                UnsupportedGrantType,
                "supported: authorization_code, refresh_token, client_credentials, urn:ietf:params:oauth:grant-type:device_code, urn:ietf:params:oauth:grant-type:token-exchange, urn:openid:params:grant-type:ciba",
            ),
            (
                &[("grant_type", "authorization_code"), ("redirect_uri", "r")],
                InvalidRequest,
                "code is required",
            ),
            (
                &[("grant_type", "authorization_code"), ("code", "c")],
                InvalidRequest,
                "redirect_uri is required",
            ),
            (
                &[
                    ("grant_type", "authorization_code"),
                    ("code", "c"),
                    ("code", "d"),
                    ("redirect_uri", "r"),
                ],
                InvalidRequest,
                "a parameter is repeated",
            ),
            (
                &[
                    ("grant_type", "authorization_code"),
                    ("code", "c"),
                    ("redirect_uri", "r"),
                    ("code_verifier", "v"),
                    ("code_verifier", "w"),
                ],
                InvalidRequest,
                "a parameter is repeated",
            ),
            (
                &[("grant_type", "refresh_token")],
                InvalidRequest,
                "refresh_token is required",
            ),
            (
                &[
                    ("grant_type", "refresh_token"),
                    ("refresh_token", "rt"),
                    ("scope", "a"),
                    ("scope", "b"),
                ],
                InvalidRequest,
                "a parameter is repeated",
            ),
            (
                &[
                    ("grant_type", "client_credentials"),
                    ("scope", "a"),
                    ("scope", "b"),
                ],
                InvalidRequest,
                "a parameter is repeated",
            ),
        ];
        for (pairs, code, description) in cases {
            assert_eq!(
                refused(pairs),
                (*code, (*description).to_owned()),
                "{pairs:?}"
            );
        }
    }

    #[test]
    fn grant_type_is_read_before_the_parameters() {
        // The endpoint authenticates the client between the two steps: a request for a known
        // grant type passes the first step whatever its other parameters.
        let p = params(&[("grant_type", "authorization_code")]);
        assert_eq!(
            TokenRequest::grant_type(&p).unwrap(),
            GrantType::AuthorizationCode
        );
        assert!(TokenRequest::parameters(GrantType::AuthorizationCode, &p).is_err());
    }
}
