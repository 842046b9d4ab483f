//! The authorization response (RFC 6749 §4.1.2): where the browser goes, how, and with which
//! parameters; and its JARM form (JWT Secured Authorization Response Mode, the FAPI 2.0
//! Message Signing profile's signed authorization response): the same parameters as the
//! claims of one JWT, `response`, with `iss`, `aud` (the client) and a short `exp`, signed
//! with the client's algorithm.

use serde_json::{Map, Value};

use crate::context::Context;
use crate::domain::authorize::{AuthorizationRequest, ErrorTarget, ResponseMode};
use crate::keys::jwt;
use crate::protocol::OAuthError;
use crate::store::StoreError;

/// How long a JARM response is valid (the JARM spec: short; 10 minutes as node-oidc-provider).
pub const JARM_LIFETIME_SECS: i64 = 600;

/// An authorization response: where to send the browser, how, and with which parameters.
#[derive(Clone, PartialEq, Eq)]
pub struct AuthResponse {
    /// The client's redirect URI.
    pub redirect_uri: String,
    /// The client (a JARM response's `aud`).
    pub client_id: String,
    /// Query, fragment or form post; JARM ([`seal`] turns it into its plain mode).
    pub mode: ResponseMode,
    /// The response's parameters (`code`, `state`, `iss`, ... or the error's; JARM: `response`).
    pub params: Vec<(&'static str, String)>,
}

impl std::fmt::Debug for AuthResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let params: Vec<(&str, &str)> = self
            .params
            .iter()
            .map(|(k, v)| {
                let secret = matches!(*k, "code" | "response");
                (*k, if secret { "<redacted>" } else { v.as_str() })
            })
            .collect();
        f.debug_struct("AuthResponse")
            .field("redirect_uri", &self.redirect_uri)
            .field("mode", &self.mode)
            .field("params", &params)
            .finish()
    }
}

impl AuthResponse {
    /// An error response (RFC 6749 §4.1.2.1) with `iss` (RFC 9207).
    pub fn error(target: &ErrorTarget, e: &OAuthError, issuer: &str) -> Self {
        let mut params = vec![
            ("error", e.error.as_str().to_owned()),
            ("error_description", e.error_description.to_string()),
        ];
        if let Some(s) = &target.state {
            params.push(("state", s.clone()));
        }
        params.push(("iss", issuer.to_owned()));
        Self {
            redirect_uri: target.redirect_uri.clone(),
            client_id: target.client_id.to_string(),
            mode: target.response_mode,
            params,
        }
    }

    /// An error response to the request `req`.
    pub fn for_request(req: &AuthorizationRequest, e: OAuthError, issuer: &str) -> Self {
        let target = ErrorTarget {
            redirect_uri: req.redirect_uri.clone().into(),
            client_id: req.client_id.clone(),
            response_mode: req.response_mode,
            state: req.state.clone(),
        };
        Self::error(&target, &e, issuer)
    }
}

/// The response as it goes out: a JARM one signed into its `response` parameter and sent by
/// its plain mode; any other as it is. A signing failure (a KMS outage) is answered as the
/// store's would be: 503, try again.
pub async fn seal(ctx: &Context, r: AuthResponse) -> Result<AuthResponse, StoreError> {
    let ResponseMode::Jwt { over, alg } = r.mode else {
        return Ok(r);
    };
    let now = ctx.clock.now();
    let mut claims = Map::new();
    claims.insert("iss".into(), Value::from(ctx.settings.issuer()));
    claims.insert("aud".into(), Value::from(r.client_id.as_str()));
    claims.insert("exp".into(), Value::from(now.secs() + JARM_LIFETIME_SECS));
    claims.insert("iat".into(), Value::from(now.secs()));
    for (k, v) in &r.params {
        if *k != "iss" {
            claims.insert((*k).to_owned(), Value::from(v.as_str()));
        }
    }
    let keys = ctx.keyring().await;
    let signed = match keys.signer(alg) {
        Ok(signer) => jwt::encode(signer.as_ref(), "JWT", &claims).await,
        Err(e) => Err(e),
    }
    .map_err(|e| {
        // On Lambda the authorization and consent functions hold no signer (fapi.md).
        tracing::error!(error = %e, alg = alg.as_str(), "a JARM response could not be signed");
        StoreError::Unavailable(Box::new(e))
    })?;
    let mode = match over {
        crate::domain::authorize::Delivery::Query => ResponseMode::Query,
        crate::domain::authorize::Delivery::Fragment => ResponseMode::Fragment,
        crate::domain::authorize::Delivery::FormPost => ResponseMode::FormPost,
    };
    Ok(AuthResponse {
        mode,
        params: vec![("response", signed)],
        ..r
    })
}
