//! Lambda function `app-signup`: POST /realms/{realm}/app/identities.
//! Wiring only; the handler lives in the common crate (`scanid::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid::lambda::run("app-signup").await
}
