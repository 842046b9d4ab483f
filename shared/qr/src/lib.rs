//! The QR codes of the login page and its poll, as inline SVG: [`svg`].
//!
//! **Why not the crate alone.** The `qrcode` crate still does the encoding that is hard to get
//! right (segments, Reed-Solomon codewords, function patterns, format and version information,
//! the eight masks), and every code is held by a test to the modules its `QrCode::new` draws
//! (300 app links of every length, and wider codes). What is ours is the mask's choice and the
//! SVG: `QrCode::new` clones its canvas and masks every module for each of the eight masks, and
//! its finder-pattern penalty boxes a closure for every module of every row and column (some
//! 20,000 `malloc`/`free` a code). A login page carries five codes and a poll more, so that was
//! most of a whole QR login's CPU. Measured on 2026-11-25 (infra/README.md, "Whole QR logins",
//! parts 1 and 3; `scanid-load logins` against `scanid serve`, 2 shared cores):
//!
//! * with the crate's `QrCode::new`: about 60% of the server's CPU choosing the mask (`perf`,
//!   `ea2e9ac`), 205-211 logins/s at load 0.4-2;
//! * the mask chosen here on bit sets (`3aff868`): 463-468 logins/s in the same conditions;
//! * what a version's codes share drawn once per process (`code.rs`: `2e8c19d`, `b7f058c`): a
//!   code 0.35 ms -> 0.04 ms, the page's codes 36% -> 5.5% of the server's CPU, 172-219 ->
//!   267-308 logins/s at load 3.0-4.3 (server CPU per login -30%);
//! * the SVG as one stroke per run of dark modules, numbers without `fmt`: 60.9 -> 37.7 KB per
//!   login (a module-per-subpath rendering, the crate's, was about 20 KB a code).
//!
//! `benches/encode.rs` times one typical app link (`cargo bench -p scanid-qr --bench encode`):
//! 42-46 µs a code on 2026-11-28 (`--warm-up-time 1 --measurement-time 3`, the same 2 cores
//! shared with other builds, load average 10.5: a figure within noise of the profile's 0.04 ms).
#![forbid(unsafe_code)]
#![warn(unreachable_pub)]
#![warn(missing_docs)]

mod code;
mod penalty;

pub use qrcode::types::QrError;

/// The QR code of `text` (error correction level M, the smallest version, the mask of least
/// penalty: what `qrcode::QrCode::new` draws) as an inline SVG element, 256 pixels square,
/// with a quiet zone of 4 modules.
pub fn svg(text: &str) -> Result<String, QrError> {
    let code = code::draw(text.as_bytes())?;
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
    )
    .into_bytes();
    out.reserve(4096);
    // Bytes, not `String::push`: a code has some 500 runs and a thousand numbers, and
    // pushing them as `char`s and `str`s was a sixth of the page's QR time (`callgrind`).
    let mut row_end: Option<(usize, usize)> = None;
    code.runs(|x, y, run| {
        match row_end {
            Some((ry, end)) if ry == y => {
                out.push(b'm');
                push_num(&mut out, x - end);
                out.extend_from_slice(b" 0");
            }
            _ => {
                out.push(b'M');
                push_num(&mut out, x + quiet);
                out.push(b' ');
                push_num(&mut out, y + quiet);
                out.extend_from_slice(b".5");
            }
        }
        out.push(b'h');
        push_num(&mut out, run);
        row_end = Some((y, x + run));
    });
    out.extend_from_slice(b"\"/></svg>");
    // Only ASCII was written.
    String::from_utf8(out).map_err(|_| QrError::UnsupportedCharacterSet)
}

/// `n` in decimal, without `fmt`'s machinery; the usual one or two digits directly.
fn push_num(out: &mut Vec<u8>, n: usize) {
    const DIGITS: &[u8; 10] = b"0123456789";
    match n {
        0..=9 => out.push(DIGITS[n]),
        10..=99 => out.extend_from_slice(&[DIGITS[n / 10], DIGITS[n % 10]]),
        _ => out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qr_is_an_inline_svg() {
        let text = "http://127.0.0.1:8080/realms/scanid/app/scan?session=-q3OJ9o0EgXKX2arp_iu0w&challenge=N-vxNW4vCqMYdMqlXAjMIg";
        let svg = svg(text).unwrap();
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

    /// The runs `(x, y, length)` an SVG of [`svg`] strokes, in view box units.
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
            let svg = svg(&text).unwrap();
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
