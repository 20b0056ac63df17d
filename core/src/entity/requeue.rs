//! [`Requeue`]: an entity object's dead letters back in the queue, as a sequence the
//! adapter carries out like [`Ingest`](super::Ingest). `POST /admin/outbox/…/retry` asks
//! it of one entity (one destination's letters, or every configured one's), and
//! `POST /admin/requeue/{source}` of each entity of a page ([`crate::sweep`]), with a
//! [`DeadFilter`] (destination, event type, when the row died, its last result) and
//! optionally as a dry run, which counts and changes nothing.
//!
//! The object reads its dead rows and the filter picks them here, exactly: the feed only
//! names candidate entities. A row put back keeps its `seq`, so it goes where it was in
//! its destination's queue (per-entity order holds), due now, its attempts starting over;
//! the alarm is set for it, and the feed's dead-letter list told to forget it.

use serde::{Deserialize, Serialize};

pub use crate::dead::{DeadFilter, DeadRow};
use crate::feed::Note;
use crate::sweep::Tally;
use crate::time::UnixSeconds;

/// Why a requeue left a destination's dead letters dead.
pub const SKIPPED_REMOVED: &str =
    "destination removed from the configuration: requeued, its rows would die again at once";

/// A count of an entity's dead letters of one destination.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeadCount {
    /// The destination (`default` for rows that name none).
    pub destination: String,
    /// How many rows.
    pub rows: usize,
}

/// A destination's dead letters a requeue left dead, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// The destination.
    pub destination: String,
    /// Its dead rows, left dead.
    pub rows: usize,
    /// Why.
    pub reason: String,
}

/// What a requeue answers; summed over the entities of a page ([`Tally`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Requeued {
    /// Rows put back in the queue, attempts starting over (0 in a dry run).
    pub requeued: usize,
    /// The rows the filter matched that go back (or would, in a dry run), per destination
    /// in name order.
    #[serde(default)]
    pub matched: Vec<DeadCount>,
    /// Rows left dead, per destination.
    pub skipped: Vec<Skipped>,
}

impl Requeued {
    /// The rows matched, all destinations together.
    #[must_use]
    pub fn matched_rows(&self) -> usize {
        self.matched.iter().map(|m| m.rows).sum()
    }
}

impl Tally for Requeued {
    fn add(&mut self, other: Requeued) {
        self.requeued += other.requeued;
        add_rows(
            &mut self.matched,
            other.matched,
            |c| &c.destination,
            |c| &mut c.rows,
        );
        self.matched
            .sort_by(|a, b| a.destination.cmp(&b.destination));
        add_rows(
            &mut self.skipped,
            other.skipped,
            |s| &s.destination,
            |s| &mut s.rows,
        );
    }
}

/// Adds each of `from`'s rows to `into`'s count of the same destination, or appends it.
fn add_rows<T>(
    into: &mut Vec<T>,
    from: impl IntoIterator<Item = T>,
    name: fn(&T) -> &String,
    rows: fn(&mut T) -> &mut usize,
) {
    for mut item in from {
        let n = *rows(&mut item);
        match into.iter_mut().find(|c| name(c) == name(&item)) {
            Some(c) => *rows(c) += n,
            None => into.push(item),
        }
    }
}

/// What the adapter does next for a requeue.
#[must_use]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequeueCommand<'a> {
    /// Read the dead rows, in `seq` order; then [`RequeueInput::Dead`].
    ReadDead,
    /// Put these dead rows of one destination back in the queue, attempts at 0, due at
    /// `at`; then [`RequeueInput::Requeued`].
    Requeue {
        /// The destination.
        destination: &'a str,
        /// The rows.
        seqs: Vec<i64>,
        /// When they are due.
        at: UnixSeconds,
    },
    /// Make sure the alarm fires no later than this; then [`RequeueInput::AlarmSet`].
    SetAlarm(UnixSeconds),
    /// Post `note` to `source`'s feed; then [`RequeueInput::Noted`].
    Note {
        /// The feed's source.
        source: &'a str,
        /// The note.
        note: Note,
    },
    /// Answer: the end.
    Answer(Requeued),
}

/// What a requeue command came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequeueInput {
    /// What [`RequeueCommand::ReadDead`] read.
    Dead(Vec<DeadRow>),
    /// The rows [`RequeueCommand::Requeue`] put back.
    Requeued(usize),
    /// [`RequeueCommand::SetAlarm`] is done.
    AlarmSet,
    /// [`RequeueCommand::Note`] is done.
    Noted,
}

/// One destination's rows to put back.
#[derive(Debug)]
struct Batch<'a> {
    destination: &'a str,
    seqs: Vec<i64>,
    events: Vec<String>,
}

/// One requeue of an entity object's dead letters that `filter` admits. A destination no
/// longer configured keeps its letters dead (the drain would kill them again at once:
/// `destination removed`); the answer counts them.
#[derive(Debug)]
pub struct Requeue<'a> {
    source: Option<&'a str>,
    entity: Option<&'a str>,
    now: UnixSeconds,
    filter: &'a DeadFilter,
    dry_run: bool,
    configured: &'a [&'a str],
    /// The destinations to requeue, in name order, once read; the next is `todo[done]`.
    todo: Vec<Batch<'a>>,
    done: usize,
    noted: usize,
    answer: Requeued,
}

impl<'a> Requeue<'a> {
    /// A requeue at `now` in the object of `source` and `entity` (from its name), whose
    /// outbox is a table (`queue`) or not (a placeholder holds no dead letters, and takes
    /// no `UPDATE`), of the rows `filter` admits, given the source's `configured`
    /// destinations; a `dry_run` only counts them.
    pub fn start(
        source: Option<&'a str>,
        entity: Option<&'a str>,
        queue: bool,
        now: UnixSeconds,
        filter: &'a DeadFilter,
        dry_run: bool,
        configured: &'a [&'a str],
    ) -> (Requeue<'a>, RequeueCommand<'a>) {
        let requeue = Requeue {
            source,
            entity,
            now,
            filter,
            dry_run,
            configured,
            todo: Vec::new(),
            done: 0,
            noted: 0,
            answer: Requeued::default(),
        };
        let first = match queue {
            true => RequeueCommand::ReadDead,
            false => RequeueCommand::Answer(Requeued::default()),
        };
        (requeue, first)
    }

    /// Sorts the rows the filter admits into batches per configured destination, and
    /// counts those of removed ones as skipped.
    fn sort(&mut self, rows: Vec<DeadRow>) {
        for row in rows.into_iter().filter(|r| self.filter.admits(r)) {
            let Some(name) = self.configured.iter().find(|c| **c == row.destination) else {
                let skipped = Skipped {
                    destination: row.destination,
                    rows: 1,
                    reason: SKIPPED_REMOVED.to_owned(),
                };
                add_rows(
                    &mut self.answer.skipped,
                    [skipped],
                    |s| &s.destination,
                    |s| &mut s.rows,
                );
                continue;
            };
            match self.todo.iter_mut().find(|b| b.destination == *name) {
                Some(b) => {
                    b.seqs.push(row.seq);
                    b.events.push(row.event_id);
                }
                None => self.todo.push(Batch {
                    destination: name,
                    seqs: vec![row.seq],
                    events: vec![row.event_id],
                }),
            }
        }
        self.todo.sort_by_key(|b| b.destination);
        self.answer.matched = (self.todo.iter())
            .map(|b| DeadCount {
                destination: b.destination.to_owned(),
                rows: b.seqs.len(),
            })
            .collect();
    }

    /// The next destination to requeue, or the alarm once all are.
    fn next(&mut self) -> RequeueCommand<'a> {
        match self.todo.get_mut(self.done) {
            Some(b) => RequeueCommand::Requeue {
                destination: b.destination,
                seqs: std::mem::take(&mut b.seqs),
                at: self.now,
            },
            None if self.answer.requeued == 0 => RequeueCommand::Answer(self.take()),
            None => RequeueCommand::SetAlarm(self.now),
        }
    }

    /// The feed's dead-letter list forgets each requeued destination's letters: all of
    /// them, or the events put back when the filter narrowed.
    fn note(&mut self) -> RequeueCommand<'a> {
        match (self.source, self.entity, self.todo.get_mut(self.noted)) {
            (Some(source), Some(entity), Some(b)) => {
                self.noted += 1;
                let events = match self.filter.narrows() {
                    true => std::mem::take(&mut b.events),
                    false => Vec::new(),
                };
                RequeueCommand::Note {
                    source,
                    note: Note::Requeued {
                        entity: entity.to_owned(),
                        destination: Some(b.destination.to_owned()),
                        events,
                    },
                }
            }
            _ => RequeueCommand::Answer(self.take()),
        }
    }

    fn take(&mut self) -> Requeued {
        std::mem::take(&mut self.answer)
    }

    /// What follows `input`.
    pub fn handle(&mut self, input: RequeueInput) -> RequeueCommand<'a> {
        match input {
            RequeueInput::Dead(rows) => {
                self.sort(rows);
                match self.dry_run {
                    true => RequeueCommand::Answer(self.take()),
                    false => self.next(),
                }
            }
            RequeueInput::Requeued(n) => {
                self.answer.requeued += n;
                self.done += 1;
                self.next()
            }
            RequeueInput::AlarmSet | RequeueInput::Noted => self.note(),
        }
    }
}
