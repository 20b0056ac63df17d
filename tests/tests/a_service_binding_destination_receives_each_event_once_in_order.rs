//! `forward.service`: a second Worker receives every applied event through the service
//! binding, once and in order per entity, as the same signed request an HTTPS destination
//! gets (`Idempotency-Key` = `webhook-id` = the event id, the original body).

use std::time::Duration;

use hookonce_core::forward::SERVICE_URL;
use hookonce_e2e::origin::{self, Origin};
use hookonce_e2e::peers::{self, SERVICE, SERVICE_PATH};
use hookonce_e2e::{dev_var, sign_standard_webhooks};
use serde_json::json;

#[test]
fn the_peer_worker_gets_each_event_once_in_order_signed_and_keyed() {
    let o = Origin::start();
    let w = peers::worker(
        &o,
        json!({ "service": SERVICE, "schedule_secs": [1], "window_secs": 30 }),
    );

    let sent = origin::deliver_burst(&w, &["svc_a", "svc_b"], 4);
    for entity in ["svc_a", "svc_b"] {
        let rows = origin::wait_outbox(&w, entity, Duration::from_secs(30), |rows| {
            rows.len() == 4 && rows.iter().all(|r| r["status"] == "delivered")
        });
        assert!(
            rows.iter().all(|r| r["last_result"] == "http 200"),
            "{rows:#?}"
        );
    }

    let reqs = o.requests();
    assert_eq!(reqs.len(), sent.len(), "each event once: {reqs:#?}");
    let secret = dev_var("HOOKONCE_FORWARD_SECRET");
    for r in &reqs {
        assert_eq!(
            (r.method.as_str(), r.path.as_str()),
            ("POST", SERVICE_PATH),
            "relayed by the peer"
        );
        assert_eq!(r.header("x-peer-via"), Some("service"));
        assert_eq!(r.header("x-peer-url"), Some(SERVICE_URL));
        let key = r.must("idempotency-key");
        assert_eq!(r.must("webhook-id"), key);
        assert_eq!(r.header("hookonce-source"), Some(origin::SOURCE));
        assert_eq!(r.attempt(), 1);
        let body = &origin::sent_event(&sent, key).body;
        assert_eq!(&r.body, body, "the original body, byte for byte");
        let ts: i64 = r.must("webhook-timestamp").parse().expect("timestamp");
        assert_eq!(
            r.must("webhook-signature"),
            sign_standard_webhooks(&secret, key, ts, body),
            "signed with HOOKONCE_FORWARD_SECRET"
        );
    }
    let arrived: Vec<&str> = reqs.iter().map(|r| r.must("idempotency-key")).collect();
    origin::assert_in_order_per_entity(&sent, &arrived);
}
