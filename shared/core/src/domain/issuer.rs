//! The service as the domain sees it: who issues its tokens ([`Issuer`]) and how long tokens,
//! sessions and logins live ([`Lifetimes`], with their defaults). The settings answer both
//! (they read each lifetime within its bounds); the domain never reads the configuration.

/// What the domain's decisions need to know of the service: its issuer and its lifetimes.
pub trait Issuer {
    /// `{auth_url}/realms/{realm}`, exactly, without a trailing slash (CONTRACT.md, Names).
    fn issuer(&self) -> String;
    /// Token and session lifetimes.
    fn lifetimes(&self) -> &Lifetimes;
    /// Every client must push its authorization requests (RFC 9126).
    fn require_pushed_requests(&self) -> bool {
        false
    }
    /// An `https` `client_id` is a Client ID Metadata Document.
    fn client_id_metadata_documents(&self) -> bool {
        false
    }
    /// `client_secret_jwt` is offered: a sealing key is held for its clients' secrets.
    fn client_secret_jwt(&self) -> bool {
        false
    }
}

/// Token and session lifetimes, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifetimes {
    /// Access token lifetime.
    pub access_token: i64,
    /// Refresh token lifetime.
    pub refresh_token: i64,
    /// Offline (`offline_access`) refresh token lifetime.
    pub offline_token: i64,
    /// Authorization code lifetime.
    pub code: i64,
    /// SSO session idle timeout.
    pub sso_idle: i64,
    /// SSO session maximum lifetime.
    pub sso_max: i64,
    /// How long a QR login waits for the phone.
    pub login: i64,
    /// How long a QR challenge is accepted after its step began.
    pub qr_challenge: i64,
    /// How long a device code (RFC 8628) lives.
    pub device_code: i64,
    /// How long a deleted identity's name stays held (0: free at once).
    pub name_quarantine: i64,
    /// Seconds a stored audit event is kept (`--event-retention-days`).
    pub event_retention: i64,
}

impl Default for Lifetimes {
    fn default() -> Self {
        Self {
            access_token: 300,
            refresh_token: 1800,
            offline_token: 30 * 24 * 3600,
            code: 60,
            sso_idle: 1800,
            sso_max: 36000,
            login: 300,
            qr_challenge: super::login::DEFAULT_CHALLENGE_TTL_SECS,
            device_code: super::device_grant::DEVICE_CODE_TTL_SECS,
            name_quarantine: 30 * 24 * 3600,
            event_retention: 30 * 24 * 3600,
        }
    }
}
