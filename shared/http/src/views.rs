//! The pages' markup: one askama template per page under `templates/`, each extending
//! `layout.html` (the frameable keycloak pages have their own `frame.html`), and the scripts
//! and stylesheet as static files under `static/`.
//!
//! Askama HTML-escapes every value a template prints (docs/requirements.md B4). Text that comes from
//! a request, a client's registration or an identity is a plain `&str` field here, so it is
//! escaped; the only values printed with `|safe` are our own markup: the QR code's SVG, the
//! static scripts and the stylesheet, each marked where it is printed.
//!
//! Each struct's `nonce` is the response's CSP nonce ([`crate::pages::html`]).

use std::fmt;

use askama::Template;

/// The escaper of every `.html` template (askama.toml): `&`, `<`, `>`, `"` and `'` as the
/// entities [`crate::pages::escape`] writes, so the pages are byte for byte what they were
/// before templates.
#[derive(Clone, Copy, Debug, Default)]
pub struct Html;

impl askama::filters::Escaper for Html {
    fn write_escaped_str<W: fmt::Write>(&self, mut dest: W, s: &str) -> fmt::Result {
        let mut done = 0;
        for (i, b) in s.bytes().enumerate() {
            let entity = match b {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                b'\'' => "&#39;",
                _ => continue,
            };
            dest.write_str(&s[done..i])?;
            dest.write_str(entity)?;
            done = i + 1;
        }
        dest.write_str(&s[done..])
    }
}

/// The stylesheet every login-flow page carries in its nonce'd `<style>`.
pub const STYLE: &str = include_str!("../static/style.css").trim_ascii_end();
/// The QR page's poll: every second it asks the status URL the page gives in
/// `#state[data-status-url]`, swaps in a rotated QR code, says when the request expired or is
/// no longer valid, and goes on to the consent step once the app approved.
pub const POLL_JS: &str = include_str!("../static/poll.js").trim_ascii_end();
/// The login page's "Sign in with a passkey" button (issue 26): WebAuthn against
/// `data-passkey-url`.
pub const PASSKEY_JS: &str = include_str!("../static/passkey.js").trim_ascii_end();
/// keycloak-js's third-party-cookie probe, step 1: sets the test cookies, goes to step 2.
pub const THIRD_PARTY_COOKIES_STEP1_JS: &str =
    include_str!("../static/3p-cookies-step1.js").trim_ascii_end();
/// keycloak-js's third-party-cookie probe, step 2: tells the parent page whether step 1's
/// cookies came back, and clears them.
pub const THIRD_PARTY_COOKIES_STEP2_JS: &str =
    include_str!("../static/3p-cookies-step2.js").trim_ascii_end();
/// The OP iframe of OIDC Session Management: answers a relying party's
/// `"client_id session_state"` with `unchanged`, `changed` or `error`, comparing with the
/// session-state cookie, whose name it reads from `body[data-session-state-cookie]`.
pub const LOGIN_STATUS_JS: &str = include_str!("../static/login-status.js").trim_ascii_end();

/// An error page: "title" as the heading, then the message.
#[derive(Template)]
#[template(path = "error.html")]
pub struct ErrorPage<'a> {
    /// The response's CSP nonce, for the page's inline style and script.
    pub nonce: &'a str,
    /// The page's language ([`crate::i18n::Tr`]): every word on the page.
    pub tr: &'a crate::i18n::Tr,
    /// The heading.
    pub title: &'a str,
    /// The explanation under the heading.
    pub message: &'a str,
    /// The technical reason, untranslated (empty: none).
    pub detail: &'a str,
}

/// The `form_post` authorization response: a form to the client that submits itself.
#[derive(Template)]
#[template(path = "form_post.html")]
pub struct FormPost<'a> {
    /// The response's CSP nonce, for the page's inline style and script.
    pub nonce: &'a str,
    /// The page's language ([`crate::i18n::Tr`]): every word on the page.
    pub tr: &'a crate::i18n::Tr,
    /// The client's redirect URI.
    pub action: &'a str,
    /// The response's parameters, as hidden fields.
    pub params: &'a [(&'static str, String)],
}

/// The login page: the QR code, the app link, the store links, and the poll.
#[derive(Template)]
#[template(path = "qr.html")]
pub struct QrPage<'a> {
    /// The response's CSP nonce, for the page's inline style and script.
    pub nonce: &'a str,
    /// The page's language ([`crate::i18n::Tr`]): every word on the page.
    pub tr: &'a crate::i18n::Tr,
    /// The client's registered name.
    pub client: &'a str,
    /// The QR code of `app_link`: markup drawn by [`crate::pages::qr_svg`], printed `|safe`.
    pub qr_svg: &'a str,
    /// The scripts' words in the page's language: a JSON object with every `<` escaped,
    /// printed `|safe` in a data block the scripts read.
    pub text: &'a str,
    /// The next QR codes (`{"server_time", "challenges"}` as the status poll answers), JSON
    /// with every `<` escaped: printed `|safe` in a data block the script reads.
    pub ahead: &'a str,
    /// The link the app opens (the QR code's content).
    pub app_link: &'a str,
    /// What the poll asks (`data-status-url`).
    pub status_url: &'a str,
    /// When it first asks (`data-poll-ms`); each answer says when to ask next.
    pub poll_ms: u32,
    /// The web app, `{issuer}/app/`: the "no app yet?" offer next to the store links.
    pub web_app: &'a str,
    /// The app's App Store page.
    pub ios: &'a str,
    /// The app's Google Play page.
    pub android: &'a str,
    /// Where the passkey button asks (`data-passkey-url`).
    pub passkey_url: &'a str,
    /// The client registered itself (RFC 7591): its name is its own claim, nobody checked it.
    pub self_registered: bool,
}

/// The consent page: who asks for what, allow or deny.
#[derive(Template)]
#[template(path = "consent.html")]
pub struct ConsentPage<'a> {
    /// The response's CSP nonce, for the page's inline style and script.
    pub nonce: &'a str,
    /// The page's language ([`crate::i18n::Tr`]): every word on the page.
    pub tr: &'a crate::i18n::Tr,
    /// The client's registered name.
    pub client: &'a str,
    /// The person's display name.
    pub display_name: &'a str,
    /// The person's unique name.
    pub user_name: &'a str,
    /// What each requested scope, and each claim asked for by name, means to a person, in
    /// the page's language.
    pub scopes: Vec<String>,
    /// The resource servers (RFC 8707) its access tokens would be for, as the operator
    /// registered them; empty: the client itself.
    pub resources: Vec<&'a str>,
    /// Where the form posts (the consent endpoint).
    pub action: &'a str,
    /// The QR login the consent belongs to, posted back.
    pub session: &'a str,
    /// The anti-CSRF token, posted back.
    pub csrf: &'a str,
    /// The host of the redirect URI.
    pub host: &'a str,
    /// The client registered itself (RFC 7591): its name is its own claim, nobody checked it.
    pub self_registered: bool,
    /// The client is an agent (RFC 8693 token exchange): allowing lets it act for the person.
    pub agent: bool,
}

/// The device authorization grant's verification page: the code entry form (RFC 8628 §3.3).
#[derive(Template)]
#[template(path = "device.html")]
pub struct DevicePage<'a> {
    /// The response's CSP nonce, for the page's inline style and script.
    pub nonce: &'a str,
    /// The page's language ([`crate::i18n::Tr`]): every word on the page.
    pub tr: &'a crate::i18n::Tr,
    /// Where the form posts (`{issuer}/device`).
    pub action: &'a str,
    /// The code, prefilled from `verification_uri_complete` or as typed.
    pub user_code: &'a str,
    /// Why a code was not accepted; empty when none was typed yet.
    pub error: &'a str,
    /// The web app's scan of the prefilled code (`{issuer}/app/scan?user_code=`): a phone
    /// that opened `verification_uri_complete` approves there. Empty without a code.
    pub app_link: &'a str,
    /// The anti-CSRF token, posted back (bound to the page's form cookie).
    pub csrf: &'a str,
}

/// "Log out of scanid?": the logout request's parameters posted back with the anti-CSRF token.
#[derive(Template)]
#[template(path = "logout_confirm.html")]
pub struct LogoutConfirm<'a> {
    /// The response's CSP nonce, for the page's inline style and script.
    pub nonce: &'a str,
    /// The page's language ([`crate::i18n::Tr`]): every word on the page.
    pub tr: &'a crate::i18n::Tr,
    /// Where the form posts (the logout endpoint).
    pub action: &'a str,
    /// The request's parameters to post back, by name.
    pub fields: Vec<(&'static str, &'a str)>,
    /// The anti-CSRF token, posted back.
    pub csrf: &'a str,
}

/// The end of a logout with nowhere to go back to.
#[derive(Template)]
#[template(path = "logged_out.html")]
pub struct LoggedOut<'a> {
    /// The response's CSP nonce, for the page's inline style.
    pub nonce: &'a str,
    /// The page's language ([`crate::i18n::Tr`]): every word on the page.
    pub tr: &'a crate::i18n::Tr,
}

/// The web app's shell (`crate::handlers::app`): `base` is the app's path, `{issuer
/// path}/app/`; the store links are for a browser without JavaScript.
#[derive(Template)]
#[template(path = "app.html")]
pub struct AppShell<'a> {
    /// The app's path, `{issuer path}/app/` (the page's `<base>`).
    pub base: &'a str,
    /// The app's JavaScript modules, preloaded so that the browser fetches them at once rather
    /// than one import level after another.
    pub modules: &'a [&'a str],
    /// The app's App Store page.
    pub ios: &'a str,
    /// The app's Google Play page.
    pub android: &'a str,
    /// `<html lang>` and `dir` until the app picks the phone's language: `Accept-Language`'s.
    pub lang: &'a str,
    /// `ltr` or `rtl`.
    pub dir: &'a str,
    /// "Loading…" and the no-JavaScript note, in `lang`.
    pub loading: &'a str,
    /// The note for a browser without JavaScript, before the store links.
    pub noscript: &'a str,
    /// The manifest's file name, in `lang`.
    pub manifest: &'a str,
    /// The languages (tag, name, dir, messages file) and the realm's default, as JSON for the
    /// app's `#languages` block.
    pub languages: &'a str,
    /// What the app's `#push` block tells it: `{"application_server_key": key | null}`, the
    /// VAPID public key to subscribe with (app protocol §7), as JSON.
    pub push: &'a str,
}

/// A page keycloak-js frames: one of the static scripts above and nothing else.
#[derive(Template)]
#[template(path = "frame.html")]
pub struct FramePage<'a> {
    /// The response's CSP nonce, for the frame's script.
    pub nonce: &'a str,
    /// One of this module's `*_JS` constants, printed `|safe`.
    pub script: &'static str,
    /// The session-state cookie's name, for [`LOGIN_STATUS_JS`].
    pub cookie: Option<&'a str>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Tr;

    const EVIL: &str = r#"<script>alert(1)</script>&"'"#;
    const ESCAPED: &str = "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;";

    fn render(t: &impl Template) -> String {
        t.render().expect("renders")
    }

    /// `html` has `EVIL` only escaped, `times` times.
    fn escaped(html: &str, times: usize) {
        assert!(!html.contains("<script>alert"), "{html}");
        assert!(!html.contains(r#"&""#), "{html}");
        assert_eq!(html.matches(ESCAPED).count(), times, "{html}");
    }

    /// The layout around every page: doctype, nonce'd style, `<main>`.
    fn in_layout(html: &str, title: &str) {
        assert!(
            html.starts_with(&format!(
                "<!doctype html><html lang=\"en\" dir=\"ltr\"><head><meta charset=\"utf-8\">\
                 <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
                 <meta name=\"referrer\" content=\"no-referrer\"><title>{title} · scanid</title>\
                 <style nonce=\"N0NCE\">{STYLE}</style></head><body><main>"
            )),
            "{html}"
        );
        assert!(
            html.contains("</main><footer><form class=\"language\" method=\"get\">"),
            "{html}"
        );
        assert!(
            html.contains("<option value=\"ar\" lang=\"ar\">العربية</option>"),
            "{html}"
        );
        assert!(html.ends_with("</body></html>"), "{html}");
    }

    #[test]
    fn error_page_escapes_title_and_message() {
        let html = render(&ErrorPage {
            nonce: "N0NCE",
            tr: &Tr::new(crate::domain::locale::Locale::En),
            title: EVIL,
            message: EVIL,
            detail: EVIL,
        });
        in_layout(&html, ESCAPED);
        escaped(&html, 4);
        assert!(html.contains(&format!(
            "<main><h1>{ESCAPED}</h1><p>{ESCAPED}</p><p class=\"muted\">Details: \
             <code lang=\"en\" dir=\"ltr\">{ESCAPED}</code></p></main>"
        )));
        assert!(!html.contains("<script"), "no script: {html}");
    }

    #[test]
    fn form_post_escapes_action_names_and_values() {
        let params = [("state", EVIL.to_owned()), ("code", "c".to_owned())];
        let html = render(&FormPost {
            nonce: "N0NCE",
            tr: &Tr::new(crate::domain::locale::Locale::En),
            action: EVIL,
            params: &params,
        });
        in_layout(&html, "Signing you in");
        escaped(&html, 2);
        assert!(html.contains(&format!(
            "<form id=\"rp\" method=\"post\" action=\"{ESCAPED}\">\
             <input type=\"hidden\" name=\"state\" value=\"{ESCAPED}\">\
             <input type=\"hidden\" name=\"code\" value=\"c\"><noscript>"
        )));
        assert!(html.contains("</form></main><footer>"));
        assert!(html.ends_with(
            "</footer><script nonce=\"N0NCE\">document.getElementById('rp').submit();</script></body></html>"
        ));
    }

    #[test]
    fn qr_page_escapes_everything_but_the_svg() {
        let html = render(&QrPage {
            nonce: "N0NCE",
            tr: &Tr::new(crate::domain::locale::Locale::En),
            client: EVIL,
            self_registered: true,
            qr_svg: "<svg><rect/></svg>",
            ahead: "{}",
            text: "{}",
            app_link: EVIL,
            status_url: EVIL,
            poll_ms: 2000,
            web_app: EVIL,
            ios: EVIL,
            android: EVIL,
            passkey_url: EVIL,
        });
        in_layout(&html, "Log in");
        escaped(&html, 10);
        assert!(html.contains(&format!(
            "<p class=\"muted\" id=\"self-registered\">{ESCAPED} registered itself with this service: nobody has checked that name.</p>"
        )));
        assert!(html.contains(&format!(
            "<div class=\"qr\" id=\"qr\" role=\"img\" aria-label=\"QR code. It holds this link: {ESCAPED}\"><svg><rect/></svg></div>"
        )));
        assert!(html.contains(&format!(
            "<p id=\"state\" class=\"muted\" role=\"status\" data-status-url=\"{ESCAPED}\" data-poll-ms=\"2000\">"
        )));
        assert!(html.ends_with(&format!(
            "</footer><script nonce=\"N0NCE\">{POLL_JS}</script><script nonce=\"N0NCE\">{PASSKEY_JS}</script></body></html>"
        )));
        assert!(html.contains(&format!(
            "<button type=\"button\" id=\"passkey\" data-passkey-url=\"{ESCAPED}\" hidden>Sign in with a passkey</button>"
        )));
    }

    #[test]
    fn consent_page_escapes_names_and_fields() {
        let html = render(&ConsentPage {
            nonce: "N0NCE",
            tr: &Tr::new(crate::domain::locale::Locale::En),
            client: EVIL,
            display_name: EVIL,
            user_name: EVIL,
            scopes: vec![EVIL.to_owned(), "Other data".to_owned()],
            resources: vec![EVIL],
            action: EVIL,
            session: EVIL,
            csrf: EVIL,
            host: EVIL,
            self_registered: false,
            agent: false,
        });
        in_layout(&html, "Allow access");
        escaped(&html, 10);
        assert!(html.contains(&format!(
            "<ul class=\"scopes\"><li>{ESCAPED}</li><li>Other data</li></ul>"
        )));
        assert!(html.contains(&format!(
            "<ul class=\"resources\" id=\"resources\"><li><code>{ESCAPED}</code></li></ul>"
        )));
        assert!(!html.contains("<script"), "no script: {html}");
        assert!(!html.contains("registered itself"));
    }

    #[test]
    fn consent_page_says_when_a_client_named_itself_or_is_an_agent() {
        let tr = Tr::new(crate::domain::locale::Locale::En);
        let page = |self_registered, agent| {
            render(&ConsentPage {
                nonce: "N0NCE",
                tr: &tr,
                client: EVIL,
                display_name: "Carol",
                user_name: "carol",
                scopes: vec!["Your name".to_owned()],
                resources: vec![],
                action: "/a",
                session: "s",
                csrf: "c",
                host: "tool.example",
                self_registered,
                agent,
            })
        };
        // An agent (token exchange): allowing lets it act for the person, and the page says so.
        assert!(page(false, true).contains(&format!(
            "<p class=\"agent\" id=\"delegation\"><strong>{ESCAPED} is an agent: if you allow, it may also act for you"
        )));
        let html = page(true, false);
        assert!(!html.contains("is an agent"));
        assert!(html.contains(&format!(
            "<p class=\"muted\">{ESCAPED} registered itself with this service: nobody has checked that name.</p>"
        )));
        escaped(&html, 3);
    }

    #[test]
    fn logout_confirm_escapes_the_posted_back_fields() {
        let html = render(&LogoutConfirm {
            nonce: "N0NCE",
            tr: &Tr::new(crate::domain::locale::Locale::En),
            action: EVIL,
            fields: vec![("state", EVIL), ("client_id", "c")],
            csrf: EVIL,
        });
        in_layout(&html, "Log out");
        escaped(&html, 3);
        assert!(html.contains(&format!(
            "<input type=\"hidden\" name=\"state\" value=\"{ESCAPED}\">\
             <input type=\"hidden\" name=\"client_id\" value=\"c\">\
             <input type=\"hidden\" name=\"csrf\" value=\"{ESCAPED}\"><div class=\"buttons\">"
        )));
    }

    #[test]
    fn logged_out_and_app_link_pages() {
        let html = render(&LoggedOut {
            nonce: "N0NCE",
            tr: &Tr::new(crate::domain::locale::Locale::En),
        });
        in_layout(&html, "Logged out");
        assert!(html
            .contains("<main><h1>You are logged out</h1><p>You can close this window.</p></main>"));
        let html = render(&AppShell {
            base: "/realms/scanid/app/",
            modules: &["app.js", "ui.js"],
            ios: EVIL,
            android: EVIL,
            lang: "en",
            dir: "ltr",
            loading: "Loading…",
            noscript: "The scanid web app needs JavaScript.",
            manifest: "manifest-en.webmanifest",
            languages: "{\"default\":\"en\"}",
            push: "{\"application_server_key\":null}",
        });
        escaped(&html, 2);
        assert!(html.contains(&format!(
            "<a href=\"{ESCAPED}\">App Store</a> <a href=\"{ESCAPED}\">Google Play</a>"
        )));
        assert!(html.contains("<script type=\"module\" src=\"/realms/scanid/app/app.js\">"));
        assert!(html.contains("<link rel=\"modulepreload\" href=\"/realms/scanid/app/ui.js\">"));
        assert!(!html.contains("<style"), "no inline style");
        assert!(html.contains(
            "<script type=\"application/json\" id=\"push\">{\"application_server_key\":null}</script>"
        ));
    }

    #[test]
    fn frame_page_escapes_the_cookie_name() {
        let html = render(&FramePage {
            nonce: "N0NCE",
            script: LOGIN_STATUS_JS,
            cookie: Some(EVIL),
        });
        escaped(&html, 1);
        assert_eq!(
            html,
            format!(
                "<!doctype html><html><head><meta charset=\"utf-8\"><title>scanid</title></head>\
                 <body data-session-state-cookie=\"{ESCAPED}\">\
                 <script nonce=\"N0NCE\">{LOGIN_STATUS_JS}</script></body></html>"
            )
        );
        let html = render(&FramePage {
            nonce: "N0NCE",
            script: THIRD_PARTY_COOKIES_STEP1_JS,
            cookie: None,
        });
        assert!(html.contains(&format!(
            "</head><body><script nonce=\"N0NCE\">{THIRD_PARTY_COOKIES_STEP1_JS}</script>"
        )));
    }

    #[test]
    fn escapes_as_pages_escape_does() {
        for s in [EVIL, "", "plain", "é<ü>&&", "a'b\"c"] {
            let mut out = String::new();
            askama::filters::Escaper::write_escaped_str(&Html, &mut out, s).expect("writes");
            assert_eq!(out, crate::pages::escape(s));
        }
    }

    /// The scripts are static: nothing is substituted into them, and nothing in them can end
    /// the `<script>` element they are printed in.
    #[test]
    fn scripts_are_static_and_stay_in_their_element() {
        for js in [
            POLL_JS,
            PASSKEY_JS,
            THIRD_PARTY_COOKIES_STEP1_JS,
            THIRD_PARTY_COOKIES_STEP2_JS,
            LOGIN_STATUS_JS,
        ] {
            let lower = js.to_ascii_lowercase();
            assert!(!lower.contains("</script") && !lower.contains("<!--"));
            for placeholder in ["STATUS", "{{", "{%", "{}", "COOKIE=\""] {
                assert!(!js.contains(placeholder), "{placeholder} in {js}");
            }
        }
        assert!(POLL_JS.contains("state.getAttribute('data-status-url')"));
        assert!(LOGIN_STATUS_JS.contains("getAttribute('data-session-state-cookie')"));
        assert!(!STYLE.to_ascii_lowercase().contains("</style"));
    }
}
