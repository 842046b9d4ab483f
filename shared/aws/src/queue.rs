//! Back-channel logout deliveries on an SQS queue (`SCANID_BACKCHANNEL_QUEUE_URL`): the
//! functions that end sessions put one message per delivery ([`SqsDelivery`], the context's
//! [`LogoutDelivery`] port) and return at once; the `backchannel-sender` function reads them
//! (`scanid_lambda::sender`) and sets a failed one's visibility to the policy's backoff
//! ([`Queue::retry_after`]). After the queue's `maxReceiveCount` receives a message moves to
//! the dead-letter queue (template.yaml).

use std::time::Duration;

use async_trait::async_trait;
use scanid_core::backchannel::{self, Delivery, GiveUp, LogoutDelivery};

/// Why a queue call failed: the SDK's error, with its detail.
#[derive(Debug, thiserror::Error)]
#[error("SQS {operation}: {detail}")]
pub struct QueueError {
    operation: &'static str,
    detail: String,
}

fn failed<E, R>(operation: &'static str, e: &aws_sdk_sqs::error::SdkError<E, R>) -> QueueError
where
    E: aws_sdk_sqs::error::ProvideErrorMetadata + std::error::Error + 'static,
    R: std::fmt::Debug,
{
    use aws_sdk_sqs::error::SdkError;
    let detail = match e {
        SdkError::ServiceError(se) => format!(
            "{}: {}",
            se.err().code().unwrap_or("error"),
            se.err().message().unwrap_or_default()
        ),
        other => format!("{other}"),
    };
    QueueError { operation, detail }
}

/// One SQS queue of deliveries.
#[derive(Debug, Clone)]
pub struct Queue {
    client: aws_sdk_sqs::Client,
    url: String,
}

impl Queue {
    /// The queue at `url`, with the SDK configuration every function shares.
    pub fn from_config(config: &crate::SdkConfig, url: &str) -> Self {
        Self {
            client: aws_sdk_sqs::Client::new(config),
            url: url.to_owned(),
        }
    }

    /// The queue's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The SDK client (tests read the queue with it).
    pub fn client(&self) -> &aws_sdk_sqs::Client {
        &self.client
    }

    /// Puts one delivery on the queue.
    pub async fn put(&self, d: &Delivery) -> Result<(), QueueError> {
        let body = serde_json::to_string(d).map_err(|e| QueueError {
            operation: "SendMessage",
            detail: e.to_string(),
        })?;
        self.client
            .send_message()
            .queue_url(&self.url)
            .message_body(body)
            .send()
            .await
            .map_err(|e| failed("SendMessage", &e))?;
        Ok(())
    }

    /// Makes a received message visible again after `wait` (whole seconds, rounded up; at
    /// most SQS's 12 hours): the backoff before its next attempt.
    pub async fn retry_after(
        &self,
        receipt_handle: &str,
        wait: Duration,
    ) -> Result<(), QueueError> {
        let secs = wait.as_millis().div_ceil(1000).min(43_200);
        self.client
            .change_message_visibility()
            .queue_url(&self.url)
            .receipt_handle(receipt_handle)
            .visibility_timeout(i32::try_from(secs).unwrap_or(43_200))
            .send()
            .await
            .map_err(|e| failed("ChangeMessageVisibility", &e))?;
        Ok(())
    }
}

/// The port of the Lambda functions that end sessions: one message per delivery; a delivery
/// that cannot be queued is given up (logged and audited).
#[derive(Debug, Clone)]
pub struct SqsDelivery(pub Queue);

#[async_trait]
impl LogoutDelivery for SqsDelivery {
    async fn send(&self, deliveries: Vec<Delivery>) {
        for d in &deliveries {
            if let Err(e) = self.0.put(d).await {
                tracing::error!(error = %e, client_id = %d.client_id, "back-channel logout: queueing failed");
                backchannel::gave_up(d, GiveUp::NotQueued);
            }
        }
    }
}
