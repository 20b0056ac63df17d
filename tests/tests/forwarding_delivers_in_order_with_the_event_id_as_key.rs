//! Async forwarding: every applied event reaches the origin, in order per entity, each
//! with `Idempotency-Key` = `webhook-id` = the event id, carrying the original body.

use std::time::Duration;

use hookonce_e2e::origin::{self, Origin, Reply};
use serde_json::json;

#[test]
fn events_reach_the_origin_in_order_per_entity_keyed_by_event_id() {
    let o = Origin::start();
    let w = origin::worker(json!({
        "url": o.url("/hooks"),
        "schedule_secs": [1, 1, 2],
        "window_secs": 10,
        "timeout_secs": 2,
    }));

    let mut sent = Vec::new();
    for i in 0..5 {
        for entity in ["ent_a", "ent_b"] {
            let id = format!("evt_{entity}_{i}");
            let (r, body) = origin::deliver(&w, &id, entity);
            assert_eq!(r.status, 200, "{r}");
            assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");
            sent.push((entity, id, body));
        }
    }

    let reqs = o.wait_for(Duration::from_secs(30), |reqs| {
        sent.iter()
            .all(|(_, id, _)| reqs.iter().any(|r| r.header("idempotency-key") == Some(id)))
    });

    for r in &reqs {
        assert_eq!(r.method, "POST");
        assert_eq!(r.path, "/hooks");
        let key = r.must("idempotency-key");
        assert_eq!(r.must("webhook-id"), key, "webhook-id is the key");
        assert_eq!(
            r.idempotency_key_wire.as_deref(),
            Some(format!("\"{key}\"").as_str()),
            "Idempotency-Key is sent as the draft's sf-string"
        );
        let (_, _, body) = sent
            .iter()
            .find(|(_, id, _)| id == key)
            .unwrap_or_else(|| panic!("origin got an unknown key {key}"));
        assert_eq!(&r.body, body, "the original body, byte for byte");
        assert!(r.must("webhook-signature").starts_with("v1,"));
        r.must("webhook-timestamp")
            .parse::<i64>()
            .expect("timestamp");
    }

    for entity in ["ent_a", "ent_b"] {
        let expected: Vec<&str> = sent
            .iter()
            .filter(|(e, _, _)| *e == entity)
            .map(|(_, id, _)| id.as_str())
            .collect();
        // First arrival of each key, in arrival order: must be the order sent.
        let mut firsts: Vec<&str> = Vec::new();
        for r in &reqs {
            let key = r.must("idempotency-key");
            if expected.contains(&key) && !firsts.contains(&key) {
                firsts.push(key);
            }
        }
        assert_eq!(firsts, expected, "{entity} delivered out of order");
        let rows = origin::wait_outbox(&w, entity, Duration::from_secs(10), |rows| {
            rows.len() == 5 && rows.iter().all(|o| o["status"] == "delivered")
        });
        for (row, id) in rows.iter().zip(&expected) {
            assert_eq!(row["event_id"], *id);
            assert_eq!(row["last_result"], "http 200");
        }
    }
}

#[test]
fn a_failing_head_holds_back_the_rest_of_its_entity() {
    let o = Origin::start();
    let w = origin::worker(json!({
        "url": o.url("/hooks"),
        "schedule_secs": [1, 1, 2],
        "window_secs": 20,
        "timeout_secs": 2,
    }));
    o.script([Reply::Status(500), Reply::Status(500)]);
    let ids = ["evt_hol_0", "evt_hol_1", "evt_hol_2"];
    for id in ids {
        let (r, _) = origin::deliver(&w, id, "ent_hol");
        assert_eq!(r.status, 200, "{r}");
    }
    let reqs = o.wait_for(Duration::from_secs(30), |reqs| {
        reqs.iter()
            .any(|r| r.header("idempotency-key") == Some("evt_hol_2") && r.reply == Reply::OK)
    });
    let keys: Vec<&str> = reqs.iter().map(|r| r.must("idempotency-key")).collect();
    let pos = |key: &str, ok: bool| {
        reqs.iter()
            .position(|r| r.header("idempotency-key") == Some(key) && (!ok || r.reply == Reply::OK))
            .unwrap()
    };
    assert_eq!(&keys[..3], ["evt_hol_0"; 3], "the head is retried first");
    assert!(
        pos("evt_hol_0", true) < pos("evt_hol_1", false)
            && pos("evt_hol_1", false) < pos("evt_hol_2", false),
        "nothing overtakes the head while it is retried: {keys:?}"
    );
}
