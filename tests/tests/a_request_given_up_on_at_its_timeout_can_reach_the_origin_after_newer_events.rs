//! What hookonce cannot recall. An attempt that the application does not answer within
//! `timeout_secs` is given up on and retried; if the application reads that first request
//! only later (a busy accept queue), it arrives after the retry and after newer events of
//! the same entity. hookonce sent nothing after the 2xx it recorded: the late request is the
//! earlier attempt, and its `hookonce-attempt` header says so. This is the one way an older
//! event can reach the application after a newer one, and why the README asks applications
//! to deduplicate on `Idempotency-Key` or compare versions.

use std::time::Duration;

use hookonce_e2e::origin::{self, Origin};
use serde_json::json;

#[test]
fn a_request_given_up_on_at_its_timeout_can_reach_the_origin_after_newer_events() {
    let o = Origin::start();
    let w = origin::worker(json!({
        "url": o.url("/hooks"),
        "schedule_secs": [1],
        "timeout_secs": 1,
    }));
    let now = hookonce_e2e::unix_now();
    let older = origin::event_body("evt_late_x", "item.snapshot", "ent_late", now - 10);
    let newer = origin::event_body("evt_late_y", "item.snapshot", "ent_late", now);

    // The application reads the first request 4 s late: hookonce gives up on it at 1 s.
    o.stall_next_reads(1, Duration::from_secs(4));
    let r = origin::deliver_body(&w, "evt_late_x", &older);
    assert_eq!(r.status, 200, "{r}");
    let rows = origin::wait_outbox(&w, "ent_late", Duration::from_secs(20), |rows| {
        rows.first().is_some_and(|r| r["status"] == "delivered")
    });
    assert_eq!(
        rows[0]["attempts"], 2,
        "a timeout, then the retry: {rows:#?}"
    );
    let r = origin::deliver_body(&w, "evt_late_y", &newer);
    assert_eq!(r.status, 200, "{r}");

    let seen = o.wait_requests(3, Duration::from_secs(20));
    let order: Vec<(&str, &str)> = seen
        .iter()
        .map(|r| (r.must("webhook-id"), r.must("hookonce-attempt")))
        .collect();
    assert_eq!(
        order,
        [
            ("evt_late_x", "2"),
            ("evt_late_y", "1"),
            ("evt_late_x", "1"),
        ],
        "the retry, the newer event, then the request hookonce gave up on"
    );
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        o.requests().len(),
        3,
        "nothing is sent after the 2xx it recorded"
    );
}
