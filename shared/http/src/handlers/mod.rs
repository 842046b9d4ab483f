//! One module per group of endpoints. Each handler: parse, call one use case, render.

pub mod app;
pub mod device_api;
pub mod device_grant;
pub mod directory;
pub mod keycloak;
pub mod login;
pub mod logout;
pub mod metadata;
pub mod registration;
pub mod resource;
pub mod token;
