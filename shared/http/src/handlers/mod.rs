//! One module per group of endpoints. Each handler: parse, call one use case, render.

pub(crate) mod admin;
pub(crate) mod admin_ops;
pub(crate) mod admin_users;
pub(crate) mod app;
mod assets;
mod backchannel;
pub(crate) mod console;
pub(crate) mod device_api;
pub(crate) mod device_grant;
pub(crate) mod directory;
pub(crate) mod keycloak;
pub(crate) mod login;
pub(crate) mod logout;
pub(crate) mod metadata;
pub(crate) mod par;
pub(crate) mod passkeys;
pub(crate) mod registration;
pub(crate) mod resource;
pub(crate) mod token;
