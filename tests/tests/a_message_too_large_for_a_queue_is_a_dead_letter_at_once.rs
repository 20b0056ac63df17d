//! `forward.queue`: an event whose message would exceed the queue's 128 KB limit can never
//! be sent, so it is a dead letter after one attempt, with its size as the reason, instead
//! of being retried for days; the entity's next event still goes out.

use std::time::Duration;

use hookonce_e2e::origin::{self, Origin};
use hookonce_e2e::peers::{self, QUEUE};
use hookonce_e2e::unix_now;
use serde_json::json;

#[test]
fn an_oversized_event_is_dead_at_once_and_the_next_one_is_enqueued() {
    let o = Origin::start();
    let w = peers::worker(&o, json!({ "queue": QUEUE }));

    let big = json!({
        "id": "evt_big", "type": "item.noticed", "created_at": unix_now(),
        "data": { "object": { "id": "q_big", "padding": "x".repeat(130_000) } },
    })
    .to_string();
    let r = origin::deliver_body(&w, "evt_big", big.as_bytes());
    assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");
    origin::deliver(&w, "evt_small", "q_big");

    let rows = origin::wait_outbox(&w, "q_big", Duration::from_secs(30), |rows| {
        rows.len() == 2 && rows[1]["status"] == "delivered"
    });
    assert_eq!(rows[0]["status"], "dead", "{rows:#?}");
    assert_eq!(rows[0]["attempts"], 1, "{rows:#?}");
    let reason = rows[0]["last_result"].as_str().unwrap();
    assert!(
        reason.starts_with("queue message of ") && reason.contains("128000"),
        "{reason}"
    );
    let reqs = o.wait_requests(1, Duration::from_secs(30));
    let ids: Vec<String> = reqs
        .iter()
        .map(|r| r.json()["event_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        ids,
        ["evt_small"],
        "only the small event reached the consumer"
    );
}
