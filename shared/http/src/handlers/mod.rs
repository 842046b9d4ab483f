//! One module per group of endpoints. Each handler: parse, call the domain, render.

pub mod app;
pub mod directory;
pub mod keycloak;
pub mod login;
pub mod metadata;
pub mod token;
