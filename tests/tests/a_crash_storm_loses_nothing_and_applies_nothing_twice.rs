//! Issue 15's crash storm, small (`make chaos` runs it at full size): signed deliveries
//! with duplicates, in shuffled order, snapshots and ledger entries, forwarded
//! asynchronously to a flaky idempotent origin, while workerd (run directly, state on disk)
//! is SIGKILLed and restarted again and again, and every delivery without a `200` is
//! retried. Afterwards nothing is lost, nothing is applied twice, each state is the newest
//! snapshot, each ledger total is exact, each applied event reached the origin with its
//! key, no stale one did, and first deliveries came in order.

use hookonce_e2e::storm::Storm;

#[test]
fn a_crash_storm_loses_nothing_and_applies_nothing_twice() {
    let report = Storm::small().from_env().run();
    println!("{report}");
    assert!(
        report.converged,
        "the outbox did not drain in time\n{report}"
    );
    let wrong = report.violations_except_backward_resends();
    assert!(wrong.is_empty(), "{report}");
    assert!(report.kills.len() >= 3, "{report}");
    assert!(
        report.no_response > 0,
        "no delivery was caught by a kill: the storm tested nothing\n{report}"
    );
}
