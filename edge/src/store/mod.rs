//! The storage layer: every SQL statement the objects run, behind typed stores; the objects
//! are shells that hold no SQL. `sqlite` is the generic part (opening, the `transactionSync`
//! binding, values, `run`/`first`), `rows` reads a statement's rows into structs, `schema` is
//! the SQL text of the entity's tables; `entity`, `reads`, `outbox` and `bucket` are the
//! entity object's stores, one per concern, `keys`, `feed` and `gate` the publish key's, the
//! feed object's and the gate object's (their statements' text in plain modules, run natively
//! against SQLite by the e2e crate's tests).

pub mod bucket;
pub mod entity;
pub mod feed;
pub mod gate;
pub mod keys;
pub mod outbox;
pub mod reads;
pub mod rows;
pub mod schema;
pub mod sqlite;
