//! Lambda function `directory-by-service-id`: GET /v1/directory/profile/{service_id}.
//! Wiring only; the handler lives in `scanid-http` (`scanid_http::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid_lambda::run(scanid_lambda::endpoints::DIRECTORY_BY_SERVICE_ID).await
}
