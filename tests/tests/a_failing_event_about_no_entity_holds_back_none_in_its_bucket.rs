//! Events about no entity have no order among them, so head of line applies per entity
//! only: in a bucket's outbox every due row is sent in arrival order, and a row waiting for
//! its retry holds back none of the others. With one bucket, an event the application
//! keeps refusing waits a minute for its retry while the five after it are delivered.

use std::time::Duration;

use hookonce_e2e::buckets::{builder, deliver};
use hookonce_e2e::events::outcome;
use hookonce_e2e::origin::{Origin, Reply};
use serde_json::json;

#[test]
fn the_events_after_a_failing_one_in_its_bucket_are_delivered_in_arrival_order() {
    let o = Origin::start();
    o.set_policy(|key, _| match key {
        Some(k) if k.contains("stuck") => Reply::Status(503),
        _ => Reply::Status(200),
    });
    let forward = json!({ "url": o.url("/hooks"), "schedule_secs": [60], "window_secs": 600 });
    let w = builder(json!({ "buckets": 1, "forward": forward })).start();

    let ids = ["stuck", "ok-0", "ok-1", "ok-2", "ok-3", "ok-4"];
    for id in ids {
        assert_eq!(outcome(&deliver(&w, id)), "applied", "{id}");
    }
    // Head of line would hold the five for the minute until "stuck" is tried again.
    let seen = o.wait_for(Duration::from_secs(20), |reqs| {
        reqs.iter()
            .filter(|r| !r.must("idempotency-key").contains("stuck"))
            .count()
            >= 5
    });
    let keys: Vec<&str> = seen.iter().map(|r| r.must("idempotency-key")).collect();
    assert_eq!(
        keys, ids,
        "each once, in arrival order, the failed one not yet again"
    );
}
