//! Step 3 of the flow: given what the entity's store holds, what happens to this event.
//!
//! The adapter reads [`Stored`] with point queries, calls [`decide`], and carries out the
//! [`Decision`] with one exhaustive `match`, writing exactly the rows it names in the
//! same synchronous unit as the reads. A duplicate is an outcome, not an error, and it
//! writes nothing.

use std::fmt;

use crate::event::{Effect, Event, EventId, Version};
use crate::time::{Seconds, UnixSeconds};

/// What became of an event that was handled; stored with its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Its effect was written (and its forwarding enqueued or done).
    Applied,
    /// It was older than the entity's state: recorded, neither applied nor forwarded.
    Stale,
}

impl Outcome {
    /// The stored and reported name.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Applied => "applied",
            Outcome::Stale => "stale",
        }
    }

    /// Reads a stored name back.
    pub fn parse(s: &str) -> Option<Outcome> {
        match s {
            "applied" => Some(Outcome::Applied),
            "stale" => Some(Outcome::Stale),
            _ => None,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The processed-id row for one event id, as the store holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Record {
    /// Handled, whatever happened then.
    Done(Outcome),
    /// A synchronous call holds the event until the lease ends.
    Claimed {
        /// When the lease ends; after that the next copy may take the claim over.
        until: UnixSeconds,
    },
}

/// What the store holds that bears on one event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stored {
    /// The processed-id row for this event's id, if any.
    pub record: Option<Record>,
    /// The entity's current snapshot version, if it has one.
    pub version: Option<Version>,
    /// Whether the ledger already has a row for this event id. The ledger's unique
    /// constraint is the safety net for when processed ids are cleared.
    pub ledger_has_event: bool,
}

/// How the source wants new events handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plan {
    /// Apply now; if `forward`, enqueue the outbox entry in the same unit.
    Apply {
        /// Whether the source forwards events.
        forward: bool,
    },
    /// Synchronous forwarding: claim with a lease before calling the destination.
    Claim {
        /// How long the claim holds.
        lease: Seconds,
    },
    /// The synchronous call succeeded: apply, treating any claim as ours.
    /// Nothing is enqueued; the destination has the event already.
    Commit,
}

/// The rows an applied event writes, all in one unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Apply<'e> {
    /// The processed-id row (outcome `applied`).
    pub event_id: &'e EventId,
    /// New snapshot state and the version it carries.
    pub snapshot: Option<(&'e str, Version)>,
    /// A ledger row's amount.
    pub ledger: Option<i64>,
    /// Whether to enqueue an outbox entry for forwarding.
    pub enqueue: bool,
}

/// What to do with one delivery.
#[must_use]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision<'e> {
    /// New: write every row in [`Apply`] as one unit.
    Apply(Apply<'e>),
    /// New, synchronous: write a claim that ends at `until`, call the destination, then
    /// decide again with [`Plan::Commit`] (or [`release`] the claim on failure).
    Claim {
        /// When the lease ends.
        until: UnixSeconds,
        /// Whether an expired claim was taken over (the earlier holder died or hung).
        takeover: bool,
    },
    /// Seen before: write nothing and answer 200.
    Duplicate(Outcome),
    /// Older than the entity's version: record the id as stale (so its replay is a
    /// duplicate), apply nothing, forward nothing.
    Stale,
    /// Another copy holds the claim: answer 409 and ask the provider to come back.
    InFlight {
        /// When the lease ends.
        retry_after: Seconds,
    },
}

impl Decision<'_> {
    /// The outcome as reported to the provider (`Hookonce-Outcome`).
    pub fn label(&self) -> &'static str {
        match self {
            Decision::Apply(_) => "applied",
            Decision::Claim { .. } => "claimed",
            Decision::Duplicate(_) => "duplicate",
            Decision::Stale => "stale",
            Decision::InFlight { .. } => "in_flight",
        }
    }
}

/// Decides what to do with `event`, given the store's view of it and `now`.
pub fn decide<'e>(event: &'e Event, stored: &Stored, plan: Plan, now: UnixSeconds) -> Decision<'e> {
    let mut takeover = false;
    match (stored.record, plan) {
        (Some(Record::Done(outcome)), _) => return Decision::Duplicate(outcome),
        (Some(Record::Claimed { .. }), Plan::Commit) => {}
        (Some(Record::Claimed { until }), _) if until > now => {
            return Decision::InFlight {
                retry_after: now.until(until),
            }
        }
        (Some(Record::Claimed { .. }), _) => takeover = true,
        (None, _) => {}
    }

    // The processed id may have been pruned or cleared; the state itself still knows.
    let version = event.version();
    if let (Some(new), Some(current)) = (&version, &stored.version) {
        if new == current {
            return Decision::Duplicate(Outcome::Applied);
        }
        if new < current {
            return Decision::Stale;
        }
    }
    if stored.ledger_has_event {
        return Decision::Duplicate(Outcome::Applied);
    }

    match plan {
        Plan::Claim { lease } => Decision::Claim {
            until: now.plus(lease),
            takeover,
        },
        Plan::Apply { forward } => Decision::Apply(writes(event, version, forward)),
        Plan::Commit => Decision::Apply(writes(event, version, false)),
    }
}

fn writes(event: &Event, version: Option<Version>, enqueue: bool) -> Apply<'_> {
    let (snapshot, ledger) = match event.effect() {
        Effect::Snapshot { state } => (version.map(|v| (state.as_str(), v)), None),
        Effect::Ledger { amount } => (None, Some(*amount)),
        Effect::Notify => (None, None),
    };
    Apply {
        event_id: event.id(),
        snapshot,
        ledger,
        enqueue,
    }
}

/// Whether a failed synchronous call may delete the claim: only while it is still the
/// one it wrote (`ours`), never one a later copy took over.
#[must_use]
pub fn may_release(record: Option<Record>, ours: UnixSeconds) -> bool {
    record == Some(Record::Claimed { until: ours })
}
