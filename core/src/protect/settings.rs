//! A destination's protection settings, checked once when the configuration loads.

use std::fmt;

use crate::time::Seconds;

/// How a destination is protected: when its breaker opens, how long it stays open, and
/// how many attempts may be out at once and per second.
///
/// Built with [`Settings::builder`] (or [`Settings::default`]); every value is checked by
/// [`SettingsBuilder::build`], so a `Settings` is always usable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    failure_threshold: u32,
    failure_rate: u8,
    min_attempts: u32,
    window: Seconds,
    cool_down: Seconds,
    max_cool_down: Seconds,
    max_in_flight: u32,
    max_per_second: Option<u32>,
    lease: Seconds,
}

impl Settings {
    /// Consecutive outage failures that open the breaker: 10 (Convoy's default too). A
    /// destination that is down trips it within its first second of attempts across
    /// entities, while one failing 40 % of attempts at random (flaky, not down) runs ten in
    /// a row once in about 10,000 attempts, against once in about 100 for five.
    pub const FAILURE_THRESHOLD: u32 = 10;
    /// Percentage of failed attempts within the window that opens the breaker: 50. An
    /// application failing every other request is down for practical purposes, while
    /// occasional errors under the threshold keep it closed.
    pub const FAILURE_RATE: u8 = 50;
    /// Attempts the window must hold before the rate counts: 20, so that two failures
    /// out of three attempts on a quiet destination do not trip it.
    pub const MIN_ATTEMPTS: u32 = 20;
    /// The window the rate is measured over: 60 s.
    pub const WINDOW: Seconds = Seconds::MINUTE;
    /// The first open period before a probe: 30 s, a typical restart or deploy.
    pub const COOL_DOWN: Seconds = Seconds(30);
    /// The longest open period: 10 min. Each failed probe doubles the cool-down up to it,
    /// so a long outage costs one probe per 10 min and recovery is noticed within 10 min.
    pub const MAX_COOL_DOWN: Seconds = Seconds(10 * 60);
    /// Attempts out at once across all entities: 10. At a 20 ms answer that is up to
    /// 500 requests a second, far above what webhooks need (Convoy's default rate is
    /// 5,000 a minute), and a small application (a few workers) takes 10 without queueing.
    pub const MAX_IN_FLIGHT: u32 = 10;
    /// How long a grant holds its slot unless its result comes back first: 30 s, three
    /// times the default forward timeout, so a lease outlives its attempt plus the report.
    pub const LEASE: Seconds = Seconds(30);

    /// Largest `failure_threshold` and `min_attempts`: beyond, the breaker would never open.
    pub const MAX_COUNT: u32 = 10_000;
    /// Largest `window_secs` and `max_cool_down_secs`: one hour.
    pub const MAX_PERIOD: Seconds = Seconds::HOUR;
    /// Largest `max_in_flight`.
    pub const MAX_MAX_IN_FLIGHT: u32 = 1_000;
    /// Largest `max_per_second`.
    pub const MAX_MAX_PER_SECOND: u32 = 100_000;
    /// Longest `lease_secs`: 15 min, the runtime's limit on an alarm handler, after which
    /// no attempt can still be running.
    pub const MAX_LEASE: Seconds = Seconds(15 * 60);

    /// A builder starting from the defaults.
    pub fn builder() -> SettingsBuilder {
        SettingsBuilder(Settings::default())
    }

    /// Consecutive outage failures that open the breaker.
    pub fn failure_threshold(&self) -> u32 {
        self.failure_threshold
    }
    /// Percentage (1 to 100) of failed attempts within [`Self::window`] that opens it.
    pub fn failure_rate(&self) -> u8 {
        self.failure_rate
    }
    /// Attempts the window must hold before [`Self::failure_rate`] counts.
    pub fn min_attempts(&self) -> u32 {
        self.min_attempts
    }
    /// The window the failure rate is measured over.
    pub fn window(&self) -> Seconds {
        self.window
    }
    /// The first open period.
    pub fn cool_down(&self) -> Seconds {
        self.cool_down
    }
    /// The longest open period, reached by doubling after each failed probe.
    pub fn max_cool_down(&self) -> Seconds {
        self.max_cool_down
    }
    /// Attempts out at once across all entities.
    pub fn max_in_flight(&self) -> u32 {
        self.max_in_flight
    }
    /// Grants per second across all entities, if limited.
    pub fn max_per_second(&self) -> Option<u32> {
        self.max_per_second
    }
    /// How long a grant holds its slot unless reported first.
    pub fn lease(&self) -> Seconds {
        self.lease
    }
}

impl Default for Settings {
    /// The associated constants; no rate limit.
    fn default() -> Self {
        Settings {
            failure_threshold: Self::FAILURE_THRESHOLD,
            failure_rate: Self::FAILURE_RATE,
            min_attempts: Self::MIN_ATTEMPTS,
            window: Self::WINDOW,
            cool_down: Self::COOL_DOWN,
            max_cool_down: Self::MAX_COOL_DOWN,
            max_in_flight: Self::MAX_IN_FLIGHT,
            max_per_second: None,
            lease: Self::LEASE,
        }
    }
}

/// Settings under construction; [`SettingsBuilder::build`] checks them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub struct SettingsBuilder(Settings);

impl SettingsBuilder {
    /// `failure_threshold`: 1 to [`Settings::MAX_COUNT`].
    pub fn failure_threshold(mut self, n: u32) -> Self {
        self.0.failure_threshold = n;
        self
    }
    /// `failure_rate`, a percentage: 1 to 100.
    pub fn failure_rate(mut self, percent: u8) -> Self {
        self.0.failure_rate = percent;
        self
    }
    /// `min_attempts`: 1 to [`Settings::MAX_COUNT`].
    pub fn min_attempts(mut self, n: u32) -> Self {
        self.0.min_attempts = n;
        self
    }
    /// `window_secs`: 1 s to [`Settings::MAX_PERIOD`].
    pub fn window_secs(mut self, secs: u64) -> Self {
        self.0.window = Seconds(secs);
        self
    }
    /// `cool_down_secs`: 1 s to `max_cool_down_secs`.
    pub fn cool_down_secs(mut self, secs: u64) -> Self {
        self.0.cool_down = Seconds(secs);
        self
    }
    /// `max_cool_down_secs`: `cool_down_secs` to [`Settings::MAX_PERIOD`].
    pub fn max_cool_down_secs(mut self, secs: u64) -> Self {
        self.0.max_cool_down = Seconds(secs);
        self
    }
    /// `max_in_flight`: 1 to [`Settings::MAX_MAX_IN_FLIGHT`].
    pub fn max_in_flight(mut self, n: u32) -> Self {
        self.0.max_in_flight = n;
        self
    }
    /// `max_per_second`: `None` for no limit, or 1 to [`Settings::MAX_MAX_PER_SECOND`].
    pub fn max_per_second(mut self, n: Option<u32>) -> Self {
        self.0.max_per_second = n;
        self
    }
    /// `lease_secs`: 1 s to [`Settings::MAX_LEASE`].
    pub fn lease_secs(mut self, secs: u64) -> Self {
        self.0.lease = Seconds(secs);
        self
    }

    /// The settings, or the first field out of range.
    pub fn build(self) -> Result<Settings, SettingsError> {
        let s = self.0;
        let count = 1..=Settings::MAX_COUNT;
        let period = 1..=Settings::MAX_PERIOD.0;
        let checks = [
            (
                count.contains(&s.failure_threshold),
                SettingsError::FailureThreshold,
            ),
            (
                (1..=100).contains(&s.failure_rate),
                SettingsError::FailureRate,
            ),
            (count.contains(&s.min_attempts), SettingsError::MinAttempts),
            (period.contains(&s.window.0), SettingsError::WindowSecs),
            (
                (1..=s.max_cool_down.0).contains(&s.cool_down.0),
                SettingsError::CoolDownSecs,
            ),
            (
                period.contains(&s.max_cool_down.0),
                SettingsError::MaxCoolDownSecs,
            ),
            (
                (1..=Settings::MAX_MAX_IN_FLIGHT).contains(&s.max_in_flight),
                SettingsError::MaxInFlight,
            ),
            (
                s.max_per_second
                    .is_none_or(|n| (1..=Settings::MAX_MAX_PER_SECOND).contains(&n)),
                SettingsError::MaxPerSecond,
            ),
            (
                (1..=Settings::MAX_LEASE.0).contains(&s.lease.0),
                SettingsError::LeaseSecs,
            ),
        ];
        match checks.into_iter().find(|(ok, _)| !ok) {
            Some((_, error)) => Err(error),
            None => Ok(s),
        }
    }
}

/// A protection setting out of range. [`SettingsError::field`] names the configuration
/// field; the `Display` message says what it must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SettingsError {
    /// `failure_threshold` is not 1 to [`Settings::MAX_COUNT`].
    FailureThreshold,
    /// `failure_rate` is not a percentage from 1 to 100.
    FailureRate,
    /// `min_attempts` is not 1 to [`Settings::MAX_COUNT`].
    MinAttempts,
    /// `window_secs` is not 1 s to [`Settings::MAX_PERIOD`].
    WindowSecs,
    /// `cool_down_secs` is zero or longer than `max_cool_down_secs`.
    CoolDownSecs,
    /// `max_cool_down_secs` is not 1 s to [`Settings::MAX_PERIOD`].
    MaxCoolDownSecs,
    /// `max_in_flight` is not 1 to [`Settings::MAX_MAX_IN_FLIGHT`].
    MaxInFlight,
    /// `max_per_second` is not 1 to [`Settings::MAX_MAX_PER_SECOND`].
    MaxPerSecond,
    /// `lease_secs` is not 1 s to [`Settings::MAX_LEASE`].
    LeaseSecs,
}

impl SettingsError {
    /// The configuration field at fault, as it is spelled in the configuration.
    pub fn field(&self) -> &'static str {
        match self {
            SettingsError::FailureThreshold => "failure_threshold",
            SettingsError::FailureRate => "failure_rate",
            SettingsError::MinAttempts => "min_attempts",
            SettingsError::WindowSecs => "window_secs",
            SettingsError::CoolDownSecs => "cool_down_secs",
            SettingsError::MaxCoolDownSecs => "max_cool_down_secs",
            SettingsError::MaxInFlight => "max_in_flight",
            SettingsError::MaxPerSecond => "max_per_second",
            SettingsError::LeaseSecs => "lease_secs",
        }
    }
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let field = self.field();
        match self {
            SettingsError::FailureThreshold | SettingsError::MinAttempts => {
                write!(f, "{field} must be from 1 to {}", Settings::MAX_COUNT)
            }
            SettingsError::FailureRate => write!(f, "{field} must be a percentage from 1 to 100"),
            SettingsError::WindowSecs | SettingsError::MaxCoolDownSecs => {
                write!(f, "{field} must be from 1 to {}", Settings::MAX_PERIOD.0)
            }
            SettingsError::CoolDownSecs => {
                write!(f, "{field} must be from 1 to max_cool_down_secs")
            }
            SettingsError::MaxInFlight => {
                write!(
                    f,
                    "{field} must be from 1 to {}",
                    Settings::MAX_MAX_IN_FLIGHT
                )
            }
            SettingsError::MaxPerSecond => {
                write!(
                    f,
                    "{field} must be from 1 to {}",
                    Settings::MAX_MAX_PER_SECOND
                )
            }
            SettingsError::LeaseSecs => {
                write!(f, "{field} must be from 1 to {}", Settings::MAX_LEASE.0)
            }
        }
    }
}

impl std::error::Error for SettingsError {}
