//! Lambda function `login-passkey`: POST /realms/{realm}/login-actions/passkey.
//! Wiring only; the handler lives in `scanid-http` (`scanid_http::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid_lambda::run(scanid_lambda::endpoints::LOGIN_PASSKEY).await
}
