//! The app's signed requests (app protocol, Keys), one typed struct per JWS `typ`: the claims
//! each request carries besides the ones every request has (`aud`, `iat`, `exp`, `jti`, checked
//! with the signature by `domain::app_jws`). A request is read into its struct once, after its
//! signature is verified, by [`read`]; a missing or wrong-typed claim is refused there with
//! the claim's name.

use serde::de::{DeserializeOwned, Deserializer, Error as _};
use serde::Deserialize;
use serde_json::{Map, Value};

/// A signed request of the app: its JWS `typ` names the struct its claims are read into.
pub trait AppRequest: DeserializeOwned {
    /// The JWS header's `typ` this request is signed with.
    const TYP: &'static str;
}

/// A claim the request's struct refused, with the claim's name (or `claims` when the claims
/// as a whole were refused).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{claim}: {message}")]
pub struct ClaimError {
    /// The refused claim's name.
    pub claim: String,
    /// Why it was refused.
    pub message: String,
}

/// Reads verified `claims` into the request struct `T`.
pub fn read<T: AppRequest>(claims: &Map<String, Value>) -> Result<T, ClaimError> {
    // Borrowing deserializer over the map: no copy of the claims.
    let de = serde::de::value::MapDeserializer::<_, serde_json::Error>::new(
        claims.iter().map(|(k, v)| (k.as_str(), v)),
    );
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let text = inner.to_string();
        match text
            .strip_prefix("missing field `")
            .and_then(|r| r.strip_suffix('`'))
        {
            Some(field) => ClaimError {
                claim: field.to_owned(),
                message: "required".to_owned(),
            },
            None if path == "." || path.is_empty() => ClaimError {
                claim: "claims".to_owned(),
                message: text,
            },
            None => ClaimError {
                claim: path,
                message: text,
            },
        }
    })
}

/// Sign-up (`registration+jwt`, app protocol §1): the new identity's fields, validated by the
/// domain (each field's `required` comes from there), and its device key.
#[derive(Debug, Clone, Deserialize)]
pub struct Registration {
    /// The unique name asked for.
    #[serde(default)]
    pub name: Option<String>,
    /// The name shown to relying parties.
    #[serde(default)]
    pub display_name: Option<String>,
    /// ISO 3166-1 alpha-2.
    #[serde(default)]
    pub country_code: Option<String>,
    /// A photo URL on an allowed host.
    #[serde(default)]
    pub profile_photo: Option<String>,
    /// The device key: standard base64 of a P-256 SubjectPublicKeyInfo, which also verifies
    /// this very request.
    #[serde(default)]
    pub public_key: Option<String>,
}

impl AppRequest for Registration {
    const TYP: &'static str = "registration+jwt";
}

/// The proof a scan carries in its `Scanid-Proof` header (`scan+jwt`): who scans, bound to
/// this login and to the challenge the QR showed.
#[derive(Debug, Clone, Deserialize)]
pub struct ScanProof {
    /// The identity that scans.
    pub sub: String,
    /// The QR login's id.
    pub session: String,
    /// The challenge the scanned QR code carried.
    pub challenge: String,
}

impl AppRequest for ScanProof {
    const TYP: &'static str = "scan+jwt";
}

/// The phone's decision on a QR login.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// The person approves the login.
    Approve,
    /// The person refuses it.
    Deny,
}

/// A decision on a QR login (`approval+jwt`).
#[derive(Debug, Clone, Deserialize)]
pub struct Approval {
    /// The identity deciding.
    pub sub: String,
    /// The QR login's id.
    pub session: String,
    /// The challenge the scanned QR code carried.
    pub challenge: String,
    /// Approve or deny.
    pub decision: Decision,
    /// The number the person picked among the ones the phone showed (number matching);
    /// absent or `null` when the login asks for none.
    #[serde(default, deserialize_with = "picked_number")]
    pub number: Option<i64>,
}

impl AppRequest for Approval {
    const TYP: &'static str = "approval+jwt";
}

/// `number`: an integer, `null` or absent.
fn picked_number<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(n) => n
            .as_i64()
            .map(Some)
            .ok_or_else(|| D::Error::custom("the number shown on the login page, an integer")),
    }
}

/// A profile update (`profile+jwt`): the fields that change; `profile_photo` `null` removes
/// the photo. Every other claim is kept in `other`, for the domain to refuse.
#[derive(Debug, Clone, Deserialize)]
pub struct ProfileUpdate {
    /// The identity whose profile changes.
    pub sub: String,
    /// A new display name.
    #[serde(default)]
    pub display_name: Option<String>,
    /// A new country.
    #[serde(default)]
    pub country_code: Option<String>,
    /// Absent: unchanged; `Some(None)` (`null`): removed; `Some(Some(url))`: a new photo.
    #[serde(default, deserialize_with = "present")]
    pub profile_photo: Option<Option<String>>,
    /// The request's other claims (the common ones included).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl AppRequest for ProfileUpdate {
    const TYP: &'static str = "profile+jwt";
}

/// A claim that is present, possibly `null`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// A photo upload (`photo+jwt`), beside the image's bytes.
#[derive(Debug, Clone, Deserialize)]
pub struct PhotoUpload {
    /// The uploading identity.
    pub sub: String,
    /// The image's SHA-256, base64url without padding.
    pub sha256: String,
}

impl AppRequest for PhotoUpload {
    const TYP: &'static str = "photo+jwt";
}

/// A device-key rotation (`key-rotation+jwt`), signed by the old key.
#[derive(Debug, Clone, Deserialize)]
pub struct KeyRotation {
    /// The identity whose key changes.
    pub sub: String,
    /// The new key: standard base64 of a P-256 SubjectPublicKeyInfo.
    pub public_key: String,
    /// A [`KeyProof`] signed by the new key.
    pub proof: String,
    /// End every session and token of the identity too.
    #[serde(default)]
    pub end_sessions: bool,
}

impl AppRequest for KeyRotation {
    const TYP: &'static str = "key-rotation+jwt";
}

/// The new key's proof of possession inside a [`KeyRotation`] (`key-proof+jwt`).
#[derive(Debug, Clone, Deserialize)]
pub struct KeyProof {
    /// The identity whose key changes.
    pub sub: String,
}

impl AppRequest for KeyProof {
    const TYP: &'static str = "key-proof+jwt";
}

/// "This wasn't me" on a recent login (`report+jwt`).
#[derive(Debug, Clone, Deserialize)]
pub struct Report {
    /// The reporting identity.
    pub sub: String,
    /// The reported entry of the recent logins.
    pub login: String,
}

impl AppRequest for Report {
    const TYP: &'static str = "report+jwt";
}

/// The identity's deletion, asked by its phone (`deletion+jwt`).
#[derive(Debug, Clone, Deserialize)]
pub struct Deletion {
    /// The identity to delete.
    pub sub: String,
}

impl AppRequest for Deletion {
    const TYP: &'static str = "deletion+jwt";
}

/// "Sign out everywhere", asked by the identity's app (`sign-out+jwt`, signed by any of its
/// keys): every session and token of the identity ends.
#[derive(Debug, Clone, Deserialize)]
pub struct SignOut {
    /// The identity to sign out.
    pub sub: String,
}

impl AppRequest for SignOut {
    const TYP: &'static str = "sign-out+jwt";
}

/// A read of the identity's recent logins (`activity+jwt`).
#[derive(Debug, Clone, Deserialize)]
pub struct Activity {
    /// The identity whose logins are read.
    pub sub: String,
}

impl AppRequest for Activity {
    const TYP: &'static str = "activity+jwt";
}

/// A read of the agents the identity delegates to (`delegations+jwt`).
#[derive(Debug, Clone, Deserialize)]
pub struct Delegations {
    /// The identity whose delegations are read.
    pub sub: String,
}

impl AppRequest for Delegations {
    const TYP: &'static str = "delegations+jwt";
}

/// A delegation withdrawn (`withdraw+jwt`): the agent's exchanged tokens stop working at once.
#[derive(Debug, Clone, Deserialize)]
pub struct Withdrawal {
    /// The identity withdrawing.
    pub sub: String,
    /// The agent (a client id).
    pub client_id: String,
}

impl AppRequest for Withdrawal {
    const TYP: &'static str = "withdraw+jwt";
}

/// A read of the identity's pending backchannel requests (OpenID CIBA, `backchannel+jwt`).
#[derive(Debug, Clone, Deserialize)]
pub struct BackchannelRequests {
    /// The identity whose requests are read.
    pub sub: String,
}

impl AppRequest for BackchannelRequests {
    const TYP: &'static str = "backchannel+jwt";
}

/// One pending backchannel request opened, to be decided like a scanned QR login
/// (`backchannel-open+jwt`).
#[derive(Debug, Clone, Deserialize)]
pub struct BackchannelOpen {
    /// The identity opening it.
    pub sub: String,
    /// The request, by the `id` its list gave.
    pub request: String,
}

impl AppRequest for BackchannelOpen {
    const TYP: &'static str = "backchannel-open+jwt";
}

/// A push subscription registered (`push-subscribe+jwt`): where to tell the identity's app
/// of a new backchannel request.
#[derive(Debug, Clone, Deserialize)]
pub struct PushSubscribe {
    /// The identity subscribing.
    pub sub: String,
    /// `webpush` (the only kind delivered today); another kind (a native app's token) is kept.
    #[serde(default = "webpush")]
    pub kind: String,
    /// The push service's URL for this subscription (`PushSubscription.endpoint`).
    pub endpoint: String,
    /// `PushSubscription.toJSON().keys`: `p256dh` and `auth`, base64url.
    #[serde(default)]
    pub keys: PushKeys,
}

/// The keys of a Web Push subscription.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct PushKeys {
    /// The app's P-256 public key, uncompressed, base64url.
    #[serde(default)]
    pub p256dh: String,
    /// The app's 16-octet authentication secret, base64url.
    #[serde(default)]
    pub auth: String,
}

fn webpush() -> String {
    "webpush".to_owned()
}

impl AppRequest for PushSubscribe {
    const TYP: &'static str = "push-subscribe+jwt";
}

/// A push subscription withdrawn (`push-withdraw+jwt`).
#[derive(Debug, Clone, Deserialize)]
pub struct PushWithdraw {
    /// The identity withdrawing.
    pub sub: String,
    /// The subscription's endpoint.
    pub endpoint: String,
}

impl AppRequest for PushWithdraw {
    const TYP: &'static str = "push-withdraw+jwt";
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claims(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!("an object"),
        }
    }

    fn refused<T: AppRequest + std::fmt::Debug>(v: Value) -> String {
        read::<T>(&claims(v)).expect_err("refused").to_string()
    }

    const COMMON: [(&str, i64); 2] = [("iat", 1), ("exp", 2)];

    fn with_common(mut v: Value) -> Value {
        for (k, n) in COMMON {
            v[k] = json!(n);
        }
        v["aud"] = json!("https://issuer");
        v["jti"] = json!("j");
        v
    }

    #[test]
    fn approval_reads_every_claim_and_ignores_the_common_ones() {
        let a: Approval = read(&claims(with_common(json!({
            "sub": "s", "session": "l", "challenge": "c", "decision": "approve", "number": 7
        }))))
        .unwrap();
        assert_eq!(
            (a.sub.as_str(), a.session.as_str(), a.challenge.as_str()),
            ("s", "l", "c")
        );
        assert_eq!((a.decision, a.number), (Decision::Approve, Some(7)));
        let d: Approval = read(&claims(json!({
            "sub": "s", "session": "l", "challenge": "c", "decision": "deny", "number": null
        })))
        .unwrap();
        assert_eq!((d.decision, d.number), (Decision::Deny, None));
    }

    #[test]
    fn approval_refusals_name_the_claim() {
        let good = json!({ "sub": "s", "session": "l", "challenge": "c", "decision": "approve" });
        let with = |k: &str, v: Value| {
            let mut g = good.clone();
            g[k] = v;
            g
        };
        let without = |k: &str| {
            let mut g = good.clone();
            g.as_object_mut().map(|m| m.remove(k));
            g
        };
        let rows: Vec<(Value, &str)> = vec![
            (without("sub"), "sub: required"),
            (without("session"), "session: required"),
            (without("challenge"), "challenge: required"),
            (without("decision"), "decision: required"),
            (with("sub", json!(5)), "sub: invalid type"),
            (with("challenge", json!(["c"])), "challenge: invalid type"),
            (
                with("decision", json!("maybe")),
                "decision: unknown variant `maybe`",
            ),
            (with("decision", json!(true)), "decision: invalid type"),
            (
                with("number", json!("7")),
                "number: the number shown on the login page, an integer",
            ),
            (
                with("number", json!(7.5)),
                "number: the number shown on the login page, an integer",
            ),
        ];
        for (claims, want) in rows {
            let got = refused::<Approval>(claims.clone());
            assert!(got.starts_with(want), "{claims}: {got}");
        }
    }

    #[test]
    fn scan_proof_refusals() {
        let rows = [
            (json!({ "session": "l", "challenge": "c" }), "sub: required"),
            (json!({ "sub": "s", "challenge": "c" }), "session: required"),
            (json!({ "sub": "s", "session": "l" }), "challenge: required"),
            (
                json!({ "sub": "s", "session": 1, "challenge": "c" }),
                "session: invalid type",
            ),
        ];
        for (c, want) in rows {
            let got = refused::<ScanProof>(c.clone());
            assert!(got.starts_with(want), "{c}: {got}");
        }
        let p: ScanProof = read(&claims(
            json!({ "sub": "s", "session": "l", "challenge": "c" }),
        ))
        .unwrap();
        assert_eq!((p.session.as_str(), p.challenge.as_str()), ("l", "c"));
    }

    #[test]
    fn registration_fields_are_optional_strings() {
        let r: Registration = read(&claims(with_common(json!({ "name": "alice" })))).unwrap();
        assert_eq!(r.name.as_deref(), Some("alice"));
        assert!(r.public_key.is_none() && r.display_name.is_none());
        for k in [
            "name",
            "display_name",
            "country_code",
            "profile_photo",
            "public_key",
        ] {
            let got = refused::<Registration>(json!({ k: 5 }));
            assert!(got.starts_with(&format!("{k}: invalid type")), "{got}");
        }
    }

    #[test]
    fn profile_update_tells_absent_from_null_and_keeps_the_rest() {
        let u: ProfileUpdate = read(&claims(with_common(json!({
            "sub": "s", "display_name": "A", "name": "renamed"
        }))))
        .unwrap();
        assert_eq!(u.display_name.as_deref(), Some("A"));
        assert_eq!(u.profile_photo, None);
        assert_eq!(u.other.get("name"), Some(&json!("renamed")));
        assert!(u.other.contains_key("jti"));
        let removed: ProfileUpdate =
            read(&claims(json!({ "sub": "s", "profile_photo": null }))).unwrap();
        assert_eq!(removed.profile_photo, Some(None));
        let rows = [
            (json!({ "display_name": "A" }), "sub: required"),
            (
                json!({ "sub": "s", "display_name": 5 }),
                "display_name: invalid type",
            ),
            (
                json!({ "sub": "s", "country_code": [] }),
                "country_code: invalid type",
            ),
            (
                json!({ "sub": "s", "profile_photo": 1 }),
                "profile_photo: invalid type",
            ),
        ];
        for (c, want) in rows {
            let got = refused::<ProfileUpdate>(c.clone());
            assert!(got.starts_with(want), "{c}: {got}");
        }
    }

    #[test]
    fn the_other_requests_refusals() {
        let photo = [
            (json!({ "sub": "s" }), "sha256: required"),
            (json!({ "sub": "s", "sha256": 1 }), "sha256: invalid type"),
        ];
        for (c, want) in photo {
            let got = refused::<PhotoUpload>(c.clone());
            assert!(got.starts_with(want), "{c}: {got}");
        }
        let rotation = [
            (json!({ "sub": "s", "proof": "p" }), "public_key: required"),
            (json!({ "sub": "s", "public_key": "k" }), "proof: required"),
            (
                json!({ "sub": "s", "public_key": "k", "proof": "p", "end_sessions": "yes" }),
                "end_sessions: invalid type",
            ),
        ];
        for (c, want) in rotation {
            let got = refused::<KeyRotation>(c.clone());
            assert!(got.starts_with(want), "{c}: {got}");
        }
        let r: KeyRotation = read(&claims(
            json!({ "sub": "s", "public_key": "k", "proof": "p" }),
        ))
        .unwrap();
        assert!(!r.end_sessions);
        assert!(refused::<Report>(json!({ "sub": "s" })).starts_with("login: required"));
        assert!(
            refused::<Report>(json!({ "sub": "s", "login": 3 })).starts_with("login: invalid type")
        );
        assert!(refused::<KeyProof>(json!({})).starts_with("sub: required"));
        assert!(refused::<Deletion>(json!({ "sub": 1 })).starts_with("sub: invalid type"));
        assert!(refused::<Activity>(json!({})).starts_with("sub: required"));
    }

    #[test]
    fn each_request_has_its_own_typ() {
        let typs = [
            Registration::TYP,
            ScanProof::TYP,
            Approval::TYP,
            ProfileUpdate::TYP,
            PhotoUpload::TYP,
            KeyRotation::TYP,
            KeyProof::TYP,
            Report::TYP,
            Deletion::TYP,
            Activity::TYP,
            Delegations::TYP,
            Withdrawal::TYP,
        ];
        let distinct: std::collections::BTreeSet<_> = typs.iter().collect();
        assert_eq!(distinct.len(), typs.len());
        assert!(typs.iter().all(|t| t.ends_with("+jwt")));
    }
}
