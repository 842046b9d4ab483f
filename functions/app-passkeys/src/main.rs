//! Lambda function `app-passkeys`: POST /realms/{realm}/app/passkey-challenges.
//! Wiring only; the handler lives in `scanid-http` (`scanid_http::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid_lambda::run(scanid_lambda::endpoints::DEVICE_PASSKEYS).await
}
