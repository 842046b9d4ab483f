//! OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, "CIMD"):
//! a client with no registration names itself by an `https` URL as its `client_id`, and the
//! document at that URL is its metadata (RFC 7591's names). The decisions, with no I/O: which
//! URLs may be a `client_id` ([`check_url`]), which hosts the operator allows ([`Policy`]),
//! what a fetched document must say ([`client_of`]), and how long it is used
//! ([`freshness`]). The fetch is `service::client_documents`'s.

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;
use crate::domain::client::{AuthMethod, Client};
use crate::domain::registration::{self, ClientMetadata};
use crate::protocol::{Alg, ClientId};
use crate::random::Random;

/// At most this many bytes of a document (the draft suggests 5 KB).
pub const MAX_BYTES: usize = 5 * 1024;
/// At most this many characters of a `client_id` URL.
pub const MAX_URL_LEN: usize = 512;
/// How long a document is used when its answer says nothing of caching.
pub const DEFAULT_FRESH_SECS: i64 = 300;
/// The longest a document is used without fetching it again by default, whatever its
/// `max-age` (`SCANID_CLIENT_DOCUMENT_MAX_CACHE_SECS`).
pub const MAX_FRESH_SECS: i64 = 24 * 3600;
/// How long a fetched client stays in the store after it stops being fresh, so that a login
/// under way (the QR page, the phone, the consent page, the code's redemption) still finds
/// it in the functions that do not fetch.
pub const FLOW_SECS: i64 = 3600;

/// The operator's policy for metadata documents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// Whether an `https` `client_id` is fetched at all.
    pub enabled: bool,
    /// When not empty, only these hosts (and their subdomains) may serve documents.
    pub trusted_hosts: Vec<String>,
    /// These hosts (and their subdomains) may not.
    pub refused_hosts: Vec<String>,
    /// The least time a fetched document is used before it is fetched again, whatever its
    /// caching headers say.
    pub min_fresh_secs: i64,
    /// The longest.
    pub max_fresh_secs: i64,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            enabled: false,
            trusted_hosts: Vec::new(),
            refused_hosts: Vec::new(),
            min_fresh_secs: 0,
            max_fresh_secs: MAX_FRESH_SECS,
        }
    }
}

fn covers(pattern: &str, host: &str) -> bool {
    let pattern = pattern.trim_start_matches("*.").to_ascii_lowercase();
    host == pattern || host.ends_with(&format!(".{pattern}"))
}

impl Policy {
    /// Whether the operator lets `host` serve client documents; why not.
    pub fn allows(&self, host: &str) -> Result<(), String> {
        let host = host.to_ascii_lowercase();
        if self.refused_hosts.iter().any(|p| covers(p, &host)) {
            return Err(format!("the operator refuses client documents from {host}"));
        }
        if !self.trusted_hosts.is_empty() && !self.trusted_hosts.iter().any(|p| covers(p, &host)) {
            return Err(format!(
                "{host} is not among the operator's trusted client document hosts"
            ));
        }
        Ok(())
    }
}

/// Whether `client_id` names a metadata document (an `https` URL) rather than a registered
/// client.
pub fn is_document_id(client_id: &str) -> bool {
    client_id.starts_with("https://")
}

/// The host a document client's id names (shown beside the name it claims), if it is one.
pub fn host_of(client_id: &str) -> Option<String> {
    if !is_document_id(client_id) {
        return None;
    }
    let url = url::Url::parse(client_id).ok()?;
    let host = url.host_str()?.to_owned();
    Some(match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host,
    })
}

/// A `client_id` URL as the draft allows it (§3): `https`, a host, a path other than `/`,
/// no dot segments, no fragment, no credentials, no query (the draft discourages one; a
/// string compared byte for byte is safer without), in its normal form, at most
/// [`MAX_URL_LEN`] characters. Returns its host.
pub fn check_url(id: &str) -> Result<String, String> {
    let url = url::Url::parse(id).map_err(|e| format!("client_id is not a URL: {e}"))?;
    let why = if id.len() > MAX_URL_LEN {
        Some("is longer than 512 characters")
    } else if url.scheme() != "https" {
        Some("must be https")
    } else if !url.username().is_empty() || url.password().is_some() {
        Some("may not carry credentials")
    } else if url.fragment().is_some() || url.query().is_some() {
        Some("may have no query and no fragment")
    } else if url.path() == "/" || url.path().is_empty() {
        Some("must have a path")
    } else if url.as_str() != id
        || id
            .split('/')
            .skip(3)
            .any(|s| s == "." || s == ".." || s.is_empty())
    {
        Some("must be in its normal form, without dot or empty path segments")
    } else {
        None
    };
    match (why, url.host_str()) {
        (Some(w), _) => Err(format!("a client_id metadata document URL {w}")),
        (None, Some(h)) if !h.is_empty() => Ok(h.to_owned()),
        _ => Err("a client_id metadata document URL must have a host".into()),
    }
}

/// What a document's answer says of caching (RFC 9111), its headers as received.
#[derive(Debug, Clone, Copy, Default)]
pub struct CacheHeaders<'a> {
    /// `Cache-Control`.
    pub cache_control: Option<&'a str>,
    /// `Expires` (an HTTP-date).
    pub expires: Option<&'a str>,
    /// `Date`, the origin's clock (`Expires` counts from it).
    pub date: Option<&'a str>,
}

/// How long a document is used without fetching it, and whether it may be revalidated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Freshness {
    /// Seconds it is used as it is.
    pub secs: i64,
    /// Whether its validators (`ETag`, `Last-Modified`) are kept to revalidate it with a
    /// conditional request (`no-store` forbids keeping anything beyond the flow under way).
    pub revalidate: bool,
}

/// How long a fetched document may be used (RFC 9111 §4.2.1): `no-store` or `no-cache` not
/// at all (the next request fetches it again; `no-cache` revalidates), else `max-age`, else
/// `Expires` less `Date` (or now), else [`DEFAULT_FRESH_SECS`]; always within the operator's
/// bounds (`min..=max`: the minimum holds even against `no-store`, so a document cannot make
/// scanid fetch it on every request when the operator says otherwise).
pub fn freshness(h: CacheHeaders<'_>, now: Timestamp, (min, max): (i64, i64)) -> Freshness {
    let mut max_age = None;
    let (mut no_store, mut no_cache) = (false, false);
    for d in h
        .cache_control
        .unwrap_or_default()
        .split(',')
        .map(|d| d.trim().to_ascii_lowercase())
    {
        match d.as_str() {
            "no-store" => no_store = true,
            "no-cache" => no_cache = true,
            _ => {
                if let Some(v) = d.strip_prefix("max-age=") {
                    // An invalid max-age is stale (RFC 9111 §4.2.1).
                    max_age = Some(v.trim_matches('"').parse::<i64>().unwrap_or(0));
                }
            }
        }
    }
    let secs = if no_store || no_cache {
        0
    } else if let Some(a) = max_age {
        a
    } else if let Some(e) = h.expires {
        // An Expires that is no date (`0`, say) means already expired.
        let from = h.date.and_then(http_date).unwrap_or(now.secs());
        http_date(e).map_or(0, |e| e - from)
    } else {
        DEFAULT_FRESH_SECS
    };
    Freshness {
        secs: secs.clamp(min, max.max(min)),
        revalidate: !no_store,
    }
}

/// An HTTP-date in its preferred form (RFC 9110 §5.6.7, IMF-fixdate), in Unix seconds.
pub fn http_date(v: &str) -> Option<i64> {
    let f = time::macros::format_description!(
        "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
    );
    time::PrimitiveDateTime::parse(v.trim(), &f)
        .ok()
        .map(|t| t.assume_utc().unix_timestamp())
}

/// A fetched client, as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientDocument {
    /// The client the document describes.
    pub client: Client,
    /// Until when it is used without fetching the document again.
    pub fresh_until: Timestamp,
    /// Its `ETag`, to revalidate it with `If-None-Match`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    /// Its `Last-Modified`, to revalidate it with `If-Modified-Since`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// Members a metadata document may not have (§4.1: it is public; there is no shared secret).
const FORBIDDEN: &[&str] = &["client_secret", "client_secret_expires_at"];

/// The client that the document `body` fetched from `id` describes, as a self-registered
/// client of the same metadata would be (the same redirect URI, grant and key rules), with:
/// the document's `client_id` equal to its URL (§4.1); no secret, and a method of `none`
/// (the default) or `private_key_jwt`; the authorization code grant (and refresh tokens)
/// only; no back-channel logout (scanid does not POST to an unregistered client); its name
/// the one it claims followed by the document's host in brackets (the host alone when it
/// claims none), so a person sees who serves it wherever the name is shown. Its registration access token matches nothing (RFC 7592
/// does not manage it).
pub fn client_of(
    id: &str,
    body: &[u8],
    algs: &[Alg],
    local_development: bool,
    now: Timestamp,
    rng: &dyn Random,
) -> Result<Client, String> {
    let host = check_url(id)?;
    let value: serde_json::Value = serde_json::from_slice(body)
        .map_err(|e| format!("the client metadata document is not JSON: {e}"))?;
    let Some(obj) = value.as_object() else {
        return Err("the client metadata document is not a JSON object".into());
    };
    if obj.get("client_id").and_then(|v| v.as_str()) != Some(id) {
        return Err(format!(
            "the client metadata document's client_id is not its URL {id}"
        ));
    }
    if let Some(f) = FORBIDDEN.iter().find(|f| obj.contains_key(**f)) {
        return Err(format!("a client metadata document may not have {f}"));
    }
    let mut m: ClientMetadata = serde_json::from_value(value.clone())
        .map_err(|e| format!("the client metadata document: {e}"))?;
    let method = m
        .token_endpoint_auth_method
        .clone()
        .unwrap_or_else(|| "none".into());
    if !matches!(
        AuthMethod::parse(&method),
        Some(AuthMethod::None | AuthMethod::PrivateKeyJwt)
    ) {
        return Err(
            "token_endpoint_auth_method: none or private_key_jwt (a document has no secret)".into(),
        );
    }
    let grants = m.grant_types.clone().unwrap_or_default();
    if let Some(g) = grants
        .iter()
        .find(|g| !matches!(g.as_str(), "authorization_code" | "refresh_token"))
    {
        return Err(format!(
            "grant_types: {g:?} is not for a client without registration (authorization_code, refresh_token)"
        ));
    }
    m.token_endpoint_auth_method = Some(method);
    m.backchannel_logout_uri = None;
    m.client_id = None;
    let claimed = m.client_name.clone().filter(|n| !n.trim().is_empty());
    m.client_name = Some(host.clone());
    let registered = registration::register(&m, algs, local_development, now, rng)
        .map_err(|e| format!("the client metadata document: {e}"))?;
    let mut client = registered.client;
    // Wherever the name is shown (the QR and consent pages, the phone, the person's recent
    // logins), the host that serves the document is shown with the name it claims.
    let shown = host_of(id).unwrap_or(host);
    client.name = match claimed {
        Some(n) => format!("{} ({shown})", n.trim()),
        None => shown,
    };
    if client.name.chars().count() > 200 || !crate::domain::text::is_visible_text(&client.name) {
        return Err("client_name: at most 100 characters of visible text".into());
    }
    // Checked by check_url above: the URL is the id.
    client.client_id = ClientId::new(id);
    if let Some(r) = client.registration.as_mut() {
        r.access_token_hash = String::new();
    }
    Ok(client)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::SeededRandom;

    const ID: &str = "https://mcp.example/client.json";

    fn doc(extra: serde_json::Value) -> Vec<u8> {
        let mut d = serde_json::json!({
            "client_id": ID,
            "client_name": "Example MCP",
            "redirect_uris": ["http://127.0.0.1:33418/callback"],
        });
        for (k, v) in extra.as_object().unwrap() {
            d[k] = v.clone();
        }
        serde_json::to_vec(&d).unwrap()
    }

    fn of(body: &[u8]) -> Result<Client, String> {
        client_of(
            ID,
            body,
            &[Alg::ES256],
            false,
            Timestamp::from_secs(1),
            &SeededRandom::new(1),
        )
    }

    #[test]
    fn a_document_is_a_public_client_named_by_its_url() {
        let c = of(&doc(serde_json::json!({}))).unwrap();
        assert_eq!(c.client_id.as_str(), ID);
        assert_eq!(
            c.name, "Example MCP (mcp.example)",
            "the host beside the claim"
        );
        assert_eq!(c.client_type, crate::domain::client::ClientType::Public);
        assert!(c.secret_hash.is_none());
        let r = c.registration.unwrap();
        assert!(!r.token_matches(""), "no registration access token matches");
        assert_eq!(host_of(ID).as_deref(), Some("mcp.example"));
    }

    #[test]
    fn a_document_that_lies_or_holds_a_secret_is_refused() {
        let other = doc(serde_json::json!({"client_id": "https://evil.example/c.json"}));
        assert!(of(&other).unwrap_err().contains("is not its URL"));
        let secret = doc(serde_json::json!({"client_secret": "s"}));
        assert!(of(&secret).unwrap_err().contains("client_secret"));
        let basic = doc(serde_json::json!({"token_endpoint_auth_method": "client_secret_basic"}));
        assert!(of(&basic).unwrap_err().contains("none or private_key_jwt"));
        let cc = doc(serde_json::json!({"grant_types": ["client_credentials"]}));
        assert!(of(&cc).unwrap_err().contains("grant_types"));
        assert!(of(b"[1]").unwrap_err().contains("object"));
        let no_uri = doc(serde_json::json!({"redirect_uris": []}));
        assert!(of(&no_uri).is_err());
    }

    #[test]
    fn urls_are_https_with_a_path_in_normal_form() {
        assert_eq!(check_url(ID).unwrap(), "mcp.example");
        for bad in [
            "http://mcp.example/c.json",
            "https://mcp.example/",
            "https://mcp.example",
            "https://u:p@mcp.example/c.json",
            "https://mcp.example/c.json#f",
            "https://mcp.example/c.json?x=1",
            "https://mcp.example/a/../c.json",
            "https://mcp.example/a//c.json",
            "https://MCP.example/c.json",
        ] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn caching_follows_the_headers_within_the_operators_bounds() {
        let now = Timestamp::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        let b = (0, MAX_FRESH_SECS);
        let f = |cc: Option<&str>, expires: Option<&str>, date: Option<&str>, b| {
            let h = CacheHeaders {
                cache_control: cc,
                expires,
                date,
            };
            freshness(h, now, b)
        };
        let secs = |cc, e, d| f(cc, e, d, b).secs;
        assert_eq!(secs(None, None, None), DEFAULT_FRESH_SECS);
        assert_eq!(secs(Some("public, max-age=60"), None, None), 60);
        assert_eq!(secs(Some("max-age=99999999"), None, None), MAX_FRESH_SECS);
        assert_eq!(secs(Some("max-age=x"), None, None), 0);
        assert_eq!(
            f(Some("no-store"), None, None, b),
            Freshness {
                secs: 0,
                revalidate: false
            }
        );
        assert_eq!(
            f(Some("max-age=60, no-cache"), None, None, b),
            Freshness {
                secs: 0,
                revalidate: true
            }
        );
        // Expires, from the origin's Date, else from now; max-age wins over it.
        let exp = Some("Sun, 06 Nov 1994 08:59:37 GMT");
        assert_eq!(secs(None, exp, None), 600);
        assert_eq!(secs(None, exp, Some("Sun, 06 Nov 1994 08:58:37 GMT")), 60);
        assert_eq!(secs(Some("max-age=5"), exp, None), 5);
        assert_eq!(secs(None, Some("0"), None), 0);
        assert_eq!(secs(None, Some("Sun, 06 Nov 1994 08:00:00 GMT"), None), 0);
        // The operator's bounds hold over everything.
        assert_eq!(f(Some("no-store"), None, None, (30, 600)).secs, 30);
        assert_eq!(f(Some("max-age=3600"), None, None, (30, 600)).secs, 600);
        assert_eq!(
            http_date("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777)
        );
        assert_eq!(http_date("Sunday, 06-Nov-94 08:49:37 GMT"), None);
    }

    #[test]
    fn the_policy_refuses_and_trusts_hosts_with_their_subdomains() {
        let p = Policy {
            enabled: true,
            trusted_hosts: vec![],
            refused_hosts: vec!["evil.example".into()],
            ..Policy::default()
        };
        assert!(p.allows("mcp.example").is_ok());
        assert!(p.allows("a.evil.example").is_err());
        let t = Policy {
            trusted_hosts: vec!["*.good.example".into()],
            ..p
        };
        assert!(t.allows("app.good.example").is_ok());
        assert!(t.allows("mcp.example").is_err());
    }
}
