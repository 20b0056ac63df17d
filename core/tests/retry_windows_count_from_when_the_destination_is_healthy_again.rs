//! While the destination is held (open, half-open or paused) no row's retry window runs;
//! once it is healthy again, windows count from that instant. A row caught in a long
//! outage is therefore neither spent nor dead-lettered because of it.

mod protect_support;

use hookonce_core::protect::{Protect, Settings};
use hookonce_core::retry::{Next, Schedule};
use hookonce_core::time::{Seconds, UnixSeconds};
use protect_support::*;

const NO_JITTER: u16 = 500;

/// What the outbox decides after `result`, with the window counted as `p` says.
fn next(p: &Protect<u32>, schedule: &Schedule, first: UnixSeconds, now: UnixSeconds) -> Next {
    let start = p.window_start(first, now);
    schedule.next(3, &down(), start, now, NO_JITTER)
}

#[test]
fn a_row_tried_before_a_long_outage_gets_a_full_window_after_it() {
    let schedule = Schedule::new(vec![Seconds(60)], Seconds::HOUR).unwrap();
    let settings = Settings::builder().failure_threshold(1).build().unwrap();
    let mut p = protect(settings);
    let first = at(0);
    // Without protection, an attempt two hours after the first is past the window.
    assert!(matches!(
        schedule.next(3, &down(), first, at(7_200), NO_JITTER),
        Next::DeadLetter(_)
    ));

    attempt(&mut p, 1, &down(), at(10));
    // Open for two hours of failed probes: the row's window does not run.
    let mut now = at(10);
    while now < at(7_200) {
        now = p.status(now).next_probe_at.unwrap();
        attempt(&mut p, 2, &down(), now);
        assert_eq!(p.window_start(first, now), now);
        assert!(matches!(next(&p, &schedule, first, now), Next::RetryAt(_)));
    }
    // The next probe succeeds: windows count from then.
    let healed = p.status(now).next_probe_at.unwrap();
    attempt(&mut p, 2, &ok(), healed);
    assert_eq!(p.status(healed).healthy_since, Some(healed));
    assert_eq!(p.window_start(first, healed), healed);
    assert_eq!(
        next(&p, &schedule, first, healed.plus(Seconds(3_000))),
        Next::RetryAt(healed.plus(Seconds(3_060)))
    );
    assert!(matches!(
        next(&p, &schedule, first, healed.plus(Seconds(3_600))),
        Next::DeadLetter(_)
    ));
    // A row first tried after the recovery keeps its own start.
    let later = healed.plus(Seconds(100));
    assert_eq!(p.window_start(later, later), later);
}

#[test]
fn a_destination_never_held_counts_windows_from_the_first_attempt() {
    let mut p = protect(Settings::default());
    attempt(&mut p, 1, &ok(), at(0));
    assert_eq!(p.status(at(0)).healthy_since, None);
    assert_eq!(p.window_start(at(0), at(500)), at(0));
    // A pause holds windows too, and its resume is a new start.
    assert!(p.pause(at(600)));
    assert_eq!(p.window_start(at(0), at(700)), at(700));
    assert!(p.resume(at(800)));
    assert_eq!(p.window_start(at(0), at(900)), at(800));
}
