//! `scanid client import FILE`: a Keycloak realm export's clients, written to the store as the
//! admin API's `partialImport` reads them (`scanid_core::domain::admin::import`): the same
//! representation rules, secrets kept, and everything that cannot come over printed in
//! `warnings` and `notImported`. A client that exists stops the import before anything is
//! written, unless `--skip-existing` (Keycloak's `ifResourceExists: SKIP`: it stays as it is)
//! or `--overwrite` (`OVERWRITE`: its settings are replaced from the export, as the admin API's
//! `PUT` replaces them; it keeps its client id). Every client written is an admin audit event
//! (`admin.call`, source `operator`).

use std::path::PathBuf;

use clap::Args;
use scanid_core::clock::{Clock, SystemClock};
use scanid_core::domain::admin::import::plan;
use scanid_core::domain::admin::representation::{merge, new_client_defaults, replace};
use scanid_core::domain::client::{register, ClientSecret, ClientType};
use scanid_core::random::SystemRandom;
use scanid_core::store::{ClientStore, StoreError};
use serde_json::json;

use crate::cli::{print_json, CliError, ConfigArgs};

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The realm export (`kc.sh export --realm R --file FILE`), JSON.
    pub file: PathBuf,
    /// Leave clients that exist already as they are (default: stop, writing nothing).
    #[arg(long, conflicts_with = "overwrite")]
    pub skip_existing: bool,
    /// Replace the settings of clients that exist already with the export's (their client id
    /// stays; fields the export does not give stay as they are).
    #[arg(long)]
    pub overwrite: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// Operator commands do not serve, so the public URL only needs to be well-formed.
const OPERATOR_URL: &str = "http://127.0.0.1:8080";

/// A `client-secret-jwt` client's secret (the export's `secret`, else `fresh`, the one
/// generated) sealed.
async fn seal(
    settings: &scanid_core::config::Settings,
    c: &mut scanid_core::domain::client::Client,
    rep: &serde_json::Value,
    fresh: Option<&ClientSecret>,
    id: &str,
) -> Result<(), CliError> {
    let chosen = rep.get("secret").and_then(|v| v.as_str());
    match chosen.map(ClientSecret::chosen).as_ref().or(fresh) {
        Some(s) => scanid_server::open::seal_secret(settings, c, s)
            .await
            .map_err(|e| CliError::Usage(format!("{id}: {e}"))),
        None => Ok(()),
    }
}

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
    let rng = SystemRandom::new();
    // Every client checked before anything is written: one that exists stops the import
    // (unless told otherwise), and one whose settings the export cannot replace does too.
    let mut existing = Vec::new();
    for (id, rep) in &plan.clients {
        let found = store.client(id, now).await?;
        if let Some((old, _)) = &found {
            if !a.skip_existing && !a.overwrite {
                return Err(CliError::Usage(format!(
                    "client {id:?} exists already; nothing was imported (--skip-existing leaves it, \
                     --overwrite replaces its settings)"
                )));
            }
            if a.overwrite {
                replace(old, rep, local, &rng)
                    .map_err(|e| CliError::Usage(format!("{id}: {e}; nothing was imported")))?;
            }
        }
        existing.push(found);
    }
    let (mut added, mut overwritten, mut skipped, mut results) = (0, 0, 0, Vec::new());
    for ((id, rep), found) in plan.clients.iter().zip(existing) {
        let result = |action: &str| json!({"action": action, "resourceType": "CLIENT", "resourceName": id, "id": id});
        if let Some((old, version)) = found {
            if a.skip_existing {
                skipped += 1;
                results.push(result("SKIPPED"));
                continue;
            }
            let mut client = replace(&old, rep, local, &rng)
                .map_err(|e| CliError::Usage(format!("{id}: {e}")))?;
            seal(&settings, &mut client, rep, None, id).await?;
            match store.update_client(&client, version, now).await {
                Ok(()) => {}
                Err(StoreError::ConditionFailed) => {
                    return Err(CliError::Usage(format!(
                        "client {id:?} changed meanwhile; import again"
                    )))
                }
                Err(e) => return Err(e.into()),
            }
            audit("clients.update", id);
            overwritten += 1;
            results.push(result("OVERWRITTEN"));
            continue;
        }
        let merged = merge(rep, new_client_defaults(local))
            .map_err(|e| CliError::Usage(format!("{id}: {e}")))?;
        let (mut client, fresh) =
            register(merged.new, now, &rng).map_err(|e| CliError::Usage(format!("{id}: {e}")))?;
        client.disabled = merged.enabled == Some(false);
        if let (Some(s), ClientType::Confidential) = (&merged.secret, client.client_type) {
            client.secret_hash = Some(s.hash());
        }
        seal(&settings, &mut client, rep, fresh.as_ref(), id).await?;
        match store.create_client(&client, now).await {
            Ok(()) => {}
            Err(StoreError::ConditionFailed) => {
                return Err(CliError::Usage(format!(
                    "client id {id:?} was taken meanwhile"
                )))
            }
            Err(e) => return Err(e.into()),
        }
        audit("clients.create", id);
        added += 1;
        let mut r = result("ADDED");
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
        "overwritten": overwritten,
        "skipped": skipped,
        "results": results,
        "notImported": plan.not_imported,
        "warnings": plan.warnings,
    }));
    Ok(())
}

/// The admin event of a client the import wrote: the operator's call, as the admin API's.
fn audit(operation: &str, id: &str) {
    scanid_core::audit::Audit::new(scanid_core::audit::Event::AdminCall)
        .source("operator")
        .detail(operation)
        .object(id)
        .emit();
}
