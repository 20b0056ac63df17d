//! The one place hookonce reads the clock.

use hookonce_core::time::UnixSeconds;
use worker::js_sys;

/// Now, in whole unix seconds.
pub fn now() -> UnixSeconds {
    UnixSeconds((millis() / 1000) as i64)
}

/// Now, rounded up to whole unix seconds: a time computed from it is never early.
pub fn now_ceil() -> UnixSeconds {
    UnixSeconds(millis().div_ceil(1000) as i64)
}

/// Now, in unix milliseconds, for durations. `Date.now()`: workers-rs's `Date::now`
/// constructs a `Date` object and reads it back, two crossings and an object per read.
pub fn millis() -> u64 {
    js_sys::Date::now() as u64
}
