//! The gate object's statements (`edge/src/store/gate/statements.rs`, run natively here on
//! the SQLite that workerd embeds): keeping the state writes the one row over the last,
//! nullable instants stay null, and the row reads back column by column as it was kept.

#[path = "../../edge/src/store/gate/statements.rs"]
#[allow(dead_code, unreachable_pub)]
mod statements;

use rusqlite::types::Value as Sql;
use rusqlite::{params, Connection};

type Row = (
    String,
    String,
    Option<i64>,
    String,
    i64,
    Option<i64>,
    i64,
    Option<i64>,
);

fn saved(c: &Connection) -> Option<Row> {
    c.query_row(statements::SAVED, [], |r| {
        Ok((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
            r.get(6)?,
            r.get(7)?,
        ))
    })
    .ok()
}

#[test]
fn keeping_the_state_writes_the_one_row_over_the_last() {
    let c = Connection::open_in_memory().unwrap();
    c.execute_batch(statements::SCHEMA).unwrap();
    // Applied again, as each start of the object does: nothing changes.
    c.execute_batch(statements::SCHEMA).unwrap();
    assert_eq!(saved(&c), None);
    let keep = |paused: Option<i64>, circuit: &str, probe: Option<i64>, healthy: Option<i64>| {
        c.execute(
            statements::KEEP,
            params![
                "cockpit/default",
                "{\"max_in_flight\":10}",
                paused,
                circuit,
                100,
                probe,
                30,
                healthy
            ],
        )
        .unwrap()
    };
    assert_eq!(keep(Some(90), "open", Some(130), None), 1);
    assert_eq!(keep(None, "closed", None, Some(140)), 1);
    assert_eq!(
        saved(&c),
        Some((
            "cockpit/default".into(),
            "{\"max_in_flight\":10}".into(),
            None,
            "closed".into(),
            100,
            None,
            30,
            Some(140)
        ))
    );
    let rows: i64 = c
        .query_row("SELECT count(*) FROM gate", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 1);
    let columns: Vec<String> = c
        .prepare(statements::SAVED)
        .unwrap()
        .column_names()
        .into_iter()
        .map(str::to_owned)
        .collect();
    // store::gate's row struct reads these names, in this order.
    assert_eq!(
        columns,
        [
            "name",
            "settings",
            "paused_since",
            "circuit",
            "since",
            "probe_at",
            "cool_down",
            "healthy_since"
        ]
    );
    let null: Sql = c
        .query_row("SELECT probe_at FROM gate", [], |r| r.get(0))
        .unwrap();
    assert_eq!(null, Sql::Null);
}
