//! A User-Agent as a person reads it: "Chrome on Windows" (the approval screen shows it, and
//! keeps the raw string behind "details"). Parsed by woothee (Project Woothee's dataset); a
//! string it does not know names nothing, and the app shows the raw one.

use serde_json::{json, Value};

/// `{"browser": "Chrome", "os": "Windows"}` (either may be absent), or `null` when neither is
/// known. Names, not sentences: the app says them in its own language.
pub(crate) fn summary(user_agent: &str) -> Value {
    let known =
        |s: &str| (!s.is_empty() && s != woothee::woothee::VALUE_UNKNOWN).then(|| s.to_owned());
    // Crawlers and HTTP libraries ("curl") are no browser a person would recognise.
    let Some(r) = woothee::parser::Parser::new()
        .parse(user_agent)
        .filter(|r| r.category != "crawler" && r.category != "misc")
    else {
        return Value::Null;
    };
    let browser = known(r.name);
    let os = known(r.os).map(|os| os_name(&os));
    if browser.is_none() && os.is_none() {
        return Value::Null;
    }
    let mut out = json!({});
    if let Some(b) = browser {
        out["browser"] = b.into();
    }
    if let Some(o) = os {
        out["os"] = o.into();
    }
    out
}

/// Woothee's system names, as people call them ("Mac OSX" is macOS).
fn os_name(os: &str) -> String {
    match os {
        "Mac OSX" => "macOS".to_owned(),
        "iPhone" | "iPad" | "iPod" => "iOS".to_owned(),
        o if o.starts_with("Windows") => "Windows".to_owned(),
        o => o.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_browsers_read_plainly() {
        let cases = [
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
                json!({"browser": "Chrome", "os": "Windows"}),
            ),
            (
                "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36",
                json!({"browser": "Chrome", "os": "Linux"}),
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
                json!({"browser": "Edge", "os": "Windows"}),
            ),
            (
                "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7; rv:133.0) Gecko/20100101 Firefox/133.0",
                json!({"browser": "Firefox", "os": "macOS"}),
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
                json!({"browser": "Safari", "os": "iOS"}),
            ),
            ("curl/8.5.0", Value::Null),
            ("", Value::Null),
        ];
        for (ua, want) in cases {
            assert_eq!(summary(ua), want, "{ua}");
        }
    }
}
