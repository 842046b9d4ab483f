//! Every registered client's web origins, cached: what CORS preflights and error responses
//! are decided by (they name no client yet).

use std::collections::HashSet;
use std::sync::Arc;

use arc_swap::ArcSwap;

use crate::clock::Timestamp;
use crate::domain::client::Client;
use crate::store::{Backend, ClientStore};

/// How old the cached set of registered origins may get.
pub const ORIGINS_RELOAD_SECS: i64 = 60;
/// How old it may be when an origin is not in it.
pub const ORIGINS_MISS_RELOAD_SECS: i64 = 5;

/// Every registered client's allowed origins, read from the store and kept for
/// [`ORIGINS_RELOAD_SECS`] (a new client's origin is answered within a minute; a failed read
/// keeps the set it has).
#[derive(Default)]
pub struct OriginCache {
    held: ArcSwap<Option<(Arc<HashSet<String>>, Timestamp)>>,
    loading: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for OriginCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OriginCache")
    }
}

impl OriginCache {
    /// Is `origin` a web origin of some client?
    pub async fn contains(&self, store: &dyn Backend, origin: &str, now: Timestamp) -> bool {
        if let Some((set, at)) = self.held.load().as_ref() {
            let age = now.secs() - at.secs();
            if set.contains(origin) && age < ORIGINS_RELOAD_SECS {
                return true;
            }
            if age < ORIGINS_MISS_RELOAD_SECS {
                return false;
            }
        }
        self.reload(store, now).await.contains(origin)
    }

    async fn reload(&self, store: &dyn Backend, now: Timestamp) -> Arc<HashSet<String>> {
        let _loading = self.loading.lock().await;
        if let Some((set, at)) = self.held.load().as_ref() {
            if now.secs() - at.secs() < ORIGINS_MISS_RELOAD_SECS {
                return set.clone();
            }
        }
        let set = match store.clients(now).await {
            Ok(clients) => Arc::new(
                clients
                    .iter()
                    .flat_map(Client::allowed_origins)
                    .collect::<HashSet<_>>(),
            ),
            Err(e) => {
                tracing::warn!(error = %e, "CORS: listing clients failed; keeping the origins known");
                self.held
                    .load()
                    .as_ref()
                    .as_ref()
                    .map(|(s, _)| s.clone())
                    .unwrap_or_default()
            }
        };
        self.held.store(Arc::new(Some((set.clone(), now))));
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::client::{register, NewClient};
    use crate::random::SeededRandom;
    use crate::store::memory::MemoryStore;

    #[tokio::test]
    async fn a_new_clients_origin_is_known_within_seconds_and_misses_do_not_hammer_the_store() {
        let store = MemoryStore::default();
        let t0 = Timestamp::from_secs(1_800_000_000);
        let spa = |id: &str, uri: &str| {
            register(
                NewClient {
                    name: id.into(),
                    client_id: Some(id.into()),
                    redirect_uris: vec![uri.into()],
                    public: true,
                    ..Default::default()
                },
                t0,
                &SeededRandom::new(1),
            )
            .unwrap_or_else(|e| panic!("{e}"))
            .0
        };
        store
            .create_client(&spa("a", "https://a.example/cb"), t0)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let cache = OriginCache::default();
        assert!(cache.contains(&store, "https://a.example", t0).await);
        assert!(!cache.contains(&store, "https://b.example", t0).await);
        store
            .create_client(&spa("b", "https://b.example/cb"), t0)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        // A miss within the miss window does not read the store again...
        let soon = t0.plus_secs(ORIGINS_MISS_RELOAD_SECS - 1);
        assert!(!cache.contains(&store, "https://b.example", soon).await);
        // ...after it, the new client's origin is found.
        let later = t0.plus_secs(ORIGINS_MISS_RELOAD_SECS);
        assert!(cache.contains(&store, "https://b.example", later).await);
        assert!(!cache.contains(&store, "https://evil.example", later).await);
    }
}
