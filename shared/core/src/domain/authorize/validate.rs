//! Validating an authorization request: the client and redirect URI first (never a redirect
//! when they are wrong), then everything else, refused as a redirect to the client.

use super::object::request_object_of;
use super::*;

fn base64url_43(s: &str) -> bool {
    s.len() == 43
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Steps 1 and 2 with the default policy: `nonce` optional, `state` optional with PKCE S256,
/// no resource servers.
pub fn validate(
    params: &Params,
    client: Option<&Client>,
) -> Result<AuthorizationRequest, AuthorizeError> {
    validate_with(params, client, &Policy::default())
}

/// Steps 1 and 2: a validated request, or where and what to answer.
///
/// `nonce` and `state`: OIDC Core §3.1.2.1 makes `nonce` optional on a code flow (the
/// OpenID Foundation's Basic OP plan requires a code request without it to succeed), so it is
/// optional always, and put in the id_token when sent. `state` protects a client without PKCE
/// against CSRF (RFC 9700 §2.1.1): required without PKCE S256, optional with it.
/// `require_nonce` (`SCANID_REQUIRE_NONCE=true`, the strict rule) requires both always.
///
/// A request object (`request`, [`request_object`]) is decoded first and its claims replace
/// the query's parameters, so its `redirect_uri` is the one checked. A request object that is
/// refused (malformed, signed, invalid) is answered with `invalid_request_object` at the
/// redirect URI the request names (the object's over the query's, unverified but registered),
/// never at an unregistered one.
pub fn validate_with(
    query: &Params,
    client: Option<&Client>,
    policy: &Policy,
) -> Result<AuthorizationRequest, AuthorizeError> {
    let object = request_object_of(query, client, policy)?;
    let merged = object.as_ref().map(|o| o.merged_over(query));
    let params = merged.as_ref().unwrap_or(query);
    let (client, redirect_uri) = trusted_target(params, client)?;
    // The response mode decides how errors travel, so read it before anything else.
    let mode_param = params.one("response_mode");
    let state = params.one("state").ok().flatten().map(str::to_owned);
    let alg = client.token_alg.unwrap_or(policy.signing_alg);
    let refuse = Refuse(ErrorTarget {
        redirect_uri: redirect_uri.clone(),
        client_id: client.client_id.clone(),
        response_mode: ResponseMode::of(mode_param.ok().flatten(), alg),
        state: state.clone(),
    });
    if let Some(o) = &object {
        if let Err(why) = o.check(query, &client.client_id, policy.issuer, policy.now) {
            return Err(refuse.with(OAuthErrorCode::InvalidRequestObject, why));
        }
    }
    check_form(params, mode_param, &refuse)?;
    if state.as_ref().is_some_and(|s| s.len() > 2048) {
        return Err(refuse.invalid("state is longer than 2048 characters"));
    }
    let nonce = match params.one("nonce") {
        Ok(Some(n)) if n.len() <= 2048 => Some(n.to_owned()),
        Ok(Some(_)) => return Err(refuse.invalid("nonce is longer than 2048 characters")),
        Ok(None) => None,
        Err(_) => return Err(refuse.invalid("a parameter is repeated")),
    };
    let scopes = known_scopes(params.one("scope").ok().flatten().unwrap_or("openid"));
    let code_challenge = code_challenge_of(params, &refuse)?;
    check_binding(client, &state, &nonce, &code_challenge, policy, &refuse)?;
    let prompt = prompt_of(params, &refuse)?;
    let max_age = match params.one("max_age").ok().flatten() {
        None => None,
        Some(v) => match v.parse::<i64>() {
            Ok(n) if n >= 0 => Some(n),
            _ => return Err(refuse.invalid("max_age must be a non-negative integer")),
        },
    };
    let requested: Vec<String> = params
        .all("resource")
        .into_iter()
        .map(str::to_owned)
        .collect();
    let resources = resource_indicator::at_authorization(&requested, policy.resources)
        .map_err(|e| refuse.with(OAuthErrorCode::InvalidTarget, e.description()))?;
    let mut claims = match params.one("claims") {
        Ok(None) => RequestedClaims::default(),
        Ok(Some(raw)) => claims_request::parse(raw).map_err(|m| refuse.invalid(m.0))?,
        Err(_) => return Err(refuse.invalid("a parameter is repeated")),
    };
    // acr_values (OIDC Core §3.1.2.1): voluntary, unknown values ignored; an acr in the
    // claims parameter says more (it may be essential) and wins.
    let acr_values = match params.one("acr_values") {
        Ok(v) => v.unwrap_or(""),
        Err(_) => return Err(refuse.invalid("a parameter is repeated")),
    };
    if claims.acr.is_empty() {
        claims.acr = AcrRequest::of(acr_values.split(' ').take(16), false);
    }
    claims.acr = std::mem::take(&mut claims.acr).with_client_minimum(client.require_acr);
    let short = |name: &'static str| {
        params
            .one(name)
            .ok()
            .flatten()
            .filter(|v| v.len() <= 256)
            .map(str::to_owned)
    };
    Ok(AuthorizationRequest {
        client_id: client.client_id.clone(),
        redirect_uri: RedirectUri::new(redirect_uri),
        response_mode: refuse.0.response_mode,
        state,
        nonce,
        scopes,
        code_challenge,
        dpop_jkt: dpop_jkt_of(params, &refuse)?,
        prompt,
        max_age,
        login_hint: short("login_hint"),
        ui_locales: short("ui_locales"),
        resources,
        claims,
    })
}

/// Refusals once the redirect URI is trusted: redirected to it, with the request's `state`.
struct Refuse(ErrorTarget);

impl Refuse {
    fn with(&self, code: OAuthErrorCode, description: &'static str) -> AuthorizeError {
        AuthorizeError::Redirect(self.0.clone(), OAuthError::new(code, description))
    }

    fn invalid(&self, description: &'static str) -> AuthorizeError {
        self.with(OAuthErrorCode::InvalidRequest, description)
    }
}

/// The request's form: no parameter twice, a known `response_mode`, `response_type=code`,
/// no `request_uri`.
fn check_form(
    params: &Params,
    mode: Result<Option<&str>, &'static str>,
    refuse: &Refuse,
) -> Result<(), AuthorizeError> {
    if params.repeated().is_some() {
        return Err(refuse.invalid("a parameter is repeated"));
    }
    if !matches!(mode, Ok(None))
        && !mode.is_ok_and(|m| m.is_some_and(|m| RESPONSE_MODES.contains(&m)))
    {
        return Err(refuse.invalid(
            "response_mode must be query, fragment, form_post, jwt, query.jwt, fragment.jwt or form_post.jwt",
        ));
    }
    match params.one("response_type") {
        Ok(Some("code")) => {}
        Ok(None) => return Err(refuse.invalid("response_type is required")),
        _ => {
            return Err(refuse.with(
                OAuthErrorCode::UnsupportedResponseType,
                "only response_type=code is supported",
            ))
        }
    }
    // OIDC Core §3.1.2.6 names this error; discovery says request_uri is unsupported.
    if params.one("request_uri").ok().flatten().is_some() {
        return Err(refuse.with(
            OAuthErrorCode::RequestUriNotSupported,
            "request_uri is not supported",
        ));
    }
    Ok(())
}

/// `dpop_jkt` (RFC 9449 §10): the thumbprint of the DPoP key the code is bound to, 43
/// base64url characters (a SHA-256).
fn dpop_jkt_of(params: &Params, refuse: &Refuse) -> Result<Option<String>, AuthorizeError> {
    match params.one("dpop_jkt") {
        Ok(None) => Ok(None),
        Ok(Some(j))
            if j.len() == 43
                && j.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
        {
            Ok(Some(j.to_owned()))
        }
        _ => {
            Err(refuse
                .invalid("dpop_jkt must be a JWK SHA-256 thumbprint (43 base64url characters)"))
        }
    }
}

/// PKCE's `code_challenge`: S256 only, 43 base64url characters.
fn code_challenge_of(params: &Params, refuse: &Refuse) -> Result<Option<String>, AuthorizeError> {
    let method = params.one("code_challenge_method").ok().flatten();
    match (params.one("code_challenge").ok().flatten(), method) {
        (None, None) => Ok(None),
        (None, Some(_)) => Err(refuse.invalid("code_challenge_method without code_challenge")),
        (Some(_), Some(m)) if m != "S256" => {
            Err(refuse.invalid("code_challenge_method must be S256"))
        }
        (Some(_), None) => {
            Err(refuse.invalid("code_challenge_method must be S256 (plain is not supported)"))
        }
        (Some(c), Some(_)) if !base64url_43(c) => {
            Err(refuse.invalid("code_challenge must be 43 base64url characters"))
        }
        (Some(c), Some(_)) => Ok(Some(c.to_owned())),
    }
}

/// What binds the response to the request: PKCE for a public client; `state` unless PKCE
/// S256 is used; under `require_nonce`, `state` and `nonce` always.
fn check_binding(
    client: &Client,
    state: &Option<String>,
    nonce: &Option<String>,
    code_challenge: &Option<String>,
    policy: &Policy,
    refuse: &Refuse,
) -> Result<(), AuthorizeError> {
    if (client.client_type == ClientType::Public || client.require_pkce) && code_challenge.is_none()
    {
        return Err(refuse.invalid("this client must use PKCE (code_challenge with S256)"));
    }
    if state.is_none() && (code_challenge.is_none() || policy.require_nonce) {
        return Err(refuse.invalid("state is required (optional only with PKCE S256)"));
    }
    if nonce.is_none() && policy.require_nonce {
        return Err(refuse.invalid("nonce is required"));
    }
    Ok(())
}

/// `prompt`: `none`, `login`, `consent` (`select_account` is accepted and means nothing
/// here); `none` alone.
fn prompt_of(params: &Params, refuse: &Refuse) -> Result<Prompt, AuthorizeError> {
    let mut prompt = Prompt::default();
    for p in params
        .one("prompt")
        .ok()
        .flatten()
        .unwrap_or("")
        .split(' ')
        .filter(|p| !p.is_empty())
    {
        match p {
            "none" => prompt.none = true,
            "login" => prompt.login = true,
            "consent" => prompt.consent = true,
            "select_account" => {}
            _ => return Err(refuse.invalid("prompt must be none, login or consent")),
        }
    }
    if prompt.none && (prompt.login || prompt.consent) {
        return Err(refuse.invalid("prompt=none cannot be combined with other values"));
    }
    Ok(prompt)
}

/// An error for the redirect URI and `state` of `query` (the query itself, or merged with a
/// request object that is refused).
pub(super) fn query_target_error(
    query: &Params,
    (client, redirect_uri): (&Client, String),
    (code, description): (OAuthErrorCode, &'static str),
    policy: &Policy,
) -> AuthorizeError {
    let alg = client.token_alg.unwrap_or(policy.signing_alg);
    let response_mode = ResponseMode::of(query.one("response_mode").ok().flatten(), alg);
    AuthorizeError::Redirect(
        ErrorTarget {
            redirect_uri,
            client_id: client.client_id.clone(),
            response_mode,
            state: query.one("state").ok().flatten().map(str::to_owned),
        },
        OAuthError::new(code, description),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::domain::authorize::tests::{
        client, code_of, good, params, policy, with, without, API, CHALLENGE, MCP,
    };

    #[test]
    fn a_good_request_validates() {
        let c = client(false, &["https://rp.example/cb"]);
        let r = validate(&params(&good()), Some(&c)).unwrap();
        // With PKCE S256, nonce and state are optional (unless the realm requires them).
        let pkce = with(
            with(good(), "code_challenge", CHALLENGE),
            "code_challenge_method",
            "S256",
        );
        let bare = without(without(pkce.clone(), "nonce"), "state");
        let lenient = validate(&params(&bare), Some(&c)).unwrap();
        assert_eq!((lenient.nonce, lenient.state), (None, None));
        let strict = Policy {
            require_nonce: true,
            ..Policy::default()
        };
        assert_eq!(
            code_of(validate_with(&params(&bare), Some(&c), &strict)),
            "invalid_request"
        );
        assert!(validate_with(&params(&pkce), Some(&c), &strict).is_ok());
        assert_eq!(r.scopes.as_slice(), vec!["openid", "profile"]);
        assert_eq!(r.response_mode, ResponseMode::Query);
        assert_eq!(r.state.as_deref(), Some("s1"));
    }

    #[test]
    fn a2_bad_client_or_redirect_never_redirects_whatever_else_is_wrong() {
        let c = client(false, &["https://rp.example/cb"]);
        let bad_all = with(good(), "response_type", "token");
        for p in [
            without(bad_all.clone(), "client_id"),
            with(bad_all.clone(), "client_id", "other"),
            without(bad_all.clone(), "redirect_uri"),
            with(bad_all.clone(), "redirect_uri", "https://rp.example/cb/"),
            with(bad_all.clone(), "redirect_uri", "https://evil.example/cb"),
        ] {
            assert!(
                code_of(validate(&params(&p), Some(&c))).starts_with("untrusted"),
                "{p:?}"
            );
        }
        let mut dup = good();
        dup.push(("redirect_uri", "https://rp.example/cb"));
        assert!(code_of(validate(&params(&dup), Some(&c))).starts_with("untrusted"));
        assert!(code_of(validate(&params(&good()), None)).starts_with("untrusted"));
    }

    #[test]
    fn jarm_modes_sign_with_the_clients_algorithm_or_the_realms() {
        let mut c = client(false, &["https://rp.example/cb"]);
        let reg = Vec::new();
        let mode = |c: &Client, m: &'static str| {
            validate_with(
                &params(&with(good(), "response_mode", m)),
                Some(c),
                &policy(&reg),
            )
            .map(|r| r.response_mode)
        };
        let jwt = |over, alg| ResponseMode::Jwt { over, alg };
        assert_eq!(mode(&c, "jwt"), Ok(jwt(Delivery::Query, Alg::ES256)));
        assert_eq!(mode(&c, "query.jwt"), Ok(jwt(Delivery::Query, Alg::ES256)));
        assert_eq!(
            mode(&c, "fragment.jwt"),
            Ok(jwt(Delivery::Fragment, Alg::ES256))
        );
        c.token_alg = Some(Alg::PS256);
        let form = mode(&c, "form_post.jwt").unwrap();
        assert_eq!(form, jwt(Delivery::FormPost, Alg::PS256));
        assert_eq!(form.param(), "form_post.jwt");
        // A refusal travels by the JARM mode too, to the client.
        let p = with(
            with(good(), "response_mode", "fragment.jwt"),
            "prompt",
            "bogus",
        );
        match validate_with(&params(&p), Some(&c), &policy(&reg)) {
            Err(AuthorizeError::Redirect(t, _)) => {
                assert_eq!(t.response_mode, jwt(Delivery::Fragment, Alg::PS256));
                assert_eq!(t.client_id.as_str(), "rp");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn errors_after_the_redirect_is_trusted() {
        let c = client(false, &["https://rp.example/cb"]);
        let cases: Vec<(Vec<(&str, &str)>, &str)> = vec![
            (
                with(good(), "response_type", "token"),
                "unsupported_response_type",
            ),
            (without(good(), "response_type"), "invalid_request"),
            (without(good(), "state"), "invalid_request"),
            (
                with(good(), "response_mode", "jwt.query"),
                "invalid_request",
            ),
            (
                with(
                    with(good(), "code_challenge", CHALLENGE),
                    "code_challenge_method",
                    "plain",
                ),
                "invalid_request",
            ),
            (with(good(), "code_challenge", CHALLENGE), "invalid_request"),
            (
                with(
                    with(good(), "code_challenge", "short"),
                    "code_challenge_method",
                    "S256",
                ),
                "invalid_request",
            ),
            (
                with(good(), "code_challenge_method", "S256"),
                "invalid_request",
            ),
            (with(good(), "prompt", "none login"), "invalid_request"),
            (with(good(), "prompt", "bogus"), "invalid_request"),
            (with(good(), "max_age", "-1"), "invalid_request"),
            (with(good(), "request", "eyJ..."), "invalid_request_object"),
            (
                with(
                    with(good(), "request", "eyJ..."),
                    "request_uri",
                    "https://rp.example/r",
                ),
                "invalid_request",
            ),
            (
                with(good(), "request_uri", "https://rp.example/r"),
                "request_uri_not_supported",
            ),
        ];
        for (p, want) in cases {
            assert_eq!(code_of(validate(&params(&p), Some(&c))), want, "{p:?}");
        }
        let mut dup = good();
        dup.push(("scope", "openid"));
        assert_eq!(
            code_of(validate(&params(&dup), Some(&c))),
            "invalid_request",
            "A6"
        );
        // Unknown parameters are ignored.
        assert_eq!(
            code_of(validate(&params(&with(good(), "foo", "bar")), Some(&c))),
            "ok"
        );
    }

    #[test]
    fn nonce_is_optional_in_the_code_flow_and_state_is_not_without_pkce() {
        let c = client(false, &["https://rp.example/cb"]);
        // OIDC Core 3.1.2.1; oidcc-ensure-request-without-nonce-succeeds-for-code-flow.
        let no_nonce = validate(&params(&without(good(), "nonce")), Some(&c)).unwrap();
        assert_eq!(no_nonce.nonce, None);
        assert_eq!(no_nonce.state.as_deref(), Some("s1"));
        // Without PKCE, state is still required (CSRF), with or without a nonce.
        for p in [
            without(good(), "state"),
            without(without(good(), "state"), "nonce"),
        ] {
            match validate(&params(&p), Some(&c)) {
                Err(AuthorizeError::Redirect(_, e)) => {
                    assert_eq!(e.error.as_str(), "invalid_request");
                    assert!(e.error_description.contains("state"), "{e:?}");
                }
                other => panic!("{p:?}: {other:?}"),
            }
        }
        // The strict rule (SCANID_REQUIRE_NONCE): nonce required.
        let strict = Policy {
            require_nonce: true,
            ..Policy::default()
        };
        assert_eq!(
            code_of(validate_with(
                &params(&without(good(), "nonce")),
                Some(&c),
                &strict
            )),
            "invalid_request"
        );
        assert!(validate_with(&params(&good()), Some(&c), &strict).is_ok());
    }

    #[test]
    fn the_claims_parameter_is_parsed_or_refused_as_invalid_request() {
        // OIDC Core 5.5; oidcc-claims-essential.
        let c = client(false, &["https://rp.example/cb"]);
        let table: &[(&str, &str, &[&str], &[&str])] = &[
            // (claims, error, id_token, userinfo)
            (
                r#"{"userinfo":{"name":{"essential":true}}}"#,
                "ok",
                &[],
                &["name"],
            ),
            (
                r#"{"id_token":{"groups":null,"email":{"essential":true}},"userinfo":{"address":{"value":"SE"}}}"#,
                "ok",
                &["groups"],
                &["address"],
            ),
            (r#"{"userinfo":{"email":null}}"#, "ok", &[], &[]),
            ("{", "invalid_request", &[], &[]),
            ("[1]", "invalid_request", &[], &[]),
            (r#"{"userinfo":{"name":1}}"#, "invalid_request", &[], &[]),
            (
                r#"{"id_token":{"name":{"essential":"true"}}}"#,
                "invalid_request",
                &[],
                &[],
            ),
        ];
        for (claims, want, id, ui) in table {
            let r = validate(&params(&with(good(), "claims", claims)), Some(&c));
            assert_eq!(code_of(r.clone()), *want, "{claims}");
            if let Ok(r) = r {
                assert_eq!(r.claims.id_token, *id, "{claims}");
                assert_eq!(r.claims.userinfo, *ui, "{claims}");
            }
        }
        let mut dup = with(good(), "claims", "{}");
        dup.push(("claims", "{}"));
        assert_eq!(
            code_of(validate(&params(&dup), Some(&c))),
            "invalid_request"
        );
        // Absent: nothing asked for by name.
        assert!(validate(&params(&good()), Some(&c))
            .unwrap()
            .claims
            .is_empty());
    }

    #[test]
    fn unknown_scopes_are_ignored() {
        let c = client(false, &["https://rp.example/cb"]);
        let r = validate(
            &params(&with(
                good(),
                "scope",
                "openid email profile email address2 openid",
            )),
            Some(&c),
        )
        .unwrap();
        assert_eq!(r.scopes.as_slice(), vec!["openid", "profile"]);
        assert_eq!(r.scope(), "openid profile");
        // Nothing known: nothing granted (and so no id_token), but no error either.
        let r = validate(&params(&with(good(), "scope", "email")), Some(&c)).unwrap();
        assert!(r.scopes.is_empty());
        let r = validate(&params(&without(good(), "scope")), Some(&c)).unwrap();
        assert_eq!(r.scopes.as_slice(), vec!["openid"]);
    }

    #[test]
    fn resources_at_authorization() {
        let c = client(false, &["https://rp.example/cb"]);
        let reg = vec![API.to_owned(), MCP.to_owned()];
        let mut two = good();
        two.push(("resource", API));
        two.push(("resource", MCP));
        let r = validate_with(&params(&two), Some(&c), &policy(&reg)).unwrap();
        assert_eq!(r.resources, vec![API, MCP]);
        assert!(r
            .restart_query()
            .contains("resource=https%3A%2F%2Fapi.example%2F&resource=urn%3Aexample%3Amcp"));
        assert!(validate(&params(&good()), Some(&c))
            .unwrap()
            .resources
            .is_empty());
        for (value, want) in [
            (
                "https://other.example/",
                "resource is not a registered resource server",
            ),
            (
                "https://api.example/#f",
                "a resource URI may not have a fragment",
            ),
            ("api", "a resource must be an absolute URI"),
        ] {
            match validate_with(
                &params(&with(good(), "resource", value)),
                Some(&c),
                &policy(&reg),
            ) {
                Err(AuthorizeError::Redirect(t, e)) => {
                    assert_eq!(e.error.as_str(), "invalid_target");
                    assert_eq!(e.error_description, want);
                    assert_eq!(t.state.as_deref(), Some("s1"));
                }
                other => panic!("{value}: {other:?}"),
            }
        }
        // No registered resources: any resource is refused.
        assert_eq!(
            code_of(validate(&params(&with(good(), "resource", API)), Some(&c))),
            "invalid_target"
        );
        // Other parameters still may not repeat.
        let mut dup = two.clone();
        dup.push(("state", "again"));
        assert_eq!(
            code_of(validate_with(&params(&dup), Some(&c), &policy(&reg))),
            "invalid_request"
        );
    }

    #[test]
    fn a5_public_clients_must_use_s256() {
        let c = client(true, &["https://rp.example/cb"]);
        assert_eq!(
            code_of(validate(&params(&good()), Some(&c))),
            "invalid_request"
        );
        let p = with(
            with(good(), "code_challenge", CHALLENGE),
            "code_challenge_method",
            "S256",
        );
        assert_eq!(
            validate(&params(&p), Some(&c))
                .unwrap()
                .code_challenge
                .as_deref(),
            Some(CHALLENGE)
        );
    }
}
