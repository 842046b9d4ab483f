//! Lambda function `app-key`: POST /realms/{realm}/app/identities/{sub}/key.
//! Wiring only; the handler lives in the common crate (`scanid::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid::lambda::run("app-key").await
}
