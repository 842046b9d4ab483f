//! `scanid client import FILE`: a Keycloak realm export's clients, written to the store as the
//! admin API's `partialImport` reads them (`scanid_core::domain::admin::import`): the same
//! representation rules, secrets kept, and everything that cannot come over printed in
//! `warnings` and `notImported`. A client that exists stops the import before anything is
//! written, unless `--skip-existing`.

use std::path::PathBuf;

use clap::Args;
use scanid_core::clock::{Clock, SystemClock};
use scanid_core::domain::admin::import::plan;
use scanid_core::domain::admin::representation::{merge, new_client_defaults};
use scanid_core::domain::client::{register, ClientType};
use scanid_core::random::SystemRandom;
use scanid_core::store::{ClientStore, StoreError};
use serde_json::json;

use crate::cli::{print_json, CliError, ConfigArgs};

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The realm export (`kc.sh export --realm R --file FILE`), JSON.
    pub file: PathBuf,
    /// Leave clients that exist already as they are (default: stop, writing nothing).
    #[arg(long)]
    pub skip_existing: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// Operator commands do not serve, so the public URL only needs to be well-formed.
const OPERATOR_URL: &str = "http://127.0.0.1:8080";

pub async fn run(a: ImportArgs) -> Result<(), CliError> {
    let now = SystemClock.now();
    let text = std::fs::read_to_string(&a.file)
        .map_err(|e| CliError::Usage(format!("{}: {e}", a.file.display())))?;
    let export: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| CliError::Usage(format!("{}: not JSON: {e}", a.file.display())))?;
    let settings = a.config.settings(OPERATOR_URL)?;
    // As `client create`: loopback redirect URIs only where the operator named a loopback URL.
    let local = a.config.public_url.is_some() && settings.local_development();
    let plan =
        plan(&export, local).map_err(|e| CliError::Usage(format!("{}: {e}", a.file.display())))?;
    let store = scanid_server::open::open_store(&settings).await?;
    let mut exists = Vec::new();
    for (id, _) in &plan.clients {
        let found = store.client(id, now).await?.is_some();
        if found && !a.skip_existing {
            return Err(CliError::Usage(format!(
                "client {id:?} exists already; nothing was imported (--skip-existing leaves it)"
            )));
        }
        exists.push(found);
    }
    let (mut added, mut skipped, mut results) = (0, 0, Vec::new());
    for ((id, rep), found) in plan.clients.iter().zip(exists) {
        if found {
            skipped += 1;
            results.push(json!({"action": "SKIPPED", "resourceType": "CLIENT", "resourceName": id, "id": id}));
            continue;
        }
        let merged = merge(rep, new_client_defaults(local))
            .map_err(|e| CliError::Usage(format!("{id}: {e}")))?;
        let (mut client, fresh) = register(merged.new, now, &SystemRandom::new())
            .map_err(|e| CliError::Usage(format!("{id}: {e}")))?;
        client.disabled = merged.enabled == Some(false);
        if let (Some(s), ClientType::Confidential) = (&merged.secret, client.client_type) {
            client.secret_hash = Some(s.hash());
        }
        match store.create_client(&client, now).await {
            Ok(()) => {}
            Err(StoreError::ConditionFailed) => {
                return Err(CliError::Usage(format!(
                    "client id {id:?} was taken meanwhile"
                )))
            }
            Err(e) => return Err(e.into()),
        }
        added += 1;
        let mut r =
            json!({"action": "ADDED", "resourceType": "CLIENT", "resourceName": id, "id": id});
        // A confidential client the export gave no secret: a new one, shown this once.
        if let (None, Some(s)) = (&merged.secret, fresh) {
            if client.client_type == ClientType::Confidential {
                r["client_secret"] = json!(s.expose());
            }
        }
        results.push(r);
    }
    print_json(&json!({
        "added": added,
        "skipped": skipped,
        "results": results,
        "notImported": plan.not_imported,
        "warnings": plan.warnings,
    }));
    Ok(())
}
