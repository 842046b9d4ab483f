//! Lambda function `app-activity`: POST /realms/{realm}/app/identities/{sub}/activity.
//! Wiring only; the handler lives in `scanid-http` (`scanid_http::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid_lambda::run(scanid_lambda::endpoints::DEVICE_ACTIVITY).await
}
