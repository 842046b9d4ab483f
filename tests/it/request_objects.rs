//! Request objects by value (RFC 9101, OIDC Core §6.1) through the real `scanid serve`: an
//! unsigned (`alg: none`) request object is the authorization request, its claims over the
//! query's parameters; signed, malformed or invalid ones get `invalid_request_object`;
//! `request_uri` stays unsupported. The conformance suite's request-object modules of the Basic
//! plan are here by name (`oidcc-unsigned-request-object-...` is in `conformance.rs`).

use scanid_core::domain::request_object::unsigned;
use scanid_tests::{
    auth_url, code_of, create_shop, jwt_claims, location, login, open, params_of, redeem, Browser,
    TestApp, TestServer, CB, PKCE_CHALLENGE, PKCE_VERIFIER,
};
use serde_json::{json, Value};

const OTHER_CB: &str = "https://shop.example/other";

struct Env {
    s: TestServer,
    shop: String,
    app: TestApp,
    _dir: tempfile::TempDir,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let shop = create_shop(d, &["--redirect-uri", OTHER_CB]);
    let s = TestServer::start(dir.path(), &["--resource", super::resource_indicators::API]);
    let app = TestApp::enroll(&s, "requestobjectuser");
    Env {
        s,
        shop,
        app,
        _dir: dir,
    }
}

fn now() -> i64 {
    TestApp::now()
}

impl Env {
    fn shop(&self) -> (&str, &str) {
        ("shop", &self.shop)
    }

    /// The suite's claims: every parameter, with iss, aud, exp.
    fn claims(&self) -> Value {
        json!({
            "iss": "shop", "aud": self.s.issuer, "exp": now() + 300, "iat": now(),
            "client_id": "shop", "redirect_uri": CB, "response_type": "code",
            "scope": "openid profile", "state": "st-ro", "nonce": "n-ro"
        })
    }

    /// An authorization URL with `object` as `request` and the required query parameters.
    fn url(&self, object: &str, redirect_uri: &str) -> String {
        auth_url(
            &self.s,
            &[
                ("client_id", "shop"),
                ("redirect_uri", redirect_uri),
                ("response_type", "code"),
                ("scope", "openid"),
                ("state", "st-query"),
                ("request", object),
            ],
        )
    }

    /// The error the client gets back for `url` (a redirect to `cb`).
    fn error_at(&self, url: &str, cb: &str) -> std::collections::HashMap<String, String> {
        let r = Browser::new().get(url);
        assert_eq!(r.status, 302, "{}", r.text());
        let loc = location(&r);
        assert!(loc.starts_with(cb), "{loc}");
        params_of(&loc)
    }
}

fn with(mut claims: Value, k: &str, v: Value) -> Value {
    claims[k] = v;
    claims
}

#[test]
fn oidcc_ensure_request_object_with_redirect_uri() {
    // The query's redirect_uri is not registered; the request object's is and takes precedence.
    let e = env();
    let object = unsigned(&e.claims());
    let r = login(
        &mut Browser::new(),
        &e.s,
        &e.app,
        &e.url(&object, "https://shop.example/not-registered"),
    );
    let loc = location(&r);
    assert!(loc.starts_with(CB), "{loc}");
    let p = params_of(&loc);
    assert_eq!(p["state"], "st-ro", "the object's state, not the query's");
    let t = redeem(&e.s, e.shop(), &code_of(&r));
    assert_eq!(t["scope"], "openid profile", "the object's scope");
    let id = jwt_claims(t["id_token"].as_str().unwrap());
    assert_eq!(id["nonce"], "n-ro");
}

#[test]
fn query_only_parameters_stay_and_pkce_and_resource_may_be_in_the_object() {
    let e = env();
    let claims = json!({
        "redirect_uri": OTHER_CB, "code_challenge": PKCE_CHALLENGE,
        "code_challenge_method": "S256", "resource": [super::resource_indicators::API]
    });
    let url = auth_url(
        &e.s,
        &[
            ("client_id", "shop"),
            ("response_type", "code"),
            ("scope", "openid"),
            ("state", "from-query"),
            ("request", unsigned(&claims).as_str()),
        ],
    );
    let r = login(&mut Browser::new(), &e.s, &e.app, &url);
    let loc = location(&r);
    assert!(loc.starts_with(OTHER_CB), "{loc}");
    assert_eq!(params_of(&loc)["state"], "from-query");
    let t = scanid_tests::post_form(
        &e.s.oidc("token"),
        Some(e.shop()),
        &[
            ("grant_type", "authorization_code"),
            ("code", &code_of(&r)),
            ("redirect_uri", OTHER_CB),
            ("code_verifier", PKCE_VERIFIER),
        ],
    );
    assert_eq!(t.status, 200, "{}", t.text());
    let at = jwt_claims(t.json()["access_token"].as_str().unwrap());
    assert_eq!(at["aud"], super::resource_indicators::API);
}

#[test]
fn invalid_request_objects_are_refused_by_redirect() {
    let e = env();
    let c = e.claims();
    let signed = {
        let body = unsigned(&c).split('.').nth(1).unwrap().to_owned();
        format!("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.{body}.c2lnbmF0dXJl")
    };
    let cases: Vec<(String, &str, &str)> = vec![
        // (request, why, state the error carries): a refused object that still decodes is
        // answered where it says (its registered redirect URI, its state); one that does not,
        // where the query says.
        (signed, "signed", "st-ro"),
        ("not.a.jwt".into(), "garbage", "st-query"),
        ("e30".into(), "one part", "st-query"),
        (
            unsigned(&with(c.clone(), "exp", json!(now() - 1))),
            "expired",
            "st-ro",
        ),
        (
            unsigned(&with(c.clone(), "aud", json!("https://elsewhere.example"))),
            "aud",
            "st-ro",
        ),
        (
            unsigned(&with(c.clone(), "iss", json!("other-client"))),
            "iss",
            "st-ro",
        ),
        (
            unsigned(&with(c.clone(), "client_id", json!("other-client"))),
            "client_id",
            "st-ro",
        ),
        (
            unsigned(&with(c.clone(), "response_type", json!("token"))),
            "response_type",
            "st-ro",
        ),
        (
            unsigned(&with(c.clone(), "exp", json!("tomorrow"))),
            "exp type",
            "st-ro",
        ),
    ];
    for (object, why, state) in cases {
        let p = e.error_at(&e.url(&object, CB), CB);
        assert_eq!(p["error"], "invalid_request_object", "{why}: {p:?}");
        assert_eq!(p["state"], state, "{why}");
        assert_eq!(p["iss"], e.s.issuer, "{why}");
    }
    // Its parameters are checked as the query's are.
    let p = e.error_at(
        &e.url(
            &unsigned(&with(
                c.clone(),
                "resource",
                json!("https://other.example/"),
            )),
            CB,
        ),
        CB,
    );
    assert_eq!(p["error"], "invalid_target");
    let p = e.error_at(
        &e.url(&unsigned(&with(c.clone(), "prompt", json!("bogus"))), CB),
        CB,
    );
    assert_eq!(p["error"], "invalid_request");
    // An unregistered redirect_uri in the object: the error page, never a redirect.
    let r = Browser::new().get(&e.url(
        &unsigned(&with(
            c.clone(),
            "redirect_uri",
            json!("https://evil.example/cb"),
        )),
        CB,
    ));
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.header("location").is_none());
    // A malformed object with an unregistered redirect_uri in the query: no redirect either.
    let r = Browser::new().get(&e.url("garbage", "https://evil.example/cb"));
    assert_eq!(r.status, 400, "{}", r.text());
    // request and request_uri together; request_uri alone stays unsupported.
    let mut both = e.url(&unsigned(&c), CB);
    both.push_str("&request_uri=https%3A%2F%2Fshop.example%2Fr.jwt");
    assert_eq!(e.error_at(&both, CB)["error"], "invalid_request");
}

#[test]
fn a_request_object_login_survives_its_restart() {
    // A QR login lives 10 s here: once it expires, its status offers a fresh start of the
    // request, the plain query it was validated into (AuthorizationRequest::restart_query).
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let shop = create_shop(d, &[]);
    let s = TestServer::start(dir.path(), &["--login-ttl", "10"]);
    let e = Env {
        app: TestApp::enroll(&s, "restartuser"),
        s,
        shop,
        _dir: dir,
    };
    let mut b = Browser::new();
    let (_, payload) = open(&mut b, &e.url(&unsigned(&e.claims()), CB));
    let session = params_of(&payload)["session"].clone();
    std::thread::sleep(std::time::Duration::from_secs(11));
    let status = b
        .get(&format!(
            "{}/login-actions/status?session={session}",
            e.s.issuer
        ))
        .json();
    assert_eq!(status["status"], "expired", "{status}");
    let restart = status["restart"].as_str().unwrap().to_owned();
    assert!(!restart.contains("request="), "{restart}");
    let r = login(&mut b, &e.s, &e.app, &restart);
    let p = params_of(&location(&r));
    assert_eq!(p["state"], "st-ro");
    let t = redeem(&e.s, e.shop(), &code_of(&r));
    assert_eq!(t["scope"], "openid profile");
    assert_eq!(jwt_claims(t["id_token"].as_str().unwrap())["nonce"], "n-ro");
}

mod properties {
    use proptest::prelude::*;
    use scanid_core::clock::Timestamp;
    use scanid_core::domain::authorize::{self, AuthorizeError, Policy};
    use scanid_core::domain::client::{self, NewClient};
    use scanid_core::domain::request_object::unsigned;
    use scanid_core::protocol::Params;
    use scanid_core::random::SeededRandom;
    use serde_json::{Map, Value};

    fn shop() -> client::Client {
        client::register(
            NewClient {
                name: "Shop".into(),
                redirect_uris: vec!["https://shop.example/cb".into()],
                client_id: Some("shop".into()),
                ..Default::default()
            },
            Timestamp::from_secs(0),
            &SeededRandom::new(7),
        )
        .unwrap()
        .0
    }

    const NAMES: &[&str] = &[
        "client_id",
        "redirect_uri",
        "response_type",
        "scope",
        "state",
        "nonce",
        "prompt",
        "max_age",
        "resource",
        "iss",
        "aud",
        "exp",
        "nbf",
        "iat",
        "code_challenge",
        "code_challenge_method",
        "request",
        "request_uri",
        "claims",
        "response_mode",
    ];

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
            "[ -~]{0,40}".prop_map(Value::String),
            prop_oneof![
                Just("shop"),
                Just("code"),
                Just("https://shop.example/cb"),
                Just("openid")
            ]
            .prop_map(|s| Value::String(s.into())),
        ];
        leaf.prop_recursive(2, 8, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec(("[a-z]{1,6}", inner), 0..4)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Any request object (any claims, any types) and any `request` text validate or are
        /// refused, never panic; a refusal never redirects to an unregistered URI.
        #[test]
        fn any_request_object_validates_or_is_refused(
            claims in proptest::collection::vec((proptest::sample::select(NAMES), value()), 0..10),
            raw in "[ -~]{0,200}",
        ) {
            let c = shop();
            let obj: Map<String, Value> = claims.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
            let resources = vec!["https://api.example/".to_owned()];
            let policy = Policy {
                require_nonce: false,
                resources: &resources,
                issuer: "https://id.example/realms/scanid",
                now: Timestamp::from_secs(1_700_000_000),
                ..Policy::default()
            };
            for request in [unsigned(&Value::Object(obj)), raw.clone()] {
                let p = Params::from_pairs([
                    ("client_id".to_owned(), "shop".to_owned()),
                    ("response_type".to_owned(), "code".to_owned()),
                    ("redirect_uri".to_owned(), "https://shop.example/cb".to_owned()),
                    ("request".to_owned(), request),
                ]);
                if let Err(AuthorizeError::Redirect(t, _)) = authorize::validate_with(&p, Some(&c), &policy) {
                    prop_assert_eq!(t.redirect_uri, "https://shop.example/cb");
                }
            }
        }
    }
}
