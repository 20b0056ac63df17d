//! A key reused with a different body is refused with 422 problem+json; the first request
//! keeps its receipt and its single message.

use std::time::Duration;

use hookonce_e2e::origin::Origin;
use hookonce_e2e::publish;
use hookonce_e2e::Worker;
use serde_json::json;

#[test]
fn reusing_a_key_for_another_body_is_422() {
    let o = Origin::start();
    let w = Worker::start();
    let body = publish::body(&o.url("/inbox"), "order.paid", json!({ "order": 1 }));
    let first = publish::publish(&w, "reused-key", &body);
    assert_eq!(first.status, 202, "{first}");

    for other in [
        publish::body(&o.url("/inbox"), "order.paid", json!({ "order": 2 })),
        publish::body(&o.url("/inbox"), "order.refunded", json!({ "order": 1 })),
        publish::body(&o.url("/elsewhere"), "order.paid", json!({ "order": 1 })),
    ] {
        let r = publish::publish(&w, "reused-key", &other);
        assert_eq!(r.status, 422, "{r}");
        assert_eq!(
            r.header("content-type"),
            Some("application/problem+json"),
            "{r}"
        );
        assert_eq!(r.json()["status"], 422, "{r}");
        assert_eq!(r.header("idempotent-replayed"), None);
    }
    let again = publish::publish(&w, "reused-key", &body);
    assert_eq!(again.body, first.body, "the original still replays");

    publish::wait_settled(
        &w,
        &publish::token(),
        &publish::sf_string("reused-key"),
        Duration::from_secs(20),
    );
    assert_eq!(o.requests().len(), 1, "only the first body was published");
    assert_eq!(o.requests()[0].json()["data"], json!({ "order": 1 }));
}
