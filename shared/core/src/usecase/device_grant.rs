//! The device authorization grant (RFC 8628): a device asks for codes ([`start`]), a person
//! approves with the scanid app, either scanning `verification_uri_complete`
//! ([`scan_user_code`]) or typing the code in a browser and logging in there with the QR
//! ([`enter_user_code`]); the device polls the token endpoint (`usecase::token`, the
//! device code grant).
//!
//! Both ways of approving become a QR login (`QrLogin::device_grant` names the device
//! authorization): the app scans it and decides it with the same signed request as a browser
//! login (`usecase::app::decide`), which settles the device authorization in the same
//! transaction. No code is issued to a redirect URI; the device's poll spends the device code.

use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::authorize::AuthorizationRequest;
use crate::domain::client::Client;
use crate::domain::device_grant::{self, DeviceAuthorization};
use crate::domain::discovery::SCOPES;
use crate::domain::login::{self, QrLogin};
use crate::domain::ratelimit::{Counted, Limit, Source};
use crate::protocol::{GrantType, Params, Scopes};
use crate::protocol::{OAuthErrorCode, Secret};
use crate::random;
use crate::service::app_error::AppError;
use crate::service::client_auth::{authenticate, Presented};
use crate::service::issuance::{oauth, TokenError};
use crate::service::limits;
use crate::store::device_grants::FoundDeviceAuthorization;
use crate::store::{ClientStore, DeviceGrants, Outcome, QrLogins, StoreError};

pub use crate::domain::device_grant::DEVICE_NOTICE;

/// What the device authorization endpoint answers (RFC 8628 §3.2).
#[derive(Debug)]
pub struct Started {
    /// The device code (RFC 8628 `device_code`).
    pub device_code: Secret,
    /// As shown: `XXXX-XXXX`.
    pub user_code: String,
    /// `verification_uri`.
    pub verification_uri: String,
    /// `verification_uri_complete`: the URI with the user code in it.
    pub verification_uri_complete: String,
    /// `expires_in`, seconds.
    pub expires_in: i64,
    /// `interval`: the polling interval, seconds.
    pub interval: i64,
}

/// `{issuer}/device`, where a person types the code.
pub fn verification_uri(ctx: &Context) -> String {
    format!("{}/device", ctx.settings.issuer())
}

/// The scopes asked for: the ones scanid understands, once each (others are ignored, as at
/// authorization).
fn scopes(scope: Option<&str>) -> Scopes {
    Scopes::supported(scope.unwrap_or(""), SCOPES)
}

/// Counts one event of `limit` for `who`; past its budget, 429 with `Retry-After`.
async fn within(ctx: &Context, limit: Limit, who: &str, now: Timestamp) -> Result<(), TokenError> {
    match limits::count(ctx.store.as_ref(), &ctx.settings.limits, limit, who, now).await? {
        Counted::Allowed => Ok(()),
        Counted::Limited { retry_after } => Err(TokenError::RateLimited { retry_after }),
    }
}

/// `POST .../auth/device`: counted against its source, authenticates the client as the token
/// endpoint does (public clients by `client_id`), counted against the client (what one client
/// holds pending is bounded), then stores a new device authorization, with where it was asked
/// from (`source`, `user_agent`).
pub async fn start(
    ctx: &Context,
    params: &Params,
    presented: &Presented,
    source: &Source,
    user_agent: &str,
) -> Result<Started, TokenError> {
    let now = ctx.clock.now();
    within(ctx, Limit::DeviceAuthorization, source.as_str(), now).await?;
    let client = authenticate(ctx, presented, true, source).await?;
    if !client.allows(GrantType::DeviceCode) {
        return Err(oauth(
            OAuthErrorCode::UnauthorizedClient,
            "this client may not use the device authorization grant",
        ));
    }
    let scope = params
        .one("scope")
        .map_err(|_| oauth(OAuthErrorCode::InvalidRequest, "scope is repeated"))?;
    let scopes = scopes(scope);
    within(
        ctx,
        Limit::DeviceCodesPerClient,
        client.client_id.as_str(),
        now,
    )
    .await?;
    let ttl = ctx.settings.lifetimes.device_code;
    // A user code drawn twice among the live ones (20^8 codes) only costs another draw.
    for _ in 0..3 {
        let user_code = device_grant::new_user_code(ctx.random.as_ref());
        let device_code = Secret::new(random::token(ctx.random.as_ref(), 32));
        let mut d = DeviceAuthorization::new(
            client.client_id.clone(),
            scopes.clone(),
            user_code,
            ttl,
            now,
        );
        d.device_ip = source.as_str().to_owned();
        d.device_user_agent = user_agent.chars().take(512).collect();
        let hash = login::hash(device_code.expose());
        if ctx
            .store
            .create_device_authorization(&hash, &d, now)
            .await?
            == Outcome::Lost
        {
            continue;
        }
        Audit::new(Event::DeviceAuthorizationStarted)
            .client(&client.client_id)
            .source(source.as_str())
            .emit();
        let shown = device_grant::display_user_code(&d.user_code);
        let uri = verification_uri(ctx);
        return Ok(Started {
            device_code,
            verification_uri_complete: format!("{uri}?user_code={shown}"),
            verification_uri: uri,
            user_code: shown,
            expires_in: ttl,
            interval: d.interval,
        });
    }
    Err(StoreError::ConditionFailed.into())
}

/// A user code's device authorization, ready for a person: counted against `source` first
/// (RFC 8628 §5.1: user codes are short, so guessing is rate limited), then looked up; `None`
/// when the code is malformed, unknown, expired or decided.
async fn lookup(
    ctx: &Context,
    user_code: &str,
    source: &Source,
    now: Timestamp,
) -> Result<Option<(FoundDeviceAuthorization, Client)>, AppError> {
    limits::within(ctx, Limit::UserCode, source.as_str(), now).await?;
    let Some(code) = device_grant::normalize_user_code(user_code) else {
        return Ok(None);
    };
    let Some(found) = ctx
        .store
        .device_authorization_by_user_code(&code, now)
        .await?
    else {
        return Ok(None);
    };
    let d = &found.authorization.value;
    if d.expired(now) || d.status != device_grant::DeviceGrantStatus::Pending {
        return Ok(None);
    }
    let Some((client, _)) = ctx.store.client(&d.client_id, now).await? else {
        return Ok(None);
    };
    if client.created_at.secs() > d.created_at.secs() {
        return Ok(None);
    }
    Ok(Some((found, client)))
}

/// The QR login that stands for a device authorization: its request names the client and
/// scopes, and `{issuer}/device` where a browser login would name a redirect URI; the
/// client's `require_acr` holds its approval as for any login.
///
/// Its address and user agent are the device's, recorded at the device authorization
/// endpoint, whichever way the code reached the phone: what the phone shows, what the risk
/// assessment (`location_mismatch`, a client's `refuse_on`) judges and what the recent logins
/// keep. A browser where someone typed the code is only the messenger (RFC 8628 §5.4: the
/// remote phishing of a device code sends it to a victim who types it at home).
async fn device_login(
    ctx: &Context,
    (found, client): (&FoundDeviceAuthorization, &Client),
    scan: bool,
    now: Timestamp,
) -> Result<(QrLogin, Secret, Option<String>), AppError> {
    let d = &found.authorization.value;
    let request =
        AuthorizationRequest::without_browser(client, verification_uri(ctx), d.scopes.clone());
    let browser_secret = Secret::new(random::token(ctx.random.as_ref(), 32));
    // Never longer than the device code itself lives.
    let ttl = ctx
        .settings
        .lifetimes
        .login
        .min(d.expires_at.secs() - now.secs())
        .max(1);
    let mut l = QrLogin::new(
        ttl,
        request,
        browser_secret.expose(),
        d.device_ip.clone(),
        d.device_user_agent.clone(),
        now,
        ctx.random.as_ref(),
    );
    l.device_grant = Some(found.device_code_hash.clone());
    // Scanned by its user code, the person compares the code with the device's screen: that
    // is the matching, there is no page to show a number.
    let challenge = scan.then(|| l.accept_user_code_scan(now));
    ctx.store.create_qr_login(&l, now).await?;
    Ok((l, browser_secret, challenge))
}

/// What the app shows after scanning `verification_uri_complete`.
#[derive(Debug)]
pub struct ScannedDeviceGrant {
    /// The QR login to decide (scanned already).
    pub login: QrLogin,
    /// The challenge the decision must name.
    pub challenge: String,
    /// The device's client.
    pub client: Client,
    /// As shown on the device: `XXXX-XXXX`, for the person to compare.
    pub user_code: String,
}

/// The app scanned a device's `verification_uri_complete` (or the person typed its code in
/// the app): a QR login for that device authorization, scanned already, for the app to decide
/// with the usual signed approval.
pub async fn scan_user_code(
    ctx: &Context,
    user_code: &str,
    source: &Source,
) -> Result<ScannedDeviceGrant, AppError> {
    let now = ctx.clock.now();
    let Some((found, client)) = lookup(ctx, user_code, source, now).await? else {
        return Err(AppError::UnknownLogin);
    };
    let shown = device_grant::display_user_code(&found.authorization.value.user_code);
    let (login, _, challenge) = device_login(ctx, (&found, &client), true, now).await?;
    Ok(ScannedDeviceGrant {
        login,
        challenge: challenge.unwrap_or_default(),
        client,
        user_code: shown,
    })
}

/// What typing a user code in a browser led to.
#[derive(Debug)]
pub enum Entered {
    /// Show the QR login page for this login (bound to the browser by `browser_secret`).
    ShowQr {
        /// The QR login.
        login: Box<QrLogin>,
        /// The device's client, by name.
        client_name: String,
        /// Whether that client registered itself (RFC 7591), so chose its own name.
        self_registered: bool,
        /// The user code, as shown.
        user_code: String,
        /// The secret of the browser-binding cookie.
        browser_secret: Secret,
    },
    /// Malformed, unknown, expired or already decided.
    Unknown,
}

/// A person typed `user_code` at `{issuer}/device` in a browser (at address `ip`, which the
/// user code limit counts): a QR login for its device authorization, which they approve with
/// the app like any login. The login is the device's, not this browser's (`device_login`).
pub async fn enter_user_code(
    ctx: &Context,
    user_code: &str,
    ip: &str,
) -> Result<Entered, AppError> {
    let now = ctx.clock.now();
    let source = Source::from_addr(ip);
    let Some((found, client)) = lookup(ctx, user_code, &source, now).await? else {
        return Ok(Entered::Unknown);
    };
    let shown = device_grant::display_user_code(&found.authorization.value.user_code);
    let (login, browser_secret, _) = device_login(ctx, (&found, &client), false, now).await?;
    Audit::new(Event::LoginStarted)
        .client(&client.client_id)
        .source(source.as_str())
        .emit();
    Ok(Entered::ShowQr {
        login: Box::new(login),
        self_registered: client.registration.is_some(),
        client_name: client.name,
        user_code: shown,
        browser_secret,
    })
}
