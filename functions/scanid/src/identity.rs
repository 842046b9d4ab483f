//! `scanid identity ...`: identities, on the same store the server uses. A disabled identity
//! disappears from the directory, cannot log in, and its live tokens introspect as inactive.

use clap::{Args, Subcommand};
use scanid_core::clock::{Clock, SystemClock};
use scanid_core::domain::admin::AdminRole;
use scanid_core::domain::identity::Identity;
use scanid_core::store::{IdentityStore, Passkeys, StoreError};
use serde_json::{json, Value};

use crate::cli::{print_json, CliError, ConfigArgs};

#[derive(Debug, Subcommand)]
pub enum IdentityCommand {
    /// List identities.
    List(ListArgs),
    /// Show one identity (by sub, service_id or name).
    Show(WhoArgs),
    /// Add a group (appears in tokens, userinfo and introspection).
    AddGroup(GroupArgs),
    /// Remove a group.
    RemoveGroup(GroupArgs),
    /// Give an admin role: the person may then log in to the admin console
    /// (`{public_url}/admin/`) and use the admin API from there.
    AddRole(RoleArgs),
    /// Take an admin role away (effective at the console's next call).
    RemoveRole(RoleArgs),
    /// Disable: hidden from the directory, no login, tokens inactive.
    Disable(WhoArgs),
    /// Enable a disabled identity again.
    Enable(WhoArgs),
    /// Delete: sessions ended, tokens dead, gone from the directory, its name free again;
    /// its service_id stays reserved. Cannot be undone.
    Delete(WhoArgs),
    /// A lost or stolen phone: replace the device key with the new phone's, and end every
    /// session and token of the identity (its clients get back-channel logout).
    ReplaceKey(ReplaceKeyArgs),
    /// End every session and token of the identity (back-channel logout to its clients),
    /// keeping its key.
    RevokeSessions(WhoArgs),
}

#[derive(Debug, Args)]
pub struct ReplaceKeyArgs {
    /// sub, service_id or name (may begin with `-`).
    #[arg(allow_hyphen_values = true)]
    pub who: String,
    /// The new phone's device key: standard base64 of its P-256 SubjectPublicKeyInfo (DER),
    /// as the app shows it.
    #[arg(long)]
    pub public_key: String,
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Debug, Args)]
pub struct WhoArgs {
    /// sub, service_id or name (may begin with `-`).
    #[arg(allow_hyphen_values = true)]
    pub who: String,
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Debug, Args)]
pub struct GroupArgs {
    /// sub, service_id or name (may begin with `-`).
    #[arg(allow_hyphen_values = true)]
    pub who: String,
    /// The group: 1 to 64 of A-Z a-z 0-9 . _ - : /
    pub group: String,
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Debug, Args)]
pub struct RoleArgs {
    /// sub, service_id or name (may begin with `-`).
    #[arg(long = "name", value_name = "WHO", allow_hyphen_values = true)]
    pub who: String,
    /// realm-admin, manage-clients, view-clients, manage-users, view-users or view-events.
    #[arg(long)]
    pub role: String,
    #[command(flatten)]
    pub config: ConfigArgs,
}

fn describe(i: &Identity) -> Value {
    let mut v = serde_json::to_value(i.public_profile()).unwrap_or(Value::Null);
    v["sub"] = json!(i.sub);
    v["service_id"] = json!(i.service_id);
    v["groups"] = json!(i.groups);
    v["disabled"] = json!(i.disabled);
    v["admin_roles"] = json!(i.admin_roles);
    v
}

async fn find(
    store: &dyn scanid_core::store::Backend,
    who: &str,
) -> Result<(Identity, u64), CliError> {
    let now = SystemClock.now();
    if let Some(found) = store.identity(who, now).await? {
        return Ok(found);
    }
    let by = match store.identity_by_service_id(who, now).await? {
        Some(i) => Some(i),
        None => store.identity_by_name(who, now).await?,
    };
    match by {
        Some(i) => store
            .identity(&i.sub, now)
            .await?
            .ok_or_else(|| CliError::Usage(format!("no identity {who:?}"))),
        None => Err(CliError::Usage(format!("no identity {who:?}"))),
    }
}

fn valid_group(g: &str) -> bool {
    (1..=64).contains(&g.len())
        && g.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b':' | b'/'))
}

/// Applies `change` with optimistic concurrency (retried if the app updated meanwhile).
async fn modify(
    config: &ConfigArgs,
    who: &str,
    change: impl Fn(&mut Identity),
) -> Result<Identity, CliError> {
    let store = scanid_server::open::open_store(&config.settings("http://127.0.0.1:8080")?).await?;
    for _ in 0..3 {
        let (mut i, version) = find(store.as_ref(), who).await?;
        change(&mut i);
        let now = SystemClock.now();
        // OIDC Core's `updated_at` (groups are released with `profile`).
        i.updated_at = Some(now);
        match store.update_identity(&i, version, now).await {
            Ok(()) => return Ok(i),
            Err(StoreError::ConditionFailed) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(CliError::Failed(
        "the identity kept changing; try again".into(),
    ))
}

/// Ends every session and token of identity `who`, replacing its key with `new_key` if
/// given; waits for the back-channel logouts before the process exits.
async fn end_everything(
    config: &ConfigArgs,
    who: &str,
    new_key: Option<&str>,
) -> Result<(), CliError> {
    let app = scanid_server::open::context(config.settings("http://127.0.0.1:8080")?).await?;
    let (i, _) = find(app.store.as_ref(), who).await?;
    let (i, ended) = scanid_core::usecase::app::replace_key_by_operator(&app, &i.sub, new_key)
        .await
        .map_err(|e| match e {
            scanid_core::usecase::app::AppError::Invalid(why) => CliError::Usage(why),
            other => CliError::Failed(format!("{who}: {other}")),
        })?;
    app.backchannel.settle().await;
    let mut out = describe(&i);
    out["sessions_ended"] = json!(ended);
    out["tokens_not_before"] = json!(i.tokens_not_before.map(|t| t.to_rfc3339_millis()));
    print_json(&out);
    Ok(())
}

/// Gives (`add`) or takes away an admin role; audited as the operator's.
async fn set_role(a: RoleArgs, add: bool) -> Result<(), CliError> {
    let role = AdminRole::parse(&a.role).ok_or_else(|| {
        CliError::Usage(format!(
            "role: one of {}",
            AdminRole::ALL.map(AdminRole::as_str).join(", ")
        ))
    })?;
    let i = modify(&a.config, &a.who, |i| {
        i.admin_roles.retain(|r| *r != role);
        if add {
            i.admin_roles.push(role);
            i.admin_roles.sort();
        }
    })
    .await?;
    scanid_core::audit::Audit::new(scanid_core::audit::Event::AdminCall)
        .subject(&i.sub)
        .source("operator")
        .detail(if add {
            "identity.role.add"
        } else {
            "identity.role.remove"
        })
        .object(role.as_str())
        .emit();
    print_json(&describe(&i));
    Ok(())
}

pub async fn run(cmd: IdentityCommand) -> Result<(), CliError> {
    match cmd {
        IdentityCommand::List(a) => {
            let store =
                scanid_server::open::open_store(&a.config.settings("http://127.0.0.1:8080")?)
                    .await?;
            let all: Vec<Value> = store
                .identities(SystemClock.now())
                .await?
                .iter()
                .map(describe)
                .collect();
            print_json(&json!({ "identities": all }));
        }
        IdentityCommand::Show(a) => {
            let store =
                scanid_server::open::open_store(&a.config.settings("http://127.0.0.1:8080")?)
                    .await?;
            let now = SystemClock.now();
            let ident = find(store.as_ref(), &a.who).await?.0;
            let mut out = describe(&ident);
            // Its keys (issue 26): the device key while it signs, and every passkey with where
            // it was last used.
            let passkeys: Vec<_> = store
                .passkeys_of(ident.sub.as_str(), now)
                .await?
                .iter()
                .map(scanid_core::usecase::app::PasskeyView::from)
                .collect();
            out["keys"] = json!({
                "device_key": (!ident.device_key_retired).then(|| json!({ "public_key": ident.public_key })),
                "passkeys": passkeys,
            });
            print_json(&out);
        }
        IdentityCommand::AddGroup(a) => {
            if !valid_group(&a.group) {
                return Err(CliError::Usage(
                    "group: 1 to 64 of A-Z a-z 0-9 . _ - : /".into(),
                ));
            }
            let g = a.group.clone();
            let i = modify(&a.config, &a.who, |i| {
                if !i.groups.contains(&g) {
                    i.groups.push(g.clone());
                }
            })
            .await?;
            print_json(&describe(&i));
        }
        IdentityCommand::RemoveGroup(a) => {
            let g = a.group.clone();
            let i = modify(&a.config, &a.who, |i| i.groups.retain(|x| *x != g)).await?;
            print_json(&describe(&i));
        }
        IdentityCommand::AddRole(a) => set_role(a, true).await?,
        IdentityCommand::RemoveRole(a) => set_role(a, false).await?,
        IdentityCommand::Disable(a) => {
            let i = modify(&a.config, &a.who, |i| i.disabled = true).await?;
            // End its SSO sessions and tell their clients (OIDC Back-Channel Logout); the
            // process waits for the deliveries before it exits.
            let app =
                scanid_server::open::context(a.config.settings("http://127.0.0.1:8080")?).await?;
            let ended =
                scanid_core::usecase::resource::end_sessions_of(&app, &i.sub, SystemClock.now())
                    .await?;
            app.backchannel.settle().await;
            tracing::info!(sessions = ended, "sessions ended");
            scanid_core::audit::Audit::new(scanid_core::audit::Event::IdentityDisabled)
                .subject(&i.sub)
                .source("operator")
                .emit();
            print_json(&describe(&i));
        }
        IdentityCommand::Enable(a) => print_json(&describe(
            &modify(&a.config, &a.who, |i| i.disabled = false).await?,
        )),
        IdentityCommand::Delete(a) => {
            let app =
                scanid_server::open::context(a.config.settings("http://127.0.0.1:8080")?).await?;
            let (i, version) = find(app.store.as_ref(), &a.who).await?;
            scanid_core::usecase::app::erase(&app, &i, version, &[], "operator")
                .await
                .map_err(|e| CliError::Failed(format!("deleting {}: {e}", a.who)))?;
            // The back-channel logouts of its sessions go out before the process exits.
            app.backchannel.settle().await;
            print_json(&json!({ "deleted": i.sub, "name": i.name, "service_id": i.service_id }));
        }
        IdentityCommand::ReplaceKey(a) => {
            end_everything(&a.config, &a.who, Some(&a.public_key)).await?;
        }
        IdentityCommand::RevokeSessions(a) => end_everything(&a.config, &a.who, None).await?,
    }
    Ok(())
}
