//! Lambda function `cors-preflight`: OPTIONS on the token, userinfo, revocation and logout
//! endpoints. Wiring only; the handler lives in the common crate (`scanid::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid::lambda::run("cors-preflight").await
}
