//! `GET .../keys`: the signing keys as Keycloak's `KeysMetadataRepresentation`: `active` (the
//! signing key's `kid` by algorithm) and `keys` (each published key: `kid`, `type`,
//! `algorithm`, `status` `ACTIVE` for the one signing, `PASSIVE` for a key published before it
//! signs or kept while tokens it signed live, `use` `SIG`). Public data (the JWKS has it all),
//! so any admin role may read it. Rotation stays the CLI's (`scanid keys rotate`): it needs
//! KMS rights no admin function holds (see the book's admin-api.md).

use serde_json::{json, Map, Value};

use crate::context::Context;
use crate::domain::admin::Need;
use crate::domain::ratelimit::Source;
use crate::keys::set::load_set;
use crate::keys::KeyState;
use crate::service::admin::{authorize, AdminError};
use crate::store::StoreError;

/// `GET .../keys`.
pub async fn keys(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
) -> Result<Value, AdminError> {
    let caller = authorize(ctx, token, Need::AnyRole, "keys.list", source).await?;
    let r: Result<_, AdminError> = async {
        let ring = ctx.keyring().await;
        let jwks: Value = serde_json::from_slice(&ring.jwks_json())
            .map_err(|e| AdminError::Store(StoreError::Corrupt(Box::new(e))))?;
        // Where the key set is in the store (KMS modes) its states say which key signs; else
        // (local keys) the keyring's signers do.
        let states = match load_set(ctx.store.as_ref(), ctx.clock.now()).await {
            Ok(Some((set, _))) => Some(
                set.keys
                    .iter()
                    .map(|k| (k.kid.clone(), k.state))
                    .collect::<std::collections::HashMap<_, _>>(),
            ),
            Ok(None) => None,
            Err(e) => {
                return Err(AdminError::Store(StoreError::Unavailable(
                    e.to_string().into(),
                )))
            }
        };
        let signing: Vec<String> = ring
            .algs()
            .into_iter()
            .filter_map(|alg| ring.signer(alg).ok().map(|s| s.kid().to_owned()))
            .collect();
        let is_active = |kid: &str| match &states {
            Some(states) => states.get(kid) == Some(&KeyState::Active),
            None => signing.iter().any(|k| k == kid),
        };
        let mut active = Map::new();
        let mut keys = Vec::new();
        for k in jwks["keys"].as_array().into_iter().flatten() {
            let kid = k["kid"].as_str().unwrap_or_default();
            let alg = k["alg"].as_str().unwrap_or_default();
            let status = if is_active(kid) {
                active.insert(alg.to_owned(), json!(kid));
                "ACTIVE"
            } else {
                "PASSIVE"
            };
            keys.push(json!({
                "providerId": "scanid",
                "providerPriority": 100,
                "kid": kid,
                "type": k["kty"],
                "algorithm": alg,
                "status": status,
                "use": "SIG",
            }));
        }
        Ok(json!({ "active": active, "keys": keys }))
    }
    .await;
    caller.finish("keys.list", None, r)
}
