//! A publish whose destination is not a URL hookonce could ever send to (no host, a broken
//! IPv6 literal, credentials, a port out of range, spaces or non-ASCII) is refused with
//! 400 problem+json, and the key stays free for a corrected request.

use hookonce_e2e::publish;
use hookonce_e2e::Worker;
use serde_json::json;

#[test]
fn a_destination_that_is_not_a_fetchable_http_url_is_400() {
    let w = Worker::start();
    let token = publish::token();
    for (n, bad) in [
        "http://[",
        "http://[::1",
        "https://",
        "https:///inbox",
        "https://user:secret@app.example/inbox",
        "https://app.example:70000/inbox",
        "https://app example/inbox",
        "https://bücher.example/inbox",
        "ftp://app.example/inbox",
    ]
    .into_iter()
    .enumerate()
    {
        let body = publish::body(bad, "order.paid", json!({ "order": n }));
        let key = format!("dest-{n}");
        let r = publish::post(&w, Some(&token), Some(&key), &body);
        assert_eq!(r.status, 400, "{bad:?}: {r}");
        assert_eq!(
            r.header("content-type"),
            Some("application/problem+json"),
            "{bad:?}"
        );
        assert!(
            r.json()["detail"].as_str().unwrap().contains("destination"),
            "{bad:?}: {r}"
        );
        // Nothing was stored under the key: a corrected request with it is accepted.
        let fixed = publish::body(
            "http://127.0.0.1:9/inbox",
            "order.paid",
            json!({ "order": n }),
        );
        let r = publish::post(&w, Some(&token), Some(&key), &fixed);
        assert_eq!(r.status, 202, "{bad:?} then fixed: {r}");
    }
}
