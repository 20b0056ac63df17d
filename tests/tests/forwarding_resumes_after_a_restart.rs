//! The outbox is durable: rows still pending when the runtime stops are delivered, in
//! order, after it starts again on the same state.

use std::time::Duration;

use hookonce_e2e::origin::{self, Origin, Reply};
use hookonce_e2e::Worker;
use serde_json::json;

#[test]
fn pending_rows_are_delivered_after_a_restart() {
    let o = Origin::start();
    o.set_default(Reply::Status(500));
    let state = tempfile::tempdir().unwrap();
    let config = Worker::builder().var(
        "HOOKONCE_SOURCES",
        origin::sources(json!({
            "url": o.url("/hooks"),
            "schedule_secs": [2, 2, 2],
            "window_secs": 60,
            "timeout_secs": 2,
        })),
    );
    let mut w = config.clone().start_in(state.path());
    for id in ["evt_restart_1", "evt_restart_2"] {
        let (r, _) = origin::deliver(&w, id, "ent_restart");
        assert_eq!(r.status, 200, "{r}");
    }
    o.wait_requests(1, Duration::from_secs(10));
    // Stop only once the failed attempt is recorded: a kill between the origin's answer
    // and that write loses the count (the row is then simply sent again as attempt 1).
    origin::wait_outbox(&w, "ent_restart", Duration::from_secs(10), |rows| {
        rows.iter().any(|r| r["attempts"].as_i64() >= Some(1))
    });
    w.kill();

    o.set_default(Reply::OK);
    let w = config.start_in(state.path());
    let rows = origin::wait_outbox(&w, "ent_restart", Duration::from_secs(20), |rows| {
        rows.len() == 2 && rows.iter().all(|r| r["status"] == "delivered")
    });
    assert_eq!(rows[0]["event_id"], "evt_restart_1");
    let delivered: Vec<String> = o
        .requests()
        .iter()
        .filter(|r| r.reply == Reply::OK)
        .map(|r| r.must("idempotency-key").to_string())
        .collect();
    assert_eq!(delivered, ["evt_restart_1", "evt_restart_2"], "in order");
    let first_ok = o
        .requests()
        .into_iter()
        .find(|r| r.reply == Reply::OK)
        .unwrap();
    assert!(
        first_ok.attempt() >= 2,
        "the attempt count survived the restart"
    );
}
