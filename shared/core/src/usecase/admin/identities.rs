//! Identities through the admin API, as Keycloak's `.../admin/realms/{realm}/users...` and
//! `.../groups`: list and search, count, read, disable and enable, delete, groups, sessions
//! (list, end) and keys (list). Reading needs `view-users`, changing `manage-users`; every
//! call is audited with the identity's `sub` as its object.
//!
//! What each change does is what the operator's CLI does: a disabled identity cannot log in
//! and its tokens are inactive (its SSO sessions end, its clients are told by back-channel
//! logout); a deleted one goes entirely (as `scanid identity delete`); ending its sessions
//! kills every token it has (as `scanid identity revoke-sessions`).

use std::collections::BTreeSet;

use serde_json::Value;

use crate::audit::{Audit, Event};
use crate::context::Context;
use crate::domain::admin::users::{
    to_credentials, to_group, to_session, to_user, update_of, valid_group, UserQuery,
};
use crate::domain::admin::{outranks, AdminRole, Need};
use crate::domain::identity::Identity;
use crate::domain::ratelimit::Source;
use crate::service::admin::{authorize, AdminError, Caller};
use crate::service::app_error::AppError;
use crate::service::erase::erase;
use crate::service::sessions::end_sessions_of;
use crate::store::{IdentityStore, Passkeys, SsoSessions, StoreError};

const VIEW: Need = Need::Role(AdminRole::ViewUsers);
const MANAGE: Need = Need::Role(AdminRole::ManageUsers);

/// Keycloak's default page size for users.
const DEFAULT_MAX: usize = 100;

/// `GET .../users`: the identities the query names, ordered by username.
pub async fn list(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    q: &UserQuery,
) -> Result<Vec<Value>, AdminError> {
    let caller = authorize(ctx, token, VIEW, "users.list", source).await?;
    let r = matching(ctx, q).await.map(|all| {
        all.iter()
            .skip(q.first)
            .take(q.max.unwrap_or(DEFAULT_MAX))
            .map(to_user)
            .collect()
    });
    caller.finish("users.list", None, r)
}

/// `GET .../users/count`: how many identities the query names.
pub async fn count(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    q: &UserQuery,
) -> Result<usize, AdminError> {
    let caller = authorize(ctx, token, VIEW, "users.count", source).await?;
    let r = matching(ctx, q).await.map(|all| all.len());
    caller.finish("users.count", None, r)
}

/// `GET .../users/{id}`.
pub async fn read(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    id: &str,
) -> Result<Value, AdminError> {
    let caller = authorize(ctx, token, VIEW, "users.read", source).await?;
    let r = find(ctx, id).await.map(|(i, _)| to_user(&i));
    caller.finish("users.read", Some(id), r)
}

/// `PUT .../users/{id}`: only `enabled` changes anything. Disabling ends the identity's SSO
/// sessions (back-channel logout to their clients), as `scanid identity disable`.
pub async fn update(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    id: &str,
    body: &[u8],
) -> Result<(), AdminError> {
    let caller = authorize(ctx, token, MANAGE, "users.update", source).await?;
    let r: Result<(), AdminError> = async {
        let body: Value = serde_json::from_slice(body).map_err(|e| {
            AdminError::BadRequest(format!(
                "malformed JSON at line {}, column {}",
                e.line(),
                e.column()
            ))
        })?;
        let (i, _) = find(ctx, id).await?;
        within_reach(&caller, &i)?;
        let Some(enabled) = update_of(&body, &i).map_err(AdminError::BadRequest)? else {
            return Ok(());
        };
        set_enabled(ctx, id, enabled).await
    }
    .await;
    caller.finish("users.update", Some(id), r)
}

async fn set_enabled(ctx: &Context, id: &str, enabled: bool) -> Result<(), AdminError> {
    let i = modify(ctx, id, |i| i.disabled = !enabled).await?;
    if !enabled {
        let ended = end_sessions_of(ctx, &i.sub, ctx.clock.now()).await?;
        tracing::info!(sessions = ended, "identity disabled; sessions ended");
        Audit::new(Event::IdentityDisabled)
            .subject(&i.sub)
            .source("admin")
            .emit();
    }
    Ok(())
}

/// `DELETE .../users/{id}`: as `scanid identity delete`: its sessions end (back-channel
/// logout), its consents, photos and passkeys go, its tokens die, its name is free again.
pub async fn delete(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    id: &str,
) -> Result<(), AdminError> {
    let caller = authorize(ctx, token, MANAGE, "users.delete", source).await?;
    let r: Result<(), AdminError> = async {
        let (i, version) = find(ctx, id).await?;
        within_reach(&caller, &i)?;
        erase(ctx, &i, version, &[], "admin")
            .await
            .map_err(|e| match e {
                AppError::Store(e) => AdminError::Store(e),
                AppError::Conflict(_) => AdminError::Changed,
                other => AdminError::BadRequest(other.to_string()),
            })
    }
    .await;
    caller.finish("users.delete", Some(id), r)
}

/// `GET .../users/{id}/groups`.
pub async fn groups_of(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    id: &str,
) -> Result<Vec<Value>, AdminError> {
    let caller = authorize(ctx, token, VIEW, "users.groups.list", source).await?;
    let r = find(ctx, id)
        .await
        .map(|(i, _)| i.groups.iter().map(|g| to_group(g)).collect());
    caller.finish("users.groups.list", Some(id), r)
}

/// `PUT .../users/{id}/groups/{group}` (`join`) or `DELETE` (leave): in the identity's next
/// tokens' `groups` claim. Any valid name is a group (scanid has no group records).
pub async fn set_group(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    id: &str,
    group: &str,
    join: bool,
) -> Result<(), AdminError> {
    let op = if join {
        "users.groups.add"
    } else {
        "users.groups.remove"
    };
    let caller = authorize(ctx, token, MANAGE, op, source).await?;
    let r: Result<(), AdminError> = async {
        if !valid_group(group) {
            return Err(AdminError::BadRequest(
                "group: 1 to 64 of A-Z a-z 0-9 . _ - : /".into(),
            ));
        }
        // A group named as an admin role is only given or taken by a caller holding that
        // role: should a group ever carry the role, no `manage-users` account mints a
        // `realm-admin` by joining one.
        if let Some(role) = AdminRole::parse(group) {
            if !outranks(&caller.roles, &[role]) {
                return Err(AdminError::Forbidden);
            }
        }
        within_reach(&caller, &find(ctx, id).await?.0)?;
        modify(ctx, id, |i| {
            i.groups.retain(|g| g != group);
            if join {
                i.groups.push(group.to_owned());
            }
        })
        .await
        .map(|_| ())
    }
    .await;
    caller.finish(op, Some(id), r)
}

/// `GET .../groups`: every group some identity is in, by name (`search`: a substring).
pub async fn groups(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    search: Option<&str>,
    first: usize,
    max: Option<usize>,
) -> Result<Vec<Value>, AdminError> {
    let caller = authorize(ctx, token, VIEW, "groups.list", source).await?;
    let r: Result<Vec<Value>, AdminError> = async {
        let all = ctx.store.identities(ctx.clock.now()).await?;
        let names: BTreeSet<&str> = all
            .iter()
            .flat_map(|i| i.groups.iter().map(String::as_str))
            .filter(|g| search.is_none_or(|s| g.to_lowercase().contains(&s.to_lowercase())))
            .collect();
        Ok(names
            .into_iter()
            .skip(first)
            .take(max.unwrap_or(usize::MAX))
            .map(to_group)
            .collect())
    }
    .await;
    caller.finish("groups.list", None, r)
}

/// `GET .../groups/{id}`: the group, while some identity is in it.
pub async fn group(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    name: &str,
) -> Result<Value, AdminError> {
    let caller = authorize(ctx, token, VIEW, "groups.read", source).await?;
    let r: Result<Value, AdminError> = async {
        let all = ctx.store.identities(ctx.clock.now()).await?;
        if all.iter().any(|i| i.groups.iter().any(|g| g == name)) {
            Ok(to_group(name))
        } else {
            Err(AdminError::NotFound("Could not find group by id"))
        }
    }
    .await;
    caller.finish("groups.read", Some(name), r)
}

/// `GET .../groups/{id}/members`: the identities in the group, ordered by username.
pub async fn members(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    name: &str,
    first: usize,
    max: Option<usize>,
) -> Result<Vec<Value>, AdminError> {
    let caller = authorize(ctx, token, VIEW, "groups.members", source).await?;
    let r: Result<Vec<Value>, AdminError> = async {
        let mut all = ctx.store.identities(ctx.clock.now()).await?;
        all.retain(|i| i.groups.iter().any(|g| g == name));
        if all.is_empty() {
            return Err(AdminError::NotFound("Could not find group by id"));
        }
        all.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(all
            .iter()
            .skip(first)
            .take(max.unwrap_or(DEFAULT_MAX))
            .map(to_user)
            .collect())
    }
    .await;
    caller.finish("groups.members", Some(name), r)
}

/// `GET .../users/{id}/sessions`: its live SSO sessions.
pub async fn sessions(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    id: &str,
) -> Result<Vec<Value>, AdminError> {
    let caller = authorize(ctx, token, VIEW, "users.sessions.list", source).await?;
    let r: Result<Vec<Value>, AdminError> = async {
        let (i, _) = find(ctx, id).await?;
        let now = ctx.clock.now();
        let mut out = Vec::new();
        for sid in ctx.store.identity_sessions(i.sub.as_str(), now).await? {
            if let Some(s) = ctx.store.sso_session(&sid, now).await? {
                out.push(to_session(&s.value, &i.name));
            }
        }
        Ok(out)
    }
    .await;
    caller.finish("users.sessions.list", Some(id), r)
}

/// `POST .../users/{id}/logout`: as `scanid identity revoke-sessions`: every token it has
/// dies (offline ones too), its SSO sessions end, their clients are told.
pub async fn logout(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    id: &str,
) -> Result<(), AdminError> {
    let caller = authorize(ctx, token, MANAGE, "users.logout", source).await?;
    let r: Result<(), AdminError> = async {
        within_reach(&caller, &find(ctx, id).await?.0)?;
        let now = ctx.clock.now();
        let i = modify(ctx, id, |i| i.tokens_not_before = Some(now)).await?;
        let ended = end_sessions_of(ctx, &i.sub, now).await?;
        tracing::info!(sessions = ended, "every session of an identity ended");
        Audit::new(Event::SessionsEnded)
            .subject(&i.sub)
            .source("admin")
            .emit();
        Ok(())
    }
    .await;
    caller.finish("users.logout", Some(id), r)
}

/// `GET .../users/{id}/credentials`: its device key and passkeys (public data only).
pub async fn credentials(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    id: &str,
) -> Result<Vec<Value>, AdminError> {
    let caller = authorize(ctx, token, VIEW, "users.credentials.list", source).await?;
    let r: Result<Vec<Value>, AdminError> = async {
        let (i, _) = find(ctx, id).await?;
        let passkeys = ctx
            .store
            .passkeys_of(i.sub.as_str(), ctx.clock.now())
            .await?;
        Ok(to_credentials(&i, &passkeys))
    }
    .await;
    caller.finish("users.credentials.list", Some(id), r)
}

async fn matching(ctx: &Context, q: &UserQuery) -> Result<Vec<Identity>, AdminError> {
    let mut all = ctx.store.identities(ctx.clock.now()).await?;
    all.retain(|i| q.matches(i));
    all.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(all)
}

/// No admin reaches a stronger person: disabling, deleting, logging out or changing the
/// groups of an identity whose admin roles (at the console) the caller's roles do not all
/// grant is refused, as for a stronger service account (otherwise a `manage-users` account
/// could lock every `realm-admin` out).
fn within_reach(caller: &Caller, target: &Identity) -> Result<(), AdminError> {
    if outranks(&caller.roles, &target.admin_roles) {
        Ok(())
    } else {
        Err(AdminError::Forbidden)
    }
}

async fn find(ctx: &Context, id: &str) -> Result<(Identity, u64), AdminError> {
    if id.is_empty() || id.len() > 64 {
        return Err(AdminError::NotFound("User not found"));
    }
    ctx.store
        .identity(id, ctx.clock.now())
        .await?
        .ok_or(AdminError::NotFound("User not found"))
}

/// Applies `change` to identity `id` with optimistic concurrency (retried if its app
/// changed it meanwhile); sets OIDC's `updated_at`.
async fn modify(
    ctx: &Context,
    id: &str,
    change: impl Fn(&mut Identity),
) -> Result<Identity, AdminError> {
    for _ in 0..3 {
        let (mut i, version) = find(ctx, id).await?;
        let before = i.clone();
        change(&mut i);
        if i == before {
            return Ok(i);
        }
        let now = ctx.clock.now();
        i.updated_at = Some(now);
        match ctx.store.update_identity(&i, version, now).await {
            Ok(()) => return Ok(i),
            Err(StoreError::ConditionFailed) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(AdminError::Changed)
}
