//! scanid's core: everything that decides anything, with no adapter linked in.
//!
//! * [`protocol`]: wire types with the exact field names of the specification.
//! * [`domain`]: the decisions (discovery, client registration, ...), free of HTTP and AWS types.
//! * [`usecase`]: one function per thing a user does, over the repositories and the signer.
//! * [`service`]: what several use cases share (signed app requests, sessions, token
//!   issuance, limits); use cases import services, never each other.
//! * [`store`]: the record primitive, the repositories over it, and test doubles.
//! * [`keys`]: the [`keys::Signer`] trait, local keys, the key set, JWT encoding and the JWKS.
//! * [`answer`]: how each error is answered (its status and code), declared with it.
//! * [`context`]: the context every handler gets (settings, store, keys, clock, randomness).
//!
//! The adapters live in their own crates (`scanid-sqlite`, `scanid-aws`), the HTTP edge in
//! `scanid-http`, so that a Lambda function links only what it uses.
#![forbid(unsafe_code)]
#![warn(unreachable_pub)]
#![warn(missing_docs)]

pub mod answer;
pub mod audit;
pub mod backchannel;
pub mod client_jwks;
pub mod clock;
pub mod config;
pub mod context;
pub mod domain;
pub mod geoip;
pub mod keys;
pub mod protocol;
pub mod random;
pub mod reach;
pub mod service;
pub mod store;
#[cfg(any(test, feature = "test-support"))]
pub mod strategies;
pub mod telemetry;
#[cfg(any(test, feature = "test-support"))]
pub mod testing;
pub mod usecase;
pub mod webpush;

#[cfg(test)]
mod layers;
#[cfg(test)]
mod properties;

pub use context::Context;

/// What an adapter's error carries: the underlying error itself (an SDK or SQLite error, or a
/// message where there is none), so the cause chain reaches the log.
pub type Cause = Box<dyn std::error::Error + Send + Sync>;
