//! Lambda function `directory-avatar`: GET /v1/directory/{sub}/avatar.
//! Wiring only; the handler lives in the common crate (`scanid::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid::lambda::run("directory-avatar").await
}
