//! Which browser origins may call scanid: the registered web origins of all clients (CORS,
//! held by the context's `OriginCache`), and one client's (the Keycloak login-status frame).

use crate::protocol::ClientId;
use crate::store::{ClientStore, StoreError};
use crate::Context;

/// Whether `origin` is a web origin of any registered client (the CORS endpoints), or of a
/// client whose metadata document scanid keeps (its redirect URIs' origins, while it keeps it:
/// browser MCP clients nobody registered).
pub async fn registered(ctx: &Context, origin: &str) -> bool {
    let now = ctx.clock.now();
    if ctx
        .web_origins
        .contains(ctx.store.as_ref(), origin, now)
        .await
    {
        return true;
    }
    if !ctx.settings.client_documents.enabled {
        return false;
    }
    match ctx.store.document_origin(origin, now).await {
        Ok(found) => found,
        Err(e) => {
            tracing::warn!(error = %e, "reading a client document's origin failed");
            false
        }
    }
}

/// Whether client `client_id` exists and lists `origin` among its web origins (a malformed
/// `client_id` is no client).
pub async fn client_allows(
    ctx: &Context,
    client_id: &str,
    origin: &str,
) -> Result<bool, StoreError> {
    if ClientId::parse(client_id).is_err() {
        return Ok(false);
    }
    let found = ctx.store.client(client_id, ctx.clock.now()).await?;
    Ok(found.is_some_and(|(c, _)| c.allows_origin(origin)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::client::{register, NewClient};
    use crate::testing::{Builder, SHOP};

    #[tokio::test]
    async fn an_origin_is_allowed_by_the_clients_that_list_it() {
        let env = Builder::new().build().await;
        let now = env.now();
        let (web, _) = register(
            NewClient {
                name: "Web".into(),
                client_id: Some("web".into()),
                redirect_uris: vec!["https://web.example/cb".into()],
                public: true,
                web_origins: vec!["+".into()],
                ..Default::default()
            },
            now,
            env.random.as_ref(),
        )
        .unwrap();
        env.store.create_client(&web, now).await.unwrap();
        let (origin, other) = ("https://web.example", "https://shop.example");
        assert!(client_allows(&env.ctx, "web", origin).await.unwrap());
        assert!(!client_allows(&env.ctx, "web", other).await.unwrap());
        // The shop lists no web origin; an unknown or malformed client allows none.
        assert!(!client_allows(&env.ctx, SHOP, other).await.unwrap());
        assert!(!client_allows(&env.ctx, "nobody", origin).await.unwrap());
        assert!(!client_allows(&env.ctx, "bad client id\n", origin)
            .await
            .unwrap());
        assert!(registered(&env.ctx, origin).await);
        assert!(!registered(&env.ctx, other).await);
    }
}
