//! The storage layer: each Durable Object kind's SQL, behind a typed store. The objects are
//! shells that hold no SQL; the statements' text sits in plain-text modules with no
//! dependencies, run natively against SQLite by the e2e crate's tests.

pub mod feed;
pub mod keys;
