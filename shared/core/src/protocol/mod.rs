//! Wire types: the exact field names of the specification and the RFCs.
#![warn(missing_docs)]

pub mod claims;
pub mod discovery;
pub mod error;
pub mod ids;
pub mod params;
pub mod requests;
pub mod responses;
pub mod scopes;
pub mod secret;

pub use claims::{
    AccessTokenClaims, IdTokenClaims, LogoutTokenClaims, ProfileClaims, RefreshTokenClaims,
    TokenTyp,
};
pub use error::{OAuthError, OAuthErrorCode};
pub use ids::{ClientId, CodeHash, GrantId, QrLoginId, RedirectUri, SessionId, Subject};
pub use params::Params;
pub use requests::{GrantType, TokenRequest};
pub use responses::{IntrospectionResponse, TokenResponse, TokenType, UserinfoResponse};
pub use scopes::{ScopeError, Scopes};
pub use secret::Secret;
