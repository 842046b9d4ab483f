//! The pages' words: one Project Fluent catalogue per language (`locales/{tag}.ftl`, compiled
//! in), and [`Tr`], a page's language with what its language selector needs.
//!
//! Which language a request reads is the domain's choice ([`crate::domain::locale::choose`]):
//! `lang` (picked on the page, then remembered in the [`COOKIE`]), `ui_locales`,
//! `Accept-Language`, then the realm's default. A message a catalogue lacks falls back to
//! English (a test holds every catalogue complete, so that is a safety net, not a habit).

use std::sync::OnceLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource};

use crate::domain::locale::{self, Locale, Preferences, ALL};
use crate::{query_pairs, Context, Request};

/// The cookie that remembers a language picked on a page (its base name; `__Host-` on https).
pub const COOKIE: &str = "scanid_locale";
/// The query parameter of the language selector.
pub const PARAM: &str = "lang";
/// How long a picked language is remembered: a year.
const REMEMBER_SECS: i64 = 365 * 24 * 3600;

/// Each language's catalogue, in [`ALL`]'s order.
pub const CATALOGUES: [(Locale, &str); 15] = [
    (Locale::En, include_str!("../locales/en.ftl")),
    (Locale::Sv, include_str!("../locales/sv.ftl")),
    (Locale::De, include_str!("../locales/de.ftl")),
    (Locale::Fr, include_str!("../locales/fr.ftl")),
    (Locale::Es, include_str!("../locales/es.ftl")),
    (Locale::PtBr, include_str!("../locales/pt-BR.ftl")),
    (Locale::It, include_str!("../locales/it.ftl")),
    (Locale::Nl, include_str!("../locales/nl.ftl")),
    (Locale::Pl, include_str!("../locales/pl.ftl")),
    (Locale::Ja, include_str!("../locales/ja.ftl")),
    (Locale::ZhHans, include_str!("../locales/zh-Hans.ftl")),
    (Locale::Ko, include_str!("../locales/ko.ftl")),
    (Locale::Ar, include_str!("../locales/ar.ftl")),
    (Locale::Hi, include_str!("../locales/hi.ftl")),
    (Locale::Uk, include_str!("../locales/uk.ftl")),
];

type Bundle = FluentBundle<FluentResource>;

fn index(l: Locale) -> usize {
    ALL.iter().position(|a| *a == l).unwrap_or(0)
}

/// The bundle of `l`, parsed on first use (a Lambda function parses only the languages it
/// is asked for).
fn bundle(l: Locale) -> Option<&'static Bundle> {
    static BUNDLES: [OnceLock<Option<Bundle>>; 15] = [const { OnceLock::new() }; 15];
    BUNDLES[index(l)].get_or_init(|| build(l)).as_ref()
}

fn build(l: Locale) -> Option<Bundle> {
    let source = CATALOGUES[index(l)].1;
    let resource = match FluentResource::try_new(source.to_owned()) {
        Ok(r) => r,
        Err((r, errors)) => {
            tracing::error!(locale = l.tag(), ?errors, "catalogue has syntax errors");
            r
        }
    };
    let id = l.tag().parse().ok()?;
    let mut b = FluentBundle::new_concurrent(vec![id]);
    // Names and hosts in a right-to-left sentence keep their own direction (Unicode
    // isolates); left-to-right pages have no need of the invisible marks.
    b.set_use_isolating(l.rtl());
    if let Err(errors) = b.add_resource(resource) {
        tracing::error!(locale = l.tag(), ?errors, "catalogue has repeated messages");
    }
    Some(b)
}

/// `id` in `l` with `args`, or `None` when `l`'s catalogue lacks it.
pub fn lookup(l: Locale, id: &str, args: &[(&str, &str)]) -> Option<String> {
    let b = bundle(l)?;
    let pattern = b.get_message(id)?.value()?;
    let mut fargs = FluentArgs::new();
    for (k, v) in args {
        fargs.set(*k, *v);
    }
    let mut errors = Vec::new();
    let text = b.format_pattern(pattern, Some(&fargs), &mut errors);
    if !errors.is_empty() {
        tracing::error!(locale = l.tag(), id, ?errors, "formatting a message");
    }
    Some(text.into_owned())
}

#[cfg(test)]
thread_local! {
    /// The messages [`text`] did not find in their language (the tests hold it empty).
    static MISSED: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `id` in `l`, else in English, else `id` itself (logged).
pub fn text(l: Locale, id: &str, args: &[(&str, &str)]) -> String {
    lookup(l, id, args)
        .or_else(|| {
            #[cfg(test)]
            MISSED.with(|m| m.borrow_mut().push(format!("{}:{id}", l.tag())));
            tracing::error!(locale = l.tag(), id, "missing message");
            lookup(Locale::En, id, args)
        })
        .unwrap_or_else(|| id.to_owned())
}

/// Draws an error page: `(title, message)` message ids, the technical detail, in `tr`'s
/// language ([`crate::pages::error_page`]).
pub type PageRenderer =
    fn(&Tr, u16, (&str, &str), &str, &dyn crate::random::Random) -> crate::Response;

/// A page's language, and the query its language selector sends back (what the page's
/// handler checked, less `lang`: picking a language shows the same page again in it).
#[derive(Debug, Clone)]
pub struct Tr {
    /// The language.
    pub locale: Locale,
    /// The current query's pairs, for the selector's hidden fields.
    pub keep: Vec<(String, String)>,
    /// The page has the language selector (not the demo relying party's pages, nor a page
    /// made without a request).
    pub selector: bool,
    /// How an error becomes a page here: set by the endpoints that answer with pages
    /// ([`crate::routes::Endpoint::pages`]); `None` answers a page error as JSON.
    pub pages: Option<PageRenderer>,
}

impl Tr {
    /// English, without the language selector (a page made without a request).
    pub fn english() -> Self {
        Tr {
            selector: false,
            ..Self::new(Locale::En)
        }
    }

    /// `l` with no query to keep.
    pub fn new(locale: Locale) -> Self {
        Tr {
            locale,
            keep: Vec::new(),
            selector: true,
            pages: None,
        }
    }

    /// The language of `req` ([`locale::choose`]), with `ui_locales` as the authorization
    /// request has it (`None`: the query's, if any).
    pub fn of(ctx: &Context, req: &Request, ui_locales: Option<&str>) -> Self {
        let query = query_pairs(req);
        let get = |name: &str| {
            query
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        let remembered = crate::cookies::get(req, &crate::cookies::locale(ctx));
        let accept = req
            .headers()
            .get(http::header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok());
        let prefs = Preferences {
            picked: get(PARAM),
            remembered: remembered.as_deref(),
            ui_locales: ui_locales.or(get("ui_locales")),
            accept_language: accept,
        };
        Tr::new(locale::choose(&prefs, ctx.settings.default_locale))
    }

    /// Errors of this request become pages drawn by `pages` (`None`: JSON).
    pub fn drawing(mut self, pages: Option<PageRenderer>) -> Self {
        self.pages = pages;
        self
    }

    /// Keeps `pairs` (less `lang`) for the selector: picking a language shows the same page
    /// again. Only what the page's handler has checked: an unchecked parameter (a redirect
    /// URI nobody registered) is never echoed into a page.
    pub fn keeping(mut self, pairs: &[(String, String)]) -> Self {
        self.keep = pairs
            .iter()
            .filter(|(k, _)| k != PARAM)
            .take(64)
            .cloned()
            .collect();
        self
    }

    /// `id` in this language.
    pub fn t(&self, id: &str) -> String {
        text(self.locale, id, &[])
    }

    /// `id` with one argument.
    pub fn t1(&self, id: &str, name: &str, value: &str) -> String {
        text(self.locale, id, &[(name, value)])
    }

    /// `id` with two arguments.
    pub fn t2(&self, id: &str, a: &str, a_value: &str, b: &str, b_value: &str) -> String {
        text(self.locale, id, &[(a, a_value), (b, b_value)])
    }

    /// `<html lang>`.
    pub fn lang(&self) -> &'static str {
        self.locale.tag()
    }

    /// `<html dir>`.
    pub fn dir(&self) -> &'static str {
        self.locale.dir()
    }

    /// The selector's options: (tag, name in itself, is this page's).
    pub fn choices(&self) -> Vec<(&'static str, &'static str, bool)> {
        ALL.iter()
            .map(|l| (l.tag(), l.name(), *l == self.locale))
            .collect()
    }
}

/// The `Set-Cookie` that remembers a language picked with `lang` on this request, if it named
/// one scanid speaks.
pub fn remember(ctx: &Context, req: &Request) -> Option<String> {
    let picked = query_pairs(req)
        .into_iter()
        .find(|(k, _)| k == PARAM)
        .and_then(|(_, v)| Locale::from_tag(&v))?;
    Some(crate::cookies::set(
        ctx,
        &crate::cookies::locale(ctx),
        picked.tag(),
        Some(REMEMBER_SECS),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message ids of a catalogue, each with the placeholders (`{ $name }`) it uses.
    fn messages(source: &str) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for line in source.lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let value = if !line.starts_with(' ') {
                let Some((id, value)) = line.split_once(" = ") else {
                    panic!("not a message: {line}");
                };
                out.push((id.to_owned(), Vec::new()));
                value
            } else {
                line
            };
            let Some(last) = out.last_mut() else { continue };
            for piece in value.split("{ $").skip(1) {
                let name = piece.split([' ', '}']).next().unwrap_or_default();
                if !last.1.iter().any(|n| n == name) {
                    last.1.push(name.to_owned());
                }
            }
        }
        for m in &mut out {
            m.1.sort();
        }
        out
    }

    #[test]
    fn every_catalogue_has_the_english_messages_and_placeholders() {
        let english = messages(CATALOGUES[0].1);
        assert!(english.len() > 80, "{}", english.len());
        for (l, source) in CATALOGUES {
            let bundle = bundle(l).expect("builds");
            let resource = FluentResource::try_new(source.to_owned());
            assert!(resource.is_ok(), "{}: syntax errors", l.tag());
            let got = messages(source);
            let ids =
                |m: &[(String, Vec<String>)]| m.iter().map(|(i, _)| i.clone()).collect::<Vec<_>>();
            let missing: Vec<_> = ids(&english)
                .into_iter()
                .filter(|i| !ids(&got).contains(i))
                .collect();
            let extra: Vec<_> = ids(&got)
                .into_iter()
                .filter(|i| !ids(&english).contains(i))
                .collect();
            assert!(missing.is_empty(), "{} lacks {missing:?}", l.tag());
            assert!(extra.is_empty(), "{} has extra {extra:?}", l.tag());
            for (id, names) in &english {
                let theirs = got.iter().find(|(i, _)| i == id).map(|(_, n)| n);
                assert_eq!(theirs, Some(names), "{}: {id}'s placeholders", l.tag());
                assert!(bundle.has_message(id), "{}: {id}", l.tag());
                let text = lookup(
                    l,
                    id,
                    &[
                        ("client", "C"),
                        ("code", "X"),
                        ("link", "L"),
                        ("number", "7"),
                        ("reason", "R"),
                        ("name", "N"),
                        ("user", "U"),
                        ("host", "H"),
                    ],
                );
                assert!(
                    text.is_some_and(|t| !t.trim().is_empty() && !t.contains("{")),
                    "{}: {id}",
                    l.tag()
                );
            }
        }
    }

    /// Every message id the code names (a quoted `prefix-…` literal in the handlers, the
    /// templates and the scripts' word list) is in the English catalogue.
    #[test]
    fn every_message_the_code_names_exists() {
        let english: Vec<String> = messages(CATALOGUES[0].1)
            .into_iter()
            .map(|(i, _)| i)
            .collect();
        let sources = [
            include_str!("error.rs"),
            include_str!("pages.rs"),
            include_str!("handlers/login.rs"),
            include_str!("handlers/device_grant.rs"),
            include_str!("handlers/logout.rs"),
            include_str!("../templates/layout.html"),
            include_str!("../templates/qr.html"),
            include_str!("../templates/consent.html"),
            include_str!("../templates/device.html"),
            include_str!("../templates/error.html"),
            include_str!("../templates/form_post.html"),
            include_str!("../templates/logout_confirm.html"),
            include_str!("../templates/logged_out.html"),
        ];
        let prefixes = [
            "qr-",
            "passkey-",
            "consent-",
            "scope-",
            "claim-",
            "device-",
            "error-",
            "logout-",
            "logged-out-",
            "signing-in",
            "language-",
        ];
        let mut named = 0;
        for source in sources {
            let template = source.starts_with("{#") || source.starts_with("{%");
            for (i, _) in source.match_indices('"') {
                // In a template, only what `tr.t…(` is given (the rest are element ids).
                if template
                    && !["t(", "t1(", "t2("]
                        .iter()
                        .any(|c| source[..i].ends_with(c))
                {
                    continue;
                }
                let rest = &source[i + 1..];
                let end = rest.find('"').unwrap_or(0);
                let lit = &rest[..end];
                if prefixes.iter().any(|p| lit.starts_with(p))
                    && lit
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c == '-' || c == '_')
                    && !lit.ends_with('-')
                {
                    named += 1;
                    assert!(english.iter().any(|e| e == lit), "{lit} is not in en.ftl");
                }
            }
        }
        assert!(named > 60, "{named}");
    }

    /// Every page, in every language: `<html lang dir>` right, every word found in the
    /// page's own catalogue, no English left on a page in another language.
    #[test]
    fn every_page_renders_in_every_language() {
        use crate::views::*;
        use askama::Template;
        for l in ALL {
            let tr = Tr::new(l);
            let scopes = ["scope-openid", "scope-profile", "claim-name"]
                .map(|id| tr.t(id))
                .to_vec();
            let pages = [
                ErrorPage {
                    nonce: "n",
                    tr: &tr,
                    title: &tr.t("error-expired"),
                    message: &tr.t("error-expired-text"),
                    detail: "why",
                }
                .render(),
                FormPost {
                    nonce: "n",
                    tr: &tr,
                    action: "https://rp/cb",
                    params: &[("code", "c".into())],
                }
                .render(),
                QrPage {
                    nonce: "n",
                    tr: &tr,
                    client: "Shop",
                    qr_svg: "<svg></svg>",
                    ahead: "{}",
                    text: "{}",
                    app_link: "https://id/app/scan",
                    status_url: "/s",
                    poll_ms: 1000,
                    web_app: "/app/",
                    ios: "i",
                    android: "a",
                    passkey_url: "/p",
                    self_registered: true,
                }
                .render(),
                ConsentPage {
                    nonce: "n",
                    tr: &tr,
                    client: "Shop",
                    display_name: "Ada",
                    user_name: "ada",
                    scopes,
                    resources: vec!["https://api"],
                    action: "/c",
                    session: "s",
                    csrf: "x",
                    host: "shop.example",
                    self_registered: true,
                    agent: true,
                }
                .render(),
                DevicePage {
                    nonce: "n",
                    tr: &tr,
                    action: "/d",
                    user_code: "ABCD-EFGH",
                    error: &tr.t("device-unknown-code"),
                    app_link: "/app/scan",
                    csrf: "x",
                }
                .render(),
                LogoutConfirm {
                    nonce: "n",
                    tr: &tr,
                    action: "/l",
                    fields: vec![("state", "s")],
                    csrf: "x",
                }
                .render(),
                LoggedOut {
                    nonce: "n",
                    tr: &tr,
                }
                .render(),
            ];
            for page in pages {
                let html = page.expect("renders");
                assert!(
                    html.starts_with(&format!(
                        "<!doctype html><html lang=\"{}\" dir=\"{}\">",
                        l.tag(),
                        l.dir()
                    )),
                    "{html}"
                );
                assert!(html.contains(&format!(
                    "<option value=\"{}\" lang=\"{}\" selected>",
                    l.tag(),
                    l.tag()
                )));
                if l != Locale::En {
                    for english in [
                        "Log in",
                        "Allow",
                        "Language",
                        "Continue",
                        "You are logged out",
                        "Connect a device",
                    ] {
                        assert!(
                            !html.contains(&format!(">{english}<")),
                            "{}: {english} in {html}",
                            l.tag()
                        );
                    }
                }
            }
            let missed = MISSED.with(|m| std::mem::take(&mut *m.borrow_mut()));
            assert!(missed.is_empty(), "{missed:?}");
        }
    }

    #[test]
    fn a_missing_message_falls_back_to_english_then_its_id() {
        assert_eq!(text(Locale::De, "no-such-message", &[]), "no-such-message");
        MISSED.with(|m| m.borrow_mut().clear());
        assert_eq!(text(Locale::En, "consent-deny", &[]), "Deny");
        assert_eq!(text(Locale::De, "consent-deny", &[]), "Ablehnen");
        let ar = text(Locale::Ar, "qr-heading", &[("client", "Shop")]);
        assert!(ar.contains("\u{2068}Shop\u{2069}"), "isolated in rtl: {ar}");
        assert_eq!(
            text(Locale::En, "qr-heading", &[("client", "Shop")]),
            "Log in to Shop"
        );
    }
}
