//! A copy of a recorded event that reaches its entity's object (an admin replay, or a copy
//! the Worker did not hold back) is decided without a read: a notify event's copy writes
//! its body, finds its id recorded as it writes the record, and undoes the whole unit; an
//! older snapshot's copy, decided stale, finds it at once. On workerd's own storage the
//! object then holds one body and one record per event, as before.

use hookonce_e2e::events::{at, cardholder_created, cardholder_updated};
use hookonce_e2e::workerd::Workerd;
use rusqlite::{Connection, OpenFlags};

fn count(db: &std::path::Path, table: &str) -> i64 {
    let c = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    c.busy_timeout(std::time::Duration::from_secs(2)).unwrap();
    c.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

/// Replays `id` through the object itself, past the Worker: a duplicate that changes nothing.
fn replay_twice(w: &Workerd, id: &str) {
    let admin = [("authorization", "Bearer dev-admin-token")];
    let path = format!("/admin/replay/cockpit/{id}?entity=ch_copy");
    for _ in 0..2 {
        let r = w.request("POST", &path, &admin, Some(b""));
        assert_eq!(r.status, 200, "{r}");
        assert_eq!(r.json()["outcome"], "duplicate", "{r}");
        assert_eq!(r.json()["changed"], false, "{r}");
    }
}

#[test]
fn replayed_copies_leave_one_body_and_one_record_per_event() {
    let w = Workerd::builder().start();
    let mut notified = cardholder_created("evt_copy_n", "ch_copy", &at(0), "Ada");
    notified["type"] = "cardholder.notified".into(); // "*" = "notify": no snapshot
    let created = cardholder_created("evt_copy_1", "ch_copy", &at(10), "Ada");
    let updated = cardholder_updated("evt_copy_2", "ch_copy", &at(60), "Ada L.");
    for event in [&notified, &created, &updated] {
        let r = w.deliver_cockpit(event);
        assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");
    }
    let files = w.entity_files();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(count(&files[0], "raw_bodies"), 3);
    assert_eq!(count(&files[0], "events"), 3);

    replay_twice(&w, "evt_copy_n");
    replay_twice(&w, "evt_copy_1");
    assert_eq!(
        count(&files[0], "raw_bodies"),
        3,
        "an undone unit keeps no body"
    );
    assert_eq!(count(&files[0], "events"), 3);

    // The object goes on applying what is new.
    let last = cardholder_updated("evt_copy_3", "ch_copy", &at(120), "Ada K.");
    let r = w.deliver_cockpit(&last);
    assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");
    assert_eq!(count(&files[0], "raw_bodies"), 4);
    assert_eq!(count(&files[0], "events"), 4);
}
