//! The one place hookonce reads the clock.

use hookonce_core::UnixSeconds;

/// Now, in whole unix seconds.
pub fn now() -> UnixSeconds {
    UnixSeconds((worker::Date::now().as_millis() / 1000) as i64)
}

/// Now, rounded up to whole unix seconds: a time computed from it is never early.
pub fn now_ceil() -> UnixSeconds {
    UnixSeconds(worker::Date::now().as_millis().div_ceil(1000) as i64)
}

/// Now, in unix milliseconds, for durations.
pub fn millis() -> u64 {
    worker::Date::now().as_millis()
}
