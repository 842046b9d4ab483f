//! Pushed authorization requests (RFC 9126): the client POSTs its authorization request to
//! the PAR endpoint (authenticated as at the token endpoint), gets a `request_uri`, and sends
//! the browser to the authorization endpoint with only `client_id` and that `request_uri`.
//!
//! The request is validated when pushed, as the authorization endpoint would validate it,
//! and again when used. A `request_uri` is `urn:ietf:params:oauth:request_uri:` and 256
//! random bits; only its hash is stored. It lives [`LIFETIME_SECS`], is used once (spent by
//! one atomic consume) and only by the client that pushed it.

use serde::{Deserialize, Serialize};

use crate::protocol::Params;
use crate::random::{self, Random};

/// The prefix of every `request_uri` (RFC 9126 §2.2).
pub const URN_PREFIX: &str = "urn:ietf:params:oauth:request_uri:";
/// How long a pushed request may wait for the browser (`expires_in`).
pub const LIFETIME_SECS: i64 = 60;
/// The parameters of a PAR request that authenticate the client, not the authorization
/// request: never stored.
const CREDENTIALS: &[&str] = &["client_secret", "client_assertion", "client_assertion_type"];

/// A pushed request as stored: whose it is and its parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushedRequest {
    /// The client that pushed it: only it may use it.
    pub client_id: String,
    /// The authorization request's parameters.
    pub params: Vec<(String, String)>,
}

impl PushedRequest {
    /// The authorization request of a PAR body: its parameters but the credentials, with
    /// `client_id` the authenticated client's (RFC 9126 §2.1).
    pub fn of(params: &Params, client_id: &str) -> Self {
        let mut pairs: Vec<(String, String)> = params
            .pairs()
            .filter(|(k, _)| !CREDENTIALS.contains(&k.as_str()) && k.as_str() != "client_id")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        pairs.push(("client_id".into(), client_id.to_owned()));
        Self {
            client_id: client_id.to_owned(),
            params: pairs,
        }
    }

    /// Its parameters, as the authorization endpoint reads them.
    pub fn params(&self) -> Params {
        Params::from_pairs(self.params.clone())
    }
}

/// A new `request_uri` and the hash it is stored under.
pub fn new_request_uri(rng: &dyn Random) -> (String, String) {
    let token = random::token(rng, 32);
    let hash = crate::domain::client::hash_presented(&token);
    (format!("{URN_PREFIX}{token}"), hash)
}

/// The hash a presented `request_uri` is stored under; `None` when it is not one of ours.
pub fn hash_of(request_uri: &str) -> Option<String> {
    let token = request_uri.strip_prefix(URN_PREFIX)?;
    (token.len() == 43
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'))
    .then(|| crate::domain::client::hash_presented(token))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::SeededRandom;

    #[test]
    fn a_request_uri_is_a_urn_with_256_random_bits_stored_hashed() {
        let (uri, hash) = new_request_uri(&SeededRandom::new(3));
        assert!(uri.starts_with(URN_PREFIX) && uri.len() == URN_PREFIX.len() + 43);
        assert_eq!(hash_of(&uri), Some(hash.clone()));
        assert!(!uri.contains(&hash));
        assert_eq!(hash_of("https://rp.example/r"), None);
        assert_eq!(hash_of(&format!("{URN_PREFIX}short")), None);
    }

    #[test]
    fn credentials_are_never_stored_and_client_id_is_the_authenticated_one() {
        let p = Params::from_pairs(vec![
            ("client_id".into(), "a".into()),
            ("client_secret".into(), "s".into()),
            ("client_assertion".into(), "j".into()),
            ("scope".into(), "openid".into()),
        ]);
        let r = PushedRequest::of(&p, "a");
        assert_eq!(
            r.params,
            vec![
                ("scope".to_owned(), "openid".to_owned()),
                ("client_id".to_owned(), "a".to_owned())
            ]
        );
    }
}
