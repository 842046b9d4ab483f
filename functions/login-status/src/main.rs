//! Lambda function `login-status`: GET /realms/{realm}/login-actions/status.
//! Wiring only; the handler lives in `scanid-http` (`scanid_http::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid_lambda::run(scanid_lambda::endpoints::LOGIN_STATUS).await
}
