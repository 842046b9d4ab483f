//! Lambda function `app-scan`: GET /realms/{realm}/app/scan.
//! Wiring only; the handler lives in the common crate (`scanid::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid::lambda::run("app-scan").await
}
