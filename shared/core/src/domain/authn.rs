//! How the person was authenticated, and what the tokens say of it: `amr` (RFC 8176) and
//! `acr` (OIDC Core §2), and what a relying party may demand (`acr_values`, an essential `acr`
//! in the `claims` parameter, or the client's `require_acr`).
//!
//! Three ways end a login, each a [`Method`]:
//!
//! | method | how | `amr` | `acr` |
//! |---|---|---|---|
//! | `device-key` | the QR approved in the app with its device key (a WebCrypto or CLI P-256 key) | `pop swk` | `1` |
//! | `passkey-uv` | the QR approved in the app with a passkey that verified the person | `pop hwk user` | `2` |
//! | `passkey-sign-in` | a passkey assertion on the login page itself (origin-bound; the phone over FIDO's hybrid transport on a computer) | `hwk user pop` | `3` |
//!
//! The `acr` levels are ordered: a higher one satisfies a lower one. `1` stays the lowest
//! (Keycloak's value for a full authentication), so nothing that worked before changes.
//! An SSO login carries the method of the session's original authentication.

use serde::{Deserialize, Serialize};

/// How a login was authenticated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// The QR approved in the app with its device key (proof of possession of a software key).
    #[default]
    DeviceKey,
    /// The QR approved in the app with a passkey assertion whose user-verified flag was set.
    PasskeyUv,
    /// A passkey assertion (user verified) on the login page itself.
    PasskeySignIn,
}

impl Method {
    /// As stored and shown (`device-key`, `passkey-uv`, `passkey-sign-in`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Method::DeviceKey => "device-key",
            Method::PasskeyUv => "passkey-uv",
            Method::PasskeySignIn => "passkey-sign-in",
        }
    }

    /// The ID token's `amr` (RFC 8176 §2): `pop` proof of possession, `swk`/`hwk` a software
    /// or hardware-bound key, `user` user presence and verification by the authenticator.
    /// (WebAuthn does not say whether a face, a fingerprint or a PIN verified the person, so
    /// no finer method is named.)
    pub const fn amr(self) -> &'static [&'static str] {
        match self {
            Method::DeviceKey => &["pop", "swk"],
            Method::PasskeyUv => &["pop", "hwk", "user"],
            Method::PasskeySignIn => &["hwk", "user", "pop"],
        }
    }

    /// The level this method reaches.
    pub const fn acr(self) -> Acr {
        match self {
            Method::DeviceKey => Acr::Possession,
            Method::PasskeyUv => Acr::UserVerified,
            Method::PasskeySignIn => Acr::PhishingResistant,
        }
    }
}

/// The `acr` levels scanid issues, lowest first (ordered: a higher one satisfies a lower).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Acr {
    /// `1`: the app's key approved the login (possession of the phone and its app).
    #[serde(rename = "1")]
    Possession,
    /// `2`: a passkey approved it and the authenticator verified the person (face,
    /// fingerprint or PIN).
    #[serde(rename = "2")]
    UserVerified,
    /// `3`: a user-verified passkey signed in on the login page itself: bound to scanid's
    /// origin, so a phishing page cannot relay it.
    #[serde(rename = "3")]
    PhishingResistant,
}

/// Every level, lowest first (`acr_values_supported`).
pub const ACR_VALUES: [Acr; 3] = [Acr::Possession, Acr::UserVerified, Acr::PhishingResistant];

impl Acr {
    /// The level as the `acr` claim and `acr_values` write it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Acr::Possession => "1",
            Acr::UserVerified => "2",
            Acr::PhishingResistant => "3",
        }
    }

    /// A known value, or `None`.
    pub fn parse(s: &str) -> Option<Self> {
        ACR_VALUES.into_iter().find(|a| a.as_str() == s)
    }

    /// What a person is told a level needs.
    pub const fn needs(self) -> &'static str {
        match self {
            Acr::Possession => "the scanid app",
            Acr::UserVerified => "a passkey that verifies you (approve with your passkey)",
            Acr::PhishingResistant => {
                "signing in with a passkey on the login page (\"Sign in with a passkey\")"
            }
        }
    }
}

/// What an authorization request (with its client's policy) asks of the authentication.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AcrRequest {
    /// The known levels asked for, in the request's order (of preference).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<Acr>,
    /// An essential claim (OIDC Core §5.5.1.1) or the client's `require_acr`: a login below
    /// every value is refused. Otherwise the values are voluntary (`acr_values`): scanid
    /// tries (an SSO session below them asks the person to log in again), and the token says
    /// what was reached.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub essential: bool,
}

impl AcrRequest {
    /// A request for the known values among `raw` (unknown ones are ignored).
    pub fn of<'a>(raw: impl IntoIterator<Item = &'a str>, essential: bool) -> Self {
        let mut values = Vec::new();
        for a in raw.into_iter().filter_map(Acr::parse) {
            if !values.contains(&a) {
                values.push(a);
            }
        }
        Self { values, essential }
    }

    /// Whether the request asks for no level at all.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The lowest level asked for, if any.
    pub fn minimum(&self) -> Option<Acr> {
        self.values.iter().min().copied()
    }

    /// The level that must be reached: the lowest value when essential, else none.
    pub fn required(&self) -> Option<Acr> {
        self.minimum().filter(|_| self.essential)
    }

    /// Whether a login reaching `reached` may complete this request.
    pub fn allows(&self, reached: Acr) -> bool {
        self.required().is_none_or(|r| reached >= r)
    }

    /// Whether a login reaching `reached` meets every level asked for, voluntary or not
    /// (an SSO session that does not is not used: the person logs in again).
    pub fn met_by(&self, reached: Acr) -> bool {
        self.minimum().is_none_or(|m| reached >= m)
    }

    /// The `acr` the ID token reports for a login reaching `reached`: the highest value
    /// asked for that it satisfies (so an essential request gets one of its values, OIDC Core
    /// §5.5.1.1), else what was reached.
    pub fn reported(&self, reached: Acr) -> Acr {
        self.values
            .iter()
            .copied()
            .filter(|v| *v <= reached)
            .max()
            .unwrap_or(reached)
    }

    /// Folds in the client's `require_acr`: the request becomes essential, with the values
    /// at or above it and it (last, when the request did not ask for it).
    pub fn with_client_minimum(mut self, minimum: Option<Acr>) -> Self {
        let Some(min) = minimum else {
            return self;
        };
        self.values.retain(|v| *v >= min);
        if !self.values.contains(&min) {
            self.values.push(min);
        }
        self.essential = true;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_method_says_what_it_proved() {
        assert_eq!(Method::DeviceKey.amr(), ["pop", "swk"]);
        assert_eq!(Method::PasskeyUv.amr(), ["pop", "hwk", "user"]);
        assert_eq!(Method::PasskeySignIn.amr(), ["hwk", "user", "pop"]);
        assert_eq!(Method::DeviceKey.acr().as_str(), "1");
        assert_eq!(Method::PasskeyUv.acr().as_str(), "2");
        assert_eq!(Method::PasskeySignIn.acr().as_str(), "3");
        // Stored as the protocol names them; a record without one was a device key's.
        assert_eq!(
            serde_json::to_value(Method::PasskeyUv).unwrap(),
            serde_json::json!("passkey-uv")
        );
        assert_eq!(Method::default(), Method::DeviceKey);
        for m in [Method::DeviceKey, Method::PasskeyUv, Method::PasskeySignIn] {
            assert_eq!(serde_json::to_value(m).unwrap(), m.as_str());
        }
    }

    #[test]
    fn levels_are_ordered_and_parse_only_known_values() {
        assert!(Acr::Possession < Acr::UserVerified && Acr::UserVerified < Acr::PhishingResistant);
        assert_eq!(Acr::parse("2"), Some(Acr::UserVerified));
        assert_eq!(Acr::parse("0"), None);
        assert_eq!(Acr::parse("gold"), None);
        assert_eq!(serde_json::to_value(Acr::PhishingResistant).unwrap(), "3");
    }

    #[test]
    fn a_voluntary_request_never_refuses_but_an_essential_one_does() {
        let voluntary = AcrRequest::of(["2", "gold"], false);
        assert_eq!(voluntary.values, [Acr::UserVerified]);
        assert!(voluntary.allows(Acr::Possession));
        assert!(!voluntary.met_by(Acr::Possession));
        assert!(voluntary.met_by(Acr::PhishingResistant));
        let essential = AcrRequest::of(["3", "2"], true);
        assert_eq!(essential.required(), Some(Acr::UserVerified));
        assert!(!essential.allows(Acr::Possession));
        assert!(essential.allows(Acr::UserVerified));
        assert!(AcrRequest::default().allows(Acr::Possession));
        assert!(AcrRequest::default().met_by(Acr::Possession));
    }

    #[test]
    fn the_token_reports_the_highest_value_asked_for_that_was_reached() {
        let table: &[(&[&str], Acr, &str)] = &[
            (&[], Acr::PhishingResistant, "3"),
            (&["2"], Acr::PhishingResistant, "2"),
            (&["1", "2"], Acr::UserVerified, "2"),
            (&["1", "2"], Acr::Possession, "1"),
            (&["2"], Acr::Possession, "1"),
            (&["3", "1"], Acr::UserVerified, "1"),
        ];
        for (values, reached, want) in table {
            let r = AcrRequest::of(values.iter().copied(), false);
            assert_eq!(
                r.reported(*reached).as_str(),
                *want,
                "{values:?} {reached:?}"
            );
        }
    }

    #[test]
    fn a_client_minimum_makes_the_request_essential_at_or_above_it() {
        let r = AcrRequest::of(["1", "3"], false).with_client_minimum(Some(Acr::UserVerified));
        assert_eq!(r.values, [Acr::PhishingResistant, Acr::UserVerified]);
        assert!(r.essential);
        assert_eq!(r.required(), Some(Acr::UserVerified));
        let r = AcrRequest::default().with_client_minimum(Some(Acr::UserVerified));
        assert_eq!(r.values, [Acr::UserVerified]);
        assert_eq!(r.required(), Some(Acr::UserVerified));
        let r = AcrRequest::of(["2"], false).with_client_minimum(None);
        assert!(!r.essential);
    }
}
