//! The request object (OIDC Core §6.1), by value and unsigned: its claims are the request.

use super::validate::query_target_error;
use super::*;

/// The request object (`request`), decoded; `None` without one. Refused (with `request_uri`
/// beside it, or undecodable) at the redirect URI the request names, once found registered.
pub(super) fn request_object_of(
    query: &Params,
    client: Option<&Client>,
    policy: &Policy,
) -> Result<Option<RequestObject>, AuthorizeError> {
    if let (Ok(Some(_)), Ok(Some(_))) = (query.one("request"), query.one("request_uri")) {
        let target = trusted_target(query, client)?;
        return Err(query_target_error(
            query,
            target,
            (
                OAuthErrorCode::InvalidRequest,
                "request and request_uri cannot both be sent",
            ),
            policy,
        ));
    }
    let Ok(Some(jwt)) = query.one("request") else {
        return Ok(None);
    };
    match request_object::decode(jwt) {
        Ok(o) => Ok(Some(o)),
        Err(why) => Err(refuse_object(query, client, policy, why)),
    }
}

/// A request object (`request` in `query`) refused with `invalid_request_object` and `why`:
/// the error goes where the (unverified) object or the query says, once that redirect URI is
/// found registered; else an error page. Also for a signed object that did not verify
/// (`service::request_objects`).
pub fn refuse_object(
    query: &Params,
    client: Option<&Client>,
    policy: &Policy,
    why: &'static str,
) -> AuthorizeError {
    let jwt = query.one("request").ok().flatten().unwrap_or_default();
    let unverified = request_object::unverified(jwt).map(|o| o.merged_over(query));
    let target = unverified.as_ref().unwrap_or(query);
    match trusted_target(target, client) {
        Ok(trusted) => query_target_error(
            target,
            trusted,
            (OAuthErrorCode::InvalidRequestObject, why),
            policy,
        ),
        Err(e) => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::domain::authorize::tests::{client, code_of, owned, policy, API, ISSUER, MCP};

    /// The conformance suite's shape: response_type, client_id, scope and redirect_uri in the
    /// query; everything in the request object.
    fn with_object(claims: serde_json::Value, redirect_uri: &str) -> Params {
        owned(vec![
            ("client_id", "rp".into()),
            ("response_type", "code".into()),
            ("scope", "openid".into()),
            ("redirect_uri", redirect_uri.into()),
            ("request", request_object::unsigned(&claims)),
        ])
    }

    fn object_claims() -> serde_json::Value {
        serde_json::json!({
            "iss": "rp", "aud": ISSUER, "exp": 1300, "iat": 1000, "jti": "j",
            "client_id": "rp", "response_type": "code", "scope": "openid profile",
            "redirect_uri": "https://rp.example/cb", "state": "s-object", "nonce": "n-object",
            "max_age": 600, "resource": [API]
        })
    }

    #[test]
    fn an_unsigned_request_object_is_the_request_and_restarts_without_it() {
        let c = client(
            false,
            &["https://rp.example/cb", "https://rp.example/other"],
        );
        let reg = vec![API.to_owned(), MCP.to_owned()];
        // oidcc-ensure-request-object-with-redirect-uri: the object's redirect_uri wins.
        let p = with_object(object_claims(), "https://evil.example/cb");
        let r = validate_with(&p, Some(&c), &policy(&reg)).unwrap();
        assert_eq!(r.redirect_uri.as_str(), "https://rp.example/cb");
        assert_eq!(r.state.as_deref(), Some("s-object"));
        assert_eq!(r.nonce.as_deref(), Some("n-object"));
        assert_eq!(r.scopes.as_slice(), vec!["openid", "profile"]);
        assert_eq!(r.max_age, Some(600));
        assert_eq!(r.resources, vec![API]);
        // Its restart is a plain query that validates into the same request.
        let q = r.restart_query();
        assert!(!q.contains("request="), "{q}");
        let again = validate_with(
            &Params::from_pairs(url::form_urlencoded::parse(q.as_bytes()).into_owned()),
            Some(&c),
            &policy(&reg),
        )
        .unwrap();
        assert_eq!(again, r);
        // Only the required parameters outside, and no iss/aud/exp: also fine.
        let minimal = serde_json::json!({"state": "s", "redirect_uri": "https://rp.example/cb"});
        assert!(validate_with(
            &with_object(minimal, "https://rp.example/cb"),
            Some(&c),
            &policy(&reg)
        )
        .is_ok());
    }

    #[test]
    fn request_object_refusals() {
        let c = client(false, &["https://rp.example/cb"]);
        let reg = vec![API.to_owned()];
        let set = |k: &str, v: serde_json::Value| {
            let mut o = object_claims();
            o[k] = v;
            o
        };
        let signed = {
            let o = request_object::unsigned(&object_claims());
            let body = o.split('.').nth(1).unwrap().to_owned();
            format!("eyJhbGciOiJIUzI1NiJ9.{body}.c2lnbmF0dXJl")
        };
        let cases: Vec<(Params, &str)> = vec![
            (set("exp", 1000.into()), "expired"),
            (set("aud", "https://other.example".into()), "aud"),
            (set("iss", "someone-else".into()), "iss"),
            (set("client_id", "rp2".into()), "client_id differs"),
            (
                set("response_type", "token".into()),
                "response_type differs",
            ),
            (set("nbf", 5000.into()), "nbf"),
        ]
        .into_iter()
        .map(|(claims, why)| (with_object(claims, "https://rp.example/cb"), why))
        .chain([
            (
                owned(vec![
                    ("client_id", "rp".into()),
                    ("response_type", "code".into()),
                    ("redirect_uri", "https://rp.example/cb".into()),
                    ("state", "s-query".into()),
                    ("request", signed),
                ]),
                "accepted once verified",
            ),
            (
                owned(vec![
                    ("client_id", "rp".into()),
                    ("redirect_uri", "https://rp.example/cb".into()),
                    ("state", "s-query".into()),
                    ("request", "e30.e30.".into()),
                ]),
                "no alg",
            ),
        ])
        .collect();
        for (p, why) in cases {
            match validate_with(&p, Some(&c), &policy(&reg)) {
                Err(AuthorizeError::Redirect(t, e)) => {
                    assert_eq!(e.error.as_str(), "invalid_request_object", "{why}");
                    assert!(e.error_description.contains(why), "{why}: {e:?}");
                    assert_eq!(t.redirect_uri, "https://rp.example/cb");
                    assert!(t.state.is_some(), "{why}: state echoed");
                }
                other => panic!("{why}: {other:?}"),
            }
        }
        // A signed object (openid-client's JAR) with its redirect_uri and state inside only:
        // refused at the redirect URI it names, when registered, with its state.
        let signed_only = |claims: serde_json::Value| {
            let body = request_object::unsigned(&claims)
                .split('.')
                .nth(1)
                .unwrap()
                .to_owned();
            owned(vec![
                ("client_id", "rp".into()),
                ("request", format!("eyJhbGciOiJFUzI1NiJ9.{body}.c2ln")),
            ])
        };
        match validate_with(&signed_only(object_claims()), Some(&c), &policy(&reg)) {
            Err(AuthorizeError::Redirect(t, e)) => {
                assert_eq!(e.error.as_str(), "invalid_request_object");
                assert_eq!(t.redirect_uri, "https://rp.example/cb");
                assert_eq!(t.state.as_deref(), Some("s-object"));
            }
            other => panic!("{other:?}"),
        }
        let evil = set("redirect_uri", "https://evil.example/cb".into());
        assert!(
            code_of(validate_with(&signed_only(evil), Some(&c), &policy(&reg)))
                .starts_with("untrusted")
        );
        // An undecodable object and an untrusted redirect_uri: the error page, no redirect.
        let p = owned(vec![
            ("client_id", "rp".into()),
            ("redirect_uri", "https://evil.example/cb".into()),
            ("request", "garbage".into()),
        ]);
        assert!(code_of(validate_with(&p, Some(&c), &policy(&reg))).starts_with("untrusted"));
        // The object's redirect_uri is checked like the query's.
        let p = with_object(
            set("redirect_uri", "https://evil.example/cb".into()),
            "https://rp.example/cb",
        );
        assert!(code_of(validate_with(&p, Some(&c), &policy(&reg))).starts_with("untrusted"));
        // The object's parameters are validated like the query's.
        let p = with_object(
            set("resource", "https://unknown.example/".into()),
            "https://rp.example/cb",
        );
        assert_eq!(
            code_of(validate_with(&p, Some(&c), &policy(&reg))),
            "invalid_target"
        );
        let p = with_object(
            set("code_challenge_method", "plain".into()),
            "https://rp.example/cb",
        );
        assert_eq!(
            code_of(validate_with(&p, Some(&c), &policy(&reg))),
            "invalid_request"
        );
    }
}
