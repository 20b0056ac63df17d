//! An object created under an earlier layout keeps its bodies: the constructor's move
//! (`edge/src/store/schema.rs`, run natively here on the SQLite that workerd embeds) brings them
//! into `raw_bodies`, and replay and the outbox find each through its event.
//! Also: a `seq` SQLite hands out again after the newest body was pruned never finds
//! another event's body.

#[path = "../../edge/src/store/schema.rs"]
#[allow(dead_code, unreachable_pub)]
mod schema;

use hookonce_e2e::raw::first_column;
use rusqlite::{params, Connection, OptionalExtension};

/// The tables as the first layout created them (3877742): bodies `WITHOUT ROWID`.
const FIRST_LAYOUT: &str = "
CREATE TABLE events (event_id TEXT PRIMARY KEY, event_type TEXT NOT NULL, outcome TEXT NOT NULL,
  created_at INTEGER, processed_at INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE bodies (event_id TEXT PRIMARY KEY, source TEXT NOT NULL, headers TEXT NOT NULL,
  body BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE outbox (seq INTEGER PRIMARY KEY, event_id TEXT NOT NULL, source TEXT NOT NULL,
  destination TEXT, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
  enqueued_at INTEGER NOT NULL, first_attempt_at INTEGER, next_attempt_at INTEGER NOT NULL,
  last_result TEXT, done_at INTEGER);";

/// The second layout (8198f96): a rowid table with a unique event_id index.
const SECOND_LAYOUT: &str = "
CREATE TABLE events (event_id TEXT PRIMARY KEY, event_type TEXT NOT NULL, outcome TEXT NOT NULL,
  created_at INTEGER, processed_at INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE kept_bodies (seq INTEGER PRIMARY KEY, event_id TEXT NOT NULL UNIQUE, headers TEXT,
  body BLOB NOT NULL, kept_at INTEGER NOT NULL);
CREATE TABLE outbox (seq INTEGER PRIMARY KEY, event_id TEXT NOT NULL, source TEXT NOT NULL,
  destination TEXT, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
  enqueued_at INTEGER NOT NULL, first_attempt_at INTEGER, next_attempt_at INTEGER NOT NULL,
  last_result TEXT, done_at INTEGER);
CREATE INDEX outbox_by_status ON outbox (status, seq);";

const NOW: i64 = 1_791_270_400;

/// What the constructor does (`store::sqlite::create`): `schema::open` on the names it finds, then
/// create the current schema and move, in one transaction, unless it is current already.
fn open_with_current_code(c: &mut Connection) {
    let names = first_column(c, schema::SCHEMA_OBJECTS);
    let schemas = schema::ENTITY_SCHEMAS;
    let steps = match schema::open(&schemas, |name| names.iter().any(|n| n == name)) {
        schema::Open::Current => return,
        schema::Open::Fresh => Vec::new(),
        schema::Open::Upgrade(steps) => steps,
    };
    c.execute_batch(&schemas.concat()).unwrap();
    let tx = c.transaction().unwrap();
    for step in steps {
        match step.binds_now {
            true => tx.execute(step.sql, params![NOW]),
            false => tx.execute(step.sql, []),
        }
        .unwrap_or_else(|e| panic!("{}: {e}", step.sql));
    }
    tx.commit().unwrap();
}

/// What a replay reads: (codec, headers, bytes) through the event's record.
fn body_of(c: &Connection, event_id: &str) -> Option<(i64, Option<String>, Vec<u8>)> {
    c.query_row(schema::BODY_OF_EVENT, params![event_id], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
    })
    .optional()
    .unwrap()
}

/// What the outbox head reads: the body its row points at.
fn outbox_body(c: &Connection, event_id: &str) -> Option<Vec<u8>> {
    c.query_row(
        "SELECT b.body FROM outbox o JOIN raw_bodies b ON b.seq = o.body_seq
         AND b.event_id = o.event_id WHERE o.event_id = ?1",
        params![event_id],
        |r| r.get(0),
    )
    .optional()
    .unwrap()
}

fn tables(c: &Connection) -> Vec<String> {
    first_column(
        c,
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY name",
    )
}

fn record(c: &Connection, id: &str) {
    c.execute(
        "INSERT INTO events (event_id, event_type, outcome, created_at, processed_at)
         VALUES (?1, 'item.updated', 'applied', 1, 2)",
        params![id],
    )
    .unwrap();
}

fn pending(c: &Connection, id: &str) {
    c.execute(
        "INSERT INTO outbox (event_id, source, status, enqueued_at, next_attempt_at)
         VALUES (?1, 'cockpit', 'pending', 2, 2)",
        params![id],
    )
    .unwrap();
}

#[test]
fn bodies_of_the_first_layout_are_moved_and_found_by_replay_and_the_outbox() {
    let mut c = Connection::open_in_memory().unwrap();
    c.execute_batch(FIRST_LAYOUT).unwrap();
    for id in ["evt_a", "evt_b"] {
        record(&c, id);
        c.execute(
            "INSERT INTO bodies VALUES (?1, 'cockpit', '{\"webhook-id\":\"msg_1\"}', ?2)",
            params![id, format!("body of {id}").into_bytes()],
        )
        .unwrap();
    }
    pending(&c, "evt_b");

    open_with_current_code(&mut c);

    let (codec, headers, bytes) = body_of(&c, "evt_a").expect("evt_a's body was lost");
    assert_eq!((codec, bytes.as_slice()), (0, b"body of evt_a".as_slice()));
    assert_eq!(headers.as_deref(), Some("{\"webhook-id\":\"msg_1\"}"));
    assert_eq!(
        outbox_body(&c, "evt_b").as_deref(),
        Some(b"body of evt_b".as_slice())
    );
    let kept_at: i64 = c
        .query_row("SELECT MIN(kept_at) FROM raw_bodies", [], |r| r.get(0))
        .unwrap();
    assert_eq!(
        kept_at, NOW,
        "bodies kept no time: they count from the move"
    );
    assert!(!tables(&c)
        .iter()
        .any(|t| t == "bodies" || t == "raw_bodies_moving"));
}

#[test]
fn bodies_of_the_second_layout_keep_their_order_and_time() {
    let mut c = Connection::open_in_memory().unwrap();
    c.execute_batch(SECOND_LAYOUT).unwrap();
    for (seq, id) in [(5, "evt_old"), (9, "evt_new")] {
        record(&c, id);
        c.execute(
            "INSERT INTO kept_bodies VALUES (?1, ?2, NULL, ?3, ?4)",
            params![seq, id, id.as_bytes(), 100 + seq],
        )
        .unwrap();
    }
    pending(&c, "evt_new");

    open_with_current_code(&mut c);

    assert_eq!(
        body_of(&c, "evt_old").map(|b| b.2),
        Some(b"evt_old".to_vec())
    );
    assert_eq!(outbox_body(&c, "evt_new"), Some(b"evt_new".to_vec()));
    let rows: Vec<(i64, i64)> = c
        .prepare("SELECT seq, kept_at FROM raw_bodies ORDER BY seq")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(rows, vec![(5, 105), (9, 109)]);
    assert!(!tables(&c).iter().any(|t| t.starts_with("kept_bodies")));

    // A second start moves nothing and fails on nothing.
    open_with_current_code(&mut c);
    assert_eq!(
        body_of(&c, "evt_new").map(|b| b.2),
        Some(b"evt_new".to_vec())
    );
}

#[test]
fn a_new_object_writes_one_row_per_body_and_a_reused_seq_finds_no_other_events_body() {
    let mut c = Connection::open_in_memory().unwrap();
    open_with_current_code(&mut c);
    // What the object's first enqueue does first: a new object has no view to replace.
    let [_, create_table] = schema::Optional::Outbox.materialise();
    c.execute_batch(create_table).unwrap();
    assert!(
        !tables(&c)
            .iter()
            .any(|t| t.contains("bodies") && t != "raw_bodies"),
        "no index on bodies: {:?}",
        tables(&c)
    );
    let keep = |c: &Connection, id: &str| {
        c.execute(
            schema::INSERT_BODY,
            params![id, 0, None::<String>, id.as_bytes(), NOW],
        )
        .unwrap();
        c.execute(schema::INSERT_RECORD, params![id, "t", "applied", 1, NOW])
            .unwrap();
        c.execute(
            schema::INSERT_OUTBOX,
            params![
                id,
                "cockpit",
                None::<String>,
                "pending",
                NOW,
                None::<String>
            ],
        )
        .unwrap();
    };
    keep(&c, "evt_1");
    assert_eq!(body_of(&c, "evt_1").map(|b| b.2), Some(b"evt_1".to_vec()));
    assert_eq!(outbox_body(&c, "evt_1"), Some(b"evt_1".to_vec()));

    // The newest body is pruned; SQLite hands its seq to the next one.
    c.execute("DELETE FROM raw_bodies", []).unwrap();
    keep(&c, "evt_2");
    let seqs: Vec<Option<i64>> = ["evt_1", "evt_2"]
        .iter()
        .map(|id| {
            c.query_row(
                "SELECT body_seq FROM events WHERE event_id = ?1",
                params![id],
                |r| r.get(0),
            )
            .unwrap()
        })
        .collect();
    assert_eq!(
        seqs[0], seqs[1],
        "the seq was reused, as this test means to check"
    );
    assert_eq!(body_of(&c, "evt_1"), None, "a pruned body stays gone");
    assert_eq!(outbox_body(&c, "evt_1"), None);
    assert_eq!(body_of(&c, "evt_2").map(|b| b.2), Some(b"evt_2".to_vec()));

    // A record written without a body just before it links to none.
    c.execute(
        schema::INSERT_RECORD,
        params!["evt_3", "t", "stale", 1, NOW],
    )
    .unwrap();
    assert_eq!(body_of(&c, "evt_3"), None);
}
