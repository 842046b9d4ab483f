//! The admin console (`{auth_url}/admin/`): a public client of the realm, built in. The
//! console's page calls [`console_client`] on every load, so the client exists without any
//! operator step (in `scanid serve` and on AWS alike) and is put back as it must be: its id
//! is reserved ([`CONSOLE_CLIENT_ID`]; the admin API refuses to create, change or delete it),
//! its only redirect URI is the console's own page (the operator may disable it with `scanid
//! client disable`, and that stays), it is public (PKCE S256) and holds no
//! admin role itself: a person's token for it is an admin token only while that person holds
//! one ([`crate::service::admin`]).

use crate::context::Context;
use crate::domain::admin::{console_redirect_uri, CONSOLE_CLIENT_ID};
use crate::domain::client::{register, Client, NewClient};
use crate::store::{ClientStore, StoreError};

/// What the console's page needs to start a login: the realm, its issuer, and the client.
#[derive(Debug, Clone)]
pub struct ConsoleClient {
    /// The realm's name.
    pub realm: String,
    /// The issuer (`{public_url}/realms/{realm}`).
    pub issuer: String,
    /// The console's client id.
    pub client_id: &'static str,
    /// The console's redirect URI (its page).
    pub redirect_uri: String,
}

/// The console's client as it must be: written when missing or different.
pub async fn console_client(ctx: &Context) -> Result<ConsoleClient, StoreError> {
    let now = ctx.clock.now();
    let redirect_uri = console_redirect_uri(&ctx.settings.public_url);
    let (mut want, _) = register(
        NewClient {
            name: "scanid admin console".into(),
            redirect_uris: vec![redirect_uri.clone()],
            post_logout_redirect_uris: vec![redirect_uri.clone()],
            public: true,
            client_id: Some(CONSOLE_CLIENT_ID.into()),
            web_origins: vec!["+".into()],
            ..Default::default()
        },
        now,
        ctx.random.as_ref(),
    )
    .map_err(|e| StoreError::Corrupt(format!("the console's client: {e}").into()))?;
    let stored = ctx.store.client(CONSOLE_CLIENT_ID, now).await?;
    if let Some((old, _)) = &stored {
        // The operator may turn the console off (`scanid client disable`); that stays.
        want.disabled = old.disabled;
    }
    match stored {
        Some((old, _)) if same(&old, &want) => {}
        Some((old, version)) => {
            // Put back as it must be; its tokens stay those of the same registration.
            want.created_at = old.created_at;
            match ctx.store.update_client(&want, version, now).await {
                Ok(()) | Err(StoreError::ConditionFailed) => {}
                Err(e) => return Err(e),
            }
        }
        None => match ctx.store.create_client(&want, now).await {
            Ok(()) | Err(StoreError::ConditionFailed) => {}
            Err(e) => return Err(e),
        },
    }
    Ok(ConsoleClient {
        realm: ctx.settings.realm.clone(),
        issuer: ctx.settings.issuer(),
        client_id: CONSOLE_CLIENT_ID,
        redirect_uri,
    })
}

/// Whether a stored console client is the built-in one (ignoring when it was made).
fn same(stored: &Client, want: &Client) -> bool {
    let mut a = stored.clone();
    a.created_at = want.created_at;
    a == *want
}
