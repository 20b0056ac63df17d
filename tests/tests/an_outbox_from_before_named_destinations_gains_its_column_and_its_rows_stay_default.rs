//! An object whose outbox (a table, or the placeholder view) was made before destinations
//! had names is upgraded by its constructor (`schema::open`, run natively here on the
//! SQLite that workerd embeds): the table gains `dest_name`, its rows keep NULL (the
//! destination `default`, as a migrated `forward` is named), the view is made again with
//! the column, and the next start finds the object current.

#[path = "../../edge/src/store/schema.rs"]
#[allow(dead_code, unreachable_pub)]
mod schema;

use hookonce_e2e::raw::{first_column, upgrade};
use rusqlite::Connection;
use schema::Open;

/// The outbox as the layout before named destinations made it.
const OUTBOX_BEFORE: &str = "
CREATE TABLE outbox (seq INTEGER PRIMARY KEY, event_id TEXT NOT NULL, source TEXT NOT NULL,
  destination TEXT, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
  enqueued_at INTEGER NOT NULL, first_attempt_at INTEGER, next_attempt_at INTEGER NOT NULL,
  last_result TEXT, done_at INTEGER, body_seq INTEGER);
CREATE INDEX outbox_by_status ON outbox (status, seq);
INSERT INTO outbox (event_id, source, status, enqueued_at, next_attempt_at)
  VALUES ('evt_old', 'cockpit', 'pending', 1, 1);";

/// The placeholder view as the layout before named destinations made it.
const VIEW_BEFORE: &str = "
CREATE VIEW outbox (seq, event_id, source, destination, status, attempts, enqueued_at,
  first_attempt_at, next_attempt_at, last_result, done_at, body_seq)
  AS SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL WHERE 0;";

/// What an entity object's constructor does: open, create, then the steps in one unit.
fn start(c: &mut Connection) -> Open {
    let names = first_column(c, schema::SCHEMA_OBJECTS);
    let open = schema::open(&schema::ENTITY_SCHEMAS, |n| names.iter().any(|x| x == n));
    if let Open::Upgrade(steps) = &open {
        upgrade(c, &schema::ENTITY_SCHEMAS, steps.iter().map(|s| s.sql));
    }
    open
}

fn current(c: &mut Connection) -> Connection {
    let mut fresh = Connection::open_in_memory().unwrap();
    fresh
        .execute_batch(&schema::ENTITY_SCHEMAS.concat())
        .unwrap();
    assert_eq!(start(&mut fresh), Open::Current);
    assert!(matches!(start(c), Open::Upgrade(_)));
    assert_eq!(start(c), Open::Current, "the next start upgrades nothing");
    fresh
}

#[test]
fn an_outbox_table_gains_dest_name_and_its_rows_stay_with_default() {
    let mut c = Connection::open_in_memory().unwrap();
    c.execute_batch(&schema::ENTITY_SCHEMAS.concat()).unwrap();
    c.execute_batch(OUTBOX_BEFORE).unwrap();
    current(&mut c);
    let names = first_column(
        &c,
        "SELECT event_id || ':' || COALESCE(dest_name, 'default') FROM outbox",
    );
    assert_eq!(names, ["evt_old:default"]);
}

#[test]
fn an_outbox_placeholder_view_is_made_again_with_dest_name() {
    let mut c = Connection::open_in_memory().unwrap();
    c.execute_batch(&schema::ENTITY_SCHEMAS.concat()).unwrap();
    c.execute_batch(VIEW_BEFORE).unwrap();
    current(&mut c);
    assert_eq!(
        first_column(&c, "SELECT CAST(COUNT(dest_name) AS TEXT) FROM outbox"),
        ["0"]
    );
    let kind = first_column(&c, "SELECT type FROM sqlite_master WHERE name = 'outbox'");
    assert_eq!(kind, ["view"], "still no table before the first row");
}
