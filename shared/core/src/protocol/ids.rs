//! Identifiers as types: a client id cannot be passed where a subject is expected, nor a
//! session id where a QR login id is. Each is a string on the wire and in records
//! (`#[serde(transparent)]`) and reads as `&str` where a string is wanted (`Deref`).
//!
//! Nothing converts a string into an id implicitly (no `From<&str>`/`From<String>`): a value
//! from a request becomes an id through its validating constructor (`ClientId::parse`,
//! `Subject::parse_identity`), whose error is the request's 4xx; a value this service made or
//! reads back from its own store through the unchecked `new`.

use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Serialize};

macro_rules! explicit_id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// The id, unchecked: for a value this service made (minted, configured) or
            /// reads back from its own records. A request's value goes through the type's
            /// validating constructor where it has one.
            pub fn new(value: impl Into<String>) -> Self {
                Self(value.into())
            }

            /// The id as a string.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The id's string.
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl std::borrow::Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({:?})", stringify!($name), self.0)
            }
        }

        impl From<&$name> for String {
            fn from(id: &$name) -> String {
                id.0.clone()
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                &self.0 == other
            }
        }

        impl PartialEq<$name> for str {
            fn eq(&self, other: &$name) -> bool {
                self == other.0
            }
        }

        impl PartialEq<$name> for &str {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }
    };
}

explicit_id_type!(
    /// A client's `client_id`.
    ClientId
);
explicit_id_type!(
    /// An identity's `sub` (its service UUID).
    Subject
);
explicit_id_type!(
    /// An SSO session's id (`sid`, and `session_state` to relying parties).
    SessionId
);
explicit_id_type!(
    /// A QR login's id (the `session` parameter of the login pages and the device API).
    QrLoginId
);
explicit_id_type!(
    /// A redirect URI, exactly as registered (compared byte for byte).
    RedirectUri
);

explicit_id_type!(
    /// A grant's id (the `gid` claim of its access tokens; the key of its record). Made only
    /// by [`GrantId::new`]: no string becomes one by accident.
    GrantId
);

explicit_id_type!(
    /// An authorization code's storage key: the SHA-256 of the code, base64url (the code
    /// itself is never stored). Made by [`CodeHash::of`] the code, or [`CodeHash::new`] from
    /// a hash already made.
    CodeHash
);

/// Why a request's string is not an id of its kind (each becomes the request's 4xx).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    /// Not a client id.
    #[error("client_id: 1 to 128 of the characters A-Z a-z 0-9 . _ - :, not only dots")]
    ClientId,
    /// Not an identity's subject.
    #[error("sub: an identity's UUID in its 36-character form")]
    Subject,
}

impl ClientId {
    /// A client id from a request: 1 to 128 ASCII letters, digits, `.`, `_`, `-` or `:`, not
    /// only dots (it is a store key and a path segment).
    pub fn parse(id: &str) -> Result<Self, IdError> {
        let ok = !id.is_empty()
            && id.len() <= 128
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b':'))
            && !id.bytes().all(|b| b == b'.');
        if ok {
            Ok(Self(id.to_owned()))
        } else {
            Err(IdError::ClientId)
        }
    }
}

impl Subject {
    /// An identity's `sub` from a request: a UUID in its 36-character hyphenated form (the
    /// subject of a client's own tokens, its client id, is never read from a request).
    pub fn parse_identity(sub: &str) -> Result<Self, IdError> {
        if sub.len() == 36 && uuid::Uuid::parse_str(sub).is_ok() {
            Ok(Self(sub.to_owned()))
        } else {
            Err(IdError::Subject)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_a_string_on_the_wire_and_reads_as_one() {
        let id = ClientId::new("shop");
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"shop\"");
        assert_eq!(serde_json::from_str::<ClientId>("\"shop\"").unwrap(), id);
        assert_eq!(id, "shop");
        assert_eq!(id.len(), 4);
        assert_eq!(format!("{id}"), "shop");
        assert_eq!(format!("{id:?}"), "ClientId(\"shop\")");
    }

    #[test]
    fn a_grant_id_is_a_string_in_records() {
        let id = GrantId::new("g1");
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"g1\"");
        assert_eq!(serde_json::from_str::<GrantId>("\"g1\"").unwrap(), id);
        assert_eq!(id, "g1");
    }

    #[test]
    fn a_client_id_from_a_request_is_checked() {
        for ok in ["shop", "a.b_c-d:e", "0", &"x".repeat(128), ".a"] {
            assert_eq!(
                ClientId::parse(ok).map(ClientId::into_string),
                Ok(ok.to_owned())
            );
        }
        for bad in ["", ".", "..", "a/b", "a b", "é", "a%2F", &"x".repeat(129)] {
            assert_eq!(ClientId::parse(bad), Err(IdError::ClientId), "{bad:?}");
        }
    }

    #[test]
    fn an_identity_sub_from_a_request_is_a_uuid() {
        let sub = "2b1a3c4d-0000-4000-8000-000000000000";
        assert_eq!(Subject::parse_identity(sub), Ok(Subject::new(sub)));
        for bad in [
            "",
            "alice",
            "2b1a3c4d000040008000000000000000",
            "{2b1a3c4d-0000-4000-8000-000000000000}",
            "urn:uuid:2b1a3c4d-0000-4000-8000-000000000000",
            "2b1a3c4d-0000-4000-8000-00000000000g",
        ] {
            assert_eq!(
                Subject::parse_identity(bad),
                Err(IdError::Subject),
                "{bad:?}"
            );
        }
    }
}
