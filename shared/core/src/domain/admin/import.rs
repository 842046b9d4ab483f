//! A Keycloak realm export (`kc.sh export`, or Keycloak's `PartialImportRepresentation`) read
//! for its clients: what comes over as a `ClientRepresentation` scanid accepts, and what
//! cannot, each named with why (never dropped silently). Keycloak's built-in clients are
//! skipped; a field scanid does not have that changes behaviour is dropped from the client
//! and named in `warnings`; a client that cannot work without it, and everything that is not
//! a client (users, roles, groups, identity providers), is in `notImported`.

use serde_json::{json, Map, Value};

use super::representation::{
    merge, new_client_defaults, BACKCHANNEL, DEVICE_GRANT, PKCE, POST_LOGOUT,
};

/// Keycloak's built-in clients of every realm: never imported.
pub const BUILT_IN: [&str; 6] = [
    "account",
    "account-console",
    "admin-cli",
    "broker",
    "realm-management",
    "security-admin-console",
];

/// What an export brings.
#[derive(Debug, Default)]
pub struct Plan {
    /// The clients to write: (clientId, the representation), each valid for scanid.
    pub clients: Vec<(String, Value)>,
    /// What does not come over: `{resourceType, resourceName, reason}`.
    pub not_imported: Vec<Value>,
    /// What was dropped from a client that does come over.
    pub warnings: Vec<String>,
}

fn not(kind: &str, name: &str, reason: &str) -> Value {
    json!({"resourceType": kind, "resourceName": name, "reason": reason})
}

const OTHERS: [(&str, &str, &str); 6] = [
    ("users", "USER", "users come over by signing up with the scanid app: Keycloak's passwords and credentials cannot"),
    ("roles", "REALM_ROLE", "roles are not imported: give admin roles with `scanid client add-role`"),
    ("groups", "GROUP", "groups are not imported: an identity's groups are set with `scanid identity`"),
    ("identityProviders", "IDP", "identity providers are not supported"),
    ("clientScopes", "CLIENT_SCOPE", "client scopes are not imported: scanid's claims are fixed by scope"),
    ("components", "COMPONENT", "components (keys, user federation) are not imported: scanid keeps its own keys"),
];

/// The plan of an export (`local_development`: as the server's, for redirect URI rules).
pub fn plan(export: &Value, local_development: bool) -> Result<Plan, String> {
    let Some(root) = export.as_object() else {
        return Err("a realm export is a JSON object".into());
    };
    let mut p = Plan::default();
    for (field, kind, reason) in OTHERS {
        if let Some(Value::Array(items)) = root.get(field) {
            for item in items {
                let name = ["username", "name", "alias", "clientId"]
                    .iter()
                    .find_map(|k| item.get(*k).and_then(Value::as_str))
                    .unwrap_or("?");
                p.not_imported.push(not(kind, name, reason));
            }
        }
        // A realm export holds roles as {realm: [...], client: {...}}.
        if let Some(Value::Object(roles)) = root.get(field) {
            for r in roles
                .get("realm")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let name = r.get("name").and_then(Value::as_str).unwrap_or("?");
                p.not_imported.push(not(kind, name, reason));
            }
        }
    }
    let clients = match root.get("clients") {
        None | Some(Value::Null) => &Vec::new(),
        Some(Value::Array(c)) => c,
        Some(_) => return Err("clients must be an array".into()),
    };
    for c in clients {
        let Some(id) = c.get("clientId").and_then(Value::as_str) else {
            return Err("a client without a clientId".into());
        };
        if BUILT_IN.contains(&id) {
            p.not_imported.push(not(
                "CLIENT",
                id,
                "Keycloak's built-in client: scanid has its own",
            ));
            continue;
        }
        match client(c, id, &mut p.warnings) {
            Err(reason) => p.not_imported.push(not("CLIENT", id, &reason)),
            Ok(rep) => match merge(&rep, new_client_defaults(local_development)) {
                Ok(_) => p.clients.push((id.to_owned(), rep)),
                Err(e) => p.not_imported.push(not("CLIENT", id, &e.to_string())),
            },
        }
    }
    Ok(p)
}

fn flag(c: &Value, name: &str) -> bool {
    c.get(name).and_then(Value::as_bool) == Some(true)
}

/// One client's representation as scanid takes it, with what was dropped in `warnings`.
fn client(c: &Value, id: &str, warnings: &mut Vec<String>) -> Result<Value, String> {
    if c.get("protocol")
        .and_then(Value::as_str)
        .is_some_and(|p| p != "openid-connect")
    {
        return Err(
            "only openid-connect clients are supported (this is SAML or another protocol)".into(),
        );
    }
    if flag(c, "bearerOnly") {
        return Err("bearer-only clients are not supported".into());
    }
    if c.get("clientAuthenticatorType")
        .and_then(Value::as_str)
        .is_some_and(|a| a != "client-secret")
    {
        return Err(
            "only client-secret authentication is supported (not a signed JWT or X.509)".into(),
        );
    }
    let mut warn = |what: String| warnings.push(format!("{id}: {what}"));
    let mut out = Map::new();
    for f in [
        "clientId",
        "name",
        "enabled",
        "publicClient",
        "secret",
        "standardFlowEnabled",
        "serviceAccountsEnabled",
    ] {
        if let Some(v) = c.get(f) {
            out.insert(f.into(), v.clone());
        }
    }
    if flag(c, "publicClient") {
        out.remove("secret");
    }
    for (f, what) in [
        (
            "implicitFlowEnabled",
            "the implicit flow is not supported (RFC 9700): not enabled",
        ),
        (
            "directAccessGrantsEnabled",
            "direct access grants (the password grant) are not supported: scanid has no passwords",
        ),
        (
            "authorizationServicesEnabled",
            "authorization services are not supported",
        ),
    ] {
        if flag(c, f) {
            warn(what.into());
        }
    }
    if let Some(Value::Array(m)) = c.get("protocolMappers") {
        for mapper in m {
            let name = mapper.get("name").and_then(Value::as_str).unwrap_or("?");
            warn(format!(
                "protocol mapper {name:?} not imported: scanid's claims are fixed by scope"
            ));
        }
    }
    for f in ["redirectUris", "webOrigins"] {
        let Some(Value::Array(uris)) = c.get(f) else {
            continue;
        };
        let mut kept = Vec::new();
        for u in uris.iter().filter_map(Value::as_str) {
            if u.contains('*') || (f == "webOrigins" && u == "+") {
                warn(format!(
                    "{f} {u:?} dropped: wildcards are not supported, name each exactly"
                ));
            } else {
                kept.push(json!(u));
            }
        }
        out.insert(f.into(), Value::Array(kept));
    }
    if let Some(Value::Object(attrs)) = c.get("attributes") {
        out.insert("attributes".into(), attributes(attrs, id, warnings));
    }
    Ok(Value::Object(out))
}

/// The attributes scanid has (device grant, back-channel and post-logout URIs, PKCE), with
/// what was dropped in `warnings`.
fn attributes(attrs: &Map<String, Value>, id: &str, warnings: &mut Vec<String>) -> Value {
    let mut warn = |what: String| warnings.push(format!("{id}: {what}"));
    let mut kept = Map::new();
    for (k, v) in attrs {
        match (k.as_str(), v.as_str()) {
            (PKCE, Some("plain")) => {
                warn("PKCE method plain is not supported: S256 is required instead".into())
            }
            (PKCE, Some(m)) => {
                kept.insert(k.clone(), json!(if m == "S256" { "S256" } else { "" }));
            }
            (DEVICE_GRANT | BACKCHANNEL, Some(_)) => {
                kept.insert(k.clone(), v.clone());
            }
            (POST_LOGOUT, Some(uris)) => {
                let ok: Vec<&str> = uris
                    .split("##")
                    .filter(|u| {
                        let wild = u.contains('*');
                        if wild {
                            warn(format!(
                                "post-logout redirect URI {u:?} dropped: wildcards are not supported"
                            ));
                        }
                        !wild && !u.is_empty()
                    })
                    .collect();
                kept.insert(k.clone(), json!(ok.join("##")));
            }
            _ => {}
        }
    }
    Value::Object(kept)
}
