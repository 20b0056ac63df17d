//! What an entity object's alarm does after its outbox run (the [`Drain`](crate::drain::Drain)
//! that delivers its rows), as a sequence the adapter carries out like [`Ingest`](super::Ingest):
//! 1. Notes the rows that died since the alarm started, then the run's attempts by result,
//!    in the source's feed ([`Command::ReadDead`], [`Command::Note`]).
//! 2. Prunes what the source's lifetimes allow, one bounded batch per kind
//!    ([`retention::plan`](crate::retention::plan)), and sets the alarm for the next batch
//!    while work remains ([`next_prune`]).
//! 3. Tells the source's feed what the object's outbox holds, when that differs from what
//!    the feed was last told (`/metrics`). Until the feed has taken it, the alarm fires
//!    again within a minute to tell it again, so the feed's pending and dead figures stay
//!    exact; a feed that fails never holds back the forwarding, which is done by then.

use crate::feed::{DeadLetter, Note};
use crate::log::{failure, LogRecord};
use crate::metrics::{Count, OutboxSnapshot, ATTEMPTS, SUPERSEDED};
use crate::retention::{next_prune, plan, Kept, Lifetimes, Prune};
use crate::time::{Seconds, UnixSeconds};

/// What an alarm pass knows of its object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Object<'a> {
    /// Its source, from its name.
    pub source: Option<&'a str>,
    /// Its entity, from its name.
    pub entity: Option<&'a str>,
    /// The source's lifetimes, if the configuration has the source.
    pub lifetimes: Option<Lifetimes>,
    /// What it last told its feed of its outbox; `None` when it does not know.
    pub reported: Option<&'a OutboxSnapshot>,
}

/// What the adapter does next for an alarm pass.
#[must_use]
#[derive(Clone, Debug, PartialEq)]
pub enum Command<'a> {
    /// Read the outbox rows that died at or after `since`; then [`Input::Dead`].
    ReadDead {
        /// When the alarm started.
        since: UnixSeconds,
    },
    /// Post `note` to `source`'s feed, off the path; then [`Input::Noted`].
    Note {
        /// The feed's source.
        source: &'a str,
        /// The note.
        note: Note,
    },
    /// Read what pruning needs ([`Kept`]); then [`Input::Kept`].
    ReadKept,
    /// Carry out one bounded delete; then [`Input::Pruned`].
    Prune(Prune),
    /// Make sure the alarm fires no later than this; then [`Input::AlarmSet`].
    SetAlarm(UnixSeconds),
    /// Read the outbox's rows for `/metrics`; then [`Input::Outbox`].
    ReadOutbox,
    /// Tell `source`'s feed what the outbox holds; then [`Input::Told`].
    TellFeed {
        /// The feed's source.
        source: &'a str,
        /// What the outbox holds.
        rows: OutboxSnapshot,
    },
    /// Keep this as what the feed was told; then [`Input::Remembered`].
    Remember(OutboxSnapshot),
    /// Print this log record; then [`Input::Logged`].
    Log(LogRecord),
    /// The pass is over.
    Done,
}

/// What a command came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// What [`Command::ReadDead`] found (each without its entity: the pass adds it).
    Dead(Vec<DeadLetter>),
    /// [`Command::Note`] is done.
    Noted,
    /// What [`Command::ReadKept`] found.
    Kept(Kept),
    /// The rows [`Command::Prune`] deleted.
    Pruned(usize),
    /// [`Command::SetAlarm`] is done.
    AlarmSet,
    /// What [`Command::ReadOutbox`] found, and whether the outbox is a table yet.
    Outbox {
        /// The rows.
        rows: OutboxSnapshot,
        /// `false` while it is a placeholder: the object never queued a row.
        table: bool,
    },
    /// The status the feed answered [`Command::TellFeed`] with, or why it was not reached.
    /// Only a 2xx counts as told.
    Told(Result<u16, String>),
    /// [`Command::Remember`] is done.
    Remembered,
    /// [`Command::Log`] is done.
    Logged,
}

#[derive(Debug)]
enum Step {
    Dead,
    Noting,
    Kept,
    Pruning(Prune),
    KeptAgain,
    ArmedForPrune,
    Outbox,
    Telling(OutboxSnapshot),
    Remembering,
    Logging,
    ArmedForReport,
    Done,
}

/// One alarm pass after its outbox run.
#[derive(Debug)]
pub struct Upkeep<'a> {
    object: Object<'a>,
    started: UnixSeconds,
    now: UnixSeconds,
    attempts: Vec<Count>,
    notes: std::vec::IntoIter<Note>,
    prunes: std::vec::IntoIter<Prune>,
    done: Vec<(Prune, usize)>,
    step: Step,
}

impl<'a> Upkeep<'a> {
    /// A pass of an alarm that started at `started`, at `now`, after a run that made
    /// `attempts`.
    #[must_use]
    pub fn new(
        object: Object<'a>,
        started: UnixSeconds,
        now: UnixSeconds,
        attempts: Vec<Count>,
    ) -> Upkeep<'a> {
        Upkeep {
            object,
            started,
            now,
            attempts,
            notes: Vec::new().into_iter(),
            prunes: Vec::new().into_iter(),
            done: Vec::new(),
            step: Step::Done,
        }
    }

    /// The first command.
    pub fn start(&mut self) -> Command<'a> {
        match self.object.source {
            Some(_) => {
                self.step = Step::Dead;
                Command::ReadDead {
                    since: self.started,
                }
            }
            None => self.prune(),
        }
    }

    /// What follows `input`; [`Command::Done`] for one the pass does not wait for.
    pub fn handle(&mut self, input: Input) -> Command<'a> {
        match (std::mem::replace(&mut self.step, Step::Done), input) {
            (Step::Dead, Input::Dead(rows)) => {
                let entity = self.object.entity.map(str::to_owned);
                let dead = rows.into_iter().map(|d| {
                    Note::Dead(DeadLetter {
                        entity: entity.clone(),
                        ..d
                    })
                });
                // The attempts only of a source the configuration has.
                let attempts = match self.object.lifetimes {
                    Some(_) => std::mem::take(&mut self.attempts),
                    None => Vec::new(),
                };
                let tried = attempts.into_iter().filter_map(|c| {
                    let count = u32::try_from(c.by).unwrap_or(u32::MAX);
                    match c.family.as_str() {
                        ATTEMPTS => Some(Note::Attempts {
                            result: c.label,
                            count,
                        }),
                        SUPERSEDED => Some(Note::Superseded {
                            destination: c.label,
                            count,
                        }),
                        _ => None,
                    }
                });
                self.notes = dead.chain(tried).collect::<Vec<_>>().into_iter();
                self.note()
            }
            (Step::Noting, Input::Noted) => self.note(),
            (Step::Kept, Input::Kept(kept)) => {
                let lifetimes = self.lifetimes();
                self.prunes = plan(lifetimes, &kept, self.now).into_iter();
                self.next_prune(kept)
            }
            (Step::Pruning(p), Input::Pruned(n)) => {
                self.done.push((p, n));
                self.next_prune(Kept::default())
            }
            (Step::KeptAgain, Input::Kept(kept)) => self.arm_for_prune(kept),
            (Step::ArmedForPrune, Input::AlarmSet) => self.report(),
            (Step::Outbox, Input::Outbox { rows, table }) => {
                let told = match self.object.reported {
                    Some(reported) => *reported == rows,
                    // Unknown since the object started: one that never queued a row has none.
                    None => rows.destinations.is_empty() && !table,
                };
                match (told, self.object.source) {
                    (false, Some(source)) => {
                        self.step = Step::Telling(rows.clone());
                        Command::TellFeed { source, rows }
                    }
                    _ => Command::Done,
                }
            }
            (Step::Telling(rows), Input::Told(Ok(200..=299))) => {
                self.step = Step::Remembering;
                Command::Remember(rows)
            }
            (Step::Telling(_), Input::Told(refused)) => {
                self.step = Step::Logging;
                let error = match refused {
                    Ok(status) => format!("the feed answered {status}"),
                    Err(e) => e,
                };
                let source = self.object.source.unwrap_or_default();
                Command::Log(failure("feed_write_failed", source, &error))
            }
            (Step::Logging, Input::Logged) => {
                self.step = Step::ArmedForReport;
                Command::SetAlarm(self.now.plus(Seconds::MINUTE))
            }
            // Remembered, the alarm set after a failed report, or an input out of step.
            _ => Command::Done,
        }
    }

    fn lifetimes(&self) -> Lifetimes {
        self.object.lifetimes.unwrap_or_default()
    }

    fn note(&mut self) -> Command<'a> {
        match (self.notes.next(), self.object.source) {
            (Some(note), Some(source)) => {
                self.step = Step::Noting;
                Command::Note { source, note }
            }
            _ => self.prune(),
        }
    }

    /// Pruning, for a source the configuration has.
    fn prune(&mut self) -> Command<'a> {
        match self.object.lifetimes {
            Some(_) => {
                self.step = Step::Kept;
                Command::ReadKept
            }
            None => Command::Done,
        }
    }

    /// The next delete of the plan; after the last, what is kept now, if any was made.
    fn next_prune(&mut self, kept: Kept) -> Command<'a> {
        if let Some(p) = self.prunes.next() {
            self.step = Step::Pruning(p);
            return Command::Prune(p);
        }
        match self.done.is_empty() {
            true => self.arm_for_prune(kept),
            false => {
                self.step = Step::KeptAgain;
                Command::ReadKept
            }
        }
    }

    fn arm_for_prune(&mut self, kept: Kept) -> Command<'a> {
        match next_prune(self.lifetimes(), &self.done, &kept, self.now) {
            Some(at) => {
                self.step = Step::ArmedForPrune;
                Command::SetAlarm(at)
            }
            None => self.report(),
        }
    }

    fn report(&mut self) -> Command<'a> {
        self.step = Step::Outbox;
        Command::ReadOutbox
    }
}
