//! Lambda function `app-profile`: PATCH /realms/{realm}/app/identities/{sub}.
//! Wiring only; the handler lives in the common crate (`scanid::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid::lambda::run("app-profile").await
}
