//! What of a destination's protection survives a restart of the object that holds it.

use crate::time::{Seconds, UnixSeconds};

use super::status::Circuit;

/// The part of a [`Protect`](super::Protect) that must outlive its object: an operator's
/// pause, an open breaker and its cool-down, and the instant retry windows count from.
/// It changes only with a [`Transition`](super::Transition): write
/// [`Protect::durable`](super::Protect::durable) after taking any, and start again with
/// [`Protect::restore`](super::Protect::restore).
///
/// Leases, the line and the failure counts are not kept: after a restart the leases out
/// are unknown (their reports count for nothing and their slots are free), so a restored
/// closed breaker starts slowly, as after a recovery, and a restored half-open one admits
/// a new probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Durable {
    /// Since when an operator has paused the destination, if paused.
    pub paused_since: Option<UnixSeconds>,
    /// The breaker's state.
    pub circuit: Circuit,
    /// Since when.
    pub since: UnixSeconds,
    /// While open, when the probe may go out.
    pub probe_at: Option<UnixSeconds>,
    /// The current cool-down (see [`Status::cool_down`](super::Status::cool_down)).
    pub cool_down: Seconds,
    /// See [`Status::healthy_since`](super::Status::healthy_since).
    pub healthy_since: Option<UnixSeconds>,
}
