//! The error of the app API (app protocol §1, §3, §4): every request the scanid app makes,
//! signed or not (sign-up, scans, decisions, profile, keys, photos, activity, reports,
//! deletion), and the device-code pages that become a QR login. The HTTP layer chooses the
//! status.

use crate::answer::{json, Answer, Answered};
use crate::domain::authn::Acr;
use crate::domain::login::CancelReason;
use crate::domain::risk::Flag;
use crate::store::StoreError;

/// Why a request of the app fails; the HTTP layer chooses the status.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// A malformed or unverifiable request (400 `invalid_request`).
    #[error("{0}")]
    Invalid(String),
    /// An unknown or expired QR login, or a wrong challenge.
    #[error("unknown or expired login session, or a wrong challenge")]
    UnknownLogin,
    /// An unknown or disabled identity.
    #[error("unknown identity")]
    UnknownIdentity,
    /// The identity has no key with this id (a passkey's credential id, or `device`).
    #[error("unknown key")]
    UnknownKey,
    /// The identity's last key: it would have none left to sign with.
    #[error("this is the identity's last key: add another before removing it")]
    LastKey,
    /// No entry of this identity's recent logins has this id.
    #[error("unknown login")]
    UnknownActivity,
    /// The name is taken.
    #[error("this name is taken")]
    NameTaken,
    /// The login was decided already.
    #[error("this login session was decided already")]
    AlreadyDecided,
    /// The login is cancelled for good (a wrong number, a second phone).
    #[error("{}", cancel_text(*.0))]
    Cancelled(CancelReason),
    /// A `jti` used, or the identity changed meanwhile.
    #[error("{0}")]
    Conflict(&'static str),
    /// Too many requests from this source or identity.
    #[error("too many requests")]
    RateLimited {
        /// Seconds until the next try may succeed.
        retry_after: i64,
    },
    /// The device key on file cannot be read (a corrupt record).
    #[error("the stored device key is unreadable")]
    StoredKey,
    /// An approval the client's policy refuses for these risk flags (403 `login_refused`):
    /// the login was cancelled.
    #[error("this login cannot be approved: the client refuses logins flagged {}", flag_list(.0))]
    Refused(Vec<Flag>),
    /// An approval below the `acr` the login's request or its client requires (403
    /// `acr_not_met`); nothing was written: approve again with what it needs.
    #[error("this service requires {}: approve with it (acr {})", .0.needs(), .0.as_str())]
    AcrNotMet(Acr),
    /// Lost every retry of a race (503).
    #[error("busy")]
    Busy,
    /// This deployment hosts no photos (no photo store configured).
    #[error("this service hosts no photos")]
    NoPhotos,
    /// A stored photo could not be read or written (503).
    #[error("the photo store is unavailable")]
    PhotosUnavailable,
    /// The store failed.
    #[error("store")]
    Store(#[from] StoreError),
}

impl AppError {
    /// A signed write that lost: its `jti` was used, or the identity changed since it was
    /// read (409; the app signs a new request).
    pub(crate) const SIGNED_WRITE_LOST: AppError = AppError::Conflict(
        "jti already used, or the identity changed meanwhile; sign a new request",
    );

    /// The error of a signed write's store call: a failed condition is
    /// [`Self::SIGNED_WRITE_LOST`], anything else the store's error.
    pub(crate) fn from_signed_write(e: StoreError) -> Self {
        match e {
            StoreError::ConditionFailed => Self::SIGNED_WRITE_LOST,
            e => e.into(),
        }
    }
}

impl Answered for AppError {
    fn answer(self) -> Answer {
        use AppError as E;
        match self {
            E::Invalid(_) => json(400, "invalid_request", &self),
            E::UnknownLogin | E::UnknownIdentity | E::UnknownActivity | E::UnknownKey => {
                json(404, "not_found", &self)
            }
            E::NameTaken => json(409, "name_taken", &self),
            E::LastKey => json(409, "last_key", &self),
            E::AlreadyDecided => json(409, "already_decided", &self),
            E::Cancelled(_) => json(409, "login_cancelled", &self),
            E::Conflict(_) => json(409, "conflict", &self),
            E::RateLimited { retry_after } => Answer::RateLimited { retry_after },
            E::StoredKey => Answer::Internal {
                log: "an identity's stored device key is unreadable",
            },
            E::Busy | E::PhotosUnavailable => Answer::Unavailable,
            E::AcrNotMet(_) => json(403, "acr_not_met", &self),
            E::NoPhotos => json(404, "not_found", &self),
            E::Refused(ref flags) => Answer::LoginRefused {
                flags: flags.iter().map(|f| f.as_str()).collect(),
                description: self.to_string(),
            },
            E::Store(s) => Answer::Store(s),
        }
    }
}

/// The flags, as the app and the audit line name them.
pub(crate) fn flag_list(flags: &[Flag]) -> String {
    flags
        .iter()
        .map(|f| f.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What the app is told when a login is cancelled.
fn cancel_text(r: CancelReason) -> &'static str {
    match r {
        CancelReason::WrongNumber => {
            "the number did not match the one on the login page: this login is cancelled"
        }
        CancelReason::SecondDevice => {
            "another phone scanned or decided this login: it is cancelled"
        }
    }
}

/// A malformed or unverifiable request, saying why.
pub(crate) fn invalid(e: impl std::fmt::Display) -> AppError {
    AppError::Invalid(e.to_string())
}
