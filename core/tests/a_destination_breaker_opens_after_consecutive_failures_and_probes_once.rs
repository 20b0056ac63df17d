//! The default run of outage failures (10), from as many entities, opens the breaker: nothing
//! is granted until the cool-down ends, then exactly one probe, whose success closes it.

mod protect_support;

use hookonce_core::protect::{Ask, Cause, Circuit, Settings, Transition, WaitReason};
use protect_support::*;

#[test]
fn ten_failures_across_entities_open_it_and_one_probe_closes_it() {
    let mut p = protect(Settings::default());
    let n = Settings::FAILURE_THRESHOLD;
    assert_eq!(n, 10);
    for entity in 0..n - 1 {
        attempt(&mut p, entity, &down(), at(0));
    }
    assert_eq!(
        p.status(at(0)).circuit,
        Circuit::Closed,
        "nine are not a run"
    );
    attempt(&mut p, n - 1, &down(), at(1));
    assert_eq!(
        transitions(&mut p),
        [Transition::Opened {
            at: at(1),
            probe_at: at(31),
            cause: Cause::ConsecutiveFailures { count: 10 },
        }]
    );

    // Open: every entity, new or not, sends nothing and takes a place in line, to ask again
    // after the probe's time, a second apart by place, unless woken first.
    for (place, (entity, t)) in [(0, 1), (7, 10), (99, 30)].into_iter().enumerate() {
        assert_eq!(
            p.ask(&entity, at(t)),
            Ask::Wait {
                until: at(32 + place as u64),
                reason: WaitReason::Open
            }
        );
    }
    assert_eq!(p.poll_wake(), None, "nobody is woken while it is open");
    let status = p.status(at(30));
    assert_eq!(
        (status.state(), status.next_probe_at, status.waiting),
        ("open", Some(at(31)), 3)
    );

    // At the probe's time (the gate's alarm ticks), the first in line is woken for the
    // one probe; everyone else waits while it is out.
    let _ = p.tick(at(31));
    assert_eq!(p.poll_wake(), Some(0));
    assert_eq!(p.poll_wake(), None, "one probe");
    let probe = grant(&mut p, 0, at(31));
    assert!(probe.probe);
    assert_eq!(names(&mut p), ["half-open"]);
    for entity in [1, 43] {
        assert!(matches!(
            p.ask(&entity, at(31)),
            Ask::Wait {
                reason: WaitReason::Probing,
                ..
            }
        ));
    }
    let _ = p.report(&0, probe.lease, &ok(), at(32));
    assert_eq!(transitions(&mut p), [Transition::Closed { at: at(32) }]);
    assert_eq!(p.status(at(32)).healthy_since, Some(at(32)));
    // Closed: the line is woken in its order, as slots allow.
    assert_eq!(p.poll_wake(), Some(7));
    assert!(!grant(&mut p, 7, at(32)).probe);
}

#[test]
fn a_success_between_failures_breaks_the_run() {
    let mut p = protect(Settings::default());
    for round in 0..3 {
        for entity in 0..4 {
            attempt(&mut p, entity, &down(), at(round * 100));
        }
        attempt(&mut p, 9, &ok(), at(round * 100));
    }
    let status = p.status(at(300));
    assert_eq!(status.circuit, Circuit::Closed);
    assert_eq!(status.consecutive_failures, 0);
    assert!(transitions(&mut p).is_empty());
}
