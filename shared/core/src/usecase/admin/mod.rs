//! The admin REST API, as Keycloak's (`{auth_url}/admin/...`): what python-keycloak,
//! `@keycloak/keycloak-admin-client` and terraform call. Every call is authorized first
//! ([`crate::service::admin`]: a service account's token, or a person's from the console,
//! and its role, checked at the call),
//! then audited (who, what, which object; never a secret).
//!
//! * [`clients`]: clients (Keycloak's `ClientRepresentation`), their secrets and service
//!   accounts;
//! * [`console`]: the admin console's built-in client;
//! * [`identities`]: identities (Keycloak's users), their groups, sessions and keys;
//! * [`info`]: the server info and the realm the tools read when they start.

pub mod clients;
pub mod console;
pub mod events;
pub mod identities;
pub mod info;
pub mod keys;
