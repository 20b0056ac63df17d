//! The generic part of the storage layer: opening an object's storage (its schema, from
//! `schema`), the `transactionSync` binding, statement values made as the runtime's own,
//! and statements run with their values as `exec`'s arguments. The typed stores (`entity`,
//! `outbox`, `bucket`) build on it.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use worker::{js_sys, SqlStorage, State, Storage};

use super::rows::{row, ReadRows, Row};
use super::schema::{self, Open, Optional, Views, EVENT_ROWS_TRIGGER, SCHEMA_OBJECTS};
pub use super::schema::{BODIES_SCHEMA, QUEUE_SCHEMA};

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
    transaction_or_undo(&state.storage(), || f().map(Unit::Commit))?.committed()
}

/// [`transaction`], where `f` may also end the unit by undoing all it wrote.
pub fn transaction_or_undo<T>(
    storage: &Storage,
    mut f: impl FnMut() -> worker::Result<Unit<T>>,
) -> worker::Result<Unit<T>> {
    let mut out = None;
    let committed = unit(storage, &mut || {
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
fn unit(storage: &Storage, f: &mut dyn FnMut() -> worker::Result<bool>) -> worker::Result<bool> {
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

/// Rows handed to one statement as one JSON text, which SQLite reads back (`json_each`).
pub fn json_text(rows: &impl serde::Serialize) -> worker::Result<JsValue> {
    let json = serde_json::to_string(rows).map_err(|e| worker::Error::RustError(e.to_string()))?;
    Ok(text(&json))
}

/// An integer or SQL `NULL`.
pub fn opt_int(n: Option<i64>) -> JsValue {
    n.map_or(NULL, int)
}

/// The first row of `query`'s result, if any.
pub fn first<R: Row>(
    sql: &SqlStorage,
    query: &str,
    params: Vec<JsValue>,
) -> worker::Result<Option<R>> {
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
