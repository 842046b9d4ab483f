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
    js_module!("app", "signup.js"),
    js_module!("app", "home.js"),
    js_module!("app", "keys.js"),
    js_module!("app", "edit.js"),
    js_module!("app", "rotate.js"),
    js_module!("app", "signout.js"),
    js_module!("app", "delete.js"),
    js_module!("app", "activity.js"),
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
    base(status)
        .header("content-type", content_type)
        .header("content-security-policy", csp(ctx))
        .header("x-frame-options", "DENY")
        // No other origin's window keeps a handle on the app's (no `window.opener` games
        // around the approval screen).
        .header("cross-origin-opener-policy", "same-origin")
        .header("referrer-policy", "no-referrer")
        .header("cache-control", "no-cache")
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
    let html = askama::Template::render(&crate::views::AppShell {
        base: &app_base(ctx),
        modules: &modules,
        ios,
        android,
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
