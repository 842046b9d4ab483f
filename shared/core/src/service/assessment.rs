//! Where a QR login came from and where the phone is, judged for risk ([`risk`]): the scan
//! shows it, the decision judges it again (reading consistently) and the client's policy
//! refuses by it.

use crate::clock::Timestamp;
use crate::context::Context;
use crate::domain::client::Client;
use crate::domain::login::QrLogin;
use crate::domain::ratelimit::Source;
use crate::domain::risk::{self, Flag};
use crate::geoip::{self, Geo};
use crate::store::{Backend, IdentityStore, LoginHistory, StoreError};

/// Where a login came from, judged (issue 24; [`risk`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assessment {
    /// The browser's location and network (nothing known without a GeoIP database).
    pub browser: Geo,
    /// The browser's place, as the identity's approved places remember it.
    pub place: String,
    /// The address the phone's request came from, and where it is.
    pub phone_ip: String,
    /// Where the phone is.
    pub phone: Geo,
    /// The risk flags raised.
    pub flags: Vec<Flag>,
    /// The flags the client's policy refuses: non-empty, the login cannot be approved.
    pub refused: Vec<Flag>,
    /// The identity's login history as read (when the identity is known): the decision adds
    /// its login to it without reading it again.
    pub history: Option<LoginHistory>,
}

/// Judges `login` of `client`, looked at by a phone at `phone_ip`. `sub`, the identity, when
/// known (the decision always; a scan once it proves who scans): only then are its recent
/// logins read and the identity-based flags computed.
pub async fn assess(
    ctx: &Context,
    login: &QrLogin,
    client: &Client,
    phone_ip: &str,
    sub: Option<&str>,
    now: Timestamp,
) -> Result<Assessment, StoreError> {
    assess_in(ctx, ctx.store.as_ref(), login, client, phone_ip, sub, now).await
}

/// [`assess`] reading the identity's recent logins from `store` (the scan's eventually
/// consistent view: the decision assesses again, reading consistently).
pub(crate) async fn assess_in(
    ctx: &Context,
    store: &dyn Backend,
    login: &QrLogin,
    client: &Client,
    phone_ip: &str,
    sub: Option<&str>,
    now: Timestamp,
) -> Result<Assessment, StoreError> {
    let browser = geoip::locate(ctx.geoip.as_ref(), &login.browser_ip);
    let place = geoip::place(&login.browser_ip, &browser);
    let phone = geoip::locate(ctx.geoip.as_ref(), phone_ip);
    let history = match sub {
        Some(sub) => Some(store.login_history(sub, now).await?),
        None => None,
    };
    let attempts: Vec<Timestamp> = history
        .as_ref()
        .map(|h| h.history.logins.iter().map(|l| l.at).collect())
        .unwrap_or_default();
    let flags = risk::flags(
        &browser,
        &place,
        &phone,
        history.as_ref().map(|h| risk::History {
            approved_places: &h.history.places,
            attempts: &attempts,
        }),
        ctx.settings.high_usage_logins_per_hour,
        now,
    );
    let refused = risk::refusing(&flags, &client.refuse_on);
    Ok(Assessment {
        browser,
        place,
        phone_ip: phone_ip.to_owned(),
        phone,
        flags,
        refused,
        history,
    })
}

/// The address a phone's request came from, as far as its rate-limit source tells (an IPv6
/// source is its /64, located by its first address: GeoIP data is never finer).
pub(crate) fn who_addr(who: &Source) -> String {
    who.as_str().trim_end_matches("/64").to_owned()
}
