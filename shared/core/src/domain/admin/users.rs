//! Keycloak's `UserRepresentation`, `GroupRepresentation`, `UserSessionRepresentation` and
//! `CredentialRepresentation` mapped onto scanid's identities, their groups, SSO sessions and
//! keys; which identities a search names; what a `PUT` of a user may change (only `enabled`).
//!
//! An identity's `id` is its `sub`, its `username` its name in the directory. A group's `id`
//! is its name (scanid keeps groups as names on the identity, the `groups` claim; there is no
//! group record), its `path` `/` and the name.

use serde_json::{json, Map, Value};

use crate::domain::identity::Identity;
use crate::domain::login::SsoSession;
use crate::domain::passkey::Passkey;

/// The device key's credential id in `.../credentials`.
pub const DEVICE_KEY_ID: &str = "device-key";

/// An identity as Keycloak's `UserRepresentation`.
pub fn to_user(i: &Identity) -> Value {
    json!({
        "id": i.sub.as_str(),
        "username": i.name,
        "enabled": !i.disabled,
        "emailVerified": false,
        "firstName": "",
        "lastName": "",
        "createdTimestamp": i.created_at.millis(),
        "attributes": { "service_id": [i.service_id] },
        "totp": false,
        "disableableCredentialTypes": [],
        "requiredActions": [],
        "notBefore": i.tokens_not_before.map_or(0, |t| t.secs()),
        "access": {
            "manageGroupMembership": true,
            "view": true,
            "mapRoles": false,
            "impersonate": false,
            "manage": true,
        },
    })
}

/// Which identities a list or count asks for (`?search=&username=&exact=&first=&max=`, and
/// Keycloak's `enabled`, `q`, `email`, `firstName`, `lastName`).
#[derive(Debug, Clone, Default)]
pub struct UserQuery {
    /// `search`: a substring (case-insensitive) of the username, or the exact `sub` or
    /// `service_id`; Keycloak's `*` wildcards are ignored, `"..."` is an exact username.
    pub search: Option<String>,
    /// `username`: a substring (case-insensitive); exact with `exact=true`.
    pub username: Option<String>,
    /// `exact=true`.
    pub exact: bool,
    /// `enabled`: only enabled (`true`) or disabled (`false`) identities.
    pub enabled: Option<bool>,
    /// `q=service_id:...`: the attribute, exactly.
    pub service_id: Option<String>,
    /// `email`, `firstName`, `lastName` or another `q` attribute asked for with a value:
    /// scanid has none, so nothing matches.
    pub unmatchable: bool,
    /// `first`: how many to skip.
    pub first: usize,
    /// `max`: at most this many; Keycloak's default, 100, when absent.
    pub max: Option<usize>,
}

impl UserQuery {
    /// Does identity `i` answer the query (before `first`/`max`)?
    pub fn matches(&self, i: &Identity) -> bool {
        if self.unmatchable {
            return false;
        }
        let name = i.name.to_lowercase();
        let search_ok = match self.search.as_deref().map(str::trim) {
            None | Some("") | Some("*") => true,
            Some(s) if s.len() > 1 && s.starts_with('"') && s.ends_with('"') => {
                name == s[1..s.len() - 1].to_lowercase()
            }
            Some(s) => {
                let s = s.trim_matches('*').to_lowercase();
                name.contains(&s) || i.sub.as_str() == s || i.service_id == s
            }
        };
        let username_ok = match &self.username {
            None => true,
            Some(u) if self.exact => name == u.to_lowercase(),
            Some(u) => name.contains(&u.to_lowercase()),
        };
        search_ok
            && username_ok
            && self.enabled.is_none_or(|e| e != i.disabled)
            && self.service_id.as_ref().is_none_or(|s| *s == i.service_id)
    }
}

/// What a `PUT .../users/{id}` body asks of identity `i`: `Some(enabled)` or nothing. Every
/// other field either says what the identity already is (or what scanid does not have, left
/// empty), and is ignored, or would change something scanid cannot: a 400 naming it.
pub fn update_of(body: &Value, i: &Identity) -> Result<Option<bool>, String> {
    let Some(obj) = body.as_object() else {
        return Err("the body must be a JSON object (a UserRepresentation)".into());
    };
    let refuse = |field: &str, why: &str| Err(format!("{field}: {why}"));
    for (k, v) in obj {
        match k.as_str() {
            "enabled" if !v.is_boolean() && !v.is_null() => {
                return refuse(k, "must be true or false")
            }
            "id" if !v.is_null() && v.as_str() != Some(i.sub.as_str()) => {
                return refuse(k, "cannot change (it is the identity's sub)")
            }
            "username"
                if !v.is_null()
                    && v.as_str().map(str::to_lowercase) != Some(i.name.to_lowercase()) =>
            {
                return refuse(
                    k,
                    "cannot change (the identity's name is its own, set in its app)",
                )
            }
            "firstName" | "lastName" | "email" if !empty(v) => {
                return refuse(k, "scanid identities have none")
            }
            "emailVerified" | "totp" if v.as_bool() == Some(true) => {
                return refuse(k, "scanid identities have none")
            }
            "credentials"
            | "requiredActions"
            | "federatedIdentities"
            | "realmRoles"
            | "clientRoles"
            | "clientConsents"
            | "socialLinks"
                if !empty(v) =>
            {
                return refuse(k, "not supported by scanid")
            }
            "groups" if !empty(v) && !same_groups(v, i) => {
                return refuse(
                    k,
                    "change groups with PUT or DELETE .../users/{id}/groups/{groupId}",
                )
            }
            "attributes" => check_attributes(v, i)?,
            _ => {}
        }
    }
    Ok(obj.get("enabled").and_then(Value::as_bool))
}

fn empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

fn same_groups(v: &Value, i: &Identity) -> bool {
    let Some(given) = v.as_array() else {
        return false;
    };
    let mut given: Vec<&str> = given
        .iter()
        .filter_map(Value::as_str)
        .map(|g| g.strip_prefix('/').unwrap_or(g))
        .collect();
    let mut have: Vec<&str> = i.groups.iter().map(String::as_str).collect();
    given.sort_unstable();
    have.sort_unstable();
    given == have
}

/// `attributes`: `service_id` may only say what it is; scanid keeps no other attribute.
fn check_attributes(v: &Value, i: &Identity) -> Result<(), String> {
    let empty_map = Map::new();
    let map = match v {
        Value::Null => &empty_map,
        Value::Object(m) => m,
        _ => return Err("attributes: must be an object".into()),
    };
    for (k, v) in map {
        let same = match v {
            Value::Array(a) => a.len() == 1 && a[0].as_str() == Some(i.service_id.as_str()),
            Value::String(s) => *s == i.service_id,
            _ => false,
        };
        if k == "service_id" && !same {
            return Err("attributes.service_id: cannot change".into());
        }
        if k != "service_id" && !empty(v) {
            return Err(format!(
                "attributes.{k}: scanid keeps no attributes but service_id"
            ));
        }
    }
    Ok(())
}

/// A group name scanid accepts (as `scanid identity add-group`): 1 to 64 of
/// `A-Z a-z 0-9 . _ - : /`.
pub fn valid_group(g: &str) -> bool {
    (1..=64).contains(&g.len())
        && g.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b':' | b'/'))
}

/// A group as Keycloak's `GroupRepresentation`.
pub fn to_group(name: &str) -> Value {
    json!({
        "id": name,
        "name": name,
        "path": format!("/{name}"),
        "subGroupCount": 0,
        "subGroups": [],
        "attributes": {},
        "realmRoles": [],
        "clientRoles": {},
        "access": { "view": true, "manage": true, "manageMembership": true },
    })
}

/// An SSO session as Keycloak's `UserSessionRepresentation` (`clients`: client id to client
/// id, since a client's id is its `clientId`).
pub fn to_session(s: &SsoSession, username: &str) -> Value {
    let clients: Map<String, Value> = s
        .clients
        .iter()
        .map(|c| (c.as_str().to_owned(), json!(c.as_str())))
        .collect();
    json!({
        "id": s.sid.as_str(),
        "username": username,
        "userId": s.sub.as_str(),
        "ipAddress": "",
        "start": s.created_at.millis(),
        "lastAccess": s.auth_time.millis().max(s.created_at.millis()),
        "rememberMe": false,
        "clients": clients,
        "transientUser": false,
    })
}

/// The identity's keys as Keycloak's `CredentialRepresentation`s: the device key while it
/// signs (type `device-key`), then each passkey (type `webauthn-passwordless`, its
/// credential id as `id`, its name as `userLabel`). Public data only.
pub fn to_credentials(i: &Identity, passkeys: &[Passkey]) -> Vec<Value> {
    let mut out = Vec::new();
    if !i.device_key_retired {
        out.push(json!({
            "id": DEVICE_KEY_ID,
            "type": "device-key",
            "userLabel": "Device key (the scanid app)",
            "createdDate": i.created_at.millis(),
            "credentialData": json!({ "publicKey": i.public_key }).to_string(),
        }));
    }
    for p in passkeys {
        out.push(json!({
            "id": p.credential_id,
            "type": "webauthn-passwordless",
            "userLabel": p.name,
            "createdDate": p.created_at.millis(),
            "credentialData": json!({
                "transports": p.transports,
                "lastUsedDate": p.last_used_at.map(|t| t.millis()),
            }).to_string(),
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Timestamp;
    use crate::domain::identity::IdentityType;
    use crate::protocol::Subject;

    fn alice() -> Identity {
        Identity {
            sub: Subject::new("11111111-2222-4333-8444-555555555555"),
            service_id: "abcdefghjk12".into(),
            name: "alice".into(),
            display_name: "Alice".into(),
            profile_photo: None,
            created_at: Timestamp::from_secs(1_700_000_000),
            updated_at: None,
            public_key: "MFkw".into(),
            country_code: "DE".into(),
            kind: IdentityType::User,
            groups: vec!["staff".into()],
            disabled: false,
            tokens_not_before: None,
            device_key_retired: false,
            admin_roles: Vec::new(),
        }
    }

    #[test]
    fn the_representation() {
        let u = to_user(&alice());
        assert_eq!(u["id"], "11111111-2222-4333-8444-555555555555");
        assert_eq!(u["username"], "alice");
        assert_eq!(u["enabled"], true);
        assert_eq!(u["firstName"], "");
        assert_eq!(u["attributes"]["service_id"], json!(["abcdefghjk12"]));
        assert_eq!(u["createdTimestamp"], 1_700_000_000_000_i64);
    }

    #[test]
    fn search() {
        let a = alice();
        let q = |f: fn(&mut UserQuery)| {
            let mut q = UserQuery::default();
            f(&mut q);
            q.matches(&a)
        };
        assert!(q(|_| {}));
        assert!(q(|q| q.search = Some("LIC".into())));
        assert!(q(|q| q.search = Some("*ali*".into())));
        assert!(q(|q| q.search = Some("abcdefghjk12".into())));
        assert!(!q(|q| q.search = Some("\"ali\"".into())));
        assert!(q(|q| q.username = Some("ali".into())));
        assert!(!q(|q| {
            q.username = Some("ali".into());
            q.exact = true;
        }));
        assert!(!q(|q| q.enabled = Some(false)));
        assert!(!q(|q| q.unmatchable = true));
    }

    #[test]
    fn only_enabled_changes() {
        let a = alice();
        assert_eq!(update_of(&json!({"enabled": false}), &a), Ok(Some(false)));
        // What python-keycloak sends back after a get: the representation itself.
        let mut same = to_user(&a);
        same["enabled"] = json!(false);
        assert_eq!(update_of(&same, &a), Ok(Some(false)));
        assert_eq!(update_of(&json!({"description": "x"}), &a), Ok(None));
        for (body, field) in [
            (json!({"username": "bob"}), "username"),
            (json!({"firstName": "Al"}), "firstName"),
            (json!({"email": "a@b.c"}), "email"),
            (json!({"id": "other"}), "id"),
            (
                json!({"credentials": [{"type": "password"}]}),
                "credentials",
            ),
            (
                json!({"attributes": {"service_id": ["x"]}}),
                "attributes.service_id",
            ),
            (json!({"attributes": {"dept": ["x"]}}), "attributes.dept"),
            (json!({"groups": ["/other"]}), "groups"),
            (json!({"enabled": "no"}), "enabled"),
        ] {
            let e = update_of(&body, &a).unwrap_err();
            assert!(e.starts_with(field), "{body}: {e}");
        }
        assert!(update_of(&json!([]), &a).is_err());
    }

    #[test]
    fn groups_and_keys() {
        assert!(valid_group("org/dev"));
        assert!(!valid_group(""));
        assert!(!valid_group("a b"));
        assert_eq!(to_group("staff")["path"], "/staff");
        let creds = to_credentials(&alice(), &[]);
        assert_eq!(creds[0]["type"], "device-key");
    }
}
