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

/// The `locale` claim (OIDC Core §5.1): the language the login's pages spoke, in the ID token
/// and at userinfo, only with `profile`; discovery lists the languages as
/// `claims_locales_supported`.
#[test]
fn the_tokens_say_the_language_the_login_pages_spoke_with_profile() {
    use scanid_tests::{
        auth_url, code_of, create_shop, jwt_claims, login, redeem, userinfo, Browser, TestApp, CB,
    };
    let dir = tempfile::tempdir().unwrap();
    let shop = create_shop(dir.path().to_str().unwrap(), &[]);
    let s = TestServer::start(dir.path(), &[]);
    let app = TestApp::enroll(&s, "sprecher");
    let tokens = |scope: &str, ui_locales: Option<&str>| {
        let mut pairs = vec![
            ("client_id", "shop"),
            ("redirect_uri", CB),
            ("response_type", "code"),
            ("scope", scope),
            ("state", "st"),
            ("nonce", "n"),
        ];
        if let Some(l) = ui_locales {
            pairs.push(("ui_locales", l));
        }
        let r = login(&mut Browser::new(), &s, &app, &auth_url(&s, &pairs));
        redeem(&s, ("shop", &shop), &code_of(&r))
    };
    // ui_locales=de-AT: the pages spoke German, and the tokens say so.
    let t = tokens("openid profile", Some("de-AT fr"));
    let id = jwt_claims(t["id_token"].as_str().unwrap());
    assert_eq!(id["locale"], "de", "{id}");
    let u = userinfo(&s, t["access_token"].as_str().unwrap()).json();
    assert_eq!(u["locale"], "de", "{u}");
    // Nothing asked: the realm's default, English.
    let t = tokens("openid profile", None);
    assert_eq!(jwt_claims(t["id_token"].as_str().unwrap())["locale"], "en");
    // Without profile: no locale.
    let t = tokens("openid", Some("de"));
    let id = jwt_claims(t["id_token"].as_str().unwrap());
    assert!(id.get("locale").is_none(), "{id}");
    let u = userinfo(&s, t["access_token"].as_str().unwrap()).json();
    assert!(u.get("locale").is_none(), "{u}");

    let d = request(
        "GET",
        &s.url("/realms/scanid/.well-known/openid-configuration"),
        &[],
        b"",
    )
    .json();
    assert_eq!(d["claims_locales_supported"], d["ui_locales_supported"]);
    assert!(d["claims_supported"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c == "locale"));
}
