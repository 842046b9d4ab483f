//! A scan of a QR login (app protocol §3, Q3): the challenge is spent (and remembered, so the
//! approval must come from a device that saw the code), and the phone is told what is being
//! asked, by which client, from where, with which risk flags.

use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::app_jws;
use crate::domain::client::Client;
use crate::domain::device_grant;
use crate::domain::identity;
use crate::domain::login::{QrLogin, ScanError, Scanner};
use crate::domain::ratelimit::Source;
use crate::protocol::app_request::{self, AppRequest, ScanProof};
use crate::service::app_error::{invalid, AppError};
use crate::service::assessment::{assess_in, who_addr, Assessment};
use crate::service::login_history::{cancelled, first_scanner};
use crate::service::signed_request::unverified;
use crate::store::{
    ClientStore, DeviceGrants, Eventual, IdentityStore, Outcome, QrLogins, StoreError,
};

/// A scanned QR login, as the phone shows it before approving (Q3).
#[derive(Debug)]
pub struct Scanned {
    /// The scanned login.
    pub login: QrLogin,
    /// Its client.
    pub client: Client,
    /// For a login that stands for a device authorization (RFC 8628): its user code, for the
    /// person to compare with the device's screen.
    pub user_code: Option<String>,
    /// The scan came with the browser-binding secret of this very login: the login was
    /// started in the browser the app runs in (a login on the phone itself). Decided from
    /// that proof only, never from the User-Agent; without the secret (another device, or a
    /// native app) it is `false`.
    pub started_here: bool,
    /// Where the login came from and where the phone is, with the risk flags.
    pub assessment: Assessment,
}

/// Accepts a scan of QR login `id` with `challenge` (spent, and remembered, so the approval
/// must come from a device that saw the code) and says what is being asked. `proof`, a
/// `scan+jwt` signed by the scanning identity's device key, says which identity scanned; a
/// later scan by anyone else cancels the login.
pub async fn scan(
    ctx: &Context,
    id: &str,
    challenge: &str,
    proof: Option<&str>,
    who: &Source,
) -> Result<Scanned, AppError> {
    let phone_ip = who_addr(who);
    let by = ScanBy {
        proof,
        browser_secret: None,
        who,
        phone_ip: &phone_ip,
    };
    scan_from(ctx, id, challenge, by).await
}

/// What a scan request brought besides the code: the scan proof, the login's browser-binding
/// cookie (when the app runs in the browser that started the login), and where it came from.
#[derive(Debug, Clone, Copy)]
pub struct ScanBy<'a> {
    /// A `scan+jwt` signed by the scanning identity's device key (`Scanid-Proof`).
    pub proof: Option<&'a str>,
    /// The login's browser-binding secret, when the scan request carries it: proof that the
    /// login was started in the browser the app runs in.
    pub browser_secret: Option<&'a str>,
    /// The request's source, as rate limits count it.
    pub who: &'a Source,
    /// The phone's address, for where it is.
    pub phone_ip: &'a str,
}

/// [`scan`] with everything the request brought: the answer also says whether the login was
/// started in this very browser, where it came from, where the phone is, and the risk flags
/// (the identity-based ones once the proof names the identity).
pub async fn scan_from(
    ctx: &Context,
    id: &str,
    challenge: &str,
    by: ScanBy<'_>,
) -> Result<Scanned, AppError> {
    let now = ctx.clock.now();
    if id.len() > 64 || challenge.len() > 64 {
        return Err(AppError::UnknownLogin);
    }
    let scanner = match by.proof {
        None => Scanner::Anonymous,
        Some(p) => scan_proof(ctx, p, id, challenge, by.who, now).await?,
    };
    let ttl = ctx.settings.lifetimes.qr_challenge;
    // What the scan reads besides the login, it reads eventually consistent (half the read
    // units): the decision reads the identity (whose key it verifies) again, consistently,
    // before anything is approved.
    let eventual = Eventual(ctx.store.as_ref());
    // The login's first read is eventually consistent too: the write is conditional on the
    // version read, so a stale read can only lose it, and anything but a won write (no login,
    // a refused scan, a lost write) reads again, consistently. A concurrent scan may win the
    // write: read again and retry (the challenge is then spent).
    for attempt in 0..4 {
        let read = if attempt == 0 {
            eventual.qr_login(id, now).await?
        } else {
            ctx.store.qr_login(id, now).await?
        };
        let Some(s) = read else {
            if attempt == 0 {
                continue;
            }
            return Err(AppError::UnknownLogin);
        };
        let mut next = s.value.clone();
        let accepted = next.accept_scan(challenge, &scanner, ttl, now, ctx.random.as_ref());
        if accepted == Err(ScanError::NotFound) {
            if attempt == 0 {
                continue;
            }
            return Err(AppError::UnknownLogin);
        }
        if ctx.store.update_qr_login(&s, &next, now).await? == Outcome::Lost {
            continue;
        }
        // A poll held on this login answers now: the number, or the cancellation.
        ctx.login_changed(&next.id);
        if let Err(ScanError::Cancelled(reason)) = accepted {
            cancelled(ctx, &next, reason, first_scanner(&next), by.who, now).await;
            return Err(AppError::Cancelled(reason));
        }
        let client = eventual
            .client(&next.request.client_id, now)
            .await?
            .map(|(c, _)| c)
            .ok_or(AppError::UnknownLogin)?;
        let user_code = user_code_of(ctx, &next, now).await?;
        // The identity-based flags need the identity: a scan proof names it; without one
        // they wait for the decision.
        let sub = match &scanner {
            Scanner::Identity(sub) => Some(sub.as_str()),
            Scanner::Anonymous => None,
        };
        let assessment = assess_in(ctx, &eventual, &next, &client, by.phone_ip, sub, now).await?;
        return Ok(Scanned {
            started_here: next.bound_to(by.browser_secret),
            login: next,
            client,
            user_code,
            assessment,
        });
    }
    Err(AppError::Busy)
}

/// The identity a scan proof (`scan+jwt`) names, verified with its device key and bound to
/// this login and challenge. Its `jti` is not spent: the proof names a challenge, and a
/// challenge is accepted once.
async fn scan_proof(
    ctx: &Context,
    proof: &str,
    id: &str,
    challenge: &str,
    who: &Source,
    now: Timestamp,
) -> Result<Scanner, AppError> {
    let jws =
        app_jws::parse(proof, ScanProof::TYP).map_err(|e| invalid(format!("Scanid-Proof: {e}")))?;
    let sub = jws
        .str_claim("sub")
        .ok_or_else(|| invalid("Scanid-Proof: sub: required"))?
        .to_owned();
    // Eventually consistent (half the read units): the proof only says who scanned; the
    // decision verifies its own request against the identity read consistently, and refuses a
    // disabled identity or a replaced key then.
    let ident = match Eventual(ctx.store.as_ref()).identity(&sub, now).await? {
        Some((i, _)) if !i.disabled && sub.len() <= 64 => i,
        _ => {
            unverified(ctx, who, now).await?;
            return Err(AppError::UnknownIdentity);
        }
    };
    let spki = identity::parse_public_key(&ident.public_key).map_err(|_| AppError::StoredKey)?;
    let v = match jws.verify(&spki, &ctx.settings.issuer(), now) {
        Ok(v) => v,
        Err(e) => {
            unverified(ctx, who, now).await?;
            return Err(invalid(format!("Scanid-Proof: {e}")));
        }
    };
    let p: ScanProof =
        app_request::read(&v.claims).map_err(|e| invalid(format!("Scanid-Proof: {e}")))?;
    if p.session != id || p.challenge != challenge {
        return Err(invalid(
            "Scanid-Proof: session and challenge must name this scan",
        ));
    }
    // A retired device key (the identity signs with its passkeys) speaks for nobody: whoever
    // still holds it scans as anyone without a proof does.
    if ident.device_key_retired {
        return Ok(Scanner::Anonymous);
    }
    Ok(Scanner::Identity(ident.sub))
}

/// The user code of the device authorization a QR login stands for (the app shows it, to
/// compare with the device's screen); `None` for a browser login or a gone authorization.
async fn user_code_of(
    ctx: &Context,
    login: &QrLogin,
    now: Timestamp,
) -> Result<Option<String>, StoreError> {
    let Some(hash) = &login.device_grant else {
        return Ok(None);
    };
    Ok(ctx
        .store
        .device_authorization(hash, now)
        .await?
        .map(|d| device_grant::display_user_code(&d.value.user_code)))
}
