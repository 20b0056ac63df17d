//! Step 7 of the flow, forward, as a sequence: one object's delivery loop, decided here
//! one command at a time and carried out by the adapter, which hands back what each came
//! to.
//!
//! An alarm invocation starts a run ([`Drain::alarm`]); the adapter carries out each
//! [`Command`] and passes what came of it to [`Drain::handle`], until [`Command::Done`]:
//! - [`Command::ReadHead`]: read the next row ([`Read`]: after the last row this run read,
//!   an entity's next due row that is the first pending row of its destination; a
//!   bucket's next due row) and hand it over at once, with no `.await` in between. What is
//!   due for it ([`step`]) decides the rest. With no due row left, the run reads when the
//!   next one is due among the destinations not held ([`Command::ReadEarliest`]) and sets
//!   the alarm for the earliest of that and the held destinations' ends of wait (a
//!   [`Wait`](Ask::Wait)'s `until`; a pause's [`PAUSED_POLL`] later).
//! - [`Command::ReadSuccessor`]: a row bound for a destination that takes only the
//!   latest snapshot (`deliver = "latest"`, [`Gated::latest`]) is first weighed against
//!   the next pending row of its destination ([`Input::Successor`]). When both are
//!   snapshots and the next is no older ([`supersedes`]), the row is written
//!   [`Transition::Supersede`] (never sent) and the run reads on, so a backlog goes out as
//!   its newest snapshot; ledger and notify rows, and a snapshot followed by one, go out.
//! - [`Command::Ask`]: a row bound for a source's destination ([`Gated`]; a published
//!   message's own URL is not) first asks the destination's gate object (`gate`, shared by
//!   all the source's entities: breaker, `max_in_flight`, rate, pause) whether it may go
//!   ([`Input::Asked`]). A grant goes on to [`Command::Send`] with the row as read before
//!   the ask (between them the only `.await` is the gate call, and only a run writes a
//!   pending row). A wait, or a pause, writes nothing: the row and its attempts stay as
//!   they were, the destination is held for the rest of the run (its later rows are not
//!   asked about), and the run goes on to the other destinations' heads.
//! - [`Command::Send`]: one attempt, of the row just read; the attempt's result becomes the
//!   row's [`Transition`] ([`after_attempt_within`], its retry window counted from
//!   [`window_start`]: a grant after an outage starts it again, so an outage spends none
//!   of it).
//! - [`Command::Write`]: the transition, applied only while the row is still pending with
//!   the attempts it was read with (one conditional `UPDATE`).
//! - [`Command::Sync`]: made durable before anything else goes out; then the next
//!   [`Command::ReadHead`]. An ask asks for a batch ([`BATCH`] attempts under one lease,
//!   [`Protect::ask_batch`](crate::protect::Protect::ask_batch)): the destination's later
//!   rows in the run go out under the lease with no gate call while it covers more, its
//!   time lasts, and none of its attempts was an outage. Its results
//!   are owed to the gate: when a row of the destination must ask again, they ride along
//!   with that [`Command::Ask`] (`renew`), so a backlog costs one gate call per batch;
//!   a lease that can serve no more rows (an outage among them) is reported first
//!   ([`Command::Report`]) when the row read next is another destination's, which is read
//!   again after; and every lease is reported before the run ends. A report that is lost holds
//!   the lease's slot only until the lease ends, and counts for nothing. After a failed attempt of an entity's row, the later rows of
//!   its destination wait for its retry (head of line per destination: each destination
//!   sees the entity in order), and the run goes on to the other destinations' heads
//!   ([`Order::HeadOfLine`]). A bucket's events have no order among them
//!   ([`Order::EachDue`]): it goes on to its next due row.
//!
//! What this sequencing guarantees, whatever the runtime does with alarms:
//! - **One run at a time.** An alarm that fires while a run is under way starts none: it
//!   sets the alarm again [`BUSY_RETRY`] later, and the run, which reads again before each
//!   row, finds whatever that alarm was for. A run older than [`RUN_LIMIT`] cannot be alive
//!   (the runtime ends an alarm handler by then), so a new alarm takes over, and the old
//!   run's later steps are refused ([`Command::Done`]).
//! - **A row is sent as it was read just now.** [`Command::Send`] only ever answers the
//!   [`Input::Head`] read in the same turn; after every `.await` the next step reads again.
//! - **A finished row is never sent again, and no retry is set for it.** A write that finds
//!   its row no longer pending with the attempts it read applies nothing; the run reads on
//!   instead of acting on what it wrote.
//! - **A row is never sent while an earlier row of its destination is pending**, so an
//!   older event never reaches a destination after a newer one's first send; one
//!   destination's failures, or its gate's wait or pause, hold back none of the others.
//! - **A held destination spends nothing.** A wait or a pause is no attempt: no row's
//!   attempts, next attempt or retry window change, and no row becomes a dead letter.

use crate::config::Effect;
use crate::gate::window_start;
use crate::outbox::{after_attempt_within, step, Head, Order, Step, Transition};
use crate::protect::{is_outage, Ask, Grant, LeaseId, BATCH};
use crate::retry::{AttemptResult, DeadReason, Schedule};
use crate::time::{Seconds, UnixSeconds};

/// How long after it started a run is known to be over: the runtime ends an alarm handler
/// after 15 minutes of wall time.
pub const RUN_LIMIT: Seconds = Seconds(15 * 60);

/// How much later an alarm that found a run under way fires again.
pub const BUSY_RETRY: Seconds = Seconds(1);

/// How much later an alarm that found the configuration unreadable fires again: nothing
/// can be sent until it loads, and the pending rows must still go out once it does.
pub const UNCONFIGURED_RETRY: Seconds = Seconds::MINUTE;

/// How much later a paused destination's rows are asked about again: a pause has no end of
/// its own, and a resumed destination's rows go out within this long. Each object holding
/// rows for it costs the gate one call per poll: 15 s keeps a thousand such objects near
/// 70 calls a second, a tenth of what one gate object serves.
pub const PAUSED_POLL: Seconds = Seconds(15);

/// How much later a row whose gate could not be asked (the call failed, or its answer was
/// unreadable) is asked about again; nothing is spent meanwhile.
pub const GATE_UNREACHABLE_RETRY: Seconds = Seconds(1);

/// When an alarm that fired at `now` and found the configuration unreadable fires again.
#[must_use]
pub fn unconfigured(now: UnixSeconds) -> UnixSeconds {
    now.plus(UNCONFIGURED_RETRY)
}

/// One object's delivery loop: whether a run is under way, and what it waits for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Drain {
    /// The run under way, if any.
    current: Option<Current>,
    /// The last run's number.
    last: u64,
}

/// A run under way.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Current {
    run: Run,
    started: UnixSeconds,
    order: Order,
    /// The `seq` of the last row this run read: the next read starts after it.
    after: i64,
    waiting: Waiting,
    /// The destinations whose gate said wait or paused in this run, and until when.
    held: Vec<(String, UnixSeconds)>,
    /// This run's leases not yet reported, at most one per destination.
    leases: Vec<Lease>,
    /// The destination whose lease the attempt under way is made under.
    sending: Option<String>,
}

/// A grant of this run's ([`Protect::ask_batch`](crate::protect::Protect::ask_batch)),
/// and what came of the attempts made under it so far.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Lease {
    gated: Gated,
    grant: Grant,
    /// The gate's `healthy_since`, from the answer that granted it.
    healthy_since: Option<UnixSeconds>,
    /// Attempts made under it, the last one's result.
    used: u32,
    last: Option<AttemptResult>,
}

impl Lease {
    /// Whether another attempt may go out under it at `now` with no call to the gate: it
    /// covers more rows, their time has not run out, the attempt (its timeout, from a
    /// clock up to a second behind) ends a second before the lease does, and no attempt
    /// under it was an outage (the breaker hears of that before anything else goes out).
    fn usable(&self, now: UnixSeconds) -> bool {
        self.last.as_ref().is_some_and(|r| !is_outage(r))
            && self.used < self.grant.rows
            && now < self.grant.rows_until
            && now.plus(Seconds(self.gated.timeout.0.saturating_add(2))) <= self.grant.until
    }

    /// What is owed to the gate, once an attempt was made under it.
    fn owed(&self) -> Option<Owed> {
        Some(Owed {
            lease: self.grant.lease,
            earlier: self.used.saturating_sub(1),
            result: self.last.clone()?,
        })
    }
}

/// The results owed to a gate for a lease: `earlier` attempts, none of them an outage,
/// then `result` ([`Protect::report_batch`](crate::protect::Protect::report_batch)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owed {
    /// The grant's lease.
    pub lease: LeaseId,
    /// Attempts under it before the last.
    pub earlier: u32,
    /// How the last ended.
    pub result: AttemptResult,
}

impl Current {
    /// This run's next read.
    fn read(&self) -> Read {
        match self.order {
            Order::HeadOfLine => Read::HeadAfter(self.after),
            Order::EachDue => Read::DueAfter(self.after),
        }
    }

    /// Whether `gated`'s destination is held in this run.
    fn holds(&self, gated: &Gated) -> bool {
        self.held.iter().any(|(d, _)| *d == gated.destination)
    }

    /// The alarm for when the first of `due` and the held destinations' waits ends.
    fn alarm(&self, due: Option<UnixSeconds>) -> Option<UnixSeconds> {
        self.held.iter().map(|(_, until)| *until).chain(due).min()
    }

    /// What follows a written (or unwritten) row: the next read. A granted attempt's
    /// report waits for it ([`Current::unreported`]).
    fn after_write<T>(&mut self) -> (Waiting, Command<T>) {
        (Waiting::Head, Command::ReadHead(self.read()))
    }

    /// A lease's report that goes out before `head` (what the read just found) is
    /// handled, and the row is read again after it. A lease stays unreported while `head`
    /// goes to its destination (the row goes out under it, or its report rides along with
    /// the row's ask: [`Command::Ask`]'s `renew`), or while it may still serve a later row
    /// of its destination ([`Lease::usable`]: an outage never may); at the end of the run
    /// (no row read, or one not due) every one is reported.
    fn unreported<T>(&mut self, head: &Input<'_, T>) -> Option<Command<T>> {
        let (next, now) = match head {
            Input::Head {
                row: Some((row, via)),
                gated,
                now,
            } if row.next_attempt_at <= *now => {
                let next = gated
                    .as_ref()
                    .filter(|next| !self.holds(next) && via.is_ok());
                (Some(next.map(|g| g.destination.as_str())), *now)
            }
            // No row, or one not due yet: the run ends.
            Input::Head { now, .. } => (None, *now),
            _ => return None,
        };
        let i = self.leases.iter().position(|l| {
            l.last.is_some()
                && match next {
                    None => true,
                    Some(next) => next != Some(l.gated.destination.as_str()) && !l.usable(now),
                }
        })?;
        let lease = self.leases.swap_remove(i);
        let owed = lease.owed()?;
        Some(Command::Report {
            destination: lease.gated.destination,
            entity: lease.gated.entity,
            lease: owed.lease,
            earlier: owed.earlier,
            result: owed.result,
        })
    }

    /// What a row bound for `gated`'s destination does once it is to go out: under this
    /// run's lease of that destination if it may ([`Lease::usable`]), with no call to the
    /// gate; otherwise it asks the gate for a batch, the lease's results riding along.
    fn ask_or_send<T>(
        &mut self,
        head: Head,
        attempt: u32,
        gated: Gated,
        via: T,
        now: UnixSeconds,
    ) -> (Waiting, Command<T>) {
        let mine = self
            .leases
            .iter()
            .position(|l| l.gated.destination == gated.destination);
        if let Some(i) = mine.filter(|&i| self.leases[i].usable(now)) {
            self.sending = Some(self.leases[i].gated.destination.clone());
            return (Waiting::Sent(head), Command::Send { attempt, via });
        }
        let renew = mine.and_then(|i| self.leases.swap_remove(i).owed());
        (
            Waiting::Asked {
                head,
                attempt,
                gated: gated.clone(),
            },
            Command::Ask {
                destination: gated.destination,
                entity: gated.entity,
                via,
                renew,
                rows: BATCH,
            },
        )
    }
}

/// What the run under way waits for: the answer to the command it was given last.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Waiting {
    Head,
    Earliest,
    Asked {
        head: Head,
        attempt: u32,
        gated: Gated,
    },
    Successor {
        head: Head,
        attempt: u32,
        gated: Gated,
    },
    Sent(Head),
    Written,
    Synced,
    Reported,
    AlarmSet,
}

/// The gate a row asks before it is sent: its destination (the adapter knows the source)
/// and the key the gate counts its entity by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gated {
    /// The name of the source's destination the row is bound for.
    pub destination: String,
    /// The entity's key at the gate (a bucket's: its object's name).
    pub entity: String,
    /// Whether the destination takes only the newest of a run of snapshots
    /// (`deliver = "latest"`; an entity's rows only).
    pub latest: bool,
    /// The destination's `timeout_secs`: an attempt under a lease granted earlier starts
    /// only if it ends before the lease does.
    pub timeout: Seconds,
}

/// A row's event, as [`supersedes`] weighs it: what [`Command::ReadSuccessor`] reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weighed<'s> {
    /// The event's id.
    pub event_id: String,
    /// What its type does, as configured.
    pub effect: &'s Effect,
    /// The event's own time, its snapshot version.
    pub created_at: Option<UnixSeconds>,
}

/// Whether `next`, the row after `head` for the same destination, goes in `head`'s place:
/// both snapshots, and `next` no older (a redelivered old snapshot behind a newer one
/// supersedes nothing).
#[must_use]
pub fn supersedes(head: &Weighed<'_>, next: &Weighed<'_>) -> bool {
    matches!(
        (head.effect, next.effect),
        (Effect::Snapshot, Effect::Snapshot)
    ) && matches!((head.created_at, next.created_at), (Some(h), Some(n)) if n >= h)
}

/// One alarm invocation's handle on the loop, for [`Drain::handle`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run(u64);

/// Which row [`Command::ReadHead`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// Exhaustive: the edge carries out every variant, one arm each; a new one must fail its build.
pub enum Read {
    /// The first pending row after this `seq` that is due now and is its destination's
    /// first pending row ([`Order::HeadOfLine`]).
    HeadAfter(i64),
    /// The first pending row after this `seq` that is due now ([`Order::EachDue`]).
    DueAfter(i64),
}

/// What the adapter does next for a run.
#[must_use]
#[derive(Clone, Debug, PartialEq, Eq)]
// Exhaustive: the edge carries out every variant, one arm each; a new one must fail its build.
pub enum Command<T> {
    /// Read the row [`Read`] names, and hand it to [`Drain::handle`] as [`Input::Head`] with
    /// no `.await` in between.
    ReadHead(Read),
    /// Read when the first pending row that [`Order`] lets go next is due (an entity's:
    /// the earliest of its destinations' first pending rows), leaving out the rows bound
    /// for the destinations in `held` (not published messages' own URLs); then
    /// [`Input::Earliest`].
    ReadEarliest {
        /// The object's order.
        order: Order,
        /// Destinations held by their gate in this run, by name.
        held: Vec<String>,
    },
    /// Read the event of row `seq` and of the next pending row of its destination after
    /// it; then [`Input::Successor`], handing `via` back.
    ReadSuccessor {
        /// The row just read.
        seq: i64,
        /// What sending it takes, as the adapter handed it over.
        via: T,
    },
    /// Ask `destination`'s gate object whether `entity` may make an attempt now; then
    /// [`Input::Asked`], handing `via` back.
    Ask {
        /// The source's destination the row is bound for.
        destination: String,
        /// The entity's key at the gate.
        entity: String,
        /// What sending the row takes, as the adapter handed it over.
        via: T,
        /// The results of this run's last lease of the same destination, not yet
        /// reported: sent in the same call (the gate's `Renew`).
        renew: Option<Owed>,
        /// The attempts wanted under one lease ([`BATCH`]).
        rows: u32,
    },
    /// Report the results of the attempts made under a lease to `destination`'s gate;
    /// then [`Input::Reported`], whether or not the report arrived.
    Report {
        /// The source's destination.
        destination: String,
        /// The entity's key at the gate.
        entity: String,
        /// The grant's lease.
        lease: LeaseId,
        /// Attempts under it before the last, none an outage.
        earlier: u32,
        /// How the last attempt ended.
        result: AttemptResult,
    },
    /// Send the row just read, as attempt number `attempt`, with `via`; then
    /// [`Input::Sent`].
    Send {
        /// The attempt's number, for the `hookonce-attempt` header.
        attempt: u32,
        /// What to send it with, as the adapter handed it over.
        via: T,
    },
    /// Carry out `transition` only if its row is still pending with `if_attempts` attempts
    /// made (one conditional `UPDATE`); then [`Input::Written`].
    Write {
        /// The row's change of state.
        transition: Transition,
        /// The attempts the row was read with.
        if_attempts: u32,
    },
    /// Make every write durable (`storage.sync()`); then [`Input::Synced`].
    Sync,
    /// Make sure the alarm fires no later than this; then [`Input::AlarmSet`].
    SetAlarm(UnixSeconds),
    /// The run is over: nothing more to do until the alarm fires again.
    Done,
}

/// What a command came to.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Input<'s, T> {
    /// What [`Command::ReadHead`] found at `now`: the row, with what sending it takes
    /// (or why it never can: its destination removed, its secret or body gone), or `None`
    /// when no such row is pending.
    Head {
        /// The row and its means of sending.
        row: Option<(Head, Result<T, DeadReason>)>,
        /// The gate the row asks first; `None` for a published message's own URL.
        gated: Option<Gated>,
        /// The adapter's clock.
        now: UnixSeconds,
    },
    /// What the gate of [`Command::Ask`] answered, with the `via` handed back; `None` when
    /// the call failed or its answer was unreadable.
    Asked {
        /// The gate's answer.
        answer: Option<Ask>,
        /// When the destination was last known healthy, from the same answer.
        healthy_since: Option<UnixSeconds>,
        /// The command's `via`.
        via: T,
        /// The adapter's clock.
        now: UnixSeconds,
    },
    /// What [`Command::ReadSuccessor`] found: the row's event and the next pending row's
    /// of the same destination (`None`: no such row, or its event is not kept).
    Successor {
        /// The row's event.
        head: Option<Weighed<'s>>,
        /// The next pending row's event.
        next: Option<Weighed<'s>>,
        /// The command's `via`.
        via: T,
        /// The adapter's clock.
        now: UnixSeconds,
    },
    /// [`Command::Report`] is done (or failed: a lost report only holds its slot at the
    /// gate until the lease ends).
    Reported,
    /// What the attempt of [`Command::Send`] came to.
    Sent {
        /// How it ended.
        result: AttemptResult,
        /// The retry schedule of the row's target.
        schedule: &'s Schedule,
        /// The clock after the attempt, rounded up, so a wait from it never ends early.
        now: UnixSeconds,
        /// Uniform in `0..=1000`, for the retry's jitter.
        jitter: u16,
    },
    /// Whether [`Command::Write`] applied (its `UPDATE` changed the row).
    Written {
        /// `false` when the row was no longer pending with the attempts it was read with.
        applied: bool,
    },
    /// [`Command::Sync`] is done.
    Synced,
    /// What [`Command::ReadEarliest`] found: when the first pending row is due, if any is.
    Earliest(Option<UnixSeconds>),
    /// [`Command::SetAlarm`] is done.
    AlarmSet,
}

impl Drain {
    /// An alarm fired at `now` in an object whose rows go out in `order`: the invocation's
    /// handle and its first command. With a run under way (started less than [`RUN_LIMIT`]
    /// ago), this one only sets the alarm again.
    pub fn alarm<T>(&mut self, now: UnixSeconds, order: Order) -> (Run, Command<T>) {
        self.last += 1;
        let run = Run(self.last);
        if let Some(c) = &self.current {
            if now < c.started.plus(RUN_LIMIT) {
                return (run, Command::SetAlarm(now.plus(BUSY_RETRY)));
            }
        }
        let current = Current {
            run,
            started: now,
            order,
            after: 0,
            waiting: Waiting::Head,
            held: Vec::new(),
            leases: Vec::new(),
            sending: None,
        };
        let read = current.read();
        self.current = Some(current);
        (run, Command::ReadHead(read))
    }

    /// Whether a run is under way.
    pub fn running(&self) -> bool {
        self.current.is_some()
    }

    /// What follows `input` in `run`. A run that was taken over, or an invocation that
    /// started none, is told [`Command::Done`] whatever it hands in.
    pub fn handle<T>(&mut self, run: Run, input: Input<'_, T>) -> Command<T> {
        let Some(current) = self.current.as_mut().filter(|c| c.run == run) else {
            return Command::Done;
        };
        if current.waiting == Waiting::Head {
            if let Some(report) = current.unreported(&input) {
                current.waiting = Waiting::Reported;
                return report;
            }
        }
        if let Input::Head {
            row: Some((head, _)),
            ..
        } = &input
        {
            current.after = head.seq;
        }
        let read = current.read();
        let (waiting, command) = match (&current.waiting, input) {
            (Waiting::Head, Input::Head { row: None, .. }) => (
                Some(Waiting::Earliest),
                Command::ReadEarliest {
                    order: current.order,
                    held: current.held.iter().map(|(d, _)| d.clone()).collect(),
                },
            ),
            (Waiting::Earliest, Input::Earliest(due)) => match current.alarm(due) {
                Some(at) => (Some(Waiting::AlarmSet), Command::SetAlarm(at)),
                None => (None, Command::Done),
            },
            (
                Waiting::Head,
                Input::Head {
                    row: Some((head, via)),
                    gated,
                    now,
                },
            ) => match (step(&head, via, now), gated) {
                (Step::WaitUntil(at), _) => {
                    let at = current.alarm(Some(at)).unwrap_or(at);
                    (Some(Waiting::AlarmSet), Command::SetAlarm(at))
                }
                (Step::Dead(transition), _) => (
                    Some(Waiting::Written),
                    Command::Write {
                        transition,
                        if_attempts: head.attempts,
                    },
                ),
                // Its destination is held in this run: not asked again before it ends.
                (Step::Send { .. }, Some(gated)) if current.holds(&gated) => {
                    (Some(Waiting::Head), Command::ReadHead(read))
                }
                // Only an entity's rows have an order, and snapshots, to weigh.
                (Step::Send { attempt, via }, Some(gated))
                    if gated.latest && current.order == Order::HeadOfLine =>
                {
                    (
                        Some(Waiting::Successor {
                            attempt,
                            gated,
                            head: head.clone(),
                        }),
                        Command::ReadSuccessor { seq: head.seq, via },
                    )
                }
                (Step::Send { attempt, via }, Some(gated)) => {
                    let (w, c) = current.ask_or_send(head, attempt, gated, via, now);
                    (Some(w), c)
                }
                (Step::Send { attempt, via }, None) => {
                    (Some(Waiting::Sent(head)), Command::Send { attempt, via })
                }
            },
            (
                Waiting::Successor {
                    head,
                    attempt,
                    gated,
                },
                Input::Successor {
                    head: weighed,
                    next,
                    via,
                    now,
                },
            ) => match (weighed, next) {
                (Some(weighed), Some(next)) if supersedes(&weighed, &next) => (
                    Some(Waiting::Written),
                    Command::Write {
                        transition: Transition::Supersede {
                            seq: head.seq,
                            by: next.event_id,
                            at: now,
                        },
                        if_attempts: head.attempts,
                    },
                ),
                _ => {
                    let (head, attempt, gated) = (head.clone(), *attempt, gated.clone());
                    let (w, c) = current.ask_or_send(head, attempt, gated, via, now);
                    (Some(w), c)
                }
            },
            (
                Waiting::Asked {
                    head,
                    attempt,
                    gated,
                },
                Input::Asked {
                    answer,
                    healthy_since,
                    via,
                    now,
                },
            ) => {
                let until = match answer {
                    Some(Ask::Grant(grant)) => {
                        let (head, attempt) = (head.clone(), *attempt);
                        current.sending = Some(gated.destination.clone());
                        current.leases.push(Lease {
                            gated: gated.clone(),
                            grant,
                            healthy_since,
                            used: 0,
                            last: None,
                        });
                        return Self::go_on(
                            current,
                            Waiting::Sent(head),
                            Command::Send { attempt, via },
                        );
                    }
                    Some(Ask::Wait { until, .. }) => until,
                    Some(Ask::Paused) => now.plus(PAUSED_POLL),
                    None => now.plus(GATE_UNREACHABLE_RETRY),
                };
                // Never before a second from now: a held destination is not asked again
                // within the same second.
                let until = until.max(now.plus(Seconds(1)));
                current.held.push((gated.destination.clone(), until));
                (Some(Waiting::Head), Command::ReadHead(read))
            }
            (
                Waiting::Sent(head),
                Input::Sent {
                    result,
                    schedule,
                    now,
                    jitter,
                },
            ) => {
                let first = head.first_attempt_at.unwrap_or(now);
                let sending = current.sending.take();
                let lease = current
                    .leases
                    .iter_mut()
                    .find(|l| Some(&l.gated.destination) == sending.as_ref());
                let window = match &lease {
                    Some(l) => window_start(&l.grant, l.healthy_since, first, now),
                    None => first,
                };
                let transition = after_attempt_within(head, schedule, &result, window, now, jitter);
                let if_attempts = head.attempts;
                if let Some(l) = lease {
                    l.used = l.used.saturating_add(1);
                    l.last = Some(result);
                }
                (
                    Some(Waiting::Written),
                    Command::Write {
                        transition,
                        if_attempts,
                    },
                )
            }
            // The row moved on without this run: nothing was written, so (after the
            // report of a granted attempt) read again.
            (Waiting::Written, Input::Written { applied: false }) => {
                let (w, c) = current.after_write();
                (Some(w), c)
            }
            (Waiting::Written, Input::Written { applied: true }) => {
                (Some(Waiting::Synced), Command::Sync)
            }
            // A retry's row is behind this run's reads: the final ReadEarliest finds it.
            (Waiting::Synced, Input::Synced) => {
                let (w, c) = current.after_write();
                (Some(w), c)
            }
            (Waiting::Reported, Input::Reported) => (Some(Waiting::Head), Command::ReadHead(read)),
            (Waiting::AlarmSet, Input::AlarmSet) => (None, Command::Done),
            // An answer to a command this run was not given: the adapter's bug. The run
            // ends; the alarm, which it did not set, fires again if work is left.
            _ => (None, Command::Done),
        };
        match waiting {
            Some(w) => current.waiting = w,
            None => self.current = None,
        }
        command
    }

    /// `current` waits for `waiting`; `command` is the adapter's next.
    fn go_on<T>(current: &mut Current, waiting: Waiting, command: Command<T>) -> Command<T> {
        current.waiting = waiting;
        command
    }

    /// `run` ended early (its invocation failed, or the adapter gave up on it): the next
    /// alarm may start a run at once. A run that is not the current one changes nothing.
    pub fn abandon(&mut self, run: Run) {
        if self.current.as_ref().is_some_and(|c| c.run == run) {
            self.current = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbox::OutboxStatus;

    const NOW: UnixSeconds = UnixSeconds(1_000);

    #[test]
    fn an_alarm_without_a_configuration_fires_again_a_minute_later() {
        assert_eq!(unconfigured(NOW), UnixSeconds(1_060));
    }

    fn head(seq: i64, attempts: u32, next: i64) -> Head {
        Head {
            seq,
            attempts,
            first_attempt_at: (attempts > 0).then_some(UnixSeconds(900)),
            next_attempt_at: UnixSeconds(next),
        }
    }

    fn ok() -> AttemptResult {
        AttemptResult::Status {
            code: 200,
            retry_after: None,
        }
    }

    fn sent(result: AttemptResult, schedule: &Schedule) -> Input<'_, ()> {
        Input::Sent {
            result,
            schedule,
            now: NOW,
            jitter: 0,
        }
    }

    /// The row read, bound for no gated destination (a published message's own URL).
    fn read(row: Option<Head>) -> Input<'static, ()> {
        Input::Head {
            row: row.map(|h| (h, Ok(()))),
            gated: None,
            now: NOW,
        }
    }

    fn gated(destination: &str) -> Gated {
        Gated {
            destination: destination.to_owned(),
            entity: "card_1".to_owned(),
            latest: false,
            timeout: Seconds(10),
        }
    }

    /// The row read, bound for the source's `destination`.
    fn read_for(destination: &str, row: Head) -> Input<'static, ()> {
        Input::Head {
            row: Some((row, Ok(()))),
            gated: Some(gated(destination)),
            now: NOW,
        }
    }

    fn asked(answer: Option<Ask>, healthy_since: Option<UnixSeconds>) -> Input<'static, ()> {
        Input::Asked {
            answer,
            healthy_since,
            via: (),
            now: NOW,
        }
    }

    fn ask(destination: &str) -> Command<()> {
        Command::Ask {
            destination: destination.to_owned(),
            entity: "card_1".to_owned(),
            via: (),
            renew: None,
            rows: BATCH,
        }
    }

    fn grant(lease: u64, probe: bool) -> Option<Ask> {
        Some(Ask::Grant(Grant {
            lease: LeaseId(lease),
            until: NOW.plus(Seconds(30)),
            probe,
            rows: 1,
            rows_until: NOW.plus(Seconds(30)),
        }))
    }

    /// A finished row's write applied: it is made durable, then the head is read again.
    fn written_made_durable_and_read_again(d: &mut Drain, run: Run) {
        assert_eq!(
            d.handle::<()>(run, Input::Written { applied: true }),
            Command::Sync
        );
        assert!(matches!(
            d.handle::<()>(run, Input::Synced),
            Command::ReadHead(Read::HeadAfter(_))
        ));
    }

    #[test]
    fn a_delivered_row_is_written_made_durable_and_the_head_read_again() {
        let s = Schedule::default();
        let mut d = Drain::default();
        let (run, first) = d.alarm::<()>(NOW, Order::HeadOfLine);
        assert_eq!(first, Command::ReadHead(Read::HeadAfter(0)));
        assert_eq!(
            d.handle(run, read(Some(head(1, 0, 900)))),
            Command::Send {
                attempt: 1,
                via: ()
            }
        );
        let Command::Write {
            transition,
            if_attempts: 0,
        } = d.handle(run, sent(ok(), &s))
        else {
            panic!("expected a write guarded by the attempts read");
        };
        assert_eq!(transition.status(), OutboxStatus::Delivered);
        written_made_durable_and_read_again(&mut d, run);
        assert_eq!(
            d.handle(run, read(None)),
            Command::ReadEarliest {
                order: Order::HeadOfLine,
                held: vec![]
            }
        );
        assert_eq!(d.handle::<()>(run, Input::Earliest(None)), Command::Done);
        assert!(!d.running());
    }

    #[test]
    fn a_failed_head_lets_the_run_go_on_to_the_next_destinations_head_then_re_arms() {
        let s = Schedule::default();
        let mut d = Drain::default();
        let (run, _) = d.alarm::<()>(NOW, Order::HeadOfLine);
        let _ = d.handle(run, read(Some(head(1, 0, 900))));
        let _ = d.handle(run, sent(AttemptResult::Timeout, &s));
        let _ = d.handle::<()>(run, Input::Written { applied: true });
        assert_eq!(
            d.handle::<()>(run, Input::Synced),
            Command::ReadHead(Read::HeadAfter(1)),
            "the heads after it, not the retry's alarm"
        );
        assert_eq!(
            d.handle(run, read(Some(head(2, 0, 900)))),
            Command::Send {
                attempt: 1,
                via: ()
            }
        );
        let _ = d.handle(run, sent(ok(), &s));
        written_made_durable_and_read_again(&mut d, run);
        assert_eq!(
            d.handle(run, read(None)),
            Command::ReadEarliest {
                order: Order::HeadOfLine,
                held: vec![]
            }
        );
        let retry = NOW.plus(Seconds(5));
        assert_eq!(
            d.handle::<()>(run, Input::Earliest(Some(retry))),
            Command::SetAlarm(retry)
        );
        assert_eq!(d.handle::<()>(run, Input::AlarmSet), Command::Done);
    }

    #[test]
    fn a_write_that_finds_its_row_moved_on_reads_the_head_again_and_sets_no_retry() {
        let s = Schedule::default();
        let mut d = Drain::default();
        let (run, _) = d.alarm::<()>(NOW, Order::HeadOfLine);
        let _ = d.handle(run, read(Some(head(1, 0, 900))));
        let _ = d.handle(run, sent(AttemptResult::Timeout, &s));
        assert_eq!(
            d.handle::<()>(run, Input::Written { applied: false }),
            Command::ReadHead(Read::HeadAfter(1))
        );
    }

    #[test]
    fn an_alarm_during_a_run_starts_none_and_fires_again_soon() {
        let mut d = Drain::default();
        let (first, _) = d.alarm::<()>(NOW, Order::HeadOfLine);
        let (second, cmd) = d.alarm::<()>(NOW, Order::HeadOfLine);
        assert_eq!(cmd, Command::SetAlarm(NOW.plus(BUSY_RETRY)));
        assert_eq!(d.handle(second, read(Some(head(1, 0, 900)))), Command::Done);
        assert_eq!(d.handle::<()>(second, Input::AlarmSet), Command::Done);
        // The first run is untouched.
        assert_eq!(
            d.handle(first, read(Some(head(1, 0, 900)))),
            Command::Send {
                attempt: 1,
                via: ()
            }
        );
    }

    #[test]
    fn a_run_past_the_runtime_limit_is_taken_over_and_its_late_steps_refused() {
        let s = Schedule::default();
        let mut d = Drain::default();
        let (old, _) = d.alarm::<()>(NOW, Order::HeadOfLine);
        let _ = d.handle(old, read(Some(head(1, 0, 900))));
        let later = NOW.plus(RUN_LIMIT);
        let (new, cmd) = d.alarm::<()>(later, Order::HeadOfLine);
        assert_eq!(cmd, Command::ReadHead(Read::HeadAfter(0)));
        assert_eq!(d.handle(old, sent(ok(), &s)), Command::Done);
        assert!(d.running());
        assert_eq!(
            d.handle(new, read(None)),
            Command::ReadEarliest {
                order: Order::HeadOfLine,
                held: vec![]
            }
        );
    }

    #[test]
    fn an_abandoned_run_lets_the_next_alarm_start_at_once() {
        let mut d = Drain::default();
        let (run, _) = d.alarm::<()>(NOW, Order::HeadOfLine);
        d.abandon(run);
        assert_eq!(
            d.alarm::<()>(NOW, Order::HeadOfLine).1,
            Command::ReadHead(Read::HeadAfter(0))
        );
    }

    #[test]
    fn a_row_not_yet_due_sets_the_alarm_for_it() {
        let mut d = Drain::default();
        let (run, _) = d.alarm::<()>(NOW, Order::HeadOfLine);
        assert_eq!(
            d.handle(run, read(Some(head(1, 1, 1_005)))),
            Command::SetAlarm(UnixSeconds(1_005))
        );
    }

    #[test]
    fn a_row_whose_destination_was_removed_is_written_dead_guarded_by_its_attempts() {
        let mut d = Drain::default();
        let (run, _) = d.alarm::<()>(NOW, Order::HeadOfLine);
        let cmd = d.handle::<()>(
            run,
            Input::Head {
                row: Some((head(1, 2, 900), Err(DeadReason::DestinationRemoved))),
                gated: Some(gated("billing")),
                now: NOW,
            },
        );
        let Command::Write {
            transition,
            if_attempts: 2,
        } = cmd
        else {
            panic!("expected a dead write, got {cmd:?}");
        };
        assert_eq!(transition.status(), OutboxStatus::Dead);
        let Transition::Finish { result, .. } = &transition else {
            panic!("a dead row is finished");
        };
        assert_eq!(result, "destination removed");
        written_made_durable_and_read_again(&mut d, run);
    }

    #[test]
    fn a_buckets_failed_row_holds_back_none_and_the_run_re_arms_for_the_earliest() {
        let s = Schedule::default();
        let mut d = Drain::default();
        let (run, first) = d.alarm::<()>(NOW, Order::EachDue);
        assert_eq!(first, Command::ReadHead(Read::DueAfter(0)));
        let _ = d.handle(run, read(Some(head(3, 0, 900))));
        let _ = d.handle(run, sent(AttemptResult::Timeout, &s));
        let _ = d.handle::<()>(run, Input::Written { applied: true });
        assert_eq!(
            d.handle::<()>(run, Input::Synced),
            Command::ReadHead(Read::DueAfter(3)),
            "the next due row, not the retry's alarm"
        );
        assert_eq!(
            d.handle(run, read(None)),
            Command::ReadEarliest {
                order: Order::EachDue,
                held: vec![]
            }
        );
        let retry = NOW.plus(Seconds(5));
        assert_eq!(
            d.handle::<()>(run, Input::Earliest(Some(retry))),
            Command::SetAlarm(retry)
        );
        assert_eq!(d.handle::<()>(run, Input::AlarmSet), Command::Done);
        let (run, _) = d.alarm::<()>(NOW, Order::EachDue);
        let _ = d.handle(run, read(None));
        assert_eq!(d.handle::<()>(run, Input::Earliest(None)), Command::Done);
        assert!(!d.running());
    }

    /// Reads, asks, is granted `lease` and sends the row `seq` for `destination`, which
    /// comes to `result`; its write applied and made durable. Returns the next command.
    fn granted_and_sent(
        d: &mut Drain,
        run: Run,
        destination: &str,
        seq: i64,
        lease: u64,
        result: AttemptResult,
    ) -> Command<()> {
        let s = Schedule::default();
        let _ = d.handle(run, read_for(destination, head(seq, 0, 900)));
        assert_eq!(
            d.handle(run, asked(grant(lease, false), None)),
            Command::Send {
                attempt: 1,
                via: ()
            }
        );
        let _ = d.handle(run, sent(result, &s));
        assert_eq!(
            d.handle::<()>(run, Input::Written { applied: true }),
            Command::Sync
        );
        d.handle::<()>(run, Input::Synced)
    }

    #[test]
    fn a_granted_attempts_report_rides_along_with_the_next_ask_of_its_destination() {
        let mut d = Drain::default();
        let (run, _) = d.alarm::<()>(NOW, Order::HeadOfLine);
        let next = granted_and_sent(&mut d, run, "billing", 1, 7, ok());
        assert_eq!(next, Command::ReadHead(Read::HeadAfter(1)));
        assert_eq!(
            d.handle(run, read_for("billing", head(2, 0, 900))),
            Command::Ask {
                destination: "billing".to_owned(),
                entity: "card_1".to_owned(),
                via: (),
                renew: Some(Owed {
                    lease: LeaseId(7),
                    earlier: 0,
                    result: ok(),
                }),
                rows: BATCH,
            }
        );
    }

    #[test]
    fn a_granted_attempts_report_goes_first_when_the_next_row_goes_elsewhere_which_is_read_again() {
        let mut d = Drain::default();
        let (run, _) = d.alarm::<()>(NOW, Order::HeadOfLine);
        let next = granted_and_sent(&mut d, run, "billing", 1, 7, AttemptResult::Timeout);
        assert_eq!(next, Command::ReadHead(Read::HeadAfter(1)));
        assert_eq!(
            d.handle(run, read_for("audit", head(2, 0, 900))),
            Command::Report {
                destination: "billing".to_owned(),
                entity: "card_1".to_owned(),
                lease: LeaseId(7),
                earlier: 0,
                result: AttemptResult::Timeout,
            }
        );
        assert_eq!(
            d.handle::<()>(run, Input::Reported),
            Command::ReadHead(Read::HeadAfter(1)),
            "the row found is read again, after the report's await"
        );
        assert_eq!(
            d.handle(run, read_for("audit", head(2, 0, 900))),
            ask("audit")
        );
    }

    #[test]
    fn a_granted_attempts_report_goes_out_before_the_run_ends() {
        let mut d = Drain::default();
        let (run, _) = d.alarm::<()>(NOW, Order::HeadOfLine);
        let _ = granted_and_sent(&mut d, run, "billing", 1, 3, ok());
        assert!(matches!(
            d.handle(run, read(None)),
            Command::Report {
                lease: LeaseId(3),
                ..
            }
        ));
        assert_eq!(
            d.handle::<()>(run, Input::Reported),
            Command::ReadHead(Read::HeadAfter(1))
        );
    }

    #[test]
    fn a_granted_attempt_whose_row_moved_on_is_still_reported() {
        let s = Schedule::default();
        let mut d = Drain::default();
        let (run, _) = d.alarm::<()>(NOW, Order::HeadOfLine);
        let _ = d.handle(run, read_for("billing", head(1, 0, 900)));
        let _ = d.handle(run, asked(grant(3, false), None));
        let _ = d.handle(run, sent(ok(), &s));
        assert_eq!(
            d.handle::<()>(run, Input::Written { applied: false }),
            Command::ReadHead(Read::HeadAfter(1))
        );
        assert!(matches!(
            d.handle(run, read(None)),
            Command::Report {
                lease: LeaseId(3),
                ..
            }
        ));
    }

    #[test]
    fn a_wait_writes_nothing_holds_its_destination_and_the_others_go_on() {
        let s = Schedule::default();
        let mut d = Drain::default();
        let (run, _) = d.alarm::<()>(NOW, Order::HeadOfLine);
        let _ = d.handle(run, read_for("billing", head(1, 0, 900)));
        let until = NOW.plus(Seconds(20));
        let wait = Some(Ask::Wait {
            until,
            reason: crate::protect::WaitReason::Open,
        });
        assert_eq!(
            d.handle(run, asked(wait, None)),
            Command::ReadHead(Read::HeadAfter(1)),
            "no write: the row and its attempts stay as they were"
        );
        // Another destination's head is asked and sent.
        assert_eq!(
            d.handle(run, read_for("audit", head(2, 0, 900))),
            ask("audit")
        );
        let _ = d.handle(run, asked(grant(1, false), None));
        let _ = d.handle(run, sent(ok(), &s));
        let _ = d.handle::<()>(run, Input::Written { applied: true });
        let _ = d.handle::<()>(run, Input::Synced);
        // audit's report goes first: the row read next is not audit's.
        assert!(matches!(
            d.handle(run, read_for("billing", head(4, 0, 900))),
            Command::Report { .. }
        ));
        let _ = d.handle::<()>(run, Input::Reported);
        // The held destination's next row (a bucket's) is not asked about in this run.
        assert_eq!(
            d.handle(run, read_for("billing", head(4, 0, 900))),
            Command::ReadHead(Read::HeadAfter(4))
        );
        assert_eq!(
            d.handle(run, read(None)),
            Command::ReadEarliest {
                order: Order::HeadOfLine,
                held: vec!["billing".to_owned()]
            }
        );
        assert_eq!(
            d.handle::<()>(run, Input::Earliest(Some(NOW.plus(Seconds(60))))),
            Command::SetAlarm(until),
            "the earliest of the heads and the waits"
        );
    }

    #[test]
    fn a_pause_is_asked_again_a_poll_later_and_a_failed_call_a_second_later() {
        for (answer, after) in [
            (Some(Ask::Paused), PAUSED_POLL),
            (None, GATE_UNREACHABLE_RETRY),
        ] {
            let mut d = Drain::default();
            let (run, _) = d.alarm::<()>(NOW, Order::HeadOfLine);
            let _ = d.handle(run, read_for("billing", head(1, 0, 900)));
            let _ = d.handle(run, asked(answer, None));
            let _ = d.handle(run, read(None));
            assert_eq!(
                d.handle::<()>(run, Input::Earliest(None)),
                Command::SetAlarm(NOW.plus(after))
            );
        }
    }

    #[test]
    fn a_grant_after_an_outage_counts_the_retry_window_from_when_it_was_healthy_again() {
        let s = Schedule::new(vec![Seconds(1)], Seconds(3_600)).unwrap();
        let mut d = Drain::default();
        let (run, _) = d.alarm::<()>(NOW, Order::HeadOfLine);
        // First attempted two hours ago: the window alone would make it a dead letter.
        let mut old = head(1, 1, 900);
        old.first_attempt_at = Some(UnixSeconds(NOW.0 - 7_200));
        let _ = d.handle(run, read_for("billing", old));
        let _ = d.handle(run, asked(grant(1, false), Some(UnixSeconds(NOW.0 - 60))));
        let Command::Write { transition, .. } = d.handle(run, sent(AttemptResult::Timeout, &s))
        else {
            panic!("expected a write");
        };
        assert_eq!(transition.status(), OutboxStatus::Pending, "{transition:?}");
        let Transition::Retry {
            first_attempt_at, ..
        } = transition
        else {
            panic!("expected a retry");
        };
        assert_eq!(
            first_attempt_at,
            UnixSeconds(NOW.0 - 7_200),
            "its first attempt kept"
        );
    }

    /// A grant of `rows` attempts under lease `lease`, their time ending at `rows_until`.
    fn batch(lease: u64, rows: u32, rows_until: UnixSeconds) -> Option<Ask> {
        Some(Ask::Grant(Grant {
            lease: LeaseId(lease),
            until: NOW.plus(Seconds(30)),
            probe: false,
            rows,
            rows_until,
        }))
    }

    /// The row `seq` for `destination`, read at `now`.
    fn read_at(destination: &str, seq: i64, now: UnixSeconds) -> Input<'static, ()> {
        Input::Head {
            row: Some((head(seq, 0, 900), Ok(()))),
            gated: Some(gated(destination)),
            now,
        }
    }

    /// The attempt just sent came to `result`; written and made durable.
    /// A run that read billing's head, was granted lease 7 for a batch of [`BATCH`] rows,
    /// sent the head and wrote `first`, its result.
    fn billing_batch(order: Order, first: AttemptResult) -> (Drain, Run) {
        let mut d = Drain::default();
        let (run, _) = d.alarm::<()>(NOW, order);
        let _ = d.handle(run, read_for("billing", head(1, 0, 900)));
        let _ = d.handle(run, asked(batch(7, BATCH, NOW.plus(Seconds(30))), None));
        sent_written(&mut d, run, first);
        (d, run)
    }

    fn sent_written(d: &mut Drain, run: Run, result: AttemptResult) {
        let s = Schedule::default();
        assert!(matches!(
            d.handle(run, sent(result, &s)),
            Command::Write { .. }
        ));
        assert_eq!(
            d.handle::<()>(run, Input::Written { applied: true }),
            Command::Sync
        );
        assert!(matches!(
            d.handle::<()>(run, Input::Synced),
            Command::ReadHead(_)
        ));
    }

    fn send() -> Command<()> {
        Command::Send {
            attempt: 1,
            via: (),
        }
    }

    fn renewing(lease: u64, earlier: u32, result: AttemptResult) -> Command<()> {
        Command::Ask {
            destination: "billing".to_owned(),
            entity: "card_1".to_owned(),
            via: (),
            renew: Some(Owed {
                lease: LeaseId(lease),
                earlier,
                result,
            }),
            rows: BATCH,
        }
    }

    #[test]
    fn a_backlog_goes_out_under_one_batch_grant_then_renews_with_every_result() {
        let mut d = Drain::default();
        let (run, _) = d.alarm::<()>(NOW, Order::HeadOfLine);
        assert_eq!(
            d.handle(run, read_for("billing", head(1, 0, 900))),
            ask("billing")
        );
        assert_eq!(
            d.handle(run, asked(batch(7, 3, NOW.plus(Seconds(30))), None)),
            send()
        );
        sent_written(&mut d, run, ok());
        for seq in 2..=3 {
            assert_eq!(
                d.handle(run, read_at("billing", seq, NOW)),
                send(),
                "row {seq} goes out under the batch, with no call to the gate"
            );
            sent_written(&mut d, run, ok());
        }
        // The batch is spent: the next row asks, and its three results ride along.
        assert_eq!(
            d.handle(run, read_at("billing", 4, NOW)),
            renewing(7, 2, ok())
        );
    }

    #[test]
    fn a_batch_not_spent_is_reported_once_at_the_end_of_the_run() {
        let (mut d, run) = billing_batch(Order::HeadOfLine, ok());
        assert_eq!(d.handle(run, read_at("billing", 2, NOW)), send());
        sent_written(&mut d, run, ok());
        assert_eq!(
            d.handle(run, read(None)),
            Command::Report {
                destination: "billing".to_owned(),
                entity: "card_1".to_owned(),
                lease: LeaseId(7),
                earlier: 1,
                result: ok(),
            }
        );
        assert_eq!(
            d.handle::<()>(run, Input::Reported),
            Command::ReadHead(Read::HeadAfter(2))
        );
        assert!(matches!(
            d.handle(run, read(None)),
            Command::ReadEarliest { .. }
        ));
    }

    #[test]
    fn an_outage_ends_the_batch_and_is_reported_before_anything_else_goes_out() {
        let (mut d, run) = billing_batch(Order::HeadOfLine, ok());
        assert_eq!(d.handle(run, read_at("billing", 2, NOW)), send());
        sent_written(&mut d, run, AttemptResult::Timeout);
        // The head of line holds billing; the next row is audit's, and billing's report
        // goes first.
        assert_eq!(
            d.handle(run, read_at("audit", 3, NOW)),
            Command::Report {
                destination: "billing".to_owned(),
                entity: "card_1".to_owned(),
                lease: LeaseId(7),
                earlier: 1,
                result: AttemptResult::Timeout,
            }
        );
        // A bucket's next row may be billing's: it asks, the outage riding along.
        let (mut d, run) = billing_batch(Order::EachDue, AttemptResult::Timeout);
        assert_eq!(
            d.handle(run, read_at("billing", 2, NOW)),
            renewing(7, 0, AttemptResult::Timeout)
        );
    }

    #[test]
    fn a_batch_whose_time_ran_out_asks_again() {
        // Under a rate: its rows start within the second of the grant.
        let mut d = Drain::default();
        let (run, _) = d.alarm::<()>(NOW, Order::HeadOfLine);
        let _ = d.handle(run, read_for("billing", head(1, 0, 900)));
        let _ = d.handle(run, asked(batch(7, BATCH, NOW.plus(Seconds(1))), None));
        sent_written(&mut d, run, ok());
        assert_eq!(
            d.handle(run, read_at("billing", 2, NOW.plus(Seconds(1)))),
            renewing(7, 0, ok())
        );
        // A 10 s attempt and a second's margin must end by the lease's end, 30 s on.
        for (later, next) in [(18, send()), (19, renewing(7, 1, ok()))] {
            let (mut d, run) = billing_batch(Order::HeadOfLine, ok());
            if later == 19 {
                assert_eq!(d.handle(run, read_at("billing", 2, NOW)), send());
                sent_written(&mut d, run, ok());
            }
            assert_eq!(
                d.handle(run, read_at("billing", 3, NOW.plus(Seconds(later)))),
                next,
                "at {later} s"
            );
        }
    }

    #[test]
    fn a_batch_outlives_another_destinations_rows_and_each_is_reported_at_the_end() {
        let (mut d, run) = billing_batch(Order::HeadOfLine, ok());
        assert_eq!(
            d.handle(run, read_at("audit", 2, NOW)),
            ask("audit"),
            "billing's batch is kept for its next row"
        );
        let _ = d.handle(run, asked(batch(8, BATCH, NOW.plus(Seconds(30))), None));
        sent_written(&mut d, run, ok());
        assert_eq!(d.handle(run, read_at("billing", 3, NOW)), send());
        sent_written(&mut d, run, ok());
        assert_eq!(d.handle(run, read_at("audit", 4, NOW)), send());
        sent_written(&mut d, run, ok());
        let mut reported = Vec::new();
        for _ in 0..2 {
            let Command::Report { lease, earlier, .. } = d.handle(run, read(None)) else {
                panic!("expected a report");
            };
            reported.push((lease.0, earlier));
            let _ = d.handle::<()>(run, Input::Reported);
        }
        reported.sort_unstable();
        assert_eq!(reported, vec![(7, 1), (8, 1)]);
        assert!(matches!(
            d.handle(run, read(None)),
            Command::ReadEarliest { .. }
        ));
    }

    #[test]
    fn a_batch_is_reported_before_a_run_that_finds_its_next_row_not_due_ends() {
        let (mut d, run) = billing_batch(Order::HeadOfLine, ok());
        assert!(matches!(
            d.handle(run, read_for("billing", head(2, 1, 1_005))),
            Command::Report {
                lease: LeaseId(7),
                earlier: 0,
                ..
            }
        ));
        let _ = d.handle::<()>(run, Input::Reported);
        assert_eq!(
            d.handle(run, read_for("billing", head(2, 1, 1_005))),
            Command::SetAlarm(UnixSeconds(1_005))
        );
    }
}
