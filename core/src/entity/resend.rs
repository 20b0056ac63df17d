//! Sending kept events to a source's destinations again, as sequences the adapter carries
//! out like [`Requeue`](super::requeue::Requeue):
//! - [`Redeliver`] (`POST /admin/redeliver`): one applied event, whose body is still kept,
//!   once more to one destination that takes its type or to every one that does: a new
//!   outbox row each, at the tail of the destination's queue (an operator's explicit act:
//!   the entity's first deliveries keep their order), with the same `Idempotency-Key`.
//! - [`Backfill`] (`POST /admin/backfill`): a destination's missing events of an entity
//!   since a time, in arrival order, ahead of the destination's rows still pending for the
//!   entity (which move behind them); rows already sent stay where they are.
//!
//! What to enqueue and what to skip is decided here; the adapter reads and writes.

use serde::{Deserialize, Serialize};

use crate::config::DestinationConfig;
use crate::decide::Outcome;
use crate::sweep::Tally;
use crate::time::UnixSeconds;

/// The most rows one backfill enqueues: a larger one is refused whole (a part would put
/// later events before earlier ones), so that one request writes a bounded number of rows.
pub const MAX_BACKFILL: usize = 10_000;

/// An event of the entity as a resend reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptEvent {
    /// Its id: the `Idempotency-Key` of every row that sends it.
    pub event_id: String,
    /// Its type, which a destination's filter takes or not.
    pub event_type: String,
    /// What it came to (`Outcome::as_str`); only an applied event is ever forwarded.
    pub outcome: String,
    /// Whether its body is still kept.
    pub body: bool,
    /// Whether the destination read for already has a row of it (pending, delivered or
    /// dead); unused by [`Redeliver`].
    pub queued: bool,
}

/// What the adapter does next for a resend.
#[must_use]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResendCommand<'a> {
    /// Read the event ([`Redeliver`]); then [`ResendInput::Event`].
    ReadEvent,
    /// Read the entity's events recorded at or after `since`, in arrival order, with
    /// whether `destination` has a row of each ([`Backfill`]); then [`ResendInput::Events`].
    ReadSince {
        /// The destination.
        destination: &'a str,
        /// The first instant, unix seconds.
        since: UnixSeconds,
    },
    /// Append a pending row sending the event's kept body to the destination, due at
    /// `at`; then [`ResendInput::Enqueued`] with its `seq`.
    Enqueue {
        /// The event.
        event_id: String,
        /// The destination.
        destination: &'a str,
        /// When it is due.
        at: UnixSeconds,
    },
    /// Move the destination's pending rows with a `seq` below `before` (in their order)
    /// behind every other row; then [`ResendInput::Moved`].
    MoveBehind {
        /// The destination.
        destination: &'a str,
        /// The first row enqueued by this backfill.
        before: i64,
    },
    /// Make sure the alarm fires no later than this; then [`ResendInput::AlarmSet`].
    SetAlarm(UnixSeconds),
    /// Answer: the end.
    Answer(ResendAnswer),
}

/// What a resend command came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResendInput {
    /// What [`ResendCommand::ReadEvent`] found.
    Event(Option<KeptEvent>),
    /// What [`ResendCommand::ReadSince`] found, oldest first.
    Events(Vec<KeptEvent>),
    /// The `seq` of the row [`ResendCommand::Enqueue`] appended.
    Enqueued(i64),
    /// How many rows [`ResendCommand::MoveBehind`] moved.
    Moved(usize),
    /// [`ResendCommand::SetAlarm`] is done.
    AlarmSet,
}

/// How a resend is answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResendAnswer {
    /// `200`: a redelivery's new rows, one per destination.
    Redelivered(Vec<String>),
    /// `200`: what a backfill enqueued and skipped.
    Backfilled(Backfilled),
    /// `404`: the event has no body to send, and why.
    NoBody(String),
    /// `409`: the event cannot go to a destination, and why.
    Refused(String),
    /// `500`: an input that does not follow the command given.
    OutOfStep,
}

/// What a backfill did; summed over the entities of a page ([`Tally`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Backfilled {
    /// Rows enqueued, one per event, in arrival order.
    pub enqueued: usize,
    /// The destination's rows that were pending for the entity and now come after them.
    pub moved_behind: usize,
    /// Events it takes whose bodies are no longer kept: not sent.
    pub skipped_pruned: usize,
    /// Events it already has a row of (pending, delivered or dead): not sent again
    /// (`redeliver` sends one again).
    pub skipped_present: usize,
    /// Applied events of types it does not take.
    pub skipped_filtered: usize,
}

impl Tally for Backfilled {
    fn add(&mut self, other: Backfilled) {
        self.enqueued += other.enqueued;
        self.moved_behind += other.moved_behind;
        self.skipped_pruned += other.skipped_pruned;
        self.skipped_present += other.skipped_present;
        self.skipped_filtered += other.skipped_filtered;
    }
}

/// One redelivery of event `id` to `only` (a configured destination) or to every one of
/// `destinations` that takes it.
#[derive(Debug)]
pub struct Redeliver<'a> {
    id: &'a str,
    only: Option<&'a str>,
    destinations: &'a [DestinationConfig],
    now: UnixSeconds,
    todo: Vec<&'a str>,
    done: usize,
}

impl<'a> Redeliver<'a> {
    /// A redelivery at `now`, and its first command.
    pub fn start(
        id: &'a str,
        only: Option<&'a str>,
        destinations: &'a [DestinationConfig],
        now: UnixSeconds,
    ) -> (Redeliver<'a>, ResendCommand<'a>) {
        let redeliver = Redeliver {
            id,
            only,
            destinations,
            now,
            todo: Vec::new(),
            done: 0,
        };
        (redeliver, ResendCommand::ReadEvent)
    }

    /// The destinations `event` goes to, or the answer that refuses it.
    fn decide(&self, event: Option<KeptEvent>) -> Result<Vec<&'a str>, ResendAnswer> {
        let id = self.id;
        let Some(event) = event else {
            return Err(ResendAnswer::NoBody(format!(
                "event {id} has not been seen by this entity; an event about an entity is \
                 found with ?entity=<its key>"
            )));
        };
        if event.outcome != Outcome::Applied.as_str() {
            return Err(ResendAnswer::Refused(format!(
                "event {id} was {} here, not applied: it was never forwarded, and is not sent",
                event.outcome
            )));
        }
        if !event.body {
            return Err(ResendAnswer::NoBody(format!(
                "event {id}'s body is no longer kept (bodies are kept for the source's \
                 body_retention_secs), so there is nothing to send"
            )));
        }
        let kind = &event.event_type;
        let takes = |d: &&'a DestinationConfig| d.filter.admits(kind);
        let named = |d: &&'a DestinationConfig| self.only.is_none_or(|n| n == d.name);
        let chosen: Vec<&'a str> = (self.destinations.iter())
            .filter(named)
            .filter(takes)
            .map(|d| d.name.as_str())
            .collect();
        match (chosen.is_empty(), self.only) {
            (false, _) => Ok(chosen),
            (true, Some(name)) => Err(ResendAnswer::Refused(format!(
                "destination {name} does not take events of type {kind} (its types)"
            ))),
            (true, None) => Err(ResendAnswer::Refused(format!(
                "no destination of this source takes events of type {kind}"
            ))),
        }
    }

    fn next(&mut self) -> ResendCommand<'a> {
        match self.todo.get(self.done) {
            Some(destination) => ResendCommand::Enqueue {
                event_id: self.id.to_owned(),
                destination,
                at: self.now,
            },
            None => ResendCommand::SetAlarm(self.now),
        }
    }

    /// What follows `input`.
    pub fn handle(&mut self, input: ResendInput) -> ResendCommand<'a> {
        match input {
            ResendInput::Event(event) => match self.decide(event) {
                Ok(todo) => {
                    self.todo = todo;
                    self.next()
                }
                Err(answer) => ResendCommand::Answer(answer),
            },
            ResendInput::Enqueued(_) => {
                self.done += 1;
                self.next()
            }
            ResendInput::AlarmSet => ResendCommand::Answer(ResendAnswer::Redelivered(
                self.todo.iter().map(|d| (*d).to_owned()).collect(),
            )),
            ResendInput::Events(_) | ResendInput::Moved(_) => {
                ResendCommand::Answer(ResendAnswer::OutOfStep)
            }
        }
    }
}

/// One backfill of an entity's events since a time to one destination.
#[derive(Debug)]
pub struct Backfill<'a> {
    destination: &'a DestinationConfig,
    now: UnixSeconds,
    todo: Vec<String>,
    done: usize,
    first: Option<i64>,
    answer: Backfilled,
}

impl<'a> Backfill<'a> {
    /// A backfill at `now` of `destination` with the entity's events recorded at or after
    /// `since`, and its first command.
    pub fn start(
        destination: &'a DestinationConfig,
        since: UnixSeconds,
        now: UnixSeconds,
    ) -> (Backfill<'a>, ResendCommand<'a>) {
        let backfill = Backfill {
            destination,
            now,
            todo: Vec::new(),
            done: 0,
            first: None,
            answer: Backfilled::default(),
        };
        let read = ResendCommand::ReadSince {
            destination: &destination.name,
            since,
        };
        (backfill, read)
    }

    /// Sorts `events` into those to send and those skipped, counted.
    fn sort(&mut self, events: Vec<KeptEvent>) {
        let applied = Outcome::Applied.as_str();
        for e in events.into_iter().filter(|e| e.outcome == applied) {
            let a = &mut self.answer;
            if !self.destination.filter.admits(&e.event_type) {
                a.skipped_filtered += 1;
            } else if e.queued {
                a.skipped_present += 1;
            } else if !e.body {
                a.skipped_pruned += 1;
            } else {
                self.todo.push(e.event_id);
            }
        }
    }

    fn next(&mut self) -> ResendCommand<'a> {
        let destination = &self.destination.name;
        match (self.todo.get(self.done), self.first) {
            (Some(id), _) => ResendCommand::Enqueue {
                event_id: id.clone(),
                destination,
                at: self.now,
            },
            (None, Some(before)) => ResendCommand::MoveBehind {
                destination,
                before,
            },
            (None, None) => ResendCommand::Answer(ResendAnswer::Backfilled(self.take())),
        }
    }

    fn take(&mut self) -> Backfilled {
        std::mem::take(&mut self.answer)
    }

    /// What follows `input`.
    pub fn handle(&mut self, input: ResendInput) -> ResendCommand<'a> {
        match input {
            ResendInput::Events(events) => {
                self.sort(events);
                if self.todo.len() > MAX_BACKFILL {
                    return ResendCommand::Answer(ResendAnswer::Refused(format!(
                        "{} events to send, more than {MAX_BACKFILL} in one backfill: pass a \
                         later since",
                        self.todo.len()
                    )));
                }
                self.next()
            }
            ResendInput::Enqueued(seq) => {
                self.first.get_or_insert(seq);
                self.done += 1;
                self.answer.enqueued += 1;
                self.next()
            }
            ResendInput::Moved(n) => {
                self.answer.moved_behind = n;
                self.first = None;
                ResendCommand::SetAlarm(self.now)
            }
            ResendInput::AlarmSet => ResendCommand::Answer(ResendAnswer::Backfilled(self.take())),
            ResendInput::Event(_) => ResendCommand::Answer(ResendAnswer::OutOfStep),
        }
    }
}
