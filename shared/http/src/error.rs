//! The one mapping from errors to responses (STYLE.md practice 7).
//!
//! OAuth endpoints answer RFC 6749 §5.2 JSON; a store or signer outage is 503 with
//! `Retry-After` (docs/requirements.md F1). The cause of an internal error is logged where it is
//! converted, never sent to the client.

use std::borrow::Cow;

use lambda_http::Body;

use super::{base, finish, Response};
use crate::keys::SignError;
use crate::protocol::{OAuthError, OAuthErrorCode};
use crate::store::StoreError;
use scanid_core::answer::{Answer, Answered};

/// Seconds a client should wait after a 503.
pub const RETRY_AFTER_SECS: u32 = 5;

/// The kind of error a response reports ([`HttpError::kind`]), in its extensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorKind(pub &'static str);

/// Every error an edge handler can end with.
#[derive(Debug)]
pub enum HttpError {
    /// No such resource (unknown path, other realm): JSON 404.
    NotFound,
    /// The path exists, the method does not: 405 with `Allow`.
    MethodNotAllowed(Vec<&'static str>),
    /// The request body is larger than accepted.
    PayloadTooLarge,
    /// The request did not arrive in time: 408, and the connection closes.
    RequestTimeout,
    /// An OAuth error, rendered as RFC 6749 §5.2 JSON.
    OAuth(OAuthError),
    /// Client authentication failed on an endpoint that takes HTTP Basic: 401 with
    /// `WWW-Authenticate: Basic` (RFC 6749 §5.2).
    InvalidClient(&'static str),
    /// The store or the signer is down: 503 + `Retry-After`.
    Unavailable,
    /// A JSON error with its own status (app API, directory): `{"error", "error_description"}`.
    Json {
        /// The HTTP status.
        status: u16,
        /// The `error` code.
        error: &'static str,
        /// The `error_description`, for the person or developer reading it.
        description: Cow<'static, str>,
    },
    /// An HTML error page (login pages): never a redirect.
    Page {
        /// The HTTP status.
        status: u16,
        /// The page's heading: a message id of the catalogues (`crate::i18n`).
        title: &'static str,
        /// What went wrong and what to do, under the heading: a message id.
        message: &'static str,
        /// The technical reason, shown as it is (empty: none).
        detail: Cow<'static, str>,
    },
    /// The store or signer is down while serving a login page: an HTML 503 + `Retry-After`.
    PageUnavailable,
    /// Too many requests: 429 + `Retry-After` (HTML on login pages, JSON elsewhere).
    RateLimited {
        /// Answer with an HTML page (a login page) rather than JSON.
        html: bool,
        /// Seconds until the next try may succeed.
        retry_after: i64,
    },
    /// Too many failed client authentications from this source: 429 + `Retry-After`, in
    /// RFC 6749 §5.2 JSON (`invalid_client`).
    ClientAuthLimited {
        /// Seconds until the next try may succeed.
        retry_after: i64,
    },
    /// A bearer-token error (RFC 6750 §3): `WWW-Authenticate: Bearer` with the code, if any.
    Bearer {
        /// The HTTP status (400, 401 or 403).
        status: u16,
        /// The RFC 6750 error code; none when no token was sent (§3.1).
        error: Option<&'static str>,
        /// The `error_description`.
        description: &'static str,
    },
    /// A DPoP error at a resource (RFC 9449 §7.1): 401 with `WWW-Authenticate: DPoP`, the
    /// code (`invalid_token`, `invalid_dpop_proof` or `use_dpop_nonce`) and the algorithms.
    Dpop {
        /// The error code.
        error: &'static str,
        /// The `error_description`.
        description: &'static str,
    },
    /// An approval the client's policy refused (issue 24): 403 `login_refused` with the
    /// refusing risk flags, `{"error", "error_description", "flags"}`.
    LoginRefused {
        /// The risk flags the client's policy refuses, by name.
        flags: Vec<&'static str>,
        /// The `error_description`.
        description: String,
    },
    /// A bug: 500, details only in the log.
    Internal,
}

impl From<OAuthError> for HttpError {
    fn from(e: OAuthError) -> Self {
        HttpError::OAuth(e)
    }
}

impl From<StoreError> for HttpError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Unavailable(cause) => {
                tracing::error!(%cause, "store unavailable");
                HttpError::Unavailable
            }
            StoreError::Corrupt(cause) => {
                tracing::error!(%cause, "corrupt record");
                HttpError::Internal
            }
            StoreError::ConditionFailed => {
                tracing::error!("unhandled store condition failure");
                HttpError::Internal
            }
        }
    }
}

impl From<SignError> for HttpError {
    fn from(e: SignError) -> Self {
        tracing::error!(cause = %e, "signing failed");
        match e {
            SignError::Unavailable(_) => HttpError::Unavailable,
            SignError::Key(_) | SignError::NoKey(_) => HttpError::Internal,
        }
    }
}

/// Every use-case error answers as it declares where it is defined ([`Answered`]): this file
/// only renders the answer.
impl From<Answer> for HttpError {
    fn from(a: Answer) -> Self {
        match a {
            Answer::Json {
                status,
                error,
                description,
            } => HttpError::json(status, error, description),
            Answer::OAuth(o) => HttpError::OAuth(o),
            Answer::InvalidClient(d) => HttpError::InvalidClient(d),
            Answer::Bearer {
                status,
                error,
                description,
            } => HttpError::Bearer {
                status,
                error,
                description,
            },
            Answer::RateLimited { retry_after } => HttpError::RateLimited {
                html: false,
                retry_after,
            },
            Answer::ClientAuthLimited { retry_after } => {
                HttpError::ClientAuthLimited { retry_after }
            }
            Answer::LoginRefused { flags, description } => {
                HttpError::LoginRefused { flags, description }
            }
            Answer::Unavailable => HttpError::Unavailable,
            Answer::Internal { log } => {
                tracing::error!("{log}");
                HttpError::Internal
            }
            Answer::Store(s) => s.into(),
            Answer::Sign(s) => s.into(),
        }
    }
}

/// The use-case errors that declare their answer.
macro_rules! answered {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for HttpError {
            fn from(e: $error) -> Self {
                e.answer().into()
            }
        }
    )*};
}

answered!(
    scanid_core::service::admin::AdminError,
    crate::usecase::app::AppError,
    crate::usecase::passkey_login::PasskeyLoginError,
    crate::usecase::registration::RegistrationFailure,
    crate::usecase::token::TokenError,
);

/// The consent step's refusals, as pages.
impl From<crate::domain::consent::ConsentRefusal> for HttpError {
    fn from(why: crate::domain::consent::ConsentRefusal) -> Self {
        use crate::domain::consent::ConsentRefusal;
        match why {
            ConsentRefusal::Expired => {
                HttpError::page_bad_request("error-expired", "error-expired-text")
            }
            ConsentRefusal::AlreadyCompleted => {
                HttpError::page_bad_request("error-completed", "error-completed-text")
            }
            ConsentRefusal::NotApproved => {
                HttpError::page_bad_request("error-not-approved", "error-not-approved-text")
            }
            ConsentRefusal::UnknownClient => {
                HttpError::page_bad_request("error-unknown-app", "error-unknown-app-text")
            }
            ConsentRefusal::Forged => {
                HttpError::page_forbidden("error-refused", "error-forged-text")
            }
            ConsentRefusal::NoChoice => {
                HttpError::page_bad_request("error-no-choice", "error-no-choice-text")
            }
        }
    }
}

/// A login that could not be completed, as a page.
impl From<crate::usecase::login::CompleteError> for HttpError {
    fn from(e: crate::usecase::login::CompleteError) -> Self {
        use crate::usecase::login::CompleteError;
        match e {
            CompleteError::AlreadyCompleted => {
                HttpError::page_bad_request("error-completed", "error-completed-text")
            }
            CompleteError::Store(s) => HttpError::from_page_store(s),
        }
    }
}

/// An invalid logout request, as a page.
impl From<crate::usecase::logout::LogoutError> for HttpError {
    fn from(e: crate::usecase::logout::LogoutError) -> Self {
        match e {
            crate::usecase::logout::LogoutError::Invalid(why) => HttpError::Page {
                status: 400,
                title: "error-logout-invalid",
                message: "error-logout-invalid-text",
                detail: why.into(),
            },
            crate::usecase::logout::LogoutError::Store(e) => HttpError::from_page_store(e),
        }
    }
}

fn oauth_json(status: u16) -> http::response::Builder {
    let b = base(status)
        .header("content-type", "application/json")
        .header("cache-control", "no-store")
        .header("pragma", "no-cache");
    if status == 503 {
        b.header("retry-after", RETRY_AFTER_SECS.to_string())
    } else {
        b
    }
}

fn body(e: &OAuthError) -> Body {
    Body::Binary(serde_json::to_vec(e).unwrap_or_default())
}

/// The statuses of the errors handlers raise by name: every status is chosen in this file.
impl HttpError {
    /// 400 `invalid_request` (JSON).
    pub fn bad_request(description: impl Into<Cow<'static, str>>) -> Self {
        Self::json(400, "invalid_request", description)
    }
    /// 404 `not_found` (JSON).
    pub fn not_found(description: impl Into<Cow<'static, str>>) -> Self {
        Self::json(404, "not_found", description)
    }
    /// 403 with an error code (JSON).
    pub fn forbidden(error: &'static str, description: impl Into<Cow<'static, str>>) -> Self {
        Self::json(403, error, description)
    }
    /// 415 `invalid_request` (JSON): the wrong `Content-Type`.
    pub fn unsupported_media_type(description: impl Into<Cow<'static, str>>) -> Self {
        Self::json(415, "invalid_request", description)
    }
    /// 400 error page.
    pub fn page_bad_request(title: &'static str, message: &'static str) -> Self {
        Self::page(400, title, message)
    }
    /// 403 error page.
    pub fn page_forbidden(title: &'static str, message: &'static str) -> Self {
        Self::page(403, title, message)
    }
    /// 404 error page.
    pub fn page_not_found(title: &'static str, message: &'static str) -> Self {
        Self::page(404, title, message)
    }
    /// A bearer error answered with `resource_metadata` (RFC 9728 §5.1) in its challenge;
    /// `None` for another error.
    pub fn bearer_with_metadata(&self, metadata: &str) -> Option<Response> {
        match self {
            Self::Bearer {
                status,
                error,
                description,
            } => Some(bearer(*status, *error, description, Some(metadata))),
            _ => None,
        }
    }
    /// RFC 6750 §3.1 `invalid_token` (401).
    pub fn invalid_token(description: &'static str) -> Self {
        Self::Bearer {
            status: 401,
            error: Some("invalid_token"),
            description,
        }
    }
    /// RFC 6750 §3.1: no token at all (401, no error code).
    pub fn token_required(description: &'static str) -> Self {
        Self::Bearer {
            status: 401,
            error: None,
            description,
        }
    }
    /// RFC 6750 §3.1 `invalid_request` (400).
    pub fn bearer_invalid_request(description: &'static str) -> Self {
        Self::Bearer {
            status: 400,
            error: Some("invalid_request"),
            description,
        }
    }
    /// RFC 6750 §3.1 `insufficient_scope` (403).
    pub fn insufficient_scope(description: &'static str) -> Self {
        Self::Bearer {
            status: 403,
            error: Some("insufficient_scope"),
            description,
        }
    }
}

impl HttpError {
    pub(crate) fn json(
        status: u16,
        error: &'static str,
        description: impl Into<Cow<'static, str>>,
    ) -> Self {
        HttpError::Json {
            status,
            error,
            description: description.into(),
        }
    }

    pub(crate) fn page(status: u16, title: &'static str, message: &'static str) -> Self {
        HttpError::Page {
            status,
            title,
            message,
            detail: Cow::Borrowed(""),
        }
    }

    /// Store failures on a login page: an HTML 503 for outages, a logged 500 page otherwise.
    pub fn from_page_store(e: StoreError) -> Self {
        match HttpError::from(e) {
            HttpError::Unavailable => HttpError::PageUnavailable,
            _ => HttpError::page(500, "error-failed", "error-failed-text"),
        }
    }

    /// What went wrong, as a short fixed name for metrics ("errors by kind"): the OAuth or
    /// JSON error code where there is one.
    pub fn kind(&self) -> &'static str {
        match self {
            HttpError::NotFound => "not_found",
            HttpError::MethodNotAllowed(_) => "method_not_allowed",
            HttpError::PayloadTooLarge => "payload_too_large",
            HttpError::RequestTimeout => "request_timeout",
            HttpError::OAuth(e) => e.error.as_str(),
            HttpError::InvalidClient(_) => "invalid_client",
            HttpError::Unavailable | HttpError::PageUnavailable => "unavailable",
            HttpError::Json { error, .. } => error,
            HttpError::LoginRefused { .. } => "login_refused",
            HttpError::Page { .. } => "login_page",
            HttpError::RateLimited { .. } | HttpError::ClientAuthLimited { .. } => "rate_limited",
            HttpError::Bearer { error, .. } => error.unwrap_or("missing_token"),
            HttpError::Dpop { error, .. } => error,
            HttpError::Internal => "internal",
        }
    }

    /// The response, carrying its [`ErrorKind`] in its extensions (for the metrics); a page
    /// in English.
    pub fn into_response(self) -> Response {
        self.into_response_in(&crate::i18n::Tr::english())
    }

    /// The response, a page in `tr`'s language.
    pub fn into_response_in(self, tr: &crate::i18n::Tr) -> Response {
        let kind = ErrorKind(self.kind());
        let mut r = self.render(tr);
        r.extensions_mut().insert(kind);
        r
    }

    fn render(self, tr: &crate::i18n::Tr) -> Response {
        match self {
            HttpError::Json {
                status,
                error,
                description,
            } => {
                let mut headers = vec![("cache-control", "no-store".to_owned())];
                if status == 503 || status == 429 {
                    headers.push(("retry-after", RETRY_AFTER_SECS.to_string()));
                }
                plain_json(status, &headers, error, &description)
            }
            HttpError::LoginRefused { flags, description } => login_refused(&flags, &description),
            HttpError::Page {
                status,
                title,
                message,
                detail,
            } => page(tr, status, (title, message), &detail, "login_page"),
            HttpError::PageUnavailable => with_retry_after(
                page(
                    tr,
                    503,
                    ("error-unavailable", "error-unavailable-text"),
                    "try again in a moment",
                    "unavailable",
                ),
                RETRY_AFTER_SECS,
            ),
            HttpError::RateLimited {
                html: true,
                retry_after,
            } => with_retry_after(
                page(
                    tr,
                    429,
                    ("error-rate-limited", "error-rate-limited-text"),
                    "too many requests; retry later",
                    "rate_limited",
                ),
                retry_after,
            ),
            HttpError::Bearer {
                status,
                error,
                description,
            } => bearer(status, error, description, None),
            HttpError::Dpop { error, description } => dpop(error, description),
            HttpError::RateLimited {
                html: false,
                retry_after,
            } => plain_json(
                429,
                &[("retry-after", retry_after.to_string())],
                "rate_limited",
                "too many requests; retry later",
            ),
            HttpError::NotFound => plain_json(404, &[], "not_found", "no such resource"),
            HttpError::MethodNotAllowed(allow) => plain_json(
                405,
                &[("allow", allow.join(", "))],
                "method_not_allowed",
                "method not allowed",
            ),
            HttpError::RequestTimeout => plain_json(
                408,
                &[("connection", "close".to_owned())],
                "invalid_request",
                "the request did not arrive in time",
            ),
            HttpError::PayloadTooLarge => {
                plain_json(413, &[], "invalid_request", "request body too large")
            }
            HttpError::ClientAuthLimited { retry_after } => oauth(
                429,
                &[("retry-after", retry_after.to_string())],
                OAuthError::new(
                    OAuthErrorCode::InvalidClient,
                    "too many failed client authentications from this address; retry later",
                ),
            ),
            HttpError::OAuth(e) => oauth(e.error.status(), &[], e),
            HttpError::InvalidClient(description) => oauth(
                401,
                &[("www-authenticate", "Basic realm=\"scanid\"".to_owned())],
                OAuthError::new(OAuthErrorCode::InvalidClient, description),
            ),
            HttpError::Unavailable => oauth(503, &[], OAuthError::unavailable()),
            HttpError::Internal => oauth(
                500,
                &[],
                OAuthError::new(OAuthErrorCode::ServerError, "internal error"),
            ),
        }
    }
}

/// 403 `login_refused`: the client's policy refuses the login's risk flags (issue 24).
fn login_refused(flags: &[&str], description: &str) -> Response {
    finish(
        base(403)
            .header("content-type", "application/json")
            .header("cache-control", "no-store"),
        Body::Binary(
            serde_json::to_vec(&serde_json::json!({
                "error": "login_refused",
                "error_description": description,
                "flags": flags,
            }))
            .unwrap_or_default(),
        ),
    )
}

/// An RFC 6749 §5.2 JSON error, with `headers` after the usual ones.
fn oauth(status: u16, headers: &[(&'static str, String)], e: OAuthError) -> Response {
    let mut b = oauth_json(status);
    for (name, value) in headers {
        b = b.header(*name, value.as_str());
    }
    finish(b, body(&e))
}

/// An error page in `tr`'s language where the endpoint draws pages; elsewhere (a JSON-only
/// endpoint, which links no catalogue) the same error as JSON, `error` with `detail`. A
/// page's `detail` is shown only where the page has one (not for 429 and 503).
fn page(
    tr: &crate::i18n::Tr,
    status: u16,
    ids: (&str, &str),
    detail: &str,
    error: &str,
) -> Response {
    match tr.pages {
        Some(draw) => {
            let shown = if error == "login_page" { detail } else { "" };
            draw(tr, status, ids, shown, &crate::random::SystemRandom::new())
        }
        None => plain_json(status, &[], error, detail),
    }
}

/// A JSON error that is not OAuth's: `content-type`, then `headers`.
fn plain_json(
    status: u16,
    headers: &[(&'static str, String)],
    error: &str,
    description: &str,
) -> Response {
    let mut b = base(status).header("content-type", "application/json");
    for (name, value) in headers {
        b = b.header(*name, value.as_str());
    }
    finish(b, json_error(error, description))
}

/// A page with a `Retry-After`.
fn with_retry_after(mut r: Response, secs: impl ToString) -> Response {
    if let Ok(v) = http::HeaderValue::from_str(&secs.to_string()) {
        r.headers_mut().insert("retry-after", v);
    }
    r
}

/// RFC 6750 §3: the bearer challenge, with the error when there is one.
/// With `metadata`, the challenge names the resource's metadata (RFC 9728 §5.1).
fn bearer(
    status: u16,
    error: Option<&'static str>,
    description: &str,
    metadata: Option<&str>,
) -> Response {
    let mut challenge = match error {
        Some(e) => {
            format!("Bearer realm=\"scanid\", error=\"{e}\", error_description=\"{description}\"")
        }
        None => "Bearer realm=\"scanid\"".to_owned(),
    };
    if let Some(m) = metadata {
        challenge.push_str(&format!(", resource_metadata=\"{m}\""));
    }
    finish(
        base(status)
            .header("content-type", "application/json")
            .header("www-authenticate", challenge)
            .header("cache-control", "no-store"),
        json_error(error.unwrap_or("invalid_request"), description),
    )
}

/// RFC 9449 §7.1: the DPoP challenge, with the algorithms a proof may use.
fn dpop(error: &'static str, description: &str) -> Response {
    let algs = scanid_core::domain::dpop::ALGS.join(" ");
    let challenge =
        format!("DPoP error=\"{error}\", error_description=\"{description}\", algs=\"{algs}\"");
    finish(
        base(401)
            .header("content-type", "application/json")
            .header("www-authenticate", challenge)
            .header("cache-control", "no-store"),
        json_error(error, description),
    )
}

/// `{"error": ..., "error_description": ...}` for non-OAuth errors.
pub fn json_error(error: &str, description: &str) -> Body {
    Body::Binary(
        serde_json::to_vec(
            &serde_json::json!({ "error": error, "error_description": description }),
        )
        .unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_response_carries_its_kind_for_the_metrics() {
        let cases = [
            (HttpError::NotFound, 404, "not_found"),
            (
                HttpError::OAuth(OAuthError::new(OAuthErrorCode::InvalidGrant, "x")),
                400,
                "invalid_grant",
            ),
            (HttpError::InvalidClient("x"), 401, "invalid_client"),
            (HttpError::Unavailable, 503, "unavailable"),
            (HttpError::PageUnavailable, 503, "unavailable"),
            (
                HttpError::ClientAuthLimited { retry_after: 5 },
                429,
                "rate_limited",
            ),
            (HttpError::page(400, "t", "m"), 400, "login_page"),
            (HttpError::Internal, 500, "internal"),
        ];
        for (e, status, kind) in cases {
            let r = e.into_response();
            assert_eq!(r.status().as_u16(), status);
            assert_eq!(r.extensions().get::<ErrorKind>(), Some(&ErrorKind(kind)));
        }
    }
}
