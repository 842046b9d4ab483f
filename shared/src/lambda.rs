//! What every `functions/<name>/src/main.rs` calls: JSON logs, configuration from the
//! environment (failing at init with the setting's name), one [`App`] per cold start, then
//! the function's handler for every request.

use std::convert::Infallible;
use std::sync::Arc;

use lambda_http::service_fn;

use crate::config::{RawSettings, Settings};
use crate::routes;
use crate::store::read_only::ReadOnly;
use crate::App;

/// Runs the Lambda function `function` (a name from the route table).
pub async fn run(function: &'static str) -> Result<(), lambda_http::Error> {
    crate::telemetry::init_lambda();
    let handler = routes::function_handler(function)
        .ok_or_else(|| format!("{function} is not a function of the route table"))?;
    let settings = Settings::from_raw(&RawSettings::from_env()).inspect_err(|e| {
        tracing::error!(error = %e, "bad configuration");
    })?;
    let mut app = App::from_settings_with(settings, crate::app::KeySetup::MustExist)
        .await
        .inspect_err(|e| {
            tracing::error!(error = %e, "init failed");
        })?;
    match handler.access() {
        // Least privilege, as the template's IAM policies: a reader cannot write.
        routes::Access::Read => app.store = Arc::new(ReadOnly(app.store.clone())),
        routes::Access::Write => {}
        // Decrypt the envelope key now (init), not on the first token request; a failure
        // here is retried at the first signature (503 until KMS answers).
        routes::Access::Sign => {
            if let Err(e) = app.keyring().await.warm().await {
                tracing::warn!(error = %e, "signing keys not ready yet");
            }
        }
    }
    let app = Arc::new(app);
    lambda_http::run(service_fn(move |req| {
        let app = app.clone();
        async move {
            let resp = routes::dispatch(handler, &app, req).await;
            // Lambda freezes the process once the response is returned: back-channel logout
            // deliveries started by this request get a bounded wait here instead.
            if handler.access() == routes::Access::Sign {
                let _ = tokio::time::timeout(
                    crate::backchannel::LAMBDA_BUDGET,
                    crate::backchannel::drain(),
                )
                .await;
            }
            Ok::<_, Infallible>(resp)
        }
    }))
    .await
}
