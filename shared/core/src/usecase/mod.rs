//! Use cases: one function per thing a user does (authorize, consent, exchange a code,
//! refresh, introspect, revoke, log out, and what the app does, [`app`]). Each reads through
//! the repositories, asks the domain for the decision, writes, signs, and returns what
//! happened; none knows HTTP, and none imports another: what several share is a service
//! ([`crate::service`]).

pub mod admin;
pub mod app;
pub mod ciba;
pub mod device_grant;
pub mod directory;
pub mod login;
pub mod logout;
pub mod origins;
pub mod par;
pub mod passkey_login;
pub mod registration;
pub mod resource;
pub mod token;

#[cfg(test)]
mod tests;
