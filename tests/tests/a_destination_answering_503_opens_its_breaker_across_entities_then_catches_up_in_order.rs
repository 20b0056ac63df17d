//! The breaker shared by a destination's entities: an origin answering 503 to the rows of
//! several entities opens it after 10 failures in a row (the default `failure_threshold`),
//! counted across the entities; its status says `open`, and attempts stop (the rows wait,
//! spending no attempt) until the cool-down's probe. Once the origin recovers, every event
//! arrives, in order per entity.

use std::time::Duration;

use hookonce_e2e::events::admin_get;
use hookonce_e2e::origin::{self, assert_receives_all_in_order, deliver_burst, Origin, Reply};
use serde_json::json;

/// The destination's status document.
fn status(w: &hookonce_e2e::Worker) -> serde_json::Value {
    let path = format!("/sources/{}/destinations/billing/status", origin::SOURCE);
    let r = admin_get(w, &path);
    assert_eq!(r.status, 200, "{r}");
    r.json()
}

#[test]
fn ten_503s_across_entities_open_the_breaker_stop_attempts_and_every_event_arrives_after() {
    let app = Origin::start();
    app.set_default(Reply::Status(503));
    let w = origin::worker_to(json!({ "billing": {
        "url": app.url("/hooks"),
        "schedule_secs": [1, 1, 2],
        "window_secs": 600,
        "timeout_secs": 2,
    }}));
    let entities = ["ent_a", "ent_b", "ent_c", "ent_d"];
    let sent = deliver_burst(&w, &entities, 3);

    // Each entity's head fails and is retried a second later: ten failures come within a few seconds.
    app.wait_for(Duration::from_secs(15), |reqs| reqs.len() >= 10);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let open = loop {
        let doc = status(&w);
        if doc["circuit"] == "open" {
            break doc;
        }
        assert!(std::time::Instant::now() < deadline, "never opened: {doc}");
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(open["consecutive_failures"].as_u64() >= Some(10), "{open}");
    let tried: std::collections::BTreeSet<String> = app
        .requests()
        .iter()
        .map(|r| r.must("idempotency-key").to_owned())
        .collect();
    assert!(
        tried.len() >= 2,
        "the failures came from several entities: {tried:?}"
    );

    // Open: no attempt goes out for a while (the cool-down is 30 s), whatever the retries'
    // schedule of 1 s says.
    let before = app.requests().len();
    std::thread::sleep(Duration::from_secs(8));
    let after = app.requests().len();
    assert_eq!(
        after, before,
        "attempts went out while the breaker was open"
    );
    assert_eq!(status(&w)["circuit"], "open");

    app.set_default(Reply::OK);
    assert_receives_all_in_order(&app, &sent, Duration::from_secs(60));
    assert_eq!(status(&w)["circuit"], "closed", "the probe closed it");
    for entity in entities {
        let rows = origin::outbox(&w, entity);
        assert!(rows.iter().all(|r| r["status"] == "delivered"), "{rows:#?}");
    }
}
