//! Lambda function `directory-profile`: GET /v1/directory/{sub}.
//! Wiring only; the handler lives in the common crate (`scanid::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid::lambda::run("directory-profile").await
}
