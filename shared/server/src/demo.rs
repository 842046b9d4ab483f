//! The demo relying party of `scanid serve` (`/demo`): a "Log in with scanid" button that runs
//! the real authorization code flow with PKCE against this server, then shows the verified
//! id_token claims, the userinfo response and the directory profile. Local only: it is not in
//! the route table, so no Lambda function serves it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use askama::Template;
use lambda_http::Body;
use serde_json::{Map, Value};

use crate::clock::Timestamp;
use crate::domain::client::{self, ClientSecret, NewClient};
use crate::domain::ratelimit::Source;
use crate::keys::jwt;
use crate::protocol::Params;
use crate::random;
use crate::store::{ClientStore, IdentityStore, StoreError};
use crate::usecase::resource;
use crate::usecase::token::{self, Presented};
use crate::Context;
use scanid_http::pages::{self, security_headers};
// The layout the demo's templates extend prints it (`self::STYLE`).
use scanid_http::views::STYLE;
use scanid_http::{base, finish, query_pairs, Request, Response};

/// The demo client's id.
pub const CLIENT_ID: &str = "scanid-demo";

/// At most this many demo logins in flight; the oldest is forgotten first.
const MAX_PENDING: usize = 1024;

struct Pending {
    nonce: String,
    verifier: String,
    started: Timestamp,
}

/// The demo's state: its own origin, its client secret (fresh each start) and the logins in
/// flight.
pub struct Demo {
    /// `http://host:port` the demo is served at: an origin of its own, never the issuer's, so
    /// no script of the demo shares an origin with the web app's device keys.
    origin: String,
    secret: ClientSecret,
    pending: Mutex<HashMap<String, Pending>>,
}

impl Demo {
    fn redirect_uri(&self) -> String {
        format!("{}/demo/callback", self.origin)
    }

    /// The demo's start page.
    pub fn url(&self) -> String {
        format!("{}/demo", self.origin)
    }

    /// Registers (or refreshes) the demo client with a new secret, for a demo served at
    /// `origin` (`http://host:port`).
    pub async fn install(ctx: &Context, origin: String) -> Result<Arc<Self>, StoreError> {
        let now = ctx.clock.now();
        let redirect_uri = format!("{origin}/demo/callback");
        let (mut c, secret) = client::register(
            NewClient {
                name: "scanid demo".into(),
                redirect_uris: vec![redirect_uri],
                post_logout_redirect_uris: vec![format!("{origin}/demo")],
                client_id: Some(CLIENT_ID.into()),
                ..Default::default()
            },
            now,
            ctx.random.as_ref(),
        )
        .map_err(|e| StoreError::Corrupt(format!("demo client: {e}").into()))?;
        let secret =
            secret.ok_or_else(|| StoreError::Corrupt("demo client without a secret".into()))?;
        match ctx.store.client(CLIENT_ID, now).await? {
            Some((old, v)) => {
                c.created_at = old.created_at;
                ctx.store.update_client(&c, v, now).await?;
            }
            None => ctx.store.create_client(&c, now).await?,
        }
        Ok(Arc::new(Self {
            origin,
            secret,
            pending: Mutex::new(HashMap::new()),
        }))
    }

    /// Serves `/demo...`; `None` for other paths.
    pub async fn handle(&self, ctx: &Context, req: &Request) -> Option<Response> {
        match (req.method().as_str(), req.uri().path()) {
            ("GET", "/") => Some(finish(
                security_headers(base(302)).header("location", "/demo"),
                Body::Empty,
            )),
            ("GET", "/demo" | "/demo/") => Some(self.home(ctx)),
            ("GET", "/demo/login") => Some(self.start(ctx)),
            ("GET", "/demo/callback") => Some(self.callback(ctx, req).await),
            _ => None,
        }
    }

    fn home(&self, ctx: &Context) -> Response {
        page(ctx, |nonce| {
            DemoHome {
                nonce,
                tr: &scanid_http::i18n::Tr::english(),
                issuer: &ctx.settings.issuer(),
            }
            .render()
        })
    }

    fn start(&self, ctx: &Context) -> Response {
        let rng = ctx.random.as_ref();
        let state = random::token(rng, 16);
        let nonce = random::token(rng, 16);
        let verifier = random::token(rng, 32);
        let challenge = crate::domain::login::hash(&verifier);
        let now = ctx.clock.now();
        if let Ok(mut p) = self.pending.lock() {
            p.retain(|_, v| now.secs() - v.started.secs() < 600);
            // Bounded: a flood of /demo/login costs at most MAX_PENDING entries.
            while p.len() >= MAX_PENDING {
                let oldest = p
                    .iter()
                    .min_by_key(|(_, v)| v.started)
                    .map(|(k, _)| k.clone());
                match oldest {
                    Some(k) => p.remove(&k),
                    None => break,
                };
            }
            p.insert(
                state.clone(),
                Pending {
                    nonce: nonce.clone(),
                    verifier,
                    started: now,
                },
            );
        }
        let query = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("client_id", CLIENT_ID)
            .append_pair("redirect_uri", &self.redirect_uri())
            .append_pair("response_type", "code")
            .append_pair("scope", "openid profile groups")
            .append_pair("state", &state)
            .append_pair("nonce", &nonce)
            .append_pair("code_challenge", &challenge)
            .append_pair("code_challenge_method", "S256")
            .finish();
        let location = format!(
            "{}/protocol/openid-connect/auth?{query}",
            ctx.settings.issuer()
        );
        finish(
            security_headers(base(302)).header("location", location),
            Body::Empty,
        )
    }

    async fn callback(&self, ctx: &Context, req: &Request) -> Response {
        let q: HashMap<String, String> = query_pairs(req).into_iter().collect();
        if let Some(err) = q.get("error") {
            let desc = q.get("error_description").map_or("", String::as_str);
            return failed(
                ctx,
                "Login did not complete",
                Some(&format!("{err}: {desc}")),
                Some("Back"),
            );
        }
        let pending = q
            .get("state")
            .and_then(|s| self.pending.lock().ok().and_then(|mut p| p.remove(s)));
        let (Some(pending), Some(code)) = (pending, q.get("code")) else {
            return failed(ctx, "Unknown or reused state", None, Some("Start again"));
        };
        if q.get("iss").map(String::as_str) != Some(ctx.settings.issuer().as_str()) {
            return failed(ctx, "Wrong issuer in the response", None, None);
        }
        match self.finish_login(ctx, code, &pending).await {
            Ok(shown) => page(ctx, |nonce| {
                DemoLoggedIn {
                    nonce,
                    tr: &scanid_http::i18n::Tr::english(),
                    display_name: &shown.display_name,
                    claims: &shown.claims,
                    userinfo: &shown.userinfo,
                    profile: &shown.profile,
                }
                .render()
            }),
            Err(why) => failed(ctx, "Login failed", Some(&why), Some("Start again")),
        }
    }

    async fn finish_login(
        &self,
        ctx: &Context,
        code: &str,
        pending: &Pending,
    ) -> Result<Shown, String> {
        let params = Params::from_pairs([
            ("grant_type".to_owned(), "authorization_code".to_owned()),
            ("code".to_owned(), code.to_owned()),
            ("redirect_uri".to_owned(), self.redirect_uri()),
            ("code_verifier".to_owned(), pending.verifier.clone()),
        ]);
        let presented = Presented {
            basic: Some((CLIENT_ID.into(), self.secret.expose().into())),
            ..Default::default()
        };
        let (_, issued) = token::token(ctx, &params, &presented, &Source::from_addr("demo"))
            .await
            .map_err(|e| format!("token request failed: {e}"))?;
        let now = ctx.clock.now();
        let id_token = issued.id_token.clone().ok_or("no id_token")?;
        let claims: Map<String, Value> = jwt::verify(
            &*ctx.keyring().await,
            &id_token,
            &ctx.settings.issuer(),
            now,
        )
        .map_err(|e| format!("id_token: {e}"))?;
        if claims.get("nonce").and_then(Value::as_str) != Some(pending.nonce.as_str()) {
            return Err("id_token nonce mismatch".into());
        }
        let live = resource::live_access_token(ctx, &issued.access_token, now)
            .await
            .map_err(|e| e.to_string())?
            .ok_or("access token not live")?;
        let identity = live.identity.clone().ok_or("no identity")?;
        let userinfo = serde_json::to_value(resource::userinfo(&live, &identity))
            .map_err(|e| e.to_string())?;
        let profile = ctx
            .store
            .identity(&identity.sub, now)
            .await
            .map_err(|e| e.to_string())?
            .map(|(i, _)| i.public_profile());
        let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap_or_default();
        Ok(Shown {
            display_name: identity.display_name.clone(),
            claims: pretty(&Value::Object(claims)),
            userinfo: pretty(&userinfo),
            profile: pretty(&serde_json::to_value(profile).unwrap_or(Value::Null)),
        })
    }
}

/// What the demo shows after a login: the name, and the JSON it received, pretty-printed.
struct Shown {
    display_name: String,
    claims: String,
    userinfo: String,
    profile: String,
}

/// A demo page: 200, no forms, no cookies.
fn page(ctx: &Context, render: impl FnOnce(&str) -> askama::Result<String>) -> Response {
    pages::html(ctx.random.as_ref(), 200, "'none'", Vec::new(), render)
}

fn failed(ctx: &Context, heading: &str, detail: Option<&str>, back: Option<&str>) -> Response {
    page(ctx, |nonce| {
        DemoFailed {
            nonce,
            tr: &scanid_http::i18n::Tr::english(),
            heading,
            detail,
            back,
        }
        .render()
    })
}

/// `/demo`: the "Log in with scanid" button.
#[derive(Template)]
#[template(path = "demo_home.html")]
struct DemoHome<'a> {
    nonce: &'a str,
    /// English, no language selector: the demo is a relying party, not scanid's page.
    tr: &'a scanid_http::i18n::Tr,
    issuer: &'a str,
}

/// A callback that did not end in a login: the heading, what went wrong, the link back's text.
#[derive(Template)]
#[template(path = "demo_failed.html")]
struct DemoFailed<'a> {
    nonce: &'a str,
    /// English, no language selector: the demo is a relying party, not scanid's page.
    tr: &'a scanid_http::i18n::Tr,
    heading: &'a str,
    detail: Option<&'a str>,
    back: Option<&'a str>,
}

/// The login's result ([`Shown`]).
#[derive(Template)]
#[template(path = "demo_logged_in.html")]
struct DemoLoggedIn<'a> {
    nonce: &'a str,
    /// English, no language selector: the demo is a relying party, not scanid's page.
    tr: &'a scanid_http::i18n::Tr,
    display_name: &'a str,
    claims: &'a str,
    userinfo: &'a str,
    profile: &'a str,
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVIL: &str = r#"<script>alert(1)</script>&"'"#;
    const ESCAPED: &str = "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;";

    /// In scanid-http's layout, with `EVIL` only escaped, `times` times.
    fn escaped(html: &str, title: &str, times: usize) {
        assert!(
            html.starts_with("<!doctype html><html lang=\"en\" dir=\"ltr\">"),
            "{html}"
        );
        assert!(
            html.contains(&format!(
                "<title>{title} · scanid</title><style nonce=\"N0NCE\">{STYLE}</style>"
            )),
            "{html}"
        );
        assert!(!html.contains("<script"), "{html}");
        assert_eq!(html.matches(ESCAPED).count(), times, "{html}");
    }

    #[test]
    fn pages_escape_what_they_show() {
        let html = DemoHome {
            nonce: "N0NCE",
            tr: &scanid_http::i18n::Tr::english(),
            issuer: EVIL,
        }
        .render()
        .expect("renders");
        escaped(&html, "scanid demo", 1);
        assert!(html.contains(&format!("relying party of <code>{ESCAPED}</code>.")));

        let html = DemoFailed {
            nonce: "N0NCE",
            tr: &scanid_http::i18n::Tr::english(),
            heading: EVIL,
            detail: Some(EVIL),
            back: Some(EVIL),
        }
        .render()
        .expect("renders");
        escaped(&html, "Login failed", 3);
        assert!(html.contains(&format!(
            "<main><h1>{ESCAPED}</h1><p>{ESCAPED}</p><p><a href=\"/demo\">{ESCAPED}</a></p></main>"
        )));
        let html = DemoFailed {
            nonce: "N0NCE",
            tr: &scanid_http::i18n::Tr::english(),
            heading: "Wrong issuer in the response",
            detail: None,
            back: None,
        }
        .render()
        .expect("renders");
        assert!(html.contains("<main><h1>Wrong issuer in the response</h1></main>"));

        let html = DemoLoggedIn {
            nonce: "N0NCE",
            tr: &scanid_http::i18n::Tr::english(),
            display_name: EVIL,
            claims: EVIL,
            userinfo: EVIL,
            profile: EVIL,
        }
        .render()
        .expect("renders");
        escaped(&html, "Logged in", 4);
        assert!(html.contains(&format!("<pre id=\"userinfo\">{ESCAPED}</pre>")));
    }
}
