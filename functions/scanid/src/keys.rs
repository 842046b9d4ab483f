//! `scanid keys ...`: the signing keys: the key file in the data dir (`--signing local`), or the
//! key set in the store for `--signing kms` (keys in KMS) and `--signing kms-envelope` (keys
//! encrypted under a KMS key).
//!
//! Rotation without breaking a relying party: `keys rotate` publishes a `next` key (it appears
//! in the JWKS but signs nothing); once every JWKS cache has refreshed (the JWKS is served with
//! `max-age=300`), `keys rotate` again activates it and retires the old key, which stays
//! published until tokens it signed have expired; then `keys remove` forgets it. Running
//! servers and warm functions see each step within a minute (`keys::fresh`). The steps
//! themselves are scanid-core's (`service::rotation`), shared with the admin API's
//! `POST .../keys/rotate` and `DELETE .../keys/{kid}`; this command makes the keys (a KMS key
//! in `kms` mode, which the admin API does not) and says its refusals as it always has.

use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, Subcommand};
use scanid_aws::kms::{load_or_create_set, Bootstrap, Kms};
use scanid_core::clock::{Clock, SystemClock, Timestamp};
use scanid_core::config::{Settings, SigningMode, StoreSettings};
// How long a `next` key is published before `keys rotate` activates it.
use scanid_core::keys::fresh::PUBLISH_BEFORE_ACTIVATE_SECS;
use scanid_core::keys::local::{KeySet, Material, StoredKey};
use scanid_core::keys::{Alg, SignError};
use scanid_core::service::rotation::{self, KeyHome, LocalKeys, MakeKey, RotationError};
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
    /// Make a VAPID key pair for Web Push (RFC 8292): prints the private key (the
    /// `--vapid-private-key` setting, the template's `VapidPrivateKey`) and the public key
    /// apps subscribe with (`applicationServerKey`). Nothing is stored.
    Vapid,
}

#[derive(Debug, Args)]
pub struct KeyArgs {
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Debug, Args)]
pub struct RotateArgs {
    /// RS256, ES256, PS256 or EdDSA.
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
    Store { store: Arc<dyn Backend>, kms: Kms },
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
    let (set, _) = load_or_create_set(store.as_ref(), &kms, bootstrap, now).await?;
    let home = Home::Store { store, kms };
    Ok((settings, set, home))
}

/// How the CLI makes a new key in each mode: in the key file, a new (or the given) KMS key,
/// or a key wrapped under the KMS key.
struct CliKeys<'a> {
    settings: &'a Settings,
    home: &'a Home,
    new_kms_key_id: Option<&'a str>,
}

#[async_trait::async_trait]
impl MakeKey for CliKeys<'_> {
    async fn make(&self, alg: Alg, now: Timestamp) -> Result<StoredKey, RotationError> {
        Ok(match (&self.settings.signing, self.home) {
            (SigningMode::Kms { .. }, Home::Store { kms, .. }) => {
                let table = match &self.settings.store {
                    StoreSettings::DynamoDb { table } => table.as_str(),
                    StoreSettings::Embedded { .. } => "embedded",
                };
                kms.new_kms_key(alg, self.new_kms_key_id, table, now)
                    .await?
            }
            (SigningMode::KmsEnvelope { key_id }, Home::Store { kms, .. }) => {
                kms.new_envelope_key(alg, key_id, now).await?
            }
            _ => return LocalKeys.make(alg, now).await,
        })
    }
}

impl Home {
    fn key_home(&self) -> KeyHome<'_> {
        match self {
            Home::File(dir) => KeyHome::File(dir),
            Home::Store { store, .. } => KeyHome::Store(store.as_ref()),
        }
    }
}

/// The longest a token signed by a retired key may live.
fn lifetime(settings: &Settings) -> i64 {
    settings
        .lifetimes
        .access_token
        .max(settings.lifetimes.refresh_token)
}

/// A refused step as the CLI has always said it.
fn cli_err(e: RotationError) -> CliError {
    match e {
        RotationError::TooSoon { kid, .. } => CliError::Usage(format!(
            "next key {kid} was published less than {PUBLISH_BEFORE_ACTIVATE_SECS} s ago; \
             relying parties may not have it yet (wait, or use --force)"
        )),
        RotationError::MayBeLive { kid, lifetime } => CliError::Usage(format!(
            "key error: {kid} was retired less than {lifetime} s ago; tokens it signed may be live (use --force)"
        )),
        RotationError::UnknownKey(_) | RotationError::ActiveKey(_) | RotationError::NotHere(_) => {
            CliError::Usage(format!("key error: {e}"))
        }
        RotationError::Changed => CliError::from(SignError::Key(
            "the key set was changed by someone else meanwhile; run the command again".into(),
        )),
        RotationError::Key(e) => CliError::from(e),
    }
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
            let alg = Alg::parse(&a.alg).ok_or_else(|| {
                CliError::Usage(format!("--alg {:?}: RS256, ES256, PS256 or EdDSA", a.alg))
            })?;
            // Loading creates the key set where it is missing (the KMS modes' first use).
            let (settings, _, home) = load(&a.config, now).await?;
            let maker = CliKeys {
                settings: &settings,
                home: &home,
                new_kms_key_id: a.new_kms_key_id.as_deref(),
            };
            let step = rotation::rotate(
                home.key_home(),
                &maker,
                alg,
                a.force,
                lifetime(&settings),
                now,
                "operator",
            )
            .await
            .map_err(cli_err)?;
            print_json(&step.to_json());
        }
        KeysCommand::Vapid => {
            let (key, private) =
                scanid_core::webpush::VapidKey::generate(&scanid_core::random::SystemRandom::new());
            print_json(&json!({
                "vapid_private_key": private,
                "application_server_key": key.public_b64(),
                "setting": "SCANID_VAPID_PRIVATE_KEY",
            }));
        }
        KeysCommand::Remove(a) => {
            let (settings, _, home) = load(&a.config, now).await?;
            rotation::remove(home.key_home(), &a.kid, a.force, lifetime(&settings), now)
                .await
                .map_err(cli_err)?;
            print_json(&json!({ "kid": a.kid, "removed": true }));
        }
    }
    Ok(())
}
