//! `POST /admin/replay/{source}/{event_id}` with no entity finds an event about no entity in
//! its bucket, and one recorded before buckets in the object it had to itself; either way
//! the replay is a duplicate that changes nothing, and an id nobody sent is a 404 problem.

use hookonce_e2e::buckets::{admin, builder, deliver, record_in_own_object};
use hookonce_e2e::events::{assert_problem, outcome};
use serde_json::json;

#[test]
fn replays_of_bucketed_and_older_events_are_duplicates_that_change_nothing() {
    let w = builder(json!({})).with_handoff().start();
    assert_eq!(outcome(&deliver(&w, "in-bucket")), "applied");
    assert_eq!(outcome(&record_in_own_object(&w, "before")), "applied");
    for id in ["in-bucket", "before"] {
        let r = admin(&w, "POST", &format!("/admin/replay/github/{id}"));
        assert_eq!(r.status, 200, "{r}");
        let body = r.json();
        assert_eq!(body["event_id"], id);
        assert_eq!(body["outcome"], "duplicate", "{r}");
        assert_eq!(body["changed"], false, "{r}");
    }
    let r = admin(&w, "POST", "/admin/replay/github/nobody-sent-this");
    assert_problem(&r, 404, "not-found");
}
