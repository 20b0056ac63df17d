//! How long processed event ids are kept.
//!
//! Providers retry for hours, but people replay events from last month while debugging,
//! so ids are kept indefinitely by default. A retention period is allowed, but never one
//! shorter than a day: that would let ordinary automatic retries through as new events.

use std::fmt;

use crate::time::{Seconds, UnixSeconds};

/// The shortest retention period accepted: 24 hours.
pub const MIN_RETENTION: Seconds = Seconds::DAY;

/// How long a processed id is remembered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Retention {
    /// Never forget an id (the default).
    #[default]
    Forever,
    /// Forget ids older than this (at least [`MIN_RETENTION`]).
    For(Seconds),
}

/// A retention period that would forget ids while the provider may still retry.
#[derive(Clone, Debug, PartialEq, Eq)]
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
}
