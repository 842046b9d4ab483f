//! The one rule for text a person will read (display names, client names): no control,
//! format (Unicode category Cf: zero-width and bidi controls), line/paragraph separator or
//! private-use characters. Bidi overrides (U+202E) make "Shop\u{202E}gpj.exe" read as
//! "Shopexe.jpg"; zero-width characters make two names that look the same differ.

/// Is `c` a character that must not appear in user-visible text?
pub(crate) fn is_invisible_or_control(c: char) -> bool {
    c.is_control()
        || is_format(c)
        || is_blank_letter(c)
        || matches!(c, '\u{2028}' | '\u{2029}')
        || is_private_use(c)
}

/// Characters that are not Cf but render as nothing: Hangul fillers, the braille blank, the
/// combining grapheme joiner and Mongolian/Khmer invisible signs. (Variation selectors stay
/// allowed: emoji such as "❤️" need U+FE0F.)
fn is_blank_letter(c: char) -> bool {
    matches!(
        c as u32,
        0x034F
            | 0x115F
            | 0x1160
            | 0x17B4..=0x17B5
            | 0x180B..=0x180D
            | 0x2800
            | 0x3164
            | 0xFFA0
    )
}

/// `true` when `s` contains no character refused by [`is_invisible_or_control`].
pub(crate) fn is_visible_text(s: &str) -> bool {
    !s.chars().any(is_invisible_or_control)
}

/// Unicode general category Cf (format), Unicode 15.1.
fn is_format(c: char) -> bool {
    matches!(
        c as u32,
        0x00AD
            | 0x0600..=0x0605
            | 0x061C
            | 0x06DD
            | 0x070F
            | 0x0890..=0x0891
            | 0x08E2
            | 0x180E
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001
            | 0xE0020..=0xE007F
    )
}

fn is_private_use(c: char) -> bool {
    matches!(c as u32, 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_bidi_zero_width_and_controls() {
        for bad in [
            "Shop\u{202E}gpj.exe",
            "a\u{200B}b",
            "\u{2066}x\u{2069}",
            "\u{FEFF}x",
            "x\u{2028}y",
            "a\u{0007}",
            "soft\u{00AD}hyphen",
            "\u{E000}",
            "tag\u{E0041}",
            "\u{3164}",
            "Ada Lovelace\u{3164}",
            "\u{2800}",
            "a\u{034F}b",
        ] {
            assert!(!is_visible_text(bad), "{bad:?}");
        }
        for ok in [
            "Ada Lovelace",
            "Åsa Öberg",
            "李小龙",
            "مرحبا",
            "Zoë 🙂",
            "O'Brien-Smith",
            "I \u{2764}\u{FE0F} Rust",
        ] {
            assert!(is_visible_text(ok), "{ok:?}");
        }
    }
}
