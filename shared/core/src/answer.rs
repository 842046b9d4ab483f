//! How an error is answered, declared where the error is defined (STYLE.md practice 16;
//! node-oidc-provider's `lib/helpers/errors.js`): its HTTP status and `error` code, or the
//! outage or bug it stands for. The HTTP edge renders an [`Answer`] and chooses nothing.

use crate::keys::SignError;
use crate::protocol::OAuthError;
use crate::store::StoreError;

/// What the edge answers for an error.
#[derive(Debug)]
pub enum Answer {
    /// `status` with `{"error", "error_description"}` (JSON).
    Json {
        /// The HTTP status.
        status: u16,
        /// The `error` code.
        error: &'static str,
        /// The `error_description`.
        description: String,
    },
    /// An OAuth error, as RFC 6749 §5.2 JSON.
    OAuth(OAuthError),
    /// Client authentication failed: 401 `invalid_client` with `WWW-Authenticate: Basic`.
    InvalidClient(&'static str),
    /// A bearer-token error (RFC 6750 §3).
    Bearer {
        /// The HTTP status.
        status: u16,
        /// The RFC 6750 error code; none when no token was sent (§3.1).
        error: Option<&'static str>,
        /// The `error_description`.
        description: &'static str,
    },
    /// Too many requests: 429 + `Retry-After` (JSON).
    RateLimited {
        /// Seconds until the next try may succeed.
        retry_after: i64,
    },
    /// Too many failed client authentications: 429 + `Retry-After`, `invalid_client`.
    ClientAuthLimited {
        /// Seconds until the next try may succeed.
        retry_after: i64,
    },
    /// An approval the client's policy refused: 403 `login_refused` with the risk flags.
    LoginRefused {
        /// The refusing flags, by name.
        flags: Vec<&'static str>,
        /// The `error_description`.
        description: String,
    },
    /// Lost every retry of a race, or a dependency is down: 503 + `Retry-After`.
    Unavailable,
    /// A bug or unreadable data: 500, `log` says which (logged, never sent).
    Internal {
        /// What the log says.
        log: &'static str,
    },
    /// As the store's failure says (503 when it is down, 500 otherwise).
    Store(StoreError),
    /// As the signer's failure says (503 when it is down, 500 otherwise).
    Sign(SignError),
}

/// An error that declares its own answer.
pub trait Answered {
    /// The answer for this error.
    fn answer(self) -> Answer;
}

/// A JSON answer with `status`, `error` and the error's own text as the description.
pub fn json(status: u16, error: &'static str, e: &impl std::fmt::Display) -> Answer {
    Answer::Json {
        status,
        error,
        description: e.to_string(),
    }
}
