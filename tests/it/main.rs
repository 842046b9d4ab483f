//! The integration tests, one binary (one link, one process): each module is one area, run
//! against the real `scanid` binary (`scanid serve`, the operator commands), the Lambda
//! handlers, or a server in this process on failing adapters. The shared helpers are in the
//! `scanid-tests` library (`tests/src/lib.rs`).
//!
//! All modules share this process: a test must not rely on process-wide state (environment
//! variables, fixed ports, a `static` that another module also writes). Servers listen on port
//! 0, data lives in a fresh temporary directory per test, and a child process gets its
//! environment through `Command::env`, never `std::env::set_var`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(
    clippy::disallowed_methods,
    reason = "tests drive a real server from outside: they wait on it and read the wall clock"
)]

mod acr;
mod admin;
mod admin_console;
mod admin_events;
mod admin_keys;
mod admin_users;
mod app_api;
mod attacks;
mod attacks_registration;
mod aws;
mod aws_faults;
mod ciba;
mod ciba_delegation;
mod ciba_timing;
mod cli;
mod client_keys;
mod client_secret_jwt;
mod conformance;
mod conformance_logout;
mod crash;
mod device_attacks;
mod device_grant;
mod directory;
mod dpop;
mod events;
mod events_writer;
mod executable;
mod fapi2_message_signing;
mod fapi2_security_profile;
mod fapi_profile;
mod faults;
mod geo;
mod hardening;
mod import_overwrite;
mod languages;
mod load_driver;
mod login;
mod login_status_url;
mod message_signing;
mod passkey_login;
mod passkeys;
mod properties;
mod push;
mod pushed_requests;
mod qr_safety;
mod refresh_rotation;
mod registration;
mod relying_parties;
mod request_object_by_value;
mod request_objects;
mod resource_indicators;
mod same_device;
mod serve;
mod session_revocation;
mod signing_algs;
mod token_exchange;
mod tokens;
mod webapp;
