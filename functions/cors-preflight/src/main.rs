//! Lambda function `cors-preflight`: OPTIONS on the token, userinfo, revocation and logout
//! endpoints. Wiring only; the handler lives in `scanid-http` (`scanid_http::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid_lambda::run(scanid_lambda::endpoints::PREFLIGHT).await
}
