//! Audit events: one structured log line per security-relevant event, with a stable `event`
//! name, so operators can alert on them and tests can assert them.
//!
//! Each line carries the client, the subject, the source address and the outcome where they
//! apply, and never a secret, code or token (their types do not reach this module). They are
//! `tracing` events with target `audit` at INFO: JSON lines in Lambda (CloudWatch), and under
//! `scanid serve` with `SCANID_LOG_FORMAT=json`.

use crate::domain::ratelimit::Limit;

/// The events, by stable name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// An authorization request opened a QR login.
    LoginStarted,
    /// The phone approved a QR login.
    LoginApproved,
    /// The phone denied a QR login.
    LoginDenied,
    /// An approval the client's policy refused (issue 24): the login is cancelled; the
    /// detail names the refusing risk flags.
    LoginRefused,
    /// A QR login was cancelled for good; the outcome says why (`wrong_number`: the approval
    /// named another number than the page showed; `second_device`: another phone scanned it,
    /// or another identity decided).
    LoginCancelled,
    /// The person allowed the client on the consent page (or a remembered consent applied).
    ConsentGranted,
    /// The person denied the client on the consent page.
    ConsentDenied,
    /// The person withdrew a consent in the app (an agent's delegation).
    ConsentWithdrawn,
    /// An authorization code was issued.
    CodeIssued,
    /// An authorization code was redeemed.
    CodeRedeemed,
    /// A code was presented again: its grant was revoked.
    CodeReplayed,
    /// A refresh token was used and replaced.
    RefreshRotated,
    /// Tokens were issued; the detail is the grant type (`authorization_code`,
    /// `refresh_token`, `client_credentials`).
    TokenIssued,
    /// A rotated refresh token was reused: its family was revoked.
    RefreshReused,
    /// A client failed to authenticate.
    ClientAuthFailed,
    /// A rate limit refused a request.
    RateLimited,
    /// An SSO session ended by logout.
    Logout,
    /// A back-channel logout token was delivered to a client.
    BackchannelLogout,
    /// A back-channel logout delivery was given up (the detail says why): one per delivery.
    BackchannelLogoutFailed,
    /// An OpenID CIBA ping (Core §10.2) was delivered to a client's notification endpoint.
    CibaPing,
    /// An OpenID CIBA ping was given up (the detail says why): one per ping.
    CibaPingFailed,
    /// An identity signed up.
    IdentityCreated,
    /// An operator disabled an identity.
    IdentityDisabled,
    /// An identity was deleted (by its device, or by an operator).
    IdentityDeleted,
    /// A token was revoked (RFC 7009).
    TokenRevoked,
    /// The signing keys were rotated.
    KeyRotated,
    /// A client registered itself (RFC 7591); the detail says how it was allowed
    /// (`initial_access_token` or `open`).
    ClientRegistered,
    /// A dynamically registered client replaced its metadata (RFC 7592).
    ClientUpdated,
    /// A dynamically registered client deleted itself (RFC 7592).
    ClientDeleted,
    /// A device asked for a device code (RFC 8628).
    DeviceAuthorizationStarted,
    /// A backchannel authentication request (OpenID CIBA) was started.
    BackchannelRequested,
    /// An identity's device key was replaced (by its app, or by an operator).
    DeviceKeyReplaced,
    /// Every SSO session and token of an identity was ended (a replaced key).
    SessionsEnded,
    /// The person said "this wasn't me" about one of its recent logins.
    LoginReported,
    /// A passkey was added to an identity (issue 26; the detail says whether the device key
    /// was retired).
    PasskeyAdded,
    /// A key (a passkey, or the device key) was removed from an identity.
    PasskeyRemoved,
    /// A call of the admin API: the client is the caller (a service account), the detail
    /// the operation (`clients.create`, ...), the object what it acted on.
    AdminCall,
    /// A call of the admin API refused (outcome `unauthorized`: no valid token;
    /// `forbidden`: a token without the role); the detail is the operation.
    AdminRefused,
}

impl Event {
    /// The event's name in the audit log (`login.started`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Event::LoginStarted => "login.started",
            Event::LoginApproved => "login.approved",
            Event::LoginDenied => "login.denied",
            Event::LoginRefused => "login.refused",
            Event::LoginCancelled => "login.cancelled",
            Event::ConsentGranted => "consent.granted",
            Event::ConsentDenied => "consent.denied",
            Event::ConsentWithdrawn => "consent.withdrawn",
            Event::CodeIssued => "code.issued",
            Event::CodeRedeemed => "code.redeemed",
            Event::CodeReplayed => "code.replayed",
            Event::RefreshRotated => "refresh.rotated",
            Event::TokenIssued => "token.issued",
            Event::RefreshReused => "refresh.reused",
            Event::ClientAuthFailed => "client_auth.failed",
            Event::RateLimited => "rate_limited",
            Event::Logout => "logout",
            Event::BackchannelLogout => "backchannel_logout",
            Event::BackchannelLogoutFailed => "backchannel_logout.failed",
            Event::CibaPing => "ciba_ping",
            Event::CibaPingFailed => "ciba_ping.failed",
            Event::IdentityCreated => "identity.created",
            Event::PasskeyAdded => "passkey.added",
            Event::PasskeyRemoved => "key.removed",
            Event::IdentityDisabled => "identity.disabled",
            Event::IdentityDeleted => "identity.deleted",
            Event::TokenRevoked => "token.revoked",
            Event::KeyRotated => "key.rotated",
            Event::ClientRegistered => "client.registered",
            Event::ClientUpdated => "client.updated",
            Event::ClientDeleted => "client.deleted",
            Event::DeviceAuthorizationStarted => "device_authorization.started",
            Event::BackchannelRequested => "backchannel.requested",
            Event::DeviceKeyReplaced => "device_key.replaced",
            Event::SessionsEnded => "identity.sessions_ended",
            Event::LoginReported => "login.reported",
            Event::AdminCall => "admin.call",
            Event::AdminRefused => "admin.refused",
        }
    }
}

/// One audit line, built up and then emitted.
#[derive(Debug, Clone, Copy)]
#[must_use = "an audit line is written only by emit()"]
pub struct Audit<'a> {
    event: Event,
    client_id: Option<&'a str>,
    sub: Option<&'a str>,
    source: Option<&'a str>,
    outcome: &'a str,
    detail: Option<&'a str>,
    object: Option<&'a str>,
}

impl<'a> Audit<'a> {
    /// An audit line for `event`, outcome `success` until told otherwise.
    pub fn new(event: Event) -> Self {
        Self {
            event,
            client_id: None,
            sub: None,
            source: None,
            outcome: "success",
            detail: None,
            object: None,
        }
    }
    /// The client concerned.
    pub fn client(mut self, client_id: &'a str) -> Self {
        self.client_id = Some(client_id);
        self
    }
    /// The identity concerned.
    pub fn subject(mut self, sub: &'a str) -> Self {
        self.sub = Some(sub);
        self
    }
    /// Where the request came from (a rate-limit source, or who acted: `device`, `operator`).
    pub fn source(mut self, source: &'a str) -> Self {
        self.source = Some(source);
        self
    }
    /// The outcome, when not `success`.
    pub fn outcome(mut self, outcome: &'a str) -> Self {
        self.outcome = outcome;
        self
    }
    /// A short, fixed explanation (never request data).
    pub fn detail(mut self, detail: &'a str) -> Self {
        self.detail = Some(detail);
        self
    }
    /// What an admin call acted on (a client's id), never a secret.
    pub fn object(mut self, object: &'a str) -> Self {
        self.object = Some(object);
        self
    }
    /// Writes the line to the `audit` log target.
    pub fn emit(self) {
        tracing::info!(
            target: "audit",
            event = self.event.name(),
            client_id = self.client_id,
            sub = self.sub,
            source = self.source,
            outcome = self.outcome,
            detail = self.detail,
            object = self.object,
            "audit"
        );
    }
}

/// A rate limit refused a request from (or for) `who`.
pub fn rate_limited(limit: Limit, who: &str) {
    let a = Audit::new(Event::RateLimited)
        .outcome("refused")
        .detail(limit.name());
    match limit {
        Limit::Decision | Limit::PhotoUpload => a.subject(who).emit(),
        _ => a.source(who).emit(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_dotted_lower_case() {
        let all = [
            Event::LoginStarted,
            Event::LoginApproved,
            Event::LoginDenied,
            Event::LoginRefused,
            Event::LoginCancelled,
            Event::ConsentGranted,
            Event::ConsentDenied,
            Event::ConsentWithdrawn,
            Event::CodeIssued,
            Event::CodeRedeemed,
            Event::CodeReplayed,
            Event::RefreshRotated,
            Event::TokenIssued,
            Event::RefreshReused,
            Event::ClientAuthFailed,
            Event::RateLimited,
            Event::Logout,
            Event::BackchannelLogout,
            Event::BackchannelLogoutFailed,
            Event::CibaPing,
            Event::CibaPingFailed,
            Event::BackchannelRequested,
            Event::DeviceAuthorizationStarted,
            Event::IdentityCreated,
            Event::IdentityDisabled,
            Event::IdentityDeleted,
            Event::TokenRevoked,
            Event::KeyRotated,
            Event::ClientRegistered,
            Event::ClientUpdated,
            Event::ClientDeleted,
            Event::DeviceKeyReplaced,
            Event::SessionsEnded,
            Event::LoginReported,
            Event::PasskeyAdded,
            Event::PasskeyRemoved,
            Event::AdminCall,
            Event::AdminRefused,
        ];
        let names: std::collections::HashSet<_> = all.iter().map(|e| e.name()).collect();
        assert_eq!(names.len(), all.len());
        assert!(names.iter().all(|n| n
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b == b'.' || b == b'_')));
    }
}
