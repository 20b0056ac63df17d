//! `FeedObject`: one per source. It keeps the source's recent deliveries (the feed) and its
//! dead letters across entities, bounded as core's `feed` module decides: every batch of notes
//! runs read → `feed::admit_batch` → one statement per `FeedWrite`, in one transaction.

use hookonce_core::feed::{self, FeedOutcome, FeedRow, FeedState, FeedWrite, Note, RejectWindow};
use hookonce_core::metrics::{self, Count, OutboxSnapshot, SourceFigures};
use hookonce_core::page::{feed_cursor, next_cursor, FeedQuery};
use hookonce_core::route::{encode_component, split_url};
use serde_json::{json, Value};
use worker::{web_sys, Env, Request, Response, Result, SqlStorage, State};

use crate::internal::FeedOp;
use crate::problem::{self, json_response};
use crate::rows::{row, ReadRows};
use crate::sql::{int, text};
use crate::task::export_object;
use crate::{clock, sources, sql};

const FEED_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS feed (
  seq          INTEGER PRIMARY KEY,  -- from feed_admit: newer rows have larger numbers
  received_at  INTEGER NOT NULL,
  outcome      TEXT NOT NULL,        -- feed::FeedOutcome
  event_id     TEXT,                 -- NULL for a rejected request
  event_type   TEXT,
  entity       TEXT,
  rows_written INTEGER NOT NULL,
  status       INTEGER,              -- a rejected request's status
  reason       TEXT                  -- and why; never a body or a signature
);
CREATE TABLE IF NOT EXISTS dead (
  entity      TEXT NOT NULL,         -- '' for an event without an entity
  event_id    TEXT NOT NULL,
  attempts    INTEGER NOT NULL,
  last_result TEXT NOT NULL,
  at          INTEGER NOT NULL,
  PRIMARY KEY (entity, event_id)
) WITHOUT ROWID;
-- /metrics (core's `metrics`): best-effort counters summed from notes, and each entity
-- object's outbox rows as its last alarm pass counted them (exact; absent when none).
CREATE TABLE IF NOT EXISTS counter (
  family TEXT NOT NULL,
  label  TEXT NOT NULL,
  value  INTEGER NOT NULL,
  PRIMARY KEY (family, label)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS outbox_rows (
  object            TEXT PRIMARY KEY,
  pending           INTEGER NOT NULL,
  oldest_pending_at INTEGER,
  dead              INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS reject_window (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  minute     INTEGER NOT NULL,
  recorded   INTEGER NOT NULL,
  suppressed INTEGER NOT NULL
);
";

export_object!(FeedObjectClass as "FeedObject" for FeedObject);

pub struct FeedObject {
    state: State,
    env: Env,
}

impl FeedObject {
    fn new(state: State, env: Env) -> Self {
        // New or not, a feed has no alarm to set.
        let _opened = sql::create(&state, &[FEED_SCHEMA]);
        Self { state, env }
    }

    async fn fetch(&self, req: web_sys::Request) -> Result<Response> {
        let mut req = Request::from(req);
        let url = req.inner().url();
        let (path, query) = split_url(&url);
        let Some(op) = FeedOp::parse(path, query) else {
            return problem::NOT_FOUND.respond("no such feed operation");
        };
        let Some(source) = self.state.id().name() else {
            return problem::INTERNAL.respond("a feed object is named by its source");
        };
        match op {
            FeedOp::Notes => {
                let body = req.bytes().await?;
                let Ok(notes) = serde_json::from_slice::<Vec<Note>>(&body) else {
                    return problem::BAD_REQUEST.respond("not a list of feed notes");
                };
                let loaded = sources::load(&self.env);
                let policy = match &*loaded {
                    Ok(l) => l.feed.for_source(&source),
                    Err(e) => return problem::CONFIG.respond(e),
                };
                let sql = self.state.storage().sql();
                let now = clock::now();
                sql::transaction(&self.state, || {
                    let state = read_state(&sql)?;
                    for w in feed::admit_batch(&notes, &state, policy, now) {
                        execute(&sql, &w)?;
                    }
                    add_counts(&sql, &metrics::counts(&notes))
                })?;
                Ok(Response::empty()?.with_status(204))
            }
            FeedOp::Events(q) => match FeedQuery::parse(&q) {
                Ok(q) => self.events(&source, &q),
                Err(e) => problem::BAD_REQUEST.respond(e),
            },
            FeedOp::Dead => self.dead(&source),
            FeedOp::Outbox(object) => {
                let body = req.text().await?;
                let Some(snapshot) = OutboxSnapshot::decode(&body) else {
                    return problem::BAD_REQUEST.respond("not an outbox snapshot");
                };
                let sql = self.state.storage().sql();
                keep_outbox_rows(&sql, &object, &snapshot)?;
                Ok(Response::empty()?.with_status(204))
            }
            FeedOp::Metrics => {
                let figures = figures(&self.state.storage().sql(), source)?;
                problem::bytes_response(200, figures.encode().into_bytes(), "text/plain")
            }
        }
    }
}

fn opt_text(s: Option<&str>) -> wasm_bindgen::JsValue {
    s.map_or(sql::NULL, text)
}

fn read_state(sql: &SqlStorage) -> Result<FeedState> {
    row! {
        struct Row {
            last_seq: i64,
            minute: Option<i64>,
            recorded: Option<i64>,
            suppressed: Option<i64>,
        }
    }
    let r: Row = sql
        .exec(
            "SELECT (SELECT COALESCE(MAX(seq), 0) FROM feed) AS last_seq,
                    w.minute, w.recorded, w.suppressed
             FROM (SELECT 1) LEFT JOIN reject_window w ON w.id = 1",
            None,
        )?
        .single()?;
    Ok(FeedState {
        last_seq: r.last_seq,
        window: RejectWindow {
            minute: r.minute.unwrap_or_default(),
            recorded: u32::try_from(r.recorded.unwrap_or_default()).unwrap_or(u32::MAX),
            suppressed: u64::try_from(r.suppressed.unwrap_or_default()).unwrap_or_default(),
        },
    })
}

/// One statement per write.
fn execute(sql: &SqlStorage, w: &FeedWrite) -> Result<()> {
    match w {
        // The rows as one JSON array of arrays, read back by SQLite: one statement and one
        // string across the runtime, not a statement and nine values per row. `jsonb_each`
        // hands each row over as JSONB, which `->>` reads directly; `json_each` handed it
        // over as text, which SQLite printed and parsed again for every row.
        FeedWrite::Append(rows) => {
            let rows: Vec<_> = rows
                .iter()
                .map(|r| {
                    (
                        r.seq,
                        r.received_at,
                        r.outcome.as_str(),
                        &r.event_id,
                        &r.event_type,
                        &r.entity,
                        r.rows_written,
                        r.status,
                        &r.reason,
                    )
                })
                .collect();
            let rows = serde_json::to_string(&rows)
                .map_err(|e| worker::Error::RustError(e.to_string()))?;
            sql::run(
                sql,
                "INSERT INTO feed (seq, received_at, outcome, event_id, event_type, entity,
                   rows_written, status, reason)
                 SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4,
                   value ->> 5, value ->> 6, value ->> 7, value ->> 8
                 FROM jsonb_each(?)",
                &[text(&rows)],
            )?
        }
        FeedWrite::Window(w) => sql::run(
            sql,
            "INSERT INTO reject_window (id, minute, recorded, suppressed) VALUES (1, ?, ?, ?)
             ON CONFLICT (id) DO UPDATE SET minute = excluded.minute,
               recorded = excluded.recorded, suppressed = excluded.suppressed",
            &[
                int(w.minute),
                int(i64::from(w.recorded)),
                int(i64::try_from(w.suppressed).unwrap_or(i64::MAX)),
            ],
        )?,
        // One range of `seq`: up to the first row after `through` that is not too old, or
        // every row if none is. The subquery walks from `through` and stops there, where
        // `seq <= ? OR received_at < ?` scanned the whole feed (11 ms a prune at `keep`'s
        // 100,000 rows, natively).
        FeedWrite::Prune { through, before } => sql::run(
            sql,
            "DELETE FROM feed WHERE seq <= coalesce(
               (SELECT seq FROM feed WHERE seq > ?1 AND received_at >= ?2 ORDER BY seq LIMIT 1)
                 - 1,
               (SELECT max(seq) FROM feed))",
            &[int(*through), int(before.map_or(i64::MIN, |b| b.0))],
        )?,
        FeedWrite::PruneDead { keep } => sql::run(
            sql,
            "DELETE FROM dead WHERE (entity, event_id) NOT IN
               (SELECT entity, event_id FROM dead ORDER BY at DESC LIMIT ?)",
            &[int(i64::from(*keep))],
        )?,
        FeedWrite::Dead(d) => sql::run(
            sql,
            "INSERT OR REPLACE INTO dead (entity, event_id, attempts, last_result, at)
             VALUES (?, ?, ?, ?, ?)",
            &[
                text(d.entity.as_deref().unwrap_or_default()),
                text(&d.event_id),
                int(i64::from(d.attempts)),
                text(&d.last_result),
                int(d.at),
            ],
        )?,
        FeedWrite::Requeued { entity } => {
            sql::run(sql, "DELETE FROM dead WHERE entity = ?", &[text(entity)])?
        }
    };
    Ok(())
}

/// Adds `counts` to the source's counters.
fn add_counts(sql: &SqlStorage, counts: &[Count]) -> Result<()> {
    for c in counts {
        sql::run(
            sql,
            "INSERT INTO counter (family, label, value) VALUES (?, ?, ?)
             ON CONFLICT (family, label) DO UPDATE SET value = value + excluded.value",
            &[
                text(&c.family),
                text(&c.label),
                int(i64::try_from(c.by).unwrap_or(i64::MAX)),
            ],
        )?;
    }
    Ok(())
}

/// Keeps what `object` counted of its outbox rows; an object with none has no row.
fn keep_outbox_rows(sql: &SqlStorage, object: &str, s: &OutboxSnapshot) -> Result<()> {
    let count = |n: u64| int(i64::try_from(n).unwrap_or(i64::MAX));
    if s.pending == 0 && s.dead == 0 {
        sql::run(
            sql,
            "DELETE FROM outbox_rows WHERE object = ?",
            &[text(object)],
        )?;
    } else {
        sql::run(
            sql,
            "INSERT OR REPLACE INTO outbox_rows (object, pending, oldest_pending_at, dead)
             VALUES (?, ?, ?, ?)",
            &[
                text(object),
                count(s.pending),
                s.oldest_pending_at.map_or(sql::NULL, int),
                count(s.dead),
            ],
        )?;
    }
    Ok(())
}

/// The source's figures: its counters, and its objects' outbox rows summed.
fn figures(sql: &SqlStorage, source: String) -> Result<SourceFigures> {
    row! {
        struct Counter {
            family: String,
            label: String,
            value: i64,
        }
    }
    row! {
        struct Rows {
            pending: i64,
            oldest: Option<i64>,
            dead: i64,
        }
    }
    let counters: Vec<Counter> = sql
        .exec(
            "SELECT family, label, value FROM counter ORDER BY family, label",
            None,
        )?
        .all()?;
    let rows: Rows = sql
        .exec(
            "SELECT COALESCE(SUM(pending), 0) AS pending, MIN(oldest_pending_at) AS oldest,
                    COALESCE(SUM(dead), 0) AS dead
             FROM outbox_rows",
            None,
        )?
        .single()?;
    let n = |v: i64| u64::try_from(v).unwrap_or_default();
    Ok(SourceFigures {
        source,
        counters: counters
            .into_iter()
            .map(|c| Count {
                family: c.family,
                label: c.label,
                by: n(c.value),
            })
            .collect(),
        pending: n(rows.pending),
        oldest_pending_at: rows.oldest,
        dead: n(rows.dead),
    })
}

/// The read API path of an entity.
fn entity_path(source: &str, entity: &str) -> String {
    format!(
        "/entities/{}/{}",
        encode_component(source),
        encode_component(entity)
    )
}

impl FeedObject {
    fn events(&self, source: &str, q: &FeedQuery) -> Result<Response> {
        row! {
            struct Row {
                seq: i64,
                received_at: i64,
                outcome: String,
                event_id: Option<String>,
                event_type: Option<String>,
                entity: Option<String>,
                rows_written: i64,
                status: Option<i64>,
                reason: Option<String>,
            }
        }
        let before = q.before.map_or(sql::NULL, int);
        let outcome = opt_text(q.outcome.map(FeedOutcome::as_str));
        let kind = opt_text(q.kind.as_deref());
        let rows: Vec<Row> = self
            .state
            .storage()
            .sql()
            .exec_raw(
                "SELECT seq, received_at, outcome, event_id, event_type, entity, rows_written,
                        status, reason
                 FROM feed
                 WHERE (? IS NULL OR seq < ?) AND (? IS NULL OR outcome = ?)
                   AND (? IS NULL OR event_type = ?)
                 ORDER BY seq DESC LIMIT ?",
                vec![
                    before.clone(),
                    before,
                    outcome.clone(),
                    outcome,
                    kind.clone(),
                    kind,
                    int(i64::from(q.limit) + 1),
                ],
            )?
            .all()?;
        let returned = rows.len();
        let shown: Vec<FeedRow> = rows
            .into_iter()
            .take(q.limit as usize)
            .filter_map(|r| {
                Some(FeedRow {
                    seq: r.seq,
                    received_at: r.received_at,
                    outcome: FeedOutcome::parse(&r.outcome)?,
                    event_id: r.event_id,
                    event_type: r.event_type,
                    entity: r.entity,
                    rows_written: u32::try_from(r.rows_written).unwrap_or_default(),
                    status: r.status.and_then(|s| u16::try_from(s).ok()),
                    reason: r.reason,
                })
            })
            .collect();
        let cursor = next_cursor(returned, q.limit, shown.last().map(|r| r.seq));
        let suppressed = read_state(&self.state.storage().sql())?.window.suppressed;
        let events: Vec<Value> = shown
            .iter()
            .map(|r| {
                let mut row = json!({
                    "cursor": feed_cursor(r.seq),
                    "event_id": r.event_id,
                    "type": r.event_type,
                    "entity": r.entity,
                    "outcome": r.outcome.as_str(),
                    "rows_written": r.rows_written,
                    "received_at": r.received_at,
                });
                if let Some(e) = &r.entity {
                    row["entity_url"] = json!(entity_path(source, e));
                }
                if r.outcome == FeedOutcome::Rejected {
                    row["status"] = json!(r.status);
                    row["reason"] = json!(r.reason);
                }
                row
            })
            .collect();
        json_response(
            200,
            &json!({
                "source": source,
                "events": events,
                "cursor": cursor,
                "rejected_not_recorded": suppressed,
            }),
            "application/json",
        )
    }

    fn dead(&self, source: &str) -> Result<Response> {
        row! {
            struct Row {
                entity: String,
                event_id: String,
                attempts: i64,
                last_result: String,
                at: i64,
            }
        }
        let rows: Vec<Row> = self
            .state
            .storage()
            .sql()
            .exec(
                "SELECT entity, event_id, attempts, last_result, at FROM dead
                 ORDER BY at DESC, entity, event_id LIMIT 500",
                None,
            )?
            .all()?;
        let dead: Vec<Value> = rows
            .iter()
            .map(|r| {
                let has_entity = !r.entity.is_empty();
                json!({
                    "entity": has_entity.then_some(&r.entity),
                    "event_id": r.event_id,
                    "attempts": r.attempts,
                    "last_result": r.last_result,
                    "dead_at": r.at,
                    "entity_url": has_entity.then(|| entity_path(source, &r.entity)),
                    "retry_url": has_entity.then(|| format!(
                        "/admin/outbox/{}/{}/retry",
                        encode_component(source),
                        encode_component(&r.entity)
                    )),
                })
            })
            .collect();
        json_response(
            200,
            &json!({ "source": source, "dead": dead }),
            "application/json",
        )
    }
}
