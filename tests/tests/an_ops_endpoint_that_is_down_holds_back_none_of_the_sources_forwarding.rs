//! An ops endpoint that answers 503 to everything: the alerts it is owed are retried with
//! the same key, behind its own gate, and the source's own destination, which fails and
//! then recovers, still receives every event, in order per entity.

use std::time::Duration;

use hookonce_e2e::ops::worker_alerting;
use hookonce_e2e::origin::{assert_receives_all_in_order, deliver_burst, Origin, Reply};
use serde_json::json;

#[test]
fn the_sources_events_all_arrive_in_order_while_its_alerts_are_retried_with_one_key() {
    let app = Origin::start();
    app.fail_first(6);
    let ops = Origin::start();
    ops.set_default(Reply::Status(503));
    let w = worker_alerting(
        json!({ "billing": {
            "url": app.url("/hooks"),
            "schedule_secs": [1, 1, 2],
            "window_secs": 600,
            "breaker": { "failures": 5, "cool_down_secs": 2, "max_cool_down_secs": 2 },
        }}),
        &ops,
        json!({}),
    );
    let sent = deliver_burst(&w, &["ent_a", "ent_b", "ent_c"], 4);
    assert_receives_all_in_order(&app, &sent, Duration::from_secs(60));

    let tries = ops.wait_for(Duration::from_secs(30), |reqs| reqs.len() >= 2);
    let keys: std::collections::BTreeSet<&str> =
        tries.iter().map(|r| r.must("idempotency-key")).collect();
    assert!(
        keys.iter().all(|k| k.starts_with("destination.")),
        "only the breaker's alerts: {keys:?}"
    );
    assert!(
        keys.len() < tries.len(),
        "a failing alert is retried with its key: {keys:?} over {} tries",
        tries.len()
    );
}
