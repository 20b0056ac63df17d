//! The entity store's reads for the read and admin API: a page of the entity (snapshot,
//! ledger, events, outbox rows), one record and its outbox rows, and the fingerprint that shows a replay
//! changed nothing.

use hookonce_core::event::EventId;
use hookonce_core::page::EntityCursor;

use super::entity::EntityStore;
use super::outbox::{OutboxRow, OUTBOX_ROWS};
use super::rows::{row, ReadRows};
use super::sqlite::{first, int, text};

/// Larger than any time or row number, and exact as a JavaScript number.
const SAFE_MAX: i64 = (1 << 53) - 1;

row! {
    /// The entity's snapshot row, as the read API shows it.
    pub struct SnapshotRow {
        pub state: String,
        pub version_secs: i64,
        pub version_nanos: i64,
        pub version_event: String,
        pub updated_at: i64,
    }
}

row! {
    /// The ledger's total, as text: each amount is a safe integer, their sum need not be,
    /// and the runtime hands integers to Rust as JavaScript numbers.
    pub struct Totals {
        pub total: String,
        pub entries: i64,
    }
}

row! {
    /// One ledger row, as the read API shows it.
    pub struct LedgerRow {
        pub event_id: String,
        pub amount: i64,
        pub recorded_at: i64,
    }
}

row! {
    /// One processed id in a page of the entity's events.
    pub struct EventRow {
        pub event_id: String,
        pub event_type: String,
        pub outcome: String,
        pub processed_at: i64,
    }
}

row! {
    /// One processed id, as `GET /events/…` shows it.
    pub struct RecordRow {
        pub event_type: String,
        pub outcome: String,
        pub created_at: Option<i64>,
        pub processed_at: i64,
    }
}

/// One page of the entity's events and outbox rows, newest first, with one row more of
/// each than a page holds when there is more.
pub struct Page {
    pub snapshot: Option<SnapshotRow>,
    pub totals: Totals,
    pub ledger: Vec<LedgerRow>,
    pub events: Vec<EventRow>,
    pub outbox: Vec<OutboxRow>,
}

impl EntityStore {
    /// The entity's snapshot and ledger, and one page of its events and outbox rows before
    /// `before` (core's `EntityCursor`); a list the cursor marks as exhausted is not read.
    pub fn page(
        &self,
        before: Option<&EntityCursor>,
        events: u32,
        outbox: u32,
    ) -> worker::Result<Page> {
        let sql = self.sql();
        let snapshot: Option<SnapshotRow> = sql
            .exec(
                "SELECT state, version_secs, version_nanos, version_event, updated_at FROM entity WHERE id = 1",
                None,
            )?
            .first()?;
        let totals: Totals = sql
            .exec(
                "SELECT CAST(COALESCE(SUM(amount), 0) AS TEXT) AS total, COUNT(*) AS entries FROM ledger",
                None,
            )?
            .single()?;
        let ledger: Vec<LedgerRow> = sql
            .exec_raw(
                "SELECT event_id, amount, recorded_at FROM ledger
                 ORDER BY recorded_at DESC, event_id DESC LIMIT ?",
                vec![int(i64::from(events))],
            )?
            .all()?;
        let (events_from, outbox_from) = match before {
            // The first page: above every time and seq (a JavaScript-safe integer).
            None => (Some((SAFE_MAX, String::new())), Some(SAFE_MAX)),
            Some(c) => (c.events.clone(), c.outbox),
        };
        let events: Vec<EventRow> = match &events_from {
            None => Vec::new(),
            Some((at, id)) => sql
                .exec_raw(
                    "SELECT event_id, event_type, outcome, processed_at FROM events
                     WHERE processed_at < ? OR (processed_at = ? AND event_id < ?)
                     ORDER BY processed_at DESC, event_id DESC LIMIT ?",
                    vec![int(*at), int(*at), text(id), int(i64::from(events) + 1)],
                )?
                .all()?,
        };
        let outbox: Vec<OutboxRow> = match outbox_from {
            None => Vec::new(),
            Some(seq) => sql
                .exec_raw(
                    &format!("{OUTBOX_ROWS} WHERE seq < ? ORDER BY seq DESC LIMIT ?"),
                    vec![int(seq), int(i64::from(outbox) + 1)],
                )?
                .all()?,
        };
        Ok(Page {
            snapshot,
            totals,
            ledger,
            events,
            outbox,
        })
    }

    /// The outbox rows of event `id`, one per destination that took it, oldest first.
    pub fn deliveries(&self, id: &EventId) -> worker::Result<Vec<OutboxRow>> {
        self.sql()
            .exec_raw(
                &format!("{OUTBOX_ROWS} WHERE event_id = ? ORDER BY seq"),
                vec![text(id.as_str())],
            )?
            .all()
    }

    /// The processed id `id`, if recorded.
    pub fn record(&self, id: &EventId) -> worker::Result<Option<RecordRow>> {
        first(
            self.sql(),
            "SELECT event_type, outcome, created_at, processed_at FROM events WHERE event_id = ?",
            vec![text(id.as_str())],
        )
    }

    /// What became of `id`, as recorded, if it is.
    pub fn outcome(&self, id: &EventId) -> worker::Result<Option<String>> {
        row! {
            struct Row {
                outcome: String,
            }
        }
        let seen: Option<Row> = first(
            self.sql(),
            "SELECT outcome FROM events WHERE event_id = ?",
            vec![text(id.as_str())],
        )?;
        Ok(seen.map(|r| r.outcome))
    }

    /// Everything a replay could touch, to show that it touched nothing.
    pub fn fingerprint(&self) -> worker::Result<String> {
        row! {
            struct Row {
                f: String,
            }
        }
        let row: Row = self
            .sql()
            .exec(
                "SELECT (SELECT COUNT(*) FROM events) || ':' ||
                        (SELECT COALESCE(MAX(processed_at), 0) FROM events) || ':' ||
                        (SELECT COALESCE(SUM(amount), 0) || '/' || COUNT(*) FROM ledger) || ':' ||
                        (SELECT COUNT(*) FROM outbox) || ':' ||
                        COALESCE((SELECT state || '@' || updated_at FROM entity WHERE id = 1), '') AS f",
                None,
            )?
            .single()?;
        Ok(row.f)
    }
}
