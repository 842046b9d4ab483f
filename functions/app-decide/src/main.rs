//! Lambda function `app-decide`: POST /realms/{realm}/app/login-sessions/{login_session_id}.
//! Wiring only; the handler lives in the common crate (`scanid::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid::lambda::run("app-decide").await
}
