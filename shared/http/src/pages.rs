//! Server-rendered pages of the login flow. No third-party resources; every page carries
//! `Content-Security-Policy` with a per-response nonce for its one script and style,
//! `frame-ancestors 'none'`, `X-Frame-Options: DENY` and `Referrer-Policy: no-referrer`
//! (docs/requirements.md B1, B2). The markup is in askama templates ([`crate::views`]), which escape
//! every reflected value (B4); this module sends them.

use askama::Template;
use lambda_http::Body;

use crate::domain::authorize::ResponseMode;
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

/// The QR code of `text` as an inline SVG element.
pub fn qr_svg(text: &str) -> String {
    match qr::modules(text.as_bytes()) {
        Ok((w, dark)) => {
            // One path in module units, a horizontal run of dark modules per `M..h..v1h..z`:
            // a fifth of the size of the crate's renderer (a module per subpath), which counts
            // now that the page gets the next seconds' codes with each poll.
            use std::fmt::Write;
            let quiet = 4;
            let size = w + 2 * quiet;
            let mut out = String::with_capacity(4096);
            let _ = write!(
                out,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"256\" height=\"256\" \
                 viewBox=\"0 0 {size} {size}\" shape-rendering=\"crispEdges\">\
                 <rect width=\"{size}\" height=\"{size}\" fill=\"#fff\"/>\
                 <path fill=\"#000\" d=\""
            );
            for (y, row) in dark.chunks(w.max(1)).enumerate() {
                let mut x = 0;
                while x < row.len() {
                    if row[x] {
                        let start = x;
                        while x < row.len() && row[x] {
                            x += 1;
                        }
                        let run = x - start;
                        let _ = write!(out, "M{},{}h{run}v1h-{run}z", start + quiet, y + quiet);
                    } else {
                        x += 1;
                    }
                }
            }
            out.push_str("\"/></svg>");
            out
        }
        Err(e) => {
            tracing::error!(error = %e, "QR encoding failed");
            String::new()
        }
    }
}

/// QR encoding with the `qrcode` crate's segments, codewords and drawing, but its mask chosen
/// here: the crate scores the eight masks of ISO/IEC 18004 §7.8.3 with a heap allocation per
/// module for the finder-like penalty (tens of thousands of `malloc`/`free` per code, most of a
/// whole QR login's CPU once the page and each poll carried several codes: infra/README.md).
/// Same rules, same order, same choice (a test holds it to the crate's `QrCode::new`), on a
/// plain grid of booleans.
mod qr {
    use qrcode::canvas::{Canvas, MaskPattern};
    use qrcode::types::{Color, EcLevel, QrResult};

    const MASKS: [MaskPattern; 8] = [
        MaskPattern::Checkerboard,
        MaskPattern::HorizontalLines,
        MaskPattern::VerticalLines,
        MaskPattern::DiagonalLines,
        MaskPattern::LargeCheckerboard,
        MaskPattern::Fields,
        MaskPattern::Diamonds,
        MaskPattern::Meadow,
    ];

    /// The code's width and its modules row by row, `true` for dark: what
    /// `qrcode::QrCode::new(text)` draws (error correction level M, the smallest version).
    pub(super) fn modules(text: &[u8]) -> QrResult<(usize, Vec<bool>)> {
        let ec_level = EcLevel::M;
        let bits = qrcode::bits::encode_auto(text, ec_level)?;
        let version = bits.version();
        let data = bits.into_bytes();
        let (encoded, ec) = qrcode::ec::construct_codewords(&data, version, ec_level)?;
        let mut canvas = Canvas::new(version, ec_level);
        canvas.draw_all_functional_patterns();
        canvas.draw_data(&encoded, &ec);
        let w = version.width().max(0).unsigned_abs() as usize;
        let mut best: Option<(u32, Vec<bool>)> = None;
        for mask in MASKS {
            let mut c = canvas.clone();
            c.apply_mask(mask);
            let dark: Vec<bool> = c
                .into_colors()
                .into_iter()
                .map(|m| m == Color::Dark)
                .collect();
            let score = if w <= 57 {
                penalty_bits(&dark, w)
            } else {
                penalty(&dark, w)
            };
            if best.as_ref().is_none_or(|(b, _)| score < *b) {
                best = Some((score, dark));
            }
        }
        Ok((w, best.map(|(_, d)| d).unwrap_or_default()))
    }

    /// [`penalty`] on rows and columns as bit sets (codes up to version 10, 57 modules wide: the
    /// app links are version 5 to 7), a word operation where that one looks at each module.
    pub(super) fn penalty_bits(dark: &[bool], w: usize) -> u32 {
        let mut rows = vec![0u64; w];
        let mut cols = vec![0u64; w];
        for (i, d) in dark.iter().enumerate() {
            if *d {
                let (y, x) = (i / w, i % w);
                rows[y] |= 1 << x;
                cols[x] |= 1 << y;
            }
        }
        let width = (1u64 << w) - 1;
        let mut score = 0u32;
        for line in rows.iter().chain(cols.iter()) {
            let l = *line;
            // N1: runs of 5 + n: 3 + n.
            let mut pos = 0usize;
            while pos < w {
                let rest = l >> pos;
                let run = if rest & 1 == 1 {
                    rest.trailing_ones() as usize
                } else {
                    (rest.trailing_zeros() as usize).min(w - pos)
                };
                if run >= 5 {
                    score += run as u32 - 2;
                }
                pos += run;
            }
            // N3: 1:1:3:1:1 at j..j+7, not bordered by 4 light modules on a side.
            if w >= 7 {
                let mut m = l & !(l >> 1) & (l >> 2) & (l >> 3) & (l >> 4) & !(l >> 5) & (l >> 6);
                m &= (1u64 << (w - 6)) - 1;
                while m != 0 {
                    let j = m.trailing_zeros() as usize;
                    m &= m - 1;
                    let left = l & ((1u64 << j) - 1) & !((1u64 << j.saturating_sub(4)) - 1) != 0;
                    let right = l & (0xF << (j + 7)) & width != 0;
                    if !left || !right {
                        score += 40;
                    }
                }
            }
        }
        // N2: 2x2 blocks of one color: 3 each.
        let pairs = width >> 1;
        for y in 0..w.saturating_sub(1) {
            let (a, b) = (rows[y], rows[y + 1]);
            let same = !(a ^ b) & !(a ^ (a >> 1)) & !(b ^ (b >> 1)) & pairs;
            score += 3 * same.count_ones();
        }
        // N4: how far the dark modules are from half.
        let darks = rows.iter().map(|r| r.count_ones() as usize).sum::<usize>();
        let ratio = darks * 200 / (w * w).max(1);
        score + ratio.abs_diff(100) as u32
    }

    /// The penalty of a masked code (rules N1 to N4, as the crate counts them).
    pub(super) fn penalty(dark: &[bool], w: usize) -> u32 {
        let at = |x: usize, y: usize| dark[y * w + x];
        let mut score = 0u32;
        // N1: runs of 5 + n modules of one color in a row or a column: 3 + n.
        // N3: 1:1:3:1:1 dark-light-dark patterns not bordered by 4 light modules on a side.
        for horizontal in [true, false] {
            let get = |i: usize, j: usize| if horizontal { at(j, i) } else { at(i, j) };
            for i in 0..w {
                let mut run = 1u32;
                for j in 1..=w {
                    if j < w && get(i, j) == get(i, j - 1) {
                        run += 1;
                    } else {
                        if run >= 5 {
                            score += run - 2;
                        }
                        run = 1;
                    }
                }
                const PATTERN: [bool; 7] = [true, false, true, true, true, false, true];
                for j in 0..w.saturating_sub(6) {
                    if (0..7).any(|k| get(i, j + k) != PATTERN[k]) {
                        continue;
                    }
                    let left = (j.saturating_sub(4)..j).any(|k| get(i, k));
                    let right = (j + 7..(j + 11).min(w)).any(|k| get(i, k));
                    if !left || !right {
                        score += 40;
                    }
                }
            }
        }
        // N2: 2x2 blocks of one color: 3 each.
        for y in 0..w.saturating_sub(1) {
            for x in 0..w.saturating_sub(1) {
                let c = at(x, y);
                if at(x + 1, y) == c && at(x, y + 1) == c && at(x + 1, y + 1) == c {
                    score += 3;
                }
            }
        }
        // N4: how far the dark modules are from half.
        let darks = dark.iter().filter(|d| **d).count();
        let ratio = darks * 200 / dark.len().max(1);
        score + ratio.abs_diff(100) as u32
    }
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
         connect-src 'self'; form-action {form_action}; frame-ancestors 'none'; base-uri 'none'"
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
/// login-page errors.
pub fn error_page(status: u16, title: &str, message: &str, rng: &dyn Random) -> Response {
    html(rng, status, "'none'", Vec::new(), |nonce| {
        views::ErrorPage {
            nonce,
            title,
            message,
        }
        .render()
    })
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
            return html(
                rng,
                200,
                &form_targets(Some(&r.redirect_uri)),
                cookies,
                |nonce| {
                    views::FormPost {
                        nonce,
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

/// What each scope means to a person.
pub fn describe_scope(scope: &str) -> &'static str {
    match scope {
        "openid" => "Your scanid identifiers (subject and service ID)",
        "profile" => {
            "Your user name, display name, profile photo, when your profile last changed, \
             and the groups you belong to"
        }
        "groups" => "The groups you belong to",
        "address" => "Your country",
        "offline_access" => "Access while you are not using the app (offline access)",
        _ => "Other data",
    }
}

/// What each claim a client may ask for by name (the `claims` parameter, OIDC Core §5.5)
/// means to a person.
pub fn describe_claim(claim: &str) -> &'static str {
    match claim {
        "name" => "Your display name",
        "preferred_username" => "Your user name",
        "picture" => "Your profile photo",
        "updated_at" => "When your profile last changed",
        "groups" => "The groups you belong to",
        "address" => "Your country",
        _ => "Other data",
    }
}

/// The consent page's list: each scope, then each claim asked for by name that no scope of
/// the request releases already.
pub fn describe_request(req: &crate::domain::authorize::AuthorizationRequest) -> Vec<&'static str> {
    let by_name = req
        .claims
        .all()
        .into_iter()
        .filter(|c| !crate::domain::claims_request::scopes_release(&req.scopes, c))
        .map(|c| describe_claim(&c));
    req.scopes
        .iter()
        .map(|s| describe_scope(s))
        .chain(by_name)
        .collect()
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
        let app_js = include_str!("../static/app/app.js");
        for scope in crate::domain::discovery::SCOPES {
            assert_ne!(describe_scope(scope), describe_scope("unknown"), "{scope}");
            assert!(
                app_js.contains(&format!("\n  {scope}: '")),
                "{scope} in app.js"
            );
        }
        assert!(describe_scope("profile").contains("groups"));
        assert!(describe_scope("address").contains("country"));
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
            vec![openid, "Your display name"]
        );
        // Released by a scope already: listed once, by the scope.
        assert_eq!(
            describe_request(&req(
                "openid profile",
                r#"{"id_token":{"name":null,"address":null},"userinfo":{"email":null}}"#
            )),
            vec![openid, describe_scope("profile"), "Your country"]
        );
        assert_eq!(describe_request(&req("openid", "{}")), vec![openid]);
    }

    #[test]
    fn qr_penalty_on_bit_sets_is_the_penalty() {
        // Random grids of every width the bit sets take, and some in between in darkness.
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        for w in 1..=57usize {
            for round in 0..20 {
                let dark: Vec<bool> = (0..w * w)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        // From sparse to dense, so that long runs and 2x2 blocks occur.
                        x % 20 < round
                    })
                    .collect();
                assert_eq!(
                    qr::penalty_bits(&dark, w),
                    qr::penalty(&dark, w),
                    "{w} {round}"
                );
            }
        }
    }

    #[test]
    fn qr_modules_are_the_ones_the_crate_draws() {
        // The mask chosen here is the crate's (`QrCode::new`), for links of many lengths
        // (versions) and contents (masks).
        let check = |text: &str| {
            let code = qrcode::QrCode::new(text.as_bytes()).unwrap();
            let want: Vec<bool> = code
                .to_colors()
                .iter()
                .map(|c| *c == qrcode::Color::Dark)
                .collect();
            let (w, got) = qr::modules(text.as_bytes()).unwrap();
            assert_eq!(w, code.width(), "{text}");
            assert_eq!(got, want, "{text}");
        };
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in 0..300 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let pad = "p".repeat(i % 97);
            check(&format!(
                "https://id{pad}.example.com/realms/scanid/app/scan?session={x:016x}&challenge={:022x}",
                x.rotate_left(17)
            ));
        }
        check("");
        check("0123456789");
    }

    #[test]
    fn qr_is_an_inline_svg() {
        let text = "http://127.0.0.1:8080/realms/scanid/app/scan?session=-q3OJ9o0EgXKX2arp_iu0w&challenge=N-vxNW4vCqMYdMqlXAjMIg";
        let svg = qr_svg(text);
        assert!(svg.starts_with("<svg"), "{}", &svg[..40]);
        assert!(svg.ends_with("</svg>"));
        // Small: the poll carries several (a module-per-subpath rendering was ~20 KB).
        assert!(svg.len() < 8000, "{} bytes", svg.len());
        // Every dark module is drawn, in runs: the runs' lengths add up to the dark modules.
        let code = qrcode::QrCode::new(text.as_bytes()).unwrap();
        let dark = code
            .to_colors()
            .iter()
            .filter(|c| **c == qrcode::Color::Dark)
            .count();
        let drawn: usize = svg
            .split('h')
            .skip(1)
            .filter_map(|p| p.split('v').next()?.parse::<usize>().ok())
            .sum();
        assert_eq!(drawn, dark);
    }
}
