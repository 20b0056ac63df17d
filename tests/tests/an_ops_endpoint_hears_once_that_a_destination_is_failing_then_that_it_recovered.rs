//! Operational webhooks from the breaker: while a destination answers 503 its breaker opens
//! (and reopens after each failed probe), and the ops endpoint hears of it once, as
//! `destination.failing`; when the destination recovers and the probe closes the breaker,
//! once more, as `destination.recovered`. Each alert is signed with the ops secret and
//! carries its id as `Idempotency-Key`.

use std::time::Duration;

use hookonce_e2e::ops::{alerts, kinds, worker_alerting};
use hookonce_e2e::origin::{assert_receives_all_in_order, deliver_burst, Origin, Reply, SOURCE};
use serde_json::json;

#[test]
fn a_503_outage_is_one_failing_alert_and_its_end_one_recovered_alert() {
    let app = Origin::start();
    app.set_default(Reply::Status(503));
    let ops = Origin::start();
    let w = worker_alerting(
        json!({ "billing": {
            "url": app.url("/hooks"),
            "schedule_secs": [1, 1, 2],
            "window_secs": 600,
            "timeout_secs": 2,
            "breaker": { "failures": 5, "cool_down_secs": 2, "max_cool_down_secs": 2 },
        }}),
        &ops,
        json!({}),
    );
    let sent = deliver_burst(&w, &["ent_a", "ent_b", "ent_c"], 3);

    ops.wait_for(Duration::from_secs(30), |reqs| !reqs.is_empty());
    // Probes fail every 2 s and reopen the breaker: the same outage, no new alert.
    std::thread::sleep(Duration::from_secs(8));
    assert_eq!(kinds(&ops), ["destination.failing"]);
    let failing = &alerts(&ops)[0];
    assert_eq!(failing.body["data"]["source"], SOURCE);
    assert_eq!(failing.body["data"]["destination"], "billing");
    assert_eq!(failing.body["data"]["subject"], format!("{SOURCE}:billing"));
    assert!(
        failing.body["data"]["cause"]
            .as_str()
            .is_some_and(|c| c.contains('5')),
        "{}",
        failing.body
    );

    app.set_default(Reply::OK);
    assert_receives_all_in_order(&app, &sent, Duration::from_secs(60));
    ops.wait_for(Duration::from_secs(30), |reqs| reqs.len() >= 2);
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        kinds(&ops),
        ["destination.failing", "destination.recovered"]
    );
}
