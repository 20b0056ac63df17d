//! The admin requests an entity object serves that change or exercise it, as sequences
//! the adapter carries out like [`Ingest`](super::Ingest):
//! - [`Replay`] (`POST /admin/replay`): the kept body, signed afresh with the source's own
//!   secret as the provider's replay button would, through the whole pipeline (verify,
//!   parse, `Ingest`), with the entity's fingerprint before and after to show what it changed.
//! - [`Requeue`] (`POST /admin/outbox/…/retry`): the dead letters of one destination or of
//!   every configured one back in the queue, due now with their attempts starting over, the
//!   alarm set for them, and the feed's dead-letter list told to forget them.

use crate::event::EventId;
use crate::feed::Note;
use crate::sign;
use crate::time::UnixSeconds;
use crate::verify::{Headers, Scheme, Secret};

use super::Said;

/// What the adapter does next for a replay.
#[must_use]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayCommand {
    /// Read the event's kept body and the headers to read it with; then
    /// [`ReplayInput::Body`].
    ReadBody,
    /// Read what the event came to, if it is recorded; then [`ReplayInput::Outcome`].
    ReadOutcome,
    /// Look up the object's source: its scheme and signing secret; then
    /// [`ReplayInput::Source`] (or answer the lookup's problem).
    LoadSource,
    /// Read the entity's fingerprint; then [`ReplayInput::Fingerprint`].
    Fingerprint,
    /// Deliver [`Replay::request`] through the whole pipeline; then
    /// [`ReplayInput::Delivered`].
    Deliver,
    /// Answer the replay: the end.
    Answer(ReplayAnswer),
}

/// How a replay is answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayAnswer {
    /// `200`: what the delivery came to, and whether it changed the entity.
    Replayed {
        /// What it said; `None` for a delivery refused before a decision.
        said: Option<Said>,
        /// The delivery's HTTP status.
        status: u16,
        /// Whether the entity's fingerprint moved.
        changed: bool,
    },
    /// `404`: no body to replay, and why.
    NoBody(String),
    /// `500`: the kept headers do not read back.
    Unreadable,
}

/// What a replay command came to.
#[derive(Debug)]
pub enum ReplayInput<'s> {
    /// What [`ReplayCommand::ReadBody`] found: the headers (a JSON object, if any were
    /// needed) and the body.
    Body(Option<(Option<String>, Vec<u8>)>),
    /// What [`ReplayCommand::ReadOutcome`] found.
    Outcome(Option<String>),
    /// The source [`ReplayCommand::LoadSource`] found, and the clock to sign at.
    Source {
        /// Its signature scheme.
        scheme: &'s Scheme,
        /// Its own (first) secret.
        secret: &'s Secret,
        /// The signature's time.
        now: UnixSeconds,
    },
    /// What [`ReplayCommand::Fingerprint`] read.
    Fingerprint(String),
    /// What [`ReplayCommand::Deliver`] came to.
    Delivered {
        /// Its HTTP status.
        status: u16,
        /// What it said.
        said: Option<Said>,
    },
}

#[derive(Debug)]
enum Step {
    Body,
    Outcome,
    Source(Option<String>),
    Before,
    Delivering,
    After(Option<Said>, u16),
    Done,
}

/// One replay of event `id`.
#[derive(Debug)]
pub struct Replay<'a> {
    id: &'a EventId,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    before: String,
    step: Step,
}

impl<'a> Replay<'a> {
    /// A replay of `id`, and its first command.
    pub fn start(id: &'a EventId) -> (Replay<'a>, ReplayCommand) {
        let replay = Replay {
            id,
            headers: Vec::new(),
            body: Vec::new(),
            before: String::new(),
            step: Step::Body,
        };
        (replay, ReplayCommand::ReadBody)
    }

    /// The request [`ReplayCommand::Deliver`] delivers: its headers and body.
    #[must_use]
    pub fn request(&self) -> (&[(String, String)], &[u8]) {
        (&self.headers, &self.body)
    }

    /// What follows `input`.
    pub fn handle(&mut self, input: ReplayInput<'_>) -> ReplayCommand {
        let id = self.id;
        match (std::mem::replace(&mut self.step, Step::Done), input) {
            (Step::Body, ReplayInput::Body(None)) => {
                self.step = Step::Outcome;
                ReplayCommand::ReadOutcome
            }
            (Step::Body, ReplayInput::Body(Some((headers, body)))) => {
                self.body = body;
                self.step = Step::Source(headers);
                ReplayCommand::LoadSource
            }
            (Step::Outcome, ReplayInput::Outcome(seen)) => {
                ReplayCommand::Answer(ReplayAnswer::NoBody(match seen {
                    None => format!("no stored body for event {id}: this entity has not seen it"),
                    Some(outcome) => format!(
                        "no stored body for event {id}: it was {outcome} here, but its body is \
                         no longer kept (bodies are kept for the source's body_retention_secs; \
                         stale events keep none), so there is nothing to replay; its id is \
                         kept, so a redelivery is still a duplicate"
                    ),
                }))
            }
            (
                Step::Source(kept),
                ReplayInput::Source {
                    scheme,
                    secret,
                    now,
                },
            ) => {
                let Some(mut headers) = read_headers(kept.as_deref().unwrap_or("{}")) else {
                    return ReplayCommand::Answer(ReplayAnswer::Unreadable);
                };
                // Standard Webhooks signs the `webhook-id`: the one kept, else the event id.
                let webhook_id = headers
                    .header("webhook-id")
                    .unwrap_or(id.as_str())
                    .to_owned();
                for (name, value) in sign::headers(scheme, secret, &webhook_id, now, &self.body) {
                    headers.retain(|(k, _)| k != name);
                    headers.push((name.to_owned(), value));
                }
                self.headers = headers;
                self.step = Step::Before;
                ReplayCommand::Fingerprint
            }
            (Step::Before, ReplayInput::Fingerprint(before)) => {
                self.before = before;
                self.step = Step::Delivering;
                ReplayCommand::Deliver
            }
            (Step::Delivering, ReplayInput::Delivered { status, said }) => {
                self.step = Step::After(said, status);
                ReplayCommand::Fingerprint
            }
            (Step::After(said, status), ReplayInput::Fingerprint(after)) => {
                ReplayCommand::Answer(ReplayAnswer::Replayed {
                    said,
                    status,
                    changed: after != self.before,
                })
            }
            _ => ReplayCommand::Answer(ReplayAnswer::Unreadable),
        }
    }
}

/// Kept headers (a JSON object of strings) as a request's; `None` when they do not read.
fn read_headers(json: &str) -> Option<Vec<(String, String)>> {
    let map = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(json).ok()?;
    Some(
        map.into_iter()
            .filter_map(|(k, v)| Some((k, v.as_str()?.to_owned())))
            .collect(),
    )
}

/// Why a requeue left a destination's dead letters dead.
pub const SKIPPED_REMOVED: &str =
    "destination removed from the configuration: requeued, its rows would die again at once";

/// The dead letters of one destination in an entity object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadCount {
    /// The destination (`default` for rows that name none).
    pub destination: String,
    /// How many of its rows are dead.
    pub rows: usize,
}

/// A destination's dead letters a requeue left dead, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The destination.
    pub destination: String,
    /// Its dead rows, left dead.
    pub rows: usize,
    /// Why.
    pub reason: &'static str,
}

/// What a requeue answers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Requeued {
    /// Rows put back in the queue, attempts starting over.
    pub requeued: usize,
    /// Rows left dead, per destination.
    pub skipped: Vec<Skipped>,
}

/// What the adapter does next for a requeue.
#[must_use]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequeueCommand<'a> {
    /// Count the dead rows per destination; then [`RequeueInput::Dead`].
    ReadDead,
    /// Put the destination's dead rows back in the queue, attempts at 0, due at this time;
    /// then [`RequeueInput::Requeued`].
    Requeue(&'a str, UnixSeconds),
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
    /// What [`RequeueCommand::ReadDead`] counted.
    Dead(Vec<DeadCount>),
    /// The rows [`RequeueCommand::Requeue`] put back.
    Requeued(usize),
    /// [`RequeueCommand::SetAlarm`] is done.
    AlarmSet,
    /// [`RequeueCommand::Note`] is done.
    Noted,
}

/// One requeue of an entity object's dead letters: of one destination, or of every
/// configured one. A destination no longer configured keeps its letters dead (the drain
/// would kill them again at once: `destination removed`); the answer counts them.
#[derive(Debug)]
pub struct Requeue<'a> {
    source: Option<&'a str>,
    entity: Option<&'a str>,
    now: UnixSeconds,
    /// The destinations to requeue, in order, once read; the next is `todo[done]`.
    todo: Vec<&'a str>,
    done: usize,
    noted: usize,
    configured: &'a [&'a str],
    only: Option<&'a str>,
    answer: Requeued,
}

impl<'a> Requeue<'a> {
    /// A requeue at `now` in the object of `source` and `entity` (from its name), whose
    /// outbox is a table (`queue`) or not (a placeholder holds no dead letters, and takes
    /// no `UPDATE`), of the destination `only` (else of all), given the source's
    /// `configured` destinations.
    pub fn start(
        source: Option<&'a str>,
        entity: Option<&'a str>,
        queue: bool,
        now: UnixSeconds,
        only: Option<&'a str>,
        configured: &'a [&'a str],
    ) -> (Requeue<'a>, RequeueCommand<'a>) {
        let requeue = Requeue {
            source,
            entity,
            now,
            todo: Vec::new(),
            done: 0,
            noted: 0,
            configured,
            only,
            answer: Requeued::default(),
        };
        let first = match queue {
            true => RequeueCommand::ReadDead,
            false => RequeueCommand::Answer(Requeued::default()),
        };
        (requeue, first)
    }

    /// The next destination to requeue, or the alarm once all are.
    fn next(&mut self) -> RequeueCommand<'a> {
        match self.todo.get(self.done) {
            Some(name) => RequeueCommand::Requeue(name, self.now),
            None if self.answer.requeued == 0 => RequeueCommand::Answer(self.take()),
            None => RequeueCommand::SetAlarm(self.now),
        }
    }

    /// The feed's dead-letter list forgets each requeued destination's letters.
    fn note(&mut self) -> RequeueCommand<'a> {
        match (self.source, self.entity, self.todo.get(self.noted)) {
            (Some(source), Some(entity), Some(name)) => {
                self.noted += 1;
                RequeueCommand::Note {
                    source,
                    note: Note::Requeued {
                        entity: entity.to_owned(),
                        destination: Some((*name).to_owned()),
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
            RequeueInput::Dead(counts) => {
                for count in counts {
                    if self.only.is_some_and(|d| d != count.destination) || count.rows == 0 {
                        continue;
                    }
                    match self.configured.iter().find(|c| **c == count.destination) {
                        Some(name) => self.todo.push(name),
                        None => self.answer.skipped.push(Skipped {
                            destination: count.destination,
                            rows: count.rows,
                            reason: SKIPPED_REMOVED,
                        }),
                    }
                }
                self.next()
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
