//! `edge/assets/openapi.json` describes exactly the routes the router has (`hookonce_core::route::ROUTES`),
//! both ways, and every error it documents is a problem document, so the description and
//! the code cannot drift apart unnoticed.

use std::collections::BTreeSet;

use hookonce_core::route::ROUTES;
use serde_json::Value;

fn description() -> Value {
    let path = hookonce_e2e::repo_root().join("edge/assets/openapi.json");
    let text = std::fs::read_to_string(&path).expect("read edge/assets/openapi.json");
    serde_json::from_str(&text).expect("edge/assets/openapi.json is JSON")
}

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

fn operations(doc: &Value) -> BTreeSet<(String, String)> {
    let paths = doc["paths"].as_object().expect("paths is an object");
    paths
        .iter()
        .flat_map(|(path, item)| {
            let item = item.as_object().expect("a path item is an object");
            item.keys()
                .filter(|k| METHODS.contains(&k.as_str()))
                .map(move |m| (m.to_ascii_uppercase(), path.clone()))
        })
        .collect()
}

/// Follows a local `$ref` (`#/components/...`); other values are returned as they are.
fn resolve<'a>(doc: &'a Value, v: &'a Value) -> &'a Value {
    match v.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let pointer = r.strip_prefix('#').expect("only local $refs");
            doc.pointer(pointer)
                .unwrap_or_else(|| panic!("dangling $ref {r}"))
        }
        None => v,
    }
}

#[test]
fn every_route_is_described_and_every_described_operation_is_a_route() {
    let doc = description();
    assert_eq!(doc["openapi"], "3.1.0");
    let described = operations(&doc);
    let routed: BTreeSet<(String, String)> = ROUTES
        .iter()
        .map(|(m, p)| (m.to_string(), p.to_string()))
        .collect();
    let undocumented: Vec<_> = routed.difference(&described).collect();
    let unrouted: Vec<_> = described.difference(&routed).collect();
    assert!(
        undocumented.is_empty(),
        "routes missing from openapi.json: {undocumented:?}"
    );
    assert!(
        unrouted.is_empty(),
        "openapi.json operations the router does not have: {unrouted:?}"
    );
}

#[test]
fn every_path_parameter_is_declared_and_every_error_is_a_problem_document() {
    let doc = description();
    for (method, path) in operations(&doc) {
        let op = &doc["paths"][&path][method.to_ascii_lowercase()];
        let declared: BTreeSet<String> = op["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| resolve(&doc, p))
            .filter(|p| p["in"] == "path")
            .map(|p| p["name"].as_str().expect("parameter name").to_owned())
            .collect();
        let templated: BTreeSet<String> = path
            .split('/')
            .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
            .map(str::to_owned)
            .collect();
        assert_eq!(declared, templated, "{method} {path}: path parameters");

        let responses = op["responses"].as_object().expect("responses");
        assert!(
            responses.keys().any(|s| s.starts_with('2')),
            "{method} {path}: no success response"
        );
        for (status, resp) in responses {
            let resp = resolve(&doc, resp);
            let content = resp["content"]
                .as_object()
                .unwrap_or_else(|| panic!("{method} {path} {status}: no content"));
            let types: Vec<&String> = content.keys().collect();
            let want = if status.starts_with('2') && path == "/inspect" {
                // The one page: the inspector.
                "text/html"
            } else if status.starts_with('2') && path == "/metrics" {
                // What Prometheus scrapes.
                "text/plain; version=0.0.4; charset=utf-8"
            } else if status.starts_with('2') {
                "application/json"
            } else {
                "application/problem+json"
            };
            assert_eq!(types, [want], "{method} {path} {status}");
            let schema = resolve(&doc, &content[want]["schema"]);
            assert!(schema.is_object(), "{method} {path} {status}: schema");
        }
        // What every route can answer: a malformed escape, a wrong method, a bad config.
        for status in ["400", "405", "500"] {
            assert!(
                responses.contains_key(status),
                "{method} {path}: {status} undocumented"
            );
        }
    }
}
