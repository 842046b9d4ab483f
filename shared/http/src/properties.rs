//! Property tests (proptest) for this crate's pure parsers of outside input: form bodies and
//! query strings (and the authorization request built from them), HTTP Basic credentials and
//! cookie headers. No input panics; what is well formed comes back exactly. (Whole requests
//! through the route table are in `tests/it/properties.rs`: they need the embedded store.)
//!
//! Case counts are fixed (`CASES`), so the run is the same size every time; a failure prints
//! the shrunk input that caused it.

use proptest::prelude::*;
use scanid_core::strategies::{config, hostile_text, shop};

use crate::domain::authorize;
use crate::handlers::token::basic_credentials;
use crate::protocol::Params;
use crate::{cookies, form_pairs, query_pairs};

/// Cases per property (cheap: microseconds each).
const CASES: u32 = 4000;

/// A request builder as API Gateway would hand it to a handler.
fn request(
    method: &str,
    path_and_query: &str,
    headers: &[(String, String)],
    body: Vec<u8>,
) -> Option<lambda_http::Request> {
    let mut b = http::Request::builder()
        .method(method)
        .uri(format!("http://127.0.0.1:8080{path_and_query}"));
    for (k, v) in headers {
        b = b.header(k.as_str(), v.as_str());
    }
    b.body(lambda_http::Body::Binary(body)).ok()
}

proptest! {
    #![proptest_config(config(CASES))]

    /// Form bodies and query strings: any bytes parse into pairs or a 4xx, never a panic,
    /// and the authorization request built from them validates or is refused.
    #[test]
    fn form_and_query_parsing(
        body in proptest::collection::vec(any::<u8>(), 0..300),
        query in hostile_text(),
        content_type in prop_oneof![
            Just("application/x-www-form-urlencoded".to_owned()),
            Just("application/x-www-form-urlencoded; charset=utf-8".to_owned()),
            "[ -~]{0,40}",
        ],
    ) {
        let path = format!("/x?{}", query.replace(['#', ' '], ""));
        if let Some(req) = request("POST", &path, &[("content-type".into(), content_type)], body) {
            let _ = query_pairs(&req);
            if let Ok(pairs) = form_pairs(&req) {
                let params = Params::from_pairs(pairs);
                let _ = authorize::validate(&params, Some(&shop()));
                let _ = authorize::validate(&params, None);
            }
            let params = Params::from_pairs(query_pairs(&req));
            let _ = authorize::validate(&params, Some(&shop()));
        }
    }

    /// HTTP Basic credentials (RFC 6749 App. B): any header decodes or is refused, and
    /// credentials encoded as the RFC says (form-urlencoded, then base64) come back exactly.
    #[test]
    fn basic_credentials_parsing(
        scheme in prop_oneof![Just("Basic".to_owned()), Just("basic".to_owned()), "[A-Za-z]{0,8}"],
        garbage in hostile_text(),
        id in any::<String>(),
        secret in any::<String>(),
    ) {
        if let Some(req) = request("POST", "/t", &[("authorization".into(), format!("{scheme} {garbage}"))], Vec::new()) {
            let _ = basic_credentials(&req);
        }
        use base64::Engine;
        let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        let header = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", enc(&id), enc(&secret)))
        );
        let req = request("POST", "/t", &[("authorization".into(), header)], Vec::new()).unwrap();
        prop_assert_eq!(basic_credentials(&req).unwrap(), Some((id, secret)));
    }


    /// Cookie headers: any header parses; a cookie set among others is found exactly.
    #[test]
    fn cookie_parsing(
        header in hostile_text(),
        others in proptest::collection::vec(("[a-z_]{1,10}", "[A-Za-z0-9_-]{0,12}"), 0..4),
        value in "[A-Za-z0-9_-]{1,43}",
    ) {
        let _ = cookies::parse(&header, "scanid_session");
        let mut pairs: Vec<String> = others
            .iter()
            .filter(|(k, _)| k != "scanid_session")
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        pairs.insert(pairs.len() / 2, format!("scanid_session={value}"));
        prop_assert_eq!(cookies::parse(&pairs.join("; "), "scanid_session"), Some(Some(value)));
    }
}
