//! Body retention never takes a body a pending outbox row still has to send: an event
//! whose destination keeps failing past the retention is delivered with its body once
//! the destination recovers; only then is the body pruned.

use std::time::Duration;

use hookonce_e2e::origin::{self, Origin, Reply};
use serde_json::json;

#[test]
fn a_row_retried_past_the_body_retention_is_still_sent_with_its_body() {
    let o = Origin::start();
    o.set_default(Reply::Status(503));
    let w = origin::worker_keeping_bodies_for(
        json!({
            "url": o.url("/hooks"), "schedule_secs": [1], "window_secs": 600
        }),
        1,
    );

    let (r, body) = origin::deliver(&w, "evt_held", "ent_held");
    assert_eq!(r.status, 200, "{r}");
    // Three failed attempts at least 1 s apart: the body is past its 1 s retention.
    let failed = o.wait_requests(3, Duration::from_secs(30));
    assert!(failed[2].at - failed[0].at >= Duration::from_secs(2));

    o.set_default(Reply::OK);
    let rows = origin::wait_outbox(&w, "ent_held", Duration::from_secs(30), |rows| {
        rows.len() == 1 && rows[0]["status"] != "pending"
    });
    assert_eq!(rows[0]["status"], "delivered", "{rows:#?}");
    let sent = o.requests();
    assert!(sent.len() >= 4, "{} requests", sent.len());
    assert_eq!(sent.last().unwrap().body, body, "the body as it arrived");

    // Delivered, it may go now; its delivered row goes with it.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !origin::outbox(&w, "ent_held").is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the delivered row outlived the body retention"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}
