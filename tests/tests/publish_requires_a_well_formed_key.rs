//! A publish without an Idempotency-Key, or with a malformed one (neither a quoted RFC 8941
//! sf-string nor a bare key of visible ASCII), is refused with 400 problem+json, and nothing
//! is published.

use std::time::Duration;

use hookonce_e2e::origin::Origin;
use hookonce_e2e::publish;
use hookonce_e2e::Worker;
use serde_json::json;

#[test]
fn a_missing_or_malformed_key_is_400() {
    let o = Origin::start();
    let w = Worker::start();
    let body = publish::body(&o.url("/inbox"), "order.paid", json!({ "order": 1 }));
    let token = publish::token();

    let r = publish::post(&w, Some(&token), None, &body);
    assert_eq!(r.status, 400, "missing: {r}");
    assert_eq!(r.header("content-type"), Some("application/problem+json"));
    assert!(
        r.json()["type"].as_str().unwrap().contains("missing"),
        "{r}"
    );

    for bad in [
        "\"abc", "abc\"", "a\"b", "\"a\"b", "\"\"", "\"a\\x\"", "a b", "\"é\"", "é",
    ] {
        let r = publish::post(&w, Some(&token), Some(bad), &body);
        assert_eq!(r.status, 400, "malformed {bad:?}: {r}");
        assert_eq!(r.header("content-type"), Some("application/problem+json"));
        assert!(
            r.json()["type"].as_str().unwrap().contains("malformed"),
            "{bad:?}: {r}"
        );
    }

    // Escapes are part of the syntax: "a\"b" is the key a"b.
    let r = publish::post(&w, Some(&token), Some(r#""a\"b""#), &body);
    assert_eq!(r.status, 202, "{r}");
    assert_eq!(r.json()["idempotency_key"], "a\"b");

    publish::wait_settled(&w, &token, r#""a\"b""#, Duration::from_secs(20));
    assert_eq!(
        o.requests().len(),
        1,
        "only the well-formed request published"
    );
}
