//! The `backchannel-sender` function: reads the back-channel logout queue (an SQS event
//! source, batches of up to 10) and POSTs each logout token ([`scanid_backchannel::post`]),
//! all of a batch in parallel. What happens to each message follows [`RetryPolicy`]:
//!
//! * delivered, refused (4xx) or too old to attempt: the message is done (deleted), with
//!   its audit line (`backchannel_logout`, or `backchannel_logout.failed`);
//! * failed with attempts left: its visibility is set to the backoff and it is reported in
//!   `batchItemFailures`, so SQS hands it over again then;
//! * failed on the last attempt (`ApproximateReceiveCount` = the policy's attempts = the
//!   queue's `maxReceiveCount`): audited as given up and reported failed with visibility 0,
//!   so SQS moves it to the dead-letter queue at once.
//!
//! A message that cannot be read is reported failed and ends in the dead-letter queue.
//!
//! A Web Push message (a CIBA request announced to a person's app) whose push service answers
//! 404 or 410 (RFC 8030 §7.3: the subscription is gone) is not tried again, and the
//! subscription is dropped from the table, as `scanid serve` drops it. The function may only
//! read and write the table's `identity_push#` items (template.yaml: an IAM condition on
//! `dynamodb:LeadingKeys`), which is all [`drop_subscription`] touches.

use std::collections::HashMap;
use std::sync::Arc;

use scanid_aws::queue::Queue;
use scanid_backchannel::{drop_subscription, subscription_gone};
use scanid_core::backchannel::{self, Delivery, GiveUp, Next, RetryPolicy};
use scanid_core::clock::{Clock, SystemClock};
use scanid_core::store::Backend;
use serde::{Deserialize, Serialize};

/// Where the sender reads and retries: the queue's URL.
pub const QUEUE_URL: &str = "SCANID_BACKCHANNEL_QUEUE_URL";

/// The SQS event a queue-triggered function receives (the fields the sender reads).
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct SqsEvent {
    /// The messages of the batch.
    #[serde(rename = "Records")]
    pub records: Vec<SqsMessage>,
}

/// One message of an [`SqsEvent`].
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SqsMessage {
    /// SQS's id of the message (what a batch failure names).
    pub message_id: String,
    /// The handle that deletes or re-times this receipt of it.
    pub receipt_handle: String,
    /// The message: one [`scanid_core::backchannel::Delivery`] as JSON.
    pub body: String,
    /// `ApproximateReceiveCount`, `SentTimestamp`, ...
    #[serde(default)]
    pub attributes: HashMap<String, String>,
}

impl SqsMessage {
    /// How many times SQS has handed this message over, this time included.
    fn receives(&self) -> u32 {
        self.attributes
            .get("ApproximateReceiveCount")
            .and_then(|n| n.parse().ok())
            .unwrap_or(1)
    }
}

/// The answer: the messages to hand over again (partial batch failure,
/// `ReportBatchItemFailures`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchResponse {
    /// The messages SQS hands over again.
    pub batch_item_failures: Vec<ItemFailure>,
}

/// One message to hand over again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemFailure {
    /// Its `message_id`.
    pub item_identifier: String,
}

/// What became of one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handled {
    /// The relying party took it.
    Delivered,
    /// Handed over again after the backoff.
    Retry,
    /// Given up (audited); `true` when it goes to the dead-letter queue.
    GaveUp(GiveUp, bool),
}

/// The sender: an HTTP client, the queue (for backoffs), the clock and the policy, and where
/// push subscriptions live (to drop a gone one).
#[derive(Clone)]
pub struct Sender {
    http: scanid_backchannel::Http,
    queue: Queue,
    clock: Arc<dyn Clock>,
    policy: RetryPolicy,
    store: Option<Arc<dyn Backend>>,
}

impl Sender {
    /// A sender that re-times `queue`'s messages for backoffs, by `clock`, following `policy`.
    pub fn new(
        queue: Queue,
        clock: Arc<dyn Clock>,
        policy: RetryPolicy,
    ) -> Result<Self, reqwest::Error> {
        Ok(Self {
            http: scanid_backchannel::http_client()?,
            queue,
            clock,
            policy,
            store: None,
        })
    }

    /// The same, dropping from `store` a push subscription its push service says is gone.
    pub fn with_store(mut self, store: Arc<dyn Backend>) -> Self {
        self.store = Some(store);
        self
    }

    /// Handles one batch: every message in parallel; the ones to hand over again (and what
    /// became of each). A message whose task did not finish is handed over again.
    pub async fn handle(&self, event: SqsEvent) -> (BatchResponse, Vec<(String, Handled)>) {
        let ids: Vec<String> = event.records.iter().map(|m| m.message_id.clone()).collect();
        let mut tasks = tokio::task::JoinSet::new();
        for (i, m) in event.records.into_iter().enumerate() {
            let this = self.clone();
            tasks.spawn(async move { (i, this.one(&m).await) });
        }
        let mut outcomes: Vec<Option<Handled>> = vec![None; ids.len()];
        while let Some(r) = tasks.join_next().await {
            match r {
                Ok((i, h)) => {
                    if let Some(slot) = outcomes.get_mut(i) {
                        *slot = Some(h);
                    }
                }
                Err(e) => tracing::error!(error = %e, "back-channel sender: a task failed"),
            }
        }
        let mut failures = Vec::new();
        let mut handled = Vec::new();
        for (id, outcome) in ids.into_iter().zip(outcomes) {
            if !matches!(
                outcome,
                Some(Handled::Delivered) | Some(Handled::GaveUp(_, false))
            ) {
                failures.push(ItemFailure {
                    item_identifier: id.clone(),
                });
            }
            if let Some(h) = outcome {
                handled.push((id, h));
            }
        }
        (
            BatchResponse {
                batch_item_failures: failures,
            },
            handled,
        )
    }

    async fn one(&self, m: &SqsMessage) -> Handled {
        let d: Delivery = match serde_json::from_str(&m.body) {
            Ok(d) => d,
            Err(e) => {
                tracing::error!(error = %e, message_id = %m.message_id, "back-channel sender: unreadable message");
                self.requeue(m, std::time::Duration::ZERO).await;
                return Handled::GaveUp(GiveUp::Unreadable, true);
            }
        };
        if !self.policy.may_attempt(d.issued_at, self.clock.now()) {
            backchannel::gave_up(&d, GiveUp::Expired);
            return Handled::GaveUp(GiveUp::Expired, false);
        }
        let attempts = m.receives();
        let outcome = scanid_backchannel::post(&self.http, &d, self.policy.attempt_timeout).await;
        let now = self.clock.now();
        if d.push.is_some() && subscription_gone(outcome) {
            match &self.store {
                Some(store) => drop_subscription(store.as_ref(), &d, now).await,
                None => tracing::warn!("push: a gone subscription stays (the sender has no table)"),
            }
        }
        match self.policy.next(d.issued_at, attempts, outcome, now) {
            Next::Done => {
                backchannel::delivered(&d);
                Handled::Delivered
            }
            Next::RetryAt(at) => {
                let wait = u64::try_from(at.millis().saturating_sub(now.millis())).unwrap_or(0);
                self.requeue(m, std::time::Duration::from_millis(wait))
                    .await;
                Handled::Retry
            }
            Next::GiveUp(why) => {
                backchannel::gave_up(&d, why);
                // The last attempt failed: to the dead-letter queue, for the operator.
                let dead_letter = why == GiveUp::Attempts;
                if dead_letter {
                    self.requeue(m, std::time::Duration::ZERO).await;
                }
                Handled::GaveUp(why, dead_letter)
            }
        }
    }

    /// Sets the message's visibility; if that fails, SQS hands it over after the queue's
    /// visibility timeout instead.
    async fn requeue(&self, m: &SqsMessage, wait: std::time::Duration) {
        if let Err(e) = self.queue.retry_after(&m.receipt_handle, wait).await {
            tracing::warn!(error = %e, message_id = %m.message_id, "back-channel sender: could not set the backoff");
        }
    }
}

/// Runs the `backchannel-sender` function.
pub async fn run() -> Result<(), lambda_http::Error> {
    crate::telemetry::init();
    let url = std::env::var(QUEUE_URL)
        .ok()
        .filter(|v| !v.is_empty())
        .ok_or_else(|| {
            let e = scanid_core::config::ConfigError {
                setting: QUEUE_URL,
                reason: "the sender reads the back-channel logout queue: set its URL".into(),
            };
            tracing::error!(error = %e, "init failed");
            e
        })?;
    let config = scanid_aws::env_config()?;
    let queue = Queue::from_config(&config, &url);
    let mut sender = Sender::new(queue, Arc::new(SystemClock), RetryPolicy::DEFAULT)?;
    // The table, for gone push subscriptions only (no warm-up read: the function may read
    // nothing but `identity_push#` items).
    if let Some(table) = std::env::var("SCANID_TABLE").ok().filter(|t| !t.is_empty()) {
        sender = sender.with_store(Arc::new(scanid_aws::dynamo::DynamoStore::from_config(
            &config, table,
        )));
    }
    let sender = Arc::new(sender);
    lambda_http::lambda_runtime::run(lambda_http::service_fn(
        move |event: lambda_http::LambdaEvent<SqsEvent>| {
            let sender = sender.clone();
            async move { Ok::<_, lambda_http::Error>(sender.handle(event.payload).await.0) }
        },
    ))
    .await
}
