//! Steps 4 to 6 of the flow, and step 7 while the provider waits (synchronous forwarding),
//! as a sequence: one delivery's path through its entity's object, decided here one step
//! at a time and carried out by the adapter, which hands back what each step came to
//! (after str0m's `handle_input` / `poll_output`, and the outbox's own
//! [`Drain`](crate::drain::Drain)).
//!
//! [`Ingest::start`] takes what the object knows without a read ([`Known`]) and returns the
//! first [`Command`]; the adapter carries out each one and passes what came of it to
//! [`Ingest::handle`], until [`Command::Answer`]:
//! 1. **Decide**, exactly once per delivery: from what the object knows when that is enough
//!    ([`decide_unread`]: nothing to read, the record guarded as it is written), or a new
//!    object's nothing; otherwise after [`Command::Read`] of what [`Reads`] names.
//! 2. A new object's first alarm ([`Command::SetAlarm`]) goes before its first writes:
//!    setting one creates the runtime's alarm table, and that change of schema after the
//!    writes were prepared would make SQLite prepare them again at the next delivery. The
//!    decision waits for it, and holds if the object is still empty after that `.await`.
//! 3. [`Command::Write`] the decision's [`Write`]s ([`Ingest::writes`]) as one unit. A
//!    guarded record that finds its id recorded wrote nothing: then read and decide.
//!    [`Command::KeepVersion`] is the snapshot version the store holds after it.
//! 4. [`Command::SetAlarm`] for what the writes queued or kept.
//! 5. Synchronous forwarding: a claim makes the object ask the destination's gate
//!    ([`Command::AskGate`]: breaker, cap, rate, pause, shared with the drains). While the
//!    gate holds the destination (or cannot be asked), nothing is sent: the claim is given
//!    back at once and the provider told to retry (`502`, [`Said::Released`]), which is the
//!    provider's own retry schedule standing in for the outbox's. Granted, the object
//!    [`Command::Send`]s the event while the provider waits, and reports the result to the
//!    gate ([`Command::ReportToGate`]; a lost report holds its slot only until the lease
//!    ends). If it is delivered ([`AttemptResult::delivered`]) the delivery is
//!    decided again under [`Plan::Commit`], from a fresh read; if not, the claim is read
//!    ([`Command::ReadClaim`]) and given back ([`release`]), and the provider told to retry.
//! 6. [`Command::Report`] the decision (log line and feed note), then [`Command::Answer`].
//!
//! Every read is handed back in the same turn as the write that follows it, so the adapter
//! carries out each read–decide–write with no `.await` inside: only [`Command::SetAlarm`],
//! the gate's calls and [`Command::Send`] wait.

use crate::decide::{
    decide, decide_unread, release, Claim, Decision, Delivery, Plan, Said, Stored, Write,
};
use crate::event::{Effect, Version};
use crate::feed::FeedOutcome;
use crate::protect::{Ask, LeaseId};
use crate::retention::Lifetimes;
use crate::retry::AttemptResult;
use crate::time::{Seconds, UnixSeconds};

pub mod admin;
pub mod requeue;
pub mod resend;
pub mod upkeep;

/// What an object knows of its store without a read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Known<'k> {
    /// The object was created by this instance and nothing has been written since.
    pub empty: bool,
    /// The snapshot version its store holds (`Some(None)`: no snapshot), if it knows it.
    pub version: Option<Option<&'k Version>>,
}

/// Which tables the point read for [`Stored`] reads, beside the event's own record: only
/// those that bear on the event, so a statement names no table it does not need (each one
/// costs SQLite time to prepare and to run).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reads {
    /// The ledger's row for the event: a ledger effect.
    pub ledger: bool,
    /// The entity's claim: synchronous forwarding ([`Plan::Claim`], [`Plan::Commit`]).
    pub claim: bool,
    /// The snapshot's version: a versioned event.
    pub version: bool,
}

impl Reads {
    /// What deciding `d` under `plan` reads.
    #[must_use]
    pub fn of(d: &Delivery<'_>, plan: Plan) -> Reads {
        Reads {
            ledger: matches!(d.event.effect(), Effect::Ledger { .. }),
            claim: matches!(plan, Plan::Claim { .. } | Plan::Commit),
            version: d.event.has_version(),
        }
    }
}

/// How a decision's writes run: as written, or, for a decision made without reading the
/// id ([`decide_unread`]), with its record guarded: nothing is written if the id is
/// recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// As written.
    None,
    /// Nothing at all if the id is recorded.
    UnlessRecorded,
}

/// What the adapter does next for a delivery.
#[must_use]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Read [`Stored`] for the event, only what [`Reads`] names, and hand it back as
    /// [`Input::Stored`] with no `.await` in between.
    Read(Reads),
    /// Write [`Ingest::writes`] as one unit (one statement, or one transaction), made at
    /// `now`, with `guard`; then [`Input::Written`] with no `.await` in between.
    Write {
        /// Whether the record is guarded.
        guard: Guard,
        /// When the rows are written.
        now: UnixSeconds,
    },
    /// The snapshot version the store holds now, for the next delivery's
    /// [`decide_unread`] (`None` inside: no snapshot); then [`Input::Kept`].
    KeepVersion(Option<Version>),
    /// Make sure the alarm fires no later than this; then [`Input::AlarmSet`].
    SetAlarm(UnixSeconds),
    /// Ask the synchronous destination's gate whether this entity may make an attempt now;
    /// then [`Input::Asked`].
    AskGate,
    /// Report the granted attempt's result to the synchronous destination's gate; then
    /// [`Input::GateReported`], whether or not the report arrived.
    ReportToGate {
        /// The grant's lease.
        lease: LeaseId,
        /// How the attempt ended.
        result: AttemptResult,
    },
    /// Call the destination once, with the delivery's body, while the provider waits; then
    /// [`Input::Sent`].
    Send {
        /// The claim's lease, held until then.
        until: UnixSeconds,
    },
    /// Read the entity's claim; then [`Input::Claim`] with no `.await` in between.
    ReadClaim,
    /// Log the decision and note it in the source's feed; then [`Input::Reported`].
    Report(Report),
    /// Answer the delivery: the end.
    Answer(Answer),
}

/// A decision's log line and feed note.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Report {
    /// What the delivery came to.
    pub said: Said,
    /// The rows its writes wrote.
    pub rows_written: usize,
    /// What the feed keeps of it, if the feed keeps such outcomes.
    pub feed: Option<FeedOutcome>,
}

/// How a delivery is answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// `200` for applied, duplicate and stale alike (a provider must never retry a
    /// duplicate); `409` with `Retry-After` while another event of the entity holds its
    /// claim.
    Decided {
        /// What it came to.
        said: Said,
        /// The rows its writes wrote.
        rows_written: usize,
        /// When to come back, for `409`.
        retry_after: Option<Seconds>,
    },
    /// `502`: the synchronous forward failed and its claim was given back
    /// ([`Said::Released`]); the provider should retry.
    Released {
        /// Why, for the problem's detail.
        detail: String,
    },
    /// `500`: the adapter handed in an input this delivery was not waiting for.
    OutOfStep,
}

impl Answer {
    /// What the answer says of the delivery (`Hookonce-Outcome`), if it says anything.
    #[must_use]
    pub fn said(&self) -> Option<Said> {
        match self {
            Answer::Decided { said, .. } => Some(*said),
            Answer::Released { .. } => Some(Said::Released),
            Answer::OutOfStep => None,
        }
    }

    /// The HTTP status.
    #[must_use]
    pub fn status(&self) -> u16 {
        match self {
            Answer::Decided {
                retry_after: Some(_),
                ..
            } => 409,
            Answer::Decided { .. } => 200,
            Answer::Released { .. } => 502,
            Answer::OutOfStep => 500,
        }
    }
}

/// What a command came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input<'k> {
    /// What [`Command::Read`] found.
    Stored(Stored),
    /// What [`Command::Write`] wrote: its rows, or `None` when a guarded record found its id
    /// recorded and nothing was written.
    Written(Option<usize>),
    /// [`Command::KeepVersion`] is done.
    Kept,
    /// [`Command::SetAlarm`] is done; what the object knows after that `.await`.
    AlarmSet(Known<'k>),
    /// What [`Command::Send`] came to (`None`: no destination or secret to send with), and
    /// the clock after it.
    Sent {
        /// How the call ended.
        result: Option<AttemptResult>,
        /// The adapter's clock.
        now: UnixSeconds,
    },
    /// What the gate answered [`Command::AskGate`]; `None` when the call failed or its
    /// answer was unreadable.
    Asked(Option<Ask>),
    /// [`Command::ReportToGate`] is done.
    GateReported,
    /// What [`Command::ReadClaim`] found.
    Claim(Option<Claim>),
    /// [`Command::Report`] is done.
    Reported,
}

/// What a delivery waits for: the answer to the command it was given last.
#[derive(Debug)]
enum Step<'e> {
    /// A new object's decision, waiting for its first alarm to be set.
    Arming(Decision<'e>, Guard),
    /// The stored read.
    Reading,
    /// The decision's writes, and the version it read, if it read one.
    Writing(Decision<'e>, Guard, Option<Option<Version>>),
    /// The version kept after the writes.
    Keeping(Decision<'e>, usize),
    /// The alarm after the writes.
    Alarming(Decision<'e>, usize),
    /// The gate's answer, for a call under a lease until then.
    Asking(UnixSeconds),
    /// The synchronous call, under a lease until then, and the gate's lease.
    Sending(UnixSeconds, LeaseId),
    /// The gate told of the call's result.
    Reporting(UnixSeconds, Option<AttemptResult>, UnixSeconds),
    /// The claim's read, to give back the lease until then.
    ReadingClaim(UnixSeconds, String),
    /// The claim given back.
    Releasing(Write<'e>, String),
    /// The report, before the answer.
    Concluding(Answer),
    /// Answered.
    Done,
}

/// One delivery's path through its entity's object.
pub struct Ingest<'e> {
    d: Delivery<'e>,
    plan: Plan,
    now: UnixSeconds,
    lifetimes: Lifetimes,
    /// The alarm this delivery made sure of, if any.
    armed: Option<UnixSeconds>,
    step: Step<'e>,
}

/// What the feed keeps of a delivery that came to `said`: applied, duplicate and stale; a
/// delivery that is not over (claimed, in flight, released) is not noted.
#[must_use]
pub fn feed_outcome(said: Said) -> Option<FeedOutcome> {
    match said {
        Said::Applied => Some(FeedOutcome::Applied),
        Said::Duplicate => Some(FeedOutcome::Duplicate),
        Said::Stale => Some(FeedOutcome::Stale),
        Said::Claimed | Said::InFlight | Said::Released => None,
    }
}

impl<'e> Ingest<'e> {
    /// A delivery received at `now`, decided under `plan` (the source's,
    /// [`Plan::for_source`]).
    #[must_use]
    pub fn new(d: Delivery<'e>, plan: Plan, now: UnixSeconds) -> Ingest<'e> {
        Ingest {
            d,
            plan,
            now,
            lifetimes: d.source.lifetimes(),
            armed: None,
            step: Step::Done,
        }
    }

    /// The first command, from what the object knows.
    pub fn start(&mut self, known: Known<'_>) -> Command {
        if !known.empty {
            return self.decide(known);
        }
        // Nothing to read in a new object, so no statement to prepare.
        let (decision, guard) = match decide_unread(self.d, known.version, self.plan, self.now) {
            Some(decision) => (decision, Guard::UnlessRecorded),
            None => (
                decide(self.d, &Stored::default(), self.plan, self.now),
                Guard::None,
            ),
        };
        match decision.alarm_by(self.lifetimes, self.now) {
            Some(at) => {
                self.armed = Some(at);
                self.step = Step::Arming(decision, guard);
                Command::SetAlarm(at)
            }
            None => self.write(decision, guard, None),
        }
    }

    /// The rows [`Command::Write`] writes.
    #[must_use]
    pub fn writes(&self) -> &[Write<'_>] {
        match &self.step {
            Step::Writing(decision, ..) => decision.writes(),
            Step::Releasing(write, _) => std::slice::from_ref(write),
            _ => &[],
        }
    }

    /// What follows `input`.
    pub fn handle(&mut self, input: Input<'_>) -> Command {
        match (std::mem::replace(&mut self.step, Step::Done), input) {
            (Step::Arming(decision, guard), Input::AlarmSet(known)) => match known.empty {
                true => self.write(decision, guard, None),
                // Something was written while the alarm was set: decide from the store.
                false => self.decide(known),
            },
            (Step::Reading, Input::Stored(stored)) => {
                let decision = decide(self.d, &stored, self.plan, self.now);
                // The version the read found, which a versioned event that is not a
                // duplicate reads.
                let read = (self.d.event.has_version() && stored.record.is_none())
                    .then_some(stored.version);
                self.write(decision, Guard::None, read)
            }
            (Step::Writing(_, Guard::UnlessRecorded, _), Input::Written(None)) => self.read(),
            (Step::Writing(decision, _, read), Input::Written(rows)) => {
                let rows = rows.unwrap_or(0);
                match decision.snapshot().cloned().map(Some).or(read) {
                    Some(version) => {
                        self.step = Step::Keeping(decision, rows);
                        Command::KeepVersion(version)
                    }
                    None => self.written(decision, rows),
                }
            }
            (Step::Keeping(decision, rows), Input::Kept) => self.written(decision, rows),
            (Step::Alarming(decision, rows), Input::AlarmSet(_)) => self.conclude(decision, rows),
            (Step::Asking(until), Input::Asked(answer)) => {
                let held = match answer {
                    Some(Ask::Grant(grant)) => {
                        self.step = Step::Sending(until, grant.lease);
                        return Command::Send { until };
                    }
                    Some(Ask::Wait { until, .. }) => format!("held until {}", until.0),
                    Some(Ask::Paused) => "paused by an operator".to_owned(),
                    None => "its gate could not be asked".to_owned(),
                };
                self.step = Step::ReadingClaim(
                    until,
                    format!("destination {held}; nothing was sent, the provider should retry"),
                );
                Command::ReadClaim
            }
            (Step::Sending(until, lease), Input::Sent { result, now }) => match result {
                Some(r) => {
                    self.step = Step::Reporting(until, Some(r.clone()), now);
                    Command::ReportToGate { lease, result: r }
                }
                None => self.sent(until, None, now),
            },
            (Step::Reporting(until, result, now), Input::GateReported) => {
                self.sent(until, result, now)
            }
            (Step::ReadingClaim(until, detail), Input::Claim(claim)) => {
                match release(claim.as_ref(), self.d.event, until) {
                    Some(write) => {
                        self.step = Step::Releasing(write, detail);
                        Command::Write {
                            guard: Guard::None,
                            now: self.now,
                        }
                    }
                    None => Command::Answer(Answer::Released { detail }),
                }
            }
            (Step::Releasing(_, detail), Input::Written(_)) => {
                Command::Answer(Answer::Released { detail })
            }
            (Step::Concluding(answer), Input::Reported) => Command::Answer(answer),
            _ => Command::Answer(Answer::OutOfStep),
        }
    }

    /// After the synchronous call: a delivered event is decided again under
    /// [`Plan::Commit`]; anything else gives the claim back.
    fn sent(
        &mut self,
        until: UnixSeconds,
        result: Option<AttemptResult>,
        now: UnixSeconds,
    ) -> Command {
        match result {
            Some(r) if r.delivered() => {
                self.plan = Plan::Commit;
                self.now = now;
                self.read()
            }
            other => {
                let detail = other.map_or_else(
                    || "synchronous forwarding has no destination or secret".to_owned(),
                    |r| format!("destination answered {r}; the provider should retry"),
                );
                self.step = Step::ReadingClaim(until, detail);
                Command::ReadClaim
            }
        }
    }

    /// Decides from what the object knows if that is enough, else from a read.
    fn decide(&mut self, known: Known<'_>) -> Command {
        match decide_unread(self.d, known.version, self.plan, self.now) {
            Some(decision) => self.write(decision, Guard::UnlessRecorded, None),
            None => self.read(),
        }
    }

    fn read(&mut self) -> Command {
        self.step = Step::Reading;
        Command::Read(Reads::of(&self.d, self.plan))
    }

    fn write(
        &mut self,
        decision: Decision<'e>,
        guard: Guard,
        read: Option<Option<Version>>,
    ) -> Command {
        self.step = Step::Writing(decision, guard, read);
        Command::Write {
            guard,
            now: self.now,
        }
    }

    /// After the writes: the alarm they need, unless this delivery made sure of it already.
    fn written(&mut self, decision: Decision<'e>, rows: usize) -> Command {
        match decision.alarm_by(self.lifetimes, self.now) {
            Some(at) if self.armed.is_none_or(|armed| at < armed) => {
                self.armed = Some(at);
                self.step = Step::Alarming(decision, rows);
                Command::SetAlarm(at)
            }
            _ => self.conclude(decision, rows),
        }
    }

    /// A claim goes on to the call; anything else is reported and answered.
    fn conclude(&mut self, decision: Decision<'e>, rows: usize) -> Command {
        let said = decision.said();
        let retry_after = match decision {
            Decision::Claim { until, .. } => {
                self.step = Step::Asking(until);
                return Command::AskGate;
            }
            Decision::InFlight { retry_after } => Some(retry_after),
            Decision::Apply { .. } | Decision::Duplicate(_) | Decision::Stale(_) => None,
        };
        self.step = Step::Concluding(Answer::Decided {
            said,
            rows_written: rows,
            retry_after,
        });
        Command::Report(Report {
            said,
            rows_written: rows,
            feed: feed_outcome(said),
        })
    }
}
