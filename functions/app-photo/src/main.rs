//! Lambda function `app-photo`: POST /realms/{realm}/app/identities/{sub}/photo.
//! Wiring only; the handler lives in `scanid-http` (`scanid_http::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid_lambda::run_photos(scanid_lambda::endpoints::DEVICE_PHOTO).await
}
