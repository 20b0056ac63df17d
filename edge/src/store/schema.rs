//! The objects' SQLite schema and the one-time move of bodies kept by earlier layouts.
//! Plain text, no dependencies: the migration test runs it natively against SQLite.

/// An entity's own tables: processed ids and snapshot. Its ledger, claim and outbox are
/// made when it needs them ([`PLACEHOLDERS`], [`Optional::materialise`]).
pub const ENTITY_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS events (
  event_id      TEXT PRIMARY KEY,
  event_type    TEXT NOT NULL,
  outcome       TEXT NOT NULL,      -- decide::Outcome
  created_at    INTEGER,            -- the event's own time, unix seconds
  processed_at  INTEGER NOT NULL,   -- when hookonce decided, unix seconds
  body_seq      INTEGER             -- raw_bodies.seq of its kept body, if one was kept
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS entity (
  id            INTEGER PRIMARY KEY CHECK (id = 1),
  state         TEXT NOT NULL,
  version_secs  INTEGER NOT NULL,
  version_nanos INTEGER NOT NULL,
  version_event TEXT NOT NULL,
  updated_at    INTEGER NOT NULL
);
";

/// Kept bodies, in entity and key objects alike.
///
/// Bodies live in a rowid table, packed (core's `pack`): in a `WITHOUT ROWID` table a
/// 1 KiB body spilled into an overflow page of its own, 4.6 KB per body measured. They
/// have no index: the record and the outbox row of an event hold its `seq`, written in
/// the same transaction as the body ([`INSERT_RECORD`], [`INSERT_OUTBOX`]), and every lookup also matches
/// `event_id`, so a `seq` that SQLite hands out again after the newest bodies were pruned
/// never finds another event's body.
pub const BODIES_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS raw_bodies (
  seq      INTEGER PRIMARY KEY,     -- arrival order: pruning walks it oldest first
  event_id TEXT NOT NULL,
  codec    INTEGER NOT NULL,        -- packing::Codec
  headers  TEXT,                    -- JSON; NULL when the event id is all a replay needs
  body     BLOB NOT NULL,
  kept_at  INTEGER NOT NULL         -- unix seconds
);
";

/// The outbox queue. Its `(status, seq)` index finds the head without scanning delivered
/// rows.
pub const QUEUE_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS outbox (
  seq              INTEGER PRIMARY KEY,
  event_id         TEXT NOT NULL,
  source           TEXT NOT NULL,
  destination      TEXT,            -- a published message's own URL; NULL: a source's
  status           TEXT NOT NULL,   -- outbox::OutboxStatus
  attempts         INTEGER NOT NULL DEFAULT 0,
  enqueued_at      INTEGER NOT NULL,
  first_attempt_at INTEGER,
  next_attempt_at  INTEGER NOT NULL,
  last_result      TEXT,
  done_at          INTEGER,
  body_seq         INTEGER,         -- raw_bodies.seq of the body it sends
  dest_name        TEXT             -- the source's destination; NULL: `default`
);
CREATE INDEX IF NOT EXISTS outbox_by_status ON outbox (status, seq);
";

/// The ledger: one row per event that moved an amount.
pub const LEDGER_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS ledger (
  event_id    TEXT PRIMARY KEY,     -- the unique constraint that survives a cleared events table
  amount      INTEGER NOT NULL,
  recorded_at INTEGER NOT NULL
) WITHOUT ROWID;
";

/// The synchronous-forwarding claim: one row once the entity was claimed.
pub const CLAIM_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS claim (
  id           INTEGER PRIMARY KEY CHECK (id = 1),
  holder       TEXT,                -- the event being forwarded synchronously, if any
  until        INTEGER,             -- its lease, unix seconds
  newest_secs  INTEGER,             -- the newest version ever claimed
  newest_nanos INTEGER,
  newest_event TEXT
);
";

/// The outbox's placeholder view ([`PLACEHOLDERS`]).
macro_rules! outbox_view {
    () => {
        "CREATE VIEW IF NOT EXISTS outbox (seq, event_id, source, destination, status, attempts,
  enqueued_at, first_attempt_at, next_attempt_at, last_result, done_at, body_seq, dest_name)
  AS SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL WHERE 0;"
    };
}

/// An entity object's ledger, claim and outbox until it first writes to one: an empty
/// table holds a 4 KiB page of its own, and most entities never use these three (a ledger
/// source uses only the ledger, synchronous forwarding only the claim, asynchronous only
/// the outbox). A view of the same name and columns that selects nothing costs no page,
/// and every read of the table reads it unchanged. A new object does not make them: the
/// three `CREATE VIEW`s cost as much SQLite time as its two tables and `raw_bodies` (87
/// against 89 µs natively), and a delivery of a plain snapshot never reads them. The
/// object makes them before its first read that needs them, and [`Optional::materialise`]
/// makes the table, replacing the view if there is one, in the transaction of the first
/// write.
pub const PLACEHOLDERS: &str = concat!(
    "
CREATE VIEW IF NOT EXISTS ledger (event_id, amount, recorded_at)
  AS SELECT NULL, NULL, NULL WHERE 0;
CREATE VIEW IF NOT EXISTS claim (id, holder, until, newest_secs, newest_nanos, newest_event)
  AS SELECT NULL, NULL, NULL, NULL, NULL, NULL WHERE 0;
",
    outbox_view!(),
    "
"
);

/// A row when the name bound as `?1` is a view, none otherwise.
pub const IS_VIEW: &str = "SELECT 1 FROM sqlite_master WHERE type = 'view' AND name = ?1";

/// A table an entity object creates on its first write to it ([`PLACEHOLDERS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Optional {
    Ledger,
    Claim,
    Outbox,
}

impl Optional {
    pub const ALL: [Optional; 3] = [Optional::Ledger, Optional::Claim, Optional::Outbox];

    /// Its name, the view's and the table's.
    pub fn name(self) -> &'static str {
        match self {
            Optional::Ledger => "ledger",
            Optional::Claim => "claim",
            Optional::Outbox => "outbox",
        }
    }

    /// The statement that drops the placeholder view, while [`IS_VIEW`] finds it (SQLite
    /// refuses `DROP VIEW` for a table, even with `IF EXISTS`), and the one that creates
    /// the table (and its index) if it is missing.
    pub fn materialise(self) -> [&'static str; 2] {
        match self {
            Optional::Ledger => ["DROP VIEW ledger", LEDGER_SCHEMA],
            Optional::Claim => ["DROP VIEW claim", CLAIM_SCHEMA],
            Optional::Outbox => ["DROP VIEW outbox", QUEUE_SCHEMA],
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// A set of an entity object's [`Optional`] tables: those that are not tables yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Views(u8);

impl Views {
    /// All three: a new object's, or when the schema could not be read (materialising a
    /// table that is already there changes nothing).
    pub const ALL: Views = Views(0b111);

    /// Every [`Optional`] table not among `names`.
    pub fn except<'a>(names: impl IntoIterator<Item = &'a str>) -> Views {
        names.into_iter().fold(Views::ALL, |views, name| {
            match Optional::ALL.iter().find(|t| t.name() == name) {
                Some(t) => views.without(*t),
                None => views,
            }
        })
    }

    pub fn has(self, table: Optional) -> bool {
        self.0 & table.bit() != 0
    }

    pub fn without(self, table: Optional) -> Views {
        Views(self.0 & !table.bit())
    }
}

/// The `seq` of the body just kept for the event `$id` names: the newest body row, if it
/// is that event's. Core writes an event's body before its record and outbox row.
macro_rules! newest_body_of {
    ($id:literal) => {
        concat!(
            "(SELECT seq FROM raw_bodies WHERE seq = (SELECT MAX(seq) FROM raw_bodies) AND event_id = ",
            $id,
            ")"
        )
    };
}

/// Core's `Write::Snapshot`, from the row `$row` selects: one upsert of the one row.
macro_rules! upsert_snapshot {
    ($row:literal) => {
        concat!(
            "INSERT INTO entity (id, state, version_secs, version_nanos, version_event, updated_at) ",
            $row,
            " ON CONFLICT (id) DO UPDATE SET state = excluded.state,
               version_secs = excluded.version_secs, version_nanos = excluded.version_nanos,
               version_event = excluded.version_event, updated_at = excluded.updated_at"
        )
    };
}

/// Core's `Write::Snapshot`: `?1`–`?5` are the state, its version (seconds, nanoseconds,
/// event id) and now.
pub const UPSERT_SNAPSHOT: &str = upsert_snapshot!("VALUES (1, ?1, ?2, ?3, ?4, ?5)");

/// An event's usual writes as one statement: an `INSERT` into the view `event_rows` runs
/// its trigger, which keeps the body (if `body` is not NULL), writes the record and
/// replaces the snapshot (if `state` is not NULL), in core's order. SQLite undoes a whole
/// statement that fails, so these need no `transactionSync`, whose `SAVEPOINT` and
/// `RELEASE` the runtime prepares anew on every call. `guarded` is
/// [`INSERT_RECORD_UNSEEN`]'s test: if set and the id is recorded, nothing is written.
/// Entity objects only, and not a new one's: an entity object makes it before its second
/// event's rows (`store::entity`'s `EventRowsView`), since its two statements cost about 250 µs.
pub const EVENT_ROWS_SCHEMA: &str = concat!(
    "
CREATE VIEW IF NOT EXISTS event_rows (event_id, event_type, outcome, created_at, now, codec,
  headers, body, state, version_secs, version_nanos, guarded)
  AS SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL WHERE 0;
CREATE TRIGGER IF NOT EXISTS event_rows_write INSTEAD OF INSERT ON event_rows BEGIN
  SELECT RAISE(IGNORE)
    WHERE NEW.guarded AND EXISTS (SELECT 1 FROM events WHERE event_id = NEW.event_id);
  INSERT INTO raw_bodies (event_id, codec, headers, body, kept_at)
    SELECT NEW.event_id, NEW.codec, NEW.headers, NEW.body, NEW.now WHERE NEW.body IS NOT NULL;
  INSERT INTO events (event_id, event_type, outcome, created_at, processed_at, body_seq)
    VALUES (NEW.event_id, NEW.event_type, NEW.outcome, NEW.created_at, NEW.now, ",
    newest_body_of!("NEW.event_id"),
    ");
  ",
    upsert_snapshot!(
        "SELECT 1, NEW.state, NEW.version_secs, NEW.version_nanos, NEW.event_id, NEW.now
    WHERE NEW.state IS NOT NULL"
    ),
    ";
END;
"
);

/// The trigger [`EVENT_ROWS_SCHEMA`] makes last: where it is, the view works.
pub const EVENT_ROWS_TRIGGER: &str = "event_rows_write";

/// An entity object's schemas, in the order its constructor creates them.
pub const ENTITY_SCHEMAS: [&str; 2] = [ENTITY_SCHEMA, BODIES_SCHEMA];

/// [`EVENT_ROWS_SCHEMA`]'s statement: `?1`–`?11` are the id, type, outcome, created_at,
/// now, the body's codec, headers and packed bytes (NULL: no body), and the state and its
/// version's seconds and nanoseconds (NULL: no snapshot); the snapshot's version is the
/// event's own.
macro_rules! insert_event_rows {
    ($guarded:literal) => {
        concat!(
            "INSERT INTO event_rows (event_id, event_type, outcome, created_at, now, codec,
               headers, body, state, version_secs, version_nanos, guarded)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ",
            $guarded,
            ")"
        )
    };
}

/// [`EVENT_ROWS_SCHEMA`]'s statement, as [`INSERT_RECORD`] writes the record.
pub const INSERT_EVENT_ROWS: &str = insert_event_rows!("0");

/// [`EVENT_ROWS_SCHEMA`]'s statement, as [`INSERT_RECORD_UNSEEN`] writes the record: it
/// writes nothing if the id is recorded.
pub const INSERT_EVENT_ROWS_UNSEEN: &str = insert_event_rows!("1");

/// Core's `Write::Record`: `?1`–`?5` are the id, type, outcome, created_at and now.
pub const INSERT_RECORD: &str = concat!(
    "INSERT INTO events (event_id, event_type, outcome, created_at, processed_at, body_seq)
     VALUES (?1, ?2, ?3, ?4, ?5, ",
    newest_body_of!("?1"),
    ")"
);

/// [`INSERT_RECORD`] in a decision made without reading the id (core's `decide_unread`):
/// it writes nothing if the id is recorded. The insert finds the key's place anyway, so
/// the test costs no lookup of its own.
pub const INSERT_RECORD_UNSEEN: &str = concat!(
    "INSERT INTO events (event_id, event_type, outcome, created_at, processed_at, body_seq)
     VALUES (?1, ?2, ?3, ?4, ?5, ",
    newest_body_of!("?1"),
    ") ON CONFLICT (event_id) DO NOTHING"
);

/// A kept body: `?1`–`?5` are the event id, codec, headers, packed bytes and now.
pub const INSERT_BODY: &str = "INSERT INTO raw_bodies (event_id, codec, headers, body, kept_at)
     VALUES (?1, ?2, ?3, ?4, ?5)";

/// A pending outbox row, due now, sending the body just kept: `?1`–`?6` are the event id,
/// source, own URL, status, now and destination name.
pub const INSERT_OUTBOX: &str = concat!(
    "INSERT INTO outbox (event_id, source, destination, status, enqueued_at, next_attempt_at,
       dest_name, body_seq) VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ",
    newest_body_of!("?1"),
    ")"
);

/// The stored body of the event bound as `?1`, through its record.
pub const BODY_OF_EVENT: &str = "SELECT b.codec, b.headers, b.body
     FROM events e JOIN raw_bodies b ON b.seq = e.body_seq AND b.event_id = e.event_id
     WHERE e.event_id = ?1";

/// A bucket object's count of buckets and when its source's buckets were made (bucket 0's
/// first event), recorded with its first event: a source whose `buckets` changed would
/// send a recorded id to another bucket, so a count that differs from the recorded one is
/// refused as a configuration problem; `since` bounds the look-ups in per-event objects.
pub const BUCKET_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS bucket (
  id    INTEGER PRIMARY KEY CHECK (id = 1),
  count INTEGER NOT NULL,
  since INTEGER NOT NULL
);
";

/// Every table, index, view and trigger an object's storage holds, one row each (`name`, `type`),
/// for [`open`] and [`Views::except`]; and an outbox made before `dest_name`, as
/// [`OUTBOX_TABLE_WITHOUT_DEST`] or [`OUTBOX_VIEW_WITHOUT_DEST`] (kind `old`), for [`migration`].
pub const SCHEMA_OBJECTS: &str =
    "SELECT name, type AS kind FROM sqlite_master WHERE type IN ('table', 'index', 'view', 'trigger')
     UNION ALL SELECT 'outbox ' || type || ' without dest_name', 'old' FROM sqlite_master
       WHERE name = 'outbox' AND type IN ('table', 'view') AND sql NOT LIKE '%dest_name%'";

/// [`SCHEMA_OBJECTS`]'s name for an outbox table made before `dest_name`.
pub const OUTBOX_TABLE_WITHOUT_DEST: &str = "outbox table without dest_name";
/// [`SCHEMA_OBJECTS`]'s name for an outbox placeholder view made before `dest_name`.
pub const OUTBOX_VIEW_WITHOUT_DEST: &str = "outbox view without dest_name";

/// What an object's constructor does with its storage, from what [`open`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Open {
    /// A new object: create the schema. It holds no rows, so it has no alarm either.
    Fresh,
    /// Every table and index of the schema is there, and no earlier layout's: nothing to
    /// create or move, so a restart parses no DDL.
    Current,
    /// Create what is missing, then run these steps of [`migration`] in one transaction.
    Upgrade(Vec<Step>),
}

/// Decides [`Open`] for `schemas` (statement lists of `CREATE … IF NOT EXISTS name`), given
/// which names [`SCHEMA_OBJECTS`] listed.
pub fn open(schemas: &[&str], has: impl Fn(&str) -> bool) -> Open {
    let created: Vec<&str> = schemas.iter().flat_map(|s| created_names(s)).collect();
    // No steps: no earlier layout's body table either.
    let steps = migration(&has);
    if steps.is_empty() && !created.iter().any(|n| has(n)) {
        return Open::Fresh;
    }
    if steps.is_empty() && created.iter().all(|n| has(n)) {
        return Open::Current;
    }
    Open::Upgrade(steps)
}

/// The names a statement list creates: the word after each `IF NOT EXISTS`.
fn created_names(schema: &str) -> impl Iterator<Item = &str> {
    schema.split("IF NOT EXISTS").skip(1).filter_map(|rest| {
        rest.split(|c: char| c.is_whitespace() || c == '(')
            .find(|w| !w.is_empty())
    })
}

/// One statement of [`migration`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The SQL.
    pub sql: &'static str,
    /// Whether it takes now, in unix seconds, as `?1`: when `bodies` (which kept no
    /// time) are deemed kept.
    pub binds_now: bool,
}

/// The statements that move an object's bodies from the earlier layouts into
/// `raw_bodies` (stored raw: codec 0) and link its records and outbox rows to them, to be
/// run in one transaction after the current schema was created. `has` tells which tables
/// the object had before; nothing at all when it has neither body table. Before
/// `raw_bodies`, bodies were kept in `bodies` (`WITHOUT ROWID`: each 1 KiB body in an
/// overflow page of its own), then in `kept_bodies` (a unique `event_id` index: one more
/// row written per body); `events` and `outbox` had no `body_seq`. An outbox (or its
/// placeholder view) made before destinations had names gains `dest_name`, and a feed's
/// `dead` table moves into `dead_letters`, whose key names the destination, and its
/// `outbox_rows` into `destination_rows`, likewise.
pub fn migration(has: impl Fn(&str) -> bool) -> Vec<Step> {
    let step = |sql| Step {
        sql,
        binds_now: false,
    };
    let mut steps = bodies_migration(&has);
    // An outbox from before destinations had names: its rows go to `default` (NULL).
    if has(OUTBOX_TABLE_WITHOUT_DEST) {
        steps.push(step("ALTER TABLE outbox ADD COLUMN dest_name TEXT"));
    }
    if has(OUTBOX_VIEW_WITHOUT_DEST) {
        steps.push(step("DROP VIEW outbox"));
        steps.push(step(outbox_view!()));
    }
    // A feed's dead letters from before destinations had names: each is `default`'s.
    if has("dead") {
        steps.push(step(
            "INSERT OR IGNORE INTO dead_letters
               (entity, event_id, destination, attempts, last_result, at)
             SELECT entity, event_id, 'default', attempts, last_result, at FROM dead",
        ));
        steps.push(step("DROP TABLE dead"));
    }
    // A feed's outbox reports from before destinations had names: each is `default`'s.
    if has("outbox_rows") {
        steps.push(step(
            "INSERT OR IGNORE INTO destination_rows
               (object, destination, pending, oldest_pending_at, dead)
             SELECT object, 'default', pending, oldest_pending_at, dead FROM outbox_rows",
        ));
        steps.push(step("DROP TABLE outbox_rows"));
    }
    steps
}

/// [`migration`]'s move of bodies kept by the earlier layouts.
fn bodies_migration(has: impl Fn(&str) -> bool) -> Vec<Step> {
    let (v1, v2) = (has("bodies"), has("kept_bodies"));
    if !v1 && !v2 {
        return Vec::new();
    }
    // The tables were created by the earlier schema, without the link column; the first
    // had no index on the queue either.
    let mut steps = vec![
        "ALTER TABLE outbox ADD COLUMN body_seq INTEGER",
        "CREATE INDEX IF NOT EXISTS outbox_by_status ON outbox (status, seq)",
    ];
    let mut now = None;
    if has("events") {
        steps.push("ALTER TABLE events ADD COLUMN body_seq INTEGER");
    }
    if v2 {
        // Their seq first (arrival order), so the bodies moved after it come later.
        steps.push(
            "INSERT INTO raw_bodies (seq, event_id, codec, headers, body, kept_at)
             SELECT seq, event_id, 0, headers, body, kept_at FROM kept_bodies ORDER BY seq",
        );
        steps.push("DROP TABLE kept_bodies");
    }
    if v1 {
        now = Some(steps.len());
        steps.push(
            "INSERT INTO raw_bodies (event_id, codec, headers, body, kept_at)
             SELECT event_id, 0, headers, body, ?1 FROM bodies WHERE event_id NOT IN
               (SELECT event_id FROM raw_bodies)",
        );
        steps.push("DROP TABLE bodies");
    }
    // An index for the move only: rows in use find their bodies by seq.
    steps.push("CREATE INDEX raw_bodies_moving ON raw_bodies (event_id)");
    if has("events") {
        steps.push(
            "UPDATE events SET body_seq =
               (SELECT MAX(seq) FROM raw_bodies b WHERE b.event_id = events.event_id)",
        );
    }
    steps.push(
        "UPDATE outbox SET body_seq =
           (SELECT MAX(seq) FROM raw_bodies b WHERE b.event_id = outbox.event_id)",
    );
    steps.push("DROP INDEX raw_bodies_moving");
    let step = |(i, sql)| Step {
        sql,
        binds_now: now == Some(i),
    };
    steps.into_iter().enumerate().map(step).collect()
}

/// Step 4's read (the entity store's `stored`): one row whose one column, `row`, is a JSON
/// array: the event's outcome (`?1` is its id), whether the ledger has it, the claim's
/// row, the snapshot's version, the claim's holder, lease and newest version. It names
/// only the tables asked for (`ledger`, `claim`, `version`: core's `Reads`); `NULL` (or
/// `0`) stands for a column not read, so the row keeps one shape.
pub fn stored_query(ledger: bool, claim: bool, version: bool) -> String {
    let pick =
        |on: bool, columns: &'static str, nulls: &'static str| if on { columns } else { nulls };
    format!(
        "SELECT json_array((SELECT outcome FROM events WHERE event_id = ?1), {}, {}, {}, {}) AS row
         FROM (SELECT 1){}{}",
        pick(
            ledger,
            "EXISTS (SELECT 1 FROM ledger WHERE event_id = ?1)",
            "0"
        ),
        pick(claim, "c.id", "NULL"),
        pick(
            version,
            "e.version_secs, e.version_nanos, e.version_event",
            "NULL, NULL, NULL"
        ),
        pick(
            claim,
            "c.holder, c.until, c.newest_secs, c.newest_nanos, c.newest_event",
            "NULL, NULL, NULL, NULL, NULL"
        ),
        pick(version, " LEFT JOIN entity e ON e.id = 1", ""),
        pick(claim, " LEFT JOIN claim c ON c.id = 1", ""),
    )
}
