//! `GET .../keys`: the signing keys as Keycloak's `KeysMetadataRepresentation`: `active` (the
//! signing key's `kid` by algorithm) and `keys` (each published key: `kid`, `type`,
//! `algorithm`, `status` `ACTIVE` for the one signing, `PASSIVE` for a key published before it
//! signs or kept while tokens it signed live, `use` `SIG`). Public data (the JWKS has it all),
//! so any admin role may read it.
//!
//! `POST .../keys/rotate` and `DELETE .../keys/{kid}` (`realm-admin`): the rotation steps of
//! `scanid keys rotate|remove` ([`crate::service::rotation`]). In `kms` mode publishing a key
//! means creating a KMS key, a right the admin function does not hold (`kms:CreateKey`
//! cannot be limited to the table's keys): that step stays the CLI's; activating and
//! removing are calls there too.

use serde_json::{json, Map, Value};

use crate::clock::Timestamp;
use crate::config::SigningMode;
use crate::context::Context;
use crate::domain::admin::{AdminRole, Need};
use crate::domain::ratelimit::Source;
use crate::keys::fresh::Source as KeySource;
use crate::keys::local::StoredKey;
use crate::keys::set::load_set;
use crate::keys::set::BuildKeyring;
use crate::keys::{Alg, KeyState, SignError};
use crate::service::admin::{authorize, AdminError};
use crate::service::rotation::{self, KeyHome, LocalKeys, MakeKey, RotationError};
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
        // The key set's states (the store's record, or the key file) say which key signs and
        // where each is in its rotation; keys handed in whole: the keyring's signers.
        let states = key_states(ctx).await?;
        let signing: Vec<String> = ring
            .algs()
            .into_iter()
            .filter_map(|alg| ring.signer(alg).ok().map(|s| s.kid().to_owned()))
            .collect();
        let state_of = |kid: &str| match &states {
            Some(states) => states.get(kid).copied(),
            None if signing.iter().any(|k| k == kid) => Some(KeyState::Active),
            None => None,
        };
        let mut active = Map::new();
        let mut keys = Vec::new();
        for k in jwks["keys"].as_array().into_iter().flatten() {
            let kid = k["kid"].as_str().unwrap_or_default();
            let alg = k["alg"].as_str().unwrap_or_default();
            let state = state_of(kid);
            let status = if state == Some(KeyState::Active) {
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
                // scanid's own: where the key is in its rotation (`next`, `active`,
                // `retired`), which Keycloak's status does not tell apart.
                "rotation": state,
            }));
        }
        Ok(json!({ "active": active, "keys": keys }))
    }
    .await;
    caller.finish("keys.list", None, r)
}

/// The state of each key of this process's key set, by `kid` (`None`: keys handed in whole).
async fn key_states(
    ctx: &Context,
) -> Result<Option<std::collections::HashMap<String, KeyState>>, AdminError> {
    let now = ctx.clock.now();
    let set = match ctx.keys.source() {
        KeySource::LocalFile { data_dir } => crate::keys::local::KeySet::load(data_dir)
            .map_err(|e| AdminError::Store(StoreError::Corrupt(Box::new(e))))?,
        _ => match load_set(ctx.store.as_ref(), now).await {
            Ok(set) => set.map(|(set, _)| set),
            Err(e) => {
                return Err(AdminError::Store(StoreError::Unavailable(
                    e.to_string().into(),
                )))
            }
        },
    };
    Ok(set.map(|set| set.keys.iter().map(|k| (k.kid.clone(), k.state)).collect()))
}

/// `POST .../keys/rotate?alg=RS256[&force=true]`: one rotation step (publish a `next` key, or
/// activate the one published 300 s ago or more), answered as the CLI prints it.
pub async fn rotate(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    alg: Option<&str>,
    force: bool,
) -> Result<Value, AdminError> {
    const OP: &str = "keys.rotate";
    let caller = authorize(ctx, token, Need::Role(AdminRole::RealmAdmin), OP, source).await?;
    let r: Result<_, AdminError> = async {
        let name = alg.unwrap_or("RS256");
        let alg = Alg::parse(name).ok_or_else(|| {
            AdminError::BadRequest(format!("alg {name:?}: RS256, ES256, PS256 or EdDSA"))
        })?;
        let now = ctx.clock.now();
        let (home, maker) = home_of(ctx)?;
        let step = rotation::rotate(home, &maker, alg, force, lifetime(ctx), now, "admin")
            .await
            .map_err(admin_err)?;
        reload(ctx, now).await;
        Ok(step)
    }
    .await;
    let object = r.as_ref().ok().map(|s| s.kid().to_owned());
    caller.finish(OP, object.as_deref(), r).map(|s| s.to_json())
}

/// `DELETE .../keys/{kid}[?force=true]`: forgets a retired key once the tokens it signed
/// have expired (the active key never; a live one only with `force`).
pub async fn remove(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    kid: &str,
    force: bool,
) -> Result<(), AdminError> {
    const OP: &str = "keys.delete";
    let caller = authorize(ctx, token, Need::Role(AdminRole::RealmAdmin), OP, source).await?;
    let r: Result<_, AdminError> = async {
        let now = ctx.clock.now();
        let (home, _) = home_of(ctx)?;
        rotation::remove(home, kid, force, lifetime(ctx), now)
            .await
            .map_err(admin_err)?;
        reload(ctx, now).await;
        Ok(())
    }
    .await;
    caller.finish(OP, Some(kid), r)
}

/// The longest a token signed by a retired key may live.
fn lifetime(ctx: &Context) -> i64 {
    let l = &ctx.settings.lifetimes;
    l.access_token.max(l.refresh_token)
}

/// This process uses the key set it changed at once (others within a minute).
async fn reload(ctx: &Context, now: Timestamp) {
    if let Err(e) = ctx.keys.reload(now).await {
        tracing::warn!(error = %e, "reloading the signing keys after a rotation failed");
    }
}

/// How this process makes a new key: the key file's, or wrapped under the KMS key.
enum Maker<'a> {
    Local,
    Envelope {
        build: &'a dyn BuildKeyring,
        wrapping_key_id: &'a str,
    },
    /// `kms` mode: publishing needs a new KMS key, which only the operator makes.
    Kms,
}

#[async_trait::async_trait]
impl MakeKey for Maker<'_> {
    async fn make(&self, alg: Alg, now: Timestamp) -> Result<StoredKey, RotationError> {
        match self {
            Maker::Local => LocalKeys.make(alg, now).await,
            Maker::Envelope {
                build,
                wrapping_key_id,
            } => Ok(build.wrap_new_key(alg, wrapping_key_id, now).await?),
            Maker::Kms => Err(RotationError::NotHere(
                "with --signing kms a new key is a new KMS key, which the admin API does not \
                 create: publish it with `scanid keys rotate` (or `--new-kms-key-id`); \
                 activating it and removing the old one are calls"
                    .into(),
            )),
        }
    }
}

/// Where this process's key set lives, and how it makes a new key.
fn home_of(ctx: &Context) -> Result<(KeyHome<'_>, Maker<'_>), AdminError> {
    match (ctx.keys.source(), &ctx.settings.signing) {
        (KeySource::LocalFile { data_dir }, _) => Ok((KeyHome::File(data_dir), Maker::Local)),
        (KeySource::Store { store, build }, SigningMode::KmsEnvelope { key_id }) => Ok((
            KeyHome::Store(store.as_ref()),
            Maker::Envelope {
                build: build.as_ref(),
                wrapping_key_id: key_id,
            },
        )),
        (KeySource::Store { store, .. }, _) => Ok((KeyHome::Store(store.as_ref()), Maker::Kms)),
        (KeySource::Fixed, _) => Err(AdminError::BadRequest(
            "this server's signing keys are fixed: they cannot be rotated".into(),
        )),
    }
}

fn admin_err(e: RotationError) -> AdminError {
    match e {
        RotationError::UnknownKey(_) => AdminError::NotFound("no such key"),
        RotationError::TooSoon { .. }
        | RotationError::ActiveKey(_)
        | RotationError::MayBeLive { .. } => AdminError::Conflict(e.to_string()),
        RotationError::NotHere(why) => AdminError::BadRequest(why),
        RotationError::Changed => AdminError::Changed,
        RotationError::Key(SignError::Unavailable(d)) => {
            AdminError::Store(StoreError::Unavailable(d))
        }
        RotationError::Key(e) => AdminError::Store(StoreError::Corrupt(Box::new(e))),
    }
}
