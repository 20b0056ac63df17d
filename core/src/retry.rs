//! When the outbox tries a delivery to the application again, and when it gives up.
//!
//! After each attempt the adapter classifies what happened as an [`AttemptResult`]
//! (parsing any `Retry-After` with [`parse_retry_after`]), draws a jitter value, and
//! asks [`Schedule::next`]. The answer, a [`Next`], is carried out with one `match`:
//! mark delivered, set the alarm for `RetryAt`, or move the message to the dead letters.
//!
//! Success is any 2xx. Everything else, 3xx included (redirects are not followed), is a
//! failure and is retried until the window closes; only 410 Gone stops early, as the
//! application's explicit "never send this again". Other 4xx are retried too: a 401 or
//! 404 from a half-finished deploy or key rotation is usually temporary, and the window
//! bounds the cost when it is not. A queue destination succeeds when the queue takes the
//! message; a failed send is retried, and a message over the queue's size limit, which no
//! retry can fix, is dead at once.

use std::fmt;

use crate::time::{Seconds, UnixSeconds};

/// Delays between delivery attempts, after the Standard Webhooks retry schedule
/// (<https://www.standardwebhooks.com/>), bounded by a retry window.
///
/// The first attempt is immediate and is not part of the schedule: `delays[0]` is waited
/// after the first failure, `delays[1]` after the second, and so on; the last delay then
/// repeats until the next attempt would fall outside the window, counted from the first
/// attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    delays: Vec<Seconds>,
    window: Seconds,
}

/// Why a retry schedule was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScheduleError {
    /// The delays are not a JSON array of whole, non-negative seconds.
    NotJson,
    /// No delays: nothing would ever be retried.
    Empty,
    /// A zero delay, which would retry in a tight loop.
    ZeroDelay {
        /// Position in the array.
        index: usize,
    },
    /// A delay shorter than the one before it: backoff must not speed up, and this is
    /// most likely a typo.
    Decreasing {
        /// Position in the array.
        index: usize,
    },
    /// A delay longer than the window, so it could never be waited out.
    DelayBeyondWindow {
        /// Position in the array.
        index: usize,
    },
    /// The window is zero: nothing would ever be retried.
    ZeroWindow,
    /// The window is over [`Schedule::MAX_WINDOW`]: most likely a unit mistake.
    WindowTooLong,
}

impl fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScheduleError::NotJson => f.write_str("retry schedule is not a JSON array of seconds"),
            ScheduleError::Empty => f.write_str("retry schedule is empty"),
            ScheduleError::ZeroDelay { index } => write!(f, "retry delay {index} is zero"),
            ScheduleError::Decreasing { index } => {
                write!(f, "retry delay {index} is shorter than the one before")
            }
            ScheduleError::DelayBeyondWindow { index } => {
                write!(f, "retry delay {index} is longer than the retry window")
            }
            ScheduleError::ZeroWindow => f.write_str("retry window is zero"),
            ScheduleError::WindowTooLong => f.write_str("retry window is over 30 days"),
        }
    }
}

impl std::error::Error for ScheduleError {}

/// What one delivery attempt came to, as the adapter saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AttemptResult {
    /// The application answered.
    Status {
        /// HTTP status code.
        code: u16,
        /// Its `Retry-After`, already parsed with [`parse_retry_after`].
        retry_after: Option<Seconds>,
    },
    /// No answer in time.
    Timeout,
    /// No connection, TLS failure, reset, and the like.
    NetworkError,
    /// A queue took the message: the destination has it.
    Enqueued,
    /// A queue send failed (unavailable, rate limited, ...); retried like a network error.
    QueueError,
    /// The message is larger than a queue accepts: it never will be sent.
    TooLarge {
        /// Its size in bytes.
        bytes: usize,
    },
    /// The destination answered with a redirect. hookonce never follows one: the signed
    /// body would go to a host nobody configured. It counts as a failed attempt.
    Redirect {
        /// The 3xx status.
        code: u16,
        /// Its `Location`, as [`AttemptResult::redirect`] keeps it.
        location: Option<String>,
    },
}

impl AttemptResult {
    /// The longest `Location` kept for the record; the destination chooses it.
    pub const MAX_LOCATION: usize = 200;

    /// Whether the attempt delivered the event: any 2xx, or a queue that took the message.
    #[must_use]
    pub fn delivered(&self) -> bool {
        matches!(
            self,
            AttemptResult::Status {
                code: 200..=299,
                ..
            } | AttemptResult::Enqueued
        )
    }

    /// What an HTTP answer with `code` came to, given its `Retry-After` and `Location`
    /// headers: a 3xx is a [`AttemptResult::Redirect`], any other status is itself.
    pub fn answered(
        code: u16,
        retry_after: Option<&str>,
        location: Option<&str>,
        now: UnixSeconds,
    ) -> AttemptResult {
        match code {
            300..=399 => AttemptResult::redirect(code, location),
            _ => AttemptResult::Status {
                code,
                retry_after: retry_after.and_then(|v| parse_retry_after(v, now)),
            },
        }
    }

    /// A redirect, with as much of its `Location` as is visible ASCII, cut to
    /// [`Self::MAX_LOCATION`] bytes.
    pub fn redirect(code: u16, location: Option<&str>) -> AttemptResult {
        let location = location.map(|l| {
            l.chars()
                .filter(|c| c.is_ascii_graphic())
                .take(Self::MAX_LOCATION)
                .collect()
        });
        AttemptResult::Redirect { code, location }
    }
}

/// Why a message was given up on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DeadReason {
    /// The application answered 410 Gone.
    Gone,
    /// No attempt could ever send it (a message over the queue's size limit).
    Unsendable,
    /// The next attempt would fall outside the retry window.
    WindowExhausted,
    /// The row's destination is no longer configured on its source.
    DestinationRemoved,
}

impl fmt::Display for DeadReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DeadReason::Gone => "application answered 410 Gone",
            DeadReason::Unsendable => "it can never be sent",
            DeadReason::WindowExhausted => "retry window exhausted",
            DeadReason::DestinationRemoved => "destination removed",
        })
    }
}

/// What the outbox does after an attempt.
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Next {
    /// The application took it: done.
    Delivered,
    /// Try again at this instant (always after `now`, within the window).
    RetryAt(UnixSeconds),
    /// Stop and keep the message as a dead letter.
    DeadLetter(DeadReason),
}

impl Default for Schedule {
    /// 5 s, 5 min, 30 min, 2 h, 5 h, then every 10 h, within 3 days: twelve attempts in
    /// all, the last about 68 hours after the first (before jitter).
    fn default() -> Self {
        Schedule {
            delays: [5, 300, 1_800, 7_200, 18_000, 36_000]
                .into_iter()
                .map(Seconds)
                .collect(),
            window: Self::DEFAULT_WINDOW,
        }
    }
}

impl Schedule {
    /// Default retry window: 3 days.
    pub const DEFAULT_WINDOW: Seconds = Seconds(3 * 86_400);
    /// Longest accepted window; every message in it costs storage until it closes.
    pub const MAX_WINDOW: Seconds = Seconds(30 * 86_400);
    /// Jitter spreads a scheduled delay by up to this many per mille either way.
    pub const JITTER_PER_MILLE: u64 = 100;

    /// A schedule from delays and a window, checked as [`ScheduleError`] describes.
    /// Delays must be non-decreasing (equal neighbours are allowed).
    pub fn new(delays: Vec<Seconds>, window: Seconds) -> Result<Schedule, ScheduleError> {
        if window == Seconds(0) {
            return Err(ScheduleError::ZeroWindow);
        }
        if window > Self::MAX_WINDOW {
            return Err(ScheduleError::WindowTooLong);
        }
        if delays.is_empty() {
            return Err(ScheduleError::Empty);
        }
        for (index, &delay) in delays.iter().enumerate() {
            if delay == Seconds(0) {
                return Err(ScheduleError::ZeroDelay { index });
            }
            if index > 0 && delay < delays[index - 1] {
                return Err(ScheduleError::Decreasing { index });
            }
            if delay > window {
                return Err(ScheduleError::DelayBeyondWindow { index });
            }
        }
        Ok(Schedule { delays, window })
    }

    /// A schedule from config: `delays` is a JSON array of seconds, e.g. `[5, 300, 1800]`.
    pub fn from_json(delays: &str, window: Seconds) -> Result<Schedule, ScheduleError> {
        let delays: Vec<u64> = serde_json::from_str(delays).map_err(|_| ScheduleError::NotJson)?;
        Schedule::new(delays.into_iter().map(Seconds).collect(), window)
    }

    /// The delays, as configured.
    #[must_use]
    pub fn delays(&self) -> &[Seconds] {
        &self.delays
    }

    /// How long after the first attempt retries may still happen.
    #[must_use]
    pub fn window(&self) -> Seconds {
        self.window
    }

    /// The scheduled wait after `attempt` attempts have failed, before jitter.
    #[must_use]
    pub fn delay_after(&self, attempt: u32) -> Seconds {
        let index = usize::try_from(attempt.saturating_sub(1)).unwrap_or(usize::MAX);
        // `new` guarantees at least one delay.
        self.delays[index.min(self.delays.len() - 1)]
    }

    /// Decides what follows an attempt.
    ///
    /// - `attempt`: attempts made so far, this one included (so 1 after the first).
    /// - `jitter`: a uniform random value in `0..=1000` drawn by the caller (larger values
    ///   are treated as 1000). The scheduled delay is scaled linearly by
    ///   `1 + (jitter - 500) / 5000`, i.e. by up to ±10%, so a shared outage does not
    ///   bring every retry back in the same second. Same inputs, same answer.
    ///
    /// A 429 or 503 with `Retry-After` is retried after exactly that long (at least 1 s),
    /// without jitter: the application chose the time. If that time, or the scheduled
    /// one, falls after `first_attempt_at + window`, the message is dead-lettered.
    pub fn next(
        &self,
        attempt: u32,
        result: &AttemptResult,
        first_attempt_at: UnixSeconds,
        now: UnixSeconds,
        jitter: u16,
    ) -> Next {
        let wait = match *result {
            _ if result.delivered() => return Next::Delivered,
            AttemptResult::TooLarge { .. } => return Next::DeadLetter(DeadReason::Unsendable),
            AttemptResult::Status { code: 410, .. } => return Next::DeadLetter(DeadReason::Gone),
            AttemptResult::Status {
                code: 429 | 503,
                retry_after: Some(retry_after),
            } => retry_after.max(Seconds(1)),
            // `Enqueued` is delivered (the guard above).
            AttemptResult::Status { .. }
            | AttemptResult::Enqueued
            | AttemptResult::Redirect { .. }
            | AttemptResult::Timeout
            | AttemptResult::NetworkError
            | AttemptResult::QueueError => jittered(self.delay_after(attempt), jitter),
        };
        let at = now.plus(wait);
        if at > first_attempt_at.plus(self.window) {
            Next::DeadLetter(DeadReason::WindowExhausted)
        } else {
            Next::RetryAt(at)
        }
    }
}

/// `delay` scaled by `1 + (jitter - 500) / 5000`, truncated toward zero, at least 1 s.
fn jittered(delay: Seconds, jitter: u16) -> Seconds {
    let jitter = i128::from(jitter.min(1_000)) - 500;
    let d = i128::from(delay.0);
    let spread = d * jitter * i128::from(Schedule::JITTER_PER_MILLE) / 500_000;
    // |spread| <= d / 10, so the sum is non-negative and fits in u64.
    Seconds(u64::try_from(d + spread).unwrap_or(u64::MAX).max(1))
}

/// Largest `Retry-After` taken at its word; longer values are cut to this. Far beyond any
/// sane window, it only keeps absurd values from reaching the arithmetic.
pub const MAX_RETRY_AFTER: Seconds = Seconds(30 * 86_400);

/// Parses a `Retry-After` value (RFC 9110 §10.2.3) into a delay from `now`.
///
/// Accepts `delay-seconds` (`1*DIGIT`) and an `IMF-fixdate` (RFC 9110 §5.6.7, e.g.
/// `Sun, 06 Nov 1994 08:49:37 GMT`); a date in the past is a zero delay. The obsolete
/// rfc850 and asctime date forms, which RFC 9110 only asks recipients to accept for
/// compatibility, are refused here: an application new enough to send `Retry-After` to a
/// webhook gateway sends IMF-fixdate, and a refused value only means the schedule is used
/// instead. The day name is checked to be one but not against the date. The result is
/// capped at [`MAX_RETRY_AFTER`]. `None` means "no usable value".
#[must_use]
pub fn parse_retry_after(value: &str, now: UnixSeconds) -> Option<Seconds> {
    let value = value.trim_matches([' ', '\t']);
    let delay = if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // All digits but too large for u64 is still a valid, very long delay.
        Seconds(value.parse::<u64>().unwrap_or(u64::MAX))
    } else {
        now.until(crate::time::parse_imf_fixdate(value)?)
    };
    Some(delay.min(MAX_RETRY_AFTER))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{parse_imf_fixdate, CivilDate};
    use proptest::prelude::*;

    const T0: UnixSeconds = UnixSeconds(1_700_000_000);
    const NO_JITTER: u16 = 500;

    fn status(code: u16) -> AttemptResult {
        AttemptResult::Status {
            code,
            retry_after: None,
        }
    }

    fn after(t: UnixSeconds, s: u64) -> UnixSeconds {
        t.plus(Seconds(s))
    }

    // --- decisions ---

    #[test]
    fn a_redirect_is_a_failed_attempt_that_keeps_a_cleaned_location() {
        let r = AttemptResult::answered(307, None, Some("https://elsewhere.example/\u{7f}x"), T0);
        assert_eq!(
            r,
            AttemptResult::Redirect {
                code: 307,
                location: Some("https://elsewhere.example/x".into())
            }
        );
        let s = Schedule::default();
        assert!(matches!(s.next(1, &r, T0, T0, NO_JITTER), Next::RetryAt(_)));
        let long = "a".repeat(1000);
        let AttemptResult::Redirect { location, .. } =
            AttemptResult::answered(301, None, Some(&long), T0)
        else {
            panic!("a redirect");
        };
        assert_eq!(location.unwrap().len(), AttemptResult::MAX_LOCATION);
        assert_eq!(
            AttemptResult::answered(503, Some("7"), None, T0),
            AttemptResult::Status {
                code: 503,
                retry_after: Some(Seconds(7))
            }
        );
    }

    #[test]
    fn any_2xx_is_delivered() {
        let s = Schedule::default();
        for code in [200, 201, 202, 204, 299] {
            assert_eq!(s.next(1, &status(code), T0, T0, NO_JITTER), Next::Delivered);
        }
        assert_eq!(
            s.next(1, &AttemptResult::Enqueued, T0, T0, NO_JITTER),
            Next::Delivered
        );
    }

    #[test]
    fn a_message_too_large_for_a_queue_is_dead_at_once() {
        let s = Schedule::default();
        assert_eq!(
            s.next(
                1,
                &AttemptResult::TooLarge { bytes: 200_000 },
                T0,
                T0,
                NO_JITTER
            ),
            Next::DeadLetter(DeadReason::Unsendable)
        );
    }

    #[test]
    fn a_410_is_dead_at_once() {
        let s = Schedule::default();
        assert_eq!(
            s.next(1, &status(410), T0, T0, NO_JITTER),
            Next::DeadLetter(DeadReason::Gone)
        );
    }

    #[test]
    fn other_failures_follow_the_schedule() {
        let s = Schedule::default();
        for result in [
            status(500),
            status(404),
            status(301),
            status(429),
            AttemptResult::Timeout,
            AttemptResult::NetworkError,
            AttemptResult::QueueError,
        ] {
            assert_eq!(
                s.next(1, &result, T0, T0, NO_JITTER),
                Next::RetryAt(after(T0, 5))
            );
        }
        let now = after(T0, 305);
        assert_eq!(
            s.next(3, &AttemptResult::Timeout, T0, now, NO_JITTER),
            Next::RetryAt(after(now, 1_800))
        );
    }

    #[test]
    fn the_last_delay_repeats() {
        let s = Schedule::default();
        assert_eq!(s.delay_after(6), Seconds(36_000));
        assert_eq!(s.delay_after(7), Seconds(36_000));
        assert_eq!(s.delay_after(u32::MAX), Seconds(36_000));
        assert_eq!(s.delay_after(0), Seconds(5));
    }

    #[test]
    fn a_429_with_retry_after_is_honoured_over_the_schedule() {
        let s = Schedule::default();
        let result = AttemptResult::Status {
            code: 429,
            retry_after: Some(Seconds(120)),
        };
        assert_eq!(s.next(1, &result, T0, T0, 0), Next::RetryAt(after(T0, 120)));
        // Shorter than the schedule is honoured too, without jitter.
        let now = after(T0, 10_000);
        let soon = AttemptResult::Status {
            code: 429,
            retry_after: Some(Seconds(2)),
        };
        assert_eq!(
            s.next(5, &soon, T0, now, 1_000),
            Next::RetryAt(after(now, 2))
        );
    }

    #[test]
    fn a_zero_retry_after_still_waits_a_second() {
        let s = Schedule::default();
        let result = AttemptResult::Status {
            code: 503,
            retry_after: Some(Seconds(0)),
        };
        assert_eq!(
            s.next(1, &result, T0, T0, NO_JITTER),
            Next::RetryAt(after(T0, 1))
        );
    }

    #[test]
    fn a_503_with_an_http_date_retry_after_is_honoured() {
        let s = Schedule::default();
        // 1_700_000_000 is Tue, 14 Nov 2023 22:13:20 GMT.
        let retry_after = parse_retry_after("Tue, 14 Nov 2023 22:23:20 GMT", T0);
        assert_eq!(retry_after, Some(Seconds(600)));
        let result = AttemptResult::Status {
            code: 503,
            retry_after,
        };
        assert_eq!(
            s.next(2, &result, T0, T0, NO_JITTER),
            Next::RetryAt(after(T0, 600))
        );
    }

    #[test]
    fn retry_after_on_other_statuses_is_ignored() {
        let s = Schedule::default();
        let result = AttemptResult::Status {
            code: 500,
            retry_after: Some(Seconds(3_600)),
        };
        assert_eq!(
            s.next(1, &result, T0, T0, NO_JITTER),
            Next::RetryAt(after(T0, 5))
        );
    }

    #[test]
    fn a_retry_after_beyond_the_window_is_a_dead_letter() {
        let s = Schedule::default();
        let result = AttemptResult::Status {
            code: 503,
            retry_after: Some(Seconds(4 * 86_400)),
        };
        assert_eq!(
            s.next(1, &result, T0, T0, NO_JITTER),
            Next::DeadLetter(DeadReason::WindowExhausted)
        );
    }

    #[test]
    fn an_attempt_exactly_at_the_window_end_is_still_made() {
        let s = Schedule::new(vec![Seconds(10)], Seconds(100)).unwrap();
        assert_eq!(
            s.next(9, &status(500), T0, after(T0, 90), NO_JITTER),
            Next::RetryAt(after(T0, 100))
        );
        assert_eq!(
            s.next(10, &status(500), T0, after(T0, 91), NO_JITTER),
            Next::DeadLetter(DeadReason::WindowExhausted)
        );
    }

    fn run_to_the_end(jitter: u16) -> (u32, UnixSeconds, Next) {
        let s = Schedule::default();
        let (mut attempt, mut now) = (1, T0);
        loop {
            match s.next(attempt, &AttemptResult::Timeout, T0, now, jitter) {
                Next::RetryAt(at) => {
                    assert!(at > now && at <= after(T0, 3 * 86_400));
                    attempt += 1;
                    now = at;
                }
                end => return (attempt, now, end),
            }
        }
    }

    #[test]
    fn the_default_schedule_dead_letters_after_three_days() {
        let (attempts, last, end) = run_to_the_end(NO_JITTER);
        assert_eq!(end, Next::DeadLetter(DeadReason::WindowExhausted));
        assert_eq!(attempts, 12);
        // 5 + 300 + 1800 + 7200 + 18000 + 6 * 36000
        assert_eq!(last, after(T0, 243_305));
        for jitter in [0, 1_000] {
            let (_, _, end) = run_to_the_end(jitter);
            assert_eq!(end, Next::DeadLetter(DeadReason::WindowExhausted));
        }
    }

    #[test]
    fn jitter_extremes_are_ten_percent_either_way() {
        assert_eq!(jittered(Seconds(36_000), 0), Seconds(32_400));
        assert_eq!(jittered(Seconds(36_000), 500), Seconds(36_000));
        assert_eq!(jittered(Seconds(36_000), 1_000), Seconds(39_600));
        assert_eq!(jittered(Seconds(36_000), u16::MAX), Seconds(39_600));
        assert_eq!(jittered(Seconds(1), 0), Seconds(1));
    }

    // --- schedules ---

    #[test]
    fn the_default_schedule_is_valid() {
        let d = Schedule::default();
        assert_eq!(Schedule::new(d.delays().to_vec(), d.window()), Ok(d));
    }

    #[test]
    fn a_schedule_parses_from_a_json_array() {
        let s = Schedule::from_json("[5, 60, 60, 3600]", Seconds::DAY).unwrap();
        assert_eq!(
            s.delays(),
            &[Seconds(5), Seconds(60), Seconds(60), Seconds(3_600)]
        );
        assert_eq!(s.window(), Seconds::DAY);
    }

    #[test]
    fn bad_schedules_are_refused() {
        let day = Seconds::DAY;
        let parse = |json| Schedule::from_json(json, day);
        assert_eq!(parse("5, 60"), Err(ScheduleError::NotJson));
        assert_eq!(parse("[5, -1]"), Err(ScheduleError::NotJson));
        assert_eq!(parse("[5, 1.5]"), Err(ScheduleError::NotJson));
        assert_eq!(parse("[]"), Err(ScheduleError::Empty));
        assert_eq!(parse("[5, 0]"), Err(ScheduleError::ZeroDelay { index: 1 }));
        assert_eq!(
            parse("[5, 60, 30]"),
            Err(ScheduleError::Decreasing { index: 2 })
        );
        assert_eq!(
            parse("[5, 86401]"),
            Err(ScheduleError::DelayBeyondWindow { index: 1 })
        );
        assert_eq!(
            Schedule::from_json("[5]", Seconds(0)),
            Err(ScheduleError::ZeroWindow)
        );
        assert_eq!(
            Schedule::from_json("[5]", Seconds(30 * 86_400 + 1)),
            Err(ScheduleError::WindowTooLong)
        );
        assert_eq!(
            ScheduleError::Decreasing { index: 2 }.to_string(),
            "retry delay 2 is shorter than the one before"
        );
    }

    // --- Retry-After ---

    #[test]
    fn delay_seconds_are_read_as_is() {
        assert_eq!(parse_retry_after("120", T0), Some(Seconds(120)));
        assert_eq!(parse_retry_after(" 0 ", T0), Some(Seconds(0)));
        assert_eq!(parse_retry_after("007", T0), Some(Seconds(7)));
    }

    #[test]
    fn huge_delays_are_capped() {
        assert_eq!(parse_retry_after("99999999", T0), Some(MAX_RETRY_AFTER));
        assert_eq!(
            parse_retry_after("99999999999999999999999", T0),
            Some(MAX_RETRY_AFTER)
        );
    }

    #[test]
    fn malformed_delays_are_refused() {
        for v in ["", "-5", "+5", "1.5", "5s", "1 2", "0x10"] {
            assert_eq!(parse_retry_after(v, T0), None, "{v:?}");
        }
    }

    #[test]
    fn the_rfc_example_date_is_read_exactly() {
        // RFC 9110's example; 784111777 per `date -u -d`.
        assert_eq!(
            parse_imf_fixdate("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(UnixSeconds(784_111_777))
        );
        assert_eq!(
            parse_imf_fixdate("Thu, 01 Jan 1970 00:00:00 GMT"),
            Some(UnixSeconds(0))
        );
        assert_eq!(
            parse_imf_fixdate("Thu, 29 Feb 2024 23:59:60 GMT"),
            Some(UnixSeconds(1_709_251_200))
        );
    }

    #[test]
    fn a_past_date_means_now() {
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", T0),
            Some(Seconds(0))
        );
    }

    #[test]
    fn obsolete_and_malformed_dates_are_refused() {
        for v in [
            "Sunday, 06-Nov-94 08:49:37 GMT", // rfc850-date
            "Sun Nov  6 08:49:37 1994",       // asctime-date
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "sun, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 nov 1994 08:49:37 GMT",
            "Sun, 6 Nov 1994 08:49:37 GMT",
            "Xyz, 06 Nov 1994 08:49:37 GMT",
            "Sun, 31 Nov 1994 08:49:37 GMT",
            "Sun, 29 Feb 2023 08:49:37 GMT",
            "Sun, 00 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1994 08:60:00 GMT",
            "Sun, 06 Nov 1994 08:49:61 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT extra",
            "Sun, 06 Nov +994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:3\u{e9}GMT",
        ] {
            assert_eq!(parse_retry_after(v, T0), None, "{v:?}");
        }
    }

    #[test]
    fn leap_years_follow_the_gregorian_rule() {
        assert!(parse_imf_fixdate("Tue, 29 Feb 2000 00:00:00 GMT").is_some());
        assert!(parse_imf_fixdate("Thu, 29 Feb 2100 00:00:00 GMT").is_none());
    }

    proptest! {
        #[test]
        fn jitter_stays_within_ten_percent(
            attempt in 1u32..40,
            jitter in any::<u16>(),
            code in 500u16..600,
        ) {
            let s = Schedule::default();
            let delay = s.delay_after(attempt).0;
            let now = after(T0, 60);
            let a = s.next(attempt, &status(code), T0, now, jitter);
            prop_assert_eq!(a, s.next(attempt, &status(code), T0, now, jitter));
            match a {
                Next::RetryAt(at) => {
                    let wait = now.until(at).0;
                    prop_assert!(wait * 10 >= delay * 9, "{} < 0.9 * {}", wait, delay);
                    prop_assert!(wait * 10 <= delay * 11, "{} > 1.1 * {}", wait, delay);
                    prop_assert!(wait >= 1);
                }
                // Every default delay, even +10%, fits in the window from here.
                other => prop_assert!(false, "unexpected {:?}", other),
            }
        }

        #[test]
        fn every_valid_date_round_trips(secs in 0i64..253_402_300_799) {
            // Format with the inverse algorithm, then parse back.
            let days = secs.div_euclid(86_400);
            let rem = secs.rem_euclid(86_400);
            let CivilDate { year: y, month: m, day: d } = CivilDate::from_days_since_epoch(days);
            let names = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
            let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun",
                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
            let text = format!(
                "{}, {:02} {} {:04} {:02}:{:02}:{:02} GMT",
                names[days.rem_euclid(7) as usize], d, months[(m - 1) as usize], y,
                rem / 3_600, rem / 60 % 60, rem % 60,
            );
            prop_assert_eq!(parse_imf_fixdate(&text), Some(UnixSeconds(secs)));
        }
    }
}
