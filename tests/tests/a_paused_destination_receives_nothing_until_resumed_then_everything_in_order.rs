//! An operator's pause holds one destination of a source: while it is paused, that
//! destination receives nothing and its rows stay pending with no attempt spent, while the
//! source's other destination receives every event; after the resume, it receives every
//! event, in order per entity, within the drains' poll of a paused destination.

use std::time::Duration;

use hookonce_e2e::origin::{
    self, assert_receives_all_in_order, deliver_burst, operate_destination as operate, Origin,
};
use serde_json::json;

fn destination(o: &Origin) -> serde_json::Value {
    json!({ "url": o.url("/hooks"), "schedule_secs": [1, 1, 2], "timeout_secs": 2 })
}

#[test]
fn a_paused_destination_gets_nothing_then_everything_in_order_and_the_other_keeps_receiving() {
    let (billing, audit) = (Origin::start(), Origin::start());
    let w = origin::worker_to(
        json!({ "billing": destination(&billing), "audit": destination(&audit) }),
    );
    assert_eq!(operate(&w, "billing", "pause"), "paused");

    let sent = deliver_burst(&w, &["ent_a", "ent_b"], 3);
    assert_receives_all_in_order(&audit, &sent, Duration::from_secs(15));

    // Paused for a few seconds more: nothing reaches billing, nothing is spent.
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        billing.requests().is_empty(),
        "billing got a request while paused"
    );
    for entity in ["ent_a", "ent_b"] {
        let rows = origin::outbox(&w, entity);
        let held: Vec<_> = rows
            .iter()
            .filter(|r| r["destination"] == "billing")
            .collect();
        assert_eq!(held.len(), 3, "{rows:#?}");
        for r in held {
            assert_eq!(
                (&r["status"], &r["attempts"]),
                (&json!("pending"), &json!(0)),
                "{r}"
            );
        }
    }

    assert_eq!(operate(&w, "billing", "resume"), "closed");
    // Within the drains' poll of a paused destination (15 s).
    assert_receives_all_in_order(&billing, &sent, Duration::from_secs(30));
}
