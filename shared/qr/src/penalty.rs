//! The penalty of a masked code (ISO/IEC 18004 §7.8.3, rules N1 to N4, as the `qrcode` crate
//! counts them): [`penalty_lines`] on rows and columns as `u64` bit sets (codes up to 57 modules
//! wide, every app link), [`penalty`] module by module for wider codes, and a test that holds
//! the one to the other on random grids of every width the bit sets take.

/// [`penalty`] on rows and columns as bit sets (codes up to 57 modules wide).
#[cfg(test)]
fn penalty_bits(dark: &[bool], w: usize) -> u32 {
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
pub(crate) fn penalty_lines(rows: &[u64], cols: &[u64], w: usize) -> u32 {
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
pub(crate) fn penalty(dark: &[bool], w: usize) -> u32 {
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

#[cfg(test)]
mod tests {
    use super::*;

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
                assert_eq!(penalty_bits(&dark, w), penalty(&dark, w), "{w} {round}");
            }
        }
    }
}
