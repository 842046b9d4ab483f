//! Grants and the tokens issued from them (RFC 6749 §4.1.3, §6; OIDC Core §2, §3.1.3.6).
//!
//! A grant is the family of tokens issued from one authorization code (or one
//! client-credentials request). Access tokens and id tokens are JWTs naming the grant (`gid`);
//! refresh tokens are opaque, stored hashed, and rotate with a generation counter: the grant
//! holds the current generation, and presenting an older one revokes the whole family
//! (docs/requirements.md R3), except right after a rotation (a short grace period for a lost response).
//! A grant from a code exchange keeps the hashes of its current token, of the one before, and
//! of a family key every one of its tokens carries ([`new_family`]): an earlier token is
//! recognised by that key, so no token needs a record of its own (issue 27).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;
use crate::domain::identity::Identity;
use crate::domain::issuer::{Issuer, Lifetimes};
use crate::domain::login;
use crate::protocol::claims::{Address, ProfileClaims, RefreshTokenClaims, TokenTyp};
use crate::protocol::responses::{TokenResponse, TokenType};
use crate::protocol::Alg;
use crate::protocol::{ClientId, CodeHash, GrantId, Scopes, SessionId, Subject};
use crate::random::{self, Random};

/// How a grant started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrantKind {
    AuthorizationCode,
    ClientCredentials,
}

/// One grant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    pub id: GrantId,
    pub kind: GrantKind,
    pub client_id: ClientId,
    /// The identity; for client credentials, the client id.
    pub sub: Subject,
    /// The SSO session, for user grants.
    pub sid: Option<SessionId>,
    pub scopes: Scopes,
    pub auth_time: Timestamp,
    pub nonce: Option<String>,
    /// What the `claims` parameter asked for (OIDC Core §5.5), kept for every refresh.
    #[serde(default)]
    pub claims: crate::domain::claims_request::RequestedClaims,
    pub created_at: Timestamp,
    /// `offline_access`: the grant outlives the SSO session.
    pub offline: bool,
    /// The current refresh token generation.
    pub generation: u64,
    pub rotated_at: Timestamp,
    pub revoked: bool,
    /// The algorithm the client's tokens are signed with.
    pub alg: Alg,
    /// The resources granted at authorization (RFC 8707); kept by every refresh.
    #[serde(default)]
    pub resources: Vec<String>,
    /// How the person authenticated (the `amr` and `acr` of every token of the grant).
    #[serde(default)]
    pub method: crate::domain::authn::Method,
}

/// A refresh token as stored (under the hash of the token).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefreshRecord {
    pub grant_id: GrantId,
    pub client_id: ClientId,
    pub generation: u64,
}

impl CodeHash {
    /// The storage key of `code`.
    pub fn of(code: &str) -> Self {
        Self::new(login::hash(code))
    }
}

/// What a refresh token's generation means for its grant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefreshCheck {
    /// The current token: rotate.
    Current,
    /// The token just replaced, within the grace period: rotate again (the response was lost).
    Grace,
    /// An older token: reuse; revoke the family.
    Reused,
}

/// How long the token before the current one is still accepted after a rotation.
pub(crate) const REFRESH_GRACE_SECS: i64 = 10;

/// The generation a store reports for a refresh token that proves it belongs to a family
/// (it carries the family's key, [`family_hash`]) but is neither the current token nor the one
/// before it: an earlier token of the family, presented again. Generations start at 1, so no
/// token is ever issued with it.
pub(crate) const EARLIER_GENERATION: u64 = 0;

impl Grant {
    /// What presenting a refresh token of `presented_generation` means now;
    /// [`EARLIER_GENERATION`] (a token of the family older than the one before the current
    /// one) is always a reuse.
    pub fn check(&self, presented_generation: u64, now: Timestamp) -> RefreshCheck {
        self.check_within(presented_generation, now, REFRESH_GRACE_SECS)
    }

    /// [`Self::check`] with the token before the current one accepted for `grace_secs` after
    /// the rotation (a client's reuse window, [`crate::domain::profile::RefreshRotation`]).
    pub fn check_within(
        &self,
        presented_generation: u64,
        now: Timestamp,
        grace_secs: i64,
    ) -> RefreshCheck {
        if presented_generation == self.generation {
            RefreshCheck::Current
        } else if presented_generation != EARLIER_GENERATION
            && presented_generation + 1 == self.generation
            && now.secs() - self.rotated_at.secs() <= grace_secs
        {
            RefreshCheck::Grace
        } else {
            RefreshCheck::Reused
        }
    }

    /// Seconds the grant's refresh tokens live.
    pub fn refresh_ttl(&self, lifetimes: &Lifetimes) -> i64 {
        if self.offline {
            lifetimes.offline_token
        } else {
            lifetimes.refresh_token
        }
    }
}

/// RFC 7636 §4.6: BASE64URL(SHA256(verifier)) == challenge, in constant time; the verifier
/// must be 43 to 128 unreserved characters.
pub(crate) fn pkce_matches(verifier: &str, challenge: &str) -> bool {
    let well_formed = (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
    well_formed && login::hash_matches(verifier, challenge)
}

/// `at_hash` (OIDC Core §3.1.3.6): the left half of SHA-256 of the access token, base64url.
pub(crate) fn at_hash(access_token: &str) -> String {
    use base64::Engine;
    let d = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, access_token.as_bytes());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&d.as_ref()[..16])
}

/// The tokens of one issuance.
#[derive(Clone)]
pub struct Issued {
    pub access_token: String,
    pub id_token: Option<String>,
    pub refresh_token: Option<String>,
    pub expires_in: i64,
    pub refresh_expires_in: i64,
    pub scope: String,
    pub session_state: Option<String>,
    /// The key the access token is bound to (DPoP, RFC 9449): `token_type` is then `DPoP`.
    pub cnf_jkt: Option<String>,
    /// RFC 8693: what a token exchange issued (`None` for the other grants).
    pub issued_token_type: Option<&'static str>,
}

impl std::fmt::Debug for Issued {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Issued")
            .field("access_token", &"<redacted>")
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "<redacted>"),
            )
            .field("id_token", &self.id_token.as_ref().map(|_| "<redacted>"))
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

impl Issued {
    /// The token response of spec 2.2 (the tokens move into it: nothing is copied).
    pub fn response(self) -> TokenResponse {
        TokenResponse {
            access_token: self.access_token,
            expires_in: self.expires_in,
            refresh_expires_in: self.refresh_expires_in,
            token_type: if self.cnf_jkt.is_some() {
                TokenType::DPoP
            } else {
                TokenType::Bearer
            },
            not_before_policy: 0,
            scope: self.scope,
            refresh_token: self.refresh_token,
            id_token: self.id_token,
            session_state: self.session_state,
            issued_token_type: self.issued_token_type.map(str::to_owned),
        }
    }
}

/// The longest refresh token accepted (a signed JWT; anything longer is not ours).
pub(crate) const MAX_REFRESH_TOKEN_LEN: usize = 4096;

/// A new refresh token for `grant` and its storage key (the SHA-256 of the whole token).
///
/// The token is shaped like a JWT, as Keycloak's are, because Keycloak's JavaScript adapter
/// decodes it (`refreshTokenParsed`). Unlike access and id tokens it is *not* signed with a
/// published key: a resource server that checks only signature, `iss` and `exp` must never
/// take it for an access token. Its HS256 signature is made with a one-time random key that is
/// not kept, so nobody can verify it, scanid included; scanid does not need to: the store
/// decides whether it is live (looked up by hash, rotated by generation, single use). Its
/// `jti` holds 256 random bits.
///
/// `family`: the grant's family key ([`new_family`]) when the grant's record keeps its refresh
/// tokens (a grant from a code exchange since issue 27): the token then carries the grant's id
/// (`gid`) and that key (`fam`), read back by [`refresh_token_locator`]; `None` for a token kept
/// in a record of its own (device grants, grants of an earlier release).
#[cfg(test)]
pub(crate) fn new_refresh_token(
    settings: &impl Issuer,
    rng: &dyn Random,
    grant: &Grant,
    family: Option<&str>,
    now: Timestamp,
) -> (String, String) {
    new_bound_refresh_token(settings, rng, grant, family, None, now)
}

/// [`new_refresh_token`], bound to the DPoP key `jkt` when there is one (`cnf.jkt`, read back
/// by [`refresh_token_jkt`]).
pub(crate) fn new_bound_refresh_token(
    settings: &impl Issuer,
    rng: &dyn Random,
    grant: &Grant,
    family: Option<&str>,
    jkt: Option<&str>,
    now: Timestamp,
) -> (String, String) {
    use base64::Engine;
    let b64 = |b: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b);
    let issuer = settings.issuer();
    let sid = grant.sid.as_ref().map(Cow::from);
    let claims = RefreshTokenClaims {
        exp: now.secs() + grant.refresh_ttl(settings.lifetimes()),
        iat: now.secs(),
        jti: random::token(rng, 32).into(),
        iss: Cow::Borrowed(&issuer),
        aud: Cow::Borrowed(&issuer),
        sub: Cow::from(&grant.sub),
        typ: if grant.offline {
            TokenTyp::Offline
        } else {
            TokenTyp::Refresh
        },
        azp: Cow::from(&grant.client_id),
        sid: sid.clone(),
        session_state: sid,
        scope: grant.scopes.join(" ").into(),
        gid: family.map(|_| Cow::Borrowed(&grant.id)),
        fam: family.map(Cow::Borrowed),
        cnf: jkt.map(|j| crate::protocol::claims::Confirmation { jkt: j.to_owned() }),
    };
    let header = b64(br#"{"alg":"HS256","typ":"JWT"}"#);
    // Strings and integers only: serializing cannot fail.
    let payload = b64(&serde_json::to_vec(&claims).unwrap_or_default());
    let input = format!("{header}.{payload}");
    let mut one_time_key = [0u8; 32];
    rng.fill(&mut one_time_key);
    let key = aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, &one_time_key);
    let token = format!(
        "{input}.{}",
        b64(aws_lc_rs::hmac::sign(&key, input.as_bytes()).as_ref())
    );
    let hash = login::hash(&token);
    (token, hash)
}

/// A new family key: 256 random bits that every refresh token of one grant carries (`fam`),
/// stored only as its hash ([`family_hash`]) in the grant's record. A token that carries it
/// but is neither the grant's current token nor the one before was issued to the family
/// earlier: its reuse revokes the family, with no record kept per token (issue 27).
pub(crate) fn new_family(rng: &dyn Random) -> String {
    random::token(rng, 32)
}

/// What a grant's record keeps of its family key.
pub(crate) fn family_hash(family: &str) -> String {
    login::hash(family)
}

/// Where a refresh token says it is kept: its grant (`gid`) and its family key (`fam`), when it
/// says so. Nothing is trusted from it: the store takes the token only if its hash, or the
/// hash of its family key, is one the grant keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RefreshLocator {
    /// The grant whose record keeps the token.
    pub(crate) gid: Option<GrantId>,
    /// The family key the token carries.
    pub(crate) family: Option<String>,
}

impl RefreshLocator {
    /// The hash of the family key, as the grant's record keeps it.
    pub(crate) fn family_hash(&self) -> Option<String> {
        self.family.as_deref().map(family_hash)
    }
}

/// The [`RefreshLocator`] of a refresh token, read from its payload without a JSON parser
/// (this runs on every refresh): the string values of `"gid":"` and `"fam":"`, which are
/// base64url or `c.` and base64url when written here. A value with an escape or no closing
/// quote, or a token that is not three base64url parts, locates nothing.
pub(crate) fn refresh_token_locator(token: &str) -> RefreshLocator {
    use base64::Engine;
    let mut parts = token.split('.');
    let (Some(_), Some(payload), Some(_), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return RefreshLocator::default();
    };
    let Ok(json) = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload) else {
        return RefreshLocator::default();
    };
    let Ok(json) = std::str::from_utf8(&json) else {
        return RefreshLocator::default();
    };
    let value = |name: &str| -> Option<String> {
        let start = json.find(name)? + name.len();
        let rest = &json[start..];
        let end = rest.find('"')?;
        let v = &rest[..end];
        (!v.is_empty() && !v.contains('\\')).then(|| v.to_owned())
    };
    RefreshLocator {
        gid: value("\"gid\":\"").map(GrantId::new),
        family: value("\"fam\":\""),
    }
}

/// The DPoP key a refresh token is bound to (its `cnf.jkt`), read as
/// [`refresh_token_locator`] reads: to be trusted only once the store found the token by its
/// hash (so its payload is the one written here).
pub(crate) fn refresh_token_jkt(token: &str) -> Option<String> {
    use base64::Engine;
    let payload = token.split('.').nth(1)?;
    let json = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .ok()?;
    let json = std::str::from_utf8(&json).ok()?;
    let name = "\"cnf\":{\"jkt\":\"";
    let rest = &json[json.find(name)? + name.len()..];
    let v = &rest[..rest.find('"')?];
    (!v.is_empty() && !v.contains('\\')).then(|| v.to_owned())
}

/// Claims by scope, for the id token and userinfo: the one rule of what each scope releases
/// (the consent page describes the same, `scanid_http::pages::describe_scope`), and what the
/// `claims` request parameter asked for by name for this place (`requested`, OIDC Core §5.5,
/// [`crate::domain::claims_request`]: consented to with the rest).
///
/// `profile`: `name`, `preferred_username`, `picture` (when there is a photo),
/// `updated_at` and `locale` (the language of the login's pages, when known) of the standard
/// profile claims (OIDC Core §5.4; scanid knows no other), and `groups` (spec 2.4). `groups`: `groups`. `address`: the country.
/// `openid` alone releases none of them.
///
/// The claims borrow from the identity: nothing is copied.
pub(crate) fn profile_claims<'i>(
    i: &'i Identity,
    scopes: &[String],
    requested: &[String],
    locale: Option<&str>,
) -> ProfileClaims<'i> {
    let has = |scope: &str| scopes.iter().any(|s| s == scope);
    let asked = |claim: &str| requested.iter().any(|c| c == claim);
    let profile = |claim: &str| has("profile") || asked(claim);
    ProfileClaims {
        name: profile("name").then_some(Cow::Borrowed(i.display_name.as_str())),
        preferred_username: profile("preferred_username").then_some(Cow::Borrowed(i.name.as_str())),
        picture: i
            .profile_photo
            .as_deref()
            .filter(|_| profile("picture"))
            .map(Cow::Borrowed),
        updated_at: profile("updated_at").then(|| i.updated_at().secs()),
        groups: (releases_groups(scopes) || asked("groups"))
            .then_some(Cow::Borrowed(i.groups.as_slice())),
        address: (has("address") || asked("address")).then_some(Address {
            country: Cow::Borrowed(i.country_code.as_str()),
        }),
        locale: locale
            .filter(|_| has("profile"))
            .map(|l| Cow::Owned(l.to_owned())),
    }
}

/// Whether `scopes` release `groups` (spec 2.3, 2.4): with `profile` or with `groups`.
pub(crate) fn releases_groups(scopes: &[String]) -> bool {
    scopes.iter().any(|s| s == "profile" || s == "groups")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;

    #[test]
    fn pkce_s256_rfc7636_appendix_b() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(pkce_matches(verifier, challenge));
        assert!(!pkce_matches(
            "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXj",
            challenge
        ));
        assert!(!pkce_matches("short", challenge));
        assert!(!pkce_matches(&format!("{verifier}!"), challenge));
    }

    #[test]
    fn at_hash_is_the_left_half() {
        // OIDC Core example shape: 16 bytes -> 22 base64url characters.
        assert_eq!(at_hash("token").len(), 22);
    }

    #[test]
    fn profile_claims_follow_the_scopes() {
        let i = Identity {
            sub: Subject::new("u"),
            service_id: "sv".into(),
            name: "alice".into(),
            display_name: "Alice A".into(),
            profile_photo: Some("https://p/a.png".into()),
            created_at: Timestamp::from_secs(0),
            updated_at: Some(Timestamp::from_secs(7)),
            public_key: String::new(),
            country_code: "SE".into(),
            kind: crate::domain::identity::IdentityType::User,
            groups: vec!["staff".into()],
            disabled: false,
            tokens_not_before: None,
            device_key_retired: false,
            admin_roles: Vec::new(),
        };
        let claims = |scopes: &[&str]| {
            let scopes: Vec<String> = scopes.iter().map(|s| (*s).to_owned()).collect();
            serde_json::to_value(profile_claims(&i, &scopes, &[], None)).unwrap()
        };
        assert_eq!(claims(&["openid"]), serde_json::json!({}));
        assert_eq!(
            claims(&["openid", "groups"]),
            serde_json::json!({ "groups": ["staff"] })
        );
        let full = serde_json::json!({
            "name": "Alice A", "preferred_username": "alice", "picture": "https://p/a.png",
            "updated_at": 7, "groups": ["staff"],
        });
        assert_eq!(claims(&["openid", "profile", "groups"]), full);
        // groups comes with profile too (spec 2.4).
        assert_eq!(claims(&["openid", "profile"]), full);
        assert_eq!(
            claims(&["openid", "address"]),
            serde_json::json!({ "address": { "country": "SE" } })
        );
        // An old record without updated_at: created_at.
        let no_photo = Identity {
            profile_photo: None,
            groups: vec![],
            updated_at: None,
            created_at: Timestamp::from_secs(3),
            ..i.clone()
        };
        let scopes = vec!["profile".to_owned()];
        assert_eq!(
            serde_json::to_value(profile_claims(&no_photo, &scopes, &[], None)).unwrap(),
            serde_json::json!({
                "name": "Alice A", "preferred_username": "alice", "updated_at": 3, "groups": [],
            })
        );
    }

    #[test]
    fn requested_claims_are_released_by_name_with_the_scopes() {
        // OIDC Core 5.5: each claim asked for by name, alone or on top of the scopes.
        let i = Identity {
            sub: Subject::new("u"),
            service_id: "sv".into(),
            name: "alice".into(),
            display_name: "Alice A".into(),
            profile_photo: None,
            created_at: Timestamp::from_secs(0),
            updated_at: Some(Timestamp::from_secs(7)),
            public_key: String::new(),
            country_code: "SE".into(),
            kind: crate::domain::identity::IdentityType::User,
            groups: vec![],
            disabled: false,
            tokens_not_before: None,
            device_key_retired: false,
            admin_roles: Vec::new(),
        };
        let v = |x: &[&str]| x.iter().map(|s| (*s).to_owned()).collect::<Vec<String>>();
        let table: &[(&[&str], &[&str], serde_json::Value)] = &[
            (&["openid"], &[], serde_json::json!({})),
            (
                &["openid"],
                &["name"],
                serde_json::json!({ "name": "Alice A" }),
            ),
            (
                &["openid"],
                &["preferred_username", "updated_at", "groups"],
                serde_json::json!({ "preferred_username": "alice", "updated_at": 7, "groups": [] }),
            ),
            // No photo: picture stays absent even when asked for.
            (&["openid"], &["picture"], serde_json::json!({})),
            (
                &["openid", "address"],
                &["name"],
                serde_json::json!({ "name": "Alice A", "address": { "country": "SE" } }),
            ),
            (
                &["openid", "groups"],
                &["address"],
                serde_json::json!({ "groups": [], "address": { "country": "SE" } }),
            ),
        ];
        for (scopes, requested, expected) in table {
            assert_eq!(
                serde_json::to_value(profile_claims(&i, &v(scopes), &v(requested), None)).unwrap(),
                *expected,
                "{scopes:?} {requested:?}"
            );
        }
    }

    #[test]
    fn refresh_token_claims() {
        use base64::Engine;
        let settings = Settings::from_raw(&crate::config::RawSettings {
            public_url: Some("https://id.example".into()),
            ..Default::default()
        })
        .unwrap();
        let t0 = Timestamp::from_secs(1000);
        let g = Grant {
            id: GrantId::new("g"),
            kind: GrantKind::AuthorizationCode,
            client_id: ClientId::new("shop"),
            sub: Subject::new("u"),
            sid: Some(SessionId::new("s")),
            scopes: Scopes::from_stored(["openid", "offline_access"]),
            auth_time: t0,
            nonce: None,
            claims: Default::default(),
            created_at: t0,
            offline: true,
            generation: 1,
            rotated_at: t0,
            revoked: false,
            alg: Alg::RS256,
            resources: Vec::new(),
            method: Default::default(),
        };
        // The grant's record keeps its scopes as the list of tokens it always had.
        let record = serde_json::to_value(&g).unwrap();
        assert_eq!(
            record["scopes"],
            serde_json::json!(["openid", "offline_access"])
        );
        assert_eq!(serde_json::from_value::<Grant>(record).unwrap(), g);
        let (token, hash) =
            new_refresh_token(&settings, &random::SeededRandom::new(1), &g, None, t0);
        assert_eq!(hash, login::hash(&token));
        let part = |n: usize| -> serde_json::Value {
            let b = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(token.split('.').nth(n).unwrap())
                .unwrap();
            serde_json::from_slice(&b).unwrap()
        };
        assert_eq!(part(0), serde_json::json!({ "alg": "HS256", "typ": "JWT" }));
        let c = part(1);
        assert_eq!(c["jti"].as_str().unwrap().len(), 43);
        assert_eq!(
            c,
            serde_json::json!({
                "exp": 1000 + settings.lifetimes.offline_token, "iat": 1000, "jti": c["jti"],
                "iss": settings.issuer(), "aud": settings.issuer(), "sub": "u", "typ": "Offline",
                "azp": "shop", "sid": "s", "session_state": "s", "scope": "openid offline_access",
            })
        );
    }

    #[test]
    fn a_family_s_refresh_token_locates_its_grant_and_family() {
        use base64::Engine;
        let b64 = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
        let settings = Settings::from_raw(&crate::config::RawSettings {
            public_url: Some("https://id.example".into()),
            ..Default::default()
        })
        .unwrap();
        let t0 = Timestamp::from_secs(1000);
        let rng = random::SeededRandom::new(7);
        let g = Grant {
            id: GrantId::new("c.abc-_DEF"),
            kind: GrantKind::AuthorizationCode,
            client_id: ClientId::new("shop"),
            sub: Subject::new("u"),
            sid: Some(SessionId::new("s")),
            scopes: Scopes::from_stored(["openid"]),
            auth_time: t0,
            nonce: None,
            claims: Default::default(),
            created_at: t0,
            offline: false,
            generation: 1,
            rotated_at: t0,
            revoked: false,
            alg: Alg::ES256,
            resources: Vec::new(),
            method: Default::default(),
        };
        let family = new_family(&rng);
        assert_eq!(family.len(), 43);
        assert_ne!(family, new_family(&rng));
        let (token, hash) = new_refresh_token(&settings, &rng, &g, Some(&family), t0);
        assert_eq!(hash, login::hash(&token));
        let located = refresh_token_locator(&token);
        assert_eq!(
            located,
            RefreshLocator {
                gid: Some(g.id.clone()),
                family: Some(family.clone()),
            }
        );
        assert_eq!(located.family_hash(), Some(login::hash(&family)));
        // As the JSON parser reads them.
        let payload: serde_json::Value = serde_json::from_slice(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(token.split('.').nth(1).unwrap())
                .unwrap(),
        )
        .unwrap();
        assert_eq!(payload["gid"], "c.abc-_DEF");
        assert_eq!(payload["fam"], family.as_str());
        // A token of its own record names neither.
        let (own, _) = new_refresh_token(&settings, &rng, &g, None, t0);
        assert_eq!(refresh_token_jkt(&own), None, "unbound");
        let jkt = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs";
        let (bound, _) = new_bound_refresh_token(&settings, &rng, &g, None, Some(jkt), t0);
        assert_eq!(
            refresh_token_jkt(&bound).as_deref(),
            Some(jkt),
            "DPoP-bound"
        );
        assert_eq!(refresh_token_locator(&own), RefreshLocator::default());
        // What is not a token of ours locates nothing, and never panics.
        for bad in [
            String::new(),
            "a.b".into(),
            "a.b.c.d".into(),
            format!("h.{}.s", b64(r#"{"gid":"g"#)),
            format!("h.{}.s", b64(r#"{"gid":"","fam":"\u0041"}"#)),
            format!("h.{}.s", b64(r#"{"x":"\"gid\":\"g\""}"#)),
            "h.!!!.s".into(),
            format!(
                "h.{}.s",
                base64::engine::general_purpose::URL_SAFE_NO_PAD.encode([0xff, 0xfe])
            ),
        ] {
            assert_eq!(
                refresh_token_locator(&bad),
                RefreshLocator::default(),
                "{bad}"
            );
        }
    }

    #[test]
    fn grant_ids_and_code_hashes_keep_their_stored_format() {
        // Records written before GrantId existed hold plain strings, and still read.
        let r: RefreshRecord = serde_json::from_value(
            serde_json::json!({ "grant_id": "g1", "client_id": "shop", "generation": 2 }),
        )
        .unwrap();
        assert_eq!(r.grant_id, GrantId::new("g1"));
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            serde_json::json!({ "grant_id": "g1", "client_id": "shop", "generation": 2 })
        );
        // A code's key is the hash the code always had.
        let code = "abc";
        assert_eq!(CodeHash::of(code).as_str(), login::hash(code));
    }

    #[test]
    fn generations() {
        let t0 = Timestamp::from_secs(1000);
        let g = Grant {
            id: GrantId::new("g"),
            kind: GrantKind::AuthorizationCode,
            client_id: ClientId::new("c"),
            sub: Subject::new("s"),
            sid: None,
            scopes: Scopes::none(),
            auth_time: t0,
            nonce: None,
            claims: Default::default(),
            created_at: t0,
            offline: false,
            generation: 3,
            rotated_at: t0,
            revoked: false,
            alg: Alg::RS256,
            resources: Vec::new(),
            method: Default::default(),
        };
        assert_eq!(g.check(3, t0), RefreshCheck::Current);
        assert_eq!(
            g.check(2, t0.plus_secs(REFRESH_GRACE_SECS)),
            RefreshCheck::Grace
        );
        assert_eq!(
            g.check(2, t0.plus_secs(REFRESH_GRACE_SECS + 1)),
            RefreshCheck::Reused
        );
        assert_eq!(g.check(1, t0), RefreshCheck::Reused);
        assert_eq!(g.check(4, t0), RefreshCheck::Reused);
        // An earlier token of a family is a reuse, even of a grant at generation 1 and within
        // the grace period.
        assert_eq!(g.check(EARLIER_GENERATION, t0), RefreshCheck::Reused);
        let first = Grant {
            generation: 1,
            ..g.clone()
        };
        assert_eq!(first.check(EARLIER_GENERATION, t0), RefreshCheck::Reused);
        assert_eq!(first.check(1, t0), RefreshCheck::Current);
    }
}
