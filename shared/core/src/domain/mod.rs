//! The decisions. Nothing here knows about HTTP, Lambda or AWS (STYLE.md practice 5).

pub mod admin;
pub mod app_jws;
pub mod authn;
pub mod authorize;
pub mod claims_request;
pub mod client;
pub mod client_assertion;
pub mod consent;
pub(crate) mod device_grant;
pub mod discovery;
pub(crate) mod grant;
pub mod identity;
pub mod issuer;
pub mod locale;
pub mod login;
pub mod logout;
pub mod passkey;
pub mod photo;
pub mod pushed;
pub mod ratelimit;
pub mod registration;
pub mod request_object;
pub(crate) mod resource_indicator;
pub mod risk;
pub(crate) mod text;
pub(crate) mod token_checks;
