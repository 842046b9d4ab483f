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
    match qr::draw(text.as_bytes()) {
        Ok(code) => {
            // One path in module units: each horizontal run of dark modules a stroke one module
            // wide along the middle of its row (`M{x} {y}.5h{length}`, the next run of the row
            // `m{gap} 0h{length}`). About half the bytes of a filled rectangle per run, and a
            // tenth of the crate's renderer (a module per subpath): the page and each poll
            // carry several codes.
            let quiet = 4;
            let size = code.width() + 2 * quiet;
            let mut out = format!(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"256\" height=\"256\" \
                 viewBox=\"0 0 {size} {size}\" shape-rendering=\"crispEdges\"><rect \
                 width=\"{size}\" height=\"{size}\" fill=\"#fff\"/><path stroke=\"#000\" d=\""
            );
            out.reserve(4096);
            let mut row_end: Option<(usize, usize)> = None;
            code.runs(|x, y, run| {
                match row_end {
                    Some((ry, end)) if ry == y => {
                        out.push('m');
                        push_num(&mut out, x - end);
                        out.push_str(" 0");
                    }
                    _ => {
                        out.push('M');
                        push_num(&mut out, x + quiet);
                        out.push(' ');
                        push_num(&mut out, y + quiet);
                        out.push_str(".5");
                    }
                }
                out.push('h');
                push_num(&mut out, run);
                row_end = Some((y, x + run));
            });
            out.push_str("\"/></svg>");
            out
        }
        Err(e) => {
            tracing::error!(error = %e, "QR encoding failed");
            String::new()
        }
    }
}

/// `n` in decimal, without `fmt`'s machinery (a code's path has a few hundred numbers).
fn push_num(out: &mut String, n: usize) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// QR encoding with the `qrcode` crate's segments and codewords, its modules placed and its
/// mask chosen here by the same rules (ISO/IEC 18004 §7.7.3, §7.8.3), in the same order, with
/// the same choice (a test holds the modules to the crate's `QrCode::new`). The crate clones
/// its canvas and masks every module for each of the eight masks, and scores them with a heap
/// allocation per module (most of a whole QR login's CPU once the page and each poll carried
/// several codes: infra/README.md). Here, what a version's codes share is drawn once per
/// process ([`qr::Layout`]: where the data goes, and each mask over the function patterns and
/// the format information), so a code is its data placed once and each mask one XOR per row
/// and column, scored on bit sets.
mod qr {
    use std::sync::OnceLock;

    use qrcode::canvas::{Canvas, MaskPattern, Module};
    use qrcode::types::{Color, EcLevel, QrResult, Version};

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

    /// The widest code drawn on bit sets (version 10: rows and columns fit a `u64`); app
    /// links are versions 5 to 7. Wider ones go the crate's way ([`modules_by_canvas`]).
    const BITS_MAX_VERSION: i16 = 10;

    /// A drawn code: its modules, dark or light.
    pub(super) enum Code {
        /// Rows as bit sets (bit `x` of row `y`), codes up to [`BITS_MAX_VERSION`].
        Rows(usize, Vec<u64>),
        /// Row by row, `true` for dark.
        Modules(usize, Vec<bool>),
    }

    impl Code {
        pub(super) fn width(&self) -> usize {
            match self {
                Code::Rows(w, _) | Code::Modules(w, _) => *w,
            }
        }

        /// Calls `f(x, y, length)` for each horizontal run of dark modules, row by row, left
        /// to right.
        pub(super) fn runs(&self, mut f: impl FnMut(usize, usize, usize)) {
            match self {
                Code::Rows(w, rows) => {
                    for (y, row) in rows.iter().enumerate() {
                        let mut x = 0usize;
                        while x < *w {
                            let rest = row >> x;
                            if rest == 0 {
                                break;
                            }
                            x += rest.trailing_zeros() as usize;
                            let run = (row >> x).trailing_ones() as usize;
                            f(x, y, run);
                            x += run;
                        }
                    }
                }
                Code::Modules(w, dark) => {
                    for (y, row) in dark.chunks((*w).max(1)).enumerate() {
                        let mut x = 0;
                        while x < row.len() {
                            if row[x] {
                                let start = x;
                                while x < row.len() && row[x] {
                                    x += 1;
                                }
                                f(start, y, x - start);
                            } else {
                                x += 1;
                            }
                        }
                    }
                }
            }
        }

        /// Row by row, `true` for dark.
        #[cfg(test)]
        pub(super) fn modules(&self) -> Vec<bool> {
            match self {
                Code::Rows(w, rows) => rows
                    .iter()
                    .flat_map(|r| (0..*w).map(move |x| (r >> x) & 1 == 1))
                    .collect(),
                Code::Modules(_, dark) => dark.clone(),
            }
        }
    }

    /// What every code of one version shares.
    pub(super) struct Layout {
        w: usize,
        /// The data modules `(x, y)` in the order the codewords fill them (§7.7.3).
        order: Vec<(u8, u8)>,
        /// For each mask: the code with no data (every codeword bit light), masked: the function
        /// patterns, the version and format information for that mask, and the mask itself on
        /// the data modules. Rows, then columns (bit `y` of column `x`).
        blank: [(Vec<u64>, Vec<u64>); 8],
    }

    impl Layout {
        /// Drawn by the crate: its function patterns, format information and masks.
        fn new(version: Version) -> Self {
            let w = version.width().max(0).unsigned_abs() as usize;
            let mut canvas = Canvas::new(version, EcLevel::M);
            canvas.draw_all_functional_patterns();
            let order = DataModules::new(version)
                .filter(|(x, y)| canvas.get(*x, *y) == Module::Empty)
                .filter_map(|(x, y)| Some((u8::try_from(x).ok()?, u8::try_from(y).ok()?)))
                .collect();
            let blank = MASKS.map(|mask| {
                let mut c = canvas.clone();
                c.apply_mask(mask);
                let (mut rows, mut cols) = (vec![0u64; w], vec![0u64; w]);
                for (i, m) in c.into_colors().into_iter().enumerate() {
                    if m == Color::Dark {
                        let (y, x) = (i / w, i % w);
                        rows[y] |= 1 << x;
                        cols[x] |= 1 << y;
                    }
                }
                (rows, cols)
            });
            Self { w, order, blank }
        }

        /// The layout of normal version `v` (1 to [`BITS_MAX_VERSION`]), drawn at its first use.
        fn of(v: i16) -> Option<&'static Layout> {
            static LAYOUTS: [OnceLock<Layout>; BITS_MAX_VERSION as usize] =
                [const { OnceLock::new() }; BITS_MAX_VERSION as usize];
            let slot = LAYOUTS.get(usize::try_from(v).ok()?.checked_sub(1)?)?;
            Some(slot.get_or_init(|| Layout::new(Version::Normal(v))))
        }
    }

    /// The crate's data placement order (`qrcode::canvas::DataModuleIter`, private there):
    /// two-module columns from the right, up then down, skipping the vertical timing pattern;
    /// function modules are skipped by the caller.
    struct DataModules {
        x: i16,
        y: i16,
        width: i16,
    }

    impl DataModules {
        const TIMING_COLUMN: i16 = 6;

        fn new(version: Version) -> Self {
            let width = version.width();
            Self {
                x: width - 1,
                y: width - 1,
                width,
            }
        }
    }

    impl Iterator for DataModules {
        type Item = (i16, i16);

        fn next(&mut self) -> Option<(i16, i16)> {
            let adjusted = if self.x <= Self::TIMING_COLUMN {
                self.x + 1
            } else {
                self.x
            };
            if adjusted <= 0 {
                return None;
            }
            let here = (self.x, self.y);
            match (self.width - adjusted) % 4 {
                2 if self.y > 0 => {
                    self.y -= 1;
                    self.x += 1;
                }
                0 if self.y < self.width - 1 => {
                    self.y += 1;
                    self.x += 1;
                }
                0 | 2 if self.x == Self::TIMING_COLUMN + 1 => self.x -= 2,
                _ => self.x -= 1,
            }
            Some(here)
        }
    }

    /// The code of `text`: what `qrcode::QrCode::new(text)` draws (error correction level M,
    /// the smallest version, the mask of least penalty).
    pub(super) fn draw(text: &[u8]) -> QrResult<Code> {
        let ec_level = EcLevel::M;
        let bits = qrcode::bits::encode_auto(text, ec_level)?;
        let version = bits.version();
        let data = bits.into_bytes();
        let (encoded, ec) = qrcode::ec::construct_codewords(&data, version, ec_level)?;
        let layout = match version {
            Version::Normal(v) => Layout::of(v),
            Version::Micro(_) => None,
        };
        let Some(layout) = layout else {
            let (w, dark) = modules_by_canvas(version, &encoded, &ec);
            return Ok(Code::Modules(w, dark));
        };
        // The data's dark modules, placed once (light bits and the remainder stay 0).
        let w = layout.w;
        let (mut rows, mut cols) = (vec![0u64; w], vec![0u64; w]);
        let mut at = layout.order.iter();
        'placing: for byte in encoded.iter().chain(ec.iter()) {
            for bit in (0..8).rev() {
                let Some(&(x, y)) = at.next() else {
                    break 'placing;
                };
                if (byte >> bit) & 1 == 1 {
                    rows[usize::from(y)] |= 1 << x;
                    cols[usize::from(x)] |= 1 << y;
                }
            }
        }
        // Masked, a data module is its bit XOR the mask's; every other module is the blank's.
        let mut best: Option<(u32, usize)> = None;
        let (mut mrows, mut mcols) = (vec![0u64; w], vec![0u64; w]);
        for (i, (brows, bcols)) in layout.blank.iter().enumerate() {
            for ((m, b), d) in mrows.iter_mut().zip(brows).zip(&rows) {
                *m = b ^ d;
            }
            for ((m, b), d) in mcols.iter_mut().zip(bcols).zip(&cols) {
                *m = b ^ d;
            }
            let score = penalty_lines(&mrows, &mcols, w);
            if best.is_none_or(|(b, _)| score < b) {
                best = Some((score, i));
            }
        }
        let (_, i) = best.unwrap_or_default();
        let brows = &layout.blank[i].0;
        for (r, b) in rows.iter_mut().zip(brows) {
            *r ^= b;
        }
        Ok(Code::Rows(w, rows))
    }

    /// The crate's way, for codes wider than bit sets hold: each mask on a clone of the
    /// canvas, scored per module.
    fn modules_by_canvas(version: Version, encoded: &[u8], ec: &[u8]) -> (usize, Vec<bool>) {
        let mut canvas = Canvas::new(version, EcLevel::M);
        canvas.draw_all_functional_patterns();
        canvas.draw_data(encoded, ec);
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
            let score = penalty(&dark, w);
            if best.as_ref().is_none_or(|(b, _)| score < *b) {
                best = Some((score, dark));
            }
        }
        (w, best.map(|(_, d)| d).unwrap_or_default())
    }

    /// [`penalty`] on rows and columns as bit sets (codes up to 57 modules wide).
    #[cfg(test)]
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
        penalty_lines(&rows, &cols, w)
    }

    /// [`penalty`] of the code whose rows and columns are these bit sets (`w` up to 57: a word
    /// operation where that one looks at each module).
    fn penalty_lines(rows: &[u64], cols: &[u64], w: usize) -> u32 {
        let width = (1u64 << w) - 1;
        // Bit i: module i is the same color as module i + 1 (both in the line).
        let pairs = width >> 1;
        let mut score = 0u32;
        for l in rows.iter().chain(cols.iter()).copied() {
            // N1: a run of 5 + n modules of one color scores 3 + n. Bit i of `five`: modules
            // i..i+5 are one color; a run of 5 + n has n + 1 such bits, the first of them
            // not preceded by one: n + 1 + 2 for each run.
            let same = !(l ^ (l >> 1)) & pairs;
            let five = same & (same >> 1) & (same >> 2) & (same >> 3);
            score += five.count_ones() + 2 * (five & !(five << 1)).count_ones();
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
        let app_js = include_str!("../static/app/approve.js");
        for scope in crate::domain::discovery::SCOPES {
            assert_ne!(describe_scope(scope), describe_scope("unknown"), "{scope}");
            assert!(
                app_js.contains(&format!("\n  {scope}:")),
                "{scope} in approve.js"
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
            let drawn = qr::draw(text.as_bytes()).unwrap();
            let (w, got) = (drawn.width(), drawn.modules());
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
        // Wider than the bit sets take (version 11 and up): the crate's way, the same modules.
        check(&format!(
            "https://id.example.com/{}",
            "long-path/".repeat(30)
        ));
        check(&"x".repeat(1000));
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
        let drawn: usize = path_runs(&svg).iter().map(|(_, _, run)| run).sum();
        assert_eq!(drawn, dark);
    }

    /// The runs `(x, y, length)` an SVG of [`qr_svg`] strokes, in view box units.
    fn path_runs(svg: &str) -> Vec<(usize, usize, usize)> {
        let d = svg
            .split(" d=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        let mut runs = Vec::new();
        let (mut x, mut y) = (0usize, 0usize);
        let mut rest = d;
        while let Some(c) = rest.chars().next() {
            let end = rest[1..]
                .find(['M', 'm', 'h'])
                .map_or(rest.len(), |i| i + 1);
            let args = &rest[1..end];
            match c {
                'M' => {
                    let (ax, ay) = args.split_once(' ').unwrap();
                    x = ax.parse().unwrap();
                    // The middle of row y.
                    y = ay.strip_suffix(".5").unwrap().parse().unwrap();
                }
                'm' => {
                    let (dx, dy) = args.split_once(' ').unwrap();
                    assert_eq!(dy, "0", "a move within the row");
                    x += dx.parse::<usize>().unwrap();
                }
                'h' => {
                    let run: usize = args.parse().unwrap();
                    runs.push((x, y, run));
                    x += run;
                }
                _ => panic!("unexpected {c} in {d}"),
            }
            rest = &rest[end..];
        }
        runs
    }

    #[test]
    fn qr_svg_draws_the_crates_modules_where_it_draws_them() {
        // What a camera sees: the path's runs, put back on a grid, are the crate's modules
        // (quiet zone of 4 included in the view box).
        let mut x: u64 = 0x0123_4567_89AB_CDEF;
        for i in 0..40 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let text = format!(
                "https://id{}.example.com/realms/scanid/app/scan?session={x:022x}&challenge={:022x}",
                "i".repeat(i * 3),
                x.rotate_left(9)
            );
            let code = qrcode::QrCode::new(text.as_bytes()).unwrap();
            let w = code.width();
            let want: Vec<bool> = code
                .to_colors()
                .iter()
                .map(|c| *c == qrcode::Color::Dark)
                .collect();
            let svg = qr_svg(&text);
            let size = w + 8;
            assert!(
                svg.contains(&format!("viewBox=\"0 0 {size} {size}\"")),
                "{text}"
            );
            let mut got = vec![false; w * w];
            for (px, py, run) in path_runs(&svg) {
                assert!(run > 0, "{text}");
                for m in px - 4..px - 4 + run {
                    assert!(!got[(py - 4) * w + m], "drawn twice");
                    got[(py - 4) * w + m] = true;
                }
            }
            assert_eq!(got, want, "{text}");
        }
    }
}
