//! A code's modules: the `qrcode` crate's segments and codewords, its modules placed and its
//! mask chosen here by the same rules (ISO/IEC 18004 §7.7.3, §7.8.3), in the same order, with
//! the same choice (a test holds the modules to the crate's `QrCode::new`). What a version's
//! codes share is drawn once per process ([`Layout`]: where the data goes, and each mask over
//! the function patterns and the format information), so a code is its data placed once and
//! each mask one XOR per row and column, scored on bit sets ([`crate::penalty`]).

use std::sync::OnceLock;

use qrcode::canvas::{Canvas, MaskPattern, Module};
use qrcode::types::{Color, EcLevel, QrResult, Version};

use crate::penalty::{penalty, penalty_lines};

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
pub(crate) enum Code {
    /// Rows as bit sets (bit `x` of row `y`), codes up to [`BITS_MAX_VERSION`].
    Rows(usize, Vec<u64>),
    /// Row by row, `true` for dark.
    Modules(usize, Vec<bool>),
}

impl Code {
    pub(crate) fn width(&self) -> usize {
        match self {
            Code::Rows(w, _) | Code::Modules(w, _) => *w,
        }
    }

    /// Calls `f(x, y, length)` for each horizontal run of dark modules, row by row, left
    /// to right.
    pub(crate) fn runs(&self, mut f: impl FnMut(usize, usize, usize)) {
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
    pub(crate) fn modules(&self) -> Vec<bool> {
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
struct Layout {
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
pub(crate) fn draw(text: &[u8]) -> QrResult<Code> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
            let drawn = draw(text.as_bytes()).unwrap();
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
}
