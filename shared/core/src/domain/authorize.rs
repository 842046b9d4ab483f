//! The authorization request (RFC 6749 §4.1.1, OIDC Core §3.1.2.1, spec 4.2): parsing and
//! validation, in the order that keeps errors safe.
//!
//! 1. `client_id` and `redirect_uri` first. If either is missing, repeated, unknown or not
//!    registered, the answer is never a redirect (docs/requirements.md A1-A3, RFC 6749 §4.1.2.1).
//! 2. Everything else is checked only once the redirect URI is trusted; its errors go back to
//!    the client as a redirect with `error`, `error_description`, `state` and `iss` (A7).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::domain::claims_request::{self, RequestedClaims};
use crate::domain::client::{Client, ClientType};
use crate::domain::discovery::SCOPES;
use crate::protocol::{ClientId, OAuthError, OAuthErrorCode, RedirectUri};

/// How the authorization response is delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseMode {
    Query,
    Fragment,
    FormPost,
}

/// `prompt` (OIDC Core §3.1.2.1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prompt {
    pub none: bool,
    pub login: bool,
    pub consent: bool,
}

/// A validated authorization request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthorizationRequest {
    pub client_id: ClientId,
    pub redirect_uri: RedirectUri,
    pub response_mode: ResponseMode,
    /// Optional with PKCE S256 (echoed when present); required without it.
    #[serde(default)]
    pub state: Option<String>,
    /// Optional (put in the id_token when present); required only with `require_nonce`.
    #[serde(default)]
    pub nonce: Option<String>,
    pub scopes: Vec<String>,
    /// S256 challenge (RFC 7636), 43 base64url characters.
    pub code_challenge: Option<String>,
    pub prompt: Prompt,
    pub max_age: Option<i64>,
    #[serde(default)]
    pub login_hint: Option<String>,
    #[serde(default)]
    pub ui_locales: Option<String>,
    /// The known claims the `claims` parameter asked for (OIDC Core §5.5).
    #[serde(default)]
    pub claims: RequestedClaims,
}

impl AuthorizationRequest {
    pub fn scope(&self) -> String {
        self.scopes.join(" ")
    }

    /// The query that starts this request again (offered when its QR login expires): only
    /// the parameters this request was validated into, never what else the client sent
    /// (unknown parameters are ignored, RFC 6749 §3.1, and are not kept either).
    pub fn restart_query(&self) -> String {
        let mut q = url::form_urlencoded::Serializer::new(String::new());
        q.append_pair("client_id", self.client_id.as_str())
            .append_pair("redirect_uri", self.redirect_uri.as_str())
            .append_pair("response_type", "code")
            .append_pair("scope", &self.scope());
        match self.response_mode {
            ResponseMode::Query => {}
            ResponseMode::Fragment => {
                q.append_pair("response_mode", "fragment");
            }
            ResponseMode::FormPost => {
                q.append_pair("response_mode", "form_post");
            }
        }
        let optional = [
            ("state", self.state.as_deref()),
            ("nonce", self.nonce.as_deref()),
            ("code_challenge", self.code_challenge.as_deref()),
            (
                "code_challenge_method",
                self.code_challenge.as_ref().map(|_| "S256"),
            ),
            ("login_hint", self.login_hint.as_deref()),
            ("ui_locales", self.ui_locales.as_deref()),
        ];
        let claims = self.claims.to_param();
        for (name, value) in optional.into_iter().chain([("claims", claims.as_deref())]) {
            if let Some(v) = value {
                q.append_pair(name, v);
            }
        }
        let prompt: Vec<&str> = [
            (self.prompt.none, "none"),
            (self.prompt.login, "login"),
            (self.prompt.consent, "consent"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
        if !prompt.is_empty() {
            q.append_pair("prompt", &prompt.join(" "));
        }
        if let Some(m) = self.max_age {
            q.append_pair("max_age", &m.to_string());
        }
        q.finish()
    }
}

/// Where an error may be sent once the redirect URI is trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorTarget {
    pub redirect_uri: String,
    pub response_mode: ResponseMode,
    pub state: Option<String>,
}

/// Why an authorization request was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthorizeError {
    /// `client_id` or `redirect_uri` is bad: show an error page, never redirect.
    Untrusted(&'static str),
    /// Redirect the error to the client.
    Redirect(ErrorTarget, OAuthError),
}

/// The request's parameters: every value of every name, in order.
#[derive(Debug, Clone, Default)]
pub struct Params(HashMap<String, Vec<String>>);

impl Params {
    pub fn from_pairs<I: IntoIterator<Item = (String, String)>>(pairs: I) -> Self {
        let mut m: HashMap<String, Vec<String>> = HashMap::new();
        for (k, v) in pairs {
            m.entry(k).or_default().push(v);
        }
        Self(m)
    }
    /// The single value of `name`: `Err` if repeated (RFC 6749 §3.1), `Ok(None)` if absent or
    /// empty (an empty parameter is treated as omitted).
    pub fn one(&self, name: &'static str) -> Result<Option<&str>, &'static str> {
        match self.0.get(name).map(Vec::as_slice) {
            None | Some([]) => Ok(None),
            Some([v]) => Ok(Some(v.as_str()).filter(|v| !v.is_empty())),
            Some(_) => Err(name),
        }
    }
    fn repeated(&self) -> Option<&str> {
        self.0
            .iter()
            .find(|(_, v)| v.len() > 1)
            .map(|(k, _)| k.as_str())
    }
}

/// Step 1: the client and its redirect URI.
pub fn trusted_target<'c>(
    params: &Params,
    client: Option<&'c Client>,
) -> Result<(&'c Client, String), AuthorizeError> {
    let client_id = params
        .one("client_id")
        .map_err(|_| AuthorizeError::Untrusted("client_id is repeated"))?
        .ok_or(AuthorizeError::Untrusted("client_id is missing"))?;
    let client = client
        .filter(|c| c.client_id == client_id)
        .ok_or(AuthorizeError::Untrusted("unknown client_id"))?;
    let redirect_uri = params
        .one("redirect_uri")
        .map_err(|_| AuthorizeError::Untrusted("redirect_uri is repeated"))?
        .ok_or(AuthorizeError::Untrusted("redirect_uri is missing"))?;
    if !client.redirect_uri_matches(redirect_uri) {
        return Err(AuthorizeError::Untrusted(
            "redirect_uri is not registered for this client",
        ));
    }
    Ok((client, redirect_uri.to_owned()))
}

/// The scope values scanid understands, in order, once each. Others are ignored (OIDC Core
/// §3.1.2.1: scope values the server does not understand SHOULD be ignored; Auth.js asks for
/// `email`), so what is granted, and reported in the token response's `scope` (RFC 6749 §3.3),
/// is only what scanid releases.
pub fn known_scopes(scope: &str) -> Vec<String> {
    let mut scopes: Vec<String> = Vec::new();
    for s in scope.split(' ').filter(|s| !s.is_empty()) {
        if SCOPES.contains(&s) && !scopes.iter().any(|x| x == s) {
            scopes.push(s.to_owned());
        }
    }
    scopes
}

fn base64url_43(s: &str) -> bool {
    s.len() == 43
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Steps 1 and 2 with the default policy: `nonce` optional, `state` optional with PKCE S256.
pub fn validate(
    params: &Params,
    client: Option<&Client>,
) -> Result<AuthorizationRequest, AuthorizeError> {
    validate_with(params, client, false)
}

/// Steps 1 and 2: a validated request, or where and what to answer.
///
/// `nonce` and `state`: OIDC Core §3.1.2.1 makes `nonce` optional on a code flow (the
/// OpenID Foundation's Basic OP plan requires a code request without it to succeed), so it is
/// optional always, and put in the id_token when sent. `state` protects a client without PKCE
/// against CSRF (RFC 9700 §2.1.1): required without PKCE S256, optional with it.
/// `require_nonce` (`SCANID_REQUIRE_NONCE=true`, the strict rule) requires both always.
pub fn validate_with(
    params: &Params,
    client: Option<&Client>,
    require_nonce: bool,
) -> Result<AuthorizationRequest, AuthorizeError> {
    let (client, redirect_uri) = trusted_target(params, client)?;
    // The response mode decides how errors travel, so read it before anything else.
    let mode_param = params.one("response_mode");
    let response_mode = match mode_param {
        Ok(Some("fragment")) => ResponseMode::Fragment,
        Ok(Some("form_post")) => ResponseMode::FormPost,
        _ => ResponseMode::Query,
    };
    let state = params.one("state").ok().flatten().map(str::to_owned);
    let target = ErrorTarget {
        redirect_uri: redirect_uri.clone(),
        response_mode,
        state: state.clone(),
    };
    let fail = |code: OAuthErrorCode, d: &'static str| {
        AuthorizeError::Redirect(target.clone(), OAuthError::new(code, d))
    };
    let invalid = |d: &'static str| fail(OAuthErrorCode::InvalidRequest, d);

    if let Some(name) = params.repeated() {
        let _ = name;
        return Err(invalid("a parameter is repeated"));
    }
    match mode_param {
        Ok(None | Some("query" | "fragment" | "form_post")) => {}
        _ => {
            return Err(invalid(
                "response_mode must be query, fragment or form_post",
            ))
        }
    }
    match params.one("response_type") {
        Ok(Some("code")) => {}
        Ok(None) => return Err(invalid("response_type is required")),
        _ => {
            return Err(fail(
                OAuthErrorCode::UnsupportedResponseType,
                "only response_type=code is supported",
            ))
        }
    }
    // OIDC Core §3.1.2.6 names these errors; discovery says both are unsupported.
    if params.one("request").ok().flatten().is_some() {
        return Err(fail(
            OAuthErrorCode::RequestNotSupported,
            "request objects are not supported",
        ));
    }
    if params.one("request_uri").ok().flatten().is_some() {
        return Err(fail(
            OAuthErrorCode::RequestUriNotSupported,
            "request_uri is not supported",
        ));
    }
    if state.as_ref().is_some_and(|s| s.len() > 2048) {
        return Err(invalid("state is longer than 2048 characters"));
    }
    let nonce = match params.one("nonce") {
        Ok(Some(n)) if n.len() <= 2048 => Some(n.to_owned()),
        Ok(Some(_)) => return Err(invalid("nonce is longer than 2048 characters")),
        Ok(None) => None,
        Err(_) => return Err(invalid("a parameter is repeated")),
    };
    let scope = params.one("scope").ok().flatten().unwrap_or("openid");
    let scopes = known_scopes(scope);
    let method = params.one("code_challenge_method").ok().flatten();
    let code_challenge = match (params.one("code_challenge").ok().flatten(), method) {
        (None, None) => None,
        (None, Some(_)) => return Err(invalid("code_challenge_method without code_challenge")),
        (Some(_), Some(m)) if m != "S256" => {
            return Err(invalid("code_challenge_method must be S256"))
        }
        (Some(_), None) => {
            return Err(invalid(
                "code_challenge_method must be S256 (plain is not supported)",
            ))
        }
        (Some(c), Some(_)) if !base64url_43(c) => {
            return Err(invalid("code_challenge must be 43 base64url characters"))
        }
        (Some(c), Some(_)) => Some(c.to_owned()),
    };
    if client.client_type == ClientType::Public && code_challenge.is_none() {
        return Err(invalid(
            "public clients must use PKCE (code_challenge with S256)",
        ));
    }
    if state.is_none() && (code_challenge.is_none() || require_nonce) {
        return Err(invalid("state is required (optional only with PKCE S256)"));
    }
    if nonce.is_none() && require_nonce {
        return Err(invalid("nonce is required"));
    }
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
            _ => return Err(invalid("prompt must be none, login or consent")),
        }
    }
    if prompt.none && (prompt.login || prompt.consent) {
        return Err(invalid("prompt=none cannot be combined with other values"));
    }
    let max_age = match params.one("max_age").ok().flatten() {
        None => None,
        Some(v) => match v.parse::<i64>() {
            Ok(n) if n >= 0 => Some(n),
            _ => return Err(invalid("max_age must be a non-negative integer")),
        },
    };
    let claims = match params.one("claims") {
        Ok(None) => RequestedClaims::default(),
        Ok(Some(raw)) => claims_request::parse(raw).map_err(|m| invalid(m.0))?,
        Err(_) => return Err(invalid("a parameter is repeated")),
    };
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
        redirect_uri: redirect_uri.into(),
        response_mode,
        state,
        nonce,
        scopes,
        code_challenge,
        prompt,
        max_age,
        login_hint: short("login_hint"),
        ui_locales: short("ui_locales"),
        claims,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Timestamp;
    use crate::domain::client::{register, NewClient};
    use crate::random::SeededRandom;

    const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

    fn client(public: bool, uris: &[&str]) -> Client {
        register(
            NewClient {
                name: "RP".into(),
                redirect_uris: uris.iter().map(|u| u.to_string()).collect(),
                public,
                client_id: Some("rp".into()),
                ..Default::default()
            },
            Timestamp::from_secs(0),
            &SeededRandom::new(1),
        )
        .unwrap()
        .0
    }

    fn params(pairs: &[(&str, &str)]) -> Params {
        Params::from_pairs(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())))
    }

    fn good() -> Vec<(&'static str, &'static str)> {
        vec![
            ("client_id", "rp"),
            ("redirect_uri", "https://rp.example/cb"),
            ("response_type", "code"),
            ("state", "s1"),
            ("nonce", "n1"),
            ("scope", "openid profile"),
        ]
    }

    #[test]
    fn the_restart_query_keeps_only_what_the_request_was_validated_into() {
        let c = client(false, &["https://rp.example/cb"]);
        let big = "x".repeat(60_000);
        let mut pairs = with(good(), "code_challenge", CHALLENGE);
        pairs.push(("code_challenge_method", "S256"));
        pairs.push(("prompt", "login consent"));
        pairs.push(("max_age", "0"));
        pairs.push(("response_mode", "fragment"));
        pairs.push(("login_hint", "alice"));
        let mut p: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        p.push(("padding".into(), big.clone()));
        // The claims parameter is kept as what it asked for of what scanid knows.
        p.push((
            "claims".into(),
            format!(r#"{{"userinfo":{{"name":{{"essential":true}},"email":null}},"x":"{big}"}}"#),
        ));
        let req = validate(&Params::from_pairs(p), Some(&c)).unwrap();
        assert_eq!(req.claims.userinfo, vec!["name".to_owned()]);
        let q = req.restart_query();
        assert!(q.len() < 600, "{} bytes", q.len());
        assert!(!q.contains("padding") && !q.contains("email"), "{q}");
        assert!(q.contains("claims="), "{q}");
        // It validates into the same request again.
        let again = validate(
            &Params::from_pairs(url::form_urlencoded::parse(q.as_bytes()).into_owned()),
            Some(&c),
        )
        .unwrap();
        assert_eq!(again, req);
    }

    fn with(
        mut base: Vec<(&'static str, &'static str)>,
        k: &'static str,
        v: &'static str,
    ) -> Vec<(&'static str, &'static str)> {
        base.retain(|(n, _)| *n != k);
        base.push((k, v));
        base
    }

    fn without(
        mut base: Vec<(&'static str, &'static str)>,
        k: &str,
    ) -> Vec<(&'static str, &'static str)> {
        base.retain(|(n, _)| *n != k);
        base
    }

    fn code_of(r: Result<AuthorizationRequest, AuthorizeError>) -> String {
        match r {
            Err(AuthorizeError::Redirect(_, e)) => e.error.as_str().to_owned(),
            Err(AuthorizeError::Untrusted(m)) => format!("untrusted: {m}"),
            Ok(_) => "ok".into(),
        }
    }

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
        assert_eq!(
            code_of(validate_with(&params(&bare), Some(&c), true)),
            "invalid_request"
        );
        assert!(validate_with(&params(&pkce), Some(&c), true).is_ok());
        assert_eq!(r.scopes, vec!["openid", "profile"]);
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
    fn errors_after_the_redirect_is_trusted() {
        let c = client(false, &["https://rp.example/cb"]);
        let cases: Vec<(Vec<(&str, &str)>, &str)> = vec![
            (
                with(good(), "response_type", "token"),
                "unsupported_response_type",
            ),
            (without(good(), "response_type"), "invalid_request"),
            (without(good(), "state"), "invalid_request"),
            (with(good(), "response_mode", "jwt"), "invalid_request"),
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
            (with(good(), "request", "eyJ..."), "request_not_supported"),
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
        assert_eq!(
            code_of(validate_with(
                &params(&without(good(), "nonce")),
                Some(&c),
                true
            )),
            "invalid_request"
        );
        assert!(validate_with(&params(&good()), Some(&c), true).is_ok());
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
        assert_eq!(r.scopes, vec!["openid", "profile"]);
        assert_eq!(r.scope(), "openid profile");
        // Nothing known: nothing granted (and so no id_token), but no error either.
        let r = validate(&params(&with(good(), "scope", "email")), Some(&c)).unwrap();
        assert!(r.scopes.is_empty());
        let r = validate(&params(&without(good(), "scope")), Some(&c)).unwrap();
        assert_eq!(r.scopes, vec!["openid"]);
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

    #[test]
    fn error_target_keeps_state_and_mode() {
        let c = client(false, &["https://rp.example/cb"]);
        let p = with(
            with(good(), "response_mode", "fragment"),
            "response_type",
            "id_token",
        );
        match validate(&params(&p), Some(&c)) {
            Err(AuthorizeError::Redirect(t, _)) => {
                assert_eq!(t.response_mode, ResponseMode::Fragment);
                assert_eq!(t.state.as_deref(), Some("s1"));
            }
            other => panic!("{other:?}"),
        }
    }
}
