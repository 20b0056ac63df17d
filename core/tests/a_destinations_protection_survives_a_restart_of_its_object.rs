//! What `durable()` returns after a transition is enough for `restore` to carry on: an
//! open breaker stays open until its probe time with its doubled cool-down, a pause stays,
//! retry windows keep counting from the recovery, and a closed breaker starts slowly
//! because the leases out before the restart are unknown.

mod protect_support;

use hookonce_core::protect::{Ask, Circuit, Protect, Settings, WaitReason};
use protect_support::*;

#[test]
fn an_open_paused_destination_comes_back_open_and_paused() {
    let settings = Settings::builder().failure_threshold(1).build().unwrap();
    let mut p = protect(settings);
    attempt(&mut p, 1, &down(), at(0));
    attempt(&mut p, 1, &down(), at(30)); // a failed probe: open for 60 s
    assert!(p.pause(at(40)));
    let before = p.status(at(40));
    let saved = p.durable();
    assert_eq!(Circuit::parse(saved.circuit.as_str()), Some(saved.circuit));

    let mut q: Protect<u32> = Protect::restore(settings, &saved, at(45));
    let after = q.status(at(45));
    assert_eq!(
        (
            after.state(),
            after.since,
            after.next_probe_at,
            after.cool_down
        ),
        (
            before.state(),
            before.since,
            before.next_probe_at,
            before.cool_down
        )
    );
    assert_eq!(q.ask(&2, at(45)), Ask::Paused);
    assert!(q.resume(at(50)));
    assert_eq!(
        q.ask(&2, at(50)),
        Ask::Wait {
            until: at(91),
            reason: WaitReason::Open
        }
    );
    let probe = grant(&mut q, 2, at(90));
    assert!(probe.probe);
    let _ = q.report(&2, probe.lease, &ok(), at(91));
    assert_eq!(names(&mut q), ["resumed", "half-open", "closed"]);

    // Restarted again, closed: windows still count from the recovery; slow start.
    let mut r: Protect<u32> = Protect::restore(settings, &q.durable(), at(100));
    assert_eq!(r.window_start(at(0), at(100)), at(91));
    grant(&mut r, 3, at(100));
    assert!(matches!(
        r.ask(&4, at(100)),
        Ask::Wait {
            reason: WaitReason::Full,
            ..
        }
    ));
    assert_eq!(r.status(at(100)).limit, 1);
}

#[test]
fn a_cool_down_saved_under_other_settings_is_brought_within_the_new_ones() {
    let mut p = protect(Settings::builder().failure_threshold(1).build().unwrap());
    attempt(&mut p, 1, &down(), at(0));
    let mut saved = p.durable();
    saved.probe_at = Some(at(1_000_000));
    let tighter = Settings::builder()
        .cool_down_secs(5)
        .max_cool_down_secs(10)
        .build()
        .unwrap();
    let mut q: Protect<u32> = Protect::restore(tighter, &saved, at(1));
    let status = q.status(at(1));
    assert_eq!(status.cool_down.0, 10);
    assert_eq!(status.next_probe_at, Some(at(11)));
}
