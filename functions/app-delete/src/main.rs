//! Lambda function `app-delete`: DELETE /realms/{realm}/app/identities/{sub}.
//! Wiring only; the handler lives in `scanid-http` (`scanid_http::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid_lambda::run_signing_photos(scanid_lambda::endpoints::DEVICE_DELETE).await
}
