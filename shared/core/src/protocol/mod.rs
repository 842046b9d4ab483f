//! Wire types: the exact field names of the specification and the RFCs.

pub mod discovery;
pub mod error;
pub mod secret;

pub use error::{OAuthError, OAuthErrorCode};
pub use secret::Secret;
