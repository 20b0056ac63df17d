//! At-least-once forwarding plus an application that honours `Idempotency-Key` gives
//! exactly one effect per event, even when the provider redelivers events concurrently
//! and the application fails before and after committing.

use std::time::Duration;

use hookonce_e2e::origin::{self, Origin, Reply};
use serde_json::json;

#[test]
fn each_event_has_exactly_one_effect_at_an_idempotent_origin() {
    let o = Origin::start();
    o.set_default(Reply::Apply(200));
    // Failures injected at the origin: before applying (500) and after applying (Apply(500):
    // committed, then the answer was lost), and a hang past the timeout.
    o.script([
        Reply::Apply(500),
        Reply::Status(500),
        Reply::Apply(503),
        Reply::Hang(Duration::from_secs(3)),
        Reply::Apply(500),
    ]);
    let w = origin::worker(json!({
        "url": o.url("/app"),
        "schedule_secs": [1, 1, 2],
        "window_secs": 30,
        "timeout_secs": 2,
    }));

    let events: Vec<(String, String)> = (0..6)
        .map(|i| (format!("evt_once_{i}"), format!("ent_once_{}", i % 2)))
        .collect();
    // The provider delivers every event three times, the copies concurrently.
    std::thread::scope(|s| {
        for (id, entity) in &events {
            let w = &w;
            let body = origin::event_body(id, "item.noticed", entity, hookonce_e2e::unix_now());
            let copies: Vec<_> = (0..3)
                .map(|_| {
                    let body = body.clone();
                    s.spawn(move || origin::deliver_body(w, id, &body))
                })
                .collect();
            let outcomes: Vec<String> = copies
                .into_iter()
                .map(|h| {
                    let r = h.join().unwrap();
                    assert_eq!(r.status, 200, "{r}");
                    r.header("hookonce-outcome").unwrap().to_string()
                })
                .collect();
            assert_eq!(
                outcomes.iter().filter(|o| *o == "applied").count(),
                1,
                "one copy applied, the rest duplicates: {outcomes:?}"
            );
        }
    });

    for entity in ["ent_once_0", "ent_once_1"] {
        origin::wait_outbox(&w, entity, Duration::from_secs(40), |rows| {
            rows.len() == 3 && rows.iter().all(|r| r["status"] == "delivered")
        });
    }
    let reqs = o.requests();
    assert!(
        reqs.len() > events.len(),
        "failures were injected, so some events were sent more than once ({} requests)",
        reqs.len()
    );
    let applied = o.applied();
    assert_eq!(o.effects() as usize, events.len(), "{applied:?}");
    for (id, _) in &events {
        assert_eq!(applied.get(id), Some(&1), "{id} applied once: {applied:?}");
    }
    let resent = applied
        .keys()
        .filter(|k| {
            reqs.iter()
                .filter(|r| r.header("idempotency-key") == Some(k.as_str()))
                .count()
                > 1
        })
        .count();
    assert!(resent >= 1, "at least one event reached the origin twice");
}
