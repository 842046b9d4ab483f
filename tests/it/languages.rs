//! The login pages' language from outside (issue 39), by raw HTTP: `Accept-Language`, a pick
//! with `lang` answered by a cookie that then wins, a pick of nothing scanid speaks ignored,
//! error pages in the language, JSON for programs untouched, and `--default-locale` refused
//! at start when it names no language scanid speaks.

use scanid_tests::{request, scanid, TestServer};

fn lang_of(html: &str) -> &str {
    let start = html.find("<html lang=\"").map(|i| i + 12).unwrap_or(0);
    let end = html[start..].find('"').map(|e| start + e).unwrap_or(start);
    &html[start..end]
}

#[test]
fn the_pages_speak_the_browsers_language_and_a_pick_wins_and_is_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &["--default-locale", "sv"]);
    let device = s.url("/realms/scanid/device");

    // Nothing asked: the realm default.
    let r = request("GET", &device, &[], b"");
    assert_eq!(r.status, 200);
    assert_eq!(lang_of(&r.text()), "sv");
    assert!(r.text().contains("<h1>Anslut en enhet</h1>"));

    // Accept-Language by quality: Polish over French.
    let r = request(
        "GET",
        &device,
        &[("accept-language", "fr;q=0.4, pl, xx")],
        b"",
    );
    assert_eq!(lang_of(&r.text()), "pl");
    assert!(r.text().contains("<h1>Połącz urządzenie</h1>"));
    let none_remembered = r
        .headers
        .iter()
        .all(|(k, v)| !k.eq_ignore_ascii_case("set-cookie") || !v.starts_with("scanid_locale="));
    assert!(
        none_remembered,
        "only a pick is remembered: {:?}",
        r.headers
    );

    // A pick: shown in it, remembered in a cookie for a year.
    let r = request(
        "GET",
        &format!("{device}?lang=uk"),
        &[("accept-language", "pl")],
        b"",
    );
    assert_eq!(lang_of(&r.text()), "uk");
    let cookie = r
        .headers
        .iter()
        .find(|(k, v)| k.eq_ignore_ascii_case("set-cookie") && v.starts_with("scanid_locale="))
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| panic!("no language cookie: {:?}", r.headers));
    assert!(cookie.starts_with("scanid_locale=uk;"), "{cookie}");
    assert!(cookie.contains("Max-Age=31536000"), "{cookie}");
    assert!(cookie.contains("SameSite=Lax"), "{cookie}");
    // The cookie wins over Accept-Language.
    let r = request(
        "GET",
        &device,
        &[("accept-language", "pl"), ("cookie", "scanid_locale=uk")],
        b"",
    );
    assert_eq!(lang_of(&r.text()), "uk");

    // A pick of nothing scanid speaks changes nothing and is not remembered.
    for bad in ["tlh", "%3Cscript%3E", "de-AT", ""] {
        let r = request(
            "GET",
            &format!("{device}?lang={bad}"),
            &[("accept-language", "pl")],
            b"",
        );
        assert_eq!(r.status, 200, "{bad}");
        assert_eq!(lang_of(&r.text()), "pl", "{bad}");
        assert!(
            !r.headers
                .iter()
                .any(|(k, v)| k.eq_ignore_ascii_case("set-cookie")
                    && v.starts_with("scanid_locale=")),
            "{bad}"
        );
    }

    // An error page in the language; the technical reason stays as it is.
    let auth = s.oidc("auth");
    let r = request(
        "GET",
        &format!("{auth}?client_id=nobody&redirect_uri=https%3A%2F%2Fx.example%2Fcb&response_type=code&scope=openid"),
        &[("accept-language", "de")],
        b"",
    );
    assert_eq!(r.status, 400);
    assert_eq!(lang_of(&r.text()), "de");
    assert!(r
        .text()
        .contains("<h1>Diese Anmeldeanfrage ist ungültig</h1>"));
    assert!(r.text().contains("unknown client_id"));
    // The unregistered redirect URI is not echoed into the page (not even in the selector).
    assert!(!r.text().contains("x.example"), "{}", r.text());

    // JSON for programs is not translated.
    let r = request(
        "POST",
        &s.oidc("token"),
        &[
            ("accept-language", "de"),
            ("content-type", "application/x-www-form-urlencoded"),
        ],
        b"grant_type=nonsense",
    );
    assert_eq!(r.status, 400);
    assert!(r.json()["error"].is_string());
    assert!(!r.text().contains("ungültig"), "{}", r.text());

    // Discovery names the languages.
    let d = request(
        "GET",
        &s.url("/realms/scanid/.well-known/openid-configuration"),
        &[],
        b"",
    )
    .json();
    let tags: Vec<&str> = d["ui_locales_supported"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(tags.len(), 15);
    assert!(
        tags.contains(&"zh-Hans") && tags.contains(&"ar"),
        "{tags:?}"
    );
}

#[test]
fn a_default_locale_scanid_does_not_speak_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let out = scanid(&[
        "serve",
        "--addr",
        "127.0.0.1:0",
        "--data-dir",
        data,
        "--default-locale",
        "tlh",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("SCANID_DEFAULT_LOCALE"), "{err}");
    assert!(err.contains("pt-BR"), "names the languages: {err}");
}
