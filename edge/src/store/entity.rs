//! The entity object's store: its processed ids, snapshot, ledger, claim and kept bodies,
//! and what the object knows of them without a read (the caches below). The ledger, claim
//! and outbox are tables only from the first write to each: an empty table holds a page.
//! Until then a read finds a placeholder view (`schema::PLACEHOLDERS`), made by the first
//! read that needs one, so a new object creates only the tables it writes.
//!
//! Every status written here comes from core's types, bound as a parameter.

use std::cell::{Cell, Ref, RefCell};
use std::sync::OnceLock;

use hookonce_core::decide::{Claim, Lease, Outcome, Stored, Write};
use hookonce_core::entity::{Guard, Reads};
use hookonce_core::event::{CreatedAt, EventId, Version};
use hookonce_core::packing::{unpack, Packed};
use hookonce_core::time::UnixSeconds;
use worker::{SqlStorage, State, Storage};

use super::outbox::{enqueue, To};
use super::rows::{row, ReadRows};
use super::schema::stored_query as stored_query_text;
use super::schema::{
    Optional, Views, BODY_OF_EVENT, ENTITY_SCHEMAS, EVENT_ROWS_SCHEMA, INSERT_BODY,
    INSERT_EVENT_ROWS, INSERT_EVENT_ROWS_UNSEEN, INSERT_RECORD, INSERT_RECORD_UNSEEN, IS_VIEW,
    PLACEHOLDERS, UPSERT_SNAPSHOT,
};
use super::sqlite::{self, blob, first, int, opt_int, run, text, Opened, Unit, NULL};

/// One entity object's storage, with what it knows of it without a read.
pub struct EntityStore {
    storage: Storage,
    sql: SqlStorage,
    /// The ledger, claim and outbox that are not tables yet (`Opened::views`).
    views: Cell<Views>,
    /// Whether all three have a name, view or table, for a read (`Opened::named`).
    readable: Cell<bool>,
    /// The object was created by this instance and no transaction has run since: it holds
    /// no rows, so a stored read would find nothing.
    empty: Cell<bool>,
    /// The snapshot version as this instance last read or wrote it (`None` inside: no
    /// snapshot), for core's `decide_unread`; `None` until it knows. Only this object
    /// writes its snapshot, and only through [`EntityStore::write`], after which the
    /// object keeps this up to date ([`EntityStore::keep_version`]).
    version: RefCell<Option<Option<Version>>>,
    /// Whether an event's rows go through the `event_rows` view yet.
    event_rows: Cell<EventRowsView>,
    /// An event's own object from before buckets that was never made
    /// ([`sqlite::has_tables`]): a look-up of an id finds nothing in it, and creates
    /// nothing, until a delivery makes its schema ([`EntityStore::make`]).
    absent: Cell<bool>,
}

/// The `event_rows` view (`schema::EVENT_ROWS_SCHEMA`), through which an event's body,
/// record and snapshot are one statement instead of three in a `transactionSync`: about
/// 36 µs less an event. Making it costs about 250 µs of CPU (two statements of DDL), so
/// an object makes it before its second event's rows, not when it is new: an entity that
/// only ever sees one event never pays for it (bench/FINDINGS.md).
#[derive(Clone, Copy, PartialEq, Eq)]
enum EventRowsView {
    /// Not there, and this instance has written no event's rows.
    Missing,
    /// Not there; the next event's rows make it first.
    Due,
    /// There.
    Ready,
    /// Making it failed (logged): rows go one statement each.
    Unavailable,
}

impl EntityStore {
    /// Opens the object's storage for its constructor: its schema made or checked, unless
    /// it is `per_event` (an event's own object from before buckets) and holds no table.
    pub fn open(state: &State, per_event: bool) -> (EntityStore, Opened) {
        let absent = per_event && !sqlite::has_tables(state);
        let opened = match absent {
            true => Opened::NOTHING,
            false => sqlite::create(state, &ENTITY_SCHEMAS),
        };
        let storage = state.storage();
        let store = EntityStore {
            sql: storage.sql(),
            storage,
            views: Cell::new(opened.views),
            readable: Cell::new(opened.named),
            empty: Cell::new(opened.fresh),
            version: RefCell::new(opened.fresh.then_some(None)),
            event_rows: Cell::new(match opened.event_rows {
                true => EventRowsView::Ready,
                false => EventRowsView::Missing,
            }),
            absent: Cell::new(absent),
        };
        (store, opened)
    }

    /// Whether the object's storage was left as it is ([`EntityStore::open`]).
    pub fn absent(&self) -> bool {
        self.absent.get()
    }

    /// Makes the schema of an object opened absent: the state `Opened::NOTHING` stands for
    /// is a fresh object's, so only the schema is missing.
    pub fn make(&self, state: &State) {
        sqlite::create(state, &ENTITY_SCHEMAS);
        self.absent.set(false);
    }

    /// Whether the object holds no rows yet: created by this instance, no write since.
    pub fn empty(&self) -> bool {
        self.empty.get()
    }

    /// The storage's SQL handle, for the generic stores (`outbox`, `bucket`).
    pub fn sql(&self) -> &SqlStorage {
        &self.sql
    }

    /// Makes the placeholder view of each optional table that has no name yet, before a
    /// read of it; once per object.
    pub fn readable(&self) -> worker::Result<()> {
        if !self.readable.get() {
            self.sql.exec(PLACEHOLDERS, None)?;
            self.readable.set(true);
        }
        Ok(())
    }

    /// Whether the object's outbox is a table: a placeholder holds no rows, and a view
    /// takes no `UPDATE`.
    pub fn has_outbox(&self) -> bool {
        !self.views.get().has(Optional::Outbox)
    }

    /// The snapshot version this instance knows without a read, for core's
    /// `decide_unread`: `Some(None)` for no snapshot, `None` when it does not know.
    pub fn known_version(&self) -> Ref<'_, Option<Option<Version>>> {
        self.version.borrow()
    }

    /// Keeps `version` as the snapshot version the object's rows hold now.
    pub fn keep_version(&self, version: Option<Version>) {
        *self.version.borrow_mut() = Some(version);
    }

    /// Forgets the snapshot version: a unit was rolled back, and what this instance knew
    /// may be what it undid.
    pub fn forget_version(&self) {
        *self.version.borrow_mut() = None;
    }

    /// Step 4's input for `event_id`, what `reads` names ([`stored`]); first the
    /// placeholder views, if it reads the ledger or the claim.
    pub fn stored(&self, event_id: &EventId, reads: Reads) -> worker::Result<Stored> {
        if reads.ledger || reads.claim {
            self.readable()?;
        }
        stored(&self.sql, event_id, reads).inspect_err(|_| self.forget_version())
    }

    /// The entity's synchronous claim, if it was ever used.
    pub fn claim(&self) -> worker::Result<Option<Claim>> {
        self.readable()?;
        claim(&self.sql)
    }

    /// A decision's writes, as one statement where they can be ([`Batch`]), else in one
    /// transaction. `None` when a guarded record found its id recorded: then nothing was
    /// written. A failed write forgets the snapshot version: what this instance knew may
    /// be what the rollback undid.
    pub fn write(
        &self,
        writes: &[Write<'_>],
        guard: Guard,
        now: UnixSeconds,
    ) -> worker::Result<Option<usize>> {
        self.write_unit(writes, guard, now)
            .inspect_err(|_| self.forget_version())
    }

    fn write_unit(
        &self,
        writes: &[Write<'_>],
        guard: Guard,
        now: UnixSeconds,
    ) -> worker::Result<Option<usize>> {
        self.empty.set(false);
        let sql = &self.sql;
        match Batch::of(writes) {
            Batch::Nothing => Ok(Some(0)),
            Batch::One(write) => execute(sql, write, guard, now),
            Batch::Event(rows) if self.event_rows_view() => {
                write_event_rows(sql, &rows, guard, now)
            }
            Batch::Event(_) | Batch::Many => {
                let unit = self.transaction_or_undo(|| {
                    let mut rows = 0;
                    for write in writes {
                        match self.execute(write, guard, now)? {
                            Some(n) => rows += n,
                            None => return Ok(Unit::Undo),
                        }
                    }
                    Ok(Unit::Commit(rows))
                })?;
                Ok(match unit {
                    Unit::Commit(rows) => Some(rows),
                    Unit::Undo => None,
                })
            }
        }
    }

    /// Whether the `event_rows` view is there to write an event's rows through; makes it
    /// when it is due ([`EventRowsView`]).
    fn event_rows_view(&self) -> bool {
        let (ready, next) = match self.event_rows.get() {
            EventRowsView::Ready => return true,
            EventRowsView::Unavailable => return false,
            EventRowsView::Missing => (false, EventRowsView::Due),
            EventRowsView::Due => match self.sql.exec(EVENT_ROWS_SCHEMA, None) {
                Ok(_) => (true, EventRowsView::Ready),
                Err(e) => {
                    worker::console_error!("hookonce: making the event_rows view failed: {e}");
                    (false, EventRowsView::Unavailable)
                }
            },
        };
        self.event_rows.set(next);
        ready
    }

    /// `f` in one transaction that it may undo ([`sqlite::transaction_or_undo`]), after
    /// which the object is no longer known to be empty. A rollback or an undo brings back
    /// any placeholder view a write in it replaced, so the object forgets those
    /// replacements too.
    fn transaction_or_undo<T>(
        &self,
        f: impl FnMut() -> worker::Result<Unit<T>>,
    ) -> worker::Result<Unit<T>> {
        self.empty.set(false);
        let views = self.views.get();
        let done = sqlite::transaction_or_undo(&self.storage, f);
        if !matches!(done, Ok(Unit::Commit(_))) {
            self.views.set(views);
        }
        done
    }

    /// One write, inside a transaction; first the table it needs, if that is still a
    /// placeholder view.
    fn execute(
        &self,
        write: &Write<'_>,
        guard: Guard,
        now: UnixSeconds,
    ) -> worker::Result<Option<usize>> {
        if let Some(table) = optional_table(write).filter(|t| self.views.get().has(*t)) {
            materialise(&self.sql, table)?;
            self.views.set(self.views.get().without(table));
        }
        execute(&self.sql, write, guard, now)
    }

    /// Makes the outbox a table, if it is still a placeholder view, before rows are
    /// enqueued outside a delivery's write (an admin's redelivery or backfill).
    pub fn make_outbox(&self) -> worker::Result<()> {
        if self.has_outbox() {
            return Ok(());
        }
        materialise(&self.sql, Optional::Outbox)?;
        self.views.set(self.views.get().without(Optional::Outbox));
        Ok(())
    }

    /// The kept body of `event_id` and the headers to read it with, if it is still kept.
    pub fn body_of(&self, event_id: &EventId) -> worker::Result<Option<(Option<String>, Vec<u8>)>> {
        body_of(&self.sql, event_id)
    }

    /// Whether the object has recorded `event_id`.
    pub fn recorded(&self, event_id: &EventId) -> worker::Result<bool> {
        recorded(&self.sql, event_id)
    }
}

/// Makes `table` (`Optional::materialise`), replacing its placeholder view if it has one, in
/// the caller's transaction, before its first write to it; a table already there stays.
fn materialise(sql: &SqlStorage, table: Optional) -> worker::Result<()> {
    let [drop_view, create_table] = table.materialise();
    let mut view = sql.exec_raw(IS_VIEW, vec![text(table.name())])?;
    if Iterator::next(&mut view).is_some() {
        sql.exec(drop_view, None)?;
    }
    sql.exec(create_table, None)?;
    Ok(())
}

/// The optional table `write` writes to, if any.
fn optional_table(write: &Write<'_>) -> Option<Optional> {
    match write {
        Write::Ledger { .. } => Some(Optional::Ledger),
        Write::Claim(_) | Write::Release { .. } => Some(Optional::Claim),
        Write::Enqueue { .. } => Some(Optional::Outbox),
        Write::Record { .. } | Write::Snapshot { .. } | Write::Body { .. } => None,
    }
}

fn version_of(secs: Option<i64>, nanos: Option<i64>, event: Option<String>) -> Option<Version> {
    Some(Version {
        created_at: CreatedAt::from_parts(secs?, u32::try_from(nanos?).ok()?)?,
        event_id: EventId::new(event?)?,
    })
}

/// The entity's synchronous claim, if it was ever used.
fn claim(sql: &SqlStorage) -> worker::Result<Option<Claim>> {
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
/// the id was processed, and of the snapshot version, the claim and the ledger entry what
/// core's `Reads` names. The row comes back as one JSON array
/// in one column: each column costs a property read and a conversion across the runtime,
/// while serde_json reads the array's values in order into `Row`'s fields in one pass.
fn stored(sql: &SqlStorage, event_id: &EventId, reads: Reads) -> worker::Result<Stored> {
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
    let json: Json = sql
        .exec_raw(stored_query(reads), vec![text(event_id.as_str())])?
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
    let version = reads
        .version
        .then(|| version_of(r.version_secs, r.version_nanos, r.version_event))
        .flatten();
    let claim = match reads.claim {
        true => r.claim_row.map(|_| {
            claim_of(
                r.holder,
                r.until,
                version_of(r.newest_secs, r.newest_nanos, r.newest_event),
            )
        }),
        false => None,
    };
    Ok(Stored {
        record,
        version,
        claim,
        ledger_has_event: reads.ledger && r.in_ledger != 0,
    })
}

/// The statement for [`stored`], reading only the tables that bear on the event: each
/// table a statement names costs SQLite time to prepare it, which an object pays once per
/// statement (the runtime caches prepared statements per object), and to run it. `NULL`
/// stands for a column not read, so the row keeps one shape. Each of the eight is written
/// once per isolate, not per event.
fn stored_query(reads: Reads) -> &'static str {
    let Reads {
        ledger,
        claim,
        version,
    } = reads;
    static QUERIES: OnceLock<[String; 8]> = OnceLock::new();
    let all = QUERIES.get_or_init(|| {
        std::array::from_fn(|i| stored_query_text(i & 1 != 0, i & 2 != 0, i & 4 != 0))
    });
    &all[usize::from(ledger) | usize::from(claim) << 1 | usize::from(version) << 2]
}

/// How a decision's writes reach SQLite. SQLite undoes a whole statement that fails, so
/// writes that are one statement need no transaction: `transactionSync` costs two
/// statements the runtime prepares anew on every call (`bench/statements.sh`).
enum Batch<'a> {
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
struct EventRows<'a> {
    event_id: &'a EventId,
    event_type: &'a str,
    outcome: Outcome,
    created_at: Option<i64>,
    body: Option<(Option<&'a str>, &'a Packed<'a>)>,
    snapshot: Option<(&'a str, &'a Version)>,
}

impl<'a> Batch<'a> {
    /// The batch `writes` (in core's order) make.
    fn of(writes: &'a [Write<'a>]) -> Batch<'a> {
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
fn write_event_rows(
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
fn execute(
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
        Write::Enqueue {
            event_id,
            source,
            destination,
        } => {
            return enqueue(sql, event_id.as_str(), source, To::Named(destination), now).map(Some);
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

/// A stored body, unpacked: `None` when the stored bytes do not decode (logged).
pub(super) fn unpacked(codec: i64, body: Vec<u8>) -> Option<Vec<u8>> {
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
fn body_of(
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

/// Whether the object has recorded `event_id`.
fn recorded(sql: &SqlStorage, event_id: &EventId) -> worker::Result<bool> {
    let found = sql.exec_raw(
        "SELECT 1 FROM events WHERE event_id = ?",
        vec![text(event_id.as_str())],
    )?;
    Ok(found.count_rows()? > 0)
}
