//! The outbox's rows, in entity and key objects alike: a row enqueued with its kept body,
//! the head read for the alarm's `Drain`, each row's transition written only while the
//! row is as it was read, requeued dead letters, and what pruning and `/metrics` read.
//! Every status written here comes from core's `OutboxStatus`, bound as a parameter.

use hookonce_core::config::DEFAULT_DESTINATION;
use hookonce_core::entity::requeue::DeadRow;
use hookonce_core::entity::resend::KeptEvent;
use hookonce_core::feed::DeadLetter;
use hookonce_core::metrics::{DestinationRows, OutboxSnapshot};
use hookonce_core::outbox::{Head, Order, OutboxStatus, Transition};
use hookonce_core::retention::{Kept, Prune};
use hookonce_core::time::UnixSeconds;
use worker::SqlStorage;

use super::entity::unpacked;
use super::rows::{row, ReadRows};
use super::schema::INSERT_OUTBOX;
use super::sqlite::{first, int, json_text, run, text, NULL};

/// Where an outbox row goes: its own URL (a published message), or its source's
/// destination of this name.
#[derive(Clone, Copy)]
pub enum To<'a> {
    Url(&'a str),
    Named(&'a str),
}

/// Appends a pending row to the outbox, due now, sending the body just kept. The
/// destination `default` is stored as NULL, as rows from before names were.
pub fn enqueue(
    sql: &SqlStorage,
    event_id: &str,
    source: &str,
    to: To<'_>,
    now: UnixSeconds,
) -> worker::Result<usize> {
    let (url, name) = match to {
        To::Url(url) => (text(url), NULL),
        To::Named(DEFAULT_DESTINATION) => (NULL, NULL),
        To::Named(name) => (NULL, text(name)),
    };
    run(
        sql,
        INSERT_OUTBOX,
        &[
            text(event_id),
            text(source),
            url,
            text(OutboxStatus::Pending.as_str()),
            int(now.0),
            name,
        ],
    )
}

/// The columns the read APIs show of an outbox row; append a `WHERE`/`ORDER BY`.
pub const OUTBOX_ROWS: &str = "SELECT seq, event_id, COALESCE(dest_name, 'default') AS destination,
       status, attempts, next_attempt_at, last_result, done_at FROM outbox";

row! {
    /// One outbox row as the read APIs show it ([`OUTBOX_ROWS`]).
    pub struct OutboxRow {
        pub seq: i64,
        pub event_id: String,
        pub destination: String,
        pub status: String,
        pub attempts: i64,
        pub next_attempt_at: i64,
        pub last_result: Option<String>,
        pub done_at: Option<i64>,
    }
}

/// A row to send, with what sending it needs.
pub struct Due {
    pub head: Head,
    pub event_id: String,
    pub source: String,
    /// A published message's own URL.
    pub url: Option<String>,
    /// Its source's destination; `None`: `default`.
    pub dest_name: Option<String>,
    pub body: Option<Vec<u8>>,
}

/// Whether the row `o` is the first pending row of its destination: no pending row of the
/// same destination (own URL rows count as one) comes before it.
const FIRST_OF_ITS_DESTINATION: &str = "NOT EXISTS (SELECT 1 FROM outbox p
       WHERE p.status = o.status AND p.seq < o.seq AND p.dest_name IS o.dest_name)";

/// The condition on a row `o` that [`Order`] lets go next, among the due ones.
fn first_only(order: Order) -> &'static str {
    match order {
        Order::HeadOfLine => FIRST_OF_ITS_DESTINATION,
        Order::EachDue => "1",
    }
}

/// The next row to send ([`Order`]): the first pending row after `after` that is due at
/// `now`; for [`Order::HeadOfLine`], only one that is its destination's first pending row.
pub fn head(
    sql: &SqlStorage,
    order: Order,
    after: i64,
    now: UnixSeconds,
) -> worker::Result<Option<Due>> {
    row! {
        struct Pending {
            seq: i64,
            event_id: String,
            source: String,
            attempts: i64,
            first_attempt_at: Option<i64>,
            next_attempt_at: i64,
            destination: Option<String>,
            dest_name: Option<String>,
            codec: Option<i64>,
            body: Option<Vec<u8>>,
        }
    }
    const COLUMNS: &str = "SELECT o.seq, o.event_id, o.source, o.attempts, o.first_attempt_at,
                o.next_attempt_at, o.destination, o.dest_name, b.codec, b.body
         FROM outbox o LEFT JOIN raw_bodies b ON b.seq = o.body_seq AND b.event_id = o.event_id";
    let pending = text(OutboxStatus::Pending.as_str());
    let first_only = first_only(order);
    let row: Option<Pending> = first(
        sql,
        &format!(
            "{COLUMNS} WHERE o.status = ? AND o.seq > ? AND o.next_attempt_at <= ?
             AND {first_only} ORDER BY o.seq LIMIT 1"
        ),
        vec![pending, int(after), int(now.0)],
    )?;
    Ok(row.map(|r| Due {
        head: Head {
            seq: r.seq,
            attempts: u32::try_from(r.attempts).unwrap_or(0),
            first_attempt_at: r.first_attempt_at.map(UnixSeconds),
            next_attempt_at: UnixSeconds(r.next_attempt_at),
        },
        event_id: r.event_id,
        source: r.source,
        url: r.destination,
        dest_name: r.dest_name,
        body: r.body.and_then(|b| unpacked(r.codec.unwrap_or(0), b)),
    }))
}

/// A row's event, as `deliver = "latest"` weighs it (core's `drain::Weighed`, its
/// effect looked up by the caller).
pub struct Weigh {
    pub event_id: String,
    pub event_type: String,
    pub created_at: Option<i64>,
}

/// The event of row `seq`, and of the next pending row of its destination after it (an
/// entity object's rows: their events are in its `events` table). `outbox_by_status`
/// finds the next row in one range of the index.
pub fn successor(sql: &SqlStorage, seq: i64) -> worker::Result<(Option<Weigh>, Option<Weigh>)> {
    row! {
        struct Weighed {
            event_id: String,
            event_type: String,
            created_at: Option<i64>,
        }
    }
    let of = |query: &str| -> worker::Result<Option<Weigh>> {
        let found: Option<Weighed> = first(
            sql,
            query,
            vec![int(seq), text(OutboxStatus::Pending.as_str())],
        )?;
        Ok(found.map(|w| Weigh {
            event_id: w.event_id,
            event_type: w.event_type,
            created_at: w.created_at,
        }))
    };
    let head = of("SELECT e.event_id, e.event_type, e.created_at
         FROM outbox o JOIN events e ON e.event_id = o.event_id
         WHERE o.seq = ?1 AND o.status = ?2")?;
    let next = of("SELECT e.event_id, e.event_type, e.created_at
         FROM outbox o JOIN events e ON e.event_id = o.event_id
         WHERE o.seq = (SELECT p.seq FROM outbox h JOIN outbox p ON p.status = ?2
           AND p.seq > h.seq AND p.dest_name IS h.dest_name AND p.destination IS h.destination
           WHERE h.seq = ?1 ORDER BY p.seq LIMIT 1)")?;
    Ok((head, next))
}

/// An entity object's rows, as a [`start`] condition: whether it holds any event or body
/// ([`start`] counts its outbox rows too, when the outbox is a table).
pub const HOLDS_ROWS: &str = "EXISTS (SELECT 1 FROM events) OR EXISTS (SELECT 1 FROM raw_bodies)";

/// What an object's constructor reads: when its first pending row is due, and (with a
/// condition such as [`HOLDS_ROWS`]) whether it holds rows at all.
pub struct Start {
    pub due: Option<UnixSeconds>,
    pub holds_rows: bool,
}

/// Reads [`Start`] in one statement; without `held`, `holds_rows` is true. With a `queue`
/// (an outbox table, [`Opened::queue`]) an outbox row is held too; without one, nothing is
/// due and the outbox is not read.
pub fn start(sql: &SqlStorage, held: Option<&str>, queue: bool) -> worker::Result<Start> {
    row! {
        struct Row {
            at: Option<i64>,
            held: i64,
        }
    }
    let held = held.unwrap_or("1");
    let row: Row = match queue {
        true => sql.exec_raw(
            &format!(
                "SELECT (SELECT MIN(next_attempt_at) FROM outbox WHERE status = ?) AS at,
                   ({held}) OR EXISTS (SELECT 1 FROM outbox) AS held"
            ),
            vec![text(OutboxStatus::Pending.as_str())],
        )?,
        false => sql.exec(&format!("SELECT NULL AS at, ({held}) AS held"), None)?,
    }
    .single()?;
    Ok(Start {
        due: row.at.map(UnixSeconds),
        holds_rows: row.held != 0,
    })
}

/// When the first row [`Order`] lets go next is due: the earliest pending row, or for
/// [`Order::HeadOfLine`] the earliest of the destinations' first pending rows; rows bound
/// for the source's destinations named in `held` are left out.
pub fn earliest(
    sql: &SqlStorage,
    order: Order,
    held: &[String],
) -> worker::Result<Option<UnixSeconds>> {
    row! {
        struct At {
            at: Option<i64>,
        }
    }
    let first_only = first_only(order);
    // Rows bound for a held destination of the source (not a published message's own URL).
    let not_held = match held.len() {
        0 => String::new(),
        n => format!(
            " AND NOT (o.destination IS NULL AND COALESCE(o.dest_name, '{DEFAULT_DESTINATION}') IN ({}))",
            vec!["?"; n].join(", ")
        ),
    };
    let mut values = vec![text(OutboxStatus::Pending.as_str())];
    values.extend(held.iter().map(|d| text(d)));
    let at: Option<At> = first(
        sql,
        &format!(
            "SELECT MIN(o.next_attempt_at) AS at FROM outbox o WHERE o.status = ? AND {first_only}{not_held}"
        ),
        values,
    )?;
    Ok(at.and_then(|a| a.at).map(UnixSeconds))
}

/// Carries out one row's change of state, only while the row is still pending with
/// `if_attempts` attempts made (as the run that decided it read it); returns whether it did.
pub fn transition(sql: &SqlStorage, t: &Transition, if_attempts: u32) -> worker::Result<bool> {
    let pending = text(OutboxStatus::Pending.as_str());
    let written = match t {
        Transition::Finish {
            seq,
            status,
            attempts,
            first_attempt_at,
            result,
            at,
        } => run(
            sql,
            "UPDATE outbox SET status = ?, attempts = ?, first_attempt_at = ?, last_result = ?,
               done_at = ? WHERE seq = ? AND status = ? AND attempts = ?",
            &[
                text(status.as_str()),
                int(i64::from(*attempts)),
                int(first_attempt_at.0),
                text(result),
                int(at.0),
                int(*seq),
                pending,
                int(i64::from(if_attempts)),
            ],
        )?,
        Transition::Retry {
            seq,
            attempts,
            first_attempt_at,
            next_attempt_at,
            result,
        } => run(
            sql,
            "UPDATE outbox SET attempts = ?, first_attempt_at = ?, next_attempt_at = ?,
               last_result = ? WHERE seq = ? AND status = ? AND attempts = ?",
            &[
                int(i64::from(*attempts)),
                int(first_attempt_at.0),
                int(next_attempt_at.0),
                text(result),
                int(*seq),
                pending,
                int(i64::from(if_attempts)),
            ],
        )?,
        Transition::Supersede { seq, by, at } => run(
            sql,
            "UPDATE outbox SET status = ?, last_result = 'superseded by ' || ?, done_at = ?
               WHERE seq = ? AND status = ? AND attempts = ?",
            &[
                text(OutboxStatus::Superseded.as_str()),
                text(by),
                int(at.0),
                int(*seq),
                pending,
                int(i64::from(if_attempts)),
            ],
        )?,
    };
    Ok(written > 0)
}

/// The dead rows, in `seq` order, with their events' types (empty for an event no longer
/// recorded), for a requeue to pick from.
pub fn dead_rows(sql: &SqlStorage) -> worker::Result<Vec<DeadRow>> {
    row! {
        struct Dead {
            seq: i64,
            event_id: String,
            destination: String,
            event_type: String,
            reason: String,
            done_at: Option<i64>,
        }
    }
    let rows: Vec<Dead> = sql
        .exec_raw(
            "SELECT o.seq, o.event_id, COALESCE(o.dest_name, ?2) AS destination,
               COALESCE(e.event_type, '') AS event_type, COALESCE(o.last_result, '') AS reason,
               o.done_at
             FROM outbox o LEFT JOIN events e ON e.event_id = o.event_id
             WHERE o.status = ?1 ORDER BY o.seq",
            vec![text(OutboxStatus::Dead.as_str()), text(DEFAULT_DESTINATION)],
        )?
        .all()?;
    Ok(rows
        .into_iter()
        .map(|r| DeadRow {
            seq: r.seq,
            event_id: r.event_id,
            destination: r.destination,
            event_type: r.event_type,
            reason: r.reason,
            died_at: r.done_at,
        })
        .collect())
}

/// Puts the dead rows `seqs` back in the queue where they were, due at `at`, their
/// attempts starting over; returns how many (counted from `RETURNING`: rows written count
/// the status index's entries too).
pub fn requeue_rows(sql: &SqlStorage, seqs: &[i64], at: UnixSeconds) -> worker::Result<usize> {
    sql.exec_raw(
        "UPDATE outbox SET status = ?1, attempts = 0, first_attempt_at = NULL,
               next_attempt_at = ?2, done_at = NULL
             WHERE status = ?3 AND seq IN (SELECT value FROM json_each(?4)) RETURNING seq",
        vec![
            text(OutboxStatus::Pending.as_str()),
            int(at.0),
            text(OutboxStatus::Dead.as_str()),
            json_text(&seqs)?,
        ],
    )?
    .count_rows()
}

/// The destination's `dest_name`: NULL for `default`, as [`enqueue`] writes it.
fn dest_name(destination: &str) -> wasm_bindgen::JsValue {
    match destination {
        DEFAULT_DESTINATION => NULL,
        name => text(name),
    }
}

row! {
    /// An event as a redelivery or a backfill reads it.
    struct KeptRow {
        event_id: String,
        event_type: String,
        outcome: String,
        body: i64,
        queued: i64,
    }
}

/// Whether the event `e` still has its body.
const BODY_KEPT: &str =
    "EXISTS (SELECT 1 FROM raw_bodies b WHERE b.seq = e.body_seq AND b.event_id = e.event_id)";

fn kept_event(k: KeptRow) -> KeptEvent {
    KeptEvent {
        event_id: k.event_id,
        event_type: k.event_type,
        outcome: k.outcome,
        body: k.body != 0,
        queued: k.queued != 0,
    }
}

/// The recorded event `id`, whether its body is kept, for a redelivery.
pub fn kept_event_of(sql: &SqlStorage, id: &str) -> worker::Result<Option<KeptEvent>> {
    let row: Option<KeptRow> = first(
        sql,
        &format!(
            "SELECT e.event_id, e.event_type, e.outcome, {BODY_KEPT} AS body, 0 AS queued
             FROM events e WHERE e.event_id = ?"
        ),
        vec![text(id)],
    )?;
    Ok(row.map(kept_event))
}

/// The events recorded at or after `since`, in arrival order (their bodies' `seq`), with
/// whether each body is kept and whether `destination` has a row of it already.
pub fn kept_since(
    sql: &SqlStorage,
    destination: &str,
    since: UnixSeconds,
) -> worker::Result<Vec<KeptEvent>> {
    let rows: Vec<KeptRow> = sql
        .exec_raw(
            &format!(
                "SELECT e.event_id, e.event_type, e.outcome, {BODY_KEPT} AS body,
                   e.event_id IN (SELECT event_id FROM outbox
                                  WHERE COALESCE(dest_name, ?2) = ?3) AS queued
                 FROM events e WHERE e.processed_at >= ?1
                 ORDER BY e.body_seq, e.processed_at"
            ),
            vec![int(since.0), text(DEFAULT_DESTINATION), text(destination)],
        )?
        .all()?;
    Ok(rows.into_iter().map(kept_event).collect())
}

/// Appends a pending row sending the recorded event's kept body to `destination` of its
/// source, due at `at`; returns its `seq`.
pub fn enqueue_kept(
    sql: &SqlStorage,
    event_id: &str,
    source: &str,
    destination: &str,
    at: UnixSeconds,
) -> worker::Result<i64> {
    row! {
        struct Seq {
            seq: i64,
        }
    }
    let row: Seq = sql
        .exec_raw(
            "INSERT INTO outbox (event_id, source, destination, status, enqueued_at,
               next_attempt_at, body_seq, dest_name)
             SELECT e.event_id, ?2, NULL, ?3, ?4, ?4, e.body_seq, ?5 FROM events e
             WHERE e.event_id = ?1 RETURNING seq",
            vec![
                text(event_id),
                text(source),
                text(OutboxStatus::Pending.as_str()),
                int(at.0),
                dest_name(destination),
            ],
        )?
        .single()?;
    Ok(row.seq)
}

/// Moves `destination`'s pending rows with a `seq` below `before` behind every row, in
/// their order; returns how many. Each moves by the same shift, from the first of them to
/// just past the last row, so they stay apart and in order, and `seq`s grow by the span
/// moved, never doubling (they are read as JavaScript numbers).
pub fn move_behind(sql: &SqlStorage, destination: &str, before: i64) -> worker::Result<usize> {
    row! {
        struct Span {
            top: Option<i64>,
            low: Option<i64>,
        }
    }
    let pending = text(OutboxStatus::Pending.as_str());
    let mine = "status = ?1 AND COALESCE(dest_name, ?2) = ?3 AND seq < ?4";
    let args = || {
        vec![
            pending.clone(),
            text(DEFAULT_DESTINATION),
            text(destination),
            int(before),
        ]
    };
    let span: Span = sql
        .exec_raw(
            &format!(
                "SELECT (SELECT MAX(seq) FROM outbox) AS top,
                        (SELECT MIN(seq) FROM outbox WHERE {mine}) AS low"
            ),
            args(),
        )?
        .single()?;
    let (Some(top), Some(low)) = (span.top, span.low) else {
        return Ok(0);
    };
    let mut bound = args();
    bound.push(int(top - low + 1));
    sql.exec_raw(
        &format!("UPDATE outbox SET seq = seq + ?5 WHERE {mine} RETURNING seq"),
        bound,
    )?
    .count_rows()
}

/// What pruning needs to know: the oldest body, pending and delivered row. A pending
/// row's time is that of its body when that is older (a redelivered or backfilled row).
pub fn kept(sql: &SqlStorage) -> worker::Result<Kept> {
    row! {
        struct Oldest {
            body: Option<i64>,
            pending: Option<i64>,
            delivered: Option<i64>,
        }
    }
    let row: Option<Oldest> = first(
        sql,
        "SELECT (SELECT kept_at FROM raw_bodies ORDER BY seq LIMIT 1) AS body,
                (SELECT MIN(MIN(o.enqueued_at, COALESCE(b.kept_at, o.enqueued_at)))
                   FROM outbox o
                   LEFT JOIN raw_bodies b ON b.seq = o.body_seq AND b.event_id = o.event_id
                   WHERE o.status = ?) AS pending,
                (SELECT done_at FROM outbox WHERE status IN (?, ?) ORDER BY seq LIMIT 1)
                  AS delivered",
        vec![
            text(OutboxStatus::Pending.as_str()),
            text(OutboxStatus::Delivered.as_str()),
            text(OutboxStatus::Superseded.as_str()),
        ],
    )?;
    Ok(row.map_or_else(Kept::default, |r| Kept {
        oldest_body: r.body.map(UnixSeconds),
        oldest_pending: r.pending.map(UnixSeconds),
        oldest_delivered: r.delivered.map(UnixSeconds),
    }))
}

/// The object's outbox rows for `/metrics` and the inspector, per destination with a row
/// pending or dead: pending, the oldest pending's time, dead. `outbox_by_status` makes the
/// rows read two ranges of the index.
pub fn outbox_rows(sql: &SqlStorage) -> worker::Result<OutboxSnapshot> {
    row! {
        struct Counted {
            dest: String,
            pending: i64,
            oldest: Option<i64>,
            dead: i64,
        }
    }
    let rows: Vec<Counted> = sql
        .exec_raw(
            "SELECT COALESCE(dest_name, 'default') AS dest,
                    SUM(status = ?1) AS pending,
                    MIN(CASE WHEN status = ?1 THEN enqueued_at END) AS oldest,
                    SUM(status = ?2) AS dead
             FROM outbox WHERE status IN (?1, ?2)
             GROUP BY dest ORDER BY dest",
            vec![
                text(OutboxStatus::Pending.as_str()),
                text(OutboxStatus::Dead.as_str()),
            ],
        )?
        .all()?;
    let n = |v: i64| u64::try_from(v).unwrap_or_default();
    Ok(OutboxSnapshot {
        destinations: rows
            .into_iter()
            .map(|r| DestinationRows {
                destination: r.dest,
                pending: n(r.pending),
                oldest_pending_at: r.oldest,
                dead: n(r.dead),
            })
            .collect(),
    })
}

/// Carries out one prune; returns the rows it deleted. Each walks its table oldest first
/// and stops at the first row too young to go (the `COALESCE` bound), so it reads what it
/// deletes, not the whole table; a row out of order (a clock step back) goes later, never
/// early.
pub fn prune(sql: &SqlStorage, p: Prune) -> worker::Result<usize> {
    let deleted = match p {
        Prune::Bodies { kept_before, limit } => sql.exec_raw(
            "DELETE FROM raw_bodies WHERE seq IN (
               SELECT seq FROM raw_bodies WHERE kept_at < ?1 AND seq < COALESCE(
                 (SELECT seq FROM raw_bodies WHERE kept_at >= ?1 ORDER BY seq LIMIT 1),
                 9007199254740991)
               ORDER BY seq LIMIT ?2)
             RETURNING seq",
            vec![int(kept_before.0), int(i64::from(limit))],
        )?,
        // Superseded rows go with the delivered ones: both are done and sent nothing more.
        Prune::Delivered { done_before, limit } => sql.exec_raw(
            "DELETE FROM outbox WHERE seq IN (
               SELECT seq FROM outbox WHERE status IN (?1, ?4) AND done_at < ?2 AND seq < COALESCE(
                 (SELECT seq FROM outbox WHERE status IN (?1, ?4) AND done_at >= ?2
                  ORDER BY seq LIMIT 1),
                 9007199254740991)
               ORDER BY seq LIMIT ?3)
             RETURNING seq",
            vec![
                text(OutboxStatus::Delivered.as_str()),
                int(done_before.0),
                int(i64::from(limit)),
                text(OutboxStatus::Superseded.as_str()),
            ],
        )?,
        Prune::Ids {
            processed_before,
            limit,
        } => sql.exec_raw(
            "DELETE FROM events WHERE event_id IN (
               SELECT event_id FROM events WHERE processed_at < ? LIMIT ?)
             RETURNING 1 AS seq",
            vec![int(processed_before.0), int(i64::from(limit))],
        )?,
    };
    deleted.count_rows()
}

/// The rows that died at or after `since`, as dead letters of no entity (the object
/// knows its entity).
pub fn dead_since(sql: &SqlStorage, since: UnixSeconds) -> worker::Result<Vec<DeadLetter>> {
    row! {
        struct Dead {
            event_id: String,
            destination: String,
            attempts: i64,
            last_result: Option<String>,
            done_at: i64,
        }
    }
    let rows: Vec<Dead> = sql
        .exec_raw(
            "SELECT event_id, COALESCE(dest_name, ?3) AS destination, attempts, last_result,
               done_at FROM outbox WHERE status = ?1 AND done_at >= ?2",
            vec![
                text(OutboxStatus::Dead.as_str()),
                int(since.0),
                text(DEFAULT_DESTINATION),
            ],
        )?
        .all()?;
    Ok(rows
        .into_iter()
        .map(|r| DeadLetter {
            entity: None,
            event_id: r.event_id,
            destination: r.destination,
            attempts: u32::try_from(r.attempts).unwrap_or_default(),
            last_result: r.last_result.unwrap_or_default(),
            at: r.done_at,
        })
        .collect())
}
