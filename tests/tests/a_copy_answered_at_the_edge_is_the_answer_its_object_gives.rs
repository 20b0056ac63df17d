//! The Worker answers a copy of an event it saw its entity's object record (applied or
//! stale) itself, without waking the object. A provider cannot tell: the answer is the one
//! the object gives to a copy, and the copy is in the feed and the log as a duplicate.

use hookonce_e2e::events::*;
use hookonce_e2e::Worker;

fn answer(r: &hookonce_e2e::Resp) -> (u16, Option<String>, Option<String>, serde_json::Value) {
    (
        r.status,
        r.header("content-type").map(str::to_owned),
        r.header("hookonce-outcome").map(str::to_owned),
        r.json(),
    )
}

#[test]
fn a_copy_is_answered_alike_by_the_worker_and_by_the_object() {
    let w = Worker::start();
    let applied = cardholder_created(&new_id("evt"), "ch_edge", &at(10), "Ada");
    let stale = cardholder_updated(&new_id("evt"), "ch_edge", &at(5), "Old");
    assert_eq!(outcome(&deliver(&w, &applied)), "applied");
    assert_eq!(outcome(&deliver(&w, &stale)), "stale");
    // The same isolate saw the object record both: these copies are answered at the edge.
    let at_edge = [deliver(&w, &applied), deliver(&w, &stale)];
    // Noted in the feed as duplicates: awaited here, as a note still gathering in the
    // isolate when it is killed is lost (ARCHITECTURE.md, "The feed and the inspector").
    wait_duplicates(&w, &[&applied, &stale], 1);
    // A restarted runtime has seen nothing, so the object answers the copies.
    let w = w.restart();
    let by_object = [deliver(&w, &applied), deliver(&w, &stale)];
    for (edge, object) in at_edge.iter().zip(&by_object) {
        assert_eq!(answer(edge), answer(object), "{edge}\n{object}");
        assert_eq!(edge.header("content-type"), Some("application/json"));
        assert_eq!(outcome(edge), "duplicate");
        assert_eq!(edge.json()["rows_written"], 0);
    }
    wait_duplicates(&w, &[&applied, &stale], 2);
}

/// Waits until the feed lists `copies` duplicates of each event.
fn wait_duplicates(w: &Worker, events: &[&serde_json::Value], copies: usize) {
    for ev in events {
        let id = ev["id"].as_str().unwrap().to_owned();
        wait_feed(w, "cockpit", "outcome=duplicate", |rows| {
            rows.iter().filter(|r| r["event_id"] == id.as_str()).count() == copies
        });
    }
}
