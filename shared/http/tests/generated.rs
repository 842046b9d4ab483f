//! The files the route table generates are up to date: `template.yaml`'s function blocks,
//! `functions/<name>/` and `events/<name>.json` are what `scanid routes generate` writes.

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_generated_files_are_up_to_date() {
    let template = std::fs::read_to_string(root().join("template.yaml")).unwrap();
    let mut stale = Vec::new();
    for (path, text) in scanid_http::generate::files(&template).unwrap() {
        let on_disk = std::fs::read_to_string(root().join(&path)).unwrap_or_default();
        if on_disk != text {
            stale.push(path);
        }
    }
    assert!(
        stale.is_empty(),
        "not up to date with the route table: {stale:?}; \
         run `cargo run -p scanid-cli -- routes generate` from the repository's root"
    );
}

#[test]
fn every_function_has_its_extras_once_and_a_sample_route() {
    use scanid_http::{functions, routes};
    let table = routes::functions();
    let mut seen = std::collections::BTreeSet::new();
    for f in functions::FUNCTIONS {
        assert!(table.contains(&f.name), "{}: extras of no function", f.name);
        assert!(seen.insert(f.name), "{}: extras twice", f.name);
        assert!(
            f.sample.route < scanid_http::generate::routes_of(f.name).len(),
            "{}: its sample's route",
            f.name
        );
        if !f.photo_actions.is_empty() || f.photo_list.is_some() {
            let h = routes::function_handler(f.name).unwrap();
            assert!(h.photos(), "{}: photo extras, no PHOTOS", f.name);
        }
    }
}

#[test]
fn the_json_table_names_every_route() {
    let v = scanid_http::generate::table_json().unwrap();
    let n: usize = v["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["routes"].as_array().unwrap().len())
        .sum();
    assert_eq!(n, scanid_http::routes::ROUTES.len());
    assert_eq!(
        v["functions"][0]["iam"][0]["actions"][0],
        "dynamodb:GetItem"
    );
}
