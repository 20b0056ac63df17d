//! `forward.service`: a peer Worker answering 500 is retried through the same outbox as
//! an HTTPS destination: same key, the attempt counted up, later events of the entity held
//! back until the head is delivered.

use std::time::Duration;

use hookonce_e2e::origin::{self, Origin};
use hookonce_e2e::peers::{self, SERVICE};
use serde_json::json;

#[test]
fn a_failing_peer_is_retried_in_order_until_it_takes_the_event() {
    let o = Origin::start();
    o.fail_first(2);
    let w = peers::worker(
        &o,
        json!({ "service": SERVICE, "schedule_secs": [1], "window_secs": 60 }),
    );

    origin::deliver(&w, "evt_retry_1", "svc_retry");
    origin::deliver(&w, "evt_retry_2", "svc_retry");
    let rows = origin::wait_outbox(&w, "svc_retry", Duration::from_secs(30), |rows| {
        rows.len() == 2 && rows.iter().all(|r| r["status"] == "delivered")
    });
    assert_eq!(rows[0]["attempts"], 3, "{rows:#?}");
    assert_eq!(rows[1]["attempts"], 1, "{rows:#?}");

    let reqs = o.requests();
    let seen: Vec<(&str, u32)> = reqs
        .iter()
        .map(|r| (r.must("idempotency-key"), r.attempt()))
        .collect();
    assert_eq!(
        seen,
        [
            ("evt_retry_1", 1),
            ("evt_retry_1", 2),
            ("evt_retry_1", 3),
            ("evt_retry_2", 1)
        ],
        "head of line: the second event waits for the first"
    );
    assert!(reqs
        .iter()
        .all(|r| r.header("x-peer-via") == Some("service")));
}
