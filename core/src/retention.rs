//! How long processed event ids and raw bodies are kept, and what the alarm prunes.
//!
//! Providers retry for hours, but people replay events from last month while debugging,
//! so ids are kept indefinitely by default. A retention period is allowed, but never one
//! shorter than a day: that would let ordinary automatic retries through as new events.
//!
//! Bodies have a lifetime of their own: they serve hookonce's replay and pending forwards,
//! and cost about 20 times an id. A body is kept [`Lifetimes::bodies`] after it arrived,
//! and never pruned while a pending outbox row may still send it. The alarm prunes in
//! bounded batches ([`plan`], [`Prune`]) and re-arms while work remains ([`next_prune`]).

use std::fmt;

use crate::time::{Seconds, UnixSeconds};

/// The shortest retention period accepted: 24 hours.
pub const MIN_RETENTION: Seconds = Seconds::DAY;

/// How long a processed id is remembered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Retention {
    /// Never forget an id (the default).
    #[default]
    Forever,
    /// Forget ids older than this (at least [`MIN_RETENTION`]).
    For(Seconds),
}

/// A retention period that would forget ids while the provider may still retry.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RetentionError {
    /// Shorter than [`MIN_RETENTION`].
    TooShort(Seconds),
}

impl fmt::Display for RetentionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RetentionError::TooShort(s) => {
                write!(f, "retention of {s} is shorter than {MIN_RETENTION}")
            }
        }
    }
}

impl std::error::Error for RetentionError {}

impl Retention {
    /// A finite retention period; refused below [`MIN_RETENTION`].
    pub fn keep_for(period: Seconds) -> Result<Retention, RetentionError> {
        if period < MIN_RETENTION {
            Err(RetentionError::TooShort(period))
        } else {
            Ok(Retention::For(period))
        }
    }

    /// Ids recorded before the returned instant may be pruned; `None` means keep all.
    #[must_use]
    pub fn prune_before(self, now: UnixSeconds) -> Option<UnixSeconds> {
        match self {
            Retention::Forever => None,
            Retention::For(period) => Some(now.minus(period)),
        }
    }
}

/// How long a raw body is kept after it arrived, by default: 30 days.
pub const DEFAULT_BODY_RETENTION: Seconds = Seconds(30 * 86_400);

/// The longest body retention accepted: 10 years.
pub const MAX_BODY_RETENTION: Seconds = Seconds(10 * 365 * 86_400);

/// Rows one [`Prune`] deletes at most: one alarm never holds a large entity for long.
pub const PRUNE_BATCH: u32 = 500;

/// How often an entity with a finite id retention prunes its processed ids.
pub const PRUNE_IDS_EVERY: Seconds = Seconds::DAY;

/// How long a source's ids and bodies live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lifetimes {
    /// Processed ids with their outcome.
    pub ids: Retention,
    /// Raw bodies (and delivered outbox rows), from when they were kept.
    pub bodies: Seconds,
}

impl Default for Lifetimes {
    fn default() -> Self {
        Lifetimes {
            ids: Retention::Forever,
            bodies: DEFAULT_BODY_RETENTION,
        }
    }
}

/// What the store holds that bears on pruning: three point reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Kept {
    /// When the oldest kept body was kept, if any is.
    pub oldest_body: Option<UnixSeconds>,
    /// When the oldest pending outbox row was enqueued, if any is. Its body was kept at
    /// that instant, so no body kept since may go.
    pub oldest_pending: Option<UnixSeconds>,
    /// When the oldest delivered outbox row was delivered, if any is.
    pub oldest_delivered: Option<UnixSeconds>,
}

/// One bounded delete, oldest first: one SQL statement in the adapter.
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// Exhaustive: the edge carries out every variant, one arm each; a new one must fail its build.
pub enum Prune {
    /// Raw bodies kept before `kept_before`.
    Bodies {
        /// Only bodies kept strictly before this instant.
        kept_before: UnixSeconds,
        /// At most this many.
        limit: u32,
    },
    /// Delivered outbox rows delivered before `done_before`; dead letters stay.
    Delivered {
        /// Only rows delivered strictly before this instant.
        done_before: UnixSeconds,
        /// At most this many.
        limit: u32,
    },
    /// Processed ids decided before `processed_before`.
    Ids {
        /// Only ids decided strictly before this instant.
        processed_before: UnixSeconds,
        /// At most this many.
        limit: u32,
    },
}

impl Prune {
    /// The most rows it deletes; a prune that deleted this many may have left some.
    pub fn limit(self) -> u32 {
        match self {
            Prune::Bodies { limit, .. }
            | Prune::Delivered { limit, .. }
            | Prune::Ids { limit, .. } => limit,
        }
    }
}

/// The prunes due at `now`, given what is kept. Bodies kept since the oldest pending row
/// was enqueued stay, whatever their age: a pending row sends its body later.
pub fn plan(lifetimes: Lifetimes, kept: &Kept, now: UnixSeconds) -> Vec<Prune> {
    let aged = now.minus(lifetimes.bodies);
    let kept_before = kept.oldest_pending.map_or(aged, |p| p.min(aged));
    let mut prunes = Vec::new();
    if kept.oldest_body.is_some_and(|t| t < kept_before) {
        prunes.push(Prune::Bodies {
            kept_before,
            limit: PRUNE_BATCH,
        });
    }
    if kept.oldest_delivered.is_some_and(|t| t < aged) {
        prunes.push(Prune::Delivered {
            done_before: aged,
            limit: PRUNE_BATCH,
        });
    }
    if let Some(processed_before) = lifetimes.ids.prune_before(now) {
        prunes.push(Prune::Ids {
            processed_before,
            limit: PRUNE_BATCH,
        });
    }
    prunes
}

/// When the alarm should prune next, after `done` (each prune with the rows it deleted)
/// left `kept`. A full batch means more may be due: at once. A body held by a pending row
/// needs no alarm of its own: the outbox's alarm prunes after it delivers. `None`: nothing
/// will ever be due without new writes.
pub fn next_prune(
    lifetimes: Lifetimes,
    done: &[(Prune, usize)],
    kept: &Kept,
    now: UnixSeconds,
) -> Option<UnixSeconds> {
    if done.iter().any(|(p, n)| *n >= p.limit() as usize) {
        return Some(now);
    }
    let free = |t: &UnixSeconds| kept.oldest_pending.is_none_or(|p| *t < p);
    let body = kept.oldest_body.filter(free).map(|t| due(t, lifetimes));
    let delivered = kept.oldest_delivered.map(|t| due(t, lifetimes));
    let ids = match lifetimes.ids {
        Retention::Forever => None,
        Retention::For(_) => Some(now.plus(PRUNE_IDS_EVERY)),
    };
    [body, delivered, ids].into_iter().flatten().min()
}

/// The first prune that writes made `now` can call for: their body's or their id's
/// lifetime; the edge makes sure the alarm fires by then.
pub fn first_prune(
    lifetimes: Lifetimes,
    kept_body: bool,
    recorded: bool,
    now: UnixSeconds,
) -> Option<UnixSeconds> {
    let body = kept_body.then(|| due(now, lifetimes));
    let ids = match lifetimes.ids {
        Retention::For(_) if recorded => Some(now.plus(PRUNE_IDS_EVERY)),
        _ => None,
    };
    body.into_iter().chain(ids).min()
}

/// The first instant a row kept (or delivered) at `at` may go: prunes take rows strictly
/// older than the lifetime.
fn due(at: UnixSeconds, lifetimes: Lifetimes) -> UnixSeconds {
    at.plus(lifetimes.bodies).plus(Seconds(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_kept_forever_by_default() {
        assert_eq!(
            Retention::default().prune_before(UnixSeconds(i64::MAX)),
            None
        );
    }

    #[test]
    fn a_period_shorter_than_a_day_is_refused() {
        assert_eq!(
            Retention::keep_for(Seconds(86_399)),
            Err(RetentionError::TooShort(Seconds(86_399)))
        );
        assert_eq!(
            Retention::keep_for(Seconds::DAY),
            Ok(Retention::For(Seconds::DAY))
        );
    }

    #[test]
    fn a_thirty_day_retention_prunes_ids_older_than_thirty_days() {
        let r = Retention::keep_for(Seconds(30 * 86_400)).unwrap();
        let now = UnixSeconds(100 * 86_400);
        assert_eq!(r.prune_before(now), Some(UnixSeconds(70 * 86_400)));
    }

    const DAY: i64 = 86_400;

    fn lifetimes(bodies_days: u64) -> Lifetimes {
        Lifetimes {
            ids: Retention::Forever,
            bodies: Seconds(bodies_days * 86_400),
        }
    }

    #[test]
    fn bodies_older_than_their_retention_are_pruned_in_a_bounded_batch() {
        let now = UnixSeconds(100 * DAY);
        let kept = Kept {
            oldest_body: Some(UnixSeconds(10 * DAY)),
            ..Kept::default()
        };
        assert_eq!(
            plan(lifetimes(30), &kept, now),
            [Prune::Bodies {
                kept_before: UnixSeconds(70 * DAY),
                limit: PRUNE_BATCH
            }]
        );
    }

    #[test]
    fn nothing_is_pruned_while_every_body_is_younger_than_its_retention() {
        let now = UnixSeconds(100 * DAY);
        let kept = Kept {
            oldest_body: Some(UnixSeconds(70 * DAY)),
            oldest_delivered: Some(UnixSeconds(70 * DAY)),
            ..Kept::default()
        };
        assert_eq!(plan(lifetimes(30), &kept, now), []);
        assert_eq!(plan(lifetimes(30), &Kept::default(), now), []);
    }

    #[test]
    fn a_pending_row_keeps_its_body_and_every_later_one_whatever_their_age() {
        let now = UnixSeconds(100 * DAY);
        let kept = Kept {
            oldest_body: Some(UnixSeconds(DAY)),
            oldest_pending: Some(UnixSeconds(5 * DAY)),
            ..Kept::default()
        };
        // The pending row's body was kept at 5 days: only bodies strictly older go.
        assert_eq!(
            plan(lifetimes(30), &kept, now),
            [Prune::Bodies {
                kept_before: UnixSeconds(5 * DAY),
                limit: PRUNE_BATCH
            }]
        );
        let only_pending = Kept {
            oldest_body: Some(UnixSeconds(5 * DAY)),
            ..kept
        };
        assert_eq!(plan(lifetimes(30), &only_pending, now), []);
    }

    #[test]
    fn delivered_rows_go_with_the_bodies_lifetime_and_ids_with_theirs() {
        let now = UnixSeconds(100 * DAY);
        let kept = Kept {
            oldest_delivered: Some(UnixSeconds(DAY)),
            ..Kept::default()
        };
        let l = Lifetimes {
            ids: Retention::keep_for(Seconds(50 * 86_400)).unwrap(),
            bodies: Seconds(30 * 86_400),
        };
        assert_eq!(
            plan(l, &kept, now),
            [
                Prune::Delivered {
                    done_before: UnixSeconds(70 * DAY),
                    limit: PRUNE_BATCH
                },
                Prune::Ids {
                    processed_before: UnixSeconds(50 * DAY),
                    limit: PRUNE_BATCH
                }
            ]
        );
    }

    #[test]
    fn a_full_batch_re_arms_at_once_and_a_partial_one_at_the_next_body_due() {
        let now = UnixSeconds(100 * DAY);
        let prune = Prune::Bodies {
            kept_before: UnixSeconds(70 * DAY),
            limit: PRUNE_BATCH,
        };
        let left = Kept {
            oldest_body: Some(UnixSeconds(80 * DAY)),
            ..Kept::default()
        };
        let full = [(prune, PRUNE_BATCH as usize)];
        assert_eq!(next_prune(lifetimes(30), &full, &left, now), Some(now));
        let partial = [(prune, 7)];
        assert_eq!(
            next_prune(lifetimes(30), &partial, &left, now),
            Some(UnixSeconds(110 * DAY + 1))
        );
        assert_eq!(
            next_prune(lifetimes(30), &partial, &Kept::default(), now),
            None
        );
    }

    #[test]
    fn a_body_held_by_a_pending_row_sets_no_alarm_of_its_own() {
        let now = UnixSeconds(100 * DAY);
        let held = Kept {
            oldest_body: Some(UnixSeconds(5 * DAY)),
            oldest_pending: Some(UnixSeconds(5 * DAY)),
            ..Kept::default()
        };
        assert_eq!(next_prune(lifetimes(30), &[], &held, now), None);
    }

    #[test]
    fn a_kept_body_is_due_for_pruning_after_its_retention_and_a_finite_id_after_a_day() {
        let now = UnixSeconds(100 * DAY);
        assert_eq!(
            first_prune(lifetimes(30), true, true, now),
            Some(UnixSeconds(130 * DAY + 1))
        );
        assert_eq!(first_prune(lifetimes(30), false, true, now), None);
        let l = Lifetimes {
            ids: Retention::keep_for(Seconds::DAY).unwrap(),
            ..lifetimes(30)
        };
        assert_eq!(
            first_prune(l, true, true, now),
            Some(UnixSeconds(101 * DAY))
        );
        assert_eq!(first_prune(l, false, false, now), None);
    }
}
