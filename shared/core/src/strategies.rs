//! Proptest strategies and fixtures shared by the property tests of every crate (core's and
//! http's parsers, `tests/it/properties.rs`'s whole requests), so each is written once.

#![allow(clippy::unwrap_used)]

use proptest::prelude::*;

use crate::clock::Timestamp;
use crate::domain::client::{self, Client, NewClient};
use crate::random::SeededRandom;

/// A fixed number of cases and no failure files: every run is the same size.
pub fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Text that looks like what attackers send: mostly URL-ish characters, percent escapes,
/// separators, some non-ASCII and control characters.
pub fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z0-9:/?#@!$&'()*+,;=._~%\\[\\]-]{0,80}",
        2 => any::<String>(),
        1 => "(%[0-9a-fA-F]{2}|[\\x00-\\x1f\\u{202e}\\u{200b}\\u{feff}]|[a-z]){0,40}",
    ]
}

/// A client with an https and a loopback redirect URI.
pub fn shop() -> Client {
    client::register(
        NewClient {
            name: "Shop".into(),
            redirect_uris: vec![
                "https://shop.example/cb".into(),
                "http://127.0.0.1:8000/cb".into(),
            ],
            client_id: Some("shop".into()),
            ..Default::default()
        },
        Timestamp::from_secs(0),
        &SeededRandom::new(7),
    )
    .unwrap()
    .0
}

/// Any JSON object, a few levels deep, of any values.
pub fn json_object() -> impl Strategy<Value = serde_json::Map<String, serde_json::Value>> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f)
            .map_or(serde_json::Value::Null, serde_json::Value::Number)),
        hostile_text().prop_map(serde_json::Value::from),
        Just(serde_json::Value::from("https://cdn.example.com/a.png")),
        Just(serde_json::Value::from("SE")),
    ];
    let value = leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
            proptest::collection::btree_map("[a-z_]{1,8}", inner, 0..4)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    });
    proptest::collection::btree_map(
        prop_oneof![
            prop::sample::select(vec![
                "name",
                "display_name",
                "country_code",
                "profile_photo",
                "public_key",
                "registration",
                "approval",
                "update",
                "rotation",
                "sub",
                "aud",
                "iat",
                "exp",
                "jti",
            ])
            .prop_map(str::to_owned),
            "[a-z_]{1,10}",
        ],
        value,
        0..8,
    )
    .prop_map(|m| m.into_iter().collect())
}
