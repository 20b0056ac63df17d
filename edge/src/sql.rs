//! The objects' SQLite tables: the schema, the point reads that feed core's decisions, and
//! one statement per command core returns. Every status written here comes from core's
//! types, bound as a parameter.

use std::sync::OnceLock;

use hookonce_core::decide::{Claim, Lease, Outcome, Plan, Stored, Write};
use hookonce_core::event::{CreatedAt, Effect, Event, EventId, Version};
use hookonce_core::metrics::OutboxSnapshot;
use hookonce_core::outbox::{Head, Order, OutboxStatus, Transition};
use hookonce_core::packing::{unpack, Packed};
use hookonce_core::retention::{Kept, Prune};
use hookonce_core::time::UnixSeconds;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use worker::{js_sys, SqlStorage, State};

use crate::rows::{row, ReadRows, Row};
use crate::schema::{
    self, Open, BODY_OF_EVENT, EVENT_ROWS_TRIGGER, INSERT_BODY, INSERT_EVENT_ROWS,
    INSERT_EVENT_ROWS_UNSEEN, INSERT_OUTBOX, INSERT_RECORD, INSERT_RECORD_UNSEEN, IS_VIEW,
    SCHEMA_OBJECTS, UPSERT_SNAPSHOT,
};
pub use crate::schema::{
    Optional, Views, BODIES_SCHEMA, ENTITY_SCHEMAS, EVENT_ROWS_SCHEMA, PLACEHOLDERS, QUEUE_SCHEMA,
};

/// What [`create`] found.
pub struct Opened {
    /// The object is new: it holds no rows, so it has no alarm either.
    pub fresh: bool,
    /// Which of an entity object's optional tables are not tables yet (placeholder views,
    /// or nothing at all): each is made before the first write to it.
    pub views: Views,
    /// Whether each of them has a name, view or table, so that a read finds it; if not,
    /// [`PLACEHOLDERS`] makes the missing views before one.
    pub named: bool,
    /// An entity object's `event_rows` view and its trigger are there
    /// ([`EVENT_ROWS_SCHEMA`]).
    pub event_rows: bool,
    /// Its `outbox` is a table, or may be (the schema could not be read): it may hold
    /// pending rows, which its start re-arms for ([`start`]).
    pub queue: bool,
}

impl Opened {
    /// For an object whose storage is left as it is: nothing in it, nothing to re-arm.
    pub const NOTHING: Opened = Opened {
        fresh: true,
        views: Views::ALL,
        named: false,
        event_rows: false,
        queue: false,
    };
}

/// Opens an object's storage for its constructor (`schema::open`): creates `schemas` in a
/// new object, creates what is missing and moves bodies kept under an earlier layout in an
/// older one, and leaves a current one as it is.
pub fn create(state: &State, schemas: &[&str]) -> Opened {
    row! {
        struct Object {
            name: String,
            kind: String,
        }
    }
    let sql = state.storage().sql();
    let unknown = Opened {
        fresh: false,
        views: Views::ALL,
        named: false,
        event_rows: false,
        queue: true,
    };
    let (opened, steps) = match sql.exec(SCHEMA_OBJECTS, None).and_then(|c| c.all()) {
        Ok(objects) => {
            let objects: Vec<Object> = objects;
            let tables = objects.iter().filter(|o| o.kind == "table");
            let opened = |fresh| Opened {
                fresh,
                views: Views::except(tables.clone().map(|o| o.name.as_str())),
                named: Views::except(objects.iter().map(|o| o.name.as_str())) == Views::default(),
                event_rows: objects.iter().any(|o| o.name == EVENT_ROWS_TRIGGER),
                queue: tables.clone().any(|o| o.name == Optional::Outbox.name()),
            };
            match schema::open(schemas, |name| objects.iter().any(|o| o.name == name)) {
                Open::Current => return opened(false),
                Open::Fresh => (opened(true), Vec::new()),
                Open::Upgrade(steps) => (opened(false), steps),
            }
        }
        // Unknown: create what may be missing, and let the start read find any rows.
        Err(e) => {
            worker::console_error!("hookonce: reading the schema failed: {e}");
            (unknown, Vec::new())
        }
    };
    if let Err(e) = sql.exec(&schemas.concat(), None) {
        worker::console_error!("hookonce: creating the schema failed: {e}");
        return Opened {
            fresh: false,
            ..opened
        };
    }
    if steps.is_empty() {
        return opened;
    }
    let now = crate::clock::now();
    let moved = transaction(state, || {
        for step in &steps {
            sql.exec_raw(step.sql, step.binds_now.then(|| vec![int(now.0)]))?;
        }
        Ok(())
    });
    if let Err(e) = moved {
        worker::console_error!("hookonce: moving bodies to raw_bodies failed: {e}");
    }
    opened
}

/// Whether the object's storage holds any table. An object hookonce no longer creates (an
/// event's own object from before buckets) is opened only if it does, so a look-up of one
/// that never existed writes nothing; a storage that cannot be read counts as holding some.
pub fn has_tables(state: &State) -> bool {
    state
        .storage()
        .sql()
        .exec(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' LIMIT 1",
            None,
        )
        .and_then(|c| c.count_rows())
        .map_or(true, |n| n > 0)
}

/// Makes `table` (`Optional::materialise`), replacing its placeholder view if it has one, in
/// the caller's transaction, before its first write to it; a table already there stays.
pub fn materialise(sql: &SqlStorage, table: Optional) -> worker::Result<()> {
    let [drop_view, create_table] = table.materialise();
    let mut view = sql.exec_raw(IS_VIEW, vec![text(table.name())])?;
    if Iterator::next(&mut view).is_some() {
        sql.exec(drop_view, None)?;
    }
    sql.exec(create_table, None)?;
    Ok(())
}

/// The optional table `write` writes to, if any.
pub fn optional_table(write: &Write<'_>) -> Option<Optional> {
    match write {
        Write::Ledger { .. } => Some(Optional::Ledger),
        Write::Claim(_) | Write::Release { .. } => Some(Optional::Claim),
        Write::Enqueue { .. } => Some(Optional::Outbox),
        Write::Record { .. } | Write::Snapshot { .. } | Write::Body { .. } => None,
    }
}

#[wasm_bindgen]
extern "C" {
    /// The runtime's `DurableObjectStorage`, for the one method workers-rs does not bind.
    type TxStorage;

    /// Runs `f` in a SQLite transaction; an exception (an `Err`) rolls everything back.
    #[wasm_bindgen(method, catch, js_name = transactionSync)]
    fn transaction_sync(
        this: &TxStorage,
        f: &mut dyn FnMut() -> Result<JsValue, JsValue>,
    ) -> Result<JsValue, JsValue>;
}

/// What the body of [`transaction_or_undo`] came to.
pub enum Unit<T> {
    /// Commit its writes.
    Commit(T),
    /// Roll back everything it wrote.
    Undo,
}

impl<T> Unit<T> {
    /// The committed value; an undo is an error where the body never undoes.
    pub fn committed(self) -> worker::Result<T> {
        match self {
            Unit::Commit(v) => Ok(v),
            Unit::Undo => Err(worker::Error::from("transaction undone")),
        }
    }
}

/// Runs `f` as one atomic unit: all its writes commit, or none do.
pub fn transaction<T>(
    state: &State,
    mut f: impl FnMut() -> worker::Result<T>,
) -> worker::Result<T> {
    transaction_or_undo(state, || f().map(Unit::Commit))?.committed()
}

/// [`transaction`], where `f` may also end the unit by undoing all it wrote.
pub fn transaction_or_undo<T>(
    state: &State,
    mut f: impl FnMut() -> worker::Result<Unit<T>>,
) -> worker::Result<Unit<T>> {
    let mut out = None;
    let committed = unit(state, &mut || {
        Ok(match f()? {
            Unit::Commit(v) => {
                out = Some(v);
                true
            }
            Unit::Undo => false,
        })
    })?;
    match (committed, out) {
        (true, Some(v)) => Ok(Unit::Commit(v)),
        (true, None) => Err(worker::Error::from("transaction produced no result")),
        (false, _) => Ok(Unit::Undo),
    }
}

/// The part of [`transaction_or_undo`] that does not depend on `T`, compiled once: `f`
/// answers commit (`true`) or undo (`false`).
fn unit(state: &State, f: &mut dyn FnMut() -> worker::Result<bool>) -> worker::Result<bool> {
    let storage = state.storage();
    let raw: &TxStorage = storage.as_raw().unchecked_ref();
    // An exception is the only way to roll a `transactionSync` back: `null` stands for undo.
    let done = raw.transaction_sync(&mut || match f() {
        Ok(true) => Ok(JsValue::UNDEFINED),
        Ok(false) => Err(JsValue::NULL),
        Err(e) => Err(JsValue::from_str(&e.to_string())),
    });
    match done {
        Ok(_) => Ok(true),
        Err(e) if e.is_null() => Ok(false),
        Err(e) => Err(worker::Error::from(
            e.as_string().unwrap_or_else(|| format!("{e:?}")),
        )),
    }
}

// A statement's parameters are the runtime's own values, made here: workers-rs's
// `SqlStorageValue` asks the runtime whether each integer is safe (a crossing per integer)
// and copies a blob twice. Every integer hookonce binds (times, sequence numbers, counts,
// ledger amounts, which core bounds) is a safe integer.

pub fn text(s: &str) -> JsValue {
    JsValue::from_str(s)
}

pub fn int(n: i64) -> JsValue {
    JsValue::from_f64(n as f64)
}

pub fn blob(bytes: &[u8]) -> JsValue {
    js_sys::Uint8Array::from(bytes).into()
}

/// SQL `NULL`.
pub const NULL: JsValue = JsValue::NULL;

fn opt_int(n: Option<i64>) -> JsValue {
    n.map_or(NULL, int)
}

fn first<R: Row>(sql: &SqlStorage, query: &str, params: Vec<JsValue>) -> worker::Result<Option<R>> {
    sql.exec_raw(query, params)?.first()
}

#[wasm_bindgen]
extern "C" {
    /// The runtime's `SqlStorage`, called by [`run`] with its values as arguments.
    type RawSql;
    /// A write's cursor: only its counter is read.
    type WriteCursor;
    #[wasm_bindgen(method, getter, js_name = rowsWritten)]
    fn rows_written(this: &WriteCursor) -> f64;
}

/// `exec(query, a, b, …)` bindings of fixed arity, one per count of values.
macro_rules! exec_with {
    ($($name:ident($($value:ident),*);)*) => {
        #[wasm_bindgen]
        extern "C" {
            $(
                #[wasm_bindgen(method, catch, js_name = exec)]
                fn $name(
                    this: &RawSql,
                    query: &str,
                    $($value: &JsValue),*
                ) -> Result<WriteCursor, JsValue>;
            )*
        }
    };
}

exec_with! {
    exec1(a);
    exec2(a, b);
    exec3(a, b, c);
    exec4(a, b, c, d);
    exec5(a, b, c, d, e);
    exec6(a, b, c, d, e, f);
    exec7(a, b, c, d, e, f, g);
    exec8(a, b, c, d, e, f, g, h);
    exec11(a, b, c, d, e, f, g, h, i, j, k);
}

/// Runs a statement for its effect and returns the rows it wrote. The values go to
/// `exec` as arguments: workers-rs's `exec` builds an `Array` (a crossing per value) and
/// spreads it, about 2% of a delivery's CPU over its three writes (`bench/quick.sh`, 10
/// rounds against an A/A control: at the edge of the machine's noise).
pub fn run(sql: &SqlStorage, query: &str, values: &[JsValue]) -> worker::Result<usize> {
    let raw: &RawSql = sql.as_ref().unchecked_ref();
    let cursor = match values {
        [a] => raw.exec1(query, a),
        [a, b] => raw.exec2(query, a, b),
        [a, b, c] => raw.exec3(query, a, b, c),
        [a, b, c, d] => raw.exec4(query, a, b, c, d),
        [a, b, c, d, e] => raw.exec5(query, a, b, c, d, e),
        [a, b, c, d, e, f] => raw.exec6(query, a, b, c, d, e, f),
        [a, b, c, d, e, f, g] => raw.exec7(query, a, b, c, d, e, f, g),
        [a, b, c, d, e, f, g, h] => raw.exec8(query, a, b, c, d, e, f, g, h),
        [a, b, c, d, e, f, g, h, i, j, k] => raw.exec11(query, a, b, c, d, e, f, g, h, i, j, k),
        _ => return Ok(sql.exec_raw(query, values.to_vec())?.rows_written()),
    }?;
    Ok(cursor.rows_written() as usize)
}

fn version_of(secs: Option<i64>, nanos: Option<i64>, event: Option<String>) -> Option<Version> {
    Some(Version {
        created_at: CreatedAt::from_parts(secs?, u32::try_from(nanos?).ok()?)?,
        event_id: EventId::new(event?)?,
    })
}

/// The entity's synchronous claim, if it was ever used.
pub fn claim(sql: &SqlStorage) -> worker::Result<Option<Claim>> {
    row! {
        struct Claimed {
            holder: Option<String>,
            until: Option<i64>,
            newest_secs: Option<i64>,
            newest_nanos: Option<i64>,
            newest_event: Option<String>,
        }
    }
    let row: Option<Claimed> = first(
        sql,
        "SELECT holder, until, newest_secs, newest_nanos, newest_event FROM claim WHERE id = 1",
        vec![],
    )?;
    Ok(row.map(|r| {
        claim_of(
            r.holder,
            r.until,
            version_of(r.newest_secs, r.newest_nanos, r.newest_event),
        )
    }))
}

fn claim_of(holder: Option<String>, until: Option<i64>, newest: Option<Version>) -> Claim {
    Claim {
        holder: match (holder.and_then(EventId::new), until) {
            (Some(event_id), Some(until)) => Some(Lease {
                event_id,
                until: UnixSeconds(until),
            }),
            _ => None,
        },
        newest,
    }
}

/// Step 4's input, in one statement (each statement crosses into the runtime): whether
/// the id was processed, the snapshot version, the claim and the ledger entry, of which
/// `Stored` keeps what bears on `event` under `plan`. The row comes back as one JSON array
/// in one column: each column costs a property read and a conversion across the runtime,
/// while serde_json reads the array's values in order into `Row`'s fields in one pass.
pub fn stored(sql: &SqlStorage, event: &Event, plan: Plan) -> worker::Result<Stored> {
    row! {
        struct Json {
            row: String,
        }
    }
    #[derive(serde::Deserialize)]
    struct Row {
        outcome: Option<String>,
        in_ledger: i64,
        claim_row: Option<i64>,
        version_secs: Option<i64>,
        version_nanos: Option<i64>,
        version_event: Option<String>,
        holder: Option<String>,
        until: Option<i64>,
        newest_secs: Option<i64>,
        newest_nanos: Option<i64>,
        newest_event: Option<String>,
    }
    let (ledger, claim) = stored_reads(event, plan);
    let json: Json = sql
        .exec_raw(
            stored_query(ledger, claim, event.version().is_some()),
            vec![text(event.id().as_str())],
        )?
        .single()?;
    let r: Row = serde_json::from_str(&json.row)
        .map_err(|e| worker::Error::RustError(format!("the stored row: {e}")))?;
    let record = r.outcome.as_deref().and_then(Outcome::parse);
    if record.is_some() {
        // A duplicate needs nothing else.
        return Ok(Stored {
            record,
            ..Stored::default()
        });
    }
    let version = event
        .version()
        .and_then(|_| version_of(r.version_secs, r.version_nanos, r.version_event));
    // Only synchronous forwarding ever writes a claim.
    let claim = match plan {
        Plan::Claim { .. } | Plan::Commit => r.claim_row.map(|_| {
            claim_of(
                r.holder,
                r.until,
                version_of(r.newest_secs, r.newest_nanos, r.newest_event),
            )
        }),
        Plan::Apply { .. } => None,
    };
    Ok(Stored {
        record,
        version,
        claim,
        ledger_has_event: ledger && r.in_ledger != 0,
    })
}

/// The snapshot version [`stored`] read for `event`, if it read it: it does for a
/// versioned event that is not a duplicate. An object keeps it for core's `decide_unread`.
pub fn read_version(event: &Event, stored: &Stored) -> Option<Option<Version>> {
    (event.version().is_some() && stored.record.is_none()).then(|| stored.version.clone())
}

/// Whether [`stored`] reads the ledger, and whether it reads the claim, for `event` under
/// `plan`.
pub fn stored_reads(event: &Event, plan: Plan) -> (bool, bool) {
    (
        matches!(event.effect(), Effect::Ledger { .. }),
        matches!(plan, Plan::Claim { .. } | Plan::Commit),
    )
}

/// The statement for [`stored`], reading only the tables that bear on the event: each
/// table a statement names costs SQLite time to prepare it, which an object pays once per
/// statement (the runtime caches prepared statements per object), and to run it. `NULL`
/// stands for a column not read, so the row keeps one shape. Each of the eight is written
/// once per isolate, not per event.
fn stored_query(ledger: bool, claim: bool, version: bool) -> &'static str {
    static QUERIES: OnceLock<[String; 8]> = OnceLock::new();
    let all = QUERIES.get_or_init(|| {
        std::array::from_fn(|i| stored_query_text(i & 1 != 0, i & 2 != 0, i & 4 != 0))
    });
    &all[usize::from(ledger) | usize::from(claim) << 1 | usize::from(version) << 2]
}

fn stored_query_text(ledger: bool, claim: bool, version: bool) -> String {
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

/// How the writes of a decision run: as written, or, for a decision core made without
/// reading the id (`decide_unread`), with its record guarded: it writes nothing if the
/// id is recorded.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Guard {
    None,
    UnlessRecorded,
}

/// How a decision's writes reach SQLite. SQLite undoes a whole statement that fails, so
/// writes that are one statement need no transaction: `transactionSync` costs two
/// statements the runtime prepares anew on every call (`bench/statements.sh`).
pub enum Batch<'a> {
    /// No writes: a duplicate.
    Nothing,
    /// One write to a table every entity has: [`execute`].
    One(&'a Write<'a>),
    /// An event's kept body, record and snapshot: [`write_event_rows`].
    Event(EventRows<'a>),
    /// Anything else, one statement per write in one transaction.
    Many,
}

/// An event's usual writes, as [`EVENT_ROWS_SCHEMA`] takes them: its record, after its kept
/// body if it has one, before its snapshot if it replaces one.
pub struct EventRows<'a> {
    event_id: &'a EventId,
    event_type: &'a str,
    outcome: Outcome,
    created_at: Option<i64>,
    body: Option<(Option<&'a str>, &'a Packed<'a>)>,
    snapshot: Option<(&'a str, &'a Version)>,
}

impl<'a> Batch<'a> {
    /// The batch `writes` (in core's order) make.
    pub fn of(writes: &'a [Write<'a>]) -> Batch<'a> {
        let (body, rest) = match writes {
            [] => return Batch::Nothing,
            [one] if optional_table(one).is_none() => return Batch::One(one),
            [Write::Body {
                event_id,
                headers,
                body,
            }, rest @ ..] => (Some((*event_id, headers.as_deref(), body)), rest),
            _ => (None, writes),
        };
        let (record, snapshot) = match rest {
            [record] => (record, None),
            [record, Write::Snapshot { state, version }] => (record, Some((*state, version))),
            _ => return Batch::Many,
        };
        let Write::Record {
            event_id,
            event_type,
            outcome,
            created_at,
        } = record
        else {
            return Batch::Many;
        };
        // The view writes the event's own id in each row.
        let own = |id: &EventId| id == *event_id;
        if body.is_some_and(|(id, ..)| !own(id)) || snapshot.is_some_and(|(_, v)| !own(&v.event_id))
        {
            return Batch::Many;
        }
        Batch::Event(EventRows {
            event_id,
            event_type: event_type.as_str(),
            outcome: *outcome,
            created_at: *created_at,
            body: body.map(|(_, headers, packed)| (headers, packed)),
            snapshot,
        })
    }
}

/// [`Batch::Event`]'s one statement. Returns the rows written, or `None` when the guard
/// found the id recorded and nothing was written.
pub fn write_event_rows(
    sql: &SqlStorage,
    rows: &EventRows<'_>,
    guard: Guard,
    now: UnixSeconds,
) -> worker::Result<Option<usize>> {
    let statement = match guard {
        Guard::None => INSERT_EVENT_ROWS,
        Guard::UnlessRecorded => INSERT_EVENT_ROWS_UNSEEN,
    };
    let (headers, body) = rows.body.unzip();
    let (state, version) = rows.snapshot.unzip();
    let values = [
        text(rows.event_id.as_str()),
        text(rows.event_type),
        text(rows.outcome.as_str()),
        opt_int(rows.created_at),
        int(now.0),
        opt_int(body.map(|b| b.codec.code())),
        headers.flatten().map_or(NULL, text),
        body.map_or(NULL, |b| blob(&b.bytes)),
        state.map_or(NULL, text),
        opt_int(version.map(|v| v.created_at.secs())),
        opt_int(version.map(|v| i64::from(v.created_at.nanos()))),
    ];
    let written = run(sql, statement, &values)?;
    Ok((guard == Guard::None || written > 0).then_some(written))
}

/// Step 5: one statement per write. Returns the rows written (from the cursor's counter),
/// so a caller can show that a duplicate wrote none; `None` when a guarded record found
/// its id recorded and wrote nothing.
pub fn execute(
    sql: &SqlStorage,
    write: &Write<'_>,
    guard: Guard,
    now: UnixSeconds,
) -> worker::Result<Option<usize>> {
    let rows = match write {
        Write::Record {
            event_id,
            event_type,
            outcome,
            created_at,
        } => {
            let statement = match guard {
                Guard::None => INSERT_RECORD,
                Guard::UnlessRecorded => INSERT_RECORD_UNSEEN,
            };
            let values = [
                text(event_id.as_str()),
                text(event_type.as_str()),
                text(outcome.as_str()),
                opt_int(*created_at),
                int(now.0),
            ];
            let rows = run(sql, statement, &values)?;
            return Ok((guard == Guard::None || rows > 0).then_some(rows));
        }
        Write::Snapshot { state, version } => run(sql, UPSERT_SNAPSHOT, &[
                text(state),
                int(version.created_at.secs()),
                int(i64::from(version.created_at.nanos())),
                text(version.event_id.as_str()),
                int(now.0),
            ],
        )?,
        Write::Ledger { event_id, amount } => run(sql,
            "INSERT INTO ledger (event_id, amount, recorded_at) VALUES (?, ?, ?)", &[text(event_id.as_str()), int(*amount), int(now.0)],
        )?,
        Write::Body {
            event_id,
            headers,
            body,
        } => return store_body(sql, event_id.as_str(), headers.as_deref(), body, now).map(Some),
        Write::Enqueue { event_id, source } => {
            return enqueue(sql, event_id.as_str(), source, None, now).map(Some);
        }
        Write::Claim(claim) => {
            let holder = claim.holder.as_ref();
            let newest = claim.newest.as_ref();
            run(
                sql,
                "INSERT INTO claim (id, holder, until, newest_secs, newest_nanos, newest_event)
                 VALUES (1, ?, ?, ?, ?, ?)
                 ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, until = excluded.until,
                   newest_secs = excluded.newest_secs, newest_nanos = excluded.newest_nanos,
                   newest_event = excluded.newest_event", &[
                    holder.map_or(NULL, |l| text(l.event_id.as_str())),
                    opt_int(holder.map(|l| l.until.0)),
                    opt_int(newest.map(|v| v.created_at.secs())),
                    opt_int(newest.map(|v| i64::from(v.created_at.nanos()))),
                    newest.map_or(NULL, |v| text(v.event_id.as_str())),
                ],
            )?
        }
        Write::Release { event_id, until } => run(sql,
            "UPDATE claim SET holder = NULL, until = NULL WHERE id = 1 AND holder = ? AND until = ?", &[text(event_id.as_str()), int(until.0)],
        )?,
    };
    Ok(Some(rows))
}

/// Keeps a packed body (and the headers to read it with, if any) for replay and the
/// outbox. The event's record and outbox row, written next, point at it.
pub fn store_body(
    sql: &SqlStorage,
    event_id: &str,
    headers: Option<&str>,
    body: &Packed<'_>,
    now: UnixSeconds,
) -> worker::Result<usize> {
    run(
        sql,
        INSERT_BODY,
        &[
            text(event_id),
            int(body.codec.code()),
            headers.map_or(NULL, text),
            blob(&body.bytes),
            int(now.0),
        ],
    )
}

/// Appends a pending row to the outbox, due now, sending the body just kept.
pub fn enqueue(
    sql: &SqlStorage,
    event_id: &str,
    source: &str,
    destination: Option<&str>,
    now: UnixSeconds,
) -> worker::Result<usize> {
    run(
        sql,
        INSERT_OUTBOX,
        &[
            text(event_id),
            text(source),
            destination.map_or(NULL, text),
            text(OutboxStatus::Pending.as_str()),
            int(now.0),
        ],
    )
}

/// A stored body, unpacked: `None` when the stored bytes do not decode (logged).
fn unpacked(codec: i64, body: Vec<u8>) -> Option<Vec<u8>> {
    match unpack(codec, &body) {
        Ok(std::borrow::Cow::Borrowed(_)) => Some(body),
        Ok(std::borrow::Cow::Owned(bytes)) => Some(bytes),
        Err(e) => {
            worker::console_error!("hookonce: a kept body is unreadable: {e}");
            None
        }
    }
}

/// The kept body of `event_id` and the headers to read it with, if it is still kept.
pub fn body_of(
    sql: &SqlStorage,
    event_id: &EventId,
) -> worker::Result<Option<(Option<String>, Vec<u8>)>> {
    row! {
        struct Kept {
            codec: i64,
            headers: Option<String>,
            body: Vec<u8>,
        }
    }
    let row: Option<Kept> = first(sql, BODY_OF_EVENT, vec![text(event_id.as_str())])?;
    Ok(row.and_then(|r| Some((r.headers, unpacked(r.codec, r.body)?))))
}

/// The columns the read APIs show of an outbox row; append a `WHERE`/`ORDER BY`.
pub const OUTBOX_ROWS: &str =
    "SELECT seq, event_id, status, attempts, next_attempt_at, last_result, done_at FROM outbox";

row! {
    /// One outbox row as the read APIs show it ([`OUTBOX_ROWS`]).
    pub struct OutboxRow {
        pub seq: i64,
        pub event_id: String,
        pub status: String,
        pub attempts: i64,
        pub next_attempt_at: i64,
        pub last_result: Option<String>,
        pub done_at: Option<i64>,
    }
}

/// The head of the outbox: its first pending row, with what sending it needs.
pub struct Due {
    pub head: Head,
    pub event_id: String,
    pub source: String,
    pub destination: Option<String>,
    pub body: Option<Vec<u8>>,
}

/// The next row to send ([`Order`]): the first pending row in `seq` order; or, for
/// [`Order::EachDue`], the first pending row after `after` that is due at `now`.
pub fn head(
    sql: &SqlStorage,
    order: Order,
    after: i64,
    now: UnixSeconds,
) -> worker::Result<Option<Due>> {
    row! {
        struct Pending {
            seq: i64,
            event_id: String,
            source: String,
            attempts: i64,
            first_attempt_at: Option<i64>,
            next_attempt_at: i64,
            destination: Option<String>,
            codec: Option<i64>,
            body: Option<Vec<u8>>,
        }
    }
    const COLUMNS: &str = "SELECT o.seq, o.event_id, o.source, o.attempts, o.first_attempt_at,
                o.next_attempt_at, o.destination, b.codec, b.body
         FROM outbox o LEFT JOIN raw_bodies b ON b.seq = o.body_seq AND b.event_id = o.event_id";
    let pending = text(OutboxStatus::Pending.as_str());
    let row: Option<Pending> = match order {
        Order::HeadOfLine => first(
            sql,
            &format!("{COLUMNS} WHERE o.status = ? ORDER BY o.seq LIMIT 1"),
            vec![pending],
        )?,
        Order::EachDue => first(
            sql,
            &format!(
                "{COLUMNS} WHERE o.status = ? AND o.seq > ? AND o.next_attempt_at <= ?
                 ORDER BY o.seq LIMIT 1"
            ),
            vec![pending, int(after), int(now.0)],
        )?,
    };
    Ok(row.map(|r| Due {
        head: Head {
            seq: r.seq,
            attempts: u32::try_from(r.attempts).unwrap_or(0),
            first_attempt_at: r.first_attempt_at.map(UnixSeconds),
            next_attempt_at: UnixSeconds(r.next_attempt_at),
        },
        event_id: r.event_id,
        source: r.source,
        destination: r.destination,
        body: r.body.and_then(|b| unpacked(r.codec.unwrap_or(0), b)),
    }))
}

/// An entity object's rows, as a [`start`] condition: whether it holds any event or body
/// ([`start`] counts its outbox rows too, when the outbox is a table).
pub const HOLDS_ROWS: &str = "EXISTS (SELECT 1 FROM events) OR EXISTS (SELECT 1 FROM raw_bodies)";

/// What an object's constructor reads: when its first pending row is due, and (with a
/// condition such as [`HOLDS_ROWS`]) whether it holds rows at all.
pub struct Start {
    pub due: Option<UnixSeconds>,
    pub holds_rows: bool,
}

/// Reads [`Start`] in one statement; without `held`, `holds_rows` is true. With a `queue`
/// (an outbox table, [`Opened::queue`]) an outbox row is held too; without one, nothing is
/// due and the outbox is not read.
pub fn start(sql: &SqlStorage, held: Option<&str>, queue: bool) -> worker::Result<Start> {
    row! {
        struct Row {
            at: Option<i64>,
            held: i64,
        }
    }
    let held = held.unwrap_or("1");
    let row: Row = match queue {
        true => sql.exec_raw(
            &format!(
                "SELECT (SELECT MIN(next_attempt_at) FROM outbox WHERE status = ?) AS at,
                   ({held}) OR EXISTS (SELECT 1 FROM outbox) AS held"
            ),
            vec![text(OutboxStatus::Pending.as_str())],
        )?,
        false => sql.exec(&format!("SELECT NULL AS at, ({held}) AS held"), None)?,
    }
    .single()?;
    Ok(Start {
        due: row.at.map(UnixSeconds),
        holds_rows: row.held != 0,
    })
}

/// Carries out one row's change of state, only while the row is still pending with
/// `if_attempts` attempts made (as the run that decided it read it); returns whether it did.
pub fn transition(sql: &SqlStorage, t: &Transition, if_attempts: u32) -> worker::Result<bool> {
    let pending = text(OutboxStatus::Pending.as_str());
    let written = match t {
        Transition::Finish {
            seq,
            status,
            attempts,
            first_attempt_at,
            result,
            at,
        } => run(
            sql,
            "UPDATE outbox SET status = ?, attempts = ?, first_attempt_at = ?, last_result = ?,
               done_at = ? WHERE seq = ? AND status = ? AND attempts = ?",
            &[
                text(status.as_str()),
                int(i64::from(*attempts)),
                int(first_attempt_at.0),
                text(result),
                int(at.0),
                int(*seq),
                pending,
                int(i64::from(if_attempts)),
            ],
        )?,
        Transition::Retry {
            seq,
            attempts,
            first_attempt_at,
            next_attempt_at,
            result,
        } => run(
            sql,
            "UPDATE outbox SET attempts = ?, first_attempt_at = ?, next_attempt_at = ?,
               last_result = ? WHERE seq = ? AND status = ? AND attempts = ?",
            &[
                int(i64::from(*attempts)),
                int(first_attempt_at.0),
                int(next_attempt_at.0),
                text(result),
                int(*seq),
                pending,
                int(i64::from(if_attempts)),
            ],
        )?,
    };
    Ok(written > 0)
}

/// Puts every dead row back in the queue, due at `at`; returns how many (counted from
/// `RETURNING`: rows written count the status index's entries too).
pub fn requeue_dead(sql: &SqlStorage, at: UnixSeconds) -> worker::Result<usize> {
    sql.exec_raw(
        "UPDATE outbox SET status = ?, attempts = 0, first_attempt_at = NULL,
               next_attempt_at = ?, done_at = NULL WHERE status = ? RETURNING seq",
        vec![
            text(OutboxStatus::Pending.as_str()),
            int(at.0),
            text(OutboxStatus::Dead.as_str()),
        ],
    )?
    .count_rows()
}

/// What pruning needs to know: the oldest body, pending and delivered row.
pub fn kept(sql: &SqlStorage) -> worker::Result<Kept> {
    row! {
        struct Oldest {
            body: Option<i64>,
            pending: Option<i64>,
            delivered: Option<i64>,
        }
    }
    let row: Option<Oldest> = first(
        sql,
        "SELECT (SELECT kept_at FROM raw_bodies ORDER BY seq LIMIT 1) AS body,
                (SELECT MIN(enqueued_at) FROM outbox WHERE status = ?) AS pending,
                (SELECT done_at FROM outbox WHERE status = ? ORDER BY seq LIMIT 1) AS delivered",
        vec![
            text(OutboxStatus::Pending.as_str()),
            text(OutboxStatus::Delivered.as_str()),
        ],
    )?;
    Ok(row.map_or_else(Kept::default, |r| Kept {
        oldest_body: r.body.map(UnixSeconds),
        oldest_pending: r.pending.map(UnixSeconds),
        oldest_delivered: r.delivered.map(UnixSeconds),
    }))
}

/// The object's outbox rows for `/metrics`: pending, the oldest pending's time, dead.
/// `outbox_by_status` makes each a range of the index.
pub fn outbox_rows(sql: &SqlStorage) -> worker::Result<OutboxSnapshot> {
    row! {
        struct Counted {
            pending: i64,
            oldest: Option<i64>,
            dead: i64,
        }
    }
    let pending = text(OutboxStatus::Pending.as_str());
    let r: Option<Counted> = first(
        sql,
        "SELECT (SELECT COUNT(*) FROM outbox WHERE status = ?1) AS pending,
                (SELECT MIN(enqueued_at) FROM outbox WHERE status = ?1) AS oldest,
                (SELECT COUNT(*) FROM outbox WHERE status = ?2) AS dead",
        vec![pending, text(OutboxStatus::Dead.as_str())],
    )?;
    Ok(r.map_or_else(OutboxSnapshot::default, |r| OutboxSnapshot {
        pending: u64::try_from(r.pending).unwrap_or_default(),
        oldest_pending_at: r.oldest,
        dead: u64::try_from(r.dead).unwrap_or_default(),
    }))
}

/// Carries out one prune; returns the rows it deleted. Each walks its table oldest first
/// and stops at the first row too young to go (the `COALESCE` bound), so it reads what it
/// deletes, not the whole table; a row out of order (a clock step back) goes later, never
/// early.
pub fn prune(sql: &SqlStorage, p: Prune) -> worker::Result<usize> {
    let deleted = match p {
        Prune::Bodies { kept_before, limit } => sql.exec_raw(
            "DELETE FROM raw_bodies WHERE seq IN (
               SELECT seq FROM raw_bodies WHERE kept_at < ?1 AND seq < COALESCE(
                 (SELECT seq FROM raw_bodies WHERE kept_at >= ?1 ORDER BY seq LIMIT 1),
                 9007199254740991)
               ORDER BY seq LIMIT ?2)
             RETURNING seq",
            vec![int(kept_before.0), int(i64::from(limit))],
        )?,
        Prune::Delivered { done_before, limit } => sql.exec_raw(
            "DELETE FROM outbox WHERE seq IN (
               SELECT seq FROM outbox WHERE status = ?1 AND done_at < ?2 AND seq < COALESCE(
                 (SELECT seq FROM outbox WHERE status = ?1 AND done_at >= ?2 ORDER BY seq LIMIT 1),
                 9007199254740991)
               ORDER BY seq LIMIT ?3)
             RETURNING seq",
            vec![
                text(OutboxStatus::Delivered.as_str()),
                int(done_before.0),
                int(i64::from(limit)),
            ],
        )?,
        Prune::Ids {
            processed_before,
            limit,
        } => sql.exec_raw(
            "DELETE FROM events WHERE event_id IN (
               SELECT event_id FROM events WHERE processed_at < ? LIMIT ?)
             RETURNING 1 AS seq",
            vec![int(processed_before.0), int(i64::from(limit))],
        )?,
    };
    deleted.count_rows()
}

/// Whether the object has recorded `event_id`.
pub fn recorded(sql: &SqlStorage, event_id: &EventId) -> worker::Result<bool> {
    let found = sql.exec_raw(
        "SELECT 1 FROM events WHERE event_id = ?",
        vec![text(event_id.as_str())],
    )?;
    Ok(found.count_rows()? > 0)
}

/// A bucket object's record (`schema::BUCKET_SCHEMA`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bucket {
    /// The source's count of buckets.
    pub count: u32,
    /// When the source's buckets were made.
    pub since: UnixSeconds,
}

/// A bucket object's record as first written; writes `record` if there is none (and
/// `record` is given), else only reads. `None` when there is none and none was written.
pub fn bucket(sql: &SqlStorage, record: Option<Bucket>) -> worker::Result<Option<Bucket>> {
    row! {
        struct Recorded {
            count: i64,
            since: i64,
        }
    }
    sql.exec(schema::BUCKET_SCHEMA, None)?;
    if let Some(b) = record {
        run(
            sql,
            "INSERT OR IGNORE INTO bucket (id, count, since) VALUES (1, ?, ?)",
            &[int(i64::from(b.count)), int(b.since.0)],
        )?;
    }
    let row: Option<Recorded> = first(
        sql,
        "SELECT count, since FROM bucket WHERE id = 1",
        Vec::new(),
    )?;
    Ok(row.and_then(|r| {
        Some(Bucket {
            count: u32::try_from(r.count).ok()?,
            since: UnixSeconds(r.since),
        })
    }))
}
