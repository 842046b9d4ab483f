//! The languages the pages speak, and which one a person reads (docs/book/src/languages.md).
//!
//! The choice, first that names a language scanid speaks: the language the person picked on a
//! page (in this request, then the one remembered from an earlier pick), the relying party's
//! `ui_locales` (OIDC Core §3.1.2.1), the browser's `Accept-Language` (RFC 9110 §12.5.4), and
//! the realm's default. A tag matches a language by its primary subtag (`de-AT` is German,
//! `pt` and `pt-PT` Brazilian Portuguese), except Chinese, where only the simplified script
//! (`zh`, `zh-CN`, `zh-SG`, `zh-Hans-*`) matches: a reader of traditional characters goes on to
//! their next preference.

/// A language scanid's pages speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Locale {
    /// English (the catalogue the others are held to).
    En,
    /// Swedish.
    Sv,
    /// German.
    De,
    /// French.
    Fr,
    /// Spanish.
    Es,
    /// Portuguese (Brazil).
    PtBr,
    /// Italian.
    It,
    /// Dutch.
    Nl,
    /// Polish.
    Pl,
    /// Japanese.
    Ja,
    /// Chinese (Simplified).
    ZhHans,
    /// Korean.
    Ko,
    /// Arabic, written right to left.
    Ar,
    /// Hindi.
    Hi,
    /// Ukrainian.
    Uk,
}

/// Every language, English first, in the order the language selector lists them.
pub const ALL: [Locale; 15] = [
    Locale::En,
    Locale::Sv,
    Locale::De,
    Locale::Fr,
    Locale::Es,
    Locale::PtBr,
    Locale::It,
    Locale::Nl,
    Locale::Pl,
    Locale::Ja,
    Locale::ZhHans,
    Locale::Ko,
    Locale::Ar,
    Locale::Hi,
    Locale::Uk,
];

impl Locale {
    /// Its BCP 47 tag (`<html lang>`, the catalogue's file name, discovery's
    /// `ui_locales_supported`).
    pub const fn tag(self) -> &'static str {
        match self {
            Locale::En => "en",
            Locale::Sv => "sv",
            Locale::De => "de",
            Locale::Fr => "fr",
            Locale::Es => "es",
            Locale::PtBr => "pt-BR",
            Locale::It => "it",
            Locale::Nl => "nl",
            Locale::Pl => "pl",
            Locale::Ja => "ja",
            Locale::ZhHans => "zh-Hans",
            Locale::Ko => "ko",
            Locale::Ar => "ar",
            Locale::Hi => "hi",
            Locale::Uk => "uk",
        }
    }

    /// Its name in itself, as the language selector shows it.
    pub const fn name(self) -> &'static str {
        match self {
            Locale::En => "English",
            Locale::Sv => "Svenska",
            Locale::De => "Deutsch",
            Locale::Fr => "Français",
            Locale::Es => "Español",
            Locale::PtBr => "Português (Brasil)",
            Locale::It => "Italiano",
            Locale::Nl => "Nederlands",
            Locale::Pl => "Polski",
            Locale::Ja => "日本語",
            Locale::ZhHans => "中文（简体）",
            Locale::Ko => "한국어",
            Locale::Ar => "العربية",
            Locale::Hi => "हिन्दी",
            Locale::Uk => "Українська",
        }
    }

    /// Written right to left (`dir="rtl"`).
    pub const fn rtl(self) -> bool {
        matches!(self, Locale::Ar)
    }

    /// `rtl` or `ltr`, for `<html dir>`.
    pub const fn dir(self) -> &'static str {
        if self.rtl() {
            "rtl"
        } else {
            "ltr"
        }
    }

    /// The language a BCP 47 tag asks for, if scanid speaks it (case-insensitive; `_` is
    /// taken for `-`).
    pub fn matching(tag: &str) -> Option<Locale> {
        let tag = tag.trim().to_ascii_lowercase().replace('_', "-");
        let mut parts = tag.split('-');
        let primary = parts.next()?;
        let rest: Vec<&str> = parts.collect();
        Some(match primary {
            "en" => Locale::En,
            "sv" => Locale::Sv,
            "de" => Locale::De,
            "fr" => Locale::Fr,
            "es" => Locale::Es,
            "pt" => Locale::PtBr,
            "it" => Locale::It,
            "nl" => Locale::Nl,
            "pl" => Locale::Pl,
            "ja" => Locale::Ja,
            "zh" => return simplified(&rest).then_some(Locale::ZhHans),
            "ko" => Locale::Ko,
            "ar" => Locale::Ar,
            "hi" => Locale::Hi,
            "uk" => Locale::Uk,
            _ => return None,
        })
    }

    /// The language whose tag is exactly `tag` (a pick, a cookie, a setting).
    pub fn from_tag(tag: &str) -> Option<Locale> {
        ALL.into_iter().find(|l| l.tag().eq_ignore_ascii_case(tag))
    }
}

/// `zh-…` subtags after `zh`: simplified unless they name the traditional script or a region
/// that writes it.
fn simplified(rest: &[&str]) -> bool {
    match rest.first() {
        None => true,
        Some(&"hans") => true,
        Some(&"hant") => false,
        Some(&"tw" | &"hk" | &"mo") => false,
        Some(_) => !rest.contains(&"hant"),
    }
}

/// What a request says about the language, each as sent.
#[derive(Debug, Clone, Copy, Default)]
pub struct Preferences<'a> {
    /// The language picked on the page with this request (`lang`).
    pub picked: Option<&'a str>,
    /// The language picked earlier, remembered in a cookie.
    pub remembered: Option<&'a str>,
    /// The authorization request's `ui_locales`: space-separated tags, most wanted first.
    pub ui_locales: Option<&'a str>,
    /// The `Accept-Language` header.
    pub accept_language: Option<&'a str>,
}

/// The language to show: the first of `prefs` scanid speaks, else `default`.
pub fn choose(prefs: &Preferences<'_>, default: Locale) -> Locale {
    let picked = [prefs.picked, prefs.remembered]
        .into_iter()
        .flatten()
        .find_map(Locale::from_tag);
    picked
        .or_else(|| {
            prefs
                .ui_locales
                .into_iter()
                .flat_map(str::split_ascii_whitespace)
                .find_map(Locale::matching)
        })
        .or_else(|| prefs.accept_language.and_then(accepted))
        .unwrap_or(default)
}

/// The most wanted language of an `Accept-Language` header scanid speaks: by `q`, ties in the
/// header's order; `q=0` and `*` name nothing.
pub fn accepted(header: &str) -> Option<Locale> {
    let mut ranges: Vec<(u16, &str)> = header
        .split(',')
        .take(32)
        .filter_map(|item| {
            let mut parts = item.split(';');
            let tag = parts.next()?.trim();
            let q = parts
                .filter_map(|p| p.trim().strip_prefix("q=").or(p.trim().strip_prefix("Q=")))
                .next()
                .map_or(Some(1000), quality)?;
            (q > 0 && !tag.is_empty() && tag != "*").then_some((q, tag))
        })
        .collect();
    ranges.sort_by_key(|r| std::cmp::Reverse(r.0));
    ranges
        .into_iter()
        .find_map(|(_, tag)| Locale::matching(tag))
}

/// A `q` value in thousandths (`None`: not a number from 0 to 1).
fn quality(q: &str) -> Option<u16> {
    let v: f32 = q.trim().parse().ok()?;
    (0.0..=1.0)
        .contains(&v)
        .then(|| (v * 1000.0).round() as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip_and_match() {
        for l in ALL {
            assert_eq!(Locale::from_tag(l.tag()), Some(l));
            assert_eq!(Locale::matching(l.tag()), Some(l));
            assert!(!l.name().is_empty());
        }
        assert_eq!(Locale::matching("de-AT"), Some(Locale::De));
        assert_eq!(Locale::matching("pt"), Some(Locale::PtBr));
        assert_eq!(Locale::matching("pt_PT"), Some(Locale::PtBr));
        assert_eq!(Locale::matching("zh-CN"), Some(Locale::ZhHans));
        assert_eq!(Locale::matching("zh-Hans-SG"), Some(Locale::ZhHans));
        assert_eq!(Locale::matching("zh-TW"), None);
        assert_eq!(Locale::matching("zh-Hant-HK"), None);
        assert_eq!(Locale::matching("tlh"), None);
        assert_eq!(Locale::matching(""), None);
        assert_eq!(Locale::from_tag("de-AT"), None);
        assert_eq!(Locale::Ar.dir(), "rtl");
        assert_eq!(Locale::Ja.dir(), "ltr");
    }

    #[test]
    fn accept_language_goes_by_quality_then_order() {
        assert_eq!(accepted("ja"), Some(Locale::Ja));
        assert_eq!(accepted("xx, fr;q=0.5, de;q=0.8"), Some(Locale::De));
        assert_eq!(accepted("de;q=0, fr;q=0.1"), Some(Locale::Fr));
        assert_eq!(accepted("*, tlh"), None);
        assert_eq!(accepted("sv;q=abc, nl"), Some(Locale::Nl));
        assert_eq!(accepted("ko;q=2"), None);
        assert_eq!(accepted(""), None);
    }

    #[test]
    fn a_pick_beats_the_application_which_beats_the_browser() {
        let all = Preferences {
            picked: Some("fr"),
            remembered: Some("sv"),
            ui_locales: Some("xx de"),
            accept_language: Some("ja"),
        };
        assert_eq!(choose(&all, Locale::En), Locale::Fr);
        let p = Preferences {
            picked: None,
            ..all
        };
        assert_eq!(choose(&p, Locale::En), Locale::Sv);
        let p = Preferences {
            remembered: Some("bogus"),
            ..p
        };
        assert_eq!(choose(&p, Locale::En), Locale::De);
        let p = Preferences {
            ui_locales: Some("tlh"),
            ..p
        };
        assert_eq!(choose(&p, Locale::En), Locale::Ja);
        let p = Preferences {
            accept_language: Some("tlh"),
            ..p
        };
        assert_eq!(choose(&p, Locale::Pl), Locale::Pl);
        assert_eq!(choose(&Preferences::default(), Locale::Uk), Locale::Uk);
    }
}
