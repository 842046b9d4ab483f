//! Lambda function `client-registration`: POST /realms/{realm}/clients-registrations/openid-connect
//! (RFC 7591) and GET|PUT|DELETE /realms/{realm}/clients-registrations/openid-connect/{client_id}
//! (RFC 7592). Wiring only; the handler lives in `scanid-http` (`scanid_http::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    scanid_lambda::run(scanid_lambda::endpoints::CLIENT_REGISTRATION).await
}
