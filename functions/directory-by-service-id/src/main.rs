//! Lambda function `directory-by-service-id`: GET /v1/directory/profile/{service_id}.
//! Wiring only; the handler lives in the common crate (`scanid::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid::lambda::run("directory-by-service-id").await
}
