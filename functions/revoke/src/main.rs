//! Lambda function `revoke`: POST /realms/{realm}/protocol/openid-connect/revoke.
//! Wiring only; the handler lives in the common crate (`scanid::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid::lambda::run("revoke").await
}
