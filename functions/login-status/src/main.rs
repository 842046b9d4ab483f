//! Lambda function `login-status`: GET /realms/{realm}/login-actions/status.
//! Wiring only; the handler lives in the common crate (`scanid::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid::lambda::run("login-status").await
}
