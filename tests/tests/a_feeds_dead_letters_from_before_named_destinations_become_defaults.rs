//! A source's feed object whose dead letters were kept before destinations had names
//! (`dead`, keyed by entity and event) is upgraded by its constructor (`schema::open`, run
//! natively here on the SQLite that workerd embeds): each dead letter moves into
//! `dead_letters` as the destination `default`'s, and so does each object's outbox report
//! (`outbox_rows`) into `destination_rows`; it gains the entity registry a source-wide
//! backfill reads (`seen_entities`); the next start finds it current.

#[path = "../../edge/src/store/schema.rs"]
#[allow(dead_code, unreachable_pub)]
mod schema;

#[path = "../../edge/src/store/feed/statements.rs"]
#[allow(dead_code)]
mod statements;

use hookonce_e2e::raw::{first_column, upgrade};
use rusqlite::Connection;
use schema::Open;

/// What a feed object's constructor does: open, create, then the steps in one unit.
fn start(c: &mut Connection) -> Open {
    let names = first_column(c, schema::SCHEMA_OBJECTS);
    let open = schema::open(&[statements::SCHEMA], |n| names.iter().any(|x| x == n));
    if let Open::Upgrade(steps) = &open {
        upgrade(c, &[statements::SCHEMA], steps.iter().map(|s| s.sql));
    }
    open
}

#[test]
fn each_dead_letter_moves_to_the_default_destination() {
    let mut c = Connection::open_in_memory().unwrap();
    c.execute_batch(
        "CREATE TABLE dead (entity TEXT NOT NULL, event_id TEXT NOT NULL,
           attempts INTEGER NOT NULL, last_result TEXT NOT NULL, at INTEGER NOT NULL,
           PRIMARY KEY (entity, event_id)) WITHOUT ROWID;
         INSERT INTO dead VALUES ('ent_1', 'evt_1', 12, 'http 500: retry window exhausted', 7);
         CREATE TABLE outbox_rows (object TEXT PRIMARY KEY, pending INTEGER NOT NULL,
           oldest_pending_at INTEGER, dead INTEGER NOT NULL) WITHOUT ROWID;
         INSERT INTO outbox_rows VALUES ('s/ent_1', 2, 40, 1);",
    )
    .unwrap();
    assert!(matches!(start(&mut c), Open::Upgrade(_)));
    assert_eq!(
        first_column(
            &c,
            "SELECT entity || ' ' || event_id || ' ' || destination || ' ' || last_result
             FROM dead_letters"
        ),
        ["ent_1 evt_1 default http 500: retry window exhausted"]
    );
    assert_eq!(
        first_column(
            &c,
            "SELECT object || ' ' || destination || ' ' || pending || ' ' || oldest_pending_at
               || ' ' || dead FROM destination_rows"
        ),
        ["s/ent_1 default 2 40 1"]
    );
    let left = first_column(
        &c,
        "SELECT name FROM sqlite_master WHERE name IN ('dead', 'outbox_rows')",
    );
    assert!(left.is_empty(), "the old tables are gone");
    let registry = first_column(
        &c,
        "SELECT name FROM sqlite_master WHERE name LIKE 'seen_entities%' ORDER BY name",
    );
    assert_eq!(
        registry,
        ["seen_entities", "seen_entities_by_time"],
        "and it gains the entity registry"
    );
    assert_eq!(
        start(&mut c),
        Open::Current,
        "the next start upgrades nothing"
    );
}
