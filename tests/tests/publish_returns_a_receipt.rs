//! `POST /v1/messages` answers 202 with a receipt, then delivers the message through the
//! outbox: signed, `webhook-id` and `Idempotency-Key` = the message id, body
//! `{type, timestamp, data}`.

use std::time::Duration;

use hookonce_e2e::origin::Origin;
use hookonce_e2e::publish;
use hookonce_e2e::Worker;
use serde_json::json;

#[test]
fn a_publish_is_accepted_with_a_receipt_and_delivered_signed() {
    let o = Origin::start();
    let w = Worker::start();
    let payload = json!({ "order": 42, "lines": ["a", "b"] });
    let body = publish::body(&o.url("/inbox"), "order.paid", payload.clone());
    let t0 = hookonce_e2e::unix_now();
    let r = publish::publish(&w, "receipt-key-1", &body);
    assert_eq!(r.status, 202, "{r}");
    assert!(r
        .header("content-type")
        .unwrap()
        .starts_with("application/json"));
    assert_eq!(r.header("idempotent-replayed"), None, "{r}");
    let receipt = r.json();
    let id = receipt["message_id"]
        .as_str()
        .expect("message_id")
        .to_string();
    assert!(id.starts_with("msg_"), "{receipt}");
    assert_eq!(receipt["idempotency_key"], "receipt-key-1");
    assert_eq!(receipt["status"], "accepted");
    let accepted = receipt["accepted_at"].as_i64().expect("accepted_at");
    assert!((t0 - 1..=t0 + 5).contains(&accepted), "{receipt}");

    let reqs = o.wait_requests(1, Duration::from_secs(15));
    let d = &reqs[0];
    assert_eq!(d.path, "/inbox");
    assert_eq!(d.must("webhook-id"), id);
    assert_eq!(d.must("idempotency-key"), id);
    let delivered = d.json();
    assert_eq!(delivered["type"], "order.paid");
    assert_eq!(delivered["data"], payload);
    assert!(delivered["timestamp"].is_i64(), "{delivered}");
    let ts: i64 = d.must("webhook-timestamp").parse().unwrap();
    let expected = hookonce_e2e::sign_standard_webhooks(
        &hookonce_e2e::dev_var("HOOKONCE_PUBLISH_SECRET"),
        &id,
        ts,
        &d.body,
    );
    assert_eq!(
        d.must("webhook-signature"),
        expected,
        "signed with the publish secret"
    );
}
