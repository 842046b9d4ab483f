//! Lambda function `userinfo`: GET /realms/{realm}/protocol/openid-connect/userinfo.
//! Wiring only; the handler lives in the common crate (`scanid::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid::lambda::run("userinfo").await
}
