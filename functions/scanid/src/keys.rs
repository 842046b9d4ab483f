//! `scanid keys ...`: the local signing keys in the data dir.
//!
//! Rotation without breaking a relying party: `keys rotate` publishes a `next` key (it appears
//! in the JWKS but signs nothing); once every JWKS cache has refreshed (the JWKS is served with
//! `max-age=300`), `keys rotate` again activates it and retires the old key, which stays
//! published until tokens it signed have expired; then `keys remove` forgets it. The server
//! reads the key file at start: restart it (Lambda: new cold starts) after each step.

use clap::{Args, Subcommand};
use scanid::clock::{Clock, SystemClock};
use scanid::config::SigningMode;
use scanid::keys::local::KeyFile;
use scanid::keys::{Alg, KeyState};
use serde_json::json;

use crate::cli::{print_json, CliError, ConfigArgs};

/// How long a `next` key is published before `keys rotate` activates it: the JWKS cache age.
const PUBLISH_BEFORE_ACTIVATE_SECS: i64 = 300;

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
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Debug, Args)]
pub struct RemoveArgs {
    #[arg(long)]
    pub kid: String,
    /// Remove even if tokens it signed may still be live.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

fn key_file(config: &ConfigArgs) -> Result<(scanid::config::Settings, KeyFile), CliError> {
    let settings = config.settings("http://127.0.0.1:8080")?;
    if settings.signing != SigningMode::Local {
        return Err(CliError::Usage(
            "keys commands manage local key files (SCANID_SIGNING=local)".into(),
        ));
    }
    let file = KeyFile::load_or_create(&settings.data_dir, SystemClock.now())?;
    Ok((settings, file))
}

fn describe(file: &KeyFile) -> serde_json::Value {
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
            })
        })
        .collect();
    json!({ "keys": keys })
}

pub async fn run(cmd: KeysCommand) -> Result<(), CliError> {
    let now = SystemClock.now();
    match cmd {
        KeysCommand::List(a) => {
            let (_, file) = key_file(&a.config)?;
            print_json(&describe(&file));
        }
        KeysCommand::Rotate(a) => {
            let alg = Alg::parse(&a.alg)
                .ok_or_else(|| CliError::Usage(format!("--alg {:?}: RS256 or ES256", a.alg)))?;
            let (settings, mut file) = key_file(&a.config)?;
            let next = file
                .keys
                .iter()
                .find(|k| k.alg == alg && k.state == KeyState::Next)
                .cloned();
            let out = match next {
                None => {
                    let kid = file.add_next(alg, now)?.kid.clone();
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
            file.save(&settings.data_dir)?;
            print_json(&out);
        }
        KeysCommand::Remove(a) => {
            let (settings, mut file) = key_file(&a.config)?;
            let lifetime = settings
                .lifetimes
                .access_token
                .max(settings.lifetimes.refresh_token);
            file.remove(&a.kid, now, lifetime, a.force)
                .map_err(|e| CliError::Usage(e.to_string()))?;
            file.save(&settings.data_dir)?;
            print_json(&json!({ "kid": a.kid, "removed": true }));
        }
    }
    Ok(())
}
