//! Issue 49: forwarding mode async to an origin that fails 15 % of requests (500, before
//! applying anything) and answers every other one 200 at once, with shuffled and
//! duplicated provider deliveries and no crash at all. A row that failed once is retried
//! and then delivered; it is never sent again once its 2xx is in, and nothing goes back to
//! an older row of its entity: each applied event is answered 2xx exactly once.
//! `HOOKONCE_FLAKY_EVENTS`, `_ENTITIES` and `_SEEDS` (comma-separated) make it bigger.

use hookonce_e2e::storm::{seeds_from_env, Flaky, Storm};

fn var(name: &str) -> Option<String> {
    std::env::var(format!("HOOKONCE_FLAKY_{name}")).ok()
}

#[test]
fn a_flaky_origin_without_a_crash_gets_each_event_answered_2xx_exactly_once() {
    let number = |name, default| var(name).map_or(default, |v| v.parse().expect("a number"));
    for seed in seeds_from_env("HOOKONCE_FLAKY_SEEDS", &[49]) {
        let storm = Storm {
            entities: number("ENTITIES", 120),
            events: number("EVENTS", 1_500),
            duplicates: 100,
            ledger: 400,
            kills_while_sending: 0,
            kills_while_draining: 0,
            origin: Flaky {
                fail: 150,
                apply_then_fail: 0,
                too_many: 0,
            },
            seed,
            ..Storm::small()
        };
        let report = storm.run();
        println!("seed {seed}: {report}");
        report.assert_all();
        assert!(
            report.origin_failures > 0,
            "nothing failed: the test tested nothing\n{report}"
        );
        assert_eq!(
            report.answered_2xx_more_than_once.len(),
            0,
            "seed {seed}: events answered 2xx more than once\n{report}"
        );
        assert_eq!(report.resends_after_success, 0, "seed {seed}\n{report}");
        assert_eq!(report.backward_resends, 0, "seed {seed}\n{report}");
    }
}
