//! Lambda function `discovery`: GET /realms/{realm}/.well-known/openid-configuration.
//! Wiring only; the handler lives in the common crate (`scanid::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid::lambda::run("discovery").await
}
