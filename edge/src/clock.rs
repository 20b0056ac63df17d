//! The one place hookonce reads the clock.

use hookonce_core::UnixSeconds;

/// Now, in whole unix seconds.
pub fn now() -> UnixSeconds {
    UnixSeconds((worker::Date::now().as_millis() / 1000) as i64)
}
