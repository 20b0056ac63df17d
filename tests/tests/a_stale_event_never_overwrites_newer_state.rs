//! An event older than the entity's state is recorded as stale and changes nothing; the
//! order is (created_at with its fraction, then event id).

use hookonce_e2e::events::*;
use hookonce_e2e::shared_worker as worker;

#[test]
fn an_older_event_after_a_newer_one_is_stale_and_the_newer_state_stays() {
    let w = worker();
    let newer = cardholder_updated(&new_id("evt"), "ch_stale", &at(120), "Newer");
    let older_id = new_id("evt");
    let older = cardholder_updated(&older_id, "ch_stale", &at(60), "Older");
    assert_eq!(outcome(&deliver(w, &newer)), "applied");
    let r = deliver(w, &older);
    assert_eq!(r.status, 200, "{r}");
    assert_eq!(outcome(&r), "stale");

    let e = entity(w, "ch_stale").json();
    assert_eq!(e["state"]["name"], "Newer");
    assert_eq!(e["version"]["event_id"], newer["id"]);
    let rec = event_record(w, &older_id, "ch_stale");
    assert_eq!(rec.status, 200, "{rec}");
    assert_eq!(rec.json()["outcome"], "stale");

    // The stale event is remembered: its redelivery is a duplicate.
    let again = deliver(w, &older);
    assert_eq!(outcome(&again), "duplicate");
    assert_eq!(again.json()["rows_written"], 0);
}

#[test]
fn events_created_in_the_same_second_are_ordered_by_fraction_then_id() {
    let w = worker();
    // Fractions of a second count.
    let later = event(
        &new_id("evt"),
        "cardholder.updated",
        "2026-10-06T01:00:00.500Z",
        serde_json::json!({ "id": "ch_frac", "name": "Later" }),
    );
    let earlier = event(
        &new_id("evt"),
        "cardholder.updated",
        "2026-10-06T01:00:00.250Z",
        serde_json::json!({ "id": "ch_frac", "name": "Earlier" }),
    );
    assert_eq!(outcome(&deliver(w, &later)), "applied");
    assert_eq!(outcome(&deliver(w, &earlier)), "stale");
    let e = entity(w, "ch_frac").json();
    assert_eq!(e["state"]["name"], "Later");
    assert_eq!(e["version"]["created_at_nanos"], 500_000_000);

    // The very same instant: the greater event id wins, in either delivery order.
    let base = new_id("evt");
    let orders = [
        ("ch_tie_ab", [("a", "applied"), ("b", "applied")]),
        ("ch_tie_ba", [("b", "applied"), ("a", "stale")]),
    ];
    for (entity_id, order) in orders {
        for (suffix, expected) in order {
            let ev = cardholder_updated(&format!("{base}_{suffix}"), entity_id, &at(0), suffix);
            assert_eq!(outcome(&deliver(w, &ev)), expected, "{entity_id} {suffix}");
        }
        let e = entity(w, entity_id).json();
        assert_eq!(e["state"]["name"], "b", "{entity_id}: {e}");
        assert_eq!(e["version"]["event_id"], format!("{base}_b"));
    }
}
