//! `scanid serve` and the operator commands: the local HTTP server on the route table, the
//! demo relying party, and opening the store and signing keys a configuration selects (the
//! embedded store or DynamoDB; local key files, KMS or KMS-envelope).
#![forbid(unsafe_code)]
#![warn(unreachable_pub)]
#![warn(missing_docs)]

pub mod demo;
pub mod open;
pub mod server;
mod stall;

use scanid_core::{clock, domain, keys, protocol, random, store, usecase, Context};
