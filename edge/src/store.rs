//! The entity's SQLite tables, and the one unit that carries out a decision.
//!
//! Tables avoid secondary indexes on the hot path, so the rows-written counter reads as
//! "one row per table touched": an applied snapshot with forwarding writes 4 rows
//! (events, entity, bodies, outbox), a stale event 1, a duplicate 0.

use crate::sources::Source;
use hookonce_core::config::FieldSource;
use hookonce_core::decide::{Decision, Outcome, Record, Stored};
use hookonce_core::event::{CreatedAt, Event, EventId, Version};
use hookonce_core::UnixSeconds;
use serde::Deserialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use worker::{SqlStorage, SqlStorageValue, State};

pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS events (
  event_id      TEXT PRIMARY KEY,
  event_type    TEXT NOT NULL,
  outcome       TEXT NOT NULL,      -- applied | stale | claimed
  claimed_until INTEGER,            -- unix seconds, while claimed
  created_at    INTEGER,            -- the event's own time, unix seconds
  processed_at  INTEGER NOT NULL    -- when hookonce decided, unix seconds
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS entity (
  id            INTEGER PRIMARY KEY CHECK (id = 1),
  state         TEXT NOT NULL,
  version_secs  INTEGER NOT NULL,
  version_nanos INTEGER NOT NULL,
  version_event TEXT NOT NULL,
  updated_at    INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS ledger (
  event_id    TEXT PRIMARY KEY,     -- the unique constraint that survives a cleared events table
  amount      INTEGER NOT NULL,
  recorded_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS bodies (
  event_id TEXT PRIMARY KEY,
  source   TEXT NOT NULL,
  headers  TEXT NOT NULL,           -- the id/type headers the event was read with, as JSON
  body     BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS outbox (
  seq              INTEGER PRIMARY KEY,
  event_id         TEXT NOT NULL,
  source           TEXT NOT NULL,
  destination      TEXT,            -- NULL: the source's configured destination
  status           TEXT NOT NULL,   -- pending | delivered | dead
  attempts         INTEGER NOT NULL DEFAULT 0,
  enqueued_at      INTEGER NOT NULL,
  first_attempt_at INTEGER,
  next_attempt_at  INTEGER NOT NULL,
  last_result      TEXT,
  done_at          INTEGER
);
";

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

/// Runs `f` as one atomic unit: all its writes commit, or none do.
pub fn transaction<T>(
    state: &State,
    mut f: impl FnMut() -> worker::Result<T>,
) -> worker::Result<T> {
    let storage = state.storage();
    let raw: &TxStorage = storage.as_raw().unchecked_ref();
    let mut out = None;
    raw.transaction_sync(&mut || match f() {
        Ok(v) => {
            out = Some(v);
            Ok(JsValue::UNDEFINED)
        }
        Err(e) => Err(JsValue::from_str(&e.to_string())),
    })
    .map_err(|e| worker::Error::from(e.as_string().unwrap_or_else(|| format!("{e:?}"))))?;
    out.ok_or_else(|| worker::Error::from("transaction produced no result"))
}

#[derive(Deserialize)]
struct RecordRow {
    outcome: String,
    claimed_until: Option<i64>,
}

#[derive(Deserialize)]
struct VersionRow {
    version_secs: i64,
    version_nanos: i64,
    version_event: String,
}

#[derive(Deserialize)]
struct One {
    #[allow(dead_code)]
    one: i64,
}

fn text(s: &str) -> SqlStorageValue {
    SqlStorageValue::from(s)
}

fn int(n: i64) -> SqlStorageValue {
    SqlStorageValue::from(n)
}

/// The processed-id row for `id`, as the core sees it.
pub fn record(sql: &SqlStorage, id: &EventId) -> worker::Result<Option<Record>> {
    let rows: Vec<RecordRow> = sql
        .exec(
            "SELECT outcome, claimed_until FROM events WHERE event_id = ?",
            vec![text(id.as_str())],
        )?
        .to_array()?;
    Ok(rows
        .into_iter()
        .next()
        .and_then(|r| match r.outcome.as_str() {
            "claimed" => Some(Record::Claimed {
                until: UnixSeconds(r.claimed_until.unwrap_or(0)),
            }),
            other => Outcome::parse(other).map(Record::Done),
        }))
}

/// The entity's current version, if it has state.
pub fn version(sql: &SqlStorage) -> worker::Result<Option<Version>> {
    let rows: Vec<VersionRow> = sql
        .exec(
            "SELECT version_secs, version_nanos, version_event FROM entity WHERE id = 1",
            None,
        )?
        .to_array()?;
    Ok(rows.into_iter().next().and_then(|r| {
        Some(Version {
            created_at: CreatedAt::from_parts(
                r.version_secs,
                u32::try_from(r.version_nanos).ok()?,
            )?,
            event_id: EventId::new(r.version_event)?,
        })
    }))
}

/// Step 3's input: point reads for exactly what bears on `event`.
pub fn stored(sql: &SqlStorage, event: &Event) -> worker::Result<Stored> {
    let record = record(sql, event.id())?;
    if matches!(record, Some(Record::Done(_))) {
        // A duplicate needs nothing else: keep its cost to one read.
        return Ok(Stored {
            record,
            ..Stored::default()
        });
    }
    let version = match event.version() {
        Some(_) => version(sql)?,
        None => None,
    };
    let ledger_has_event = match event.effect() {
        hookonce_core::event::Effect::Ledger { .. } => !sql
            .exec(
                "SELECT 1 AS one FROM ledger WHERE event_id = ?",
                vec![text(event.id().as_str())],
            )?
            .to_array::<One>()?
            .is_empty(),
        _ => false,
    };
    Ok(Stored {
        record,
        version,
        ledger_has_event,
    })
}

/// A delivery as received: what the raw-body table keeps so it can be replayed.
pub struct Raw<'a> {
    pub source: &'a Source,
    /// The headers the source reads (signature headers and header-sourced fields).
    pub headers: &'a [(String, String)],
    pub body: &'a [u8],
}

impl Raw<'_> {
    /// The source's name.
    pub fn name(&self) -> &str {
        &self.source.config.name
    }

    /// The headers a stored body needs to be read the same way again, as JSON: Standard
    /// Webhooks' `webhook-id` (it is signed) and any field the source reads from a header.
    /// Serialised only when a body is stored, not on every delivery.
    fn replay_headers(&self) -> String {
        let shape = &self.source.config.shape;
        let mut wanted: Vec<&str> = vec!["webhook-id"];
        for field in [&shape.id, &shape.kind, &shape.created_at, &shape.entity] {
            if let FieldSource::Header(name) = field {
                wanted.push(name);
            }
        }
        let map: serde_json::Map<String, serde_json::Value> = self
            .headers
            .iter()
            .filter(|(k, _)| wanted.iter().any(|w| k.eq_ignore_ascii_case(w)))
            .map(|(k, v)| (k.to_ascii_lowercase(), serde_json::Value::String(v.clone())))
            .collect();
        serde_json::Value::Object(map).to_string()
    }
}

/// Step 4: writes exactly the rows `decision` names. Returns the rows written (from the
/// cursors' counters), so a caller can see that a duplicate wrote none.
pub fn write(
    sql: &SqlStorage,
    decision: &Decision<'_>,
    event: &Event,
    raw: &Raw<'_>,
    now: UnixSeconds,
) -> worker::Result<usize> {
    let record = |outcome: &str, claimed_until: Option<UnixSeconds>| -> worker::Result<usize> {
        let created = event.created_at().map(|c| c.secs());
        Ok(sql
            .exec(
                "INSERT INTO events (event_id, event_type, outcome, claimed_until, created_at, processed_at)
                 VALUES (?, ?, ?, ?, ?, ?)
                 ON CONFLICT (event_id) DO UPDATE SET outcome = excluded.outcome,
                   claimed_until = excluded.claimed_until, processed_at = excluded.processed_at",
                vec![
                    text(event.id().as_str()),
                    text(event.kind().as_str()),
                    text(outcome),
                    claimed_until.map_or(SqlStorageValue::Null, |u| int(u.0)),
                    created.map_or(SqlStorageValue::Null, int),
                    int(now.0),
                ],
            )?
            .rows_written())
    };
    match decision {
        Decision::Apply(apply) => {
            let mut rows = record(Outcome::Applied.as_str(), None)?;
            if let Some((state, version)) = &apply.snapshot {
                rows += sql
                    .exec(
                        "INSERT INTO entity (id, state, version_secs, version_nanos, version_event, updated_at)
                         VALUES (1, ?, ?, ?, ?, ?)
                         ON CONFLICT (id) DO UPDATE SET state = excluded.state,
                           version_secs = excluded.version_secs, version_nanos = excluded.version_nanos,
                           version_event = excluded.version_event, updated_at = excluded.updated_at",
                        vec![
                            text(state),
                            int(version.created_at.secs()),
                            int(i64::from(version.created_at.nanos())),
                            text(version.event_id.as_str()),
                            int(now.0),
                        ],
                    )?
                    .rows_written();
            }
            if let Some(amount) = apply.ledger {
                rows += sql
                    .exec(
                        "INSERT INTO ledger (event_id, amount, recorded_at) VALUES (?, ?, ?)",
                        vec![text(apply.event_id.as_str()), int(amount), int(now.0)],
                    )?
                    .rows_written();
            }
            if raw.source.config.keep_raw_bodies || apply.enqueue {
                rows += sql
                    .exec(
                        "INSERT OR REPLACE INTO bodies (event_id, source, headers, body) VALUES (?, ?, ?, ?)",
                        vec![
                            text(apply.event_id.as_str()),
                            text(raw.name()),
                            text(&raw.replay_headers()),
                            SqlStorageValue::from(raw.body.to_vec()),
                        ],
                    )?
                    .rows_written();
            }
            if apply.enqueue {
                rows += sql
                    .exec(
                        "INSERT INTO outbox (event_id, source, status, enqueued_at, next_attempt_at)
                         VALUES (?, ?, 'pending', ?, ?)",
                        vec![
                            text(apply.event_id.as_str()),
                            text(raw.name()),
                            int(now.0),
                            int(now.0),
                        ],
                    )?
                    .rows_written();
            }
            Ok(rows)
        }
        Decision::Claim { until, .. } => record("claimed", Some(*until)),
        Decision::Stale => record(Outcome::Stale.as_str(), None),
        Decision::Duplicate(_) | Decision::InFlight { .. } => Ok(0),
    }
}

/// Deletes a claim that a failed synchronous call wrote, if it is still that claim.
pub fn release(sql: &SqlStorage, id: &EventId, ours: UnixSeconds) -> worker::Result<()> {
    if hookonce_core::decide::may_release(record(sql, id)?, ours) {
        sql.exec(
            "DELETE FROM events WHERE event_id = ? AND outcome = 'claimed'",
            vec![text(id.as_str())],
        )?;
    }
    Ok(())
}

/// A BLOB column. SQL cursors hand BLOBs over as `ArrayBuffer`s, which serde-wasm-bindgen
/// presents as bytes, not as the sequence a plain `Vec<u8>` asks for.
#[derive(Debug, Clone, Default)]
pub struct Blob(pub Vec<u8>);

impl<'de> Deserialize<'de> for Blob {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Blob;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a BLOB")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Blob, E> {
                Ok(Blob(v.to_vec()))
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Blob, E> {
                Ok(Blob(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Blob, E> {
                Ok(Blob(v.as_bytes().to_vec()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Blob, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = seq.next_element::<u8>()? {
                    out.push(b);
                }
                Ok(Blob(out))
            }
        }
        d.deserialize_byte_buf(V)
    }
}
