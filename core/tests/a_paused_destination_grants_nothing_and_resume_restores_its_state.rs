//! While an operator has paused a destination every ask is answered `Paused`; leases out
//! still report; resume finds the breaker as it was, or as its cool-down made it.

mod protect_support;

use hookonce_core::protect::{Ask, Circuit, Reported, Settings, Transition};
use protect_support::*;

#[test]
fn nothing_is_granted_while_paused_and_a_closed_breaker_resumes_closed() {
    let mut p = protect(Settings::default());
    let out = grant(&mut p, 1, at(0));
    assert!(p.pause(at(1)));
    assert!(!p.pause(at(2)), "pausing twice changes nothing");
    assert_eq!(transitions(&mut p), [Transition::Paused { at: at(1) }]);
    for entity in [1, 2, 3] {
        assert_eq!(p.ask(&entity, at(5)), Ask::Paused);
    }
    let status = p.status(at(5));
    assert_eq!(
        (status.state(), status.paused_since),
        ("paused", Some(at(1)))
    );
    assert_eq!(status.circuit, Circuit::Closed);
    // Entity 1's ask ended its own lease; a lease still out reports normally.
    let other = {
        assert!(p.resume(at(6)));
        let g = grant(&mut p, 4, at(6));
        assert!(p.pause(at(6)));
        g
    };
    assert_eq!(p.report(&1, out.lease, &ok(), at(7)), Reported::Unknown);
    assert_eq!(
        p.report(&4, other.lease, &down(), at(7)),
        Reported::Counted { outage: true }
    );
    assert_eq!(p.status(at(7)).consecutive_failures, 1);

    assert!(p.resume(at(10)));
    assert!(!p.resume(at(11)), "resuming twice changes nothing");
    assert_eq!(names(&mut p), ["resumed", "paused", "resumed"]);
    assert!(!grant(&mut p, 2, at(11)).probe);
    assert_eq!(p.status(at(11)).consecutive_failures, 1, "counts are kept");
}

#[test]
fn an_open_breaker_resumes_open_or_half_open_as_time_made_it() {
    let settings = Settings::builder().failure_threshold(1).build().unwrap();
    let mut p = protect(settings);
    attempt(&mut p, 1, &down(), at(0));
    assert!(p.pause(at(5)));
    assert!(p.resume(at(10)));
    assert!(matches!(p.ask(&1, at(10)), Ask::Wait { until, .. } if until == at(31)));

    assert!(p.pause(at(20)));
    assert_eq!(p.ask(&1, at(40)), Ask::Paused, "no probe while paused");
    assert!(p.resume(at(50)));
    assert!(grant(&mut p, 1, at(50)).probe);
    assert_eq!(
        names(&mut p),
        [
            "opened",
            "paused",
            "resumed",
            "paused",
            "half-open",
            "resumed"
        ]
    );
}
