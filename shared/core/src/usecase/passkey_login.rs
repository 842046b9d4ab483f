//! "Sign in with a passkey" on the login page (issue 26): the browser's own WebAuthn flow with
//! a discoverable credential, beside the QR. The page asks for a challenge ([`options`]): one
//! made for this QR login ([`QrLogin::passkey_challenge`]) and stored to be spent once; the
//! browser's assertion ([`sign_in`]) names the credential, whose passkey (part 1's store) says
//! whose it is. A verified assertion (user verified, origin and RP ID scanid's) approves the
//! login as [`Method::PasskeySignIn`]; then the consent step, the code and the tokens are the QR
//! login's own. Both calls need the login's browser cookie (the handler checks it with
//! `usecase::login::bound_login`).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use crate::answer::{json, Answer, Answered};
use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::authn::{Acr, Method};
use crate::domain::login::{DecideError, QrLogin};
use crate::domain::passkey::{self, Assertion, PasskeyError, RelyingParty};
use crate::domain::ratelimit::{Counted, Limit, Source};
use crate::service::limits;
use crate::service::login_history::remember_passkey_login;
use crate::store::typed::Versioned;
use crate::store::{IdentityStore, Outcome, Passkeys, QrLogins, StoreError};

/// The largest base64url field of an assertion accepted (authenticator data, client data and
/// signature are a few hundred bytes; an RSA signature 512).
const MAX_FIELD_CHARS: usize = 4096;

/// Why a passkey sign-in was refused.
#[derive(Debug, thiserror::Error)]
pub enum PasskeyLoginError {
    /// A malformed request (400 `invalid_request`).
    #[error("{0}")]
    Invalid(&'static str),
    /// The login is over, expired, or stands for a device authorization (404).
    #[error("unknown or expired login session")]
    UnknownLogin,
    /// The login was decided already (409).
    #[error("this login was decided already")]
    AlreadyDecided,
    /// Not a challenge of this login, or one spent or expired (400).
    #[error("the challenge is not this login's, or was used or expired: ask for a new one")]
    Challenge,
    /// No passkey has this credential id, or its identity is gone or disabled (403).
    #[error("this passkey is not registered with scanid (or its identity can no longer log in)")]
    UnknownCredential,
    /// The assertion did not verify (400), e.g. the user was not verified.
    #[error("{0}")]
    Rejected(PasskeyError),
    /// The request names another person (`claims` `id_token.sub.value`) (403).
    #[error("this login request is for another person")]
    OtherPerson,
    /// The request or its client requires more (cannot happen for 3, kept for the type).
    #[error("this service requires {}", .0.needs())]
    AcrNotMet(Acr),
    /// Too many challenges from this source or for this login (429).
    #[error("too many passkey challenges: wait and try again")]
    RateLimited {
        /// Seconds to wait.
        retry_after: i64,
    },
    /// The issuer has no host to be a WebAuthn relying party (a misconfiguration: 500).
    #[error("the issuer cannot be a WebAuthn relying party")]
    NoRelyingParty,
    #[error(transparent)]
    /// The store failed.
    Store(#[from] StoreError),
}

impl Answered for PasskeyLoginError {
    fn answer(self) -> Answer {
        use PasskeyLoginError as E;
        match self {
            E::Invalid(_) => json(400, "invalid_request", &self),
            E::UnknownLogin => json(404, "not_found", &self),
            E::AlreadyDecided => json(409, "already_decided", &self),
            E::Challenge => json(400, "invalid_challenge", &self),
            E::UnknownCredential => json(403, "unknown_passkey", &self),
            E::Rejected(_) => json(400, "passkey_rejected", &self),
            E::OtherPerson => json(403, "other_person", &self),
            E::AcrNotMet(_) => json(403, "acr_not_met", &self),
            E::RateLimited { retry_after } => Answer::RateLimited { retry_after },
            E::NoRelyingParty => Answer::Internal {
                log: "the issuer has no host: no WebAuthn relying party",
            },
            E::Store(s) => Answer::Store(s),
        }
    }
}

/// What `navigator.credentials.get` needs (`publicKey`), as the page passes it on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasskeyOptions {
    /// base64url.
    pub challenge: String,
    /// The RP ID (the issuer's host).
    pub rp_id: String,
    /// How long the browser waits for the person, in milliseconds.
    pub timeout_ms: i64,
}

/// A new challenge for the pending login `login`, stored until it (or the login) expires.
/// Each is a write: counted per source (`who`) and per login, whose live challenges are so
/// bounded (issue 38: 13,118 in 3 s for one login from one address).
pub async fn options(
    ctx: &Context,
    login: &Versioned<QrLogin>,
    who: &Source,
) -> Result<PasskeyOptions, PasskeyLoginError> {
    let now = ctx.clock.now();
    let l = &login.value;
    pending(l, now)?;
    let rp = relying_party(ctx)?;
    within(ctx, Limit::PasskeyChallenge, who.as_str(), now).await?;
    within(ctx, Limit::PasskeyChallengePerLogin, &l.id, now).await?;
    let expires = now
        .plus_secs(passkey::CHALLENGE_TTL_SECS)
        .secs()
        .min(l.expires_at.secs());
    for _ in 0..3 {
        let mut nonce = [0u8; 16];
        ctx.random.fill(&mut nonce);
        let challenge = URL_SAFE_NO_PAD.encode(l.passkey_challenge(&nonce));
        if ctx
            .store
            .issue_webauthn_challenge(&challenge, expires, now)
            .await?
            == Outcome::Done
        {
            return Ok(PasskeyOptions {
                challenge,
                rp_id: rp.id,
                timeout_ms: (expires - now.secs()).max(1) * 1000,
            });
        }
    }
    Err(StoreError::ConditionFailed.into())
}

/// Counts one challenge under `limit` for `who`; over it, [`PasskeyLoginError::RateLimited`].
async fn within(
    ctx: &Context,
    limit: Limit,
    who: &str,
    now: Timestamp,
) -> Result<(), PasskeyLoginError> {
    match limits::count(ctx.store.as_ref(), &ctx.settings.limits, limit, who, now).await? {
        Counted::Allowed => Ok(()),
        Counted::Limited { retry_after } => Err(PasskeyLoginError::RateLimited { retry_after }),
    }
}

/// The assertion a browser sent, each field base64url as WebAuthn's JSON encoding has it.
#[derive(Debug, Clone, Default)]
pub struct AssertionInput<'a> {
    /// The credential id (`rawId`).
    pub credential_id: &'a str,
    /// `response.authenticatorData`.
    pub authenticator_data: &'a str,
    /// `response.clientDataJSON`.
    pub client_data_json: &'a str,
    /// `response.signature`.
    pub signature: &'a str,
}

/// Signs `login` in with the assertion: its challenge must be this login's and live (spent
/// here, once), its credential a registered passkey of a live identity, the assertion
/// verified (user verified), then the login is approved as [`Method::PasskeySignIn`] by one
/// conditional write. `ip` is where the browser is (the passkey's "last used from").
pub async fn sign_in(
    ctx: &Context,
    login: &Versioned<QrLogin>,
    input: &AssertionInput<'_>,
    ip: &str,
) -> Result<(), PasskeyLoginError> {
    let now = ctx.clock.now();
    let l = &login.value;
    pending(l, now)?;
    let rp = relying_party(ctx)?;
    let assertion = Assertion {
        authenticator_data: b64(input.authenticator_data, "authenticator_data")?,
        client_data_json: b64(input.client_data_json, "client_data_json")?,
        signature: b64(input.signature, "signature")?,
    };
    if input.credential_id.is_empty() || input.credential_id.len() > MAX_FIELD_CHARS {
        return Err(PasskeyLoginError::Invalid(
            "credential_id: base64url, required",
        ));
    }
    let challenge = challenge_of(&assertion.client_data_json)?;
    if !l.owns_passkey_challenge(&challenge) {
        return Err(PasskeyLoginError::Challenge);
    }
    // Spent before anything else is checked: an assertion is tried once.
    let encoded = URL_SAFE_NO_PAD.encode(&challenge);
    if !ctx.store.take_webauthn_challenge(&encoded, now).await? {
        return Err(PasskeyLoginError::Challenge);
    }
    let Some(key) = ctx.store.passkey(input.credential_id, now).await? else {
        return Err(PasskeyLoginError::UnknownCredential);
    };
    let sub = key.value.sub.clone();
    match ctx.store.identity(&sub, now).await? {
        Some((i, _)) if !i.disabled => {}
        _ => return Err(PasskeyLoginError::UnknownCredential),
    }
    let ok = passkey::verify_assertion(&rp, &key.value, &sub, &assertion, &challenge)
        .map_err(PasskeyLoginError::Rejected)?;
    if !l.request.claims.accepts(&sub) {
        return Err(PasskeyLoginError::OtherPerson);
    }
    if ctx
        .store
        .passkey_used(&key, ok.sign_count, Some(ip.to_owned()), now)
        .await?
        == Outcome::Lost
    {
        // Used at the same moment elsewhere: the counter cannot grow twice.
        return Err(PasskeyLoginError::Rejected(PasskeyError::Counter));
    }
    let mut next = l.clone();
    // A passkey the device key enrolled signs in at the device key's level (issue 38).
    let method = key.value.level(Method::PasskeySignIn);
    next.sign_in_with_passkey(&sub, method, now)
        .map_err(|e| match e {
            DecideError::AlreadyDecided => PasskeyLoginError::AlreadyDecided,
            DecideError::AcrNotMet(a) => PasskeyLoginError::AcrNotMet(a),
            _ => PasskeyLoginError::UnknownLogin,
        })?;
    if ctx.store.update_qr_login(login, &next, now).await? == Outcome::Lost {
        return Err(PasskeyLoginError::AlreadyDecided);
    }
    ctx.login_changed(&next.id);
    Audit::new(Event::LoginApproved)
        .client(&l.request.client_id)
        .subject(&sub)
        .outcome("approved")
        .detail(method.as_str())
        .emit();
    remember_passkey_login(ctx, &sub, &next, now).await;
    Ok(())
}

fn pending(l: &QrLogin, now: Timestamp) -> Result<(), PasskeyLoginError> {
    if l.expired(now) || l.device_grant.is_some() {
        return Err(PasskeyLoginError::UnknownLogin);
    }
    if l.status != crate::domain::login::LoginStatus::Pending {
        return Err(PasskeyLoginError::AlreadyDecided);
    }
    Ok(())
}

fn relying_party(ctx: &Context) -> Result<RelyingParty, PasskeyLoginError> {
    RelyingParty::for_issuer(&ctx.settings.issuer()).ok_or(PasskeyLoginError::NoRelyingParty)
}

fn b64(s: &str, what: &'static str) -> Result<Vec<u8>, PasskeyLoginError> {
    let bad = PasskeyLoginError::Invalid(match what {
        "authenticator_data" => "authenticator_data: base64url, required",
        "client_data_json" => "client_data_json: base64url, required",
        _ => "signature: base64url, required",
    });
    if s.is_empty() || s.len() > MAX_FIELD_CHARS {
        return Err(bad);
    }
    URL_SAFE_NO_PAD
        .decode(s.trim_end_matches('='))
        .map_err(|_| bad)
}

/// The challenge the client data names (checked again, with everything else, by
/// [`passkey::verify_assertion`]).
fn challenge_of(client_data_json: &[u8]) -> Result<Vec<u8>, PasskeyLoginError> {
    let v: serde_json::Value = serde_json::from_slice(client_data_json)
        .map_err(|_| PasskeyLoginError::Invalid("client_data_json: not JSON"))?;
    let c = v
        .get("challenge")
        .and_then(serde_json::Value::as_str)
        .ok_or(PasskeyLoginError::Invalid("client_data_json: no challenge"))?;
    URL_SAFE_NO_PAD
        .decode(c.trim_end_matches('='))
        .map_err(|_| PasskeyLoginError::Challenge)
}
