//! Lambda function `device-authorization`: POST /realms/{realm}/protocol/openid-connect/auth/device.
//! Wiring only; the handler lives in `scanid-http` (`scanid_http::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid_lambda::run(scanid_lambda::endpoints::DEVICE_AUTHORIZATION).await
}
