//! The `claims` authorization request parameter (OIDC Core §5.5): which individual claims the
//! client asks for, and where (`id_token` or `userinfo`).
//!
//! scanid releases by name only the claims it knows ([`REQUESTABLE`], what its scopes release:
//! `crate::domain::grant::profile_claims`); any other claim is ignored (§5.5: "the
//! Authorization Server MAY ... ignore"), as are the members other than `id_token` and
//! `userinfo`. Each requested claim is `null` or an object whose `essential` is a boolean,
//! `value` a string, number or boolean and `values` an array of them (§5.5.1); scanid releases
//! the identity's own value whatever `value`/`values` say (they are requests, not filters), and
//! treats essential and voluntary claims alike (both are released after the person's consent).
//! The one exception is `sub` with a `value` in `id_token` (§5.5.1): only that person may log
//! in ([`RequestedClaims::accepts`]); no token is issued for anyone else.
//! Anything else is `invalid_request`. Only the known claims asked for are kept (with the login,
//! the code and the grant), so a long parameter costs nothing beyond its parsing.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::authn::AcrRequest;

/// The claims a client may ask for by name, in the order the consent page lists them.
pub const REQUESTABLE: [&str; 6] = [
    "name",
    "preferred_username",
    "picture",
    "updated_at",
    "groups",
    "address",
];

/// The known claims a request asked for, in each place (each list in [`REQUESTABLE`]'s order).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestedClaims {
    /// Claims asked for by name for the ID token.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub id_token: Vec<String>,
    /// Claims asked for by name for the UserInfo answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub userinfo: Vec<String>,
    /// The claims asked for as essential (in either place).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub essential: Vec<String>,
    /// `id_token.sub.value`: the only person who may log in (§5.5.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub: Option<String>,
    /// The `acr` levels asked for: `id_token.acr`'s `values`/`value` (§5.5.1.1), else the
    /// `acr_values` parameter (voluntary), with the client's `require_acr` folded in.
    #[serde(default, skip_serializing_if = "AcrRequest::is_empty")]
    pub acr: AcrRequest,
    /// The language scanid's login page spoke for this request (BCP 47: the person's pick,
    /// `ui_locales`, `Accept-Language`, the realm's default): the `locale` claim (OIDC Core
    /// §5.1) with `profile`. Set by the authorization endpoint, never from the `claims`
    /// parameter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
}

impl RequestedClaims {
    /// Whether no claim was asked for by name.
    pub fn is_empty(&self) -> bool {
        self.id_token.is_empty()
            && self.userinfo.is_empty()
            && self.sub.is_none()
            && self.acr.is_empty()
    }

    /// Whether the person `sub` may complete this request: anyone, unless the request named
    /// the subject (`id_token.sub.value`, OIDC Core §5.5.1).
    pub fn accepts(&self, sub: &str) -> bool {
        self.sub.as_deref().is_none_or(|s| s == sub)
    }

    /// Every claim asked for, in either place, once each, in [`REQUESTABLE`]'s order.
    pub fn all(&self) -> Vec<String> {
        REQUESTABLE
            .iter()
            .filter(|c| self.asks(c))
            .map(|c| (*c).to_owned())
            .collect()
    }

    fn asks(&self, claim: &str) -> bool {
        self.id_token
            .iter()
            .chain(&self.userinfo)
            .any(|c| c == claim)
    }

    /// The `claims` parameter that asks for the same again (for a restarted request):
    /// `None` when nothing known was asked for.
    pub fn to_param(&self) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let place = |names: &[String]| -> Value {
            names
                .iter()
                .map(|n| {
                    let v = if self.essential.contains(n) {
                        serde_json::json!({ "essential": true })
                    } else {
                        Value::Null
                    };
                    (n.clone(), v)
                })
                .collect::<serde_json::Map<_, _>>()
                .into()
        };
        let mut m = serde_json::Map::new();
        let mut id_token = place(&self.id_token);
        if let (Some(sub), Value::Object(o)) = (&self.sub, &mut id_token) {
            o.insert("sub".into(), serde_json::json!({ "value": sub }));
        }
        if let (false, Value::Object(o)) = (self.acr.is_empty(), &mut id_token) {
            let values: Vec<&str> = self.acr.values.iter().map(|a| a.as_str()).collect();
            o.insert(
                "acr".into(),
                serde_json::json!({ "essential": self.acr.essential, "values": values }),
            );
        }
        if id_token.as_object().is_some_and(|o| !o.is_empty()) {
            m.insert("id_token".into(), id_token);
        }
        if !self.userinfo.is_empty() {
            m.insert("userinfo".into(), place(&self.userinfo));
        }
        Some(Value::Object(m).to_string())
    }
}

/// Why a `claims` parameter is refused (the description of an `invalid_request`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Malformed(pub &'static str);

fn scalar(v: &Value) -> bool {
    matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_))
}

/// Parses the `claims` parameter (OIDC Core §5.5).
pub fn parse(raw: &str) -> Result<RequestedClaims, Malformed> {
    let v: Value =
        serde_json::from_str(raw).map_err(|_| Malformed("claims is not a JSON object"))?;
    let Value::Object(top) = v else {
        return Err(Malformed("claims is not a JSON object"));
    };
    let mut out = RequestedClaims::default();
    for (place, list) in [
        ("id_token", &mut out.id_token),
        ("userinfo", &mut out.userinfo),
    ] {
        let members = match top.get(place) {
            None | Some(Value::Null) => continue,
            Some(Value::Object(m)) => m,
            Some(_) => {
                return Err(Malformed(
                    "claims: id_token and userinfo must be JSON objects",
                ))
            }
        };
        for (name, spec) in members {
            let essential = match spec {
                Value::Null => false,
                Value::Object(o) => {
                    let essential = match o.get("essential") {
                        None | Some(Value::Null) => false,
                        Some(Value::Bool(b)) => *b,
                        Some(_) => return Err(Malformed("claims: essential must be a boolean")),
                    };
                    if o.get("value").is_some_and(|v| !scalar(v)) {
                        return Err(Malformed(
                            "claims: value must be a string, number or boolean",
                        ));
                    }
                    match o.get("values") {
                        None => {}
                        Some(Value::Array(a)) if a.iter().all(scalar) => {}
                        Some(_) => {
                            return Err(Malformed(
                                "claims: values must be an array of strings, numbers or booleans",
                            ))
                        }
                    }
                    essential
                }
                _ => {
                    return Err(Malformed(
                        "claims: each claim must be null or a JSON object",
                    ))
                }
            };
            if place == "id_token" && name == "acr" {
                out.acr = acr_of(spec, essential)?;
            }
            if place == "id_token" && name == "sub" {
                match spec.get("value") {
                    None => {}
                    Some(Value::String(v)) => out.sub = Some(v.clone()),
                    Some(_) => return Err(Malformed("claims: sub's value must be a string")),
                }
            }
            if REQUESTABLE.contains(&name.as_str()) {
                list.push(name.clone());
                if essential && !out.essential.contains(name) {
                    out.essential.push(name.clone());
                }
            }
        }
        list.sort_by_key(|c| REQUESTABLE.iter().position(|r| r == c));
    }
    out.essential
        .sort_by_key(|c| REQUESTABLE.iter().position(|r| r == c));
    Ok(out)
}

/// `id_token.acr`'s levels (`value` or `values`; checked as scalars already): the known ones.
/// An essential `acr` none of whose values scanid knows could never be satisfied: refused.
fn acr_of(spec: &Value, essential: bool) -> Result<AcrRequest, Malformed> {
    let raw: Vec<&str> = match (spec.get("value"), spec.get("values")) {
        (Some(v), _) => vec![v.as_str().unwrap_or_default()],
        (None, Some(Value::Array(a))) => a.iter().map(|v| v.as_str().unwrap_or_default()).collect(),
        _ => return Ok(AcrRequest::default()),
    };
    let acr = AcrRequest::of(raw, essential);
    if essential && acr.is_empty() {
        return Err(Malformed(
            "claims: none of the essential acr values is supported (1, 2, 3)",
        ));
    }
    Ok(acr)
}

/// The scopes that release `claim` (what a remembered consent to those scopes covers).
pub fn released_by(claim: &str) -> &'static [&'static str] {
    match claim {
        "groups" => &["profile", "groups"],
        "address" => &["address"],
        _ => &["profile"],
    }
}

/// Whether `scopes` release `claim` anyway (so the consent page need not list it again).
pub fn scopes_release(scopes: &[String], claim: &str) -> bool {
    released_by(claim)
        .iter()
        .any(|s| scopes.iter().any(|x| x == s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_each_place_essential_value_and_values() {
        type Row<'a> = (&'a str, &'a [&'a str], &'a [&'a str], &'a [&'a str]);
        let table: &[Row] = &[
            // (claims, id_token, userinfo, essential)
            (r#"{}"#, &[], &[], &[]),
            (
                r#"{"userinfo":{"name":{"essential":true}}}"#,
                &[],
                &["name"],
                &["name"],
            ),
            (
                r#"{"id_token":{"address":null,"name":{"essential":false}}}"#,
                &["name", "address"],
                &[],
                &[],
            ),
            (
                r#"{"id_token":{"groups":{"values":["a",1,true]}},"userinfo":{"picture":{"value":"x"}}}"#,
                &["groups"],
                &["picture"],
                &[],
            ),
            // Unknown claims and members are ignored; scanid's always-present claims too.
            (
                r#"{"userinfo":{"email":{"essential":true},"locale":null,"updated_at":null},"other":1}"#,
                &[],
                &["updated_at"],
                &[],
            ),
            (
                r#"{"id_token":{"sub":{"value":"u"},"auth_time":{"essential":true},"acr":{"values":["1"]}}}"#,
                &[],
                &[],
                &[],
            ),
            (r#"{"id_token":null,"userinfo":null}"#, &[], &[], &[]),
            (
                r#"{"userinfo":{"preferred_username":{"essential":null}}}"#,
                &[],
                &["preferred_username"],
                &[],
            ),
        ];
        for (raw, id, ui, ess) in table {
            let c = parse(raw).unwrap_or_else(|e| panic!("{raw}: {e:?}"));
            assert_eq!(c.id_token, names(id), "{raw}");
            assert_eq!(c.userinfo, names(ui), "{raw}");
            assert_eq!(c.essential, names(ess), "{raw}");
        }
    }

    #[test]
    fn malformed_is_refused() {
        for raw in [
            "",
            "not json",
            "{",
            "[]",
            "\"name\"",
            "null",
            r#"{"userinfo":[]}"#,
            r#"{"id_token":"name"}"#,
            r#"{"userinfo":{"name":true}}"#,
            r#"{"userinfo":{"name":"x"}}"#,
            r#"{"userinfo":{"name":{"essential":"yes"}}}"#,
            r#"{"userinfo":{"name":{"value":{}}}}"#,
            r#"{"userinfo":{"email":{"values":"a"}}}"#,
            r#"{"id_token":{"sub":{"value":1}}}"#,
            r#"{"id_token":{"name":{"values":[{}]}}}"#,
        ] {
            assert!(parse(raw).is_err(), "{raw}");
        }
    }

    #[test]
    fn a_named_subject_is_the_only_one_accepted() {
        // OIDC Core 5.5.1: id_token.sub.value.
        let c = parse(r#"{"id_token":{"sub":{"value":"u-1","essential":true}}}"#).unwrap();
        assert_eq!(c.sub.as_deref(), Some("u-1"));
        assert!(c.accepts("u-1") && !c.accepts("u-2"));
        assert!(!c.is_empty());
        assert_eq!(parse(&c.to_param().unwrap()).unwrap(), c);
        // Without a value, or at userinfo, anyone.
        for raw in [
            r#"{"id_token":{"sub":null}}"#,
            r#"{"id_token":{"sub":{"essential":true}}}"#,
            r#"{"userinfo":{"sub":{"value":"u-1"}}}"#,
            "{}",
        ] {
            let c = parse(raw).unwrap();
            assert_eq!(c.sub, None, "{raw}");
            assert!(c.accepts("u-2"), "{raw}");
        }
    }

    #[test]
    fn an_acr_in_the_id_token_asks_for_levels() {
        use crate::domain::authn::Acr;
        let c =
            parse(r#"{"id_token":{"acr":{"essential":true,"values":["3","gold","2"]}}}"#).unwrap();
        assert_eq!(c.acr.values, [Acr::PhishingResistant, Acr::UserVerified]);
        assert!(c.acr.essential);
        assert!(!c.is_empty());
        assert_eq!(parse(&c.to_param().unwrap()).unwrap(), c);
        let c = parse(r#"{"id_token":{"acr":{"value":"2"}}}"#).unwrap();
        assert_eq!(c.acr.values, [Acr::UserVerified]);
        assert!(!c.acr.essential);
        assert_eq!(parse(&c.to_param().unwrap()).unwrap(), c);
        // No level asked for; an acr at userinfo asks nothing of the login.
        for raw in [
            r#"{"id_token":{"acr":null}}"#,
            r#"{"id_token":{"acr":{"essential":true}}}"#,
            r#"{"id_token":{"acr":{"values":["gold"]}}}"#,
            r#"{"userinfo":{"acr":{"essential":true,"values":["3"]}}}"#,
        ] {
            assert!(parse(raw).unwrap().acr.is_empty(), "{raw}");
        }
        // An essential acr scanid can never reach.
        for raw in [
            r#"{"id_token":{"acr":{"essential":true,"values":["gold"]}}}"#,
            r#"{"id_token":{"acr":{"essential":true,"value":"0"}}}"#,
            r#"{"id_token":{"acr":{"essential":true,"values":[2]}}}"#,
        ] {
            assert!(parse(raw).is_err(), "{raw}");
        }
    }

    #[test]
    fn the_param_asks_for_the_same_again() {
        for raw in [
            r#"{"userinfo":{"name":{"essential":true}}}"#,
            r#"{"id_token":{"address":null,"groups":{"essential":true}},"userinfo":{"picture":null}}"#,
            r#"{"id_token":{"name":null,"sub":{"value":"u"}}}"#,
        ] {
            let c = parse(raw).unwrap();
            assert_eq!(parse(&c.to_param().unwrap()).unwrap(), c, "{raw}");
        }
        assert_eq!(
            parse(r#"{"userinfo":{"email":null}}"#).unwrap().to_param(),
            None
        );
        let c =
            parse(r#"{"id_token":{"name":null},"userinfo":{"name":null,"address":null}}"#).unwrap();
        assert_eq!(c.all(), names(&["name", "address"]));
    }

    #[test]
    fn which_scopes_release_which_claim() {
        let s = |v: &[&str]| names(v);
        assert!(scopes_release(&s(&["openid", "profile"]), "name"));
        assert!(scopes_release(&s(&["profile"]), "groups"));
        assert!(scopes_release(&s(&["groups"]), "groups"));
        assert!(!scopes_release(&s(&["groups"]), "name"));
        assert!(scopes_release(&s(&["address"]), "address"));
        assert!(!scopes_release(&s(&["openid", "profile"]), "address"));
        assert!(!scopes_release(&s(&["openid"]), "updated_at"));
        for c in REQUESTABLE {
            assert!(!released_by(c).is_empty());
        }
    }
}
