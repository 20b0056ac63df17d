//! The feed object's store: its schema, and one typed call per statement. Each write is
//! one statement; the object runs a batch's in one transaction.

mod statements;

use hookonce_core::activity::Tally;
use hookonce_core::feed::{DeadLetter, FeedOutcome, FeedRow, FeedState, RejectWindow};
use hookonce_core::intake::SeenEntity;
use hookonce_core::metrics::{Count, DestinationRows, SourceFigures};
use hookonce_core::page::FeedQuery;
use hookonce_core::sweep::{CandidateQuery, Candidates};
use hookonce_core::time::UnixSeconds;
use worker::{Result, SqlStorage, State};

use super::rows::{row, ReadRows};
use super::sqlite::{self as sql, int, text};

/// A source's feed object's storage.
pub struct FeedStore {
    sql: SqlStorage,
}

row! {
    /// A dead letter as listed (`entity` is empty for an event without one).
    pub struct DeadRow {
        pub entity: String,
        pub event_id: String,
        pub destination: String,
        pub attempts: i64,
        pub last_result: String,
        pub at: i64,
    }
}

/// A page of the feed.
pub struct Page {
    /// Its rows, newest first, at most the query's limit.
    pub rows: Vec<FeedRow>,
    /// How many rows the read returned: one more than the limit when there are older ones.
    pub returned: usize,
}

fn count(n: u64) -> wasm_bindgen::JsValue {
    int(i64::try_from(n).unwrap_or(i64::MAX))
}

fn opt_text(s: Option<&str>) -> wasm_bindgen::JsValue {
    s.map_or(sql::NULL, text)
}

impl FeedStore {
    /// Creates the schema, for the object's constructor. A feed has no alarm to set.
    pub fn create(state: &State) {
        let _opened = sql::create(state, &[statements::SCHEMA]);
    }

    pub fn new(state: &State) -> FeedStore {
        FeedStore {
            sql: state.storage().sql(),
        }
    }

    /// What `feed::admit_batch` decides from.
    pub fn state(&self) -> Result<FeedState> {
        row! {
            struct Row {
                last_seq: i64,
                minute: Option<i64>,
                recorded: Option<i64>,
                suppressed: Option<i64>,
            }
        }
        let r: Row = self.sql.exec(statements::STATE, None)?.single()?;
        Ok(FeedState {
            last_seq: r.last_seq,
            window: RejectWindow {
                minute: r.minute.unwrap_or_default(),
                recorded: u32::try_from(r.recorded.unwrap_or_default()).unwrap_or(u32::MAX),
                suppressed: u64::try_from(r.suppressed.unwrap_or_default()).unwrap_or_default(),
            },
        })
    }

    pub fn append(&self, rows: &[FeedRow]) -> Result<()> {
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
        sql::run(&self.sql, statements::APPEND, &[sql::json_text(&rows)?]).map(drop)
    }

    pub fn window(&self, w: &RejectWindow) -> Result<()> {
        let values = [
            int(w.minute),
            int(i64::from(w.recorded)),
            count(w.suppressed),
        ];
        sql::run(&self.sql, statements::WINDOW, &values).map(drop)
    }

    pub fn prune(&self, through: i64, before: Option<UnixSeconds>) -> Result<()> {
        let before = int(before.map_or(i64::MIN, |b| b.0));
        sql::run(&self.sql, statements::PRUNE, &[int(through), before]).map(drop)
    }

    pub fn prune_dead(&self, keep: u32) -> Result<()> {
        sql::run(&self.sql, statements::PRUNE_DEAD, &[int(i64::from(keep))]).map(drop)
    }

    pub fn dead(&self, d: &DeadLetter) -> Result<()> {
        let values = [
            text(d.entity.as_deref().unwrap_or_default()),
            text(&d.event_id),
            text(&d.destination),
            int(i64::from(d.attempts)),
            text(&d.last_result),
            int(d.at),
        ];
        sql::run(&self.sql, statements::DEAD, &values).map(drop)
    }

    pub fn requeued(
        &self,
        entity: &str,
        destination: Option<&str>,
        events: &[String],
    ) -> Result<()> {
        let events = match events.is_empty() {
            true => sql::NULL,
            false => sql::json_text(&events)?,
        };
        let values = [text(entity), opt_text(destination), events];
        sql::run(&self.sql, statements::REQUEUED, &values).map(drop)
    }

    pub fn seen(&self, entities: &[SeenEntity]) -> Result<()> {
        let pairs: Vec<_> = entities.iter().map(|e| (&e.entity, e.at)).collect();
        sql::run(&self.sql, statements::SEEN, &[sql::json_text(&pairs)?]).map(drop)
    }

    pub fn forget_entities(&self, before: UnixSeconds) -> Result<()> {
        sql::run(&self.sql, statements::FORGET_ENTITIES, &[int(before.0)]).map(drop)
    }

    /// The page of candidate entities `q` asks for, in key order, of the source whose
    /// entity objects' names start with `prefix`.
    pub fn candidates(&self, q: &CandidateQuery, prefix: &str) -> Result<Vec<String>> {
        row! {
            struct Row {
                entity: String,
            }
        }
        let time = |t: Option<UnixSeconds>| t.map_or(sql::NULL, |t| int(t.0));
        let after = opt_text(q.after.as_deref());
        let limit = int(i64::from(q.limit));
        let (statement, values) = match &q.kind {
            Candidates::Dead {
                destination,
                since,
                until,
            } => (
                statements::DEAD_CANDIDATES,
                vec![
                    opt_text(destination.as_deref()),
                    time(*since),
                    time(*until),
                    after,
                    limit,
                    text(prefix),
                ],
            ),
            Candidates::Recorded { since } => (
                statements::RECORDED_CANDIDATES,
                vec![int(since.0), after, limit],
            ),
        };
        let rows: Vec<Row> = self.sql.exec_raw(statement, values)?.all()?;
        Ok(rows.into_iter().map(|r| r.entity).collect())
    }

    pub fn add_count(&self, c: &Count) -> Result<()> {
        let values = [text(&c.family), text(&c.label), count(c.by)];
        sql::run(&self.sql, statements::ADD_COUNT, &values).map(drop)
    }

    pub fn add_tally(&self, t: &Tally) -> Result<()> {
        let values = [int(t.minute), text(t.outcome.as_str()), count(t.count)];
        sql::run(&self.sql, statements::ADD_TALLY, &values).map(drop)
    }

    pub fn forget_minutes(&self, before: i64) -> Result<()> {
        sql::run(&self.sql, statements::FORGET_MINUTES, &[int(before)]).map(drop)
    }

    /// The per-minute tallies from minute `from` on.
    pub fn tallies(&self, from: i64) -> Result<Vec<Tally>> {
        row! {
            struct Row {
                minute: i64,
                outcome: String,
                count: i64,
            }
        }
        let rows: Vec<Row> = self
            .sql
            .exec_raw(statements::TALLIES, vec![int(from)])?
            .all()?;
        Ok(rows
            .into_iter()
            .filter_map(|r| {
                Some(Tally {
                    minute: r.minute,
                    outcome: FeedOutcome::parse(&r.outcome)?,
                    count: u64::try_from(r.count).ok()?,
                })
            })
            .collect())
    }

    pub fn keep_outbox(&self, object: &str, s: &DestinationRows) -> Result<()> {
        let values = [
            text(object),
            text(&s.destination),
            count(s.pending),
            s.oldest_pending_at.map_or(sql::NULL, int),
            count(s.dead),
        ];
        sql::run(&self.sql, statements::KEEP_OUTBOX, &values).map(drop)
    }

    pub fn forget_outbox(&self, object: &str) -> Result<()> {
        sql::run(&self.sql, statements::FORGET_OUTBOX, &[text(object)]).map(drop)
    }

    /// The source's figures for `/metrics`: its counters, and its objects' outbox rows
    /// summed, and summed per destination.
    pub fn figures(&self, source: String) -> Result<SourceFigures> {
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
        let counters: Vec<Counter> = self.sql.exec(statements::COUNTERS, None)?.all()?;
        let rows: Rows = self.sql.exec(statements::OUTBOX_SUMS, None)?.single()?;
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
            destinations: self.destination_rows()?,
        })
    }

    /// The source's objects' outbox rows summed per destination, in name order.
    pub fn destination_rows(&self) -> Result<Vec<DestinationRows>> {
        row! {
            struct Row {
                destination: String,
                pending: i64,
                oldest: Option<i64>,
                dead: i64,
            }
        }
        let rows: Vec<Row> = self.sql.exec(statements::DESTINATION_SUMS, None)?.all()?;
        let n = |v: i64| u64::try_from(v).unwrap_or_default();
        Ok(rows
            .into_iter()
            .map(|r| DestinationRows {
                destination: r.destination,
                pending: n(r.pending),
                oldest_pending_at: r.oldest,
                dead: n(r.dead),
            })
            .collect())
    }

    /// The page of the feed `q` asks for, and one row more if there is one.
    pub fn page(&self, q: &FeedQuery) -> Result<Page> {
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
        let values = vec![
            q.before.map_or(sql::NULL, int),
            opt_text(q.outcome.map(FeedOutcome::as_str)),
            opt_text(q.kind.as_deref()),
            int(i64::from(q.limit) + 1),
        ];
        let rows: Vec<Row> = self.sql.exec_raw(statements::PAGE, values)?.all()?;
        let returned = rows.len();
        let rows = rows
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
        Ok(Page { rows, returned })
    }

    /// The newest dead letters, at most 500.
    pub fn dead_letters(&self) -> Result<Vec<DeadRow>> {
        self.sql.exec(statements::DEAD_LETTERS, None)?.all()
    }
}
