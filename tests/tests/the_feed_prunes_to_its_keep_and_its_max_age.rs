//! The feed keeps a source's newest rows: it prunes every 32 rows (core's `PRUNE_EVERY`) to
//! the `keep` newest, and drops rows older than `max_age_secs` from the oldest on
//! (HOOKONCE_FEED). Run against the runtime's own SQLite, so the prune's statement is
//! tested where it runs.

use hookonce_e2e::events::*;
use hookonce_e2e::Worker;
use serde_json::Value;

/// A worker whose feed policy is `policy`.
fn worker_with_feed(policy: Value) -> Worker {
    Worker::builder().var("HOOKONCE_FEED", policy).start()
}

/// Delivers `n` new events, each about an entity of its own, and returns their ids.
fn deliver_new(w: &Worker, n: u32) -> Vec<String> {
    (0..n)
        .map(|i| {
            let id = new_id("evt_prune");
            let e = cardholder_created(&id, &format!("ch_{id}"), &at(i), "Ada");
            assert_eq!(outcome(&deliver(w, &e)), "applied");
            id
        })
        .collect()
}

/// Waits until the feed's newest row is `newest`, then returns its ids, oldest first.
fn feed_ids_once_it_shows(w: &Worker, newest: &str) -> Vec<String> {
    let rows = wait_feed(w, COCKPIT, "limit=200", |rows| {
        rows.first().is_some_and(|r| r["event_id"] == newest)
    });
    let mut ids: Vec<String> = rows
        .iter()
        .map(|r| r["event_id"].as_str().unwrap_or_default().to_owned())
        .collect();
    ids.reverse();
    ids
}

#[test]
fn the_feed_keeps_its_newest_rows_up_to_keep_between_prunes() {
    let w = worker_with_feed(serde_json::json!({ "keep": 5 }));
    let ids = deliver_new(&w, 40);
    // The 32nd row prunes through row 27; rows 28 to 40 are left until the 64th.
    let shown = feed_ids_once_it_shows(&w, &ids[39]);
    assert_eq!(shown, ids[27..].to_vec());
}

#[test]
fn the_feed_forgets_rows_older_than_its_max_age_from_the_oldest_on() {
    let w = worker_with_feed(serde_json::json!({ "max_age_secs": 1 }));
    let old = deliver_new(&w, 20);
    assert_eq!(feed_ids_once_it_shows(&w, &old[19]), old);
    // Received at least two whole seconds later: past the cutoff for the first twenty.
    std::thread::sleep(std::time::Duration::from_millis(2_100));
    let new = deliver_new(&w, 20);
    // The 32nd row's prune drops the old twenty and stops at the first new one.
    let shown = feed_ids_once_it_shows(&w, &new[19]);
    assert_eq!(shown, new);
}
