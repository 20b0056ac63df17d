//! `POST /admin/redeliver/{source}/{event_id}?entity=E&destination=D` sends an applied event
//! once more to D only, with the same `Idempotency-Key` and body; the other destination
//! gets nothing more. Without `destination`, every destination that takes it gets it.

use std::time::Duration;

use hookonce_e2e::events::admin_post;
use hookonce_e2e::origin::{deliver, worker_to, Origin};
use serde_json::json;

#[test]
fn the_named_destination_gets_the_same_key_and_body_again_and_the_other_nothing() {
    let (billing, audit) = (Origin::start(), Origin::start());
    let to = |o: &Origin| json!({ "url": o.url("/hooks") });
    let w = worker_to(json!({ "billing": to(&billing), "audit": to(&audit) }));
    let (r, body) = deliver(&w, "evt_again_1", "ent_again");
    assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");
    let first = billing.wait_requests(1, Duration::from_secs(10));
    audit.wait_requests(1, Duration::from_secs(10));

    let path = "/admin/redeliver/acme/evt_again_1?entity=ent_again&destination=billing";
    let r = admin_post(&w, path);
    assert_eq!(r.status, 200, "{r}");
    assert_eq!(
        r.json(),
        json!({ "enqueued": 1, "destinations": ["billing"] }),
        "{r}"
    );
    let sent = billing.wait_requests(2, Duration::from_secs(10));
    assert_eq!(sent.len(), 2);
    let key = first[0].header("idempotency-key");
    assert_eq!(key, Some("evt_again_1"));
    assert_eq!(sent[1].header("idempotency-key"), key, "the same key");
    assert_eq!(sent[1].body, body, "the same body, byte for byte");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(audit.requests().len(), 1, "audit was not named");

    let r = admin_post(&w, "/admin/redeliver/acme/evt_again_1?entity=ent_again");
    assert_eq!(r.status, 200, "{r}");
    assert_eq!(r.json()["destinations"], json!(["audit", "billing"]), "{r}");
    audit.wait_requests(2, Duration::from_secs(10));
    billing.wait_requests(3, Duration::from_secs(10));
}
