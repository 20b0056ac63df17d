//! The storage layer: every SQL statement the objects run. `sqlite` is the generic part
//! (opening, the `transactionSync` binding, values, `run`/`first`), `rows` reads a
//! statement's rows into structs, `schema` is the SQL text of the tables; `entity`,
//! `outbox` and `bucket` are the typed stores, one per concern.

pub mod bucket;
pub mod entity;
pub mod outbox;
pub mod reads;
pub mod rows;
pub mod schema;
pub mod sqlite;
