//! What a login leaves behind: the SSO session, a remembered consent, and the code.

use super::*;

/// An SSO session: who logged in in this browser, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SsoSession {
    /// Public id: `sid` in tokens, `session_state` in responses.
    pub sid: SessionId,
    /// Who logged in.
    pub sub: Subject,
    /// When they authenticated (`auth_time`).
    pub auth_time: Timestamp,
    /// When the session began.
    pub created_at: Timestamp,
    /// SHA-256 of the cookie's secret part.
    pub secret_hash: String,
    /// The clients that got a code in this session (OIDC Back-Channel Logout: who to tell
    /// when it ends).
    #[serde(default)]
    pub clients: Vec<ClientId>,
    /// The QR login that started this session, so "this wasn't me" on that login finds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login: Option<String>,
    /// How the person authenticated when the session began (every SSO login says so).
    #[serde(default)]
    pub method: Method,
}

impl SsoSession {
    /// A new session and the cookie value (`sid.secret`) that proves it.
    pub fn new(
        sub: &str,
        auth_time: Timestamp,
        now: Timestamp,
        rng: &dyn Random,
    ) -> (Self, String) {
        let sid = random::uuid_v4(rng).to_string();
        let secret = random::token(rng, 32);
        let cookie = format!("{sid}.{secret}");
        (
            Self {
                sid: SessionId::new(sid),
                sub: Subject::new(sub),
                auth_time,
                created_at: now,
                secret_hash: hash(&secret),
                clients: Vec::new(),
                login: None,
                method: Method::DeviceKey,
            },
            cookie,
        )
    }

    /// A new session started by `login` (a QR login's id, or a device authorization's
    /// `domain::device_grant::login_link`): its `sid` is [`sid_of_login`], so "this
    /// wasn't me" on that login names the session and its grants whatever became of the
    /// session (idled out, logged out: issue 38), with nothing more to store.
    pub fn for_login(
        sub: &str,
        login: &str,
        auth_time: Timestamp,
        now: Timestamp,
        rng: &dyn Random,
    ) -> (Self, String) {
        let (mut s, cookie) = Self::new(sub, auth_time, now, rng);
        let secret = cookie
            .split_once('.')
            .map(|(_, secret)| secret)
            .unwrap_or_default();
        s.sid = sid_of_login(login);
        s.login = Some(login.to_owned());
        let cookie = format!("{}.{secret}", s.sid);
        (s, cookie)
    }

    /// Splits a cookie value into `(sid, secret)`.
    pub fn parse_cookie(value: &str) -> Option<(&str, &str)> {
        let (sid, secret) = value.split_once('.')?;
        (sid.len() == 36 && !secret.is_empty() && secret.len() <= 64).then_some((sid, secret))
    }

    /// Expiry: idle timeout from `now`, capped by the absolute maximum.
    pub fn expires_at(&self, now: Timestamp, idle: i64, max: i64) -> i64 {
        now.plus_secs(idle)
            .secs()
            .min(self.created_at.plus_secs(max).secs())
    }
}

/// The `sid` of the session login `login` started ([`SsoSession::for_login`]): UUID-shaped
/// like every `sid`, from SHA-256 of the login (one login starts at most one session: a QR
/// login completes once, a device code is redeemed once). A `sid` is no secret (tokens and
/// `session_state` carry it; the cookie's secret part proves a session).
pub fn sid_of_login(login: &str) -> SessionId {
    let d = aws_lc_rs::digest::digest(
        &aws_lc_rs::digest::SHA256,
        format!("scanid sid\0{login}").as_bytes(),
    );
    let mut b = [0u8; 16];
    b.copy_from_slice(&d.as_ref()[..16]);
    SessionId::new(uuid::Builder::from_random_bytes(b).into_uuid().to_string())
}

/// A remembered consent: the scopes an identity granted a client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Consent {
    /// The scopes granted.
    pub scopes: Scopes,
    /// When they were granted: a consent older than its client's registration does not count.
    pub granted_at: Timestamp,
    /// The claims asked for by name (OIDC Core §5.5) beyond the scopes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<String>,
    /// The resource servers (RFC 8707) the person let the client's access tokens be for; a
    /// consent from before resources were remembered covers none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<String>,
    /// Given to an agent on a consent page that said it may act for the person: the
    /// delegation token exchange needs (RFC 8693, [`crate::domain::delegation`]). A consent
    /// given before the client became an agent is no delegation.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub delegation: bool,
}

impl Consent {
    /// Whether this consent covers `scopes` and the `claims` asked for by name (each granted
    /// by name before, or released by a granted scope).
    pub fn covers(&self, scopes: &[String], claims: &[String]) -> bool {
        scopes.iter().all(|s| self.scopes.contains(s))
            && claims.iter().all(|c| {
                self.claims.contains(c)
                    || crate::domain::claims_request::scopes_release(&self.scopes, c)
            })
    }

    /// Whether this consent covers every resource server in `resources` (each one shown to
    /// the person and allowed before): a new resource asks again.
    pub fn covers_resources(&self, resources: &[String]) -> bool {
        resources.iter().all(|r| self.resources.contains(r))
    }

    /// The record id of identity `sub`'s consent for client `client_id`.
    pub fn key(sub: &str, client_id: &str) -> String {
        format!("{sub}:{client_id}")
    }
}

/// An authorization code's grant, stored under the code's hash; single use, short-lived.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthCode {
    /// The client the code was issued to.
    pub client_id: ClientId,
    /// The redirect URI of the authorization request, which the token request must repeat.
    pub redirect_uri: RedirectUri,
    /// The scopes granted.
    pub scopes: Scopes,
    /// The request's `nonce`, for the ID token.
    #[serde(default)]
    pub nonce: Option<String>,
    /// What the `claims` parameter asked for (OIDC Core §5.5).
    #[serde(default)]
    pub claims: crate::domain::claims_request::RequestedClaims,
    /// The PKCE S256 challenge the verifier must match.
    pub code_challenge: Option<String>,
    /// The DPoP key the code is bound to (`dpop_jkt`, RFC 9449 §10): the token request's
    /// proof must be by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_jkt: Option<String>,
    /// The resources granted (RFC 8707); the token request may narrow to one.
    #[serde(default)]
    pub resources: Vec<String>,
    /// Who logged in.
    pub sub: Subject,
    /// The SSO session the login made or used.
    pub sid: SessionId,
    /// When they authenticated (`auth_time`).
    pub auth_time: Timestamp,
    /// When the code was issued.
    pub issued_at: Timestamp,
    /// How the person authenticated (the `amr` and `acr` of the tokens).
    #[serde(default)]
    pub method: Method,
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::random::SeededRandom;

    #[test]
    fn a_consent_covers_its_scopes_and_the_claims_it_was_given_or_its_scopes_release() {
        let v = |x: &[&str]| x.iter().map(|s| (*s).to_owned()).collect::<Vec<String>>();
        let c = Consent {
            scopes: Scopes::from_stored(["openid", "groups"]),
            granted_at: Timestamp::from_secs(0),
            claims: v(&["address"]),
            resources: Vec::new(),
            delegation: false,
        };
        let table: &[(&[&str], &[&str], bool)] = &[
            (&["openid"], &[], true),
            (&["openid", "groups"], &["address"], true),
            // groups is released by the groups scope already.
            (&["openid"], &["groups", "address"], true),
            (&["openid", "profile"], &[], false),
            (&["openid"], &["name"], false),
            (&["openid"], &["address", "picture"], false),
        ];
        for (scopes, claims, covered) in table {
            assert_eq!(
                c.covers(&v(scopes), &v(claims)),
                *covered,
                "{scopes:?} {claims:?}"
            );
        }
        // An old record without claims reads as none given by name.
        let old: Consent =
            serde_json::from_value(serde_json::json!({ "scopes": ["openid"], "granted_at": 0 }))
                .unwrap();
        assert!(old.claims.is_empty());
        assert!(!old.covers(&v(&["openid"]), &v(&["name"])));
    }

    #[test]
    fn sso_cookie_round_trip_and_expiry() {
        let rng = SeededRandom::new(1);
        let t0 = Timestamp::from_secs(1000);
        let (s, cookie) = SsoSession::new("alice", t0, t0, &rng);
        let (sid, secret) = SsoSession::parse_cookie(&cookie).unwrap();
        assert_eq!(sid, s.sid);
        assert!(hash_matches(secret, &s.secret_hash));
        assert!(SsoSession::parse_cookie("garbage").is_none());
        assert_eq!(s.expires_at(t0, 1800, 36000), 2800);
        assert_eq!(
            s.expires_at(t0.plus_secs(35000), 1800, 36000),
            37000,
            "capped by the maximum"
        );
    }
}
