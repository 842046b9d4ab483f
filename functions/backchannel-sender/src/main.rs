//! Lambda function `backchannel-sender`: triggered by the back-channel logout queue (SQS),
//! not an HTTP route. Wiring only; the sender lives in `scanid-lambda` (`scanid_lambda::sender`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid_lambda::sender::run().await
}
