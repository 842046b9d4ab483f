//! The admin API's decisions: the roles a service account may hold, what each call needs, and
//! Keycloak's `ClientRepresentation` mapped onto scanid's clients ([`representation`]).
//!
//! Roles are Keycloak's `realm-management` roles, by their names; an operator gives them to a
//! client with `client_credentials` (its service account), and they are read from the client
//! at every call, so a role taken away, a client disabled or deleted, stops its tokens at once.

pub mod events;
pub mod import;
pub mod representation;

use serde::{Deserialize, Serialize};

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
