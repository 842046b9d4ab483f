//! The admin API's decisions: the roles a service account may hold, what each call needs, and
//! Keycloak's `ClientRepresentation` mapped onto scanid's clients ([`representation`]).
//! Identities as Keycloak's users: [`users`].
//!
//! Roles are Keycloak's `realm-management` roles, by their names; an operator gives them to a
//! client with `client_credentials` (its service account), or to a person (an identity, who
//! then uses the console, [`CONSOLE_CLIENT_ID`]), and they are read from the client or the
//! identity at every call, so a role taken away, a client or identity disabled or deleted,
//! stops its tokens at once.

pub mod events;
pub mod import;
pub mod representation;
pub mod users;

use serde::{Deserialize, Serialize};

/// The admin console's client id (`{auth_url}/admin/`): a public client of the realm (PKCE),
/// built in and reserved. A person's access token is an admin token only when it was issued
/// to this client, and only while the person holds an admin role.
pub const CONSOLE_CLIENT_ID: &str = "scanid-admin-console";

/// The console's redirect URI: its own page, `{public_url}/admin/`.
pub fn console_redirect_uri(public_url: &str) -> String {
    format!("{}/admin/", public_url.trim_end_matches('/'))
}

/// How long before its grant was made a console login's authentication may be: the console
/// needs a login made for it (a scan, `prompt=login`), never an older SSO session reused
/// silently by an authorization request without `prompt=login`.
pub const CONSOLE_FRESH_LOGIN_SECS: i64 = 600;

/// Was a console grant made at `granted_at` (seconds) from an authentication at `auth_time`
/// fresh enough ([`CONSOLE_FRESH_LOGIN_SECS`])?
pub const fn fresh_console_login(auth_time: i64, granted_at: i64) -> bool {
    granted_at - auth_time <= CONSOLE_FRESH_LOGIN_SECS
}

/// An admin role, as Keycloak names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AdminRole {
    /// Everything.
    RealmAdmin,
    /// Create, change and delete clients, and their secrets (implies `view-clients`).
    ManageClients,
    /// Read clients.
    ViewClients,
    /// Change identities (implies `view-users`).
    ManageUsers,
    /// Read identities.
    ViewUsers,
    /// Read events.
    ViewEvents,
}

impl AdminRole {
    /// Every role, in Keycloak's order.
    pub const ALL: [AdminRole; 6] = [
        AdminRole::RealmAdmin,
        AdminRole::ManageClients,
        AdminRole::ViewClients,
        AdminRole::ManageUsers,
        AdminRole::ViewUsers,
        AdminRole::ViewEvents,
    ];

    /// The role's name (`realm-admin`, `manage-clients`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            AdminRole::RealmAdmin => "realm-admin",
            AdminRole::ManageClients => "manage-clients",
            AdminRole::ViewClients => "view-clients",
            AdminRole::ManageUsers => "manage-users",
            AdminRole::ViewUsers => "view-users",
            AdminRole::ViewEvents => "view-events",
        }
    }

    /// A role by its name.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// Does holding `self` grant `needed`? `realm-admin` grants all; a `manage-` role grants
    /// its `view-` role.
    pub const fn grants(self, needed: AdminRole) -> bool {
        matches!(
            (self, needed),
            (AdminRole::RealmAdmin, _)
                | (
                    AdminRole::ManageClients,
                    AdminRole::ManageClients | AdminRole::ViewClients
                )
                | (AdminRole::ViewClients, AdminRole::ViewClients)
                | (
                    AdminRole::ManageUsers,
                    AdminRole::ManageUsers | AdminRole::ViewUsers
                )
                | (AdminRole::ViewUsers, AdminRole::ViewUsers)
                | (AdminRole::ViewEvents, AdminRole::ViewEvents)
        )
    }
}

/// What a call needs of its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Any admin role (server info, the realm).
    AnyRole,
    /// This role (or one that grants it).
    Role(AdminRole),
}

/// Do `held` roles allow a call that needs `need`? No role at all allows nothing.
pub fn permits(held: &[AdminRole], need: Need) -> bool {
    match need {
        Need::AnyRole => !held.is_empty(),
        Need::Role(r) => held.iter().any(|h| h.grants(r)),
    }
}

/// May a caller holding `held` change, delete or take the secret of a client holding
/// `target`? Only when `held` grants every role of `target`: otherwise a `manage-clients`
/// account could regenerate a `realm-admin` account's secret and act as it.
pub fn outranks(held: &[AdminRole], target: &[AdminRole]) -> bool {
    target.iter().all(|t| held.iter().any(|h| h.grants(*t)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_by_name_and_what_they_grant() {
        for r in AdminRole::ALL {
            assert_eq!(AdminRole::parse(r.as_str()), Some(r));
            assert_eq!(
                serde_json::to_value(r).unwrap(),
                serde_json::json!(r.as_str())
            );
            assert!(AdminRole::RealmAdmin.grants(r));
            assert!(r.grants(r));
        }
        assert_eq!(AdminRole::parse("admin"), None);
        let view = [AdminRole::ViewClients];
        assert!(permits(&view, Need::Role(AdminRole::ViewClients)));
        assert!(!permits(&view, Need::Role(AdminRole::ManageClients)));
        assert!(permits(
            &[AdminRole::ManageClients],
            Need::Role(AdminRole::ViewClients)
        ));
        assert!(!permits(
            &[AdminRole::ManageUsers],
            Need::Role(AdminRole::ViewClients)
        ));
        assert!(permits(&view, Need::AnyRole));
        assert!(!permits(&[], Need::AnyRole));
        assert!(!permits(&[], Need::Role(AdminRole::ViewEvents)));
    }

    #[test]
    fn a_console_login_is_fresh_or_refused() {
        assert!(fresh_console_login(1000, 1000));
        assert!(fresh_console_login(1000, 1000 + CONSOLE_FRESH_LOGIN_SECS));
        assert!(!fresh_console_login(1000, 1001 + CONSOLE_FRESH_LOGIN_SECS));
        assert!(!fresh_console_login(0, 86_400), "a day-old SSO session");
    }

    #[test]
    fn no_admin_reaches_a_stronger_account() {
        let manage = [AdminRole::ManageClients];
        assert!(outranks(&manage, &[]));
        assert!(outranks(&manage, &[AdminRole::ViewClients]));
        assert!(!outranks(&manage, &[AdminRole::RealmAdmin]));
        assert!(!outranks(
            &manage,
            &[AdminRole::ViewClients, AdminRole::ViewEvents]
        ));
        assert!(outranks(&[AdminRole::RealmAdmin], &AdminRole::ALL));
    }
}
