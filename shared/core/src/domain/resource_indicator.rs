//! Resource indicators (RFC 8707): which resource server an access token is for.
//!
//! The operator registers the resource servers (`SCANID_RESOURCES`); a client names them with
//! `resource` at the authorization endpoint (any number, all granted together) and at the
//! token endpoint (one per token, narrowing what was granted, §2.2). An access token issued
//! for a resource has that resource as its `aud`; without one, `aud` is the client, as before.
//! Resources are compared as the exact strings the operator registered.

/// At most this many `resource` values in one authorization request.
pub(crate) const MAX_PER_REQUEST: usize = 10;

/// At most this long (characters) for one resource URI.
pub(crate) const MAX_LEN: usize = 2048;

/// Why a `resource` was refused: always `invalid_target` (RFC 8707 §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TargetError {
    /// Not an absolute URI, has a fragment, or too long.
    Malformed(&'static str),
    /// Not a resource the operator registered.
    NotRegistered,
    /// More than [`MAX_PER_REQUEST`] at authorization.
    TooMany,
    /// At the token endpoint: not among the resources granted at authorization.
    NotGranted,
    /// At the token endpoint: more than one (one audience per token).
    OnePerToken,
    /// Client credentials of a self-registered client (RFC 7591): no person consented and no
    /// operator vetted the client, so it gets no token for the operator's resource servers.
    SelfRegistered,
}

impl TargetError {
    pub(crate) fn description(self) -> &'static str {
        match self {
            Self::Malformed(why) => why,
            Self::NotRegistered => "resource is not a registered resource server",
            Self::TooMany => "at most 10 resource parameters",
            Self::NotGranted => "resource was not granted in the authorization request",
            Self::OnePerToken => "one resource per token request",
            Self::SelfRegistered => {
                "a self-registered client's client_credentials tokens are for itself only (no resource)"
            }
        }
    }
}

/// A resource as RFC 8707 §2 has it: an absolute URI without a fragment.
pub(crate) fn registrable(uri: &str) -> Result<String, &'static str> {
    if uri.len() > MAX_LEN {
        return Err("a resource URI is at most 2048 characters");
    }
    if uri.contains('#') {
        return Err("a resource URI may not have a fragment");
    }
    match url::Url::parse(uri) {
        Ok(u) if !u.cannot_be_a_base() || u.scheme() == "urn" => Ok(uri.to_owned()),
        _ => Err("a resource must be an absolute URI"),
    }
}

/// The operator's list, validated, once each, in order; `Err((value, why))` names the bad one.
pub(crate) fn registry<'a>(
    values: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<String>, (String, &'static str)> {
    let mut out: Vec<String> = Vec::new();
    for v in values {
        let r = registrable(v).map_err(|why| (v.to_owned(), why))?;
        if !out.contains(&r) {
            out.push(r);
        }
    }
    Ok(out)
}

fn known(r: &str, registered: &[String]) -> Result<String, TargetError> {
    let r = registrable(r).map_err(TargetError::Malformed)?;
    if registered.contains(&r) {
        Ok(r)
    } else {
        Err(TargetError::NotRegistered)
    }
}

/// The authorization request's `resource` values: each registered; granted all together.
pub(crate) fn at_authorization(
    requested: &[String],
    registered: &[String],
) -> Result<Vec<String>, TargetError> {
    if requested.len() > MAX_PER_REQUEST {
        return Err(TargetError::TooMany);
    }
    let mut out: Vec<String> = Vec::new();
    for r in requested {
        let r = known(r, registered)?;
        if !out.contains(&r) {
            out.push(r);
        }
    }
    Ok(out)
}

/// The token request's `resource` (RFC 8707 §2.2): the audience of the access token, or
/// `None` for an ordinary token (`aud` = the client).
///
/// `granted` is what the authorization granted (a code or refresh token's grant); `None` for
/// client credentials, which have no authorization step. Without a `resource`, a grant of
/// exactly one resource issues for it (the client asked for nothing else), a grant of several
/// or none issues an ordinary token.
pub(crate) fn at_token(
    requested: &[String],
    granted: Option<&[String]>,
    registered: &[String],
) -> Result<Option<String>, TargetError> {
    match requested {
        [] => match granted {
            Some([only]) => known(only, registered).map(Some),
            _ => Ok(None),
        },
        [r] => {
            let r = known(r, registered)?;
            match granted {
                Some(g) if !g.contains(&r) => Err(TargetError::NotGranted),
                _ => Ok(Some(r)),
            }
        }
        _ => Err(TargetError::OnePerToken),
    }
}

/// The `resource` of a client credentials request: [`at_token`] with nothing granted, for the
/// operator's clients only. A self-registered client (with open registration, anyone) gets
/// its own token (`aud` = itself) and no other: a resource server trusts a token for it as the
/// operator's decision, and here nobody decided (no person consented, no operator made the
/// client). Through the code flow a self-registered client reaches a resource with the person's
/// consent as before.
pub(crate) fn at_client_credentials(
    requested: &[String],
    self_registered: bool,
    registered: &[String],
) -> Result<Option<String>, TargetError> {
    if self_registered && !requested.is_empty() {
        return Err(TargetError::SelfRegistered);
    }
    at_token(requested, None, registered)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    const API: &str = "https://api.example/v1";
    const MCP: &str = "https://mcp.example/mcp";

    #[test]
    fn registrable_uris() {
        for ok in [API, "urn:example:resource", "http://127.0.0.1:9000/"] {
            assert_eq!(registrable(ok).as_deref(), Ok(ok));
        }
        for bad in [
            "",
            "/relative",
            "api.example",
            "https://api.example/#frag",
            "https://api.example/#",
            "mailto",
        ] {
            assert!(registrable(bad).is_err(), "{bad}");
        }
        assert!(registrable(&format!("https://a.example/{}", "x".repeat(2048))).is_err());
        assert_eq!(
            registry([
                "https://a.example/",
                "https://b.example/",
                "https://a.example/"
            ]),
            Ok(v(&["https://a.example/", "https://b.example/"]))
        );
        assert_eq!(
            registry(["https://a.example/", "nope"]).unwrap_err().0,
            "nope"
        );
    }

    #[test]
    fn at_authorization_each_refusal() {
        let reg = v(&[API, MCP]);
        assert_eq!(at_authorization(&[], &reg), Ok(vec![]));
        assert_eq!(
            at_authorization(&v(&[MCP, API, MCP]), &reg),
            Ok(v(&[MCP, API]))
        );
        let cases: Vec<(Vec<String>, TargetError)> = vec![
            (v(&["https://other.example/"]), TargetError::NotRegistered),
            // Compared exactly as registered: no normalization.
            (v(&["https://api.example/v1/"]), TargetError::NotRegistered),
            (v(&["HTTPS://api.example/v1"]), TargetError::NotRegistered),
            (
                v(&[API, "https://api.example/v1#x"]),
                TargetError::Malformed("a resource URI may not have a fragment"),
            ),
            (
                v(&["relative/path"]),
                TargetError::Malformed("a resource must be an absolute URI"),
            ),
            (vec![API.to_owned(); 11], TargetError::TooMany),
        ];
        for (requested, want) in cases {
            assert_eq!(
                at_authorization(&requested, &reg),
                Err(want),
                "{requested:?}"
            );
        }
        // Nothing registered: every resource is refused.
        assert_eq!(
            at_authorization(&v(&[API]), &[]),
            Err(TargetError::NotRegistered)
        );
    }

    #[test]
    fn at_token_narrows_to_one_granted_resource() {
        let reg = v(&[API, MCP]);
        let both = v(&[API, MCP]);
        let one = v(&[MCP]);
        // Named: must be one of the granted.
        assert_eq!(
            at_token(&v(&[API]), Some(&both), &reg),
            Ok(Some(API.into()))
        );
        assert_eq!(
            at_token(&v(&[API]), Some(&one), &reg),
            Err(TargetError::NotGranted)
        );
        assert_eq!(
            at_token(&v(&[API]), Some(&[]), &reg),
            Err(TargetError::NotGranted)
        );
        assert_eq!(
            at_token(&v(&[API, MCP]), Some(&both), &reg),
            Err(TargetError::OnePerToken)
        );
        assert_eq!(
            at_token(&v(&["https://x.example/"]), Some(&both), &reg),
            Err(TargetError::NotRegistered)
        );
        assert!(matches!(
            at_token(&v(&["x"]), Some(&both), &reg),
            Err(TargetError::Malformed(_))
        ));
        // Not named: the single granted resource, else an ordinary token.
        assert_eq!(at_token(&[], Some(&one), &reg), Ok(Some(MCP.into())));
        assert_eq!(at_token(&[], Some(&both), &reg), Ok(None));
        assert_eq!(at_token(&[], Some(&[]), &reg), Ok(None));
        // A granted resource the operator has since unregistered is refused.
        assert_eq!(
            at_token(&[], Some(&one), &v(&[API])),
            Err(TargetError::NotRegistered)
        );
        assert_eq!(
            at_token(&v(&[MCP]), Some(&one), &v(&[API])),
            Err(TargetError::NotRegistered)
        );
        // Client credentials: nothing was granted before; any registered resource.
        assert_eq!(at_token(&v(&[MCP]), None, &reg), Ok(Some(MCP.into())));
        assert_eq!(at_token(&[], None, &reg), Ok(None));
        assert_eq!(
            at_token(&v(&["https://x.example/"]), None, &reg),
            Err(TargetError::NotRegistered)
        );
    }

    #[test]
    fn a_self_registered_client_credentials_token_names_no_resource() {
        let reg = v(&["https://api.example/"]);
        assert_eq!(
            at_client_credentials(&reg, true, &reg),
            Err(TargetError::SelfRegistered)
        );
        assert_eq!(at_client_credentials(&[], true, &reg), Ok(None));
        assert_eq!(
            at_client_credentials(&reg, false, &reg),
            Ok(Some("https://api.example/".into()))
        );
        assert_eq!(
            at_client_credentials(&v(&["https://other.example/"]), false, &reg),
            Err(TargetError::NotRegistered)
        );
    }
}
