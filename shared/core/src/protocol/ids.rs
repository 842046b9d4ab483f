//! Identifiers as types: a client id cannot be passed where a subject is expected, nor a
//! session id where a QR login id is. Each is a string on the wire and in records
//! (`#[serde(transparent)]`) and reads as `&str` where a string is wanted (`Deref`).

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
            /// The id, named explicitly: nothing converts a string into it implicitly.
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

/// An id that also converts from strings (`From<&str>`, `From<String>`), for the ids of
/// records and requests that predate [`explicit_id_type`].
macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        explicit_id_type!($(#[$doc])* $name);

        impl From<String> for $name {
            fn from(s: String) -> Self {
                Self(s)
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                Self(s.to_owned())
            }
        }

        impl From<&String> for $name {
            fn from(s: &String) -> Self {
                Self(s.clone())
            }
        }

    };
}

id_type!(
    /// A client's `client_id`.
    ClientId
);
id_type!(
    /// An identity's `sub` (its service UUID).
    Subject
);
id_type!(
    /// An SSO session's id (`sid`, and `session_state` to relying parties).
    SessionId
);
id_type!(
    /// A QR login's id (the `session` parameter of the login pages and the device API).
    QrLoginId
);
id_type!(
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
}
