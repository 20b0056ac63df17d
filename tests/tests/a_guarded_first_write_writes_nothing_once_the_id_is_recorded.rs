//! When core decides without reading the event's id (`decide_unread`), the first write of
//! the decision, a kept body or the processed-id record, is the test: its guarded
//! statement (`edge/src/schema.rs`, run natively here on the SQLite that workerd embeds)
//! writes a row only if the id is not recorded, so the object reads and decides again,
//! with nothing written, exactly when the event is a duplicate.

#[path = "../../edge/src/schema.rs"]
#[allow(dead_code, unreachable_pub)]
mod schema;

use rusqlite::{params, Connection};

const NOW: i64 = 1_791_270_400;

fn entity() -> Connection {
    let c = Connection::open_in_memory().unwrap();
    c.execute_batch(&[schema::ENTITY_SCHEMA, schema::BODIES_SCHEMA].concat())
        .unwrap();
    c
}

/// The guarded body, then the record it is linked from: rows written by each.
fn apply(c: &Connection, id: &str, body: &[u8]) -> (usize, usize) {
    let kept = c
        .execute(
            schema::INSERT_BODY_UNSEEN,
            params![id, 0, None::<String>, body, NOW],
        )
        .unwrap();
    if kept == 0 {
        return (0, 0);
    }
    let recorded = c
        .execute(schema::INSERT_RECORD, params![id, "t", "applied", 1, NOW])
        .unwrap();
    (kept, recorded)
}

fn count(c: &Connection, table: &str) -> i64 {
    c.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_guarded_body_is_kept_for_a_new_id_and_not_for_a_recorded_one() {
    let c = entity();
    assert_eq!(apply(&c, "evt_1", b"first"), (1, 1));
    assert_eq!(apply(&c, "evt_1", b"second copy"), (0, 0));
    assert_eq!(count(&c, "raw_bodies"), 1);
    let body: Vec<u8> = c
        .query_row(schema::BODY_OF_EVENT, params!["evt_1"], |r| r.get(2))
        .unwrap();
    assert_eq!(
        body, b"first",
        "the record still finds the first copy's body"
    );
    // Another id is still new.
    assert_eq!(apply(&c, "evt_2", b"other"), (1, 1));
}

#[test]
fn a_guarded_record_keeps_the_first_outcome() {
    let c = entity();
    let record = |outcome: &str| {
        c.execute(
            schema::INSERT_RECORD_UNSEEN,
            params!["evt_s", "t", outcome, 1, NOW],
        )
        .unwrap()
    };
    assert_eq!(record("stale"), 1);
    assert_eq!(record("applied"), 0, "a recorded id writes nothing");
    let outcome: String = c
        .query_row(
            "SELECT outcome FROM events WHERE event_id = 'evt_s'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(outcome, "stale");
    assert_eq!(count(&c, "events"), 1);
}

#[test]
fn a_guarded_record_links_the_body_kept_just_before_it() {
    let c = entity();
    c.execute(
        schema::INSERT_BODY,
        params!["evt_b", 0, None::<String>, b"kept".as_slice(), NOW],
    )
    .unwrap();
    assert_eq!(
        c.execute(
            schema::INSERT_RECORD_UNSEEN,
            params!["evt_b", "t", "applied", 1, NOW]
        )
        .unwrap(),
        1
    );
    let body: Vec<u8> = c
        .query_row(schema::BODY_OF_EVENT, params!["evt_b"], |r| r.get(2))
        .unwrap();
    assert_eq!(body, b"kept");
}
