//! Request objects passed by value (`request`; RFC 9101, OIDC Core §6.1): the authorization
//! request's parameters as the claims of a JWT.
//!
//! Here: unsigned request objects (`alg: none`). An unsigned request object carries nothing
//! the query could not, so it is treated with exactly the query's trust: its parameters go
//! through the same validation. Signed request objects, pushed (`usecase::par`) or by value at
//! the authorization endpoint (`usecase::login`), are verified with the client's keys
//! (`service::request_objects`) and checked by [`RequestObject::check_signed`]; the request is
//! then the object's parameters only ([`RequestObject::pushed_params`]). A signed object that
//! reaches [`decode`] unverified (a client that must push) is refused.
//!
//! Its claims take precedence over the query's parameters (OIDC Core §6.3.3); parameters only
//! in the query are kept. `client_id` and `response_type`, when in both, must match; `iss`
//! (when present) must be the client, `aud` (when present) the issuer, `exp` (when present) in
//! the future and `nbf` (when present) not in the future.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::{Map, Value};

use crate::clock::Timestamp;
use crate::protocol::Params;

/// At most this many characters for a request object.
pub const MAX_LEN: usize = 16 * 1024;

/// Claims of the JWT that are not authorization request parameters.
const NOT_PARAMETERS: &[&str] = &[
    "iss",
    "aud",
    "exp",
    "iat",
    "nbf",
    "jti",
    "request",
    "request_uri",
    "sub",
];

/// A decoded, unsigned request object.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestObject {
    claims: Map<String, Value>,
}

/// Why a request object was refused: `invalid_request_object`, with this description.
pub type Invalid = &'static str;

fn segment(s: &str) -> Result<Map<String, Value>, Invalid> {
    let bytes = URL_SAFE_NO_PAD
        .decode(s)
        .map_err(|_| "the request object is not a JWT (base64url)")?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(m)) => Ok(m),
        _ => Err("the request object is not a JWT (JSON object)"),
    }
}

/// Parses `request`: a JWT with `alg: none` and an empty signature.
pub fn decode(jwt: &str) -> Result<RequestObject, Invalid> {
    if jwt.len() > MAX_LEN {
        return Err("the request object is longer than 16384 characters");
    }
    let parts: Vec<&str> = jwt.split('.').collect();
    let [header, payload, signature] = parts.as_slice() else {
        return Err(
            "the request object is not a JWS (three parts); encrypted ones are not supported",
        );
    };
    let header = segment(header)?;
    match header.get("alg").and_then(Value::as_str) {
        Some("none") if signature.is_empty() => {}
        Some("none") => return Err("an unsigned request object has an empty signature"),
        Some(_) => return Err(
            "a signed request object is accepted once verified with the client's registered keys",
        ),
        None => return Err("the request object has no alg"),
    }
    if header.contains_key("crit") {
        return Err("the request object has crit header parameters scanid does not understand");
    }
    Ok(RequestObject {
        claims: segment(payload)?,
    })
}

/// The claims of any JWS-shaped `request`, its signature unchecked: only to find where a
/// refusal goes (its `redirect_uri` must be registered like any other, and its `state` echoed),
/// never to act on.
pub fn unverified(jwt: &str) -> Option<RequestObject> {
    if jwt.len() > MAX_LEN {
        return None;
    }
    let mut parts = jwt.split('.');
    let (_, payload, _, None) = (parts.next()?, parts.next()?, parts.next()?, parts.next()) else {
        return None;
    };
    segment(payload).ok().map(|claims| RequestObject { claims })
}

fn string_of(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        // e.g. `claims` (OIDC Core §5.5): the JSON text, as the query would carry it.
        Value::Array(_) | Value::Object(_) => Some(v.to_string()),
    }
}

fn int_claim(claims: &Map<String, Value>, name: &str) -> Result<Option<i64>, Invalid> {
    match claims.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .or_else(|| v.as_f64().map(|f| f as i64))
            .map(Some)
            .ok_or("exp, iat and nbf of the request object must be numbers"),
    }
}

impl RequestObject {
    /// The query's parameters with the request object's claims over them (OIDC Core §6.3.3).
    /// `resource` may be an array (several values, RFC 8707).
    pub fn merged_over(&self, query: &Params) -> Params {
        let mut pairs: Vec<(String, String)> = query
            .pairs()
            .filter(|(k, _)| {
                k.as_str() != "request"
                    && ((k.as_str() == "client_id" && query.all("client_id").len() == 1)
                        || !self.claims.contains_key(k.as_str()))
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (k, v) in &self.claims {
            if NOT_PARAMETERS.contains(&k.as_str()) {
                continue;
            }
            // The query's client_id names the client (RFC 9101 §5); a different one in the
            // object is refused by `check`, not followed.
            if k == "client_id" && query.all("client_id").len() == 1 {
                continue;
            }
            match (k.as_str(), v) {
                ("resource", Value::Array(items)) => {
                    pairs.extend(items.iter().filter_map(string_of).map(|s| (k.clone(), s)));
                }
                _ => {
                    if let Some(s) = string_of(v) {
                        pairs.push((k.clone(), s));
                    }
                }
            }
        }
        Params::from_pairs(pairs)
    }

    /// The checks of the request object against the query and the issuer, once the client is
    /// known (`client_id` is the one the request was validated for).
    pub fn check(
        &self,
        query: &Params,
        client_id: &str,
        issuer: &str,
        now: Timestamp,
    ) -> Result<(), Invalid> {
        let claim = |n: &str| self.claims.get(n).and_then(string_of);
        for name in ["client_id", "response_type"] {
            if let (Some(obj), Ok(Some(q))) = (claim(name), query.one(name)) {
                if obj != q {
                    return Err(if name == "client_id" {
                        "client_id differs between the request object and the request"
                    } else {
                        "response_type differs between the request object and the request"
                    });
                }
            }
        }
        if let Some(q) = query.one("client_id").ok().flatten() {
            if q != client_id {
                return Err("client_id differs between the request object and the request");
            }
        }
        match self.claims.get("iss") {
            None | Some(Value::Null) => {}
            Some(Value::String(iss)) if iss == client_id => {}
            Some(_) => return Err("the request object's iss must be the client_id"),
        }
        let aud_ok = match self.claims.get("aud") {
            None | Some(Value::Null) => true,
            Some(Value::String(a)) => a == issuer,
            Some(Value::Array(a)) => a.iter().any(|x| x.as_str() == Some(issuer)),
            Some(_) => false,
        };
        if !aud_ok {
            return Err("the request object's aud must be the issuer");
        }
        if let Some(exp) = int_claim(&self.claims, "exp")? {
            if exp <= now.secs() {
                return Err("the request object has expired");
            }
        }
        if let Some(nbf) = int_claim(&self.claims, "nbf")? {
            // A minute of clock skew.
            if nbf > now.secs() + 60 {
                return Err("the request object is not valid yet (nbf)");
            }
        }
        int_claim(&self.claims, "iat")?;
        Ok(())
    }
}

/// The longest a signed request object may be valid (`exp - nbf`), and the oldest its `nbf`
/// may be (FAPI 2.0 Message Signing §5.3.2: 60 minutes each).
pub const SIGNED_MAX_SECS: i64 = 3600;
/// How far in the future a signed request object's `nbf` may be (clock skew).
pub const NBF_SKEW_SECS: i64 = 10;

/// The `alg` of a JWS-shaped `request`'s header, unverified (`none` is refused at PAR before
/// any key is looked at).
pub fn alg_of(jwt: &str) -> Option<String> {
    let header = segment(jwt.split('.').next()?).ok()?;
    header.get("alg").and_then(Value::as_str).map(str::to_owned)
}

impl RequestObject {
    /// A request object of verified `claims` (a signature checked with the client's keys).
    pub fn verified(claims: Map<String, Value>) -> Self {
        Self { claims }
    }

    /// The checks of a signed request object pushed by `client_id` (RFC 9101 §4, FAPI 2.0
    /// Message Signing §5.3.2): `iss` the client, `aud` the issuer, `exp` and `nbf` present,
    /// `nbf` not in the future and at most 60 minutes old, `exp` after now and at most 60
    /// minutes after `nbf`, and a `client_id`, when present, the client's.
    pub fn check_signed(
        &self,
        client_id: &str,
        issuer: &str,
        now: Timestamp,
    ) -> Result<(), Invalid> {
        if self.claims.get("iss").and_then(Value::as_str) != Some(client_id) {
            return Err("the request object's iss must be the client_id");
        }
        let aud_ok = match self.claims.get("aud") {
            Some(Value::String(a)) => a == issuer,
            Some(Value::Array(a)) => a.iter().any(|x| x.as_str() == Some(issuer)),
            _ => false,
        };
        if !aud_ok {
            return Err("the request object's aud must be the issuer");
        }
        if let Some(c) = self.claims.get("client_id") {
            if c.as_str() != Some(client_id) {
                return Err("client_id differs between the request object and the client");
            }
        }
        let exp = int_claim(&self.claims, "exp")?.ok_or("the request object has no exp")?;
        let nbf = int_claim(&self.claims, "nbf")?.ok_or("the request object has no nbf")?;
        let t = now.secs();
        if exp <= t {
            return Err("the request object has expired");
        }
        if nbf > t + NBF_SKEW_SECS {
            return Err("the request object is not valid yet (nbf)");
        }
        if nbf < t - SIGNED_MAX_SECS {
            return Err("the request object's nbf is more than 60 minutes in the past");
        }
        if exp - nbf > SIGNED_MAX_SECS {
            return Err("the request object is valid for more than 60 minutes (exp - nbf)");
        }
        int_claim(&self.claims, "iat")?;
        Ok(())
    }

    /// The authorization request a verified object carries: its parameters only (RFC 9101
    /// §6.3, FAPI 2.0 Message Signing: those outside it are ignored), for `client_id`.
    pub fn pushed_params(&self, client_id: &str) -> Params {
        self.merged_over(&Params::from_pairs(vec![(
            "client_id".to_owned(),
            client_id.to_owned(),
        )]))
    }
}

/// An unsigned request object of `claims` (tests and the CLI reference client).
pub fn unsigned(claims: &Value) -> String {
    format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(br#"{"alg":"none"}"#),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ISS: &str = "https://id.example/realms/r";

    fn q(pairs: &[(&str, &str)]) -> Params {
        Params::from_pairs(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())))
    }

    fn jws(header: &Value, claims: &Value, sig: &str) -> String {
        format!(
            "{}.{}.{sig}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        )
    }

    #[test]
    fn decode_refusals() {
        let good = json!({"client_id": "rp"});
        assert!(decode(&unsigned(&good)).is_ok());
        let cases: Vec<(String, &str)> = vec![
            ("not a jwt".into(), "three parts"),
            ("a.b".into(), "three parts"),
            ("a.b.c.d.e".into(), "three parts"),
            ("!!.e30.".into(), "base64url"),
            (
                format!("{}.e30.", URL_SAFE_NO_PAD.encode("[1]")),
                "JSON object",
            ),
            (jws(&json!({}), &good, ""), "no alg"),
            (
                jws(&json!({"alg": "none"}), &good, "c2ln"),
                "empty signature",
            ),
            (
                jws(&json!({"alg": "HS256"}), &good, "c2ln"),
                "once verified",
            ),
            (
                jws(&json!({"alg": "RS256"}), &good, "c2ln"),
                "once verified",
            ),
            (
                jws(&json!({"alg": "none", "crit": ["x"]}), &good, ""),
                "crit",
            ),
            (
                format!(
                    "{}.{}.",
                    URL_SAFE_NO_PAD.encode(r#"{"alg":"none"}"#),
                    "e30x"
                ),
                "JWT",
            ),
            (unsigned(&json!({"x": "y".repeat(MAX_LEN)})), "longer"),
        ];
        for (jwt, want) in cases {
            let got = decode(&jwt).unwrap_err();
            assert!(got.contains(want), "{jwt:.40}: {got}");
        }
    }

    #[test]
    fn claims_take_precedence_and_query_only_parameters_stay() {
        let ro = decode(&unsigned(&json!({
            "iss": "rp", "aud": ISS, "exp": 2000, "jti": "j",
            "client_id": "rp", "redirect_uri": "https://rp.example/good",
            "state": "from-object", "max_age": 60, "resource": ["https://a/", "https://b/"],
            "claims": {"userinfo": {"name": null}}, "request_uri": "https://x/", "nothing": null
        })))
        .unwrap();
        let merged = ro.merged_over(&q(&[
            ("client_id", "rp"),
            ("redirect_uri", "https://rp.example/bad"),
            ("response_type", "code"),
            ("scope", "openid"),
            ("request", "x"),
        ]));
        let one = |n: &'static str| merged.one(n).unwrap().map(str::to_owned);
        assert_eq!(
            one("redirect_uri").as_deref(),
            Some("https://rp.example/good")
        );
        assert_eq!(one("state").as_deref(), Some("from-object"));
        assert_eq!(one("max_age").as_deref(), Some("60"));
        assert_eq!(one("scope").as_deref(), Some("openid"));
        assert_eq!(one("response_type").as_deref(), Some("code"));
        assert_eq!(
            one("claims").as_deref(),
            Some(r#"{"userinfo":{"name":null}}"#)
        );
        assert_eq!(merged.all("resource"), ["https://a/", "https://b/"]);
        for gone in [
            "request",
            "request_uri",
            "iss",
            "aud",
            "exp",
            "jti",
            "nothing",
        ] {
            assert_eq!(merged.one(gone), Ok(None), "{gone}");
        }
    }

    #[test]
    fn signed_checks() {
        let now = Timestamp::from_secs(10_000);
        let good = json!({"iss": "rp", "aud": ISS, "exp": 10_300, "nbf": 9_990,
            "client_id": "rp", "scope": "openid", "state": "in"});
        let check = |claims: &Value| {
            RequestObject::verified(claims.as_object().unwrap().clone())
                .check_signed("rp", ISS, now)
        };
        assert_eq!(check(&good), Ok(()));
        let set = |k: &str, v: Value| {
            let mut o = good.clone();
            o[k] = v;
            o
        };
        let drop = |k: &str| {
            let mut o = good.clone();
            o.as_object_mut().unwrap().remove(k);
            o
        };
        // The FAPI 2.0 Message Signing module's edges: 8 s ahead is fine, 60 min old is.
        assert_eq!(check(&set("nbf", 10_008.into())), Ok(()));
        assert_eq!(
            check(&set("nbf", 6_400.into()).clone()),
            Err("the request object is valid for more than 60 minutes (exp - nbf)")
        );
        let cases: Vec<(Value, &str)> = vec![
            (drop("exp"), "no exp"),
            (drop("nbf"), "no nbf"),
            (drop("iss"), "iss"),
            (drop("aud"), "aud"),
            (set("aud", "https://other.example".into()), "aud"),
            (set("iss", "other".into()), "iss"),
            (set("client_id", "other".into()), "client_id"),
            (set("exp", 10_000.into()), "expired"),
            (set("nbf", 10_011.into()), "not valid yet"),
            (set("nbf", 6_399.into()), "60 minutes in the past"),
            (set("exp", 13_591.into()), "more than 60 minutes"),
        ];
        for (claims, want) in cases {
            let got = check(&claims).unwrap_err();
            assert!(got.contains(want), "{claims}: {got}");
        }
        // Only the object's parameters; the client's id.
        let p = RequestObject::verified(good.as_object().unwrap().clone()).pushed_params("rp");
        assert_eq!(p.one("state"), Ok(Some("in")));
        assert_eq!(p.one("client_id"), Ok(Some("rp")));
        assert_eq!(p.one("iss"), Ok(None));
        assert_eq!(alg_of(&unsigned(&good)).as_deref(), Some("none"));
    }

    #[test]
    fn check_refusals() {
        let query = q(&[("client_id", "rp"), ("response_type", "code")]);
        let now = Timestamp::from_secs(1000);
        let check = |claims: Value| {
            decode(&unsigned(&claims))
                .unwrap()
                .check(&query, "rp", ISS, now)
        };
        assert_eq!(check(json!({})), Ok(()));
        assert_eq!(
            check(
                json!({"iss": "rp", "aud": ISS, "exp": 1001, "nbf": 1000, "iat": 999,
                "client_id": "rp", "response_type": "code"})
            ),
            Ok(())
        );
        assert_eq!(check(json!({"aud": ["x", ISS]})), Ok(()));
        let cases: Vec<(Value, &str)> = vec![
            (json!({"client_id": "other"}), "client_id differs"),
            (json!({"response_type": "token"}), "response_type differs"),
            (json!({"iss": "other"}), "iss"),
            (json!({"iss": 5}), "iss"),
            (json!({"aud": "https://elsewhere"}), "aud"),
            (json!({"aud": ["x"]}), "aud"),
            (json!({"aud": 1}), "aud"),
            (json!({"exp": 1000}), "expired"),
            (json!({"exp": "soon"}), "numbers"),
            (json!({"iat": "then"}), "numbers"),
            (json!({"nbf": 1061}), "not valid yet"),
        ];
        for (claims, want) in cases {
            let got = check(claims.clone()).unwrap_err();
            assert!(got.contains(want), "{claims}: {got}");
        }
        // The request was validated for another client than the query names.
        let ro = decode(&unsigned(&json!({"client_id": "rp2"}))).unwrap();
        assert!(ro.check(&query, "rp2", ISS, now).is_err());
    }
}
