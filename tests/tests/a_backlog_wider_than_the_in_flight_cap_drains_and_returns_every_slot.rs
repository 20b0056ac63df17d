//! Thirty entities with five events each, three times the default `max_in_flight` of 10:
//! every event arrives once, in order per entity, and once they have, the destination's
//! gate has every slot back. Each attempt's result reaches the gate (riding along with the
//! entity's next ask, or on its own after the last row); a lost report would hold its slot
//! until its 30 s lease ran out.

use std::time::{Duration, Instant};

use hookonce_e2e::events::admin_get;
use hookonce_e2e::origin::{self, assert_receives_all_in_order, deliver_burst, Origin};
use serde_json::json;

#[test]
fn thirty_entities_drain_in_order_and_leave_no_slot_taken() {
    let app = Origin::start();
    let w = origin::worker_to(json!({ "billing": { "url": app.url("/hooks") } }));
    let names: Vec<String> = (0..30).map(|i| format!("ent_{i}")).collect();
    let entities: Vec<&str> = names.iter().map(String::as_str).collect();
    let sent = deliver_burst(&w, &entities, 5);

    assert_receives_all_in_order(&app, &sent, Duration::from_secs(60));

    let path = format!("/sources/{}/destinations/billing/status", origin::SOURCE);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let doc = admin_get(&w, &path).json();
        if doc["in_flight"] == 0 {
            assert_eq!(doc["limit"], 10, "{doc}");
            break;
        }
        assert!(Instant::now() < deadline, "slots still taken: {doc}");
        std::thread::sleep(Duration::from_millis(200));
    }
}
