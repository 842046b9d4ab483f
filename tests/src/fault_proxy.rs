//! A fault-injecting proxy in front of the AWS emulator: `scanid serve`'s `AWS_ENDPOINT_URL`
//! points here, and each call is forwarded to the emulator unchanged, or (while faults are
//! on) answered in its place as AWS answers an overloaded or failing service:
//!
//! - `ThrottlingException` or `ProvisionedThroughputExceededException`, HTTP 400;
//! - `InternalServerError`, HTTP 500
//!
//! (KMS calls get KMS's names: `ThrottlingException`, `KMSInternalException`).
//!
//! A faulted call never reaches the emulator (AWS throttles before doing anything, and the
//! tests that use this one check what a client was told against what was stored). Which
//! calls fail is drawn from a seeded generator, per call: a share of them at random, and
//! every so many calls an outage (a run of consecutive calls failing, longer than the SDK's
//! retries), so some requests do fail and answer 503.
//!
//! A share of the `TransactWriteItems` calls that did commit can also have their reply lost
//! (a 500 after the write, as a dropped connection or a DynamoDB internal error may do). The
//! SDK retries them with the same `ClientRequestToken` (it fills one in once per operation),
//! and DynamoDB answers a token it already committed with success without applying it again:
//! the proxy does that for the emulator, which ignores the token.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;

use crate::load::Rng;

/// How the proxy fails calls while faults are on.
#[derive(Debug, Clone, Copy)]
pub struct FaultPlan {
    /// The share of calls failed at random, in percent.
    pub percent: u64,
    /// Every `outage_every` calls, the next `outage_len` all fail (0: no outages).
    pub outage_every: u64,
    pub outage_len: u64,
    /// The share of committed `TransactWriteItems` calls whose reply is lost, in percent.
    pub lost_replies: u64,
    /// The share of versioned `PutItem` calls of a code's record (the code exchange: the record
    /// becoming its grant) whose reply is lost, in percent. DynamoDB has no request token for a
    /// put: the SDK's retry of one that landed fails its condition, which the service must tell
    /// from a replayed code.
    pub lost_put_replies: u64,
}

struct State {
    upstream: String,
    plan: FaultPlan,
    on: AtomicBool,
    rng: Mutex<Rng>,
    /// Calls seen while faults were on.
    calls: AtomicU64,
    /// Calls forwarded (in either mode).
    forwarded: AtomicU64,
    /// Injected faults by `"<error type> <operation>"`.
    injected: Mutex<BTreeMap<String, u64>>,
    /// The `ClientRequestToken`s of committed transactions, with the emulator's answer.
    committed: Mutex<BTreeMap<String, Bytes>>,
    client: reqwest::Client,
}

/// A running proxy; it stops when dropped.
pub struct FaultProxy {
    pub endpoint: String,
    state: Arc<State>,
    _runtime: tokio::runtime::Runtime,
}

impl FaultProxy {
    /// Starts a proxy to `upstream` (the emulator's URL) on a loopback port, faults off.
    pub fn start(upstream: &str, plan: FaultPlan, seed: u64) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let state = Arc::new(State {
            upstream: upstream.trim_end_matches('/').to_owned(),
            plan,
            on: AtomicBool::new(false),
            rng: Mutex::new(Rng::new(seed)),
            calls: AtomicU64::new(0),
            forwarded: AtomicU64::new(0),
            injected: Mutex::new(BTreeMap::new()),
            committed: Mutex::new(BTreeMap::new()),
            client: reqwest::Client::builder()
                .pool_max_idle_per_host(0)
                .build()
                .unwrap(),
        });
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let st = state.clone();
        runtime.spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let st = st.clone();
                tokio::spawn(async move {
                    let svc = service_fn(move |req| handle(st.clone(), req));
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(tcp), svc)
                        .await;
                });
            }
        });
        Self {
            endpoint,
            state,
            _runtime: runtime,
        }
    }

    /// Turns faults on or off.
    pub fn faults(&self, on: bool) {
        self.state.on.store(on, Ordering::SeqCst);
    }

    /// Calls seen while faults were on.
    pub fn calls(&self) -> u64 {
        self.state.calls.load(Ordering::SeqCst)
    }

    /// Calls forwarded to the emulator.
    pub fn forwarded(&self) -> u64 {
        self.state.forwarded.load(Ordering::SeqCst)
    }

    /// Injected faults, by `"<error type> <operation>"`.
    pub fn injected(&self) -> BTreeMap<String, u64> {
        self.state.injected.lock().unwrap().clone()
    }
}

/// The fault for this call, if any: (status, error type).
fn fault(st: &State) -> Option<(u16, &'static str)> {
    if !st.on.load(Ordering::SeqCst) {
        return None;
    }
    let n = st.calls.fetch_add(1, Ordering::SeqCst);
    let p = st.plan;
    let mut rng = st.rng.lock().unwrap();
    let outage = p.outage_every > 0 && n % p.outage_every >= p.outage_every - p.outage_len;
    if !outage && !rng.chance(p.percent) {
        return None;
    }
    Some(match rng.below(3) {
        0 => (400, "ThrottlingException"),
        1 => (400, "ProvisionedThroughputExceededException"),
        _ => (500, "InternalServerError"),
    })
}

async fn handle(
    st: Arc<State>,
    req: http::Request<hyper::body::Incoming>,
) -> Result<http::Response<Full<Bytes>>, hyper::Error> {
    let target = req
        .headers()
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let (parts, body) = req.into_parts();
    let body = body.collect().await?.to_bytes();
    // DynamoDB's idempotent transactions: a token it committed is answered again, unapplied
    // (checked first: the retry of a lost reply is not faulted again, so the SDK's retries
    // always recover it and the test can hold a 503 to "nothing committed").
    let token = if target.ends_with(".TransactWriteItems") {
        serde_json::from_slice::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| v["ClientRequestToken"].as_str().map(str::to_owned))
    } else {
        None
    };
    if let Some(answer) = token
        .as_ref()
        .and_then(|t| st.committed.lock().unwrap().get(t).cloned())
    {
        return Ok(http::Response::builder()
            .status(200)
            .header("content-type", "application/x-amz-json-1.0")
            .body(Full::new(answer))
            .unwrap());
    }
    if let Some((status, kind)) = fault(&st) {
        // KMS names its own: one throttling error, and its internal error.
        let (prefix, kind) = if target.starts_with("DynamoDB") {
            ("com.amazonaws.dynamodb.v20120810#", kind)
        } else if status == 500 {
            ("", "KMSInternalException")
        } else {
            ("", "ThrottlingException")
        };
        let op = target.rsplit('.').next().unwrap_or_default().to_owned();
        *st.injected
            .lock()
            .unwrap()
            .entry(format!("{kind} {op}"))
            .or_default() += 1;
        let body = serde_json::json!({
            "__type": format!("{prefix}{kind}"),
            "message": "injected by the test proxy",
        })
        .to_string();
        return Ok(http::Response::builder()
            .status(status)
            .header("content-type", "application/x-amz-json-1.0")
            .header("x-amzn-requestid", "fault-proxy")
            .body(Full::new(Bytes::from(body)))
            .unwrap());
    }
    let path = parts
        .uri
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or("/");
    let code_record_put = target.ends_with(".PutItem") && is_code_record_put(&body);
    let mut up = st
        .client
        .request(parts.method.clone(), format!("{}{path}", st.upstream))
        .body(body);
    for (k, v) in &parts.headers {
        if !matches!(
            k.as_str(),
            "host" | "content-length" | "connection" | "transfer-encoding"
        ) {
            up = up.header(k, v);
        }
    }
    st.forwarded.fetch_add(1, Ordering::SeqCst);
    let resp = match up.send().await {
        Ok(r) => r,
        Err(e) => {
            return Ok(http::Response::builder()
                .status(502)
                .body(Full::new(Bytes::from(format!("proxy: {e}"))))
                .unwrap())
        }
    };
    let mut out = http::Response::builder().status(resp.status());
    for (k, v) in resp.headers() {
        if !matches!(
            k.as_str(),
            "content-length" | "connection" | "transfer-encoding"
        ) {
            out = out.header(k, v);
        }
    }
    let status = resp.status();
    let bytes = resp.bytes().await.unwrap_or_default();
    if target.ends_with(".TransactWriteItems") && status.is_success() {
        if let Some(t) = &token {
            st.committed
                .lock()
                .unwrap()
                .insert(t.clone(), bytes.clone());
        }
        if let Some(lost) = lose_reply(&st, "TransactWriteItems", st.plan.lost_replies) {
            return Ok(lost);
        }
    }
    if code_record_put && status.is_success() {
        if let Some(lost) = lose_reply(&st, "PutItem", st.plan.lost_put_replies) {
            return Ok(lost);
        }
    }
    Ok(out.body(Full::new(bytes)).unwrap())
}

/// While faults are on, `percent` of the written calls of `op` get a 500 in place of their
/// answer, as if the reply were lost: the SDK retries them.
fn lose_reply(st: &State, op: &str, percent: u64) -> Option<http::Response<Full<Bytes>>> {
    let lose = st.on.load(Ordering::SeqCst) && st.rng.lock().unwrap().chance(percent);
    if !lose {
        return None;
    }
    *st.injected
        .lock()
        .unwrap()
        .entry(format!("lost reply {op}"))
        .or_default() += 1;
    let body = serde_json::json!({
        "__type": "com.amazonaws.dynamodb.v20120810#InternalServerError",
        "message": format!("reply lost by the test proxy (the {op} was written)"),
    })
    .to_string();
    Some(
        http::Response::builder()
            .status(500)
            .header("content-type", "application/x-amz-json-1.0")
            .body(Full::new(Bytes::from(body)))
            .unwrap(),
    )
}

/// A put of a code's record on a version condition: the code exchange (the authorization
/// endpoint's put of a new code is on absence; a refresh's rotation is a transaction).
fn is_code_record_put(body: &[u8]) -> bool {
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) else {
        return false;
    };
    v["Item"]["pk"]["S"]
        .as_str()
        .is_some_and(|pk| pk.starts_with("code#"))
        && v["ConditionExpression"]
            .as_str()
            .is_some_and(|c| c.contains("ver = :v"))
}
