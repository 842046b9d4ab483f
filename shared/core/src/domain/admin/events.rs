//! scanid's audit event names as Keycloak's event types (`EventType`), for the admin API's
//! `GET .../events`: a name maps to Keycloak's type where Keycloak has one, and an outcome
//! other than `success` to its `_ERROR` twin; a name Keycloak has no type for keeps its own,
//! upper-cased (`login.started` is `LOGIN_STARTED`). scanid's name itself is always in the
//! event's `details.scanid_event`.

/// Whether an audit outcome is a failure (Keycloak's `error`): anything but the outcomes
/// that say it happened (`success`, `approved`, `registered`, ...).
pub fn is_failure(outcome: &str) -> bool {
    !matches!(
        outcome,
        "success" | "approved" | "updated" | "registered" | "delivered" | "deleted" | "granted"
    )
}

/// Keycloak's type of the event `name` with `outcome` and `detail` (the grant type of
/// `token.issued`).
pub fn keycloak_type(name: &str, outcome: &str, detail: Option<&str>) -> String {
    let kc = match (name, detail) {
        ("login.approved", _) => Some("LOGIN"),
        ("login.denied" | "login.refused" | "login.cancelled", _) => Some("LOGIN_ERROR"),
        ("consent.granted", _) => Some("GRANT_CONSENT"),
        ("consent.denied", _) => Some("GRANT_CONSENT_ERROR"),
        ("consent.withdrawn", _) => Some("REVOKE_GRANT"),
        ("token.issued", Some("urn:ietf:params:oauth:grant-type:token-exchange")) => {
            Some("TOKEN_EXCHANGE")
        }
        ("code.redeemed", _) => Some("CODE_TO_TOKEN"),
        ("code.replayed", _) => Some("CODE_TO_TOKEN_ERROR"),
        ("refresh.rotated", _) => Some("REFRESH_TOKEN"),
        ("refresh.reused", _) => Some("REFRESH_TOKEN_ERROR"),
        ("token.issued", Some("client_credentials")) => Some("CLIENT_LOGIN"),
        ("token.issued", Some("urn:ietf:params:oauth:grant-type:device_code")) => {
            Some("OAUTH2_DEVICE_CODE_TO_TOKEN")
        }
        ("client_auth.failed", _) => Some("CLIENT_LOGIN_ERROR"),
        ("logout", _) => Some("LOGOUT"),
        ("identity.created", _) => Some("REGISTER"),
        ("identity.deleted", _) => Some("DELETE_ACCOUNT"),
        ("token.revoked", _) => Some("REVOKE_GRANT"),
        ("client.registered", _) => Some("CLIENT_REGISTER"),
        ("client.updated", _) => Some("CLIENT_UPDATE"),
        ("client.deleted", _) => Some("CLIENT_DELETE"),
        ("device_authorization.started", _) => Some("OAUTH2_DEVICE_AUTH"),
        ("passkey.added" | "device_key.replaced", _) => Some("UPDATE_CREDENTIAL"),
        ("key.removed", _) => Some("REMOVE_CREDENTIAL"),
        _ => None,
    };
    match kc {
        Some(t) if is_failure(outcome) && !t.ends_with("_ERROR") => format!("{t}_ERROR"),
        Some(t) => t.to_owned(),
        None => name.to_ascii_uppercase().replace('.', "_"),
    }
}

/// Keycloak's `RealmEventsConfigRepresentation` of how events are kept: both kinds (user events
/// and the admin API's) when there is an event store (`stored`), each for `retention_secs`;
/// no listeners, Keycloak's default types, no admin representations.
pub fn events_config(stored: bool, retention_secs: i64) -> serde_json::Value {
    serde_json::json!({
        "eventsEnabled": stored,
        "eventsExpiration": retention_secs,
        "eventsListeners": [],
        "enabledEventTypes": [],
        "adminEventsEnabled": stored,
        "adminEventsDetailsEnabled": false,
    })
}

/// Keycloak's `OperationType` of an admin call (`clients.create` is `CREATE`).
pub fn operation_type(op: &str) -> &'static str {
    let verb = op.rsplit('.').next().unwrap_or_default();
    match verb {
        "create" | "import" | "add" => "CREATE",
        "update" | "regenerate_secret" | "rotate" | "disable" | "enable" => "UPDATE",
        "delete" | "remove" => "DELETE",
        _ => "ACTION",
    }
}

/// Keycloak's `ResourceType` of an admin call (`clients.create` is `CLIENT`).
pub fn resource_type(op: &str) -> &'static str {
    match op.split('.').next().unwrap_or_default() {
        "clients" => "CLIENT",
        "users" | "identities" => "USER",
        "groups" => "GROUP_MEMBERSHIP",
        "keys" => "COMPONENT",
        "realm" | "import" | "events" | "serverinfo" => "REALM",
        _ => "REALM",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_to_keycloak_types_and_failures_to_their_errors() {
        assert_eq!(keycloak_type("login.approved", "success", None), "LOGIN");
        assert_eq!(keycloak_type("login.approved", "approved", None), "LOGIN");
        assert_eq!(keycloak_type("login.denied", "denied", None), "LOGIN_ERROR");
        assert_eq!(
            keycloak_type("token.issued", "success", Some("client_credentials")),
            "CLIENT_LOGIN"
        );
        assert_eq!(
            keycloak_type("token.issued", "success", Some("authorization_code")),
            "TOKEN_ISSUED"
        );
        assert_eq!(keycloak_type("logout", "failed", None), "LOGOUT_ERROR");
        assert_eq!(
            keycloak_type("login.started", "success", None),
            "LOGIN_STARTED"
        );
        assert_eq!(operation_type("clients.create"), "CREATE");
        assert_eq!(resource_type("clients.list"), "CLIENT");
    }
}
