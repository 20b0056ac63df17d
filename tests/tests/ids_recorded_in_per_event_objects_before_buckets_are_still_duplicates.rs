//! Upgrading to buckets: ids an earlier version recorded in an object per event
//! (`{source}/i/{id}`) are still duplicates when the provider sends them again, and the
//! read API still finds them. The earlier version's records are made through the same
//! internal hand-off its Worker made, to the object name it chose.

use hookonce_e2e::buckets::{builder, deliver, event, record_in_own_object};
use hookonce_e2e::events::outcome;
use serde_json::json;

#[test]
fn each_id_recorded_before_buckets_is_a_duplicate_after_the_upgrade() {
    let w = builder(json!({})).with_handoff().start();
    let old: Vec<String> = (0..6).map(|i| format!("before-{i}")).collect();
    for id in &old {
        assert_eq!(outcome(&record_in_own_object(&w, id)), "applied", "{id}");
    }
    for id in &old {
        assert_eq!(outcome(&deliver(&w, id)), "duplicate", "{id}");
        // Again: the bucket did not record it, and asks again.
        assert_eq!(outcome(&deliver(&w, id)), "duplicate", "{id}");
        let read = event(&w, id);
        assert_eq!(read.status, 200, "{read}");
        assert_eq!(read.json()["event_id"], id.as_str());
    }
    // An id no earlier version saw is applied once.
    assert_eq!(outcome(&deliver(&w, "after-0")), "applied");
    assert_eq!(outcome(&deliver(&w, "after-0")), "duplicate");
}

#[test]
fn with_look_ups_off_an_id_recorded_before_buckets_is_applied_again() {
    // The oracle for the test above: the duplicates come from the look-up.
    let w = builder(json!({ "legacy_lookup_secs": 0 }))
        .with_handoff()
        .start();
    assert_eq!(outcome(&record_in_own_object(&w, "before-0")), "applied");
    assert_eq!(outcome(&deliver(&w, "before-0")), "applied");
}
