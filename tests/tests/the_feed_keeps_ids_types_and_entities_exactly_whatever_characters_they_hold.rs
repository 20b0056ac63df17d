//! The feed object appends a flush of rows as one JSON array that SQLite reads back
//! (`jsonb_each`): quotes, backslashes and characters beyond ASCII in an event's id, type
//! or entity come back from `GET /sources/{source}/events` exactly as they arrived.

use hookonce_e2e::events::*;
use hookonce_e2e::shared_worker as worker;
use serde_json::json;

#[test]
fn the_feed_keeps_ids_types_and_entities_exactly_whatever_characters_they_hold() {
    let w = worker();
    // The id is also the webhook-id header, so it stays within visible ASCII.
    let id = format!("{}_\"q\\b'", new_id("evt"));
    let kind = "card.note\"d\\ é ✓";
    let entity = format!("ch_\"{}\\ü🙂", new_id("x"));
    let ev = event(&id, kind, &at(0), json!({ "id": entity, "note": "x" }));
    assert_eq!(outcome(&deliver(w, &ev)), "applied");

    let rows = wait_feed(w, COCKPIT, "", |rows| {
        rows.iter().any(|r| r["event_id"] == id)
    });
    let row = rows.iter().find(|r| r["event_id"] == id).unwrap();
    assert_eq!(row["type"], kind, "{row}");
    assert_eq!(row["entity"], entity.as_str(), "{row}");
    assert_eq!(row["outcome"], "applied", "{row}");
}
