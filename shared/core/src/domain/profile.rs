//! Client profiles and refresh-token rotation per client.
//!
//! **FAPI 2.0** (`--profile fapi2`; the admin API's attribute [`PROFILE_ATTRIBUTE`] with
//! Keycloak's client-profile name `fapi-2-security-profile`): the FAPI 2.0 Security Profile
//! (Final) §5 asks of a client what this module makes of it whenever the client is created or
//! changed ([`apply`]): confidential and authenticated by `private_key_jwt` only (§5.3.2.1:
//! no secret, so `client_secret_*` fails as `invalid_client`), its authorization requests
//! pushed (§5.3.2.2, RFC 9126) with PKCE S256 (§5.3.2.2), its tokens signed with PS256, ES256
//! or EdDSA (§5.4.1: never RS256 or `none`; ES256 unless one is chosen), and its client
//! assertions too ([`assertion_alg_refused`], checked at every authentication), and its
//! refresh tokens not rotated (§5.3.2.1 "shall not use refresh token rotation except in
//! extraordinary circumstances"). What the client set that the profile needs is set for it;
//! what it cannot have is refused with the reason.
//!
//! **Refresh rotation** ([`RefreshRotation`]): by default each use of a refresh token returns
//! a new one, the one before is accepted again for 10 s (a lost response), and any other
//! reuse revokes the grant's family (docs/requirements.md R3). Per client, rotation may be
//! off (the same token keeps working until it expires; still revocable, still the client's
//! only), or the one before accepted for a window the operator chooses (the FAPI conformance
//! suite presents a 30-second-old refresh token again and expects a fresh response).

use serde::{Deserialize, Serialize};

use crate::domain::client::NewClient;
use crate::protocol::Alg;

/// The admin API's attribute of a client's profile (a scanid attribute: Keycloak applies its
/// client profiles through realm client policies, not per client).
pub const PROFILE_ATTRIBUTE: &str = "scanid.client.profile";
/// The admin API's attribute of a client's refresh rotation (`rotate`, `off`).
pub const ROTATION_ATTRIBUTE: &str = "scanid.refresh.rotation";
/// The admin API's attribute of a client's reuse window, seconds (empty: the default).
pub const REUSE_ATTRIBUTE: &str = "scanid.refresh.reuse.window";

/// The longest reuse window an operator may set, seconds.
pub const MAX_REUSE_WINDOW_SECS: u32 = 300;

/// A set of rules a client is held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// The FAPI 2.0 Security Profile.
    Fapi2,
}

impl Profile {
    /// The CLI's name (`fapi2`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Profile::Fapi2 => "fapi2",
        }
    }

    /// Keycloak's name of the matching client profile (shown by the admin API).
    pub const fn keycloak_name(self) -> &'static str {
        match self {
            Profile::Fapi2 => "fapi-2-security-profile",
        }
    }

    /// A profile by the CLI's or Keycloak's name.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "fapi2" | "fapi-2-security-profile" => Some(Profile::Fapi2),
            _ => None,
        }
    }
}

/// How a client's refresh tokens are used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefreshRotation {
    /// A new token at each use; the one before accepted for 10 s; other reuse revokes.
    #[default]
    Rotate,
    /// A new token at each use; the one before accepted for this many seconds (1 to
    /// [`MAX_REUSE_WINDOW_SECS`]) instead of 10.
    ReuseWindow(u32),
    /// No rotation: the same token until it expires.
    Off,
}

impl RefreshRotation {
    /// Whether it is the default (not stored).
    pub fn is_default(&self) -> bool {
        *self == RefreshRotation::Rotate
    }

    /// From the CLI's `--refresh-rotation rotate|off` and `--refresh-reuse-window SECS` (or
    /// the admin API's attributes): `None` when neither is given.
    pub fn parse(
        rotation: Option<&str>,
        window: Option<&str>,
    ) -> Result<Option<Self>, &'static str> {
        const WINDOW: &str = "the refresh reuse window is 1 to 300 seconds";
        let window = match window.filter(|w| !w.is_empty()) {
            None => None,
            Some(w) => match w.parse::<u32>() {
                Ok(n) if (1..=MAX_REUSE_WINDOW_SECS).contains(&n) => Some(n),
                _ => return Err(WINDOW),
            },
        };
        match (rotation, window) {
            (None, None) => Ok(None),
            (None | Some("rotate"), Some(n)) => Ok(Some(RefreshRotation::ReuseWindow(n))),
            (Some("rotate"), None) => Ok(Some(RefreshRotation::Rotate)),
            (Some("off"), None) => Ok(Some(RefreshRotation::Off)),
            (Some("off"), Some(_)) => Err("a reuse window needs rotation (not off)"),
            _ => Err("refresh rotation: rotate or off"),
        }
    }

    /// The CLI's and the admin API's name (`rotate`, `off`).
    pub const fn as_str(self) -> &'static str {
        match self {
            RefreshRotation::Rotate | RefreshRotation::ReuseWindow(_) => "rotate",
            RefreshRotation::Off => "off",
        }
    }

    /// The reuse window, seconds, when one was set.
    pub const fn window(self) -> Option<u32> {
        match self {
            RefreshRotation::ReuseWindow(n) => Some(n),
            _ => None,
        }
    }
}

/// Why a client cannot have its profile.
pub type ProfileRefused = &'static str;

/// Holds `new` to its profile (none: nothing to do): sets what the profile needs, refuses
/// what it cannot have.
pub fn apply(new: &mut NewClient) -> Result<(), ProfileRefused> {
    match new.profile {
        None => Ok(()),
        Some(Profile::Fapi2) => fapi2(new),
    }
}

fn fapi2(new: &mut NewClient) -> Result<(), ProfileRefused> {
    if new.public {
        return Err("a FAPI 2.0 client is confidential (not public)");
    }
    let Some(keys) = &new.jwks else {
        return Err(
            "a FAPI 2.0 client authenticates by private_key_jwt: register its jwks or jwks_uri",
        );
    };
    if keys.alg.as_deref().is_some_and(|a| a == "RS256") {
        return Err("a FAPI 2.0 client signs its assertions with ES256, PS256 or EdDSA, not RS256");
    }
    match new.token_alg {
        Some(a) if !a.fapi2() => {
            return Err(
                "a FAPI 2.0 client's tokens are signed with ES256, PS256 or EdDSA, not RS256",
            )
        }
        Some(_) => {}
        None => new.token_alg = Some(Alg::ES256),
    }
    if new.refresh_rotation.window().is_some() {
        return Err("a FAPI 2.0 client's refresh tokens do not rotate (no reuse window)");
    }
    new.refresh_rotation = RefreshRotation::Off;
    new.require_par = true;
    new.require_pkce = true;
    // FAPI 2.0 §5.3.2.1: sender-constrained access tokens, by DPoP (RFC 9449) here.
    new.dpop_bound_access_tokens = true;
    Ok(())
}

/// For a client held to a profile, why its client assertion's `alg` is refused (FAPI 2.0
/// §5.4.1: RS256 never), read from the assertion's header; `None`: not refused here.
pub fn assertion_alg_refused(profile: Option<Profile>, assertion: &str) -> Option<&'static str> {
    profile?;
    let header = jsonwebtoken::decode_header(assertion).ok()?;
    matches!(
        header.alg,
        jsonwebtoken::Algorithm::RS256
            | jsonwebtoken::Algorithm::RS384
            | jsonwebtoken::Algorithm::RS512
            | jsonwebtoken::Algorithm::HS256
            | jsonwebtoken::Algorithm::HS384
            | jsonwebtoken::Algorithm::HS512
    )
    .then_some("a FAPI 2.0 client's assertion is signed with ES256, PS256 or EdDSA")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::client_assertion::ClientKeys;

    fn fapi(new: NewClient) -> NewClient {
        NewClient {
            profile: Some(Profile::Fapi2),
            jwks: Some(ClientKeys {
                jwks_uri: Some("https://rp.example/jwks".into()),
                ..Default::default()
            }),
            ..new
        }
    }

    #[test]
    fn fapi2_sets_what_it_needs_and_refuses_what_it_cannot_have() {
        let mut c = fapi(NewClient::default());
        apply(&mut c).unwrap();
        assert!(c.require_par && c.require_pkce);
        assert!(c.dpop_bound_access_tokens, "DPoP-bound access tokens");
        assert_eq!(c.token_alg, Some(Alg::ES256));
        assert_eq!(c.refresh_rotation, RefreshRotation::Off);
        let mut ps = fapi(NewClient {
            token_alg: Some(Alg::PS256),
            ..Default::default()
        });
        apply(&mut ps).unwrap();
        assert_eq!(ps.token_alg, Some(Alg::PS256), "a FAPI algorithm is kept");
        for bad in [
            NewClient {
                token_alg: Some(Alg::RS256),
                ..fapi(NewClient::default())
            },
            NewClient {
                public: true,
                ..fapi(NewClient::default())
            },
            NewClient {
                jwks: None,
                ..fapi(NewClient::default())
            },
            NewClient {
                refresh_rotation: RefreshRotation::ReuseWindow(30),
                ..fapi(NewClient::default())
            },
            NewClient {
                jwks: Some(ClientKeys {
                    jwks_uri: Some("https://rp.example/jwks".into()),
                    alg: Some("RS256".into()),
                    ..Default::default()
                }),
                ..fapi(NewClient::default())
            },
        ] {
            let mut bad = bad;
            assert!(apply(&mut bad).is_err(), "{bad:?}");
        }
        let mut plain = NewClient::default();
        apply(&mut plain).unwrap();
        assert!(!plain.require_par, "no profile, no change");
    }

    #[test]
    fn rotation_settings_parse_within_bounds() {
        use RefreshRotation::*;
        assert_eq!(RefreshRotation::parse(None, None), Ok(None));
        assert_eq!(RefreshRotation::parse(Some("off"), None), Ok(Some(Off)));
        assert_eq!(
            RefreshRotation::parse(Some("rotate"), None),
            Ok(Some(Rotate))
        );
        assert_eq!(
            RefreshRotation::parse(None, Some("30")),
            Ok(Some(ReuseWindow(30)))
        );
        assert_eq!(
            RefreshRotation::parse(Some("rotate"), Some("")),
            Ok(Some(Rotate))
        );
        for (r, w) in [
            (Some("off"), Some("30")),
            (None, Some("0")),
            (None, Some("301")),
            (None, Some("x")),
            (Some("sometimes"), None),
        ] {
            assert!(RefreshRotation::parse(r, w).is_err(), "{r:?} {w:?}");
        }
    }

    #[test]
    fn a_profiled_client_never_authenticates_with_rs256() {
        use base64::engine::general_purpose::URL_SAFE_NO_PAD;
        use base64::Engine;
        let jwt = |alg: &str| {
            format!(
                "{}.e30.AAAA",
                URL_SAFE_NO_PAD.encode(format!(r#"{{"alg":"{alg}"}}"#))
            )
        };
        assert!(assertion_alg_refused(Some(Profile::Fapi2), &jwt("RS256")).is_some());
        assert!(assertion_alg_refused(Some(Profile::Fapi2), &jwt("PS256")).is_none());
        assert!(assertion_alg_refused(Some(Profile::Fapi2), &jwt("EdDSA")).is_none());
        assert!(assertion_alg_refused(None, &jwt("RS256")).is_none());
    }
}
