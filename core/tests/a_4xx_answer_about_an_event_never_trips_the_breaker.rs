//! A 4xx other than 408 and 429 is the application's answer about that event, and a
//! message too large for a queue is the message's problem: neither is an outage, however
//! many come. 408, 429, 5xx, timeouts, network errors and redirects are.

mod protect_support;

use hookonce_core::protect::{is_outage, Circuit, Settings};
use hookonce_core::retry::AttemptResult;
use protect_support::*;

#[test]
fn a_hundred_404s_and_422s_leave_it_closed() {
    let mut p = protect(Settings::default());
    for i in 0..100 {
        let code = if i % 2 == 0 { 404 } else { 422 };
        attempt(&mut p, i, &answered(code), at(u64::from(i) / 10));
    }
    let status = p.status(at(10));
    assert_eq!(status.circuit, Circuit::Closed);
    assert_eq!(
        (status.consecutive_failures, status.recent_failures),
        (0, 0)
    );
    assert!(transitions(&mut p).is_empty());
}

#[test]
fn which_results_count_as_outages() {
    let not = [
        ok(),
        answered(204),
        AttemptResult::Enqueued,
        answered(400),
        answered(401),
        answered(404),
        answered(410),
        answered(422),
        AttemptResult::TooLarge { bytes: 200_000 },
    ];
    let outage = [
        answered(408),
        answered(429),
        answered(500),
        answered(503),
        AttemptResult::Timeout,
        AttemptResult::NetworkError,
        AttemptResult::QueueError,
        AttemptResult::redirect(302, Some("https://elsewhere.example/")),
    ];
    for r in &not {
        assert!(!is_outage(r), "{r:?} is the application's answer");
    }
    for r in &outage {
        assert!(is_outage(r), "{r:?} is an outage");
    }
}

#[test]
fn ten_429s_in_a_row_open_it() {
    let mut p = protect(Settings::default());
    for entity in 0..Settings::FAILURE_THRESHOLD {
        attempt(&mut p, entity, &answered(429), at(0));
    }
    assert_eq!(names(&mut p), ["opened"]);
}
