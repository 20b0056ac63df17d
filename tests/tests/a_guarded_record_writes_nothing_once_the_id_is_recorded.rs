//! When core decides without reading the event's id (`decide_unread`), the record is the
//! test: its guarded statement (`edge/src/store/schema.rs`, run natively here on the SQLite that
//! workerd embeds) writes a row only if the id is not recorded; when it writes none, the
//! object undoes the unit (the body kept just before it too) and reads and decides again.

#[path = "../../edge/src/store/schema.rs"]
#[allow(dead_code, unreachable_pub)]
mod schema;

use hookonce_e2e::raw::{count, sqlite_with};
use rusqlite::{params, Connection};

const NOW: i64 = 1_791_270_400;

fn entity() -> Connection {
    sqlite_with(&schema::ENTITY_SCHEMAS)
}

/// The object's unit for an applied event decided unread: the body, then the guarded
/// record, undone if the record writes nothing. Whether it committed.
fn apply_unread(c: &mut Connection, id: &str, outcome: &str, body: &[u8]) -> bool {
    let tx = c.transaction().unwrap();
    tx.execute(
        schema::INSERT_BODY,
        params![id, 0, None::<String>, body, NOW],
    )
    .unwrap();
    let recorded = tx
        .execute(
            schema::INSERT_RECORD_UNSEEN,
            params![id, "t", outcome, 1, NOW],
        )
        .unwrap();
    match recorded {
        0 => {
            tx.rollback().unwrap();
            false
        }
        _ => {
            tx.commit().unwrap();
            true
        }
    }
}

fn body_of(c: &Connection, id: &str) -> Vec<u8> {
    c.query_row(schema::BODY_OF_EVENT, params![id], |r| r.get(2))
        .unwrap()
}

#[test]
fn a_new_id_is_recorded_and_finds_the_body_kept_just_before_it() {
    let mut c = entity();
    assert!(apply_unread(&mut c, "evt_1", "applied", b"first"));
    assert_eq!(body_of(&c, "evt_1"), b"first");
    assert!(apply_unread(&mut c, "evt_2", "applied", b"second"));
    assert_eq!(body_of(&c, "evt_2"), b"second");
}

#[test]
fn a_recorded_id_writes_nothing_and_its_unit_keeps_no_body() {
    let mut c = entity();
    assert!(apply_unread(&mut c, "evt_1", "applied", b"first"));
    assert!(!apply_unread(&mut c, "evt_1", "applied", b"second copy"));
    assert_eq!(count(&c, "raw_bodies"), 1, "the undone unit kept no body");
    assert_eq!(count(&c, "events"), 1);
    assert_eq!(body_of(&c, "evt_1"), b"first");
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
