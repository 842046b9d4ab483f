//! `scanid aws init`: creates the DynamoDB table (with `--photo-bucket`, the S3 bucket of
//! hosted photos; with `--create-kms-key`, KMS keys) for
//! operators who do not deploy with SAM, and for the local emulator. Idempotent: an existing
//! table is kept as it is.

use clap::{Args, Subcommand};
use scanid_aws::dynamo::DynamoStore;
use scanid_aws::kms::{load_or_create_set, Bootstrap, Kms};
use scanid_core::clock::{Clock, SystemClock};
use scanid_core::config::{SigningMode, StoreSettings};
use scanid_core::keys::Alg;
use serde_json::json;

use crate::cli::{print_json, CliError, ConfigArgs};

#[derive(Debug, Subcommand)]
pub enum AwsCommand {
    /// Create the table (on-demand, TTL, point-in-time recovery) and optionally KMS keys.
    Init(InitArgs),
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Also create KMS keys for the signing mode (`--signing kms`, the default here: an
    /// RSA_2048 and an ECC_NIST_P256 signing key; `--signing kms-envelope`: a symmetric key
    /// that wraps generated keys). Prints their ids as `kms_key_id`.
    #[arg(long)]
    pub create_kms_key: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

pub async fn run(cmd: AwsCommand) -> Result<(), CliError> {
    let AwsCommand::Init(a) = cmd;
    let mut config = a.config.clone();
    if a.create_kms_key && config.kms_key_id.is_none() {
        // Settings validation wants a key id for the KMS modes; the keys are made below.
        config.kms_key_id = Some("pending".into());
    }
    let settings = config.settings("http://127.0.0.1:8080")?;
    let StoreSettings::DynamoDb { table } = &settings.store else {
        return Err(CliError::Usage("aws init needs --table NAME".into()));
    };
    let sdk = scanid_aws::profile_config().await?;
    let store = DynamoStore::from_config(&sdk, table);
    let created = store.create_table().await?;
    let mut out = json!({ "table": table, "created": created });
    if let Some(bucket) = &settings.photo_bucket {
        // The bucket of hosted profile photos (with SCANID_PHOTO_BUCKET / --photo-bucket).
        scanid_aws::photos::S3Photos::from_config(&sdk, bucket)
            .create_bucket()
            .await?;
        out["photo_bucket"] = json!(bucket);
    }
    let kms = Kms::from_config(&sdk);
    let mode = match (&settings.signing, a.create_kms_key) {
        (SigningMode::Local, false) => None,
        (SigningMode::Local, true) | (SigningMode::Kms { .. }, _) => Some("kms"),
        (SigningMode::KmsEnvelope { .. }, _) => Some("kms-envelope"),
    };
    let key_id = match (mode, a.create_kms_key) {
        (Some("kms-envelope"), true) => Some(kms.create_key(None, table).await?),
        (Some(_), true) => {
            let rsa = kms.create_key(Some(Alg::RS256), table).await?;
            let ec = kms.create_key(Some(Alg::ES256), table).await?;
            Some(format!("{rsa},{ec}"))
        }
        _ => a.config.kms_key_id.clone(),
    };
    if let (Some(mode), Some(key_id)) = (mode, &key_id) {
        // The key set the functions read (they may not create it themselves).
        let mut config = a.config.clone();
        config.signing = Some(mode.into());
        config.kms_key_id = Some(key_id.clone());
        let settings = config.settings("http://127.0.0.1:8080")?;
        let bootstrap = Bootstrap::from_mode(&settings.signing)
            .ok_or_else(|| CliError::Usage("aws init: a KMS signing mode is needed".into()))?;
        let (set, _) = load_or_create_set(&store, &kms, bootstrap, SystemClock.now()).await?;
        out["signing"] = json!(mode);
        out["kids"] = json!(set.keys.iter().map(|k| k.kid.clone()).collect::<Vec<_>>());
    }
    if a.create_kms_key {
        out["kms_key_id"] = json!(key_id);
    }
    print_json(&out);
    Ok(())
}
