//! A destination configured `deliver = "latest"` catches up after an outage (here a pause)
//! with each entity's newest snapshot: the older snapshots pending for it are superseded,
//! never sent, and its outbox rows say by which event; a notify event between snapshots
//! still goes out, in order. The source's other destination gets every event.

use std::time::Duration;

use hookonce_e2e::origin::{
    self, deliver_body, event_body, operate_destination, worker_to, Origin, Reply,
};
use serde_json::json;

#[test]
fn a_latest_destination_is_sent_only_the_newest_snapshot_of_each_run_and_the_rest_are_superseded() {
    let (app, audit) = (Origin::start(), Origin::start());
    let to = |o: &Origin| json!({ "url": o.url("/hooks"), "schedule_secs": [1, 1, 2] });
    let mut latest = to(&app);
    latest["deliver"] = json!("latest");
    let w = worker_to(json!({ "app": latest, "audit": to(&audit) }));
    assert_eq!(operate_destination(&w, "app", "pause"), "paused");

    // ent_a: snapshots 0 and 1, a notification, snapshots 2 and 3; ent_b: snapshots 0-4.
    let base = hookonce_e2e::unix_now() - 100;
    let mut sent = Vec::new();
    let mut send = |entity: &str, id: String, kind: &str, version: i64| {
        let body = event_body(&id, kind, entity, base + version);
        let r = deliver_body(&w, &id, &body);
        assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");
        sent.push(id);
    };
    for (i, kind) in [
        "item.snapshot",
        "item.snapshot",
        "item.noticed",
        "item.snapshot",
        "item.snapshot",
    ]
    .into_iter()
    .enumerate()
    {
        send("ent_a", format!("evt_a_{i}"), kind, i as i64);
    }
    for i in 0..5 {
        send("ent_b", format!("evt_b_{i}"), "item.snapshot", i);
    }
    audit.wait_for(Duration::from_secs(20), |reqs| {
        reqs.iter().filter(|r| r.reply == Reply::OK).count() >= sent.len()
    });
    assert_eq!(
        audit.first_keys(true),
        sent,
        "the other destination gets every event"
    );

    assert_eq!(operate_destination(&w, "app", "resume"), "closed");
    let want = ["evt_a_1", "evt_a_2", "evt_a_4", "evt_b_4"];
    // Within the drains' poll of a paused destination (15 s).
    app.wait_for(Duration::from_secs(30), |reqs| {
        reqs.iter().filter(|r| r.reply == Reply::OK).count() >= want.len()
    });
    std::thread::sleep(Duration::from_secs(2));
    let mut got = app.keys();
    assert_eq!(got.len(), want.len(), "one request per row sent: {got:?}");
    let a: Vec<&String> = got.iter().filter(|k| k.starts_with("evt_a")).collect();
    assert_eq!(a, ["evt_a_1", "evt_a_2", "evt_a_4"], "in order");
    got.sort();
    assert_eq!(got, want);

    let superseded = |entity: &str| -> Vec<(String, String)> {
        origin::outbox(&w, entity)
            .iter()
            .filter(|r| r["destination"] == "app" && r["status"] == "superseded")
            .map(|r| {
                let id = r["event_id"].as_str().unwrap_or_default().to_owned();
                let by = r["last_result"].as_str().unwrap_or_default().to_owned();
                (id, by)
            })
            .collect()
    };
    let pair = |a: &str, b: &str| (a.to_owned(), format!("superseded by {b}"));
    assert_eq!(
        superseded("ent_a"),
        [pair("evt_a_0", "evt_a_1"), pair("evt_a_3", "evt_a_4")]
    );
    assert_eq!(
        superseded("ent_b"),
        [
            pair("evt_b_0", "evt_b_1"),
            pair("evt_b_1", "evt_b_2"),
            pair("evt_b_2", "evt_b_3"),
            pair("evt_b_3", "evt_b_4"),
        ]
    );
}
