//! Clients' `jwks_uri` over HTTP: the adapter of [`scanid_core::client_jwks::JwksFetch`],
//! with the guards of back-channel delivery: no redirects, a short timeout, a bounded body,
//! and for a self-registered client only the public addresses its name resolves to
//! (`Vetting`). Clients' metadata documents (an `https` `client_id`) the same way, `https`
//! only, `application/json`, at most the size the caller gives.

use std::time::Duration;

use scanid_core::client_jwks::{Fetched, JwksFetch, Validators, MAX_BYTES};
use scanid_core::reach::Reach;

use super::{refused_address, refused_literal, Http};

/// How long a fetch of a client's JWK Set may take.
pub const TIMEOUT: Duration = Duration::from_secs(3);

/// Fetches clients' JWK Sets.
#[derive(Debug, Clone)]
pub struct JwksHttp {
    http: Http,
}

impl JwksHttp {
    /// Fetches through `http`'s clients.
    pub fn new(http: Http) -> Self {
        Self { http }
    }
}

#[async_trait::async_trait]
impl JwksFetch for JwksHttp {
    async fn fetch(&self, uri: &str, reach: Reach) -> Result<Vec<u8>, String> {
        if refused_literal(uri, reach) {
            return Err(format!("{uri}: {}", reach.refusal()));
        }
        let mut r = self
            .http
            .client(reach)
            .get(uri)
            .timeout(TIMEOUT)
            .header("accept", "application/jwk-set+json, application/json")
            .send()
            .await
            .map_err(|e| {
                if refused_address(&e) {
                    format!("{uri}: {}", reach.refusal())
                } else {
                    format!("{uri}: {e}")
                }
            })?;
        if r.status().as_u16() != 200 {
            return Err(format!("{uri}: answered {}", r.status().as_u16()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = r.chunk().await.map_err(|e| format!("{uri}: {e}"))? {
            if body.len() + chunk.len() > MAX_BYTES {
                return Err(format!("{uri}: larger than {MAX_BYTES} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    async fn fetch_document(
        &self,
        uri: &str,
        reach: Reach,
        max_bytes: usize,
        validators: Validators<'_>,
    ) -> Result<Fetched, String> {
        if !uri.starts_with("https://") {
            return Err(format!("{uri}: not https"));
        }
        if refused_literal(uri, reach) {
            return Err(format!("{uri}: {}", reach.refusal()));
        }
        let mut get = self
            .http
            .client(reach)
            .get(uri)
            .timeout(TIMEOUT)
            .header("accept", "application/json");
        if let Some(e) = validators.etag {
            get = get.header("if-none-match", e);
        } else if let Some(m) = validators.last_modified {
            get = get.header("if-modified-since", m);
        }
        let r = get.send().await.map_err(|e| failure(uri, reach, &e))?;
        let status = r.status().as_u16();
        let header = |name: &str| {
            r.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let cached = |body, not_modified| Fetched {
            body,
            not_modified,
            cache_control: header("cache-control"),
            expires: header("expires"),
            date: header("date"),
            etag: header("etag"),
            last_modified: header("last-modified"),
        };
        let conditional = validators.etag.is_some() || validators.last_modified.is_some();
        if status == 304 && conditional {
            return Ok(cached(Vec::new(), true));
        }
        if (300..400).contains(&status) {
            return Err(format!(
                "{uri}: answered {status}, a redirect (not followed)"
            ));
        }
        if status != 200 {
            return Err(format!("{uri}: answered {status}"));
        }
        let json = header("content-type").is_some_and(|t| {
            let t = t
                .split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase();
            t == "application/json" || t.ends_with("+json")
        });
        if !json {
            return Err(format!("{uri}: not application/json"));
        }
        if r.content_length().is_some_and(|n| n > max_bytes as u64) {
            return Err(format!("{uri}: larger than {max_bytes} bytes"));
        }
        let answer = cached(Vec::new(), false);
        let body = bounded_body(uri, r, max_bytes).await?;
        Ok(Fetched { body, ..answer })
    }
}

/// Why a request failed: a refused address says so, a timeout says so.
fn failure(uri: &str, reach: Reach, e: &reqwest::Error) -> String {
    if refused_address(e) {
        format!("{uri}: {}", reach.refusal())
    } else if e.is_timeout() {
        format!("{uri}: no answer within {} s", TIMEOUT.as_secs())
    } else {
        format!("{uri}: {e}")
    }
}

/// The body, read until `max` bytes (more is an error), within the request's time limit.
async fn bounded_body(uri: &str, mut r: reqwest::Response, max: usize) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    loop {
        match r.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() + chunk.len() > max {
                    return Err(format!("{uri}: larger than {max} bytes"));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok(body),
            Err(e) if e.is_timeout() => {
                return Err(format!("{uri}: no answer within {} s", TIMEOUT.as_secs()))
            }
            Err(e) => return Err(format!("{uri}: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use scanid_core::reach::{Resolver, StaticResolver};

    use super::*;

    /// A client metadata document by a name that resolves to 127.0.0.1, or by a loopback or
    /// private literal, is never connected to for a self-registered reach (the address the
    /// connection would use is the vetted one); an `http` URL is refused before any lookup.
    #[tokio::test]
    async fn a_document_inside_the_network_is_never_fetched() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let hits = Arc::new(AtomicUsize::new(0));
        let counted = hits.clone();
        tokio::spawn(async move {
            while listener.accept().await.is_ok() {
                counted.fetch_add(1, Ordering::SeqCst);
            }
        });
        let resolver: Arc<dyn Resolver> = Arc::new(StaticResolver(vec![(
            "cimd.example".into(),
            vec!["127.0.0.1".parse().unwrap()],
        )]));
        let f = JwksHttp::new(Http::new(resolver).unwrap());
        for uri in [
            format!("https://cimd.example:{port}/c.json"),
            format!("https://127.0.0.1:{port}/c.json"),
            "https://10.0.0.1/c.json".to_owned(),
            "https://[::ffff:169.254.169.254]/c.json".to_owned(),
        ] {
            let e = f
                .fetch_document(&uri, Reach::Public, 5120, Validators::default())
                .await
                .unwrap_err();
            assert!(e.contains("not public"), "{uri}: {e}");
        }
        let e = f
            .fetch_document(
                &format!("http://127.0.0.1:{port}/c.json"),
                Reach::Any,
                5120,
                Validators::default(),
            )
            .await
            .unwrap_err();
        assert!(e.contains("not https"), "{e}");
        assert_eq!(hits.load(Ordering::SeqCst), 0);
    }
}
