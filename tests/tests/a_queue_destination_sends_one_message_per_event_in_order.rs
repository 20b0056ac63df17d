//! `forward.queue`: a local queue consumer gets one message per applied event, per entity
//! in the order applied, each carrying the event id, the headers an HTTPS destination gets
//! (the signature verifies over the body, `Idempotency-Key` is the event id) and the body
//! as text, byte for byte.

use std::time::Duration;

use hookonce_e2e::origin::{self, Origin};
use hookonce_e2e::peers::{self, QUEUE, QUEUE_NAME, QUEUE_PATH};
use hookonce_e2e::{dev_var, parse_sf_string, sign_standard_webhooks};
use serde_json::json;

#[test]
fn the_consumer_gets_each_event_as_a_signed_message_in_order() {
    let o = Origin::start();
    let w = peers::worker(&o, json!({ "queue": QUEUE }));

    let sent = origin::deliver_burst(&w, &["q_a", "q_b"], 5);
    for entity in ["q_a", "q_b"] {
        let rows = origin::wait_outbox(&w, entity, Duration::from_secs(30), |rows| {
            rows.len() == 5 && rows.iter().all(|r| r["status"] == "delivered")
        });
        assert!(
            rows.iter().all(|r| r["last_result"] == "enqueued"),
            "{rows:#?}"
        );
    }
    let reqs = o.wait_requests(sent.len(), Duration::from_secs(30));
    assert_eq!(reqs.len(), sent.len(), "one message per event");

    let secret = dev_var("HOOKONCE_FORWARD_SECRET");
    let mut messages = Vec::new();
    for r in &reqs {
        assert_eq!(r.path, QUEUE_PATH, "relayed by the consumer");
        assert_eq!(r.header("x-queue-name"), Some(QUEUE_NAME));
        let m = r.json();
        let id = m["event_id"].as_str().expect("event_id").to_owned();
        let body = &origin::sent_event(&sent, &id).body;
        assert_eq!(m["source"], origin::SOURCE);
        assert_eq!(m["attempt"], 1);
        assert_eq!(
            m["body"].as_str().unwrap().as_bytes(),
            body.as_slice(),
            "{m}"
        );
        let h = &m["headers"];
        let key = h["idempotency-key"].as_str().expect("idempotency-key");
        assert_eq!(parse_sf_string(key).as_deref(), Some(id.as_str()), "{m}");
        assert_eq!(h["webhook-id"], id);
        assert_eq!(h["hookonce-source"], origin::SOURCE);
        let ts: i64 = h["webhook-timestamp"].as_str().unwrap().parse().unwrap();
        assert_eq!(
            h["webhook-signature"],
            sign_standard_webhooks(&secret, &id, ts, body),
            "signed over the body with HOOKONCE_FORWARD_SECRET"
        );
        messages.push(id);
    }
    let arrived: Vec<&str> = messages.iter().map(String::as_str).collect();
    origin::assert_in_order_per_entity(&sent, &arrived);
}
