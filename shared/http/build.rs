//! Compiles the web app's Fluent catalogues (`locales/app/{tag}.ftl`) to JSON when scanid is
//! built, so the app function links no Fluent parser and the phone downloads only its own
//! language's messages (docs/book/src/languages.md).
//!
//! A message becomes a string when it is plain text, else a list of parts: text, `{"$": name}`
//! for a placeholder, `{"s": name, "v": {key: parts}, "d": key}` for a selection (plurals:
//! the app picks the variant with `Intl.PluralRules`). `OUT_DIR/app_catalogues.rs` holds one
//! `AppCatalogue` per language: its tag, a hash of its JSON (the file name's, so the file can
//! be cached for good), the JSON, and its `shell-` messages as plain text for the server.

use std::fmt::Write as _;
use std::path::Path;

use fluent_syntax::ast::{
    Entry, Expression, InlineExpression, Pattern, PatternElement, VariantKey,
};

fn main() -> Result<(), String> {
    let dir = Path::new("locales/app");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ftl"))
        .collect();
    files.sort();
    let mut code = String::from("pub(crate) const APP_CATALOGUES: &[AppCatalogue] = &[\n");
    for path in files {
        println!("cargo:rerun-if-changed={}", path.display());
        let tag = path
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| format!("{}: no tag", path.display()))?;
        let source =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let (json, shell) = compile(&source).map_err(|e| format!("{}: {e}", path.display()))?;
        let hash = format!("{:016x}", fnv(json.as_bytes()));
        let _ = writeln!(
            code,
            "    AppCatalogue {{ tag: {tag:?}, hash: {:?}, json: {json:?}, shell: &{shell:?} }},",
            &hash[..12]
        );
    }
    code.push_str("];\n");
    let out = std::env::var("OUT_DIR").map_err(|e| e.to_string())?;
    std::fs::write(Path::new(&out).join("app_catalogues.rs"), code).map_err(|e| e.to_string())
}

/// The catalogue as JSON, and its `shell-` messages as (id, text).
fn compile(source: &str) -> Result<(String, Vec<(String, String)>), String> {
    let resource = fluent_syntax::parser::parse(source).map_err(|(_, e)| format!("{e:?}"))?;
    let mut json = String::from("{");
    let mut shell = Vec::new();
    for entry in resource.body {
        match entry {
            Entry::Message(m) => {
                let value = m
                    .value
                    .ok_or_else(|| format!("{} has no value", m.id.name))?;
                if json.len() > 1 {
                    json.push(',');
                }
                json.push_str(&string(m.id.name));
                json.push(':');
                if let Some(text) = plain(&value) {
                    if m.id.name.starts_with("shell-") {
                        shell.push((m.id.name.to_owned(), text.clone()));
                    }
                    json.push_str(&string(&text));
                } else {
                    json.push_str(&parts(&value)?);
                }
            }
            Entry::Term(t) => return Err(format!("term -{}: the app has none", t.id.name)),
            Entry::Junk { content } => return Err(format!("syntax error at {content:?}")),
            _ => {}
        }
    }
    json.push('}');
    Ok((json, shell))
}

/// The pattern's text, when it has no placeholder.
fn plain(p: &Pattern<&str>) -> Option<String> {
    let mut out = String::new();
    for e in &p.elements {
        match e {
            PatternElement::TextElement { value } => out.push_str(value),
            PatternElement::Placeable {
                expression: Expression::Inline(InlineExpression::StringLiteral { value }),
            } => out.push_str(value),
            PatternElement::Placeable { .. } => return None,
        }
    }
    Some(out)
}

fn parts(p: &Pattern<&str>) -> Result<String, String> {
    let mut out = Vec::new();
    for e in &p.elements {
        out.push(match e {
            PatternElement::TextElement { value } => string(value),
            PatternElement::Placeable { expression } => expression_json(expression)?,
        });
    }
    Ok(format!("[{}]", out.join(",")))
}

fn expression_json(e: &Expression<&str>) -> Result<String, String> {
    match e {
        Expression::Inline(i) => inline(i),
        Expression::Select { selector, variants } => {
            let InlineExpression::VariableReference { id } = selector else {
                return Err(format!("select on {selector:?}: only on a placeholder"));
            };
            let mut v = Vec::new();
            let mut default = String::new();
            for variant in variants {
                let key = match &variant.key {
                    VariantKey::Identifier { name } => *name,
                    VariantKey::NumberLiteral { value } => *value,
                };
                if variant.default {
                    default = key.to_owned();
                }
                v.push(format!("{}:{}", string(key), parts(&variant.value)?));
            }
            Ok(format!(
                "{{\"s\":{},\"v\":{{{}}},\"d\":{}}}",
                string(id.name),
                v.join(","),
                string(&default)
            ))
        }
    }
}

fn inline(i: &InlineExpression<&str>) -> Result<String, String> {
    match i {
        InlineExpression::VariableReference { id } => Ok(format!("{{\"$\":{}}}", string(id.name))),
        InlineExpression::StringLiteral { value } => Ok(string(value)),
        InlineExpression::Placeable { expression } => expression_json(expression),
        other => Err(format!(
            "{other:?}: the app's messages use only placeholders"
        )),
    }
}

/// A JSON string.
fn string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// FNV-1a, 64 bits: a name for a version of the file, not a secret.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}
