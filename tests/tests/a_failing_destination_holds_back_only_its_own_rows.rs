//! Isolation between destinations: while one origin answers 503, another destination of
//! the same source receives every event at once, in order per entity; once the first
//! origin recovers, it catches up, in order per entity too.

use std::time::{Duration, Instant};

use hookonce_e2e::origin::{self, assert_in_order_per_entity, deliver_burst, Origin, Reply};
use serde_json::json;

fn destination(o: &Origin) -> serde_json::Value {
    json!({
        "url": o.url("/hooks"),
        "schedule_secs": [1, 1, 2],
        "window_secs": 120,
        "timeout_secs": 2,
    })
}

#[test]
fn one_destination_down_holds_back_none_of_the_others_rows_then_catches_up_in_order() {
    let (down, up) = (Origin::start(), Origin::start());
    down.set_default(Reply::Status(503));
    let w = origin::worker_to(json!({ "billing": destination(&down), "audit": destination(&up) }));
    let started = Instant::now();
    let sent = deliver_burst(&w, &["ent_a", "ent_b"], 4);

    up.wait_for(Duration::from_secs(10), |reqs| {
        reqs.iter().filter(|r| r.reply == Reply::OK).count() >= sent.len()
    });
    let audit = up.first_keys(true);
    assert_eq!(audit.len(), sent.len(), "each event once: {audit:?}");
    let ids: Vec<&str> = audit.iter().map(String::as_str).collect();
    assert_in_order_per_entity(&sent, &ids);
    assert!(
        down.first_keys(true).is_empty() && !down.requests().is_empty(),
        "billing was tried and failed meanwhile"
    );
    let rows = origin::outbox(&w, "ent_a");
    let pending = |name: &str| {
        rows.iter()
            .filter(|r| r["destination"] == name && r["status"] == "pending")
            .count()
    };
    assert_eq!((pending("billing"), pending("audit")), (4, 0), "{rows:#?}");

    // Down for about 15 s in all, then back.
    std::thread::sleep(Duration::from_secs(15).saturating_sub(started.elapsed()));
    down.set_default(Reply::OK);
    down.wait_for(Duration::from_secs(20), |reqs| {
        let ok = reqs.iter().filter(|r| r.reply == Reply::OK);
        ok.count() >= sent.len()
    });
    let billing = down.first_keys(true);
    assert_eq!(billing.len(), sent.len(), "{billing:?}");
    let ids: Vec<&str> = billing.iter().map(String::as_str).collect();
    assert_in_order_per_entity(&sent, &ids);
    // Nothing reached billing out of order while it failed either: first attempts too.
    let tried = down.first_keys(false);
    let ids: Vec<&str> = tried.iter().map(String::as_str).collect();
    assert_in_order_per_entity(&sent, &ids);
}
