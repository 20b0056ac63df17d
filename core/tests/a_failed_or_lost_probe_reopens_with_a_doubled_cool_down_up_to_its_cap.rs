//! A failed probe reopens the breaker for twice the last cool-down, up to
//! `max_cool_down_secs`; a probe whose lease expires unreported counts as failed; a
//! success resets the cool-down.

mod protect_support;

use hookonce_core::protect::{Cause, Protect, Settings, Transition};
use hookonce_core::time::UnixSeconds;
use protect_support::*;

fn opened(p: &mut Protect<u32>) -> (UnixSeconds, UnixSeconds, Cause) {
    match transitions(p).as_slice() {
        [.., Transition::Opened {
            at,
            probe_at,
            cause,
        }] => (*at, *probe_at, *cause),
        other => panic!("expected the breaker to open, got {other:?}"),
    }
}

#[test]
fn each_failed_probe_doubles_the_open_period_up_to_the_cap() {
    let settings = Settings::builder()
        .failure_threshold(1)
        .cool_down_secs(30)
        .max_cool_down_secs(200)
        .build()
        .unwrap();
    let mut p = protect(settings);
    attempt(&mut p, 1, &down(), at(0));
    let (_, mut probe_at, _) = opened(&mut p);
    let mut periods = Vec::new();
    for _ in 0..5 {
        let g = grant(&mut p, 2, probe_at);
        assert!(g.probe);
        let _ = p.report(&2, g.lease, &down(), probe_at);
        let (at, next, cause) = opened(&mut p);
        assert_eq!((at, cause), (probe_at, Cause::ProbeFailed));
        periods.push(at.until(next).0);
        probe_at = next;
    }
    assert_eq!(periods, [60, 120, 200, 200, 200]);

    // A success closes it and the next opening is back to 30 s.
    let g = grant(&mut p, 2, probe_at);
    let _ = p.report(&2, g.lease, &ok(), probe_at);
    attempt(&mut p, 3, &down(), probe_at);
    let (at, next, _) = opened(&mut p);
    assert_eq!(at.until(next).0, 30);
}

#[test]
fn a_probe_never_reported_reopens_it_when_its_lease_ends() {
    let settings = Settings::builder()
        .failure_threshold(1)
        .lease_secs(20)
        .build()
        .unwrap();
    let mut p = protect(settings);
    attempt(&mut p, 1, &down(), at(0));
    let _ = transitions(&mut p);
    let probe = grant(&mut p, 2, at(30));
    assert_eq!(probe.until, at(50));
    assert_eq!(p.next_deadline(), Some(at(50)));
    p.tick(at(50));
    assert_eq!(
        transitions(&mut p),
        [
            Transition::HalfOpen { at: at(30) },
            Transition::Opened {
                at: at(50),
                probe_at: at(110),
                cause: Cause::ProbeLost
            }
        ]
    );
    assert_eq!(
        p.status(at(50)).in_flight,
        0,
        "the lost probe's slot is free"
    );
    // Its late report changes nothing.
    assert_eq!(
        p.report(&2, probe.lease, &ok(), at(51)),
        hookonce_core::protect::Reported::Unknown
    );
    assert_eq!(p.status(at(51)).state(), "open");
}
