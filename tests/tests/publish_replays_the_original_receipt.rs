//! The same Idempotency-Key with the same body answers the original receipt byte for byte
//! with `Idempotent-Replayed: true`, before and after the message was delivered, and
//! publishes nothing new.

use std::time::Duration;

use hookonce_e2e::origin::Origin;
use hookonce_e2e::publish;
use hookonce_e2e::Worker;
use serde_json::json;

#[test]
fn a_repeated_publish_replays_the_first_receipt() {
    let o = Origin::start();
    o.script([hookonce_e2e::origin::Reply::Status(503)]); // hold the first delivery back a bit
    let w = Worker::start();
    let body = publish::body(&o.url("/inbox"), "order.paid", json!({ "order": 7 }));
    let first = publish::publish(&w, "replay-key", &body);
    assert_eq!(first.status, 202, "{first}");

    let again = publish::publish(&w, "replay-key", &body);
    assert_eq!(again.status, first.status, "{again}");
    assert_eq!(again.body, first.body, "byte for byte: {again}");
    assert_eq!(again.header("idempotent-replayed"), Some("true"), "{again}");
    assert_eq!(again.header("content-type"), first.header("content-type"));

    let id = first.json()["message_id"].as_str().unwrap().to_string();
    o.wait_for(Duration::from_secs(20), |r| {
        r.iter().any(|r| r.reply == hookonce_e2e::origin::Reply::OK)
    });
    let after = publish::publish(&w, "replay-key", &body);
    assert_eq!(after.status, 202, "{after}");
    assert_eq!(
        after.body, first.body,
        "still the original receipt after delivery: {after}"
    );
    assert_eq!(after.header("idempotent-replayed"), Some("true"));

    publish::wait_settled(
        &w,
        &publish::token(),
        &publish::sf_string("replay-key"),
        Duration::from_secs(20),
    );
    let reqs = o.requests();
    assert!(
        reqs.iter().all(|r| r.must("webhook-id") == id),
        "one message only"
    );
    assert_eq!(
        reqs.iter()
            .filter(|r| r.reply == hookonce_e2e::origin::Reply::OK)
            .count(),
        1,
        "delivered once"
    );
}
