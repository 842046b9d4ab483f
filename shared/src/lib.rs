//! scanid's common crate: everything that decides anything.
//!
//! * [`protocol`]: wire types with the exact field names of the specification.
//! * [`domain`]: the decisions (discovery, client registration, ...), free of HTTP and AWS types.
//! * [`store`]: storage traits split by capability, and their adapters.
//! * [`keys`]: the [`keys::Signer`] trait, its adapters, JWT encoding and the JWKS.
//! * [`http`]: the edge: `lambda_http::Request` -> domain call -> response, one error mapping.
//! * [`routes`]: the one route table shared by `scanid serve`, the Lambda functions and
//!   `template.yaml`.
#![forbid(unsafe_code)]

pub mod app;
pub mod audit;
pub mod aws;
pub mod backchannel;
pub mod clock;
pub mod config;
pub mod domain;
pub mod http;
pub mod keys;
pub mod lambda;
pub mod protocol;
pub mod random;
pub mod routes;
pub mod store;
pub mod telemetry;

pub use app::App;
