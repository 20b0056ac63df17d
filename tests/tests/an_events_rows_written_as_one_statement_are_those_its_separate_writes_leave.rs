//! An event's usual writes (kept body, record, snapshot) go to SQLite as one statement, an
//! insert into the `event_rows` view whose trigger writes them (`edge/src/store/schema.rs`, run
//! natively here on the SQLite that workerd embeds), so they need no transaction. Each
//! shape leaves the tables exactly as the three separate statements do; a guarded insert of
//! a recorded id writes nothing; and a failing step undoes the steps before it.

#[path = "../../edge/src/store/schema.rs"]
#[allow(dead_code, unreachable_pub)]
mod schema;

use hookonce_e2e::raw::{count, sqlite_with};
use rusqlite::types::Value;
use rusqlite::{params, Connection};

const NOW: i64 = 1_791_270_400;

/// An entity object's storage once it made the view, before its second event's rows.
fn entity() -> Connection {
    let c = sqlite_with(&schema::ENTITY_SCHEMAS);
    c.execute_batch(schema::EVENT_ROWS_SCHEMA).unwrap();
    c
}

/// One event's writes: its id, and, if they are written, its body and its state.
struct Event<'a> {
    id: &'a str,
    body: Option<&'a [u8]>,
    state: Option<&'a str>,
}

impl Event<'_> {
    fn created_at(&self) -> i64 {
        NOW - 100 + self.id.len() as i64
    }

    /// The oracle: the three statements one per write, as the object ran them in one
    /// transaction before `event_rows`.
    fn write_separately(&self, c: &mut Connection) {
        let tx = c.transaction().unwrap();
        if let Some(body) = self.body {
            tx.execute(schema::INSERT_BODY, params![self.id, 1, "{}", body, NOW])
                .unwrap();
        }
        let created_at = self.created_at();
        tx.execute(
            schema::INSERT_RECORD,
            params![self.id, "card.updated", "applied", created_at, NOW],
        )
        .unwrap();
        if let Some(state) = self.state {
            tx.execute(
                schema::UPSERT_SNAPSHOT,
                params![state, created_at, 7, self.id, NOW],
            )
            .unwrap();
        }
        tx.commit().unwrap();
    }

    /// The one statement, guarded or not; the rows it changed in `events`, the statement's
    /// own count (SQLite's `changes()` leaves out what a trigger writes, so this reads the
    /// table).
    fn write_as_one(&self, c: &Connection, statement: &str) -> rusqlite::Result<i64> {
        let before = count(c, "events");
        c.execute(
            statement,
            params![
                self.id,
                "card.updated",
                "applied",
                self.created_at(),
                NOW,
                self.body.map(|_| 1),
                self.body.map(|_| "{}"),
                self.body,
                self.state,
                self.state.map(|_| self.created_at()),
                self.state.map(|_| 7),
            ],
        )?;
        Ok(count(c, "events") - before)
    }
}

/// Every row of the three tables, in key order.
fn dump(c: &Connection) -> Vec<Vec<Value>> {
    let mut rows = Vec::new();
    for query in [
        "SELECT * FROM raw_bodies ORDER BY seq",
        "SELECT * FROM events ORDER BY event_id",
        "SELECT * FROM entity",
    ] {
        let mut stmt = c.prepare(query).unwrap();
        let columns = stmt.column_count();
        let found = stmt
            .query_map([], |r| (0..columns).map(|i| r.get::<_, Value>(i)).collect())
            .unwrap()
            .map(Result::unwrap);
        rows.extend(found);
        rows.push(vec![Value::Text(format!("end of {query}"))]);
    }
    rows
}

const SHAPES: [Event<'static>; 4] = [
    Event {
        id: "evt_body_state",
        body: Some(b"{\"a\":1}"),
        state: Some("{\"v\":1}"),
    },
    Event {
        id: "evt_body",
        body: Some(b"{\"b\":2}"),
        state: None,
    },
    Event {
        id: "evt_state",
        body: None,
        state: Some("{\"v\":3}"),
    },
    Event {
        id: "evt_body_state_again",
        body: Some(b"{\"d\":4}"),
        state: Some("{\"v\":4}"),
    },
];

#[test]
fn every_shape_leaves_the_rows_the_separate_statements_leave() {
    let (mut oracle, one) = (entity(), entity());
    for (i, event) in SHAPES.iter().enumerate() {
        event.write_separately(&mut oracle);
        let statement = match i % 2 {
            0 => schema::INSERT_EVENT_ROWS,
            _ => schema::INSERT_EVENT_ROWS_UNSEEN,
        };
        assert_eq!(
            event.write_as_one(&one, statement).unwrap(),
            1,
            "{}",
            event.id
        );
        assert_eq!(dump(&one), dump(&oracle), "after {}", event.id);
    }
    // The records found their bodies, and the snapshot is the last event's.
    let body: Vec<u8> = one
        .query_row(schema::BODY_OF_EVENT, params!["evt_body"], |r| r.get(2))
        .unwrap();
    assert_eq!(body, b"{\"b\":2}");
    let state: String = one
        .query_row("SELECT state FROM entity", [], |r| r.get(0))
        .unwrap();
    assert_eq!(state, "{\"v\":4}");
}

#[test]
fn a_guarded_insert_of_a_recorded_id_writes_nothing() {
    let c = entity();
    let first = &SHAPES[0];
    first.write_as_one(&c, schema::INSERT_EVENT_ROWS).unwrap();
    let before = dump(&c);
    let copy = Event {
        body: Some(b"a second copy"),
        state: Some("{\"v\":99}"),
        ..*first
    };
    assert_eq!(
        copy.write_as_one(&c, schema::INSERT_EVENT_ROWS_UNSEEN)
            .unwrap(),
        0
    );
    assert_eq!(dump(&c), before, "no body, record or state from the copy");
}

#[test]
fn a_step_that_fails_undoes_the_steps_before_it() {
    let c = entity();
    let first = &SHAPES[0];
    first.write_as_one(&c, schema::INSERT_EVENT_ROWS).unwrap();
    let before = dump(&c);
    // Unguarded, the record of a recorded id breaks the primary key: after the body step.
    let copy = Event {
        body: Some(b"kept, then undone"),
        state: Some("{\"v\":99}"),
        ..*first
    };
    let err = copy
        .write_as_one(&c, schema::INSERT_EVENT_ROWS)
        .unwrap_err();
    assert!(err.to_string().contains("UNIQUE"), "{err}");
    assert_eq!(dump(&c), before, "the body the statement kept is gone");
}
