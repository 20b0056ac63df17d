//! `GET /events/{source}/{event_id}` shows, next to the event's outcome, its delivery to
//! each destination that took it: one destination delivered on the first attempt, another
//! still pending after its application answered 503, with the attempts made so far. The
//! source's feed row for the event links to that read.

use std::time::{Duration, Instant};

use hookonce_e2e::events::admin_get;
use hookonce_e2e::origin::{self, Origin, Reply};
use serde_json::{json, Value};

#[test]
fn the_event_read_lists_a_delivered_and_a_pending_destination_with_their_attempts() {
    let (billing, audit) = (Origin::start(), Origin::start());
    billing.set_default(Reply::Status(503));
    let to =
        |o: &Origin| json!({ "url": o.url("/hooks"), "schedule_secs": [60], "timeout_secs": 2 });
    let w = origin::worker_to(json!({ "billing": to(&billing), "audit": to(&audit) }));
    let (r, _) = origin::deliver(&w, "evt_read_1", "ent_read");
    assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");

    let path = format!("/events/{}/evt_read_1?entity=ent_read", origin::SOURCE);
    let deadline = Instant::now() + Duration::from_secs(20);
    let deliveries = loop {
        let r = admin_get(&w, &path);
        assert_eq!(r.status, 200, "{r}");
        let doc = r.json();
        assert_eq!(doc["outcome"], "applied", "{doc}");
        let rows = doc["deliveries"].as_array().cloned().unwrap_or_default();
        let tried = |name: &str| {
            rows.iter()
                .any(|d| d["destination"] == name && d["attempts"].as_i64() >= Some(1))
        };
        if tried("billing") && tried("audit") {
            break rows;
        }
        assert!(Instant::now() < deadline, "not both tried: {doc}");
        std::thread::sleep(Duration::from_millis(250));
    };
    let of = |name: &str| -> Value {
        deliveries
            .iter()
            .find(|d| d["destination"] == name)
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(deliveries.len(), 2, "{deliveries:?}");
    let (b, a) = (of("billing"), of("audit"));
    assert_eq!(
        (&a["status"], &a["attempts"]),
        (&json!("delivered"), &json!(1)),
        "{a}"
    );
    assert_eq!(
        (&b["status"], &b["attempts"]),
        (&json!("pending"), &json!(1)),
        "{b}"
    );
    assert!(
        b["last_result"]
            .as_str()
            .unwrap_or_default()
            .contains("503"),
        "{b}"
    );
    assert!(
        b["next_attempt_at"].as_i64() > Some(hookonce_e2e::unix_now() + 30),
        "{b}"
    );

    // The feed's row links to the read (the feed gets its notes in batches).
    let feed = format!("/sources/{}/events", origin::SOURCE);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let doc = admin_get(&w, &feed).json();
        let row = doc["events"]
            .as_array()
            .and_then(|rows| rows.iter().find(|r| r["event_id"] == "evt_read_1").cloned());
        if let Some(row) = row {
            assert_eq!(row["event_url"], json!(path), "{row}");
            break;
        }
        assert!(Instant::now() < deadline, "no feed row: {doc}");
        std::thread::sleep(Duration::from_millis(250));
    }
}
