//! The source's feed lists events about no entity as it lists the others: an event applied in
//! its bucket, its duplicate, and the duplicate of an id recorded before buckets (answered by
//! the bucket after its look-up in the event's old object), with no entity.

use std::time::{Duration, Instant};

use hookonce_e2e::buckets::{admin, builder, deliver, record_in_own_object};
use hookonce_e2e::events::outcome;
use serde_json::{json, Value};

#[test]
fn bucketed_events_and_their_duplicates_are_in_the_feed() {
    let w = builder(json!({})).with_handoff().start();
    assert_eq!(outcome(&record_in_own_object(&w, "old-1")), "applied");
    assert_eq!(outcome(&deliver(&w, "new-1")), "applied");
    assert_eq!(outcome(&deliver(&w, "new-1")), "duplicate");
    assert_eq!(outcome(&deliver(&w, "old-1")), "duplicate");

    let want = [
        ("old-1", "duplicate"),
        ("new-1", "duplicate"),
        ("new-1", "applied"),
    ];
    let deadline = Instant::now() + Duration::from_secs(15);
    let rows = loop {
        let r = admin(&w, "GET", "/sources/github/events");
        assert_eq!(r.status, 200, "{r}");
        // Four: the record made through the hand-off is noted too, then the Worker's three.
        let rows: Vec<Value> = r.json()["events"].as_array().unwrap().clone();
        if rows.len() >= 4 || Instant::now() > deadline {
            break rows;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let got: Vec<(&str, &str)> = rows
        .iter()
        .take(3)
        .map(|r| {
            (
                r["event_id"].as_str().unwrap(),
                r["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, want, "{rows:#?}");
    assert_eq!(rows.len(), 4, "{rows:#?}");
    for r in &rows {
        assert_eq!(r["entity"], Value::Null, "{r}");
        assert_eq!(r["type"], "push", "{r}");
    }
}
