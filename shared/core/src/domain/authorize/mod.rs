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
use crate::protocol::{Alg, ClientId, OAuthError, OAuthErrorCode, RedirectUri, Scopes};

mod object;
mod validate;

pub use object::refuse_object;
pub use validate::{validate, validate_with};

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
    /// JARM (JWT Secured Authorization Response Mode): the parameters as the claims of one
    /// JWT, `response`, signed with `alg` (the client's), delivered `over` a plain mode.
    Jwt {
        /// How the `response` parameter travels.
        over: Delivery,
        /// The client's signing algorithm (never RS256 for a FAPI 2.0 client).
        alg: Alg,
    },
}

/// How a JARM response's `response` parameter travels (`query.jwt`, `fragment.jwt`,
/// `form_post.jwt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Delivery {
    /// In the query.
    Query,
    /// In the fragment.
    Fragment,
    /// In a self-submitting form.
    FormPost,
}

/// The `response_mode` values scanid understands (`jwt` is `query.jwt` for the code flow).
pub const RESPONSE_MODES: &[&str] = &[
    "query",
    "fragment",
    "form_post",
    "jwt",
    "query.jwt",
    "fragment.jwt",
    "form_post.jwt",
];

impl ResponseMode {
    /// The mode `response_mode` names (an unknown or absent one: `query`; an unknown one is
    /// refused by the validation), a JARM one signing with `alg`.
    pub fn of(param: Option<&str>, alg: Alg) -> Self {
        let jwt = |over| ResponseMode::Jwt { over, alg };
        match param {
            Some("fragment") => ResponseMode::Fragment,
            Some("form_post") => ResponseMode::FormPost,
            Some("jwt" | "query.jwt") => jwt(Delivery::Query),
            Some("fragment.jwt") => jwt(Delivery::Fragment),
            Some("form_post.jwt") => jwt(Delivery::FormPost),
            _ => ResponseMode::Query,
        }
    }

    /// How the response travels: a JARM mode by its plain one.
    pub fn delivery(self) -> Delivery {
        match self {
            ResponseMode::Query => Delivery::Query,
            ResponseMode::Fragment => Delivery::Fragment,
            ResponseMode::FormPost => Delivery::FormPost,
            ResponseMode::Jwt { over, .. } => over,
        }
    }

    /// Its `response_mode` value.
    pub fn param(self) -> &'static str {
        match self {
            ResponseMode::Query => "query",
            ResponseMode::Fragment => "fragment",
            ResponseMode::FormPost => "form_post",
            ResponseMode::Jwt { over, .. } => match over {
                Delivery::Query => "query.jwt",
                Delivery::Fragment => "fragment.jwt",
                Delivery::FormPost => "form_post.jwt",
            },
        }
    }
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
    /// `dpop_jkt` (RFC 9449 §10): the code is bound to this DPoP key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_jkt: Option<String>,
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
    /// The request a login started without a browser stands for (a device authorization, a
    /// backchannel request): `client`'s, for `scopes`, answered at `endpoint` (no redirect
    /// URI is ever used), with the client's minimum `acr` and nothing else asked.
    pub fn without_browser(client: &Client, endpoint: String, scopes: Scopes) -> Self {
        Self {
            client_id: client.client_id.clone(),
            redirect_uri: RedirectUri::new(endpoint),
            response_mode: ResponseMode::Query,
            state: None,
            nonce: None,
            scopes,
            code_challenge: None,
            dpop_jkt: None,
            prompt: Prompt::default(),
            max_age: None,
            login_hint: None,
            ui_locales: None,
            resources: Vec::new(),
            claims: RequestedClaims {
                acr: AcrRequest::default().with_client_minimum(client.require_acr),
                ..Default::default()
            },
        }
    }

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
        if self.response_mode != ResponseMode::Query {
            q.append_pair("response_mode", self.response_mode.param());
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
    /// The client: a JARM response's `aud`.
    pub client_id: ClientId,
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
    /// The realm's signing algorithm: a JARM response's, unless the client has its own.
    pub signing_alg: Alg,
}

impl Default for Policy<'_> {
    fn default() -> Self {
        Self {
            require_nonce: false,
            resources: &[],
            issuer: "",
            now: Timestamp::from_secs(0),
            signing_alg: Alg::RS256,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Timestamp;
    use crate::domain::client::{register, NewClient};
    use crate::random::SeededRandom;

    pub(super) const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

    pub(super) fn client(public: bool, uris: &[&str]) -> Client {
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

    pub(super) fn params(pairs: &[(&str, &str)]) -> Params {
        Params::from_pairs(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())))
    }

    pub(super) fn good() -> Vec<(&'static str, &'static str)> {
        vec![
            ("client_id", "rp"),
            ("redirect_uri", "https://rp.example/cb"),
            ("response_type", "code"),
            ("state", "s1"),
            ("nonce", "n1"),
            ("scope", "openid profile"),
        ]
    }

    pub(super) fn with(
        mut base: Vec<(&'static str, &'static str)>,
        k: &'static str,
        v: &'static str,
    ) -> Vec<(&'static str, &'static str)> {
        base.retain(|(n, _)| *n != k);
        base.push((k, v));
        base
    }

    pub(super) fn without(
        mut base: Vec<(&'static str, &'static str)>,
        k: &str,
    ) -> Vec<(&'static str, &'static str)> {
        base.retain(|(n, _)| *n != k);
        base
    }

    pub(super) fn code_of(r: Result<AuthorizationRequest, AuthorizeError>) -> String {
        match r {
            Err(AuthorizeError::Redirect(_, e)) => e.error.as_str().to_owned(),
            Err(AuthorizeError::Untrusted(m)) => format!("untrusted: {m}"),
            Ok(_) => "ok".into(),
        }
    }

    pub(super) const ISSUER: &str = "https://id.example/realms/r";

    pub(super) const API: &str = "https://api.example/";

    pub(super) const MCP: &str = "urn:example:mcp";

    pub(super) fn policy(resources: &[String]) -> Policy<'_> {
        Policy {
            require_nonce: false,
            resources,
            issuer: ISSUER,
            now: Timestamp::from_secs(1000),
            signing_alg: Alg::ES256,
        }
    }

    pub(super) fn owned(pairs: Vec<(&str, String)>) -> Params {
        Params::from_pairs(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)))
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
