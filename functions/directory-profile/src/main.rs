//! Lambda function `directory-profile`: GET /v1/directory/{sub}.
//! Wiring only; the handler lives in `scanid-http` (`scanid_http::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid_lambda::run(scanid_lambda::endpoints::DIRECTORY_BY_SUB).await
}
