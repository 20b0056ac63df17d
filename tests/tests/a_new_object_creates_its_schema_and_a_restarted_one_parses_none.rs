//! What an object's constructor does with its storage (`schema::open`, run natively here
//! on the SQLite that workerd embeds): a new object creates the schema and reads nothing
//! else (it holds no rows, so it has no alarm); a restarted one with the current schema
//! creates nothing, whether or not a read made its placeholder views; one whose layout
//! lacks a table, or kept bodies the earlier way, is upgraded.

#[path = "../../edge/src/store/schema.rs"]
#[allow(dead_code, unreachable_pub)]
mod schema;

use hookonce_e2e::raw::first_column;
use rusqlite::Connection;
use schema::Open;

/// An entity object's, as `EntityObject::new` opens it.
const SCHEMAS: [&str; 2] = schema::ENTITY_SCHEMAS;

fn open(c: &Connection) -> Open {
    let names = first_column(c, schema::SCHEMA_OBJECTS);
    schema::open(&SCHEMAS, |name| names.iter().any(|n| n == name))
}

#[test]
fn a_new_object_is_fresh_and_once_created_is_current() {
    let c = Connection::open_in_memory().unwrap();
    assert_eq!(open(&c), Open::Fresh);
    c.execute_batch(&SCHEMAS.concat()).unwrap();
    assert_eq!(open(&c), Open::Current, "a restart creates nothing");
    c.execute_batch(schema::PLACEHOLDERS).unwrap();
    assert_eq!(open(&c), Open::Current, "nor with the views a read made");
    c.execute_batch(schema::EVENT_ROWS_SCHEMA).unwrap();
    assert_eq!(
        open(&c),
        Open::Current,
        "nor with the event_rows view a second event made"
    );
}

#[test]
fn every_table_of_the_schema_is_required_to_be_current() {
    for (kind, missing) in [
        ("TABLE", "events"),
        ("TABLE", "entity"),
        ("TABLE", "raw_bodies"),
    ] {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(&SCHEMAS.concat()).unwrap();
        c.execute_batch(&format!("DROP {kind} {missing}")).unwrap();
        assert_eq!(open(&c), Open::Upgrade(Vec::new()), "without {missing}");
        // What the constructor then runs creates it again.
        c.execute_batch(&SCHEMAS.concat()).unwrap();
        assert_eq!(open(&c), Open::Current, "{missing} created again");
    }
}

#[test]
fn an_object_that_kept_bodies_the_earlier_way_is_upgraded_with_the_move() {
    let c = Connection::open_in_memory().unwrap();
    c.execute_batch(
        "CREATE TABLE events (event_id TEXT PRIMARY KEY, event_type TEXT NOT NULL,
           outcome TEXT NOT NULL, created_at INTEGER, processed_at INTEGER NOT NULL) WITHOUT ROWID;
         CREATE TABLE bodies (event_id TEXT PRIMARY KEY, source TEXT NOT NULL,
           headers TEXT NOT NULL, body BLOB NOT NULL) WITHOUT ROWID;",
    )
    .unwrap();
    match open(&c) {
        Open::Upgrade(steps) => assert!(
            steps.iter().any(|s| s.sql.contains("DROP TABLE bodies")),
            "{steps:?}"
        ),
        other => panic!("{other:?}"),
    }
}
