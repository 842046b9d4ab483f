//! Lambda function `app-pages`: GET /realms/{realm}/app/{file}.
//! Wiring only; the handler lives in `scanid-http` (`scanid_http::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid_lambda::run(scanid_lambda::endpoints::APP_PAGES).await
}
