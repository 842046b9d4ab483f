//! Lambda function `app-report`: POST /realms/{realm}/app/identities/{sub}/logins/{login_id}/report.
//! Wiring only; the handler lives in `scanid-http` (`scanid_http::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid_lambda::run_signing(scanid_lambda::endpoints::DEVICE_REPORT).await
}
