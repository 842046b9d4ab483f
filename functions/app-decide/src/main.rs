//! Lambda function `app-decide`: POST /realms/{realm}/app/login-sessions/{login_session_id}.
//! Wiring only; the handler lives in `scanid-http` (`scanid_http::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid_lambda::run(scanid_lambda::endpoints::DEVICE_DECIDE).await
}
