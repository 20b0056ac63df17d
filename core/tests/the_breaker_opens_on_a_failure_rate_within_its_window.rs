//! Half of at least 20 attempts within the last 60 s failing opens the breaker, though no
//! two failures came in a row; the same failures spread beyond the window do not.

mod protect_support;

use hookonce_core::protect::{Cause, Circuit, Settings, Transition};
use protect_support::*;

/// Alternates failure and success, one attempt every `step` seconds, `n` attempts.
fn alternate(p: &mut hookonce_core::protect::Protect<u32>, n: u32, step: u64) {
    for i in 0..n {
        let result = if i % 2 == 0 { down() } else { ok() };
        attempt(p, i % 7, &result, at(u64::from(i) * step));
    }
}

#[test]
fn half_of_twenty_attempts_in_a_minute_failing_opens_it() {
    let mut p = protect(Settings::default());
    alternate(&mut p, 19, 1);
    assert_eq!(
        p.status(at(19)).circuit,
        Circuit::Closed,
        "19 attempts are too few"
    );
    assert_eq!(p.status(at(19)).recent_failures, 10);
    attempt(&mut p, 3, &down(), at(19));
    assert_eq!(
        transitions(&mut p),
        [Transition::Opened {
            at: at(19),
            probe_at: at(49),
            cause: Cause::FailureRate {
                failures: 11,
                attempts: 20
            },
        }]
    );
}

#[test]
fn the_same_failures_spread_over_ten_minutes_do_not() {
    let mut p = protect(Settings::default());
    alternate(&mut p, 40, 15);
    assert_eq!(p.status(at(600)).circuit, Circuit::Closed);
    assert!(transitions(&mut p).is_empty());
}
