//! A redelivered (or backfilled) row sends a body kept before the row was enqueued; body
//! retention counts from that body's arrival, and never takes it while the row is
//! pending: the destination recovers after the retention and still gets the body.

use std::time::{Duration, Instant};

use hookonce_e2e::events::admin_post;
use hookonce_e2e::origin::{self, Origin, Reply};
use serde_json::json;

#[test]
fn the_body_outlives_its_retention_while_the_redelivered_row_is_pending() {
    let o = Origin::start();
    let forward = json!({ "url": o.url("/hooks"), "schedule_secs": [1], "window_secs": 600 });
    let w = origin::worker_keeping_bodies_for(forward, 4);
    let arrived = Instant::now();
    let (r, body) = origin::deliver(&w, "evt_old_body", "ent_old_body");
    assert_eq!(r.status, 200, "{r}");
    o.wait_requests(1, Duration::from_secs(10));

    // A second later than the body, inside its 4 s retention, the row is enqueued again,
    // and fails until the body is well past its retention.
    std::thread::sleep(Duration::from_millis(1_500));
    o.set_default(Reply::Status(503));
    let r = admin_post(&w, "/admin/redeliver/acme/evt_old_body?entity=ent_old_body");
    assert_eq!(r.status, 200, "{r}");
    o.wait_for(Duration::from_secs(30), |reqs| {
        reqs.len() >= 3 && arrived.elapsed() > Duration::from_secs(7)
    });

    o.set_default(Reply::OK);
    let rows = origin::wait_outbox(&w, "ent_old_body", Duration::from_secs(15), |rows| {
        rows.iter().all(|r| r["status"] != "pending")
    });
    let last = rows.last().unwrap();
    assert_eq!(last["status"], "delivered", "{rows:#?}");
    assert_eq!(
        o.requests().last().unwrap().body,
        body,
        "the body as it arrived"
    );
}
