//! `HOOKONCE_OPS` is checked when the configuration loads, like a source: a missing ops
//! secret, a bad threshold or a bad destination field fails the whole configuration, and
//! the error names the field as `HOOKONCE_OPS.<field>`. No source may take the ops source's
//! reserved name.

use hookonce_e2e::ops::SECRET_BINDING;
use hookonce_e2e::origin::{assert_accepts_nothing, sources_to};
use hookonce_e2e::Worker;
use serde_json::{json, Value};

fn worker_with(ops: Value, without_secret: bool) -> Worker {
    let mut b = Worker::builder()
        .var(
            "HOOKONCE_SOURCES",
            sources_to(json!({ "billing": { "url": "http://127.0.0.1:9/x" } })),
        )
        .var("HOOKONCE_OPS", ops);
    if without_secret {
        b = b.without_secret(SECRET_BINDING);
    }
    b.start()
}

#[test]
fn a_missing_secret_a_bad_threshold_and_a_bad_destination_field_are_named() {
    let url = "http://127.0.0.1:9/ops";
    let w = worker_with(json!({ "url": url }), true);
    assert_accepts_nothing(&w, &["HOOKONCE_OPS.secret", SECRET_BINDING]);
    drop(w);
    let w = worker_with(json!({ "url": url, "quiet_secs": 1 }), false);
    assert_accepts_nothing(&w, &["HOOKONCE_OPS.quiet_secs"]);
    drop(w);
    let w = worker_with(json!({ "url": url, "timeout_secs": "soon" }), false);
    assert_accepts_nothing(&w, &["HOOKONCE_OPS.timeout_secs"]);
}

#[test]
fn a_source_named_like_the_ops_source_is_refused() {
    let mut sources = sources_to(json!({ "billing": { "url": "http://127.0.0.1:9/x" } }));
    sources["hookonce-ops"] = sources["acme"].clone();
    let w = Worker::builder().var("HOOKONCE_SOURCES", sources).start();
    assert_accepts_nothing(&w, &["hookonce-ops", "reserved"]);
}
