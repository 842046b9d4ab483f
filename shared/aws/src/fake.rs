//! A fake AWS JSON endpoint for tests of what an emulator cannot do: throttle, fail, or count
//! calls. Each request's `X-Amz-Target` (e.g. `TrentService.Sign`,
//! `DynamoDB_20120810.GetItem`) and body go to a responder that returns a status and a JSON
//! body, as the real service would (errors as `{"__type": "...", "message": "..."}`).

use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;

/// A responder: (target, request body) -> (status, response body).
pub type Responder = dyn Fn(&str, &[u8]) -> (u16, String) + Send + Sync;

/// A running fake endpoint.
#[derive(Clone)]
pub struct FakeAws {
    /// Its URL (`http://127.0.0.1:<port>`).
    pub endpoint: String,
    calls: Arc<Mutex<Vec<String>>>,
}

impl FakeAws {
    /// Starts a fake on a loopback port; it runs until the test's runtime ends.
    pub async fn start(
        respond: impl Fn(&str, &[u8]) -> (u16, String) + Send + Sync + 'static,
    ) -> std::io::Result<Self> {
        let respond: Arc<Responder> = Arc::new(respond);
        let calls = Arc::new(Mutex::new(Vec::new()));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let endpoint = format!("http://{}", listener.local_addr()?);
        let log = calls.clone();
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let (respond, log) = (respond.clone(), log.clone());
                tokio::spawn(async move {
                    let svc = service_fn(move |req: http::Request<hyper::body::Incoming>| {
                        let (respond, log) = (respond.clone(), log.clone());
                        async move {
                            let target = req
                                .headers()
                                .get("x-amz-target")
                                .and_then(|v| v.to_str().ok())
                                .unwrap_or_default()
                                .to_owned();
                            let body = req.into_body().collect().await?.to_bytes();
                            if let Ok(mut l) = log.lock() {
                                l.push(target.clone());
                            }
                            let (status, out) = respond(&target, &body);
                            Ok::<_, hyper::Error>(
                                http::Response::builder()
                                    .status(status)
                                    .header("content-type", "application/x-amz-json-1.1")
                                    .body(Full::new(Bytes::from(out)))
                                    .unwrap_or_default(),
                            )
                        }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(tcp), svc)
                        .await;
                });
            }
        });
        Ok(Self { endpoint, calls })
    }

    /// The targets called so far, in order.
    pub fn calls(&self) -> Vec<String> {
        self.calls.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// How many calls had a target ending in `op` (e.g. `"Sign"`).
    pub fn count(&self, op: &str) -> usize {
        self.calls()
            .iter()
            .filter(|t| t.rsplit('.').next() == Some(op))
            .count()
    }
}

/// An AWS JSON error body.
pub fn error(kind: &str, message: &str) -> String {
    serde_json::json!({ "__type": kind, "message": message }).to_string()
}
