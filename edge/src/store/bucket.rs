//! A bucket object's record of its source's buckets (`schema::BUCKET_SCHEMA`).

use hookonce_core::time::UnixSeconds;
use worker::SqlStorage;

use super::rows::row;
use super::schema;
use super::sqlite::{first, int, run};

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
