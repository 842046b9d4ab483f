//! Lambda function `keycloak-pages`: GET .../3p-cookies/step1.html, step2.html,
//! login-status-iframe.html and login-status-iframe.html/init (what keycloak-js loads).
//! Wiring only; the handler lives in `scanid-http` (`scanid_http::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid_lambda::run(scanid_lambda::endpoints::KEYCLOAK_PAGES).await
}
