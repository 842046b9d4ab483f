//! Where a login came from (issue 24): the scan's answer, the flags the decision sees, and
//! the client's policy, over the in-memory store with a fake GeoIP database.

use std::net::IpAddr;
use std::sync::Arc;

use crate::domain::client::Client;
use crate::domain::login::{LoginStatus, QrLogin};
use crate::domain::ratelimit::Source;
use crate::domain::risk::Flag;
use crate::geoip::{Geo, GeoIp, Location, Network};
use crate::store::{ClientStore, IdentityStore};
use crate::testing::{Builder, TestEnv, SHOP, USER_AGENT};
use crate::usecase::app::{self, AppError, Decision};
use crate::usecase::login::{self, AuthorizeDecision, BrowserCookies};

/// 198.51.100.0/24: Stockholm, SE, AS64500; 203.0.113.0/24: Lagos, NG, AS64501;
/// 192.0.2.0/24: Sweden (no city), AS64510; anything else unknown.
struct FakeGeo;

impl GeoIp for FakeGeo {
    fn locate(&self, ip: IpAddr) -> Geo {
        let IpAddr::V4(v4) = ip else {
            return Geo::default();
        };
        let (city, country, code, asn) = match v4.octets() {
            [198, 51, 100, _] => (Some("Stockholm"), "Sweden", "SE", 64500),
            [203, 0, 113, _] => (Some("Lagos"), "Nigeria", "NG", 64501),
            [192, 0, 2, _] => (None, "Sweden", "SE", 64510),
            _ => return Geo::default(),
        };
        Geo {
            location: Some(Location {
                city: city.map(str::to_owned),
                country: Some(country.into()),
                country_code: Some(code.into()),
            }),
            network: Some(Network {
                asn,
                org: Some(format!("AS{asn} Example")),
            }),
        }
    }
}

const VICTIM_PHONE: &str = "198.51.100.7";
const VICTIM_LAPTOP: &str = "198.51.100.20";
const ATTACKER: &str = "203.0.113.66";

async fn env_with(b: Builder) -> TestEnv {
    let mut env = b.build().await;
    env.ctx.geoip = Arc::new(FakeGeo);
    env
}

async fn env() -> TestEnv {
    env_with(Builder::new()).await
}

/// A QR login of the shop, opened by a browser at `ip`.
async fn started_at(env: &TestEnv, ip: &str) -> QrLogin {
    let cookies = BrowserCookies::default();
    match login::authorize(&env.ctx, &env.shop_auth(&[]), &cookies, ip, USER_AGENT)
        .await
        .unwrap()
    {
        AuthorizeDecision::ShowQr { login, .. } => login,
        other => panic!("expected the QR page, got {other:?}"),
    }
}

/// Alice's phone at `phone` scans `login` and signs `decision`.
async fn scan_and_decide(
    env: &TestEnv,
    login: &QrLogin,
    phone: &str,
    decision: &str,
) -> (app::Scanned, Result<Decision, AppError>) {
    let challenge = login.current_challenge(env.now());
    let src = Source::from_addr(phone);
    let by = app::ScanBy {
        proof: None,
        browser_secret: None,
        who: &src,
        phone_ip: phone,
    };
    let scanned = app::scan_from(&env.ctx, &login.id, &challenge, by)
        .await
        .unwrap();
    let number = env.number_shown(&login.id).await;
    let approval = env.phone.approval(
        &env.ctx,
        &env.alice.sub,
        &login.id,
        &challenge,
        decision,
        number,
    );
    let d = app::decide(&env.ctx, &login.id, &approval, &Source::from_addr(phone)).await;
    (scanned, d)
}

async fn set_policy(env: &TestEnv, flags: &[Flag]) {
    let (mut c, v): (Client, u64) = env.store.client(SHOP, env.now()).await.unwrap().unwrap();
    c.refuse_on = flags.to_vec();
    env.store.update_client(&c, v, env.now()).await.unwrap();
}

#[tokio::test]
async fn the_scan_says_where_the_browser_and_the_phone_are() {
    let env = env().await;
    let login = started_at(&env, ATTACKER).await;
    let (scanned, d) = scan_and_decide(&env, &login, VICTIM_PHONE, "deny").await;
    assert_eq!(d.unwrap(), Decision::Deny);
    let a = scanned.assessment;
    let browser = a.browser.location.unwrap();
    assert_eq!(
        (browser.city.as_deref(), browser.country_code.as_deref()),
        (Some("Lagos"), Some("NG"))
    );
    assert_eq!(a.browser.network.unwrap().asn, 64501);
    assert_eq!(a.phone_ip, VICTIM_PHONE);
    assert_eq!(
        a.phone.location.unwrap().country_code.as_deref(),
        Some("SE")
    );
    // Without the identity only the location flag is known, and the default policy warns.
    assert_eq!(a.flags, vec![Flag::LocationMismatch]);
    assert!(a.refused.is_empty());
}

#[tokio::test]
async fn a_flag_the_client_refuses_cancels_the_approval_and_the_activity_shows_it() {
    let env = env().await;
    set_policy(&env, &[Flag::LocationMismatch]).await;
    let login = started_at(&env, ATTACKER).await;
    let (scanned, d) = scan_and_decide(&env, &login, VICTIM_PHONE, "approve").await;
    assert_eq!(scanned.assessment.refused, vec![Flag::LocationMismatch]);
    match d {
        Err(AppError::Refused(flags)) => assert_eq!(flags, vec![Flag::LocationMismatch]),
        other => panic!("expected a refusal, got {other:?}"),
    }
    // The login is cancelled for good: denied, and a second approval is too late.
    assert_eq!(
        env.qr_login(&login.id).await.value.status,
        LoginStatus::Denied
    );
    let challenge = login.current_challenge(env.now());
    let again = env.phone.approval(
        &env.ctx,
        &env.alice.sub,
        &login.id,
        &challenge,
        "approve",
        env.number_shown(&login.id).await,
    );
    let r = app::decide(
        &env.ctx,
        &login.id,
        &again,
        &Source::from_addr(VICTIM_PHONE),
    )
    .await;
    assert!(
        matches!(r, Err(AppError::AlreadyDecided | AppError::UnknownLogin)),
        "{r:?}"
    );
    // The identity's recent logins show it, with where it came from.
    let logins = env
        .store
        .recent_logins(&env.alice.sub, env.now())
        .await
        .unwrap();
    assert_eq!(logins.len(), 1);
    assert_eq!(logins[0].outcome, "refused");
    assert_eq!(logins[0].browser_ip, ATTACKER);
    assert_eq!(
        logins[0].location.as_ref().unwrap().city.as_deref(),
        Some("Lagos")
    );
    assert_eq!(logins[0].network.as_ref().unwrap().asn, 64501);
    assert_eq!(logins[0].flags, vec![Flag::LocationMismatch]);
    // A refused place is not a place the identity approved from.
    let h = env
        .store
        .login_history(&env.alice.sub, env.now())
        .await
        .unwrap();
    assert!(h.history.places.is_empty());

    // A denial is never refused: the person may always say no.
    let login = started_at(&env, ATTACKER).await;
    let (_, d) = scan_and_decide(&env, &login, VICTIM_PHONE, "deny").await;
    assert_eq!(d.unwrap(), Decision::Deny);
}

#[tokio::test]
async fn flags_warn_by_default_and_an_approval_remembers_its_place() {
    let env = env().await;
    // From the same place: nothing flagged; the place is remembered.
    let login = started_at(&env, VICTIM_LAPTOP).await;
    let (scanned, d) = scan_and_decide(&env, &login, VICTIM_PHONE, "approve").await;
    assert!(scanned.assessment.flags.is_empty());
    assert_eq!(d.unwrap(), Decision::Approve);
    let h = env
        .store
        .login_history(&env.alice.sub, env.now())
        .await
        .unwrap();
    assert_eq!(h.history.places, vec!["SE/AS64500"]);
    // From a new country: both flags, warned only (the decision knows the identity).
    env.advance(60);
    let login = started_at(&env, ATTACKER).await;
    let (_, d) = scan_and_decide(&env, &login, VICTIM_PHONE, "approve").await;
    assert_eq!(d.unwrap(), Decision::Approve, "warn is the default");
    let logins = env
        .store
        .recent_logins(&env.alice.sub, env.now())
        .await
        .unwrap();
    assert_eq!(
        logins[0].flags,
        vec![Flag::LocationMismatch, Flag::FirstFromHere]
    );
    assert!(logins[1].flags.is_empty());
    // The same network elsewhere in the country (a phone on mobile data): no mismatch, but
    // a place never approved from.
    env.advance(60);
    set_policy(&env, &[Flag::FirstFromHere]).await;
    let login = started_at(&env, "192.0.2.1").await;
    let (scanned, d) = scan_and_decide(&env, &login, VICTIM_PHONE, "approve").await;
    assert!(
        scanned.assessment.flags.is_empty(),
        "only the decision knows the identity"
    );
    assert!(
        matches!(&d, Err(AppError::Refused(f)) if f == &vec![Flag::FirstFromHere]),
        "{d:?}"
    );
}

#[tokio::test]
async fn many_attempts_within_an_hour_are_high_usage() {
    let env =
        env_with(Builder::new().setting(|r| r.high_usage_logins_per_hour = Some("2".into()))).await;
    set_policy(&env, &[Flag::HighUsage]).await;
    for _ in 0..2 {
        let login = started_at(&env, VICTIM_LAPTOP).await;
        let (_, d) = scan_and_decide(&env, &login, VICTIM_PHONE, "deny").await;
        assert_eq!(d.unwrap(), Decision::Deny);
        env.advance(10);
    }
    // The third attempt within the hour.
    let login = started_at(&env, VICTIM_LAPTOP).await;
    let (_, d) = scan_and_decide(&env, &login, VICTIM_PHONE, "approve").await;
    assert!(
        matches!(&d, Err(AppError::Refused(f)) if f == &vec![Flag::HighUsage]),
        "{d:?}"
    );
    // An hour after the first ones, fine again.
    env.advance(3600);
    let login = started_at(&env, VICTIM_LAPTOP).await;
    let (_, d) = scan_and_decide(&env, &login, VICTIM_PHONE, "approve").await;
    assert_eq!(d.unwrap(), Decision::Approve);
}

#[tokio::test]
async fn without_a_database_the_prefix_is_the_place() {
    let mut env = Builder::new().build().await;
    env.ctx.geoip = Arc::new(crate::geoip::NoGeoIp);
    let login = started_at(&env, VICTIM_LAPTOP).await;
    let (scanned, d) = scan_and_decide(&env, &login, VICTIM_PHONE, "approve").await;
    assert_eq!(d.unwrap(), Decision::Approve);
    assert_eq!(scanned.assessment.browser, Geo::default());
    assert!(scanned.assessment.flags.is_empty());
    let h = env
        .store
        .login_history(&env.alice.sub, env.now())
        .await
        .unwrap();
    assert_eq!(h.history.places, vec!["198.51.100.0/24"]);
}

#[tokio::test]
async fn a_refused_device_grant_is_denied_to_the_device() {
    use crate::domain::client::{register, NewClient};
    use crate::protocol::OAuthErrorCode;
    use crate::testing::params;
    use crate::usecase::device_grant;
    use crate::usecase::token::{self, Presented, TokenError};
    let env = env().await;
    let (tv, _) = register(
        NewClient {
            name: "Living room TV".into(),
            client_id: Some("tv".into()),
            public: true,
            device_code: true,
            refuse_on: vec![Flag::LocationMismatch],
            require_acr: None,
            ..Default::default()
        },
        env.now(),
        env.random.as_ref(),
    )
    .unwrap();
    env.store.create_client(&tv, env.now()).await.unwrap();
    // The device asks from Lagos; the phone is in Stockholm.
    let started = device_grant::start(
        &env.ctx,
        &params(&[("scope", "openid")]),
        &Presented {
            body_id: Some("tv".into()),
            ..Default::default()
        },
        &Source::from_addr(ATTACKER),
        "tv-agent/1.0",
    )
    .await
    .unwrap();
    let s = device_grant::scan_user_code(&env.ctx, &started.user_code, &env.source())
        .await
        .unwrap();
    let a = app::assess(&env.ctx, &s.login, &s.client, VICTIM_PHONE, None, env.now())
        .await
        .unwrap();
    assert_eq!(
        (a.flags.clone(), a.refused.clone()),
        (vec![Flag::LocationMismatch], vec![Flag::LocationMismatch])
    );
    let approval = env.phone.approval(
        &env.ctx,
        &env.alice.sub,
        &s.login.id,
        &s.challenge,
        "approve",
        env.number_shown(&s.login.id).await,
    );
    let d = app::decide(
        &env.ctx,
        &s.login.id,
        &approval,
        &Source::from_addr(VICTIM_PHONE),
    )
    .await;
    assert!(matches!(&d, Err(AppError::Refused(_))), "{d:?}");
    env.advance(5);
    match token::poll_device_code(&env.ctx, &tv, started.device_code.expose()).await {
        Err(TokenError::OAuth(e)) => assert_eq!(e.error, OAuthErrorCode::AccessDenied),
        other => panic!("expected access_denied, got {other:?}"),
    }
}
