//! Lambda function `discovery`: GET /realms/{realm}/.well-known/openid-configuration.
//! Wiring only; the handler lives in `scanid-http` (`scanid_http::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid_lambda::run(scanid_lambda::endpoints::DISCOVERY).await
}
