//! Step 4's read (the entity store's `stored`; its text, `schema::stored_query`, in
//! `edge/src/store/schema.rs`), run natively here on the SQLite that workerd embeds, for each
//! of the eight selections core's `Reads` makes: on a new object's placeholder views it finds
//! nothing, and on real tables it reads back the outcome always and the ledger row, the
//! claim and the snapshot's version each only when asked for.

#[path = "../../edge/src/store/schema.rs"]
#[allow(dead_code, unreachable_pub)]
mod schema;

use hookonce_e2e::raw::sqlite_with;
use rusqlite::{params, Connection};
use serde_json::Value;

const NOW: i64 = 1_791_270_400;

/// Every (ledger, claim, version) selection.
fn selections() -> impl Iterator<Item = (bool, bool, bool)> {
    (0..8).map(|i| (i & 1 != 0, i & 2 != 0, i & 4 != 0))
}

/// The read's one row for `id`, as its JSON array.
fn stored(c: &Connection, (ledger, claim, version): (bool, bool, bool), id: &str) -> Vec<Value> {
    let query = schema::stored_query(ledger, claim, version);
    let row: String = c
        .query_row(&query, params![id], |r| r.get("row"))
        .unwrap_or_else(|e| panic!("{query}: {e}"));
    match serde_json::from_str(&row).unwrap() {
        Value::Array(values) => values,
        other => panic!("not an array: {other}"),
    }
}

#[test]
fn on_a_new_objects_placeholder_views_every_selection_runs_and_finds_nothing() {
    let c = sqlite_with(&schema::ENTITY_SCHEMAS);
    c.execute_batch(schema::PLACEHOLDERS).unwrap();
    for selection in selections() {
        let row = stored(&c, selection, "evt_1");
        assert_eq!(row.len(), 11, "{selection:?}");
        assert_eq!(row[1], Value::from(0), "no ledger row: {selection:?}");
        let others: Vec<_> = row.iter().enumerate().filter(|(i, _)| *i != 1).collect();
        assert!(
            others.iter().all(|(_, v)| v.is_null()),
            "{selection:?}: {row:?}"
        );
    }
}

#[test]
fn on_real_tables_each_selection_reads_what_it_names_and_nothing_else() {
    let c = sqlite_with(&schema::ENTITY_SCHEMAS);
    for table in [schema::Optional::Ledger, schema::Optional::Claim] {
        let [_, create] = table.materialise();
        c.execute_batch(create).unwrap();
    }
    c.execute(
        schema::INSERT_RECORD,
        params!["evt_1", "payment.captured", "applied", 1, NOW],
    )
    .unwrap();
    c.execute(
        "INSERT INTO ledger (event_id, amount, recorded_at) VALUES (?1, ?2, ?3)",
        params!["evt_1", 500, NOW],
    )
    .unwrap();
    c.execute(
        schema::UPSERT_SNAPSHOT,
        params![r#"{"id":"card_1"}"#, 1_791_270_000, 7, "evt_0", NOW],
    )
    .unwrap();
    c.execute(
        "INSERT INTO claim (id, holder, until, newest_secs, newest_nanos, newest_event)
         VALUES (1, 'evt_2', ?1, 1_791_270_100, 0, 'evt_2')",
        params![NOW + 30],
    )
    .unwrap();
    for selection @ (ledger, claim, version) in selections() {
        let row = stored(&c, selection, "evt_1");
        assert_eq!(row[0], Value::from("applied"), "{selection:?}");
        assert_eq!(row[1], Value::from(i64::from(ledger)), "{selection:?}");
        assert_eq!(!row[2].is_null(), claim, "the claim's row: {selection:?}");
        assert_eq!(
            row[3..6].to_vec(),
            match version {
                true => vec![
                    Value::from(1_791_270_000),
                    Value::from(7),
                    Value::from("evt_0")
                ],
                false => vec![Value::Null; 3],
            },
            "{selection:?}"
        );
        assert_eq!(
            row[6..9].to_vec(),
            match claim {
                true => vec![
                    Value::from("evt_2"),
                    Value::from(NOW + 30),
                    Value::from(1_791_270_100)
                ],
                false => vec![Value::Null; 3],
            },
            "{selection:?}"
        );
    }
    // An id never recorded: no outcome, whatever else is read.
    assert!(stored(&c, (true, true, true), "evt_9")[0].is_null());
}
