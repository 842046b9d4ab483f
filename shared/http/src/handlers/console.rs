//! The admin console (`{auth_url}/admin/`, Keycloak's place): a page and its modules
//! (`static/admin/`), plain HTML, CSS and JavaScript over the admin REST API, no build step.
//!
//! The console is a public client of the realm, built in ([`crate::usecase::admin::console`]
//! writes it when the page loads): the page sends the operator through the authorization
//! endpoint (PKCE S256, `prompt=login`, `max_age=0`: a fresh scan every time), exchanges the
//! code itself and keeps the access token in memory only. Every file carries a strict CSP
//! (scripts, styles and fetches from this origin only, nothing inline), is never framed and is
//! not cached. `{auth_url}/admin/{realm}/console/` (Keycloak's console URL) is sent here.

use lambda_http::Body;

use crate::pages::escape;
use crate::Context;
use crate::{base, finish, path_param, HttpError, Request, Response};

use super::assets::{js_module, Asset};

/// The console's files, by the name they have under `{auth_url}/admin/console/`.
const ASSETS: &[Asset] = &[
    js_module!("admin", "console.js"),
    js_module!("admin", "auth.js"),
    js_module!("admin", "api.js"),
    js_module!("admin", "ui.js"),
    js_module!("admin", "clients.js"),
    js_module!("admin", "screens.js"),
    js_module!("admin", "keys.js"),
    Asset {
        name: "console.css",
        content_type: "text/css; charset=utf-8",
        body: include_str!("../../static/admin/console.css"),
    },
];

const SHELL: &str = include_str!("../../static/admin/index.html");

/// The console's CSP: this origin's scripts, styles and fetches only; nothing inline.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
     connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

fn headers(status: u16, content_type: &str) -> http::response::Builder {
    base(status)
        .header("content-type", content_type)
        .header("content-security-policy", CSP)
        .header("x-frame-options", "DENY")
        .header("cross-origin-opener-policy", "same-origin")
        .header("referrer-policy", "no-referrer")
        .header("cache-control", "no-store")
}

/// The console's path under this origin: `{public_url path}/admin/`.
fn console_base(ctx: &Context) -> String {
    let path = url::Url::parse(&ctx.settings.public_url)
        .map(|u| u.path().trim_end_matches('/').to_owned())
        .unwrap_or_default();
    format!("{path}/admin/")
}

/// `GET {auth_url}/admin/` (the page; `/admin` is sent there), `GET .../admin/console/{file}`
/// (its modules and stylesheet) and `GET .../admin/{realm}/console` (sent to the page).
pub(crate) async fn console(ctx: &Context, req: Request) -> Result<Response, HttpError> {
    if let Some(file) = path_param(&req, "file") {
        let asset = ASSETS
            .iter()
            .find(|a| a.name == file)
            .ok_or(HttpError::NotFound)?;
        return Ok(finish(
            headers(200, asset.content_type),
            Body::Text(asset.body.to_owned()),
        ));
    }
    let slash = req.uri().path().ends_with('/');
    if path_param(&req, "realm").is_some() || !slash {
        return Ok(finish(
            base(302)
                .header("location", console_base(ctx))
                .header("cache-control", "no-store"),
            Body::Empty,
        ));
    }
    let c = crate::usecase::admin::console::console_client(ctx).await?;
    let html = SHELL
        .replace("{{base}}", &escape(&console_base(ctx)))
        .replace("{{realm}}", &escape(&c.realm))
        .replace("{{issuer}}", &escape(&c.issuer))
        .replace("{{client_id}}", &escape(c.client_id))
        .replace("{{redirect_uri}}", &escape(&c.redirect_uri));
    Ok(finish(
        headers(200, "text/html; charset=utf-8"),
        Body::Text(html),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_inline_script_and_every_import_served() {
        assert!(!SHELL.contains("<script>"), "no inline script");
        assert!(!SHELL.contains("style="), "no inline style");
        for a in ASSETS {
            assert!(
                !a.body.contains("innerHTML"),
                "{} builds markup from text",
                a.name
            );
            assert!(!a.body.contains("eval("), "{}", a.name);
            assert!(
                !a.body.contains("localStorage"),
                "{} keeps nothing in localStorage",
                a.name
            );
            for import in a.body.split("from './").skip(1) {
                let name = import.split('\'').next().unwrap_or_default();
                assert!(
                    ASSETS.iter().any(|n| n.name == name),
                    "{} imports {name}",
                    a.name
                );
            }
        }
    }
}
