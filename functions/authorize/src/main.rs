//! Lambda function `authorize`: GET /realms/{realm}/protocol/openid-connect/auth.
//! Wiring only; the handler lives in the common crate (`scanid::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid::lambda::run("authorize").await
}
