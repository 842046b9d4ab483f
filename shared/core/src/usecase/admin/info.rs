//! `GET /admin/serverinfo` and `GET /admin/realms/{realm}`: what the admin tools read first.

use serde_json::{json, Value};

use crate::context::Context;
use crate::domain::admin::Need;
use crate::domain::ratelimit::Source;
use crate::service::admin::{authorize, events_config, AdminError};

/// The Keycloak version whose admin API this one follows (the tools read it to choose their
/// calls; terraform's provider parses it as a version number).
pub const KEYCLOAK_API_LEVEL: &str = "26.0.0";

/// Keycloak's `ServerInfoRepresentation`, the part scanid has: its version (the Keycloak API
/// level, and scanid's own), the time, and empty provider lists.
pub async fn server_info(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
) -> Result<Value, AdminError> {
    let caller = authorize(ctx, token, Need::AnyRole, "serverinfo.read", source).await?;
    caller.finish("serverinfo.read", None, Ok(()))?;
    let now = ctx.clock.now();
    Ok(json!({
        "systemInfo": {
            "version": KEYCLOAK_API_LEVEL,
            "serverTime": now.to_rfc3339_millis(),
            "scanidVersion": env!("CARGO_PKG_VERSION"),
        },
        "profileInfo": {
            "name": "community",
            "disabledFeatures": [],
            "previewFeatures": [],
            "experimentalFeatures": [],
        },
        "features": [],
        "themes": {},
        "providers": {},
        "protocolMapperTypes": {},
        "builtinProtocolMappers": {},
        "clientInstallations": {},
        "componentTypes": {},
        "passwordPolicies": [],
        "enums": {},
    }))
}

/// Keycloak's `RealmRepresentation`, the fields scanid has: the realm, its token and session
/// lifetimes, and what it does not offer (registration by password, ...).
pub async fn realm(
    ctx: &Context,
    token: Option<&str>,
    realm: &str,
    source: &Source,
) -> Result<Value, AdminError> {
    let caller = authorize(ctx, token, Need::AnyRole, "realm.read", source).await?;
    let found = if realm == ctx.settings.realm {
        Ok(())
    } else {
        Err(AdminError::NotFound("Realm not found."))
    };
    caller.finish("realm.read", Some(realm), found)?;
    let l = &ctx.settings.lifetimes;
    let mut realm = json!({
        "id": ctx.settings.realm,
        "realm": ctx.settings.realm,
        "enabled": true,
        "sslRequired": if ctx.settings.secure_cookies() { "all" } else { "external" },
        "accessTokenLifespan": l.access_token,
        "ssoSessionIdleTimeout": l.sso_idle,
        "ssoSessionMaxLifespan": l.sso_max,
        "offlineSessionIdleTimeout": l.offline_token,
        "accessCodeLifespan": l.code,
        "oauth2DeviceCodeLifespan": l.device_code,
        "registrationAllowed": false,
        "resetPasswordAllowed": false,
        "loginWithEmailAllowed": false,
        "rememberMe": false,
        "verifyEmail": false,
        "bruteForceProtected": true,
    });
    // Whether events are stored, and for how long: what `events/config` says.
    if let (Some(fields), Value::Object(events)) = (realm.as_object_mut(), events_config(ctx)) {
        fields.extend(events);
    }
    Ok(realm)
}
