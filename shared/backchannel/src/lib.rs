//! Back-channel logout delivery over HTTP (OIDC Back-Channel Logout 1.0 §2.5), the adapter
//! side of [`scanid_core::backchannel::LogoutDelivery`]:
//!
//! * [`post`]: one attempt, a form POST of the `logout_token` with a timeout and no
//!   redirects, classified by [`Attempt::of_status`], to an address the delivery's
//!   [`Reach`] allows: a self-registered client's host is resolved here and only the
//!   addresses vetted are connected to (a name that resolves to 127.0.0.1 reaches nothing);
//! * [`deliver`]: attempts until [`RetryPolicy`] says stop;
//! * [`InProcess`]: the port of `scanid serve` and the operator commands, each delivery its
//!   own task, so a relying party that never answers delays no other and no response.
//!
//! The `backchannel-sender` Lambda function uses [`post`] for each queued delivery.
#![forbid(unsafe_code)]
#![warn(unreachable_pub)]
#![warn(missing_docs)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use scanid_core::backchannel::{
    self, Attempt, Delivery, GiveUp, LogoutDelivery, Next, PushMessage, RetryPolicy,
};
use scanid_core::clock::Clock;
use scanid_core::reach::{Reach, Resolver, SystemResolver};
use scanid_core::store::Backend;
use tokio::task::JoinHandle;

pub mod jwks;
pub use jwks::JwksHttp;

/// The HTTP clients of deliveries: no redirects (the token goes to the registered URI only),
/// no connection pool kept for long; one per [`Reach`].
#[derive(Clone)]
pub struct Http {
    /// Any address (the operator's clients, local development): the system's resolver.
    any: reqwest::Client,
    /// Public addresses only: names resolved by [`Vetting`], address literals checked by
    /// [`post`]; no proxy (it would connect for us, wherever the name points).
    public: reqwest::Client,
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Http").finish_non_exhaustive()
    }
}

impl Http {
    /// Clients whose vetted names are resolved by `resolver`.
    /// Certificates are verified against the system's roots, and, when the environment names
    /// a CA bundle in `SSL_CERT_FILE`, against those and the bundle's together (a developer's
    /// or a test's own CA, e.g. for a client metadata document on `https://localhost`).
    pub fn new(resolver: Arc<dyn Resolver>) -> Result<Self, reqwest::Error> {
        let extra = extra_roots();
        let builder = || {
            let b = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .pool_idle_timeout(Duration::from_secs(10));
            match &extra {
                Some(certs) => b.tls_certs_only(certs.iter().cloned()),
                None => b,
            }
        };
        Ok(Self {
            any: builder().build()?,
            public: builder()
                .no_proxy()
                .dns_resolver(Arc::new(Vetting {
                    reach: Reach::Public,
                    resolver,
                }))
                .build()?,
        })
    }

    fn client(&self, reach: Reach) -> &reqwest::Client {
        match reach {
            Reach::Any => &self.any,
            Reach::Public => &self.public,
        }
    }
}

/// Where the system's CA bundle usually is (Debian and Ubuntu, Amazon Linux and Fedora,
/// Alpine and others).
const SYSTEM_BUNDLES: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/cert.pem",
];

/// With `SSL_CERT_FILE` set, its certificates and the system bundle's: the platform verifier
/// would read that file *instead of* the system's roots, so both are given here (a file that
/// cannot be read is logged and left out). `None` without it: the platform's roots.
fn extra_roots() -> Option<Vec<reqwest::Certificate>> {
    let named = std::env::var_os("SSL_CERT_FILE")?;
    let mut certs = Vec::new();
    let system = SYSTEM_BUNDLES
        .iter()
        .find(|p| std::path::Path::new(p).exists())
        .map(std::path::PathBuf::from);
    for path in system.into_iter().chain([std::path::PathBuf::from(named)]) {
        match std::fs::read(&path).map(|pem| reqwest::Certificate::from_pem_bundle(&pem)) {
            Ok(Ok(found)) => certs.extend(found),
            Ok(Err(e)) => tracing::warn!(path = %path.display(), error = %e, "CA bundle not read"),
            Err(e) => tracing::warn!(path = %path.display(), error = %e, "CA bundle not read"),
        }
    }
    Some(certs)
}

/// The HTTP clients of deliveries, resolving with the system's resolver.
pub fn http_client() -> Result<Http, reqwest::Error> {
    Http::new(Arc::new(SystemResolver))
}

/// Why a vetted name was not connected to.
#[derive(Debug)]
struct AddressRefused(String);

impl std::fmt::Display for AddressRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.0, Reach::Public.refusal())
    }
}

impl std::error::Error for AddressRefused {}

/// A resolver that answers only with addresses its reach allows, so the client connects to
/// nothing else: a name with any refused address is refused whole (one such address is enough
/// for a rebinding name to pick it).
struct Vetting {
    reach: Reach,
    resolver: Arc<dyn Resolver>,
}

impl reqwest::dns::Resolve for Vetting {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let (reach, resolver) = (self.reach, self.resolver.clone());
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let ips = resolver.lookup(&host).await?;
            if ips.is_empty() || !ips.iter().all(|ip| reach.allows(*ip)) {
                return Err(
                    Box::new(AddressRefused(host)) as Box<dyn std::error::Error + Send + Sync>
                );
            }
            let addrs: reqwest::dns::Addrs =
                Box::new(ips.into_iter().map(|ip| std::net::SocketAddr::new(ip, 0)));
            Ok(addrs)
        })
    }
}

/// Whether `e` (or what caused it) is a refusal of [`Vetting`].
fn refused_address(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(e);
    while let Some(c) = cause {
        if c.is::<AddressRefused>() {
            return true;
        }
        cause = c.source();
    }
    false
}

/// Whether `uri`'s host is an address literal that `reach` refuses (a literal is never
/// resolved, so [`Vetting`] never sees it).
fn refused_literal(uri: &str, reach: Reach) -> bool {
    let ip = match url::Url::parse(uri).ok().as_ref().and_then(url::Url::host) {
        Some(url::Host::Ipv4(ip)) => std::net::IpAddr::V4(ip),
        Some(url::Host::Ipv6(ip)) => std::net::IpAddr::V6(ip),
        Some(url::Host::Domain(_)) => return false,
        None => return true,
    };
    !reach.allows(ip)
}

/// One attempt: POSTs the token to the client's URI, within `timeout`, connecting only to an
/// address the delivery's reach allows ([`Attempt::AddressRefused`] otherwise, nothing sent).
pub async fn post(http: &Http, d: &Delivery, timeout: Duration) -> Attempt {
    if refused_literal(&d.uri, d.reach) {
        tracing::warn!(client_id = %d.client_id, uri = %d.uri, "back-channel logout: the address is refused");
        return Attempt::AddressRefused;
    }
    let request = http
        .client(d.reach)
        .post(&d.uri)
        .timeout(timeout)
        .header("cache-control", "no-store");
    if let Some(m) = &d.push {
        return push(http, d, m, timeout).await;
    }
    let request = match &d.ciba_auth_req_id {
        // OpenID CIBA Core §10.2: the ping, with the client's own bearer token.
        Some(id) => request
            .header("authorization", format!("Bearer {}", d.token))
            .header("content-type", "application/json")
            // The id is the service's own base64url token: nothing to escape.
            .body(format!("{{\"auth_req_id\":\"{id}\"}}")),
        None => request
            .header("content-type", "application/x-www-form-urlencoded")
            .body(
                url::form_urlencoded::Serializer::new(String::new())
                    .append_pair("logout_token", &d.token)
                    .finish(),
            ),
    };
    let sent = request.send().await;
    match sent {
        Ok(r) => {
            let outcome = Attempt::of_status(r.status().as_u16());
            if outcome != Attempt::Delivered {
                tracing::info!(
                    client_id = %d.client_id,
                    status = r.status().as_u16(),
                    "back-channel logout attempt answered"
                );
            }
            outcome
        }
        Err(e) if refused_address(&e) => {
            tracing::warn!(client_id = %d.client_id, uri = %d.uri, "back-channel logout: the name resolves to a refused address");
            Attempt::AddressRefused
        }
        Err(e) => {
            tracing::info!(client_id = %d.client_id, error = %e, "back-channel logout attempt failed");
            Attempt::Failed
        }
    }
}

/// One push message (RFC 8030 §5): `POST` of the `aes128gcm` body to the subscription's
/// endpoint with `TTL`, `Urgency: high` and the VAPID authorization, no redirects, to an
/// address the delivery's reach allows. A 404 or 410 says the subscription is gone
/// ([`Attempt::Refused`] with that status).
async fn push(http: &Http, d: &Delivery, m: &PushMessage, timeout: Duration) -> Attempt {
    let Some(body) = m.body_octets() else {
        return Attempt::Refused(400);
    };
    let sent = http
        .client(d.reach)
        .post(&d.uri)
        .timeout(timeout)
        .header("ttl", m.ttl.to_string())
        .header("urgency", "high")
        .header("content-encoding", "aes128gcm")
        .header("content-type", "application/octet-stream")
        .header("authorization", &m.authorization)
        .body(body)
        .send()
        .await;
    match sent {
        Ok(r) => {
            let outcome = Attempt::of_status(r.status().as_u16());
            if outcome != Attempt::Delivered {
                tracing::info!(status = r.status().as_u16(), "push message answered");
            }
            outcome
        }
        Err(e) if refused_address(&e) => {
            tracing::warn!(uri = %d.uri, "push: the endpoint resolves to a refused address");
            Attempt::AddressRefused
        }
        Err(e) => {
            tracing::info!(error = %e, "push attempt failed");
            Attempt::Failed
        }
    }
}

/// Whether `outcome` says a push subscription is gone (RFC 8030 §7.3: 404 or 410).
pub fn subscription_gone(outcome: Attempt) -> bool {
    matches!(outcome, Attempt::Refused(404 | 410))
}

/// Attempts `d` until the policy says stop: `Ok(attempts)` once delivered, or why it was
/// given up. Waits between attempts by the policy's backoff (measured on `clock`).
pub async fn deliver(
    http: &Http,
    clock: &dyn Clock,
    policy: &RetryPolicy,
    d: &Delivery,
) -> Result<u32, GiveUp> {
    if !policy.may_attempt(d.issued_at, clock.now()) {
        return Err(GiveUp::Expired);
    }
    let mut attempts = 0;
    loop {
        let outcome = post(http, d, policy.attempt_timeout).await;
        attempts += 1;
        let now = clock.now();
        match policy.next(d.issued_at, attempts, outcome, now) {
            Next::Done => return Ok(attempts),
            Next::GiveUp(why) => return Err(why),
            Next::RetryAt(at) => {
                let wait = u64::try_from(at.millis().saturating_sub(now.millis())).unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(wait)).await;
            }
        }
    }
}

/// The in-process port: each delivery runs in its own task (in parallel), follows the
/// policy, and ends in one audit line (`backchannel_logout` delivered, or
/// `backchannel_logout.failed`).
pub struct InProcess {
    http: Option<Http>,
    clock: Arc<dyn Clock>,
    policy: RetryPolicy,
    /// The tasks still running, for [`LogoutDelivery::settle`].
    running: Mutex<Vec<JoinHandle<()>>>,
    /// Where push subscriptions live: one a push service says is gone is dropped there.
    store: Option<Arc<dyn Backend>>,
}

impl std::fmt::Debug for InProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InProcess")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl InProcess {
    /// Delivery in this process, timed by `clock`, following `policy`.
    pub fn new(clock: Arc<dyn Clock>, policy: RetryPolicy) -> Self {
        let http = http_client()
            .inspect_err(|e| tracing::error!(error = %e, "back-channel logout: no HTTP client"))
            .ok();
        Self {
            http,
            clock,
            policy,
            running: Mutex::new(Vec::new()),
            store: None,
        }
    }

    /// The same, dropping from `store` a push subscription its push service says is gone.
    pub fn with_store(mut self, store: Arc<dyn Backend>) -> Self {
        self.store = Some(store);
        self
    }
}

/// Delivers `d`: a push message gets one attempt first, and a subscription its push service
/// says is gone (404, 410) is dropped from `store`; otherwise (and a push that failed) as
/// the policy says.
async fn run_one(
    http: &Http,
    clock: &dyn Clock,
    policy: &RetryPolicy,
    store: Option<&dyn Backend>,
    d: &Delivery,
) {
    if d.push.is_some() {
        let outcome = post(http, d, policy.attempt_timeout).await;
        if subscription_gone(outcome) {
            if let Some(store) = store {
                drop_subscription(store, d, clock.now()).await;
            }
        }
        if outcome != Attempt::Failed {
            match policy.next(d.issued_at, 1, outcome, clock.now()) {
                Next::Done => backchannel::delivered(d),
                Next::GiveUp(why) => backchannel::gave_up(d, why),
                Next::RetryAt(_) => {}
            }
            return;
        }
    }
    match deliver(http, clock, policy, d).await {
        Ok(_) => backchannel::delivered(d),
        Err(why) => backchannel::gave_up(d, why),
    }
}

/// Drops the subscription `d` went to (its push service said it is gone).
pub async fn drop_subscription(
    store: &dyn Backend,
    d: &Delivery,
    now: scanid_core::clock::Timestamp,
) {
    use scanid_core::store::PushSubscriptions as _;
    match store.remove_push_subscription(&d.sub, &d.uri, now).await {
        Ok(_) => tracing::info!(sub = %d.sub, "push: a gone subscription was dropped"),
        Err(e) => tracing::warn!(error = %e, "push: dropping a gone subscription failed"),
    }
}

#[async_trait::async_trait]
impl LogoutDelivery for InProcess {
    async fn send(&self, deliveries: Vec<Delivery>) {
        let Some(http) = &self.http else {
            for d in &deliveries {
                backchannel::gave_up(d, GiveUp::NoDelivery);
            }
            return;
        };
        let tasks: Vec<_> = deliveries
            .into_iter()
            .map(|d| {
                let (http, clock, policy) = (http.clone(), self.clock.clone(), self.policy);
                let store = self.store.clone();
                tokio::spawn(async move {
                    run_one(&http, clock.as_ref(), &policy, store.as_deref(), &d).await;
                })
            })
            .collect();
        if let Ok(mut running) = self.running.lock() {
            running.retain(|t| !t.is_finished());
            running.extend(tasks);
        }
    }

    async fn settle(&self) {
        let tasks: Vec<_> = match self.running.lock() {
            Ok(mut r) => r.drain(..).collect(),
            Err(_) => Vec::new(),
        };
        for t in tasks {
            let _ = t.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scanid_core::clock::{SystemClock, Timestamp};
    use std::time::Instant;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A receiver on 127.0.0.1 that answers `status` (or, with `None`, accepts and never
    /// answers); counts the requests it read.
    async fn receiver(status: Option<u16>) -> (String, Arc<std::sync::atomic::AtomicU32>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/bcl", listener.local_addr().unwrap());
        let hits = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let counted = hits.clone();
        tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((mut s, _)) = listener.accept().await {
                let Some(status) = status else {
                    held.push(s);
                    continue;
                };
                let counted = counted.clone();
                tokio::spawn(async move {
                    let mut buf = [0u8; 8192];
                    let _ = s.read(&mut buf).await;
                    counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let _ = s
                        .write_all(
                            format!("HTTP/1.1 {status} X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                                .as_bytes(),
                        )
                        .await;
                });
            }
        });
        (url, hits)
    }

    fn delivery(client_id: &str, uri: &str) -> Delivery {
        Delivery {
            client_id: client_id.into(),
            uri: uri.into(),
            token: "a.b.c".into(),
            sub: "s".into(),
            issued_at: SystemClock.now(),
            reach: Reach::Any,
            ciba_auth_req_id: None,
            push: None,
        }
    }

    const QUICK: RetryPolicy = RetryPolicy {
        attempt_timeout: Duration::from_millis(300),
        first_backoff: Duration::from_millis(20),
        max_backoff: Duration::from_millis(40),
        max_attempts: 3,
        max_age: Duration::from_secs(100),
    };

    #[tokio::test]
    async fn delivered_refused_and_failing_receivers_take_the_policys_attempts() {
        let http = http_client().unwrap();
        let (ok, ok_hits) = receiver(Some(204)).await;
        let (gone, gone_hits) = receiver(Some(410)).await;
        let (down, down_hits) = receiver(Some(503)).await;
        let clock = SystemClock;
        assert_eq!(
            deliver(&http, &clock, &QUICK, &delivery("a", &ok)).await,
            Ok(1)
        );
        assert_eq!(
            deliver(&http, &clock, &QUICK, &delivery("b", &gone)).await,
            Err(GiveUp::Refused)
        );
        assert_eq!(
            deliver(&http, &clock, &QUICK, &delivery("c", &down)).await,
            Err(GiveUp::Attempts)
        );
        let hits = |h: &std::sync::atomic::AtomicU32| h.load(std::sync::atomic::Ordering::SeqCst);
        assert_eq!(
            (hits(&ok_hits), hits(&gone_hits), hits(&down_hits)),
            (1, 1, 3)
        );
    }

    #[tokio::test]
    async fn a_silent_receiver_times_out_and_an_old_token_is_not_attempted() {
        let http = http_client().unwrap();
        let (silent, _) = receiver(None).await;
        let started = Instant::now();
        let once = RetryPolicy {
            max_attempts: 1,
            ..QUICK
        };
        assert_eq!(
            deliver(&http, &SystemClock, &once, &delivery("a", &silent)).await,
            Err(GiveUp::Attempts)
        );
        let took = started.elapsed();
        assert!(
            took >= Duration::from_millis(300) && took < Duration::from_secs(2),
            "{took:?}"
        );
        let mut old = delivery("a", &silent);
        old.issued_at = Timestamp::from_millis(SystemClock.now().millis() - 99_800);
        assert_eq!(
            deliver(&http, &SystemClock, &QUICK, &old).await,
            Err(GiveUp::Expired)
        );
    }

    #[tokio::test]
    async fn in_process_deliveries_run_in_parallel_and_never_hold_the_caller() {
        let (silent, _) = receiver(None).await;
        let (ok, ok_hits) = receiver(Some(200)).await;
        let port = InProcess::new(Arc::new(SystemClock), QUICK);
        let started = Instant::now();
        port.send(vec![delivery("silent", &silent), delivery("ok", &ok)])
            .await;
        assert!(
            started.elapsed() < Duration::from_millis(100),
            "send returns at once"
        );
        // The answering receiver is told long before the silent one's first timeout.
        while ok_hits.load(std::sync::atomic::Ordering::SeqCst) == 0 {
            assert!(started.elapsed() < Duration::from_millis(250), "ok waited");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        // settle() waits for both (the silent one: three timeouts and two backoffs).
        port.settle().await;
        assert!(
            started.elapsed() >= Duration::from_millis(900),
            "{:?}",
            started.elapsed()
        );
    }

    /// Issue 38 item 7: a self-registered client's endpoint by a name that resolves to
    /// 127.0.0.1 (or by a private literal) is not connected to: the delivery is given up with
    /// `address_refused` and the receiver never hears of it. The same name through a resolver
    /// that lets it through reaches the receiver (the seam is what decides).
    #[tokio::test]
    async fn a_public_only_delivery_connects_to_no_internal_address() {
        let (ok, hits) = receiver(Some(204)).await;
        let port = url::Url::parse(&ok).unwrap().port().unwrap();
        let table = scanid_core::reach::StaticResolver(vec![(
            "internal.example".into(),
            vec!["127.0.0.1".parse().unwrap()],
        )]);
        let resolver: Arc<dyn Resolver> = Arc::new(table);
        let http = Http::new(resolver.clone()).unwrap();
        let by_name = format!("http://internal.example:{port}/bcl");
        for uri in [by_name.as_str(), ok.as_str()] {
            let mut d = delivery("self", uri);
            d.reach = Reach::Public;
            assert_eq!(
                deliver(&http, &SystemClock, &QUICK, &d).await,
                Err(GiveUp::AddressRefused),
                "{uri}"
            );
        }
        assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 0);
        // The name does go where the resolver says: through a vetting client that allows
        // loopback, the same delivery arrives.
        let open = Http {
            any: reqwest::Client::builder()
                .dns_resolver(Arc::new(Vetting {
                    reach: Reach::Any,
                    resolver,
                }))
                .build()
                .unwrap(),
            public: http.public.clone(),
        };
        assert_eq!(
            deliver(&open, &SystemClock, &QUICK, &delivery("op", &by_name)).await,
            Ok(1)
        );
        assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 1);
    }
}
