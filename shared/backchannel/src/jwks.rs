//! Clients' `jwks_uri` over HTTP: the adapter of [`scanid_core::client_jwks::JwksFetch`],
//! with the guards of back-channel delivery: no redirects, a short timeout, a bounded body,
//! and for a self-registered client only the public addresses its name resolves to
//! (`Vetting`).

use std::time::Duration;

use scanid_core::client_jwks::{JwksFetch, MAX_BYTES};
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
}
