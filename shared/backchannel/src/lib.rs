//! Back-channel logout delivery over HTTP (OIDC Back-Channel Logout 1.0 §2.5), the adapter
//! side of [`scanid_core::backchannel::LogoutDelivery`]:
//!
//! * [`post`]: one attempt, a form POST of the `logout_token` with a timeout and no
//!   redirects, classified by [`Attempt::of_status`];
//! * [`deliver`]: attempts until [`RetryPolicy`] says stop;
//! * [`InProcess`]: the port of `scanid serve` and the operator commands, each delivery its
//!   own task, so a relying party that never answers delays no other and no response.
//!
//! The `backchannel-sender` Lambda function uses [`post`] for each queued delivery.
#![forbid(unsafe_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use scanid_core::backchannel::{
    self, Attempt, Delivery, GiveUp, LogoutDelivery, Next, RetryPolicy,
};
use scanid_core::clock::Clock;
use tokio::task::JoinHandle;

/// The HTTP client of deliveries: no redirects (the token goes to the registered URI only),
/// no connection pool kept for long.
pub fn http_client() -> Result<reqwest::Client, reqwest::Error> {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .pool_idle_timeout(Duration::from_secs(10))
        .build()
}

/// One attempt: POSTs the token to the client's URI, within `timeout`.
pub async fn post(http: &reqwest::Client, d: &Delivery, timeout: Duration) -> Attempt {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("logout_token", &d.token)
        .finish();
    let sent = http
        .post(&d.uri)
        .timeout(timeout)
        .header("cache-control", "no-store")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await;
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
        Err(e) => {
            tracing::info!(client_id = %d.client_id, error = %e, "back-channel logout attempt failed");
            Attempt::Failed
        }
    }
}

/// Attempts `d` until the policy says stop: `Ok(attempts)` once delivered, or why it was
/// given up. Waits between attempts by the policy's backoff (measured on `clock`).
pub async fn deliver(
    http: &reqwest::Client,
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
    http: Option<reqwest::Client>,
    clock: Arc<dyn Clock>,
    policy: RetryPolicy,
    /// The tasks still running, for [`LogoutDelivery::settle`].
    running: Mutex<Vec<JoinHandle<()>>>,
}

impl std::fmt::Debug for InProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InProcess")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl InProcess {
    pub fn new(clock: Arc<dyn Clock>, policy: RetryPolicy) -> Self {
        let http = http_client()
            .inspect_err(|e| tracing::error!(error = %e, "back-channel logout: no HTTP client"))
            .ok();
        Self {
            http,
            clock,
            policy,
            running: Mutex::new(Vec::new()),
        }
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
                tokio::spawn(async move {
                    match deliver(&http, clock.as_ref(), &policy, &d).await {
                        Ok(_) => backchannel::delivered(&d),
                        Err(why) => backchannel::gave_up(&d, why),
                    }
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
