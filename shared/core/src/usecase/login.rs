//! The authorization flow's decisions: what the authorization endpoint does with a request,
//! and how a login ends (code issued, or an error sent back to the client).
//!
//! Every step that changes state is one conditional write or one transaction, so nothing is
//! half-written and nothing happens twice (docs/requirements.md F2).

use crate::audit::{Audit, Event};
use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::authorize::{self, AuthorizationRequest, AuthorizeError};
use crate::domain::client::Client;
use crate::domain::consent::{self, ConsentDecision, ConsentInput, ConsentRefusal, Known};
use crate::domain::identity::Identity;
use crate::domain::login::{AuthCode, Authenticated, Consent, LoginStatus, QrLogin, SsoSession};
use crate::domain::ratelimit::{Counted, Limit, Source};
use crate::protocol::{OAuthError, OAuthErrorCode, Params, Secret, SessionId, Subject};
use crate::random;
use crate::service::consents::{self, remembered};
use crate::service::login_history::remember_sso_login;
use crate::service::sessions::{self, sso_session};
use crate::service::{self, limits, request_objects};
use crate::store::flows::CodeIssue;
use crate::store::typed::Versioned;
use crate::store::{ClientStore, Outcome, QrLogins, SsoSessions, StoreError};

use crate::service::auth_response::seal;
pub use crate::service::auth_response::AuthResponse;

/// What the browser carries.
#[derive(Debug, Clone, Default)]
pub struct BrowserCookies {
    /// The SSO session cookie (`sid.secret`).
    pub sso: Option<Secret>,
    /// The language the login page speaks to this browser (BCP 47; the page's choice from
    /// the person's pick, `ui_locales`, `Accept-Language` and the realm's default): kept with
    /// the request for the `locale` claim.
    pub page_locale: Option<String>,
}

/// A QR login's browser-binding secret: issued by the server for that login only, sent to
/// the browser once in a cookie, stored only as a hash (docs/requirements.md Q1).
pub type BrowserSecret = Secret;

/// The authorization endpoint's decision.
#[derive(Debug)]
pub enum AuthorizeDecision {
    /// Show the QR page for this new QR login; bind it to the browser with `browser_secret`.
    ShowQr {
        /// The new QR login.
        login: QrLogin,
        /// The client's registered name, for the page.
        client_name: String,
        /// The client registered itself (RFC 7591): the page says nobody checked its name.
        self_registered: bool,
        /// The secret of the browser-binding cookie.
        browser_secret: BrowserSecret,
    },
    /// An SSO session vouched for the identity; ask for consent on this (approved) QR login.
    AskConsent {
        /// The QR login the SSO session approved.
        login: QrLogin,
        /// The secret of the browser-binding cookie.
        browser_secret: BrowserSecret,
    },
    /// Send the browser back to the client (a code, or an error).
    Respond(AuthResponse),
    /// Bad client_id or redirect_uri, or an error for a client not trusted with automatic
    /// error redirects ([`redirects_errors`]): an error page, never a redirect.
    ErrorPage(std::borrow::Cow<'static, str>),
    /// Too many login requests from this address.
    RateLimited {
        /// Seconds until the next try may succeed.
        retry_after: i64,
    },
}

/// `GET|POST .../auth`: what to do with the request; a response to the client signed when
/// it asked for JARM.
pub async fn authorize(
    ctx: &Context,
    params: &Params,
    cookies: &BrowserCookies,
    ip: &str,
    user_agent: &str,
) -> Result<AuthorizeDecision, StoreError> {
    match decide(ctx, params, cookies, ip, user_agent).await? {
        AuthorizeDecision::Respond(r) => Ok(AuthorizeDecision::Respond(seal(ctx, r).await?)),
        d => Ok(d),
    }
}

async fn decide(
    ctx: &Context,
    params: &Params,
    cookies: &BrowserCookies,
    ip: &str,
    user_agent: &str,
) -> Result<AuthorizeDecision, StoreError> {
    let now = ctx.clock.now();
    let issuer = ctx.settings.issuer();
    let pushed = match service::pushed::params_of(ctx, params, now).await? {
        Ok(p) => p,
        Err(why) => return Ok(AuthorizeDecision::ErrorPage(why.into())),
    };
    let params = pushed.as_ref().unwrap_or(params);
    let client = match live_client(ctx, params, now).await? {
        Ok(c) => c,
        Err(why) => return Ok(AuthorizeDecision::ErrorPage(why.into())),
    };
    let policy = authorize::Policy {
        require_nonce: ctx.settings.require_nonce,
        resources: &ctx.settings.resources,
        issuer: &issuer,
        now,
        signing_alg: ctx.settings.signing_alg,
    };
    let object = by_value(ctx, pushed.is_some(), params, client.as_ref()).await;
    let by_value =
        match object.map_err(|w| authorize::refuse_object(params, client.as_ref(), &policy, w)) {
            Ok(p) => p,
            Err(e) => return Ok(refused(client.as_ref(), e, &issuer)),
        };
    let signed = by_value.is_some();
    let params = by_value.as_ref().unwrap_or(params);
    let mut req = match authorize::validate_with(params, client.as_ref(), &policy) {
        Ok(r) => r,
        Err(e) => return Ok(refused(client.as_ref(), e, &issuer)),
    };
    let Some(client) = client else {
        return Ok(AuthorizeDecision::ErrorPage("unknown client_id".into()));
    };
    req.claims.locale = cookies.page_locale.clone();
    if let Some(why) = unpushed(ctx, &client, pushed.is_some(), signed) {
        let e = OAuthError::new(OAuthErrorCode::InvalidRequest, why);
        return Ok(refuse_at_once(&client, &req, e, &issuer));
    }

    let mut sso = sso_session(ctx, cookies.sso.as_ref().map(Secret::expose), now).await?;
    // OIDC Core §3.1.2.1: re-authenticate once max_age seconds have passed (max_age=0: always).
    let too_old = |s: &Versioned<SsoSession>| {
        req.max_age
            .is_some_and(|m| now.secs() - s.value.auth_time.secs() >= m)
    };
    // A request naming another subject (claims id_token.sub.value) cannot use this session.
    let someone_else = |s: &Versioned<SsoSession>| !req.claims.accepts(&s.value.sub);
    // A session whose authentication is below the acr asked for: the person logs in again
    // (step-up). A voluntary acr with prompt=none still takes the session (the token says
    // what it reached); an essential one never does.
    let too_weak = |s: &Versioned<SsoSession>| {
        let reached = s.value.method.acr();
        !req.claims.acr.allows(reached) || (!req.prompt.none && !req.claims.acr.met_by(reached))
    };
    if req.prompt.login
        || sso
            .as_ref()
            .is_some_and(|s| too_old(s) || someone_else(s) || too_weak(s))
    {
        sso = None;
    }
    if let Some(s) = sso {
        return with_sso_session(ctx, s, req, &client, (ip, user_agent), &issuer, now).await;
    }
    if req.prompt.none {
        return Ok(refuse_at_once(
            &client,
            &req,
            OAuthError::new(
                OAuthErrorCode::LoginRequired,
                "no session: the user must log in",
            ),
            &issuer,
        ));
    }
    if let Some(retry_after) = login_limited(ctx, ip, now).await? {
        return Ok(AuthorizeDecision::RateLimited { retry_after });
    }
    let source = Source::from_addr(ip);
    let (login, browser_secret) = create_login(ctx, req, ip, user_agent, None).await?;
    Audit::new(Event::LoginStarted)
        .client(&client.client_id)
        .source(source.as_str())
        .emit();
    Ok(AuthorizeDecision::ShowQr {
        login,
        self_registered: client.registration.is_some(),
        client_name: client.name,
        browser_secret,
    })
}

/// The client a request names, unless unknown or disabled (a disabled client is refused as
/// an unknown one): a registered one, or one its metadata document describes (why that was
/// refused otherwise).
async fn live_client(
    ctx: &Context,
    params: &Params,
    now: Timestamp,
) -> Result<Result<Option<Client>, String>, StoreError> {
    Ok(match params.one("client_id") {
        Ok(Some(id)) => service::client_documents::client(ctx, id, now)
            .await?
            .map(|c| c.filter(|c| !c.disabled)),
        _ => Ok(None),
    })
}

/// Why a request that was not pushed is refused for a client that must push (RFC 9126 §6).
const PAR_REQUIRED: &str =
    "this client must push its authorization requests first (pushed_authorization_request_endpoint)";

/// Why a request without a signed request object is refused for a client that must sign its
/// requests (RFC 9101 §10.5, `require_signed_request_object`).
const SIGNED_REQUIRED: &str =
    "this client must send a signed request object (request), by value or pushed";

/// Whether the authorization endpoint may send `client`'s errors back to its redirect URI
/// with no one having looked at a page of ours (RFC 9700 §4.11.2: only to a redirect URI the
/// server trusts). The operator's clients: yes, as OAuth and OIDC say (the conformance suites
/// expect it). A client that registered itself (RFC 7591): no. Anyone may register any
/// redirect URI, so an error sent there at once (`response_type=token`, no PKCE,
/// `prompt=none` without a session) would make the issuer an open redirector; such errors are
/// shown on our error page instead. Errors after the person acted on our pages (denied on the
/// phone or the consent page) still go back to the client.
pub fn redirects_errors(client: &Client) -> bool {
    client.registration.is_none()
}

/// Why a request that was not pushed (`pushed` false) is refused: a client that must push
/// did not; one that must sign sent no signed request object (RFC 9101 §10.5).
fn unpushed(ctx: &Context, client: &Client, pushed: bool, signed: bool) -> Option<&'static str> {
    if pushed {
        None
    } else if client.require_par || ctx.settings.require_par {
        Some(PAR_REQUIRED)
    } else if client.require_signed_request_object && !signed {
        Some(SIGNED_REQUIRED)
    } else {
        None
    }
}

/// The request a signed request object by value carries (RFC 9101 §5.1), verified as at PAR:
/// then its parameters only; `None` without one (or pushed). Not from a client that must push.
async fn by_value(
    ctx: &Context,
    pushed: bool,
    params: &Params,
    client: Option<&Client>,
) -> Result<Option<Params>, &'static str> {
    match (client, params.one("request")) {
        (Some(c), Ok(Some(jwt))) if !pushed && request_objects::claims_signature(jwt) => {
            if c.require_par || ctx.settings.require_par {
                return Err(PAR_REQUIRED);
            }
            request_objects::verify(ctx, c, jwt).await.map(Some)
        }
        _ => Ok(None),
    }
}

/// A request refused before anyone acted on it: an error page, or the error at the client's
/// redirect URI when it is trusted with that ([`redirects_errors`]).
fn refused(client: Option<&Client>, e: AuthorizeError, issuer: &str) -> AuthorizeDecision {
    match (e, client) {
        (AuthorizeError::Untrusted(why), _) => AuthorizeDecision::ErrorPage(why.into()),
        (AuthorizeError::Redirect(_, e), Some(c)) if !redirects_errors(c) => page_of(&e),
        (AuthorizeError::Redirect(t, e), _) => {
            AuthorizeDecision::Respond(AuthResponse::error(&t, &e, issuer))
        }
    }
}

/// The error page of an error a client is not trusted to receive by redirect.
fn page_of(e: &OAuthError) -> AuthorizeDecision {
    AuthorizeDecision::ErrorPage(format!("{}: {}", e.error.as_str(), e.error_description).into())
}

/// An error of a request no one has acted on yet: to the client's redirect URI when it is
/// trusted with that ([`redirects_errors`]), else on our error page.
fn refuse_at_once(
    client: &Client,
    req: &AuthorizationRequest,
    e: OAuthError,
    issuer: &str,
) -> AuthorizeDecision {
    if redirects_errors(client) {
        AuthorizeDecision::Respond(AuthResponse::for_request(req, e, issuer))
    } else {
        page_of(&e)
    }
}

/// [`authorize`] with a live SSO session for the request: tokens at once when the identity
/// consented before, else the consent page (or `consent_required` for `prompt=none`).
async fn with_sso_session(
    ctx: &Context,
    s: Versioned<SsoSession>,
    req: AuthorizationRequest,
    client: &Client,
    (ip, user_agent): (&str, &str),
    issuer: &str,
    now: Timestamp,
) -> Result<AuthorizeDecision, StoreError> {
    let who = Authenticated {
        sub: s.value.sub.clone(),
        auth_time: s.value.auth_time,
        method: s.value.method,
    };
    let (sub, sid) = (who.sub.clone(), s.value.sid.clone());
    if remembered(ctx, &sub, &req, client, now).await? {
        let done = match complete(ctx, &req, &who, Some(sid.clone()), None, None).await {
            Ok(done) => done,
            Err(CompleteError::Store(e)) => return Err(e),
            // No QR login to race for: only a fresh random code or sid could collide
            // (a logged 500, as before).
            Err(CompleteError::AlreadyCompleted) => return Err(StoreError::ConditionFailed),
        };
        remember_sso_login(
            ctx,
            &sub,
            (&req.client_id, Some(&client.name)),
            &sid,
            (ip, user_agent),
            now,
        )
        .await;
        return Ok(AuthorizeDecision::Respond(done.response));
    }
    if req.prompt.none {
        return Ok(refuse_at_once(
            client,
            &req,
            OAuthError::new(OAuthErrorCode::ConsentRequired, "consent is required"),
            issuer,
        ));
    }
    if let Some(retry_after) = login_limited(ctx, ip, now).await? {
        return Ok(AuthorizeDecision::RateLimited { retry_after });
    }
    let approved = Some((who, sid));
    let (login, browser_secret) = create_login(ctx, req, ip, user_agent, approved).await?;
    Ok(AuthorizeDecision::AskConsent {
        login,
        browser_secret,
    })
}

/// Every QR login created counts against its source: `Some(retry_after)` when over.
async fn login_limited(ctx: &Context, ip: &str, now: Timestamp) -> Result<Option<i64>, StoreError> {
    let source = Source::from_addr(ip);
    match limits::count(
        ctx.store.as_ref(),
        &ctx.settings.limits,
        Limit::Login,
        source.as_str(),
        now,
    )
    .await?
    {
        Counted::Allowed => Ok(None),
        Counted::Limited { retry_after } => Ok(Some(retry_after)),
    }
}

/// Creates and stores a QR login with a fresh browser-binding secret. `approved` is who the
/// SSO session `sid` vouched for (and how they authenticated), so the QR step is skipped. The record outlives the QR login by [`login::RECORD_GRACE_SECS`] so the page can
/// still learn "expired".
async fn create_login(
    ctx: &Context,
    req: AuthorizationRequest,
    ip: &str,
    user_agent: &str,
    approved: Option<(Authenticated, SessionId)>,
) -> Result<(QrLogin, BrowserSecret), StoreError> {
    let now = ctx.clock.now();
    let browser_secret = Secret::new(random::token(ctx.random.as_ref(), 32));
    let mut login = QrLogin::new(
        ctx.settings.lifetimes.login,
        req,
        browser_secret.expose(),
        ip.to_owned(),
        user_agent.to_owned(),
        now,
        ctx.random.as_ref(),
    );
    if let Some((who, sid)) = approved {
        login.status = LoginStatus::Approved {
            sub: who.sub,
            auth_time: who.auth_time,
            approved_with: who.method,
        };
        login.sso_sid = Some(sid);
    }
    ctx.store.create_qr_login(&login, now).await?;
    Ok((login, browser_secret))
}

/// Why a browser may not go on with a QR login (docs/requirements.md Q1).
#[derive(Debug, thiserror::Error)]
pub enum BoundLoginError {
    /// No such QR login, or it expired (or the id is malformed).
    #[error("unknown or expired login session")]
    NotFound,
    /// The QR login is bound to another browser: this one lacks its binding secret.
    #[error("this login can only be completed in the browser that started it")]
    OtherBrowser,
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A QR login as read, with the version its next write is conditioned on (what
/// [`bound_login()`] gives and [`consent()`] takes).
pub type VersionedLogin = Versioned<QrLogin>;

/// QR login `id`, if the browser holding `browser_secret` (its login cookie) opened it.
pub async fn bound_login(
    ctx: &Context,
    id: &str,
    browser_secret: Option<&BrowserSecret>,
    now: Timestamp,
) -> Result<VersionedLogin, BoundLoginError> {
    if !(1..=64).contains(&id.len()) {
        return Err(BoundLoginError::NotFound);
    }
    let s = ctx
        .store
        .qr_login(id, now)
        .await?
        .ok_or(BoundLoginError::NotFound)?;
    if !s.value.bound_to(browser_secret.map(Secret::expose)) {
        return Err(BoundLoginError::OtherBrowser);
    }
    Ok(s)
}

/// [`bound_login`] for the login page's status poll, read eventually consistent (half a
/// read's price on DynamoDB, and the page polls several times per login): nothing is decided
/// on it (the consent page and its form read the login again, consistently). A stale copy only
/// shows the page the login as it was up to about a second before, and the page asks again; a
/// login such a read does not find yet (a poll just after the page opened) is read again,
/// consistently, before the page is told it is gone.
///
/// The poller shows the browser's cookie, or where the page polls from another origin (one the
/// cookie is not sent to: `SCANID_LOGIN_STATUS_URL`) the page's poll token
/// ([`QrLogin::poll_token`]): either reads the login, neither acts on it.
pub async fn polled_login(
    ctx: &Context,
    id: &str,
    poller: Poller<'_>,
    now: Timestamp,
) -> Result<VersionedLogin, BoundLoginError> {
    if !(1..=64).contains(&id.len()) {
        return Err(BoundLoginError::NotFound);
    }
    let read = match crate::store::Eventual(ctx.store.as_ref())
        .qr_login(id, now)
        .await?
    {
        Some(s) => Some(s),
        None => ctx.store.qr_login(id, now).await?,
    };
    let s = read.ok_or(BoundLoginError::NotFound)?;
    let shown = match poller {
        Poller::Browser(secret) => s.value.bound_to(secret.map(Secret::expose)),
        Poller::Token(token) => s.value.poll_token_matches(token),
    };
    if !shown {
        return Err(BoundLoginError::OtherBrowser);
    }
    Ok(s)
}

/// What a status poll shows to read its login ([`polled_login`]).
#[derive(Debug, Clone, Copy)]
pub enum Poller<'a> {
    /// The browser-binding cookie's secret, if the request carried it.
    Browser(Option<&'a BrowserSecret>),
    /// The page's poll token (`?poll=`).
    Token(&'a str),
}

/// A finished login.
#[derive(Debug)]
pub struct Completed {
    /// Where the browser goes, with the code or the error.
    pub response: AuthResponse,
    /// A new SSO cookie value to set, when this login started an SSO session.
    pub sso_cookie: Option<Secret>,
}

/// Why a login could not be completed.
#[derive(Debug, thiserror::Error)]
pub enum CompleteError {
    /// Someone completed or changed the QR login meanwhile.
    #[error("the QR login was completed already")]
    AlreadyCompleted,
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Issues the code: in one transaction, marks the QR login completed (if any), starts the
/// SSO session (if none), remembers the consent (if given) and stores the code. `who` is the
/// person, when and how they authenticated (what the code's tokens say).
pub async fn complete(
    ctx: &Context,
    req: &AuthorizationRequest,
    who: &Authenticated,
    sid: Option<SessionId>,
    login: Option<&Versioned<QrLogin>>,
    consent: Option<Consent>,
) -> Result<Completed, CompleteError> {
    let now = ctx.clock.now();
    let (sub, auth_time) = (who.sub.as_str(), who.auth_time);
    let lifetimes = ctx.settings.lifetimes;
    let joined = sid.is_some();
    let (sid, new_sso) = match sid {
        Some(sid) => (sid, None),
        None => {
            // "This wasn't me" on the QR login names its session by it (its `sid`).
            let (mut s, cookie) = match login {
                Some(l) => {
                    SsoSession::for_login(sub, &l.value.id, auth_time, now, ctx.random.as_ref())
                }
                None => SsoSession::new(sub, auth_time, now, ctx.random.as_ref()),
            };
            s.method = who.method;
            s.clients.push(req.client_id.clone());
            let exp = s.expires_at(now, lifetimes.sso_idle, lifetimes.sso_max);
            (s.sid.clone(), Some((s, exp, cookie)))
        }
    };
    let consented = consent.is_some();
    let code = random::token(ctx.random.as_ref(), 32);
    let grant = AuthCode {
        client_id: req.client_id.clone(),
        redirect_uri: req.redirect_uri.clone(),
        scopes: req.scopes.clone(),
        nonce: req.nonce.clone(),
        claims: req.claims.clone(),
        code_challenge: req.code_challenge.clone(),
        dpop_jkt: req.dpop_jkt.clone(),
        resources: req.resources.clone(),
        sub: Subject::new(sub),
        sid: sid.clone(),
        auth_time,
        issued_at: now,
        method: who.method,
    };
    let code_hash = crate::protocol::CodeHash::of(&code);
    let issue = CodeIssue {
        login,
        new_sso: new_sso.as_ref().map(|(s, exp, _)| (s, *exp)),
        consent: consent.as_ref().map(|c| (sub, req.client_id.as_str(), c)),
        code_hash: &code_hash,
        code: &grant,
        code_expires_at: now.plus_secs(lifetimes.code).secs(),
    };
    if ctx.store.issue_code(issue, now).await? == Outcome::Lost {
        return Err(CompleteError::AlreadyCompleted);
    }
    let sso_cookie = new_sso.map(|(_, _, cookie)| Secret::new(cookie));
    if joined {
        sessions::note_client(ctx, &sid, &req.client_id, now).await;
    } else if login.is_none() {
        // (A QR login's session was listed by its approval: `login_history::remember_login`.)
        sessions::note_session(ctx, sub, &sid, now).await;
    }
    if consented {
        Audit::new(Event::ConsentGranted)
            .client(&req.client_id)
            .subject(sub)
            .emit();
    }
    Audit::new(Event::CodeIssued)
        .client(&req.client_id)
        .subject(sub)
        .emit();
    let response = AuthResponse {
        redirect_uri: req.redirect_uri.clone().into(),
        client_id: req.client_id.to_string(),
        mode: req.response_mode,
        params: [
            Some(("code", code)),
            req.state.clone().map(|st| ("state", st)),
            Some(("session_state", sid.into())),
            Some(("iss", ctx.settings.issuer())),
        ]
        .into_iter()
        .flatten()
        .collect(),
    };
    Ok(Completed {
        response: seal(ctx, response).await?,
        sso_cookie,
    })
}

/// Ends a login with `access_denied` (a denial on the phone or on the consent page).
pub async fn deny(
    ctx: &Context,
    login: &Versioned<QrLogin>,
) -> Result<AuthResponse, CompleteError> {
    let now = ctx.clock.now();
    if ctx.store.close_qr_login(login, now).await? == Outcome::Lost {
        return Err(CompleteError::AlreadyCompleted);
    }
    // A login completes by the session it starts, which does not write the login (issue 41):
    // a completion that landed before this denial wins it.
    let started = crate::domain::login::sid_of_login(&login.value.id);
    if login.value.sso_sid.is_none() && ctx.store.sso_session(&started, now).await?.is_some() {
        return Err(CompleteError::AlreadyCompleted);
    }
    let r = AuthResponse::for_request(
        &login.value.request,
        OAuthError::new(OAuthErrorCode::AccessDenied, "the user denied the request"),
        &ctx.settings.issuer(),
    );
    Ok(seal(ctx, r).await?)
}

/// What came of the consent step.
#[derive(Debug)]
pub enum ConsentOutcome {
    /// The step cannot go on (an error page; nothing was written).
    Refused(ConsentRefusal),
    /// Show the consent page for this client and identity.
    Ask {
        /// The client asking.
        client: Box<Client>,
        /// The identity asked.
        identity: Box<Identity>,
    },
    /// The login ended with `access_denied`: send this response back to the client.
    Denied(AuthResponse),
    /// The login ended with a code.
    Completed(Completed),
    /// The login stood for a device authorization (RFC 8628), which the phone's decision
    /// settled: say whether the device was connected (no code, no redirect).
    DeviceGrant {
        /// Whether the device authorization was approved.
        approved: bool,
        /// The device's client, by name.
        client_name: String,
    },
}

/// The consent step of the QR login `login` (app protocol §5), for the browser holding
/// `browser_secret`: reads what the decision needs ([`consent::decide`]) and carries it out.
pub async fn consent(
    ctx: &Context,
    login: &Versioned<QrLogin>,
    browser_secret: &str,
    input: ConsentInput<'_>,
) -> Result<ConsentOutcome, CompleteError> {
    let now = ctx.clock.now();
    let l = &login.value;
    if l.device_grant.is_some() {
        return device_grant_done(ctx, login, now).await;
    }
    let approved = l.approved(now);
    let (known, found) = match &approved {
        Some(Authenticated { sub, .. }) => {
            let open = input == ConsentInput::Open;
            consents::consent_known(ctx, sub, &l.request, open, now).await?
        }
        None => (Known::default(), None),
    };
    match consent::decide(l, browser_secret, known, input, now) {
        ConsentDecision::Refuse(why) => Ok(ConsentOutcome::Refused(why)),
        ConsentDecision::Deny { by_user } => {
            let response = deny(ctx, login).await?;
            if by_user {
                let sub = approved.as_ref().map(|a| a.sub.as_str()).unwrap_or("");
                Audit::new(Event::ConsentDenied)
                    .client(&l.request.client_id)
                    .subject(sub)
                    .outcome("denied")
                    .emit();
            }
            Ok(ConsentOutcome::Denied(response))
        }
        ConsentDecision::Ask => match found {
            Some((identity, client)) => Ok(ConsentOutcome::Ask {
                client: Box::new(client),
                identity: Box::new(identity),
            }),
            None => Ok(ConsentOutcome::Refused(ConsentRefusal::UnknownClient)),
        },
        ConsentDecision::Complete { remember } => {
            let Some(who) = approved else {
                return Ok(ConsentOutcome::Refused(ConsentRefusal::NotApproved));
            };
            let sub = who.sub.clone();
            let done = complete(
                ctx,
                &l.request,
                &who,
                l.sso_sid.clone(),
                Some(login),
                remember,
            )
            .await?;
            if let Some(sid) = &l.sso_sid {
                // Completed through an SSO session (no QR step): the identity's activity
                // shows it too.
                remember_sso_login(
                    ctx,
                    &sub,
                    (&l.request.client_id, None),
                    sid,
                    (&l.browser_ip, &l.user_agent),
                    now,
                )
                .await;
            }
            Ok(ConsentOutcome::Completed(done))
        }
    }
}

/// The consent step of a login that stands for a device authorization: the phone's decision
/// (which showed the client, the scopes and the user code) settled it already, so the page
/// only says how it ended, and the login closes.
async fn device_grant_done(
    ctx: &Context,
    login: &Versioned<QrLogin>,
    now: Timestamp,
) -> Result<ConsentOutcome, CompleteError> {
    let l = &login.value;
    let approved = match &l.status {
        LoginStatus::Approved { .. } => true,
        LoginStatus::Denied => false,
        LoginStatus::Completed => {
            return Ok(ConsentOutcome::Refused(ConsentRefusal::AlreadyCompleted))
        }
        LoginStatus::Pending if l.expired(now) => {
            return Ok(ConsentOutcome::Refused(ConsentRefusal::Expired))
        }
        LoginStatus::Pending => return Ok(ConsentOutcome::Refused(ConsentRefusal::NotApproved)),
    };
    if ctx.store.close_qr_login(login, now).await? == Outcome::Lost {
        return Err(CompleteError::AlreadyCompleted);
    }
    let client_name = match ctx.store.client(&l.request.client_id, now).await? {
        Some((c, _)) => c.name,
        None => l.request.client_id.to_string(),
    };
    Ok(ConsentOutcome::DeviceGrant {
        approved,
        client_name,
    })
}
