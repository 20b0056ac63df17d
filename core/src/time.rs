//! Time as data. The core never reads a clock: every function that needs "now"
//! takes a [`UnixSeconds`], which only `edge` produces (from `Date::now()`).

use std::fmt;

/// A point in time, whole seconds since 1970-01-01T00:00:00Z (POSIX time, IEEE 1003.1 §4.16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct UnixSeconds(pub i64);

/// A length of time in whole seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Seconds(pub u64);

impl UnixSeconds {
    /// `self + d`, saturating rather than wrapping on absurd inputs.
    #[must_use]
    pub fn plus(self, d: Seconds) -> UnixSeconds {
        UnixSeconds(
            self.0
                .saturating_add(i64::try_from(d.0).unwrap_or(i64::MAX)),
        )
    }

    /// `self - d`, saturating.
    #[must_use]
    pub fn minus(self, d: Seconds) -> UnixSeconds {
        UnixSeconds(
            self.0
                .saturating_sub(i64::try_from(d.0).unwrap_or(i64::MAX)),
        )
    }

    /// How long until `later`; zero if `later` is not after `self`.
    #[must_use]
    pub fn until(self, later: UnixSeconds) -> Seconds {
        Seconds(u64::try_from(later.0.saturating_sub(self.0)).unwrap_or(0))
    }
}

impl Seconds {
    /// One minute.
    pub const MINUTE: Seconds = Seconds(60);
    /// One hour.
    pub const HOUR: Seconds = Seconds(3_600);
    /// One day.
    pub const DAY: Seconds = Seconds(86_400);
}

impl fmt::Display for UnixSeconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}s", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn until_a_past_instant_is_zero() {
        assert_eq!(UnixSeconds(100).until(UnixSeconds(40)), Seconds(0));
        assert_eq!(UnixSeconds(40).until(UnixSeconds(100)), Seconds(60));
    }

    #[test]
    fn arithmetic_saturates_instead_of_wrapping() {
        assert_eq!(
            UnixSeconds(i64::MAX).plus(Seconds(10)),
            UnixSeconds(i64::MAX)
        );
        assert_eq!(
            UnixSeconds(i64::MIN).minus(Seconds(u64::MAX)),
            UnixSeconds(i64::MIN)
        );
    }
}
