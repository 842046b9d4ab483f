//! `scanid serve` and the operator commands: the local HTTP server on the route table, the
//! demo relying party, and opening the store and signing keys a configuration selects (the
//! embedded store or DynamoDB; local key files, KMS or KMS-envelope).
#![forbid(unsafe_code)]

pub mod demo;
pub mod open;
pub mod server;

#[allow(unused_imports)]
use scanid_core::{audit, clock, config, context, domain, keys, random, store, usecase, Context};
