//! Clients through the admin API: list, create, read, update, delete, the secret and the
//! service account, as Keycloak's `.../admin/realms/{realm}/clients...`.
//!
//! Each write is one conditional write of the client record: a refused body, a lost race or
//! an outage leaves the client as it was. Admin roles are not part of the representation:
//! only the operator gives them (`scanid client add-role`), so no admin can mint a stronger
//! one.
//!
//! Secrets are write-only, as the CLI's: shown once, when generated (`POST .../client-secret`)
//! and never again; stored only as a hash (a `client-secret-jwt` client's also sealed, for
//! the service alone to check its assertions). See the book's admin API chapter.

use serde_json::{json, Value};

use crate::context::Context;
use crate::domain::admin::representation::{
    merge, new_client_defaults, replace, to_representation, RepresentationError,
};
use crate::domain::admin::{outranks, AdminRole, Need, CONSOLE_CLIENT_ID};
use crate::domain::client::{register, Client, ClientSecret, ClientType, GrantType};
use crate::domain::ratelimit::Source;
use crate::protocol::ClientId;
use crate::service::admin::{authorize, AdminError, Caller};
use crate::service::client_secrets;
use crate::store::{ClientStore, StoreError};

const VIEW: Need = Need::Role(AdminRole::ViewClients);
const MANAGE: Need = Need::Role(AdminRole::ManageClients);

/// Which clients a list asks for (`?clientId=&search=&first=&max=`).
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    /// `clientId`: an exact match (a substring, case-insensitive, with `search=true`).
    pub client_id: Option<String>,
    /// `search=true`.
    pub search: bool,
    /// `first`: how many to skip.
    pub first: usize,
    /// `max`: at most this many; all when absent.
    pub max: Option<usize>,
}

/// `GET .../clients`: the clients, ordered by `clientId`, without secrets.
pub async fn list(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    q: &ListQuery,
) -> Result<Vec<Value>, AdminError> {
    let caller = authorize(ctx, token, VIEW, "clients.list", source).await?;
    let r: Result<_, AdminError> = async {
        let mut clients = ctx.store.clients(ctx.clock.now()).await?;
        clients.sort_by(|a, b| a.client_id.as_str().cmp(b.client_id.as_str()));
        let wanted = |c: &Client| match &q.client_id {
            None => true,
            Some(id) if q.search => c
                .client_id
                .to_ascii_lowercase()
                .contains(&id.to_ascii_lowercase()),
            Some(id) => c.client_id.as_str() == id,
        };
        Ok(clients
            .iter()
            .filter(|c| wanted(c))
            .skip(q.first)
            .take(q.max.unwrap_or(usize::MAX))
            .map(to_representation)
            .collect())
    }
    .await;
    caller.finish("clients.list", None, r)
}

/// `GET .../clients/{id}`.
pub async fn read(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    id: &str,
) -> Result<Value, AdminError> {
    let caller = authorize(ctx, token, VIEW, "clients.read", source).await?;
    let r: Result<_, AdminError> = async {
        let (c, _) = find(ctx, id).await?;
        Ok(to_representation(&c))
    }
    .await;
    caller.finish("clients.read", Some(id), r)
}

/// `POST .../clients`: registers the client the representation describes; its id.
pub async fn create(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    body: &[u8],
) -> Result<String, AdminError> {
    let caller = authorize(ctx, token, MANAGE, "clients.create", source).await?;
    let r: Result<String, AdminError> = async {
        let body = parse(body)?;
        let local = ctx.settings.local_development();
        let merged = merge(&body, new_client_defaults(local)).map_err(bad)?;
        let now = ctx.clock.now();
        // A taken clientId is a 409 whatever else the body says (as Keycloak answers); the
        // conditional create below settles a race.
        if let Some(id) = merged.new.client_id.as_deref() {
            if id == CONSOLE_CLIENT_ID {
                // Reserved for the console's built-in client.
                return Err(conflict(id));
            }
            match find(ctx, id).await {
                Ok(_) => return Err(conflict(id)),
                Err(AdminError::NotFound(_)) => {}
                Err(e) => return Err(e),
            }
        }
        let (mut client, fresh) = register(merged.new, now, ctx.random.as_ref())
            .map_err(|e| bad(RepresentationError::Invalid(e)))?;
        client.disabled = merged.enabled == Some(false);
        signable(ctx, &client).await?;
        if let (Some(s), ClientType::Confidential) = (&merged.secret, client.client_type) {
            client.secret_hash = Some(s.hash());
        }
        // client_secret_jwt: the secret set, or the one generated (regenerate to learn it).
        if let Some(s) = merged.secret.as_ref().or(fresh.as_ref()) {
            seal(ctx, &mut client, s).await?;
        }
        match ctx.store.create_client(&client, now).await {
            Ok(()) => {}
            Err(StoreError::ConditionFailed) => return Err(conflict(&client.client_id)),
            Err(e) => return Err(e.into()),
        }
        Ok(client.client_id.to_string())
    }
    .await;
    let object = r.as_ref().ok().cloned();
    caller.finish("clients.create", object.as_deref(), r)
}

/// `PUT .../clients/{id}`: the fields given replace the client's, the others stay.
pub async fn update(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    id: &str,
    body: &[u8],
) -> Result<(), AdminError> {
    let caller = authorize(ctx, token, MANAGE, "clients.update", source).await?;
    let r: Result<_, AdminError> = async {
        let body = parse(body)?;
        let (old, version) = find(ctx, id).await?;
        within_reach(&caller, &old)?;
        let local = ctx.settings.local_development();
        let mut client = replace(&old, &body, local, ctx.random.as_ref()).map_err(bad)?;
        if client.token_alg != old.token_alg {
            signable(ctx, &client).await?;
        }
        if let Some(s) = body.get("secret").and_then(Value::as_str) {
            seal(ctx, &mut client, &ClientSecret::chosen(s)).await?;
        }
        write(ctx, &client, version).await?;
        Ok(())
    }
    .await;
    caller.finish("clients.update", Some(id), r)
}

/// Whether `PUT .../clients/{id}` with `body` would be taken, writing nothing: a realm
/// import's `OVERWRITE` checks every client before it writes one, so a client out of the
/// caller's reach or a body that cannot replace its settings stops the import whole. A refusal
/// is audited as the update's would be; a pass is not (the update that follows is).
pub async fn check_update(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    id: &str,
    body: &[u8],
) -> Result<(), AdminError> {
    let caller = authorize(ctx, token, MANAGE, "clients.update", source).await?;
    let r: Result<(), AdminError> = async {
        let body = parse(body)?;
        let (old, _) = find(ctx, id).await?;
        within_reach(&caller, &old)?;
        let local = ctx.settings.local_development();
        replace(&old, &body, local, ctx.random.as_ref()).map_err(bad)?;
        Ok(())
    }
    .await;
    match r {
        Ok(()) => Ok(()),
        Err(e) => caller.finish("clients.update", Some(id), Err(e)),
    }
}

/// `DELETE .../clients/{id}`: its tokens die with it.
pub async fn delete(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    id: &str,
) -> Result<(), AdminError> {
    let caller = authorize(ctx, token, MANAGE, "clients.delete", source).await?;
    let r: Result<_, AdminError> = async {
        let (old, version) = find(ctx, id).await?;
        within_reach(&caller, &old)?;
        match ctx
            .store
            .delete_client_at(id, version, ctx.clock.now())
            .await
        {
            Ok(()) => {}
            Err(StoreError::ConditionFailed) => return Err(AdminError::Changed),
            Err(e) => return Err(e.into()),
        }
        Ok(())
    }
    .await;
    caller.finish("clients.delete", Some(id), r)
}

/// `GET .../clients/{id}/client-secret`: Keycloak's `CredentialRepresentation`, without the
/// value: scanid keeps only the secret's hash (it was shown once, when generated).
pub async fn secret(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    id: &str,
) -> Result<Value, AdminError> {
    let caller = authorize(ctx, token, MANAGE, "clients.secret.read", source).await?;
    let r: Result<_, AdminError> = async {
        let (c, _) = find(ctx, id).await?;
        if c.client_type == ClientType::Public {
            return Err(AdminError::BadRequest(
                "a public client has no secret".into(),
            ));
        }
        Ok(json!({ "type": "secret" }))
    }
    .await;
    caller.finish("clients.secret.read", Some(id), r)
}

/// `POST .../clients/{id}/client-secret`: a new secret, shown this once; the old one stops
/// working at once.
pub async fn regenerate_secret(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    id: &str,
) -> Result<Value, AdminError> {
    let caller = authorize(ctx, token, MANAGE, "clients.secret.regenerate", source).await?;
    let r: Result<_, AdminError> = async {
        let (mut c, version) = find(ctx, id).await?;
        within_reach(&caller, &c)?;
        if c.client_type == ClientType::Public {
            return Err(AdminError::BadRequest(
                "a public client has no secret".into(),
            ));
        }
        let secret = ClientSecret::generate(ctx.random.as_ref());
        c.secret_hash = Some(secret.hash());
        seal(ctx, &mut c, &secret).await?;
        write(ctx, &c, version).await?;
        Ok(json!({ "type": "secret", "value": secret.expose() }))
    }
    .await;
    caller.finish("clients.secret.regenerate", Some(id), r)
}

/// `GET .../clients/{id}/service-account-user`: the identity its client-credentials tokens
/// name (`sub` = the client's id), as Keycloak's `UserRepresentation`.
pub async fn service_account_user(
    ctx: &Context,
    token: Option<&str>,
    source: &Source,
    id: &str,
) -> Result<Value, AdminError> {
    let caller = authorize(ctx, token, VIEW, "clients.service_account.read", source).await?;
    let r: Result<_, AdminError> = async {
        let (c, _) = find(ctx, id).await?;
        if !c.allows(GrantType::ClientCredentials) {
            return Err(AdminError::BadRequest(
                "Service account not enabled for the client".into(),
            ));
        }
        Ok(json!({
            "id": c.client_id.as_str(),
            "username": format!("service-account-{}", c.client_id.to_ascii_lowercase()),
            "enabled": !c.disabled,
            "emailVerified": false,
            "firstName": "",
            "lastName": "",
            "createdTimestamp": c.created_at.secs() * 1000,
            "serviceAccountClientId": c.client_id.as_str(),
            "attributes": {},
        }))
    }
    .await;
    caller.finish("clients.service_account.read", Some(id), r)
}

/// A client whose admin roles the caller's do not all grant is out of its reach (403): no
/// admin takes over a stronger service account by its secret, or disables or deletes it.
fn within_reach(caller: &Caller, target: &Client) -> Result<(), AdminError> {
    if target.client_id.as_str() == CONSOLE_CLIENT_ID {
        // The console's own client is built in: no admin points it elsewhere.
        return Err(AdminError::Forbidden);
    }
    if outranks(&caller.roles, &target.admin_roles) {
        Ok(())
    } else {
        Err(AdminError::Forbidden)
    }
}

async fn find(ctx: &Context, id: &str) -> Result<(Client, u64), AdminError> {
    let found = match ClientId::parse(id) {
        Ok(id) => ctx.store.client(&id, ctx.clock.now()).await?,
        Err(_) => None,
    };
    found.ok_or(AdminError::NotFound("Could not find client"))
}

/// The client's token algorithm has an active key (else its tokens could not be signed): a
/// 400 naming the algorithm and the rotation that adds it.
async fn signable(ctx: &Context, c: &Client) -> Result<(), AdminError> {
    match c.token_alg {
        Some(alg) if !ctx.keyring().await.algs().contains(&alg) => {
            Err(AdminError::BadRequest(format!(
                "the server has no active {} key: add one first (POST .../keys/rotate?alg={})",
                alg.as_str(),
                alg.as_str()
            )))
        }
        _ => Ok(()),
    }
}

/// A `client_secret_jwt` client's secret sealed (nothing for any other client): 400 where
/// the service holds no sealing key, 503 when it cannot be read.
async fn seal(ctx: &Context, c: &mut Client, secret: &ClientSecret) -> Result<(), AdminError> {
    if c.secret_jwt.is_some() && !client_secrets::offered(ctx) {
        return Err(AdminError::BadRequest(client_secrets::NOT_OFFERED.into()));
    }
    client_secrets::seal(ctx, c, secret)
        .await
        .map_err(|e| AdminError::Store(StoreError::Unavailable(e.to_string().into())))
}

async fn write(ctx: &Context, c: &Client, version: u64) -> Result<(), AdminError> {
    match ctx.store.update_client(c, version, ctx.clock.now()).await {
        Ok(()) => Ok(()),
        Err(StoreError::ConditionFailed) => Err(AdminError::Changed),
        Err(e) => Err(e.into()),
    }
}

fn parse(body: &[u8]) -> Result<Value, AdminError> {
    serde_json::from_slice(body).map_err(|e| {
        AdminError::BadRequest(format!(
            "malformed JSON at line {}, column {}",
            e.line(),
            e.column()
        ))
    })
}

fn conflict(id: &str) -> AdminError {
    AdminError::Conflict(format!("Client {id} already exists"))
}

fn bad(e: RepresentationError) -> AdminError {
    AdminError::BadRequest(e.to_string())
}
