//! The use cases walked step by step at exact times, over the in-memory store with a fixed
//! clock and seeded randomness ([`crate::testing`]); no server, no sleeping. One file per
//! feature; the helpers here serve the files that `use super::*`.

use serde_json::{json, Map, Value};

use crate::config::Limits;
use crate::domain::consent::{csrf_token, ConsentInput, ConsentRefusal};
use crate::domain::grant::{Issued, REFRESH_GRACE_SECS};
use crate::domain::login::{CancelReason, LoginStatus, COMPLETED_GRACE_SECS, RECORD_GRACE_SECS};
use crate::domain::ratelimit::{Counted, Limit};
use crate::keys::jwt;
use crate::protocol::OAuthErrorCode;
use crate::service::limits;
use crate::store::SsoSessions;
use crate::testing::{
    param, Builder, Device, TestEnv, IP, SHOP, SHOP_LOGGED_OUT, SHOP_REDIRECT, T0, VERIFIER,
};
use crate::usecase::app::{self, AppError, Decision};
use crate::usecase::login::{
    bound_login, AuthorizeDecision, BoundLoginError, BrowserSecret, ConsentOutcome,
};
use crate::usecase::logout::{self, LogoutOutcome, LogoutRequest};
use crate::usecase::resource;
use crate::usecase::token::TokenError;

async fn env() -> TestEnv {
    Builder::new().build().await
}

/// The error description of an `invalid_grant` answer (anything else fails the test).
fn invalid_grant(r: Result<Issued, TokenError>) -> String {
    match r {
        Err(TokenError::OAuth(e)) if e.error == OAuthErrorCode::InvalidGrant => {
            e.error_description.into_owned()
        }
        other => panic!("expected invalid_grant, got {other:?}"),
    }
}

/// The claims of a token signed by the test keys, checked at the env's now.
fn claims(env: &TestEnv, token: &str) -> Map<String, Value> {
    jwt::verify(
        &crate::testing::keyring(),
        token,
        &env.ctx.settings.issuer(),
        env.now(),
    )
    .unwrap()
}

async fn introspect_as_shop(env: &TestEnv, token: &str) -> Value {
    let response = resource::introspect(&env.ctx, &env.shop, token, env.now())
        .await
        .unwrap();
    serde_json::to_value(response).unwrap()
}

mod admin_keys;
mod authorize;
mod ciba_work;
mod client_documents;
mod consent;
mod device_grant;
mod identity;
mod introspection_and_logout;
mod passkey_login;
mod passkeys;
mod rate_limits;
mod risk;
mod rotation_and_report;
mod scan_and_decide;
mod stale_scan;
mod token_endpoint;
