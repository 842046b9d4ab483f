//! Clients' JWK Sets published at their `jwks_uri`: the port that fetches one (over HTTP, with
//! the SSRF guards of [`crate::reach`]: `scanid-backchannel`'s `JwksHttp`), and a bounded
//! cache in front of it.
//!
//! A set is kept for [`TTL_SECS`]; an assertion whose `kid` the cached set lacks makes the
//! caller fetch it again once (the client rotated its keys), at most once per
//! [`REFETCH_SECS`] per URI, so a stream of unknown `kid`s does not turn into a stream of
//! requests to the client's host. At most [`MAX_ENTRIES`] sets are held.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use jsonwebtoken::jwk::JwkSet;

use crate::clock::Timestamp;
use crate::domain::client_assertion::parse_jwks;
use crate::reach::Reach;

/// How long a fetched set is used before it is fetched again.
pub const TTL_SECS: i64 = 300;
/// The least time between two fetches of one URI forced by an unknown `kid`.
pub const REFETCH_SECS: i64 = 1;
/// At most this many sets in the cache.
pub const MAX_ENTRIES: usize = 256;
/// At most this many bytes of a fetched set.
pub const MAX_BYTES: usize = 64 * 1024;

/// A fetched client metadata document ([`crate::domain::client_document`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fetched {
    /// The body of the 200 answer (empty for a 304).
    pub body: Vec<u8>,
    /// The answer was `304 Not Modified` to a conditional request: the kept document stands.
    pub not_modified: bool,
    /// Its `Cache-Control` header, if any.
    pub cache_control: Option<String>,
    /// Its `Expires` header, if any.
    pub expires: Option<String>,
    /// Its `Date` header, if any.
    pub date: Option<String>,
    /// Its `ETag` header, if any.
    pub etag: Option<String>,
    /// Its `Last-Modified` header, if any.
    pub last_modified: Option<String>,
}

/// The validators of a kept document, to fetch it conditionally (RFC 9110 §13.1): the
/// answer is then `304` when it did not change.
#[derive(Debug, Clone, Copy, Default)]
pub struct Validators<'a> {
    /// Sent as `If-None-Match`.
    pub etag: Option<&'a str>,
    /// Sent as `If-Modified-Since` (when there is no `ETag`, RFC 9110 §13.1.3).
    pub last_modified: Option<&'a str>,
}

/// Fetches a client's documents from URIs it chose, connecting only where `reach` allows: its
/// JWK Set (a `jwks_uri`), and its metadata document (an `https` `client_id`).
#[async_trait::async_trait]
pub trait JwksFetch: Send + Sync {
    /// The body of a 200 answer to a GET of `uri` (at most [`MAX_BYTES`]), or why not.
    async fn fetch(&self, uri: &str, reach: Reach) -> Result<Vec<u8>, String>;

    /// A 200 `application/json` answer to a GET of `uri` of at most `max_bytes`, within the
    /// fetcher's time limit, with no redirect followed, or a 304 to the conditional request
    /// `validators` make; or why not. By default nothing is fetched.
    async fn fetch_document(
        &self,
        uri: &str,
        _reach: Reach,
        _max_bytes: usize,
        _validators: Validators<'_>,
    ) -> Result<Fetched, String> {
        Err(format!(
            "{uri}: this process fetches no client metadata document"
        ))
    }
}

/// The port of a context that fetches nothing (tests, until a process sets one).
#[derive(Debug, Default, Clone, Copy)]
pub struct NoFetch;

#[async_trait::async_trait]
impl JwksFetch for NoFetch {
    async fn fetch(&self, uri: &str, _reach: Reach) -> Result<Vec<u8>, String> {
        Err(format!("{uri}: this process fetches no jwks_uri"))
    }
}

/// Fetched sets by URI, with when each was fetched.
#[derive(Debug, Default)]
pub struct JwksCache {
    entries: Mutex<HashMap<String, (Timestamp, Arc<JwkSet>)>>,
}

impl JwksCache {
    fn cached(&self, uri: &str) -> Option<(Timestamp, Arc<JwkSet>)> {
        self.entries.lock().ok()?.get(uri).cloned()
    }

    fn keep(&self, uri: &str, at: Timestamp, set: Arc<JwkSet>) {
        if let Ok(mut m) = self.entries.lock() {
            if m.len() >= MAX_ENTRIES && !m.contains_key(uri) {
                // Full: drop the oldest.
                if let Some(oldest) = m
                    .iter()
                    .min_by_key(|(_, (t, _))| *t)
                    .map(|(k, _)| k.clone())
                {
                    m.remove(&oldest);
                }
            }
            m.insert(uri.to_owned(), (at, set));
        }
    }

    /// The set at `uri`: cached while fresh; fetched when not cached, stale, or `refresh`
    /// (an unknown `kid`) and not fetched in the last [`REFETCH_SECS`].
    pub async fn get(
        &self,
        fetch: &dyn JwksFetch,
        uri: &str,
        reach: Reach,
        now: Timestamp,
        refresh: bool,
    ) -> Result<Arc<JwkSet>, String> {
        let cached = self.cached(uri);
        if let Some((at, set)) = &cached {
            let age = now.secs() - at.secs();
            let fresh = age < TTL_SECS;
            if fresh && (!refresh || age < REFETCH_SECS) {
                return Ok(set.clone());
            }
        }
        let body = fetch.fetch(uri, reach).await?;
        if body.len() > MAX_BYTES {
            return Err(format!(
                "{uri}: the JWK Set is larger than {MAX_BYTES} bytes"
            ));
        }
        let value: serde_json::Value =
            serde_json::from_slice(&body).map_err(|e| format!("{uri}: not JSON: {e}"))?;
        let set = Arc::new(parse_jwks(&value).map_err(|e| format!("{uri}: {e}"))?);
        self.keep(uri, now, set.clone());
        Ok(set)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Counting(AtomicUsize, String);

    #[async_trait::async_trait]
    impl JwksFetch for Counting {
        async fn fetch(&self, _uri: &str, _reach: Reach) -> Result<Vec<u8>, String> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Ok(self.1.clone().into_bytes())
        }
    }

    #[tokio::test]
    async fn cached_until_stale_and_fetched_again_once_for_an_unknown_kid() {
        let set = r#"{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"a","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}"#;
        let f = Counting(AtomicUsize::new(0), set.into());
        let c = JwksCache::default();
        let t = Timestamp::from_secs(1000);
        let uri = "https://rp.example/jwks";
        c.get(&f, uri, Reach::Any, t, false).await.unwrap();
        c.get(&f, uri, Reach::Any, t.plus_secs(10), false)
            .await
            .unwrap();
        assert_eq!(f.0.load(Ordering::SeqCst), 1, "cached");
        c.get(&f, uri, Reach::Any, t.plus_secs(11), true)
            .await
            .unwrap();
        assert_eq!(
            f.0.load(Ordering::SeqCst),
            2,
            "an unknown kid fetches again"
        );
        c.get(&f, uri, Reach::Any, t.plus_secs(11), true)
            .await
            .unwrap();
        assert_eq!(
            f.0.load(Ordering::SeqCst),
            2,
            "not twice within REFETCH_SECS"
        );
        c.get(&f, uri, Reach::Any, t.plus_secs(11 + TTL_SECS), false)
            .await
            .unwrap();
        assert_eq!(f.0.load(Ordering::SeqCst), 3, "stale");
        let bad = Counting(
            AtomicUsize::new(0),
            r#"{"keys":[{"kty":"oct","k":"AA"}]}"#.into(),
        );
        assert!(c
            .get(&bad, "https://x/j", Reach::Any, t, false)
            .await
            .is_err());
    }
}
