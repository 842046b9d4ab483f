//! Lambda function `events-writer`: triggered by the CloudWatch Logs subscription filters on the
//! HTTP functions' log groups (their audit lines), not an HTTP route. Wiring only; the writer
//! lives in `scanid-lambda` (`scanid_lambda::events_writer`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid_lambda::events_writer::run().await
}
