//! Identities: the person behind a scanid app, and the profile the directory publishes
//! (spec 2.5; app protocol §1).
//!
//! `sub` = `service_uuid`, a random UUID v4. `service_id` is a second, shorter public
//! identifier, unique and never reassigned: the store enforces both uniqueness of `name` and of
//! `service_id` with marker records written in the same transaction as the identity.

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;
use crate::protocol::app_request::ProfileUpdate;
use crate::protocol::Subject;
use crate::random::{self, Random};

/// The identity's kind (spec 2.5 shows `USER`; the enum has room for more).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum IdentityType {
    /// A person.
    User,
}

/// One identity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// `sub` and `service_uuid`.
    pub sub: Subject,
    /// The public 12-character handle (lower-case Crockford base32), for the directory.
    pub service_id: String,
    /// The unique handle: `username` and `preferred_username`.
    pub name: String,
    /// The name shown to relying parties (`name`).
    pub display_name: String,
    /// The photo's URL (`picture`): hosted here, or on an allowed host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_photo: Option<String>,
    /// When the identity signed up.
    pub created_at: Timestamp,
    /// When the identity last changed (OIDC Core `updated_at`); absent in records written
    /// before it existed: then [`Identity::updated_at`] says `created_at`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<Timestamp>,
    /// The device key: standard base64 of the P-256 DER SubjectPublicKeyInfo.
    pub public_key: String,
    /// ISO 3166-1 alpha-2 (the `address` claim's `country`).
    pub country_code: String,
    /// Its kind (`USER`).
    #[serde(rename = "type")]
    pub kind: IdentityType,
    /// The groups it belongs to (the `groups` claim).
    #[serde(default)]
    pub groups: Vec<String>,
    /// Disabled by an operator (`scanid identity disable`): refused wherever the identity would act or be shown.
    #[serde(default)]
    pub disabled: bool,
    /// Every grant (refresh token family, and so its access tokens) authenticated or created
    /// before this instant is dead: set when the device key is replaced with "end every
    /// session", or by an operator's key replacement (issue 24).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_not_before: Option<Timestamp>,
    /// The device key (`public_key`) no longer signs requests: the identity signs with its
    /// passkeys only (a passkey sign-up, or an upgrade that retired the old key; issue 26).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub device_key_retired: bool,
    /// The admin roles the operator gave the person (`scanid identity add-role`): with one,
    /// the person may use the admin console (issue 37). Never set by the person nor by the
    /// admin API.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub admin_roles: Vec<crate::domain::admin::AdminRole>,
}

/// The public profile (spec 2.5) with exactly the spec's field names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublicProfile {
    /// The identity's `sub`.
    pub service_uuid: String,
    /// The unique handle.
    pub name: String,
    /// The name shown to others.
    pub display_name: String,
    /// The photo's URL.
    pub profile_photo: Option<String>,
    /// ISO 8601 with milliseconds and `Z`.
    pub created_at: String,
    /// The device key, as stored.
    pub public_key: String,
    /// ISO 3166-1 alpha-2.
    pub country_code: String,
    /// Its kind.
    #[serde(rename = "type")]
    pub kind: IdentityType,
}

impl Identity {
    /// When the identity last changed: its `updated_at`, else its `created_at`.
    pub fn updated_at(&self) -> Timestamp {
        self.updated_at.unwrap_or(self.created_at)
    }

    /// What the directory shows of this identity.
    pub fn public_profile(&self) -> PublicProfile {
        PublicProfile {
            service_uuid: self.sub.clone().into(),
            name: self.name.clone(),
            display_name: self.display_name.clone(),
            profile_photo: self.profile_photo.clone(),
            created_at: self.created_at.to_rfc3339_millis(),
            public_key: self.public_key.clone(),
            country_code: self.country_code.clone(),
            kind: self.kind,
        }
    }
}

/// One login an identity decided, as its app lists it ("recent logins").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoginActivity {
    /// When the login was decided.
    pub at: Timestamp,
    /// The client logged in to.
    pub client_id: String,
    /// Its name, as it was then.
    pub client_name: String,
    /// `approved` or `denied`; `wrong_number` or `second_device` for a login cancelled for
    /// good (the approval named another number than the page showed; another phone scanned).
    pub outcome: String,
    /// Where the login was started: the browser's address and user agent.
    pub browser_ip: String,
    /// The browser's user agent.
    pub user_agent: String,
    /// The browser's location and network, when a GeoIP database knew them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<crate::geoip::Location>,
    /// The browser's network (ASN and organization).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<crate::geoip::Network>,
    /// The browser's place ([`crate::geoip::place`]): an approved login's joins the
    /// identity's [`Activity::places`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<String>,
    /// The risk flags the decision saw.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<crate::domain::risk::Flag>,
    /// The entry's id, for "this wasn't me" (empty in entries written before it existed).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
    /// `qr` (decided on the phone) or `sso` (completed through an SSO session, no QR step).
    #[serde(default = "qr_method")]
    pub method: String,
    /// The QR login that was decided (its SSO session names it), when it was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login_id: Option<String>,
    /// The SSO session the login used, when known at the time (SSO logins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sid: Option<String>,
    /// When the person said "this wasn't me".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_at: Option<Timestamp>,
}

/// An identity's login history, one record: its recent logins and the places it approved
/// logins from (for `first_from_here`), both bounded.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Activity {
    /// Most recent first, at most the history's bound.
    pub logins: Vec<LoginActivity>,
    /// Most recent first, at most [`APPROVED_PLACES`], without repeats.
    #[serde(default)]
    pub places: Vec<String>,
    /// The SSO sessions the identity's approved QR logins start, oldest first, while they may
    /// be live: so ending every session of the identity finds them. Listed by the approval's
    /// write, which the login makes anyway, in place of a write of a list of its own when the
    /// session starts (issue 41: one read and one write less per login).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sessions: Vec<ListedSession>,
}

/// An SSO session in an identity's [`Activity::sessions`]: its `sid`, and until when (Unix s)
/// it may be live (its start plus the SSO sessions' maximum lifetime).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListedSession {
    /// The session's id.
    pub sid: String,
    /// When it is over whatever happens (Unix s).
    pub until: i64,
}

/// At most this many sessions are listed per identity (the newest), here and in the
/// identity's list of sessions (`store::flows::SESSIONS_PER_IDENTITY`).
pub const LISTED_SESSIONS: usize = 32;

/// The stored record: an [`Activity`], or the list of logins alone as written before the
/// places were kept. Told apart by the record's first token (an object or a list) and parsed
/// once: an untagged enum would buffer the whole record in serde's generic form first, and the
/// record is read at every scan and approval (some 3% of a whole QR login's CPU went there).
pub enum StoredActivity {
    /// The record as written now.
    Activity(Activity),
    /// The record as written before the places were kept.
    Logins(Vec<LoginActivity>),
}

impl<'de> Deserialize<'de> for StoredActivity {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
        struct Shape;
        impl<'de> serde::de::Visitor<'de> for Shape {
            type Value = StoredActivity;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a login history: an object, or a list of logins")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<Self::Value, A::Error> {
                Activity::deserialize(MapAccessDeserializer::new(map)).map(StoredActivity::Activity)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                seq: A,
            ) -> Result<Self::Value, A::Error> {
                Vec::<LoginActivity>::deserialize(SeqAccessDeserializer::new(seq))
                    .map(StoredActivity::Logins)
            }
        }
        d.deserialize_any(Shape)
    }
}

impl From<StoredActivity> for Activity {
    fn from(s: StoredActivity) -> Self {
        match s {
            StoredActivity::Activity(a) => a,
            StoredActivity::Logins(logins) => Activity {
                logins,
                places: Vec::new(),
                sessions: Vec::new(),
            },
        }
    }
}

/// How many places an identity's approved logins are remembered from.
pub const APPROVED_PLACES: usize = 16;

impl Activity {
    /// The history with `entry` added: its place, when approved, becomes the most recent;
    /// `session`, the SSO session the login starts, is listed (sessions over by `now` leave
    /// the list).
    pub fn with(
        &self,
        entry: LoginActivity,
        session: Option<&ListedSession>,
        now: Timestamp,
    ) -> Activity {
        Activity {
            places: with_place(&self.places, &entry),
            logins: with_login(&self.logins, entry),
            sessions: with_session(&self.sessions, session, now),
        }
    }

    /// The listed sessions that may still be live at `now`.
    pub fn live_sessions(&self, now: Timestamp) -> impl Iterator<Item = &str> {
        live_sessions(&self.sessions, now)
    }
}

/// Those of `sessions` that may still be live at `now`.
pub(crate) fn live_sessions(
    sessions: &[ListedSession],
    now: Timestamp,
) -> impl Iterator<Item = &str> {
    sessions
        .iter()
        .filter(move |s| s.until > now.secs())
        .map(|s| s.sid.as_str())
}

/// The approved places after `entry`: its place, when approved, becomes the most recent.
pub(crate) fn with_place(places: &[String], entry: &LoginActivity) -> Vec<String> {
    let mut places = places.to_vec();
    if entry.outcome == "approved" {
        if let Some(p) = &entry.place {
            places.retain(|q| q != p);
            places.insert(0, p.clone());
            places.truncate(APPROVED_PLACES);
        }
    }
    places
}

/// The list of sessions with `session` added (last; once), without those over by `now`, at
/// most [`LISTED_SESSIONS`] (the newest).
pub(crate) fn with_session(
    list: &[ListedSession],
    session: Option<&ListedSession>,
    now: Timestamp,
) -> Vec<ListedSession> {
    let mut next: Vec<ListedSession> = list
        .iter()
        .filter(|s| s.until > now.secs() && session.is_none_or(|n| n.sid != s.sid))
        .cloned()
        .collect();
    next.extend(session.cloned());
    let skip = next.len().saturating_sub(LISTED_SESSIONS);
    next.drain(..skip);
    next
}

fn qr_method() -> String {
    "qr".to_owned()
}

/// The list with entry `id` marked reported at `now`: `None` when no entry has that id;
/// an entry reported already keeps its first time (reporting is idempotent).
pub fn with_reported(
    list: &[LoginActivity],
    id: &str,
    now: Timestamp,
) -> Option<(Vec<LoginActivity>, LoginActivity)> {
    if id.is_empty() {
        return None;
    }
    let i = list.iter().position(|l| l.id == id)?;
    let mut next = list.to_vec();
    next[i].reported_at.get_or_insert(now);
    let entry = next[i].clone();
    Some((next, entry))
}

/// How many recent logins an identity keeps.
pub const RECENT_LOGINS: usize = 20;
/// How long the list lives after its last login.
pub const RECENT_LOGINS_TTL_SECS: i64 = 90 * 24 * 3600;

/// The list with `entry` added: newest first, at most [`RECENT_LOGINS`]. An SSO login that
/// repeats the newest entry (the same session and client, not reported: a single-page app's
/// silent renewals) replaces it, so renewals do not push the QR logins out of the list.
pub fn with_login(list: &[LoginActivity], entry: LoginActivity) -> Vec<LoginActivity> {
    let repeat = list.first().is_some_and(|l| repeats(l, &entry));
    let mut next = Vec::with_capacity(RECENT_LOGINS);
    next.push(entry);
    next.extend(
        list.iter()
            .skip(usize::from(repeat))
            .take(RECENT_LOGINS - 1)
            .cloned(),
    );
    next
}

/// Whether `entry` repeats `newest`, the list's newest entry, and so replaces it: an SSO
/// login of the same session and client, `newest` not reported ([`with_login`]).
pub(crate) fn repeats(newest: &LoginActivity, entry: &LoginActivity) -> bool {
    entry.method == "sso"
        && newest.method == "sso"
        && newest.sid == entry.sid
        && newest.client_id == entry.client_id
        && newest.reported_at.is_none()
}

/// A validation failure: which field and why (the text goes to the client).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct FieldError {
    /// The field's name.
    pub field: &'static str,
    /// What is wrong with it.
    pub reason: &'static str,
}

fn field(field: &'static str, reason: &'static str) -> FieldError {
    FieldError { field, reason }
}

/// `name`: 3 to 32 of `a-z 0-9 . _ -`.
pub fn validate_name(name: &str) -> Result<(), FieldError> {
    let ok = (3..=32).contains(&name.len())
        && name.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-')
        });
    if ok {
        Ok(())
    } else {
        Err(field("name", "3 to 32 of a-z 0-9 . _ -"))
    }
}

/// `display_name`: 1 to 64 printable characters; no zero-width or bidi control characters
/// (`crate::domain::text`), since the name is shown on consent pages and in the directory.
pub fn validate_display_name(s: &str) -> Result<(), FieldError> {
    let n = s.chars().count();
    if (1..=64).contains(&n) && crate::domain::text::is_visible_text(s) && !s.trim().is_empty() {
        Ok(())
    } else {
        Err(field(
            "display_name",
            "1 to 64 printable characters (no control, zero-width or bidi characters)",
        ))
    }
}

/// `country_code`: an assigned ISO 3166-1 alpha-2 code, upper case.
pub fn validate_country_code(s: &str) -> Result<(), FieldError> {
    if s.len() == 2 && ISO_3166_ALPHA2.split(' ').any(|c| c == s) {
        Ok(())
    } else {
        Err(field(
            "country_code",
            "an ISO 3166-1 alpha-2 code in upper case",
        ))
    }
}

/// `profile_photo`: an `https` URL with a host on the operator's allow-list (`hosts`,
/// `SCANID_PHOTO_HOSTS`), no credentials, at most 2048 characters. The avatar endpoint
/// redirects to it, so anything else would make scanid's own domain an open redirector
/// (docs/requirements.md DIR1). Checked when written and again when redirecting (the list may shrink).
pub fn validate_photo_url(s: &str, hosts: &[String]) -> Result<(), FieldError> {
    let bad = || {
        field(
            "profile_photo",
            "an https URL on an allowed photo host (SCANID_PHOTO_HOSTS), without credentials, at most 2048 characters",
        )
    };
    // Checked on the raw text too: the parser would read `https:///x` as host `x`.
    let raw_ok = s
        .strip_prefix("https://")
        .is_some_and(|rest| !rest.starts_with('/') && !rest.starts_with('\\'));
    if !raw_ok || s.len() > 2048 || s.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(bad());
    }
    let url = url::Url::parse(s).map_err(|_| bad())?;
    if url.scheme() != "https"
        || url.host_str().is_none_or(str::is_empty)
        || !url.username().is_empty()
        || url.password().is_some()
        || url.port().is_some()
    {
        return Err(bad());
    }
    match url.host() {
        Some(url::Host::Domain(h)) if hosts.iter().any(|a| a == h) => Ok(()),
        _ => Err(bad()),
    }
}

/// `public_key`: standard base64 of a P-256 SubjectPublicKeyInfo (91 bytes of DER); returns the
/// DER.
pub fn parse_public_key(s: &str) -> Result<Vec<u8>, FieldError> {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;
    let bad = || {
        field(
            "public_key",
            "standard base64 of a P-256 DER SubjectPublicKeyInfo",
        )
    };
    let der = STANDARD.decode(s).map_err(|_| bad())?;
    // SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING (04 || x || y) }
    const PREFIX: [u8; 27] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08,
        0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04,
    ];
    if der.len() != 91 || der[..27] != PREFIX {
        return Err(bad());
    }
    // The point must be on the curve: let aws-lc parse it.
    aws_lc_rs::signature::ParsedPublicKey::new(
        &aws_lc_rs::signature::ECDSA_P256_SHA256_FIXED,
        &der,
    )
    .map_err(|_| bad())?;
    Ok(der)
}

/// A new `service_id`: 12 characters of lower-case Crockford base32 (60 random bits).
pub fn new_service_id(rng: &dyn Random) -> String {
    const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";
    let mut b = [0u8; 12];
    rng.fill(&mut b);
    b.iter()
        .map(|x| ALPHABET[usize::from(x & 31)] as char)
        .collect()
}

/// A `service_id` as it may appear in a request (for a clean 404 before any store call).
pub fn is_service_id(s: &str) -> bool {
    s.len() == 12
        && s.bytes()
            .all(|b| b"0123456789abcdefghjkmnpqrstvwxyz".contains(&b))
}

pub use crate::protocol::app_request::Registration;

/// Validates a registration and builds the identity.
pub fn new_identity(
    reg: &Registration,
    photo_hosts: &[String],
    now: Timestamp,
    rng: &dyn Random,
) -> Result<Identity, FieldError> {
    let name = reg.name.as_deref().ok_or(field("name", "required"))?;
    validate_name(name)?;
    let display_name = reg
        .display_name
        .as_deref()
        .ok_or(field("display_name", "required"))?;
    validate_display_name(display_name)?;
    let country = reg
        .country_code
        .as_deref()
        .ok_or(field("country_code", "required"))?;
    validate_country_code(country)?;
    if let Some(p) = &reg.profile_photo {
        validate_photo_url(p, photo_hosts)?;
    }
    let key = reg
        .public_key
        .as_deref()
        .ok_or(field("public_key", "required"))?;
    parse_public_key(key)?;
    Ok(Identity {
        sub: Subject::new(random::uuid_v4(rng).to_string()),
        service_id: new_service_id(rng),
        name: name.to_owned(),
        display_name: display_name.to_owned(),
        profile_photo: reg.profile_photo.clone(),
        created_at: now,
        updated_at: Some(now),
        public_key: key.to_owned(),
        country_code: country.to_owned(),
        kind: IdentityType::User,
        groups: Vec::new(),
        disabled: false,
        tokens_not_before: None,
        device_key_retired: false,
        admin_roles: Vec::new(),
    })
}

/// Applies a profile update from the app (`PATCH .../app/identities/{sub}`): `display_name`,
/// `country_code` and `profile_photo` (a string, or `null` to remove it) may change; `name`,
/// `sub`, `service_id` and `public_key` may not (the key changes by rotation only).
pub fn apply_update(
    i: &Identity,
    u: &ProfileUpdate,
    photo_hosts: &[String],
) -> Result<Identity, FieldError> {
    const PROTOCOL: [&str; 4] = ["aud", "iat", "exp", "jti"];
    const FIXED: [&str; 6] = [
        "name",
        "service_id",
        "public_key",
        "created_at",
        "type",
        "groups",
    ];
    for k in u.other.keys() {
        match k.as_str() {
            k if PROTOCOL.contains(&k) => {}
            k if FIXED.contains(&k) => {
                return Err(field(
                    "update",
                    "only display_name, country_code and profile_photo can change",
                ))
            }
            _ => return Err(field("update", "unknown field")),
        }
    }
    let mut next = i.clone();
    if let Some(s) = &u.display_name {
        validate_display_name(s)?;
        next.display_name = s.clone();
    }
    if let Some(s) = &u.country_code {
        validate_country_code(s)?;
        next.country_code = s.clone();
    }
    match &u.profile_photo {
        Some(Some(s)) => {
            validate_photo_url(s, photo_hosts)?;
            next.profile_photo = Some(s.clone());
        }
        Some(None) => next.profile_photo = None,
        None => {}
    }
    if u.display_name.is_none() && u.country_code.is_none() && u.profile_photo.is_none() {
        return Err(field("update", "nothing to change"));
    }
    Ok(next)
}

/// The officially assigned ISO 3166-1 alpha-2 codes.
const ISO_3166_ALPHA2: &str = "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW";

#[cfg(test)]
mod tests {
    #[test]
    fn a_login_history_reads_in_both_shapes_and_nothing_else() {
        use super::{Activity, StoredActivity};
        let entry = serde_json::to_string(&super::LoginActivity {
            at: crate::clock::Timestamp::from_secs(1_700_000_000),
            client_id: "rp".into(),
            client_name: "RP".into(),
            outcome: "approved".into(),
            browser_ip: "192.0.2.1".into(),
            user_agent: "UA".into(),
            location: None,
            network: None,
            place: Some("SE".into()),
            flags: Vec::new(),
            id: "l1".into(),
            method: "qr".into(),
            login_id: None,
            sid: None,
            reported_at: None,
        })
        .unwrap();
        let read = |json: &str| serde_json::from_str::<StoredActivity>(json).map(Activity::from);
        let now = read(&format!(r#"{{"logins":[{entry}],"places":["SE"]}}"#)).unwrap();
        assert_eq!(now.logins.len(), 1);
        assert_eq!(now.places, vec!["SE".to_owned()]);
        // As written before the places were kept: the list alone.
        let before = read(&format!("[{entry},{entry}]")).unwrap();
        assert_eq!(before.logins.len(), 2);
        assert!(before.places.is_empty());
        assert_eq!(before.logins[0], now.logins[0]);
        assert_eq!(read("[]").unwrap(), Activity::default());
        // Without `places` (the field's default).
        assert!(read(&format!(r#"{{"logins":[{entry}]}}"#))
            .unwrap()
            .places
            .is_empty());
        for bad in ["\"x\"", "1", "null", r#"{"places":[]}"#, r#"[{"at":"x"}]"#] {
            assert!(read(bad).is_err(), "{bad}");
        }
    }

    use super::*;
    use crate::random::SeededRandom;

    #[test]
    fn a_listed_session_is_kept_once_until_it_is_over_and_the_list_is_bounded() {
        let t = |s| Timestamp::from_secs(s);
        let listed = |sid: &str, until| ListedSession {
            sid: sid.into(),
            until,
        };
        let sids = |a: &Activity, now| {
            a.live_sessions(t(now))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        let a = Activity::default().with(entry_at(1), Some(&listed("s1", 100)), t(1));
        let a = a.with(entry_at(2), Some(&listed("s2", 200)), t(2));
        // Listed again (a second write of the same approval): once, last, with its new time.
        let a = a.with(entry_at(3), Some(&listed("s1", 300)), t(3));
        assert_eq!(sids(&a, 3), ["s2", "s1"]);
        // Over by its time: not live when read, and gone at the next write.
        assert_eq!(sids(&a, 250), ["s1"]);
        let a = a.with(entry_at(250), None, t(250));
        assert_eq!(a.sessions, vec![listed("s1", 300)]);
        // A denial lists nothing; at most LISTED_SESSIONS, the newest.
        let mut a = a;
        for n in 0..40 {
            a = a.with(
                entry_at(260),
                Some(&listed(&format!("n{n}"), 1_000)),
                t(260),
            );
        }
        assert_eq!(a.sessions.len(), LISTED_SESSIONS);
        assert_eq!(a.sessions.last().unwrap().sid, "n39");
        assert_eq!(a.sessions[0].sid, format!("n{}", 40 - LISTED_SESSIONS));
        // Not written when empty: a history without sessions reads as before.
        let plain = Activity::default().with(entry_at(1), None, t(1));
        assert!(!serde_json::to_string(&plain).unwrap().contains("sessions"));
    }

    fn entry_at(secs: i64) -> LoginActivity {
        LoginActivity {
            at: Timestamp::from_secs(secs),
            client_id: "rp".into(),
            client_name: "RP".into(),
            outcome: "approved".into(),
            browser_ip: "192.0.2.1".into(),
            user_agent: String::new(),
            location: None,
            network: None,
            place: None,
            flags: Vec::new(),
            id: format!("e{secs}"),
            method: "qr".into(),
            login_id: None,
            sid: None,
            reported_at: None,
        }
    }

    #[test]
    fn a_record_written_before_updated_at_reads_as_created_at() {
        let i = Identity {
            sub: Subject::new("u"),
            service_id: "sv".into(),
            name: "alice".into(),
            display_name: "Alice".into(),
            profile_photo: None,
            created_at: Timestamp::from_secs(5),
            updated_at: Some(Timestamp::from_secs(9)),
            public_key: "pk".into(),
            country_code: "SE".into(),
            kind: IdentityType::User,
            groups: Vec::new(),
            disabled: false,
            tokens_not_before: None,
            device_key_retired: false,
            admin_roles: Vec::new(),
        };
        assert_eq!(i.updated_at(), Timestamp::from_secs(9));
        let mut v = serde_json::to_value(&i).unwrap();
        assert!(v.get("updated_at").is_some());
        v.as_object_mut().unwrap().remove("updated_at");
        let old: Identity = serde_json::from_value(v).unwrap();
        assert_eq!(old.updated_at, None);
        assert_eq!(old.updated_at(), Timestamp::from_secs(5));
    }

    #[test]
    fn field_rules() {
        assert!(validate_name("alice").is_ok());
        assert!(validate_name("a.b_c-9").is_ok());
        for bad in [
            "al",
            "Alice",
            "a b",
            "x".repeat(33).as_str(),
            "ali\u{e9}",
            "",
        ] {
            assert!(validate_name(bad).is_err(), "{bad}");
        }
        assert!(validate_display_name("Alice Ångström").is_ok());
        assert!(validate_display_name("").is_err());
        assert!(validate_display_name(" ").is_err());
        assert!(validate_display_name("a\nb").is_err());
        assert!(validate_display_name(&"x".repeat(65)).is_err());
        assert!(validate_country_code("SE").is_ok());
        for bad in ["se", "XX", "SWE", "", "S"] {
            assert!(validate_country_code(bad).is_err(), "{bad}");
        }
        let hosts = ["cdn.example.com".to_owned()];
        assert!(validate_photo_url("https://cdn.example.com/a.png", &hosts).is_ok());
        assert!(validate_photo_url("https://CDN.example.com/a.png", &hosts).is_ok());
        assert!(validate_photo_url("https://cdn.example.com/a.png", &[]).is_err());
        for bad in [
            "https://evil.example/a.png",
            "https://cdn.example.com.evil.example/a.png",
            "https://evil.example/?u=https://cdn.example.com/a.png",
            "https://cdn.example.com:8443/a.png",
            "https://cdn.example.com@evil.example/a.png",
            "http://cdn.example.com/a.png",
            "javascript:alert(1)",
            "https://user:pw@cdn.example.com/a.png",
            "https://user@cdn.example.com/a.png",
            "//cdn.example.com/a.png",
            "https:///a.png",
            "data:image/png;base64,AAAA",
        ] {
            assert!(validate_photo_url(bad, &hosts).is_err(), "{bad}");
        }
        assert!(validate_photo_url(
            &format!("https://cdn.example.com/{}", "x".repeat(2048)),
            &hosts
        )
        .is_err());
        for bad in ["a\u{202E}b", "a\u{200B}b", "\u{2066}a", "\u{FEFF}a"] {
            assert!(validate_display_name(bad).is_err(), "{bad:?}");
        }
        assert!(parse_public_key("AAAA").is_err());
        assert!(parse_public_key("not base64!").is_err());
    }

    #[test]
    fn service_ids_are_short_and_recognisable() {
        let rng = SeededRandom::new(3);
        let a = new_service_id(&rng);
        assert!(is_service_id(&a), "{a}");
        assert_ne!(a, new_service_id(&rng));
        assert!(!is_service_id("ABCDEFGHJKMN"));
        assert!(!is_service_id("short"));
    }
}
