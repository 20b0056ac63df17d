//! The circuit breaker: closed, open and half-open, the failure counts that open it, the
//! probe that closes it, and the slow start after it closes.

use crate::time::{Seconds, UnixSeconds};

use super::durable::Durable;
use super::leases::LeaseId;
use super::settings::Settings;
use super::status::{Cause, Circuit, Transition};

/// The failure rate's window is counted in this many equal buckets: the oldest bucket
/// leaves as a whole, so "within the window" is exact to a tenth of it.
const BUCKETS: usize = 10;

/// Attempts and failures in one tenth of the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Bucket {
    /// Which tenth (time divided by the bucket's width); `i64::MIN` for none yet.
    epoch: i64,
    attempts: u32,
    failures: u32,
}

const EMPTY: Bucket = Bucket {
    epoch: i64::MIN,
    attempts: 0,
    failures: 0,
};

/// Recent attempts and failures, in fixed memory.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Window {
    /// Seconds per bucket, at least 1.
    width: i64,
    buckets: [Bucket; BUCKETS],
}

impl Window {
    fn new(window: Seconds) -> Window {
        let width = window.0.div_ceil(BUCKETS as u64).max(1);
        Window {
            width: i64::try_from(width).unwrap_or(i64::MAX),
            buckets: [EMPTY; BUCKETS],
        }
    }

    fn epoch(&self, now: UnixSeconds) -> i64 {
        now.0.div_euclid(self.width)
    }

    fn record(&mut self, now: UnixSeconds, failure: bool) {
        let epoch = self.epoch(now);
        let slot = &mut self.buckets[epoch.rem_euclid(BUCKETS as i64) as usize];
        if slot.epoch != epoch {
            *slot = Bucket { epoch, ..EMPTY };
        }
        slot.attempts = slot.attempts.saturating_add(1);
        slot.failures = slot.failures.saturating_add(u32::from(failure));
    }

    /// (attempts, failures) in the buckets of the last window up to `now`.
    fn totals(&self, now: UnixSeconds) -> (u32, u32) {
        let epoch = self.epoch(now);
        self.buckets
            .iter()
            .filter(|b| b.epoch <= epoch && b.epoch > epoch.saturating_sub(BUCKETS as i64))
            .fold((0u32, 0u32), |(a, f), b| {
                (a.saturating_add(b.attempts), f.saturating_add(b.failures))
            })
    }

    fn clear(&mut self) {
        self.buckets = [EMPTY; BUCKETS];
    }
}

/// Where the breaker is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Closed {
        since: UnixSeconds,
    },
    Open {
        since: UnixSeconds,
        probe_at: UnixSeconds,
    },
    HalfOpen {
        since: UnixSeconds,
        /// The probe's lease, once granted.
        probe: Option<LeaseId>,
    },
}

/// What the breaker lets through now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Gate {
    /// Closed: up to this many attempts in flight.
    Limit(u32),
    /// Half-open and no probe out yet: exactly one attempt.
    Probe,
    /// Open until this instant (the probe's), or half-open with the probe out.
    Shut {
        until: UnixSeconds,
        circuit: Circuit,
    },
}

/// The circuit breaker of one destination.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Breaker {
    settings: Settings,
    phase: Phase,
    /// Outage failures since the last attempt that was not one.
    consecutive: u32,
    window: Window,
    /// The open period after the next failed probe's doubling; the settings' first one
    /// while closed.
    cool_down: Seconds,
    /// While slowly starting after a close: the admitted in-flight and the successes seen
    /// at it.
    slow: Option<(u32, u32)>,
}

impl Breaker {
    pub(super) fn new(settings: Settings, now: UnixSeconds) -> Breaker {
        Breaker {
            settings,
            phase: Phase::Closed { since: now },
            consecutive: 0,
            window: Window::new(settings.window()),
            cool_down: settings.cool_down(),
            slow: None,
        }
    }

    /// The breaker `saved` describes, with its counts empty. A closed one starts slowly,
    /// as after a recovery: the leases out before the restart are unknown. A half-open one
    /// has no probe out: the old one's result can no longer be matched.
    pub(super) fn restore(settings: Settings, saved: &Durable, now: UnixSeconds) -> Breaker {
        let mut b = Breaker::new(settings, now);
        b.cool_down = saved
            .cool_down
            .clamp(settings.cool_down(), settings.max_cool_down());
        let since = saved.since.min(now);
        b.phase = match saved.circuit {
            Circuit::Open => Phase::Open {
                since,
                probe_at: saved.probe_at.unwrap_or(now).min(now.plus(b.cool_down)),
            },
            Circuit::HalfOpen => Phase::HalfOpen { since, probe: None },
            Circuit::Closed => {
                b.close(since);
                Phase::Closed { since }
            }
        };
        b
    }

    /// Time passed: an open breaker whose cool-down is over becomes half-open.
    pub(super) fn tick(&mut self, now: UnixSeconds) -> Option<Transition> {
        match self.phase {
            Phase::Open { probe_at, .. } if now >= probe_at => {
                self.phase = Phase::HalfOpen {
                    since: probe_at,
                    probe: None,
                };
                Some(Transition::HalfOpen { at: probe_at })
            }
            _ => None,
        }
    }

    pub(super) fn gate(&self, now: UnixSeconds) -> Gate {
        match self.phase {
            Phase::Closed { .. } => Gate::Limit(self.limit()),
            Phase::Open { probe_at, .. } => Gate::Shut {
                until: probe_at,
                circuit: Circuit::Open,
            },
            Phase::HalfOpen { probe: None, .. } => Gate::Probe,
            // The probe's answer is not known in advance: the waiters are woken when it
            // closes the breaker, or ask again when the probe's lease would end.
            Phase::HalfOpen { probe: Some(_), .. } => Gate::Shut {
                until: now.plus(self.settings.lease()),
                circuit: Circuit::HalfOpen,
            },
        }
    }

    /// The admitted in-flight: the cap, or less while slowly starting.
    pub(super) fn limit(&self) -> u32 {
        match self.slow {
            Some((limit, _)) => limit.min(self.settings.max_in_flight()),
            None => self.settings.max_in_flight(),
        }
    }

    pub(super) fn probe_granted(&mut self, lease: LeaseId) {
        if let Phase::HalfOpen { probe, .. } = &mut self.phase {
            *probe = Some(lease);
        }
    }

    /// The result of `lease`'s attempt: `outage` per [`super::is_outage`].
    pub(super) fn record(
        &mut self,
        lease: LeaseId,
        outage: bool,
        now: UnixSeconds,
    ) -> Option<Transition> {
        match self.phase {
            Phase::Closed { .. } => {
                self.window.record(now, outage);
                if outage {
                    self.consecutive = self.consecutive.saturating_add(1);
                    let (attempts, failures) = self.window.totals(now);
                    let cause = if self.consecutive >= self.settings.failure_threshold() {
                        Cause::ConsecutiveFailures {
                            count: self.consecutive,
                        }
                    } else if attempts >= self.settings.min_attempts()
                        && u64::from(failures) * 100
                            >= u64::from(self.settings.failure_rate()) * u64::from(attempts)
                    {
                        Cause::FailureRate { failures, attempts }
                    } else {
                        return None;
                    };
                    return Some(self.open(now, cause));
                }
                self.consecutive = 0;
                if let Some((limit, seen)) = &mut self.slow {
                    *seen += 1;
                    if *seen >= *limit {
                        *limit = limit.saturating_mul(2);
                        *seen = 0;
                    }
                    if *limit >= self.settings.max_in_flight() {
                        self.slow = None;
                    }
                }
                None
            }
            Phase::HalfOpen {
                probe: Some(probe), ..
            } if probe == lease => {
                if outage {
                    Some(self.reopen(now, Cause::ProbeFailed))
                } else {
                    self.close(now);
                    Some(Transition::Closed { at: now })
                }
            }
            // Attempts granted before the breaker opened: the probe alone decides.
            Phase::Open { .. } | Phase::HalfOpen { .. } => None,
        }
    }

    /// The probe's lease expired unreported: taken as a failed probe, since a destination
    /// that hangs past the lease is not healthy either.
    pub(super) fn lost(&mut self, lease: LeaseId, now: UnixSeconds) -> Option<Transition> {
        match self.phase {
            Phase::HalfOpen {
                probe: Some(probe), ..
            } if probe == lease => Some(self.reopen(now, Cause::ProbeLost)),
            _ => None,
        }
    }

    fn open(&mut self, now: UnixSeconds, cause: Cause) -> Transition {
        let probe_at = now.plus(self.cool_down);
        self.phase = Phase::Open {
            since: now,
            probe_at,
        };
        self.slow = None;
        Transition::Opened {
            at: now,
            probe_at,
            cause,
        }
    }

    fn reopen(&mut self, now: UnixSeconds, cause: Cause) -> Transition {
        self.cool_down =
            Seconds(self.cool_down.0.saturating_mul(2)).min(self.settings.max_cool_down());
        self.open(now, cause)
    }

    fn close(&mut self, now: UnixSeconds) {
        self.phase = Phase::Closed { since: now };
        self.consecutive = 0;
        self.window.clear();
        self.cool_down = self.settings.cool_down();
        self.slow = (self.settings.max_in_flight() > 1).then_some((1, 0));
    }

    pub(super) fn circuit(&self) -> Circuit {
        match self.phase {
            Phase::Closed { .. } => Circuit::Closed,
            Phase::Open { .. } => Circuit::Open,
            Phase::HalfOpen { .. } => Circuit::HalfOpen,
        }
    }

    pub(super) fn since(&self) -> UnixSeconds {
        match self.phase {
            Phase::Closed { since } | Phase::Open { since, .. } | Phase::HalfOpen { since, .. } => {
                since
            }
        }
    }

    /// When the next probe may go out: while open, the end of the cool-down; while
    /// half-open with no probe out, now.
    pub(super) fn next_probe(&self) -> Option<UnixSeconds> {
        match self.phase {
            Phase::Open { probe_at, .. } => Some(probe_at),
            Phase::HalfOpen { since, probe: None } => Some(since),
            _ => None,
        }
    }

    pub(super) fn consecutive(&self) -> u32 {
        self.consecutive
    }

    pub(super) fn totals(&self, now: UnixSeconds) -> (u32, u32) {
        self.window.totals(now)
    }

    pub(super) fn cool_down(&self) -> Seconds {
        self.cool_down
    }
}
