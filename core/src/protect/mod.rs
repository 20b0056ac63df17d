//! Step 7's guard: whether an attempt to one destination may go out now, decided for all
//! the entities of a source that share it (issue 54).
//!
//! One [`Protect`] holds a destination's circuit breaker, its concurrency cap and rate,
//! and an operator's pause. The adapter keeps it where every entity can reach it (one
//! Durable Object per source and destination), and each entity's drain, before
//! [`Command::Send`](crate::drain::Command::Send), asks it:
//!
//! 1. [`Protect::ask`] → [`Ask::Grant`] (a lease: send now, then report), [`Ask::Wait`]
//!    (ask again at `until`, the earliest instant worth it) or [`Ask::Paused`].
//! 2. [`Protect::report`] hands the attempt's [`AttemptResult`] back with its lease.
//! 3. [`Protect::poll_transition`], after every call, yields the changes of state
//!    ([`Transition`]) to log and put in the feed; [`Protect::poll_wake`] the waiting
//!    entities whose turn has come, to wake; [`Protect::status`] is what the admin API
//!    and `/inspect` show; [`Protect::next_deadline`] is when to call [`Protect::tick`] so
//!    time-driven changes are seen without an ask.
//!
//! Time is an argument; a `now` earlier than one already seen is taken as that one. The
//! state lives in memory; what must survive the object's restart is [`Durable`], written
//! after any transition and read back with [`Protect::restore`].
//!
//! ```
//! use hookonce_core::protect::{Ask, Protect, Settings};
//! use hookonce_core::retry::AttemptResult;
//! use hookonce_core::time::UnixSeconds;
//!
//! let now = UnixSeconds(1_791_270_400);
//! let mut billing: Protect<&str> = Protect::new(Settings::default(), now);
//! // An entity's alarm, before sending its head row:
//! match billing.ask(&"ch_1", now) {
//!     Ask::Grant(grant) => {
//!         let result = AttemptResult::Status { code: 503, retry_after: None }; // sent
//!         let _ = billing.report(&"ch_1", grant.lease, &result, now);
//!     }
//!     Ask::Wait { until, .. } => { /* set the alarm for `until`; the row is untouched */ }
//!     Ask::Paused => { /* the row waits for an operator */ }
//!     _ => {}
//! }
//! while let Some(transition) = billing.poll_transition() {
//!     println!("billing {transition}"); // the log and the feed; then keep billing.durable()
//! }
//! assert_eq!(billing.status(now).consecutive_failures, 1);
//! ```
//!
//! ## The breaker
//!
//! ```text
//!            N outage failures in a row, or ≥ X % of ≥ M attempts in the window
//!   Closed ───────────────────────────────────────────────────────────────▶ Open
//!     ▲  (slow start: admitted in-flight 1, 2, 4 … up to the cap,               │
//!     │   doubling after as many successes as admitted)                          │ cool-down over
//!     │                                                                          ▼
//!     └──────────────── the probe succeeds ─────────────────────────────── Half-open
//!                                  (one attempt admitted)  the probe fails, or its ──▶ Open,
//!                                                          lease expires unreported   cool-down doubled
//! ```
//!
//! The cool-down starts at `cool_down_secs` and doubles after each failed probe up to
//! `max_cool_down_secs`; a close resets it. Only the probe's result moves a half-open
//! breaker; results of attempts granted before it opened free their slots and count for
//! nothing.
//!
//! **What counts as a failure** ([`is_outage`]): whatever does not deliver (the
//! [`AttemptResult::delivered`] rule), except the application's answer about the event
//! itself: a 4xx other than 408 and 429, and a message too large for a queue. A 400, 404
//! or 422 means the application is up and refused that event; the outbox retries or
//! dead-letters the row on its own schedule, and other entities' events must not be held
//! back for it. Timeouts, network and queue errors, 5xx, 408, 429 and redirects count, and
//! any other answer resets the run of failures in a row.
//!
//! ## The cap, the rate and fairness
//!
//! At most `max_in_flight` leases are out at once (fewer while slowly starting), and at
//! most `max_per_second` attempts are granted in one second. A lease ends when its result is
//! reported, when its entity asks again (an entity's drain makes one attempt at a time, so
//! its previous one is over or lost), or at its `until`, `lease_secs` after the grant: a
//! lease whose entity's isolate died frees its slot then, and counts as no result (as a
//! failed probe if it was the probe).
//!
//! A drain with a backlog asks for a batch ([`Protect::ask_batch`]): one lease covering up
//! to [`BATCH`] attempts of one entity, made one after another, so the backlog pays one
//! gate call per batch, not one per row. The lease is one slot of the cap (the
//! entity makes one attempt at a time); every attempt it covers counts against the rate;
//! the probe covers one. The drain reports the batch's results together
//! ([`Protect::report_batch`]) with its next ask, and stops using a lease at its first
//! outage, which it reports before anything else goes out, so the breaker hears of a
//! failure as soon as it would without batches.
//!
//! Fairness is first come, first served among waiters: an entity refused for want of a
//! slot, or while the breaker is open or probing, takes a place in line and is told to ask
//! again [`LINE_POLL`] later, or sooner when [`Protect::poll_wake`] names it (a free slot,
//! or the probe); while slots are short, a slot goes to an entity only
//! if fewer waiters than free slots stand before it. So a hot entity that reports and asks
//! again at once goes behind those already waiting and cannot starve them. A waiter that does not ask again within [`TURN_GRACE`] of the
//! instant it was given loses its place; the line holds at most [`MAX_WAITING`] entities
//! (beyond, an entity still waits but holds no place).
//!
//! ## Pause
//!
//! [`Protect::pause`] makes every ask [`Ask::Paused`] until [`Protect::resume`]; leases out
//! run to their end and their results count. The breaker is kept as it is and its clock
//! keeps running, so a resume finds it as it was or as its cool-down made it.
//!
//! ## Rows are not spent while the destination is held
//!
//! An entity told [`Ask::Wait`] or [`Ask::Paused`] makes no attempt: it counts none, writes
//! nothing to its row, and sets its alarm for the instant given (or, paused, polls). So a
//! row never becomes a dead letter because of an outage.
//!
//! A row's retry window counts from when the destination is healthy again: the later of
//! its first attempt and [`Status::healthy_since`], the instant the breaker last closed or
//! an operator last resumed; while held (open, half-open or paused) it does not run at all.
//! [`Protect::window_start`] gives the instant to pass to
//! [`Schedule::next`](crate::retry::Schedule::next) as `first_attempt_at`. Why from
//! recovery rather than paused for the time open: a paused window needs, per row, how long
//! the destination had been open when the row was first tried (a new column, kept
//! durable), while counting from recovery needs one instant per destination; and a row
//! caught in an outage had its earlier attempts spent against an unhealthy application, so
//! a full window once it is back is what its operator expects. The cost: a row failing for
//! its own reasons (a 404) gets its window restarted by each outage, once per outage.

mod breaker;
mod durable;
mod leases;
mod settings;
mod status;

use std::collections::VecDeque;

use crate::retry::AttemptResult;
use crate::time::{Seconds, UnixSeconds};

use breaker::{Breaker, Gate};
use leases::Leases;

pub use durable::Durable;
pub use leases::{LeaseId, LINE_POLL, MAX_WAITING, SHUT_SPREAD, TURN_GRACE};

/// The most attempts one grant covers ([`Protect::ask_batch`]). A drain with a backlog
/// pays one gate call per this many rows, not one per row: at 16 the calls are
/// about 6% of the round trips of a backlog's attempts, and going higher saves little more.
/// It is also how long a lease's holder keeps its slot while others wait their turn, and
/// how many attempts may still start under a grant after a pause or after the breaker
/// opened (each stops sooner: at its first outage, at [`Grant::rows_until`]), so it is
/// kept small.
pub const BATCH: u32 = 16;
pub use settings::{Settings, SettingsBuilder, SettingsError};
pub use status::{Cause, Circuit, Status, Transition};

/// Whether an attempt's result counts as a failure of the destination (see the module's
/// docs): not delivered, and not the application's answer about that one event.
#[must_use]
pub fn is_outage(result: &AttemptResult) -> bool {
    match result {
        _ if result.delivered() => false,
        AttemptResult::Status {
            code: 408 | 429, ..
        } => true,
        AttemptResult::Status {
            code: 400..=499, ..
        }
        | AttemptResult::TooLarge { .. } => false,
        _ => true,
    }
}

/// An attempt may go out now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Grant {
    /// To report the result with.
    pub lease: LeaseId,
    /// When the lease ends if not reported first.
    pub until: UnixSeconds,
    /// Whether this attempt is the half-open breaker's probe.
    pub probe: bool,
    /// How many attempts the lease covers, one after another (at least 1; see
    /// [`Protect::ask_batch`]).
    pub rows: u32,
    /// The attempts after the first may start only before this instant.
    pub rows_until: UnixSeconds,
}

/// Why an entity must wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WaitReason {
    /// The breaker is open; `until` is the probe's time.
    Open,
    /// The breaker is half-open and its probe is out.
    Probing,
    /// The admitted in-flight are all out.
    Full,
    /// This second's `max_per_second` are all granted.
    Rate,
    /// Slots are free, but other entities were waiting first.
    Turn,
}

/// The answer to [`Protect::ask`].
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ask {
    /// Send now; then [`Protect::report`] with the lease.
    Grant(Grant),
    /// Send nothing and count no attempt; ask again at `until` (always after `now`).
    Wait {
        /// The earliest instant worth asking again.
        until: UnixSeconds,
        /// Why.
        reason: WaitReason,
    },
    /// An operator paused the destination: send nothing, count no attempt, and ask again
    /// on the entity's own schedule; there is no instant at which this ends by itself.
    Paused,
}

/// What [`Protect::report`] made of a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reported {
    /// The lease ended and the result counted; `outage` per [`is_outage`].
    Counted {
        /// Whether it counted as a failure.
        outage: bool,
    },
    /// No such lease is out (it expired, or its entity asked again): nothing changed.
    Unknown,
}

/// The shared protection of one destination; `K` names an entity.
#[derive(Clone, Debug)]
pub struct Protect<K> {
    settings: Settings,
    breaker: Breaker,
    leases: Leases<K>,
    paused: Option<UnixSeconds>,
    healthy_since: Option<UnixSeconds>,
    /// The latest `now` seen.
    now: UnixSeconds,
    transitions: VecDeque<Transition>,
}

impl<K: Clone + Eq> Protect<K> {
    /// A destination's protection at `now`: closed, not paused, nothing out.
    pub fn new(settings: Settings, now: UnixSeconds) -> Protect<K> {
        Protect {
            settings,
            breaker: Breaker::new(settings, now),
            leases: Leases::new(now),
            paused: None,
            healthy_since: None,
            now,
            transitions: VecDeque::new(),
        }
    }

    /// A destination's protection as `saved` describes it, at `now` (after its object
    /// restarted; see [`Durable`]). The settings may have changed since: the cool-down is
    /// brought within them.
    pub fn restore(settings: Settings, saved: &Durable, now: UnixSeconds) -> Protect<K> {
        Protect {
            breaker: Breaker::restore(settings, saved, now),
            paused: saved.paused_since.map(|p| p.min(now)),
            healthy_since: saved.healthy_since.map(|h| h.min(now)),
            ..Protect::new(settings, now)
        }
    }

    /// What to keep for [`Protect::restore`]; it changes only with a transition.
    pub fn durable(&self) -> Durable {
        Durable {
            paused_since: self.paused,
            circuit: self.breaker.circuit(),
            since: self.breaker.since(),
            probe_at: match self.breaker.circuit() {
                Circuit::Open => self.breaker.next_probe(),
                _ => None,
            },
            cool_down: self.breaker.cool_down(),
            healthy_since: self.healthy_since,
        }
    }

    /// The settings it runs with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Applies what time alone changes: expired leases free their slots (an expired probe
    /// reopens the breaker) and an open breaker whose cool-down is over turns half-open.
    /// Every other call does this first. Returns the `now` used.
    pub fn tick(&mut self, now: UnixSeconds) -> UnixSeconds {
        let now = now.max(self.now);
        self.now = now;
        let mut lost = None;
        let breaker = &mut self.breaker;
        self.leases.expire(now, |lease, until| {
            if let Some(t) = breaker.lost(lease, until) {
                lost = Some(t);
            }
        });
        if let Some(t) = lost {
            self.note(t);
        }
        if let Some(t) = self.breaker.tick(now) {
            self.note(t);
        }
        now
    }

    /// Whether `entity` may make an attempt now. Ends the lease `entity` holds, if any.
    pub fn ask(&mut self, entity: &K, now: UnixSeconds) -> Ask {
        self.ask_batch(entity, 1, now)
    }

    /// Whether `entity` may make up to `rows` attempts (at most [`BATCH`]), one after
    /// another, under one lease: [`Protect::ask`] for a drain with a backlog. A grant
    /// covers fewer when the rate leaves fewer this second, or under a rate more than its
    /// slot's share of a second (`max_per_second` over the admitted in-flight), and one
    /// when it is the probe.
    /// Each attempt it covers counts against `max_per_second` in the second of the grant
    /// (those not made go back if reported within it), and all of them must start before
    /// [`Grant::rows_until`]: within that second under a rate, and within the breaker's
    /// cool-down, so that an attempt of a batch granted before the breaker opened never
    /// starts once it is half-open. The lease holds one slot of the cap throughout.
    pub fn ask_batch(&mut self, entity: &K, rows: u32, now: UnixSeconds) -> Ask {
        let now = self.tick(now);
        if let Some(lease) = self.leases.release_entity(entity) {
            if let Some(t) = self.breaker.lost(lease, now) {
                self.note(t);
            }
        }
        if self.paused.is_some() {
            return Ask::Paused;
        }
        let in_flight = self.leases.in_flight();
        let rate_left = self.leases.rate_left(self.settings.max_per_second(), now);
        let (limit, probe) = match self.breaker.gate(now) {
            // In line, so the probe's time and the close wake waiters one by one instead
            // of all of them asking at once; the fallback comes after the instant, spread
            // by place in line.
            Gate::Shut { until, circuit } => {
                let reason = match circuit {
                    Circuit::HalfOpen => WaitReason::Probing,
                    _ => WaitReason::Open,
                };
                let place = self.leases.place(entity) % SHUT_SPREAD as usize;
                let until = until.plus(Seconds(1 + place as u64));
                self.leases.queue(entity, until);
                return Ask::Wait { until, reason };
            }
            Gate::Probe => (1, true),
            Gate::Limit(limit) => (limit, false),
        };
        let free = limit.saturating_sub(in_flight).min(rate_left);
        // The probe goes to whoever asks first (the line's head is woken for it): it is
        // one attempt, not a share.
        if (probe && free > 0) || (!probe && self.leases.take_turn(entity, free, now)) {
            let until = now.plus(self.settings.lease());
            // Under a rate, a grant takes at most its slot's share of a second's attempts:
            // one entity taking the whole second's could make fewer of them in it than the
            // slots would together (a slow destination), and the rest would go unused.
            let share = match self.settings.max_per_second() {
                Some(per_second) => (per_second / limit.max(1)).max(1),
                None => BATCH,
            };
            let rows = match probe {
                true => 1,
                false => rows.clamp(1, BATCH).min(share).min(rate_left),
            };
            let lease = self.leases.grant(entity, until, rows, now);
            if probe {
                self.breaker.probe_granted(lease);
            }
            let rows_until = match self.settings.max_per_second() {
                Some(_) => now.plus(Seconds(1)),
                None => until,
            };
            return Ask::Grant(Grant {
                lease,
                until,
                probe,
                rows,
                rows_until: rows_until.min(now.plus(self.breaker.cool_down())),
            });
        }
        let reason = if in_flight >= limit {
            WaitReason::Full
        } else if rate_left == 0 {
            WaitReason::Rate
        } else {
            WaitReason::Turn
        };
        // A new second brings the rate's grants back, and nothing wakes anyone for it.
        let until = match reason {
            WaitReason::Rate => now.plus(Seconds(1)),
            _ => now.plus(LINE_POLL),
        };
        self.leases.queue(entity, until);
        Ask::Wait { until, reason }
    }

    /// The result of the attempt `entity` made under `lease`. A result reported at or
    /// after the lease's `until` comes too late: the slot was freed and it counts for
    /// nothing ([`Reported::Unknown`]).
    pub fn report(
        &mut self,
        entity: &K,
        lease: LeaseId,
        result: &AttemptResult,
        now: UnixSeconds,
    ) -> Reported {
        self.report_batch(entity, lease, 0, result, now)
    }

    /// The results of the attempts `entity` made under a lease covering several
    /// ([`Protect::ask_batch`]): `earlier` attempts, none of them an outage (the drain
    /// stops using a lease at its first outage and reports it then), then `last`. Each
    /// counts as a report of its own would, in that order; `earlier` beyond what the lease
    /// covered is ignored. As [`Protect::report`] otherwise.
    pub fn report_batch(
        &mut self,
        entity: &K,
        lease: LeaseId,
        earlier: u32,
        last: &AttemptResult,
        now: UnixSeconds,
    ) -> Reported {
        let now = self.tick(now);
        let used = earlier.saturating_add(1);
        let Some(rows) = self.leases.release(lease, entity, used) else {
            return Reported::Unknown;
        };
        for _ in 0..earlier.min(rows.saturating_sub(1)) {
            if let Some(t) = self.breaker.record(lease, false, now) {
                self.note(t);
            }
        }
        let outage = is_outage(last);
        if let Some(t) = self.breaker.record(lease, outage, now) {
            self.note(t);
        }
        Reported::Counted { outage }
    }

    /// An operator pauses the destination; `false` if it already was.
    pub fn pause(&mut self, now: UnixSeconds) -> bool {
        let now = self.tick(now);
        if self.paused.is_some() {
            return false;
        }
        self.paused = Some(now);
        self.note(Transition::Paused { at: now });
        true
    }

    /// An operator resumes the destination; `false` if it was not paused.
    pub fn resume(&mut self, now: UnixSeconds) -> bool {
        let now = self.tick(now);
        if self.paused.take().is_none() {
            return false;
        }
        self.note(Transition::Resumed { at: now });
        true
    }

    /// The next change of state not yet taken, oldest first. Take them all after every
    /// call: each call makes at most a few, and they are kept until taken.
    pub fn poll_transition(&mut self) -> Option<Transition> {
        self.transitions.pop_front()
    }

    /// An entity waiting in line whose turn has come: a slot is free for it now, or the
    /// half-open breaker's probe is. Its `Wait` named [`LINE_POLL`] later, a fallback:
    /// waking it (a request to its object, which asks again at once) is how its turn
    /// comes. Take them all after every call and alarm; each waiter is woken once per wait.
    pub fn poll_wake(&mut self) -> Option<K> {
        if self.paused.is_some() {
            return None;
        }
        let limit = match self.breaker.gate(self.now) {
            Gate::Limit(limit) => limit,
            Gate::Probe => 1,
            Gate::Shut { .. } => return None,
        };
        let free = limit.saturating_sub(self.leases.in_flight()).min(
            self.leases
                .rate_left(self.settings.max_per_second(), self.now),
        );
        self.leases.wake(free, self.now)
    }

    /// When [`Protect::tick`] next has something to do (a lease expires, a cool-down
    /// ends), if ever: the adapter's alarm, so the half-open and lost-probe transitions are
    /// logged on time even when no entity asks.
    pub fn next_deadline(&self) -> Option<UnixSeconds> {
        let probe = match self.breaker.circuit() {
            Circuit::Open => self.breaker.next_probe(),
            _ => None,
        };
        [self.leases.earliest_expiry(), probe]
            .into_iter()
            .flatten()
            .min()
    }

    /// The instant a row first tried at `first_attempt_at` counts its retry window from,
    /// for [`Schedule::next`](crate::retry::Schedule::next): `now` while the destination
    /// is held (the window does not run), otherwise the later of `first_attempt_at` and
    /// [`Status::healthy_since`].
    pub fn window_start(&self, first_attempt_at: UnixSeconds, now: UnixSeconds) -> UnixSeconds {
        if self.paused.is_some() || self.breaker.circuit() != Circuit::Closed {
            return now.max(first_attempt_at);
        }
        self.healthy_since
            .map_or(first_attempt_at, |h| h.max(first_attempt_at))
    }

    /// The destination's state at `now`, for the admin API and `/inspect`.
    pub fn status(&mut self, now: UnixSeconds) -> Status {
        let now = self.tick(now);
        let circuit = self.breaker.circuit();
        let (recent_attempts, recent_failures) = self.breaker.totals(now);
        Status {
            circuit,
            since: self.breaker.since(),
            paused_since: self.paused,
            in_flight: self.leases.in_flight(),
            limit: match circuit {
                Circuit::Open => 0,
                Circuit::HalfOpen => 1,
                _ => self.breaker.limit(),
            },
            consecutive_failures: self.breaker.consecutive(),
            recent_attempts,
            recent_failures,
            next_probe_at: self.breaker.next_probe(),
            cool_down: self.breaker.cool_down(),
            healthy_since: self.healthy_since,
            waiting: self.leases.waiting(),
        }
    }

    /// Queues `t` for the adapter and applies what it implies here.
    fn note(&mut self, t: Transition) {
        match t {
            Transition::Paused { .. } => self.leases.clear_line(),
            Transition::Closed { at } => self.healthy_since = Some(at),
            Transition::Resumed { at } if self.breaker.circuit() == Circuit::Closed => {
                self.healthy_since = Some(at);
            }
            _ => {}
        }
        self.transitions.push_back(t);
    }
}
