//! An entity object's ledger, claim and outbox hold no page until the first write to each
//! (`schema::PLACEHOLDERS`, `Optional::materialise`, run natively here on the SQLite that
//! workerd embeds): a new object names none of them, a read finds their placeholder views
//! empty, the write finds the table, and an object made before them keeps its tables.

#[path = "../../edge/src/store/schema.rs"]
#[allow(dead_code, unreachable_pub)]
mod schema;

use hookonce_e2e::raw::first_column;
use rusqlite::{params, Connection};
use schema::{Optional, Views};

/// An entity object's schema, as `EntityObject::new` creates it.
fn new_object() -> Connection {
    let c = Connection::open_in_memory().unwrap();
    c.execute_batch(&schema::ENTITY_SCHEMAS.concat()).unwrap();
    c
}

/// What `EntityObject::readable` runs before the object's first read of the three.
fn readable(c: &Connection) {
    c.execute_batch(schema::PLACEHOLDERS).unwrap();
}

/// A new object after its first such read.
fn read_object() -> Connection {
    let c = new_object();
    readable(&c);
    c
}

/// What `store::entity`'s `materialise` runs before an object's first write to `table`.
fn materialise(c: &Connection, table: Optional) {
    let [drop_view, create_table] = table.materialise();
    let view = c
        .prepare(schema::IS_VIEW)
        .unwrap()
        .exists(params![table.name()])
        .unwrap();
    if view {
        c.execute_batch(drop_view).unwrap();
    }
    c.execute_batch(create_table).unwrap();
}

/// [`kinds`] once the three are tables.
const MADE: [&str; 4] = [
    "table claim",
    "table ledger",
    "table outbox",
    "index outbox_by_status",
];

fn pages(c: &Connection) -> i64 {
    c.query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap()
}

fn kinds(c: &Connection) -> Vec<String> {
    first_column(
        c,
        "SELECT type || ' ' || name FROM sqlite_master WHERE name IN
           ('ledger', 'claim', 'outbox', 'outbox_by_status') ORDER BY name",
    )
}

fn tables(c: &Connection) -> Vec<String> {
    first_column(c, "SELECT name FROM sqlite_master WHERE type = 'table'")
}

#[test]
fn a_new_object_holds_a_page_per_table_it_uses_and_names_none_of_the_three() {
    let c = new_object();
    // sqlite_master, events, entity, raw_bodies.
    assert_eq!(pages(&c), 4);
    assert!(kinds(&c).is_empty(), "{:?}", kinds(&c));
    let names = first_column(&c, "SELECT name FROM sqlite_master");
    assert_eq!(Views::except(names.iter().map(String::as_str)), Views::ALL);

    // A read that needs them makes their views: no page, and they read as empty tables.
    readable(&c);
    assert_eq!(pages(&c), 4);
    assert_eq!(kinds(&c), ["view claim", "view ledger", "view outbox"]);
    let found: i64 = c
        .query_row(
            "SELECT (SELECT COUNT(*) FROM ledger) + (SELECT COUNT(*) FROM claim)
                    + (SELECT COUNT(*) FROM outbox WHERE status = 'pending')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(found, 0);
    assert_eq!(
        Views::except(tables(&c).iter().map(String::as_str)),
        Views::ALL
    );
    // Once named, a second read changes nothing.
    readable(&c);
    assert_eq!(kinds(&c), ["view claim", "view ledger", "view outbox"]);
}

#[test]
fn the_first_write_makes_the_table_and_making_it_again_changes_nothing() {
    // A write before any read: no view to replace.
    let unread = new_object();
    for table in Optional::ALL {
        materialise(&unread, table);
    }
    assert_eq!(kinds(&unread), MADE);
    assert_eq!(pages(&unread), 8);

    let c = read_object();
    let refused = c.execute("INSERT INTO ledger VALUES ('evt_1', 250, 1)", []);
    assert!(refused.is_err(), "a view takes no write: {refused:?}");
    for table in Optional::ALL {
        materialise(&c, table);
    }
    assert_eq!(kinds(&c), MADE);
    assert_eq!(
        pages(&c),
        8,
        "one page each for the three tables and the index"
    );
    c.execute(
        "INSERT INTO ledger VALUES (?1, ?2, ?3)",
        params!["evt_1", 250, 1],
    )
    .unwrap();
    materialise(&c, Optional::Ledger);
    let amount: i64 = c
        .query_row("SELECT amount FROM ledger", [], |r| r.get(0))
        .unwrap();
    assert_eq!(amount, 250, "the table and its row stay");
    assert_eq!(
        Views::except(tables(&c).iter().map(String::as_str)),
        Views::default(),
        "no view left"
    );
}

#[test]
fn an_object_made_before_the_placeholders_keeps_its_tables() {
    let c = Connection::open_in_memory().unwrap();
    // The tables as the previous schema made them, with a ledger row.
    c.execute_batch(
        &[
            schema::ENTITY_SCHEMA,
            schema::BODIES_SCHEMA,
            schema::LEDGER_SCHEMA,
            schema::CLAIM_SCHEMA,
            schema::QUEUE_SCHEMA,
        ]
        .concat(),
    )
    .unwrap();
    c.execute("INSERT INTO ledger VALUES ('evt_1', 250, 1)", [])
        .unwrap();
    readable(&c);
    // An object that could not read its schema makes each table before its first write.
    for table in Optional::ALL {
        materialise(&c, table);
    }
    assert_eq!(kinds(&c), MADE);
    let views = Views::except(tables(&c).iter().map(String::as_str));
    assert!(Optional::ALL.iter().all(|t| !views.has(*t)), "{views:?}");
    let rows: i64 = c
        .query_row("SELECT COUNT(*) FROM ledger", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 1);
}

#[test]
fn each_placeholder_has_the_columns_of_its_table_in_order() {
    let views = read_object();
    let tables = new_object();
    for table in Optional::ALL {
        materialise(&tables, table);
    }
    let columns = |c: &Connection, name: &str| {
        first_column(
            c,
            &format!("SELECT name FROM pragma_table_info('{name}') ORDER BY cid"),
        )
    };
    for table in Optional::ALL {
        let (view, made) = (
            columns(&views, table.name()),
            columns(&tables, table.name()),
        );
        assert!(!made.is_empty(), "{}", table.name());
        assert_eq!(view, made, "{}: the view reads as the table", table.name());
    }
}
