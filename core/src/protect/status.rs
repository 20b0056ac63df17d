//! What a destination's protection shows: its state for the admin API and `/inspect`
//! ([`Status`]), and its changes of state for the log and the feed ([`Transition`]).

use std::fmt;

use crate::time::{Seconds, UnixSeconds};

/// The breaker's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Circuit {
    /// Attempts go out, up to the admitted in-flight.
    Closed,
    /// Nothing goes out until the cool-down ends.
    Open,
    /// One probe goes out; its result closes or reopens the breaker.
    HalfOpen,
}

impl Circuit {
    /// `closed`, `open` or `half-open`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Circuit::Closed => "closed",
            Circuit::Open => "open",
            Circuit::HalfOpen => "half-open",
        }
    }

    /// The state [`Circuit::as_str`] names, as stored.
    pub fn parse(s: &str) -> Option<Circuit> {
        [Circuit::Closed, Circuit::Open, Circuit::HalfOpen]
            .into_iter()
            .find(|c| c.as_str() == s)
    }
}

/// Why the breaker opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Cause {
    /// `count` outage failures in a row, across entities.
    ConsecutiveFailures {
        /// The run's length.
        count: u32,
    },
    /// `failures` of the last `attempts` within the window, at or over the failure rate.
    FailureRate {
        /// Outage failures in the window.
        failures: u32,
        /// Attempts in the window.
        attempts: u32,
    },
    /// The half-open probe failed.
    ProbeFailed,
    /// The half-open probe's lease expired with no result.
    ProbeLost,
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::ConsecutiveFailures { count } => write!(f, "{count} failures in a row"),
            Cause::FailureRate { failures, attempts } => {
                write!(f, "{failures} of {attempts} attempts failed")
            }
            Cause::ProbeFailed => f.write_str("the probe failed"),
            Cause::ProbeLost => f.write_str("the probe never reported"),
        }
    }
}

/// A change of a destination's state, for the adapter to log and put in the feed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Transition {
    /// The breaker opened: nothing goes out until `probe_at`.
    Opened {
        /// When.
        at: UnixSeconds,
        /// When the probe may go out.
        probe_at: UnixSeconds,
        /// Why.
        cause: Cause,
    },
    /// The cool-down ended: the next attempt asked for is the probe.
    HalfOpen {
        /// When.
        at: UnixSeconds,
    },
    /// The probe succeeded: sending resumes, slowly starting.
    Closed {
        /// When.
        at: UnixSeconds,
    },
    /// An operator paused the destination: nothing is granted.
    Paused {
        /// When.
        at: UnixSeconds,
    },
    /// An operator resumed it: the breaker is as it was (or as time made it).
    Resumed {
        /// When.
        at: UnixSeconds,
    },
}

impl Transition {
    /// `opened`, `half-open`, `closed`, `paused` or `resumed`: the feed's kind.
    pub fn name(&self) -> &'static str {
        match self {
            Transition::Opened { .. } => "opened",
            Transition::HalfOpen { .. } => "half-open",
            Transition::Closed { .. } => "closed",
            Transition::Paused { .. } => "paused",
            Transition::Resumed { .. } => "resumed",
        }
    }

    /// When it happened.
    pub fn at(&self) -> UnixSeconds {
        match *self {
            Transition::Opened { at, .. }
            | Transition::HalfOpen { at }
            | Transition::Closed { at }
            | Transition::Paused { at }
            | Transition::Resumed { at } => at,
        }
    }
}

impl fmt::Display for Transition {
    /// One line for the log, e.g. `opened at 1791270400 (5 failures in a row), probe at 1791270430`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}", self.name(), self.at())?;
        match self {
            Transition::Opened {
                probe_at, cause, ..
            } => write!(f, " ({cause}), probe at {probe_at}"),
            _ => Ok(()),
        }
    }
}

/// A destination's protection as the admin API and `/inspect` show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Status {
    /// The breaker's state (kept, not reset, while paused).
    pub circuit: Circuit,
    /// Since when the breaker is in that state.
    pub since: UnixSeconds,
    /// Since when an operator has paused the destination, if paused.
    pub paused_since: Option<UnixSeconds>,
    /// Leases out now.
    pub in_flight: u32,
    /// Attempts admitted in flight now: the cap, or less while slowly starting after a
    /// close; 1 while half-open, 0 while open.
    pub limit: u32,
    /// Outage failures in a row.
    pub consecutive_failures: u32,
    /// Attempts reported within the window (while closed).
    pub recent_attempts: u32,
    /// Of which outage failures.
    pub recent_failures: u32,
    /// When the next probe may go out (open, or half-open with none out yet).
    pub next_probe_at: Option<UnixSeconds>,
    /// The open period that follows a failed probe doubles from the configured cool-down;
    /// this is the current one.
    pub cool_down: Seconds,
    /// The instant sending last became possible again (the breaker closed or an operator
    /// resumed), if ever: retry windows count from it (see [`super`]).
    pub healthy_since: Option<UnixSeconds>,
    /// Entities waiting for their turn.
    pub waiting: u32,
}

impl Status {
    /// `paused`, or the breaker's state: what `/inspect` shows in one word.
    pub fn state(&self) -> &'static str {
        match self.paused_since {
            Some(_) => "paused",
            None => self.circuit.as_str(),
        }
    }
}
