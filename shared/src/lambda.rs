//! What every `functions/<name>/src/main.rs` calls: JSON logs, configuration from the
//! environment (failing at init with the setting's name), one [`App`] per cold start, then
//! the function's handler for every request.

use std::convert::Infallible;
use std::sync::Arc;

use lambda_http::service_fn;

use crate::config::{RawSettings, Settings};
use crate::routes;
use crate::App;

/// Runs the Lambda function `function` (a name from the route table).
pub async fn run(function: &'static str) -> Result<(), lambda_http::Error> {
    crate::telemetry::init_lambda();
    let handler = routes::function_handler(function)
        .ok_or_else(|| format!("{function} is not a function of the route table"))?;
    let settings = Settings::from_raw(&RawSettings::from_env()).inspect_err(|e| {
        tracing::error!(error = %e, "bad configuration");
    })?;
    let app = Arc::new(App::from_settings(settings).await.inspect_err(|e| {
        tracing::error!(error = %e, "init failed");
    })?);
    lambda_http::run(service_fn(move |req| {
        let app = app.clone();
        async move { Ok::<_, Infallible>(routes::dispatch(handler, &app, req).await) }
    }))
    .await
}
