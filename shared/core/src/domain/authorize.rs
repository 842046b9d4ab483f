//! The authorization request (RFC 6749 §4.1.1, OIDC Core §3.1.2.1, spec 4.2): parsing and
//! validation, in the order that keeps errors safe.
//!
//! 1. `client_id` and `redirect_uri` first. If either is missing, repeated, unknown or not
//!    registered, the answer is never a redirect (docs/requirements.md A1-A3, RFC 6749 §4.1.2.1).
//! 2. Everything else is checked only once the redirect URI is trusted; its errors go back to
//!    the client as a redirect with `error`, `error_description`, `state` and `iss` (A7).

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;
use crate::domain::authn::AcrRequest;
use crate::domain::claims_request::{self, RequestedClaims};
use crate::domain::client::{Client, ClientType};
use crate::domain::discovery::SCOPES;
use crate::domain::request_object::{self, RequestObject};
use crate::domain::resource_indicator;
/// The request's parameters: moved to `protocol` (a wire value), named here as before.
pub use crate::protocol::Params;
use crate::protocol::{ClientId, OAuthError, OAuthErrorCode, RedirectUri, Scopes};

/// How the authorization response is delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseMode {
    /// Parameters in the redirect URI's query.
    Query,
    /// Parameters in the redirect URI's fragment.
    Fragment,
    /// A self-submitting form POST to the redirect URI.
    FormPost,
}

/// `prompt` (OIDC Core §3.1.2.1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prompt {
    /// `none`: no page may be shown.
    pub none: bool,
    /// `login`: authenticate again, even with an SSO session.
    pub login: bool,
    /// `consent`: ask for consent again.
    pub consent: bool,
}

/// A validated authorization request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthorizationRequest {
    /// The client asking.
    pub client_id: ClientId,
    /// Its redirect URI, one it registered.
    pub redirect_uri: RedirectUri,
    /// How the response goes back.
    pub response_mode: ResponseMode,
    /// Optional with PKCE S256 (echoed when present); required without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Optional (put in the id_token when present); required only with `require_nonce`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<String>,
    /// The supported scopes asked for.
    pub scopes: Scopes,
    /// S256 challenge (RFC 7636), 43 base64url characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_challenge: Option<String>,
    /// `prompt`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub prompt: Prompt,
    /// `max_age`: the longest since authentication an SSO session may vouch for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_age: Option<i64>,
    /// `login_hint`, as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login_hint: Option<String>,
    /// `ui_locales`, as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ui_locales: Option<String>,
    /// The resource servers the access tokens may be for (RFC 8707), all registered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<String>,
    /// The known claims the `claims` parameter asked for (OIDC Core §5.5).
    #[serde(default, skip_serializing_if = "is_default")]
    pub claims: RequestedClaims,
}

/// Stored requests leave out what is empty or default (a login record stays within one
/// DynamoDB write unit); reading fills it back in.
fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

impl AuthorizationRequest {
    /// The granted scopes as a `scope` value.
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
        for r in &self.resources {
            q.append_pair("resource", r);
        }
        q.finish()
    }
}

/// Where an error may be sent once the redirect URI is trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorTarget {
    /// The redirect URI.
    pub redirect_uri: String,
    /// How the error goes back.
    pub response_mode: ResponseMode,
    /// The request's `state`, echoed.
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
pub fn known_scopes(scope: &str) -> Scopes {
    Scopes::supported(scope, SCOPES)
}

fn base64url_43(s: &str) -> bool {
    s.len() == 43
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// What the deployment decides about authorization requests.
#[derive(Debug, Clone, Copy)]
pub struct Policy<'a> {
    /// `SCANID_REQUIRE_NONCE`.
    pub require_nonce: bool,
    /// `SCANID_RESOURCES`: the registered resource servers (RFC 8707).
    pub resources: &'a [String],
    /// The issuer: a request object's `aud`.
    pub issuer: &'a str,
    /// Now: a request object's `exp`.
    pub now: Timestamp,
}

impl Default for Policy<'_> {
    fn default() -> Self {
        Self {
            require_nonce: false,
            resources: &[],
            issuer: "",
            now: Timestamp::from_secs(0),
        }
    }
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
    let object = request_object_of(query, client)?;
    let merged = object.as_ref().map(|o| o.merged_over(query));
    let params = merged.as_ref().unwrap_or(query);
    let (client, redirect_uri) = trusted_target(params, client)?;
    // The response mode decides how errors travel, so read it before anything else.
    let mode_param = params.one("response_mode");
    let state = params.one("state").ok().flatten().map(str::to_owned);
    let refuse = Refuse(ErrorTarget {
        redirect_uri: redirect_uri.clone(),
        response_mode: response_mode_of(mode_param),
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

/// How a `response_mode` parameter delivers (an invalid one is refused later, by query).
fn response_mode_of(mode: Result<Option<&str>, &'static str>) -> ResponseMode {
    match mode {
        Ok(Some("fragment")) => ResponseMode::Fragment,
        Ok(Some("form_post")) => ResponseMode::FormPost,
        _ => ResponseMode::Query,
    }
}

/// The request object (`request`), decoded; `None` without one. Refused (with `request_uri`
/// beside it, or undecodable) at the redirect URI the request names, once found registered.
fn request_object_of(
    query: &Params,
    client: Option<&Client>,
) -> Result<Option<RequestObject>, AuthorizeError> {
    if let (Ok(Some(_)), Ok(Some(_))) = (query.one("request"), query.one("request_uri")) {
        let (_, redirect_uri) = trusted_target(query, client)?;
        return Err(query_target_error(
            query,
            redirect_uri,
            OAuthErrorCode::InvalidRequest,
            "request and request_uri cannot both be sent",
        ));
    }
    let Ok(Some(jwt)) = query.one("request") else {
        return Ok(None);
    };
    match request_object::decode(jwt) {
        Ok(o) => Ok(Some(o)),
        Err(why) => {
            // Refused; the error goes where the (unverified) object or the query says, once
            // that redirect URI is found registered.
            let unverified = request_object::unverified(jwt).map(|o| o.merged_over(query));
            let target = unverified.as_ref().unwrap_or(query);
            let (_, redirect_uri) = trusted_target(target, client)?;
            Err(query_target_error(
                target,
                redirect_uri,
                OAuthErrorCode::InvalidRequestObject,
                why,
            ))
        }
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
    if !matches!(mode, Ok(None | Some("query" | "fragment" | "form_post"))) {
        return Err(refuse.invalid("response_mode must be query, fragment or form_post"));
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
    if client.client_type == ClientType::Public && code_challenge.is_none() {
        return Err(refuse.invalid("public clients must use PKCE (code_challenge with S256)"));
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
fn query_target_error(
    query: &Params,
    redirect_uri: String,
    code: OAuthErrorCode,
    description: &'static str,
) -> AuthorizeError {
    let response_mode = response_mode_of(query.one("response_mode"));
    AuthorizeError::Redirect(
        ErrorTarget {
            redirect_uri,
            response_mode,
            state: query.one("state").ok().flatten().map(str::to_owned),
        },
        OAuthError::new(code, description),
    )
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

    const ISSUER: &str = "https://id.example/realms/r";
    const API: &str = "https://api.example/";
    const MCP: &str = "urn:example:mcp";

    fn policy(resources: &[String]) -> Policy<'_> {
        Policy {
            require_nonce: false,
            resources,
            issuer: ISSUER,
            now: Timestamp::from_secs(1000),
        }
    }

    fn owned(pairs: Vec<(&str, String)>) -> Params {
        Params::from_pairs(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)))
    }

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
                "signed request objects are not supported",
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
