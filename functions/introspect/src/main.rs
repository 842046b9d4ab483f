//! Lambda function `introspect`: POST /realms/{realm}/protocol/openid-connect/introspect.
//! Wiring only; the handler lives in `scanid-http` (`scanid_http::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid_lambda::run(scanid_lambda::endpoints::INTROSPECT).await
}
