//! Wire types: the exact field names of the specification and the RFCs.

pub mod claims;
pub mod discovery;
pub mod error;
pub mod ids;
pub mod params;
pub mod requests;
pub mod responses;
pub mod secret;

pub use claims::{
    AccessTokenClaims, IdTokenClaims, LogoutTokenClaims, ProfileClaims, RefreshTokenClaims,
    TokenTyp,
};
pub use error::{OAuthError, OAuthErrorCode};
pub use ids::{ClientId, QrLoginId, RedirectUri, SessionId, Subject};
pub use params::Params;
pub use requests::{GrantType, TokenRequest};
pub use responses::{IntrospectionResponse, TokenResponse, TokenType, UserinfoResponse};
pub use secret::Secret;
