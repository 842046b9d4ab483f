//! Scope (RFC 6749 §3.3): a list of space-delimited, case-sensitive scope tokens, parsed once
//! into [`Scopes`] and narrowed by its methods, where hand loops over `split(' ')` did it
//! before.
//!
//! A [`Scopes`] holds each token once, in the order it first appeared (the order the token
//! response's `scope` shows), and only tokens of the RFC's syntax
//! (`1*( %x21 / %x23-5B / %x5D-7E )`). On the wire and in records it is the list of its
//! tokens (`#[serde(transparent)]`), and it reads as `&[String]` where a slice is wanted.

use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Serialize};

/// Why a scope was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ScopeError {
    /// A token with a character outside RFC 6749 §3.3's `NQCHAR` (a quote, a backslash, a
    /// control or non-ASCII character).
    #[error("scope tokens are printable ASCII without '\"' or '\\', separated by spaces")]
    Malformed,
}

/// Scope tokens, each once, in the order they first appeared.
#[derive(Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Scopes(Vec<String>);

/// Whether `token` is a scope-token of RFC 6749 §3.3.
pub(crate) fn is_scope_token(token: &str) -> bool {
    !token.is_empty()
        && token
            .bytes()
            .all(|b| matches!(b, 0x21 | 0x23..=0x5B | 0x5D..=0x7E))
}

impl Scopes {
    /// No scope.
    pub fn none() -> Self {
        Self(Vec::new())
    }

    /// The tokens of a `scope` value as sent: split at single spaces, empty pieces (from
    /// repeated or surrounding spaces) dropped, nothing else checked. The one place a scope
    /// string is split.
    pub fn tokens(scope: &str) -> impl Iterator<Item = &str> {
        scope.split(' ').filter(|s| !s.is_empty())
    }

    /// A `scope` value read strictly (RFC 6749 §3.3): every token of the RFC's syntax,
    /// duplicates collapsed, order kept. Repeated spaces are tolerated.
    pub fn parse(scope: &str) -> Result<Self, ScopeError> {
        let mut out = Self::none();
        for token in Self::tokens(scope) {
            if !is_scope_token(token) {
                return Err(ScopeError::Malformed);
            }
            out.push(token);
        }
        Ok(out)
    }

    /// The tokens of `scope` that are in `supported` (the intersection with the supported
    /// set, in one pass), each once, in order; any other value
    /// (unknown, or not even of the RFC's syntax) is ignored (OIDC Core §3.1.2.1: values the
    /// server does not understand SHOULD be ignored). What authorization, the device
    /// authorization and the token endpoint's `scope` grant from a request.
    pub fn supported(scope: &str, supported: &[&str]) -> Self {
        let mut out = Self::none();
        for token in Self::tokens(scope).filter(|t| supported.contains(t)) {
            out.push(token);
        }
        out
    }

    /// Scopes as this service granted them before: read back from its own records or from
    /// the claims of a token it signed, kept as they are (no check, as a record's read).
    pub fn from_stored<S: Into<String>>(tokens: impl IntoIterator<Item = S>) -> Self {
        Self(tokens.into_iter().map(Into::into).collect())
    }

    fn push(&mut self, token: &str) {
        if !self.contains(token) {
            self.0.push(token.to_owned());
        }
    }

    /// Whether `token` is among these scopes.
    pub fn contains(&self, token: &str) -> bool {
        self.0.iter().any(|s| s == token)
    }

    /// Whether every one of these scopes is in `granted` (RFC 6749 §6: a refresh's `scope`
    /// may only narrow the granted scope).
    pub fn is_subset_of<S: AsRef<str>>(&self, granted: &[S]) -> bool {
        self.0
            .iter()
            .all(|s| granted.iter().any(|g| g.as_ref() == s))
    }

    /// The tokens, in order.
    pub fn as_slice(&self) -> &[String] {
        &self.0
    }

    /// The tokens, in order.
    pub fn into_vec(self) -> Vec<String> {
        self.0
    }
}

impl Deref for Scopes {
    type Target = [String];
    fn deref(&self) -> &[String] {
        &self.0
    }
}

/// The `scope` value: the tokens joined by single spaces (RFC 6749 §3.3), as the token
/// response reports them.
impl fmt::Display for Scopes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            f.write_str(s)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Scopes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Scopes({:?})", self.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategies::{config, hostile_text};
    use proptest::prelude::*;

    const SUPPORTED: &[&str] = &["openid", "profile", "groups", "address", "offline_access"];

    /// The hand loop `supported` replaced (`domain::authorize::known_scopes` before): the
    /// oracle it must agree with.
    fn old_known_scopes(scope: &str) -> Vec<String> {
        let mut scopes: Vec<String> = Vec::new();
        for s in scope.split(' ').filter(|s| !s.is_empty()) {
            if SUPPORTED.contains(&s) && !scopes.iter().any(|x| x == s) {
                scopes.push(s.to_owned());
            }
        }
        scopes
    }

    #[test]
    fn parse_collapses_duplicates_and_keeps_order() {
        let s = Scopes::parse("openid  profile openid urn:x:read").unwrap();
        assert_eq!(s.as_slice(), ["openid", "profile", "urn:x:read"]);
        assert_eq!(s.to_string(), "openid profile urn:x:read");
        assert!(s.contains("openid"));
        assert!(!s.contains("open"));
        assert_eq!(Scopes::parse("").unwrap(), Scopes::none());
        assert_eq!(Scopes::parse("   ").unwrap().to_string(), "");
    }

    #[test]
    fn parse_refuses_what_is_not_a_scope_token() {
        for bad in [
            "openid \"x\"",
            "a\\b",
            "openid\tprofile",
            "é",
            "a\u{0}",
            "x\u{7f}",
        ] {
            assert_eq!(Scopes::parse(bad), Err(ScopeError::Malformed), "{bad:?}");
        }
        // Every other printable ASCII character is allowed.
        assert!(Scopes::parse("!#$%&'()*+,-./:;<=>?@[]^_`{|}~").is_ok());
    }

    #[test]
    fn supported_ignores_the_rest() {
        let s = Scopes::supported("email openid \"q\" profile openid", SUPPORTED);
        assert_eq!(s.as_slice(), ["openid", "profile"]);
        assert!(Scopes::supported("email", SUPPORTED).is_empty());
    }

    #[test]
    fn narrowing() {
        let granted = ["openid", "profile", "offline_access"];
        assert!(Scopes::parse("profile openid")
            .unwrap()
            .is_subset_of(&granted));
        assert!(Scopes::none().is_subset_of(&granted));
        assert!(!Scopes::parse("openid groups")
            .unwrap()
            .is_subset_of(&granted));
    }

    #[test]
    fn stored_as_a_list() {
        let s = Scopes::parse("openid profile").unwrap();
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"["openid","profile"]"#
        );
        let back: Scopes = serde_json::from_str(r#"["openid","profile"]"#).unwrap();
        assert_eq!(back, s);
    }

    fn scope_text() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => proptest::collection::vec(
                prop_oneof![
                    prop::sample::select(SUPPORTED.to_vec()).prop_map(str::to_owned),
                    prop::sample::select(vec!["email", "", "open", "OPENID", "a\"b", "x\ty"])
                        .prop_map(str::to_owned),
                    "[!-~]{1,6}",
                ],
                0..8,
            )
            .prop_map(|v| v.join(" ")),
            1 => hostile_text(),
        ]
    }

    proptest! {
        #![proptest_config(config(2000))]

        /// `supported` is the loop it replaced, token for token.
        #[test]
        fn supported_is_the_old_loop(s in scope_text()) {
            let new = Scopes::supported(&s, SUPPORTED);
            let old = old_known_scopes(&s);
            prop_assert_eq!(new.as_slice(), old.as_slice());
        }

        /// Parsed scopes hold valid tokens once each; printing and parsing again gives the
        /// same; a refusal means some token is not of the RFC's syntax.
        #[test]
        fn parse_round_trips(s in scope_text()) {
            match Scopes::parse(&s) {
                Ok(p) => {
                    prop_assert!(p.iter().all(|t| is_scope_token(t)));
                    for (i, t) in p.iter().enumerate() {
                        prop_assert!(!p[..i].contains(t));
                    }
                    prop_assert_eq!(Scopes::parse(&p.to_string()), Ok(p.clone()));
                    let tokens: Vec<&str> = Scopes::tokens(&s).collect();
                    prop_assert!(p.iter().all(|t| tokens.contains(&t.as_str())));
                    prop_assert!(tokens.iter().all(|t| p.contains(t)));
                }
                Err(_) => prop_assert!(Scopes::tokens(&s).any(|t| !is_scope_token(t))),
            }
        }

        /// Narrowing: a request is within the grant exactly when each of its tokens is.
        #[test]
        fn narrowing_only_narrows(g in scope_text(), r in scope_text()) {
            let granted = Scopes::supported(&g, SUPPORTED);
            let requested = Scopes::supported(&r, SUPPORTED);
            let within = requested.iter().all(|t| granted.contains(t));
            prop_assert_eq!(requested.is_subset_of(&granted), within);
            prop_assert!(granted.is_subset_of(&granted));
            prop_assert!(Scopes::none().is_subset_of(&granted));
        }
    }
}
