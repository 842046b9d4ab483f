//! Use cases: one function per thing a user does (authorize, consent, exchange a code,
//! refresh, introspect, revoke, log out). Each reads through the repositories, asks the
//! domain for the decision, writes, signs, and returns what happened; none knows HTTP.

pub mod device;
pub mod device_grant;
pub mod directory;
pub mod login;
pub mod logout;
pub mod origins;
pub mod passkey;
pub mod passkey_login;
pub(crate) mod ratelimit;
pub mod registration;
pub mod resource;
pub mod token;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod device_grant_tests;

#[cfg(test)]
mod after_tests;

#[cfg(test)]
mod risk_tests;

#[cfg(test)]
mod stale_scan_tests;

#[cfg(test)]
mod passkey_login_tests;

#[cfg(test)]
mod passkey_tests;
