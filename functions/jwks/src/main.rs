//! Lambda function `jwks`: GET /realms/{realm}/protocol/openid-connect/certs.
//! Wiring only; the handler lives in the common crate (`scanid::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid::lambda::run("jwks").await
}
