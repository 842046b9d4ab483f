//! Server-rendered pages of the login flow. No third-party resources; every page carries
//! `Content-Security-Policy` with a per-response nonce for its one script and style,
//! `frame-ancestors 'none'`, `X-Frame-Options: DENY` and `Referrer-Policy: no-referrer`
//! (docs/requirements.md B1, B2). The markup is in askama templates ([`crate::views`]), which escape
//! every reflected value (B4); this module sends them.

use askama::Template;
use lambda_http::Body;

use crate::domain::authorize::Delivery;
use crate::i18n::Tr;
use crate::random::{self, Random};
use crate::usecase::login::AuthResponse;
use crate::views;
use crate::{base, finish, Response};

/// HTML-escapes text for element content and quoted attributes (templates escape by
/// themselves: this is for markup built outside them).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// The QR code of `text` as an inline SVG element ([`scanid_qr::svg`]); empty, with the
/// error logged, if the text cannot be encoded.
pub fn qr_svg(text: &str) -> String {
    scanid_qr::svg(text).unwrap_or_else(|e| {
        tracing::error!(error = %e, "QR encoding failed");
        String::new()
    })
}

/// Where forms on a page may go: this service and the client's redirect origin (browsers apply
/// `form-action` to the redirect that follows a form post).
pub fn form_targets(redirect_uri: Option<&str>) -> String {
    let mut t = String::from("'self'");
    if let Some(u) = redirect_uri.and_then(|u| url::Url::parse(u).ok()) {
        let origin = u.origin();
        if origin.is_tuple() {
            t.push(' ');
            t.push_str(&origin.ascii_serialization());
        } else {
            t.push_str(&format!(" {}:", u.scheme()));
        }
    }
    t
}

/// A page response: a fresh CSP nonce, the page `render` makes with it (a template of
/// [`crate::views`]), and the headers every page carries. `form_action` is the CSP's
/// `form-action` ([`form_targets`], or `'none'`).
pub fn html(
    rng: &dyn Random,
    status: u16,
    form_action: &str,
    cookies: Vec<String>,
    render: impl FnOnce(&str) -> askama::Result<String>,
) -> Response {
    html_connecting(rng, (status, form_action, "'self'"), cookies, render)
}

/// [`html`] for a page whose script also fetches from elsewhere: `connect_src` is the CSP's
/// `connect-src` (the QR page's: `'self'` and the origin it polls its status from).
pub fn html_connecting(
    rng: &dyn Random,
    (status, form_action, connect_src): (u16, &str, &str),
    cookies: Vec<String>,
    render: impl FnOnce(&str) -> askama::Result<String>,
) -> Response {
    let nonce = random::token(rng, 16);
    let html = match render(&nonce) {
        Ok(html) => html,
        Err(e) => {
            tracing::error!(error = %e, "rendering a page");
            return finish(security_headers(base(500)), Body::Empty);
        }
    };
    let csp = format!(
        "default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; img-src 'self' data:; \
         connect-src {connect_src}; form-action {form_action}; frame-ancestors 'none'; base-uri 'none'"
    );
    let mut b = security_headers(base(status))
        .header("content-type", "text/html; charset=utf-8")
        .header("content-security-policy", csp);
    for c in cookies {
        b = b.header("set-cookie", c);
    }
    finish(b, Body::Text(html))
}

/// Headers every login-flow response carries, pages and redirects alike.
pub fn security_headers(b: http::response::Builder) -> http::response::Builder {
    b.header("x-frame-options", "DENY")
        .header("referrer-policy", "no-referrer")
        .header("cache-control", "no-store")
        .header("pragma", "no-cache")
}

/// An error page (never a redirect): used for untrusted client_id/redirect_uri and for
/// login-page errors. `title` and `message` are message ids of the catalogues; `detail`, the
/// technical reason, is shown as it is (empty: none).
pub fn error_page(
    tr: &Tr,
    status: u16,
    (title, message): (&str, &str),
    detail: &str,
    rng: &dyn Random,
) -> Response {
    // `'self'`: the language selector's form.
    html(rng, status, "'self'", Vec::new(), |nonce| {
        views::ErrorPage {
            nonce,
            tr,
            title: &tr.t(title),
            message: &tr.t(message),
            detail,
        }
        .render()
    })
}

/// The authorization response: a 302/303 redirect (query or fragment) or, for `form_post`, an
/// auto-submitting form (OAuth 2.0 Form Post Response Mode).
pub fn auth_response(
    tr: &Tr,
    r: &AuthResponse,
    after_post: bool,
    cookies: Vec<String>,
    rng: &dyn Random,
) -> Response {
    let encoded = {
        let mut s = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in &r.params {
            s.append_pair(k, v);
        }
        s.finish()
    };
    // A JARM response is signed before it gets here ([`crate::service::auth_response::seal`]):
    // its mode is the plain one it travels by.
    let location = match r.mode.delivery() {
        Delivery::Query => {
            let sep = if r.redirect_uri.contains('?') {
                '&'
            } else {
                '?'
            };
            format!("{}{sep}{encoded}", r.redirect_uri)
        }
        Delivery::Fragment => format!("{}#{encoded}", r.redirect_uri),
        Delivery::FormPost => {
            return html(
                rng,
                200,
                &form_targets(Some(&r.redirect_uri)),
                cookies,
                |nonce| {
                    views::FormPost {
                        nonce,
                        tr,
                        action: &r.redirect_uri,
                        params: &r.params,
                    }
                    .render()
                },
            );
        }
    };
    let mut b =
        security_headers(base(if after_post { 303 } else { 302 })).header("location", location);
    for c in cookies {
        b = b.header("set-cookie", c);
    }
    finish(b, Body::Empty)
}

/// What each scope means to a person: its message id in the catalogues (`scope-…`).
pub fn describe_scope(scope: &str) -> &'static str {
    match scope {
        "openid" => "scope-openid",
        "profile" => "scope-profile",
        "groups" => "scope-groups",
        "address" => "scope-address",
        "offline_access" => "scope-offline_access",
        _ => "scope-other",
    }
}

/// What each claim a client may ask for by name (the `claims` parameter, OIDC Core §5.5)
/// means to a person: its message id.
pub fn describe_claim(claim: &str) -> &'static str {
    match claim {
        "name" => "claim-name",
        "preferred_username" => "claim-preferred_username",
        "picture" => "claim-picture",
        "updated_at" => "claim-updated_at",
        "groups" => "scope-groups",
        "address" => "scope-address",
        _ => "scope-other",
    }
}

/// The consent page's list (message ids): each scope, then each claim asked for by name that
/// no scope of the request releases already; each said once (`profile` says the groups, so
/// `groups` beside it adds nothing).
pub fn describe_request(req: &crate::domain::authorize::AuthorizationRequest) -> Vec<&'static str> {
    let by_name = req
        .claims
        .all()
        .into_iter()
        .filter(|c| !crate::domain::claims_request::scopes_release(&req.scopes, c))
        .map(|c| describe_claim(&c));
    let has_profile = req.scopes.iter().any(|s| s == "profile");
    let mut out: Vec<&'static str> = Vec::new();
    for id in req
        .scopes
        .iter()
        .filter(|s| !(has_profile && *s == "groups"))
        .map(|s| describe_scope(s))
        .chain(by_name)
    {
        if !out.contains(&id) {
            out.push(id);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ClientId, RedirectUri};

    #[test]
    fn escapes_everything_that_matters() {
        assert_eq!(
            escape(r#"<script>alert("x")</script>&'"#),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;"
        );
    }

    #[test]
    fn form_targets_name_the_redirect_origin() {
        assert_eq!(
            form_targets(Some("https://rp.example:8443/cb?x=1")),
            "'self' https://rp.example:8443"
        );
        assert_eq!(
            form_targets(Some("com.example.app:/cb")),
            "'self' com.example.app:"
        );
        assert_eq!(form_targets(None), "'self'");
    }

    #[test]
    fn every_scope_scanid_grants_is_described_on_the_consent_page_and_in_the_web_app() {
        let app_js = include_str!("../static/app/approve.js");
        for scope in crate::domain::discovery::SCOPES {
            assert_ne!(describe_scope(scope), describe_scope("unknown"), "{scope}");
            assert!(
                app_js.contains(&format!("\n  {scope}:")),
                "{scope} in approve.js"
            );
        }
        let en = |id| crate::i18n::text(crate::domain::locale::Locale::En, id, &[]);
        assert!(en(describe_scope("profile")).contains("groups"));
        assert!(en(describe_scope("address")).contains("country"));
    }

    #[test]
    fn the_consent_page_lists_the_claims_asked_for_by_name() {
        for c in crate::domain::claims_request::REQUESTABLE {
            assert_ne!(describe_claim(c), describe_claim("unknown"), "{c}");
        }
        let req = |scope: &str, claims: &str| crate::domain::authorize::AuthorizationRequest {
            client_id: ClientId::new("rp"),
            redirect_uri: RedirectUri::new("https://rp.example/cb"),
            response_mode: crate::domain::authorize::ResponseMode::Query,
            state: None,
            nonce: None,
            scopes: crate::domain::authorize::known_scopes(scope),
            code_challenge: None,
            dpop_jkt: None,
            prompt: Default::default(),
            max_age: None,
            login_hint: None,
            ui_locales: None,
            resources: Vec::new(),
            claims: crate::domain::claims_request::parse(claims).unwrap(),
        };
        let openid = describe_scope("openid");
        assert_eq!(
            describe_request(&req(
                "openid",
                r#"{"userinfo":{"name":{"essential":true}}}"#
            )),
            vec![openid, "claim-name"]
        );
        // Released by a scope already: listed once, by the scope.
        assert_eq!(
            describe_request(&req(
                "openid profile",
                r#"{"id_token":{"name":null,"address":null},"userinfo":{"email":null}}"#
            )),
            vec![openid, describe_scope("profile"), "scope-address"]
        );
        // `profile` says the groups: `groups` beside it is not said twice.
        assert_eq!(
            describe_request(&req("openid profile groups", "{}")),
            vec![openid, describe_scope("profile")]
        );
        assert_eq!(
            describe_request(&req("openid groups", "{}")),
            vec![openid, "scope-groups"]
        );
        assert_eq!(describe_request(&req("openid", "{}")), vec![openid]);
    }
}
