//! A request's parameters (a query string or a form), as they arrived: every value of every
//! name. The rules for reading one (RFC 6749 §3.1: no parameter twice, an empty one is
//! absent) live here so every endpoint reads them alike.

use std::collections::HashMap;

/// The request's parameters: every value of every name, in order.
#[derive(Debug, Clone, Default)]
pub struct Params(HashMap<String, Vec<String>>);

impl Params {
    /// The parameters of `pairs` (name, value), every value of a repeated name kept.
    pub fn from_pairs<I: IntoIterator<Item = (String, String)>>(pairs: I) -> Self {
        let mut m: HashMap<String, Vec<String>> = HashMap::new();
        for (k, v) in pairs {
            m.entry(k).or_default().push(v);
        }
        Self(m)
    }
    /// The single value of `name`: `Err` if repeated (RFC 6749 §3.1), `Ok(None)` if absent or
    /// empty (an empty parameter is treated as omitted).
    pub fn one(&self, name: &'static str) -> Result<Option<&str>, &'static str> {
        match self.0.get(name).map(Vec::as_slice) {
            None | Some([]) => Ok(None),
            Some([v]) => Ok(Some(v.as_str()).filter(|v| !v.is_empty())),
            Some(_) => Err(name),
        }
    }
    /// Every non-empty value of `name` (for `resource`, the one parameter that may repeat).
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.0
            .get(name)
            .map(|v| {
                v.iter()
                    .map(String::as_str)
                    .filter(|v| !v.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    }
    /// Every (name, value).
    pub fn pairs(&self) -> impl Iterator<Item = (&String, &String)> {
        self.0
            .iter()
            .flat_map(|(k, vs)| vs.iter().map(move |v| (k, v)))
    }
    /// A repeated parameter other than `resource` (RFC 8707 §2 allows several).
    pub(crate) fn repeated(&self) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, v)| v.len() > 1 && k.as_str() != "resource")
            .map(|(k, _)| k.as_str())
    }
}
