//! `scanid keys ...`: the signing keys: the key file in the data dir (`--signing local`), or the
//! key set in the store for `--signing kms` (keys in KMS) and `--signing kms-envelope` (keys
//! encrypted under a KMS key).
//!
//! Rotation without breaking a relying party: `keys rotate` publishes a `next` key (it appears
//! in the JWKS but signs nothing); once every JWKS cache has refreshed (the JWKS is served with
//! `max-age=300`), `keys rotate` again activates it and retires the old key, which stays
//! published until tokens it signed have expired; then `keys remove` forgets it. The server
//! reads the keys at start: restart it (Lambda: publish a new version, or update the
//! functions' configuration, so new cold starts read them) after each step.

use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, Subcommand};
use scanid_aws::kms::{load_or_create_set, Bootstrap, Kms};
use scanid_core::clock::{Clock, SystemClock, Timestamp};
use scanid_core::config::{Settings, SigningMode, StoreSettings};
use scanid_core::keys::local::{KeySet, Material};
use scanid_core::keys::set::save_set;
// How long a `next` key is published before `keys rotate` activates it.
use scanid_core::keys::fresh::PUBLISH_BEFORE_ACTIVATE_SECS;
use scanid_core::keys::{Alg, KeyState};
use scanid_core::store::Backend;
use serde_json::json;

use crate::cli::{print_json, CliError, ConfigArgs};

#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// List keys with their state.
    List(KeyArgs),
    /// Step through a rotation: publish a next key, or activate the published one.
    Rotate(RotateArgs),
    /// Forget a retired key.
    Remove(RemoveArgs),
}

#[derive(Debug, Args)]
pub struct KeyArgs {
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Debug, Args)]
pub struct RotateArgs {
    /// RS256 or ES256.
    #[arg(long, default_value = "RS256")]
    pub alg: String,
    /// Activate a next key even if it was published less than 300 s ago.
    #[arg(long)]
    pub force: bool,
    /// `--signing kms`: publish this existing KMS key as the next key, instead of creating
    /// a new one (tagged `scanid-table=<table>`).
    #[arg(long)]
    pub new_kms_key_id: Option<String>,
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Debug, Args)]
pub struct RemoveArgs {
    #[arg(long, allow_hyphen_values = true)]
    pub kid: String,
    /// Remove even if tokens it signed may still be live.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// Where the key set lives.
enum Home {
    File(PathBuf),
    Store {
        store: Arc<dyn Backend>,
        kms: Kms,
        version: u64,
    },
}

async fn load(config: &ConfigArgs, now: Timestamp) -> Result<(Settings, KeySet, Home), CliError> {
    let settings = config.settings("http://127.0.0.1:8080")?;
    if settings.signing == SigningMode::Local {
        let file = KeySet::load_or_create(&settings.data_dir, now)?;
        let home = Home::File(settings.data_dir.clone());
        return Ok((settings, file, home));
    }
    let store = scanid_server::open::open_store(&settings).await?;
    let kms = Kms::from_config(&scanid_aws::profile_config().await?);
    let bootstrap = Bootstrap::from_mode(&settings.signing)
        .ok_or_else(|| CliError::Usage("keys: no key set for local signing".into()))?;
    let (set, version) = load_or_create_set(store.as_ref(), &kms, bootstrap, now).await?;
    let home = Home::Store {
        store,
        kms,
        version,
    };
    Ok((settings, set, home))
}

async fn save(home: &Home, set: &KeySet, now: Timestamp) -> Result<(), CliError> {
    match home {
        Home::File(dir) => set.save(dir)?,
        Home::Store { store, version, .. } => {
            save_set(store.as_ref(), set, Some(*version), now).await?
        }
    }
    Ok(())
}

/// Rotation step 1 in each mode: a new key, published but not signing.
async fn publish_next(
    settings: &Settings,
    home: &Home,
    set: &mut KeySet,
    alg: Alg,
    new_kms_key_id: Option<&str>,
    now: Timestamp,
) -> Result<String, CliError> {
    let kid = match (&settings.signing, home) {
        (SigningMode::Kms { .. }, Home::Store { kms, .. }) => {
            let table = match &settings.store {
                StoreSettings::DynamoDb { table } => table.as_str(),
                StoreSettings::Embedded { .. } => "embedded",
            };
            let key = kms.new_kms_key(alg, new_kms_key_id, table, now).await?;
            set.push_next(key)?.kid.clone()
        }
        (SigningMode::KmsEnvelope { key_id }, Home::Store { kms, .. }) => {
            let key = kms.new_envelope_key(alg, key_id, now).await?;
            set.push_next(key)?.kid.clone()
        }
        _ => set.add_next(alg, now)?.kid.clone(),
    };
    Ok(kid)
}

fn describe(file: &KeySet) -> serde_json::Value {
    let keys: Vec<_> = file
        .keys
        .iter()
        .map(|k| {
            json!({
                "kid": k.kid,
                "alg": k.alg,
                "state": k.state,
                "created_at": k.created_at.to_rfc3339_millis(),
                "activated_at": k.activated_at.map(|t| t.to_rfc3339_millis()),
                "retired_at": k.retired_at.map(|t| t.to_rfc3339_millis()),
                "held_by": match &k.material {
                    Material::Pkcs8(_) => json!("key file"),
                    Material::Kms { key_id, .. } => json!({ "kms": key_id }),
                    Material::Envelope { wrapping_key_id, .. } => json!({ "kms_envelope": wrapping_key_id }),
                },
            })
        })
        .collect();
    json!({ "keys": keys })
}

pub async fn run(cmd: KeysCommand) -> Result<(), CliError> {
    let now = SystemClock.now();
    match cmd {
        KeysCommand::List(a) => {
            let (_, file, _) = load(&a.config, now).await?;
            print_json(&describe(&file));
        }
        KeysCommand::Rotate(a) => {
            let alg = Alg::parse(&a.alg)
                .ok_or_else(|| CliError::Usage(format!("--alg {:?}: RS256 or ES256", a.alg)))?;
            let (settings, mut file, home) = load(&a.config, now).await?;
            let next = file
                .keys
                .iter()
                .find(|k| k.alg == alg && k.state == KeyState::Next)
                .cloned();
            let out = match next {
                None => {
                    let kid = publish_next(
                        &settings,
                        &home,
                        &mut file,
                        alg,
                        a.new_kms_key_id.as_deref(),
                        now,
                    )
                    .await?;
                    json!({ "step": "published", "kid": kid,
                            "activate_after": now.plus_secs(PUBLISH_BEFORE_ACTIVATE_SECS).to_rfc3339_millis() })
                }
                Some(k) => {
                    if !a.force && now < k.created_at.plus_secs(PUBLISH_BEFORE_ACTIVATE_SECS) {
                        return Err(CliError::Usage(format!(
                            "next key {} was published less than {PUBLISH_BEFORE_ACTIVATE_SECS} s ago; \
                             relying parties may not have it yet (wait, or use --force)",
                            k.kid
                        )));
                    }
                    file.activate(&k.kid, now)?;
                    let lifetime = settings
                        .lifetimes
                        .access_token
                        .max(settings.lifetimes.refresh_token);
                    json!({ "step": "activated", "kid": k.kid,
                            "remove_retired_after": now.plus_secs(lifetime).to_rfc3339_millis() })
                }
            };
            save(&home, &file, now).await?;
            scanid_core::audit::Audit::new(scanid_core::audit::Event::KeyRotated)
                .source("operator")
                .detail(if out["step"] == "published" {
                    "published"
                } else {
                    "activated"
                })
                .emit();
            print_json(&out);
        }
        KeysCommand::Remove(a) => {
            let (settings, mut file, home) = load(&a.config, now).await?;
            let lifetime = settings
                .lifetimes
                .access_token
                .max(settings.lifetimes.refresh_token);
            file.remove(&a.kid, now, lifetime, a.force)
                .map_err(|e| CliError::Usage(e.to_string()))?;
            save(&home, &file, now).await?;
            print_json(&json!({ "kid": a.kid, "removed": true }));
        }
    }
    Ok(())
}
