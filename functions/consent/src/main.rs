//! Lambda function `consent`: GET /realms/{realm}/login-actions/consent.
//! Wiring only; the handler lives in the common crate (`scanid::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid::lambda::run("consent").await
}
