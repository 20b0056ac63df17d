//! Operational webhooks from the feed's exact figures and from refused deliveries: three
//! entities' rows refused with 400 until their window closes become three dead letters,
//! their backlog passes `backlog_pending`, and three deliveries with a bad signature are
//! refused; within one quiet window the ops endpoint hears of each once:
//! `event.dead_lettered`, `backlog.high` and `source.misconfigured`.

use std::time::Duration;

use hookonce_e2e::ops::{alerts, kinds, worker_alerting};
use hookonce_e2e::origin::{deliver_burst, event_body, wait_dead, Origin, Reply, SOURCE};
use hookonce_e2e::{standard_webhooks_headers, unix_now};
use serde_json::json;

#[test]
fn many_dead_letters_a_backlog_and_bad_signatures_are_one_alert_each() {
    let app = Origin::start();
    app.set_default(Reply::Status(400));
    let ops = Origin::start();
    let w = worker_alerting(
        json!({ "billing": {
            "url": app.url("/hooks"),
            "schedule_secs": [1],
            "window_secs": 3,
            "timeout_secs": 2,
        }}),
        &ops,
        json!({ "backlog_pending": 2 }),
    );
    let entities = ["ent_a", "ent_b", "ent_c"];
    deliver_burst(&w, &entities, 1);
    wait_dead(&w, |dead| dead.len() >= entities.len());
    for i in 0..3 {
        let id = format!("evt_forged_{i}");
        let body = event_body(&id, "item.noticed", "ent_a", unix_now());
        let wrong = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSx";
        let r = w.post(
            &format!("/webhooks/{SOURCE}"),
            &standard_webhooks_headers(wrong, &id, unix_now(), &body),
            &body,
        );
        assert_eq!(r.status, 401, "{r}");
    }

    ops.wait_for(Duration::from_secs(30), |reqs| reqs.len() >= 3);
    std::thread::sleep(Duration::from_secs(3));
    let mut got = kinds(&ops);
    got.sort();
    assert_eq!(
        got,
        [
            "backlog.high",
            "event.dead_lettered",
            "source.misconfigured"
        ]
    );
    let all = alerts(&ops);
    let dead = all
        .iter()
        .find(|a| a.kind == "event.dead_lettered")
        .unwrap();
    assert_eq!(dead.body["data"]["destination"], "billing", "{}", dead.body);
    let misconfigured = all
        .iter()
        .find(|a| a.kind == "source.misconfigured")
        .unwrap();
    assert_eq!(
        misconfigured.body["data"]["status"], 401,
        "{}",
        misconfigured.body
    );
    assert_eq!(misconfigured.body["data"]["subject"], SOURCE);
}
