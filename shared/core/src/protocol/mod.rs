//! Wire types: the exact field names of the specification and the RFCs.
#![warn(missing_docs)]

pub(crate) mod alg;
pub mod app_request;
pub(crate) mod claims;
pub(crate) mod discovery;
pub(crate) mod error;
pub(crate) mod ids;
pub(crate) mod params;
pub(crate) mod requests;
pub(crate) mod responses;
pub(crate) mod scopes;
pub(crate) mod secret;
pub mod webauthn;

pub use alg::Alg;
pub use claims::{
    AccessTokenClaims, IdTokenClaims, LogoutTokenClaims, ProfileClaims, RefreshTokenClaims,
    TokenTyp,
};
pub use error::{OAuthError, OAuthErrorCode};
pub use ids::{ClientId, CodeHash, GrantId, IdError, QrLoginId, RedirectUri, SessionId, Subject};
pub use params::Params;
pub use requests::{GrantType, TokenRequest};
pub use responses::{IntrospectionResponse, TokenResponse, TokenType, UserinfoResponse};
pub use scopes::{ScopeError, Scopes};
pub use secret::Secret;
