//! Server-rendered pages of the login flow. No third-party resources; every page carries
//! `Content-Security-Policy` with a per-response nonce for its one script and style,
//! `frame-ancestors 'none'`, `X-Frame-Options: DENY` and `Referrer-Policy: no-referrer`
//! (SECURITY.md B1, B2). Every reflected value goes through [`escape`] (B4).

use lambda_http::Body;

use crate::domain::authorize::ResponseMode;
use crate::random::{self, Random};
use crate::usecase::login::AuthResponse;
use crate::{base, finish, Response};

/// HTML-escapes text for element content and quoted attributes.
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

/// The QR code of `text` as an inline SVG element.
pub fn qr_svg(text: &str) -> String {
    match qrcode::QrCode::new(text.as_bytes()) {
        Ok(code) => {
            let svg = code
                .render::<qrcode::render::svg::Color>()
                .min_dimensions(256, 256)
                .quiet_zone(true)
                .build();
            // Drop the XML declaration: the SVG is inlined in HTML.
            match svg.find("<svg") {
                Some(i) => svg[i..].to_owned(),
                None => svg,
            }
        }
        Err(e) => {
            tracing::error!(error = %e, "QR encoding failed");
            String::new()
        }
    }
}

const STYLE: &str = "body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;background:#f4f5f7;color:#1d2330;margin:0}
main{max-width:28rem;margin:3rem auto;background:#fff;border-radius:12px;padding:2rem;box-shadow:0 1px 4px rgba(0,0,0,.12)}
h1{font-size:1.3rem;margin-top:0}.qr svg{display:block;margin:1rem auto;width:256px;height:256px}
.muted{color:#5b6478;font-size:.9rem}ul.scopes{padding-left:1.2rem}
.buttons{display:flex;gap:.75rem;margin-top:1.5rem}button{flex:1;padding:.7rem;border-radius:8px;border:1px solid #1d4ed8;font-size:1rem;cursor:pointer}
button.allow{background:#1d4ed8;color:#fff}button.deny{background:#fff;color:#1d4ed8}
a{color:#1d4ed8}a.button{display:inline-block;background:#1d4ed8;color:#fff;padding:.7rem 1.2rem;border-radius:8px;text-decoration:none}
pre{background:#f4f5f7;padding:.75rem;border-radius:8px;overflow:auto;font-size:.8rem}.stores a{margin-right:1rem}.applink{word-break:break-all;font-size:.8rem}";

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

/// A complete HTML response.
pub struct Page<'a> {
    pub status: u16,
    pub title: &'a str,
    /// Trusted HTML (built with [`escape`]).
    pub body: String,
    /// A script to run, if any (trusted text).
    pub script: Option<String>,
    pub form_action: String,
    pub cookies: Vec<String>,
}

impl Page<'_> {
    pub fn render(self, rng: &dyn Random) -> Response {
        let nonce = random::token(rng, 16);
        let csp = format!(
            "default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; img-src 'self' data:; \
             connect-src 'self'; form-action {}; frame-ancestors 'none'; base-uri 'none'",
            self.form_action
        );
        let script = self
            .script
            .map(|s| format!("<script nonce=\"{nonce}\">{s}</script>"))
            .unwrap_or_default();
        let html = format!(
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
             <meta name=\"referrer\" content=\"no-referrer\"><title>{} · scanid</title>\
             <style nonce=\"{nonce}\">{STYLE}</style></head><body><main>{}</main>{script}</body></html>",
            escape(self.title),
            self.body
        );
        let mut b = security_headers(base(self.status))
            .header("content-type", "text/html; charset=utf-8")
            .header("content-security-policy", csp);
        for c in self.cookies {
            b = b.header("set-cookie", c);
        }
        finish(b, Body::Text(html))
    }
}

/// Headers every login-flow response carries, pages and redirects alike.
pub fn security_headers(b: http::response::Builder) -> http::response::Builder {
    b.header("x-frame-options", "DENY")
        .header("referrer-policy", "no-referrer")
        .header("cache-control", "no-store")
        .header("pragma", "no-cache")
}

/// An error page (never a redirect): used for untrusted client_id/redirect_uri and for
/// login-page errors.
pub fn error_page(status: u16, title: &str, message: &str, rng: &dyn Random) -> Response {
    Page {
        status,
        title,
        body: format!("<h1>{}</h1><p>{}</p>", escape(title), escape(message)),
        script: None,
        form_action: "'none'".into(),
        cookies: Vec::new(),
    }
    .render(rng)
}

/// The authorization response: a 302/303 redirect (query or fragment) or, for `form_post`, an
/// auto-submitting form (OAuth 2.0 Form Post Response Mode).
pub fn auth_response(
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
    let location = match r.mode {
        ResponseMode::Query => {
            let sep = if r.redirect_uri.contains('?') {
                '&'
            } else {
                '?'
            };
            format!("{}{sep}{encoded}", r.redirect_uri)
        }
        ResponseMode::Fragment => format!("{}#{encoded}", r.redirect_uri),
        ResponseMode::FormPost => {
            let inputs: String = r
                .params
                .iter()
                .map(|(k, v)| {
                    format!(
                        "<input type=\"hidden\" name=\"{}\" value=\"{}\">",
                        escape(k),
                        escape(v)
                    )
                })
                .collect();
            return Page {
                status: 200,
                title: "Signing you in",
                body: format!(
                    "<h1>Signing you in…</h1><form id=\"rp\" method=\"post\" action=\"{}\">{inputs}\
                     <noscript><button class=\"allow\" type=\"submit\">Continue</button></noscript></form>",
                    escape(&r.redirect_uri)
                ),
                script: Some("document.getElementById('rp').submit();".into()),
                form_action: form_targets(Some(&r.redirect_uri)),
                cookies,
            }
            .render(rng);
        }
    };
    let mut b =
        security_headers(base(if after_post { 303 } else { 302 })).header("location", location);
    for c in cookies {
        b = b.header("set-cookie", c);
    }
    finish(b, Body::Empty)
}

/// What each scope means to a person.
pub fn describe_scope(scope: &str) -> &'static str {
    match scope {
        "openid" => "Your scanid identifiers (subject and service ID)",
        "profile" => "Your user name, display name and profile photo",
        "groups" => "The groups you belong to",
        "offline_access" => "Access while you are not using the app (offline access)",
        _ => "Other data",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn qr_is_an_inline_svg() {
        let svg = qr_svg("http://127.0.0.1:8080/realms/scanid/app/scan?session=abc&challenge=def");
        assert!(svg.starts_with("<svg"), "{}", &svg[..40]);
    }
}
