//! The scanid web app: plain HTML, CSS and JavaScript modules (`static/app/`) served from the
//! issuer's own origin, so any phone with a browser is a scanid app. The app talks to the
//! service through the device API ([`super::device_api`]) like a native app would.
//!
//! The shell is the page at `{issuer}/app/` and, for a browser, at the QR's app link
//! ([`super::device_api::scan`]). Every file carries a strict CSP (scripts, styles and the
//! service worker from this origin only, nothing inline), is never framed, keeps no opener
//! relation with another origin (`Cross-Origin-Opener-Policy: same-origin`), and is revalidated
//! on each load (`no-cache` + `ETag`), so a deployment reaches phones at once while the
//! service worker keeps the shell for offline use.

use lambda_http::Body;

use crate::domain::locale::{self, Locale, Preferences, ALL};
use crate::domain::login;
use crate::Context;
use crate::{base, check_realm, finish, path_param, HttpError, Request, Response};

use super::assets::{js_module, Asset};

/// The app's JavaScript modules: `app.js` picks the first screen, each screen is a module of
/// its own, `device.js` holds the key and the device API. The shell preloads each one and the
/// service worker keeps each one (both held to this list by the tests below).
const MODULES: &[Asset] = &[
    js_module!("app", "app.js"),
    js_module!("app", "device.js"),
    js_module!("app", "ui.js"),
    js_module!("app", "i18n.js"),
    js_module!("app", "signup.js"),
    js_module!("app", "home.js"),
    js_module!("app", "keys.js"),
    js_module!("app", "edit.js"),
    js_module!("app", "rotate.js"),
    js_module!("app", "signout.js"),
    js_module!("app", "delete.js"),
    js_module!("app", "activity.js"),
    js_module!("app", "agents.js"),
    js_module!("app", "waiting.js"),
    js_module!("app", "push.js"),
    js_module!("app", "where.js"),
    js_module!("app", "decision.js"),
    js_module!("app", "approve.js"),
    js_module!("app", "scan.js"),
];

/// The app's other files, by the name they have under `{issuer}/app/`.
const FILES: &[Asset] = &[
    Asset {
        name: "app.css",
        content_type: "text/css; charset=utf-8",
        body: include_str!("../../static/app/app.css"),
    },
    // At the app's root, so its scope is the whole app.
    Asset {
        name: "sw.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_str!("../../static/app/sw.js"),
    },
    Asset {
        name: "manifest.webmanifest",
        content_type: "application/manifest+json",
        body: include_str!("../../static/app/manifest.webmanifest"),
    },
    Asset {
        name: "icon.svg",
        content_type: "image/svg+xml",
        body: include_str!("../../static/app/icon.svg"),
    },
];

/// One language's messages for the app, compiled from `locales/app/{tag}.ftl` by `build.rs`.
pub(crate) struct AppCatalogue {
    /// The language's BCP 47 tag.
    pub(crate) tag: &'static str,
    /// A hash of `json`: the file's name changes with its content, so it is cached for good.
    pub(crate) hash: &'static str,
    /// The messages as the app's `i18n.js` reads them.
    pub(crate) json: &'static str,
    /// The `shell-` messages as plain text, for the shell page and the manifest.
    pub(crate) shell: &'static [(&'static str, &'static str)],
}

include!(concat!(env!("OUT_DIR"), "/app_catalogues.rs"));

/// The catalogue of `l` (English if it had none, which a test rules out).
fn catalogue(l: Locale) -> &'static AppCatalogue {
    let of = |tag: &str| APP_CATALOGUES.iter().find(|c| c.tag == tag);
    of(l.tag())
        .or_else(|| of("en"))
        .unwrap_or(&APP_CATALOGUES[0])
}

impl AppCatalogue {
    /// The file the app fetches for this language (under `{issuer}/app/`).
    fn file(&self) -> String {
        format!("messages-{}-{}.json", self.tag, self.hash)
    }

    /// A `shell-` message.
    fn shell(&self, id: &str) -> &'static str {
        let find = |c: &AppCatalogue| c.shell.iter().find(|(i, _)| *i == id).map(|(_, t)| *t);
        find(self)
            .or_else(|| find(catalogue(Locale::En)))
            .unwrap_or_default()
    }
}

/// The manifest in `l`: its description, `lang` and `dir` (the name, scanid, is a brand).
fn manifest(l: Locale) -> String {
    let base = FILES
        .iter()
        .find(|a| a.name == "manifest.webmanifest")
        .map(|a| a.body)
        .unwrap_or("{}");
    let mut m: serde_json::Value = serde_json::from_str(base).unwrap_or_default();
    if let Some(o) = m.as_object_mut() {
        o.insert("lang".into(), l.tag().into());
        o.insert("dir".into(), l.dir().into());
        o.insert(
            "description".into(),
            catalogue(l).shell("shell-description").into(),
        );
    }
    m.to_string()
}

/// What the shell's `#languages` block tells the app: each language (tag, name in itself,
/// direction, messages file) and the realm's default.
fn languages_json(default: Locale) -> String {
    let list: Vec<serde_json::Value> = ALL
        .iter()
        .map(|l| {
            serde_json::json!({
                "tag": l.tag(),
                "name": l.name(),
                "dir": l.dir(),
                "href": catalogue(*l).file(),
            })
        })
        .collect();
    serde_json::json!({ "default": default.tag(), "languages": list })
        .to_string()
        .replace('<', "\\u003c")
}

/// What the shell's `#push` block tells the app: the VAPID public key to subscribe with
/// (base64url, uncompressed P-256; `null`: this service sends no push), the same key
/// `POST .../push-subscriptions` answers (app protocol §7).
fn push_json(ctx: &Context) -> String {
    let key = crate::usecase::app::application_server_key(ctx);
    serde_json::json!({ "application_server_key": key })
        .to_string()
        .replace('<', "\\u003c")
}

/// The app's JavaScript modules.
#[cfg(test)]
pub(crate) fn modules() -> &'static [Asset] {
    MODULES
}

/// Every file of the app, by the name it has under `{issuer}/app/`.
fn assets() -> impl Iterator<Item = &'static Asset> {
    MODULES.iter().chain(FILES)
}

/// The CSP of the shell: this origin's scripts, styles, manifest and worker only; images
/// also from the allowed photo hosts and local previews (`blob:`).
fn csp(ctx: &Context) -> String {
    let mut img = String::from("'self' data: blob:");
    for h in &ctx.settings.photo_hosts {
        img.push_str(" https://");
        img.push_str(h);
    }
    format!(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src {img}; \
         connect-src 'self'; manifest-src 'self'; worker-src 'self'; form-action 'none'; \
         frame-ancestors 'none'; base-uri 'none'"
    )
}

/// The headers every file of the app carries.
fn headers(ctx: &Context, status: u16, content_type: &str, etag: &str) -> http::response::Builder {
    headers_cached(ctx, status, content_type, etag, "no-cache")
}

/// [`headers`] with `cache-control: cache`.
fn headers_cached(
    ctx: &Context,
    status: u16,
    content_type: &str,
    etag: &str,
    cache: &str,
) -> http::response::Builder {
    let b = base(status);
    // The shell's language and manifest follow `Accept-Language`; the other files do not.
    let b = if content_type.starts_with("text/html") {
        b.header("vary", "accept-language")
    } else {
        b
    };
    b.header("content-type", content_type)
        .header("content-security-policy", csp(ctx))
        .header("x-frame-options", "DENY")
        // No other origin's window keeps a handle on the app's (no `window.opener` games
        // around the approval screen).
        .header("cross-origin-opener-policy", "same-origin")
        .header("referrer-policy", "no-referrer")
        .header("cache-control", cache)
        .header("etag", etag)
}

/// `304` when the request already holds this version.
fn not_modified(req: &Request, etag: &str) -> bool {
    req.headers()
        .get(http::header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag))
}

fn send(ctx: &Context, req: &Request, content_type: &str, body: String) -> Response {
    let etag = format!("\"{}\"", &login::hash(&body)[..22]);
    if not_modified(req, &etag) {
        return finish(headers(ctx, 304, content_type, &etag), Body::Empty);
    }
    finish(headers(ctx, 200, content_type, &etag), Body::Text(body))
}

/// The app's path under this origin: `{issuer path}/app/`.
fn app_base(ctx: &Context) -> String {
    let issuer = ctx.settings.issuer();
    let path = url::Url::parse(&issuer)
        .map(|u| u.path().trim_end_matches('/').to_owned())
        .unwrap_or_default();
    format!("{path}/app/")
}

/// The shell page.
pub(crate) fn shell(ctx: &Context, req: &Request) -> Result<Response, HttpError> {
    let (ios, android) = &ctx.settings.app_store_urls;
    let modules: Vec<&str> = MODULES.iter().map(|m| m.name).collect();
    // Until the app reads `navigator.languages` (or the person's pick), the browser's
    // `Accept-Language`: the same list on a phone.
    let accept = req
        .headers()
        .get(http::header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok());
    let default = ctx.settings.default_locale;
    let l = locale::choose(
        &Preferences {
            accept_language: accept,
            ..Preferences::default()
        },
        default,
    );
    let words = catalogue(l);
    let html = askama::Template::render(&crate::views::AppShell {
        base: &app_base(ctx),
        modules: &modules,
        ios,
        android,
        lang: l.tag(),
        dir: l.dir(),
        loading: words.shell("shell-loading"),
        noscript: words.shell("shell-noscript"),
        manifest: &format!("manifest-{}.webmanifest", l.tag()),
        languages: &languages_json(default),
        push: &push_json(ctx),
    })
    .map_err(|e| {
        tracing::error!(error = %e, "rendering the app shell");
        HttpError::Internal
    })?;
    Ok(send(ctx, req, "text/html; charset=utf-8", html))
}

/// `GET .../app/` (the shell; `.../app` is sent there) and `GET .../app/{file}` (its scripts, stylesheet, manifest,
/// icon and service worker).
pub(crate) async fn page(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    check_realm(ctx, &req)?;
    let Some(file) = path_param(&req, "file") else {
        // The shell's relative URLs and the service worker's scope need the slash.
        if !req.uri().path().ends_with('/') {
            return Ok(finish(
                base(308).header("location", app_base(ctx)),
                Body::Empty,
            ));
        }
        return shell(ctx, &req);
    };
    if let Some(c) = APP_CATALOGUES.iter().find(|c| c.file() == file) {
        // Named by its content: kept for good, by the browser and the service worker.
        let etag = format!("\"{}\"", c.hash);
        return Ok(finish(
            headers_cached(
                ctx,
                200,
                "application/json",
                &etag,
                "public, max-age=31536000, immutable",
            ),
            Body::Text(c.json.to_owned()),
        ));
    }
    if let Some(l) = file
        .strip_prefix("manifest-")
        .and_then(|f| f.strip_suffix(".webmanifest"))
        .and_then(Locale::from_tag)
    {
        return Ok(send(ctx, &req, "application/manifest+json", manifest(l)));
    }
    let asset = assets()
        .find(|a| a.name == file)
        .ok_or(HttpError::NotFound)?;
    Ok(send(ctx, &req, asset.content_type, asset.body.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assets_have_distinct_names_and_no_inline_handlers() {
        let all: Vec<&Asset> = assets().collect();
        for (i, a) in all.iter().enumerate() {
            assert!(all[i + 1..].iter().all(|b| b.name != a.name), "{}", a.name);
            assert!(
                !a.body.contains("innerHTML"),
                "{} builds markup from text",
                a.name
            );
            assert!(!a.body.contains("eval("), "{}", a.name);
        }
    }

    /// Each module an app file imports is served, and the service worker keeps every module
    /// (else the app would not open offline).
    #[test]
    fn every_imported_module_is_served_and_kept_offline() {
        let sw = FILES.iter().find(|a| a.name == "sw.js").map(|a| a.body);
        let sw = sw.unwrap_or_default();
        for m in MODULES {
            assert!(sw.contains(&format!("'{}'", m.name)), "{} in sw.js", m.name);
            for import in m.body.split("from './").skip(1) {
                let name = import.split('\'').next().unwrap_or_default();
                assert!(
                    MODULES.iter().any(|n| n.name == name),
                    "{} imports {name}, which is not served",
                    m.name
                );
            }
        }
    }
}
