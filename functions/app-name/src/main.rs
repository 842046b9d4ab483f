//! Lambda function `app-name`: GET /realms/{realm}/app/names/{name}.
//! Wiring only; the handler lives in `scanid-http` (`scanid_http::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid_lambda::run(scanid_lambda::endpoints::DEVICE_NAME).await
}
