//! The ordering issue's async test: forwarding mode async, with workerd (run directly, state
//! on disk) SIGKILLed several times while the outbox drains to a flaky origin. Every applied
//! event is delivered, no first delivery is out of order, and any re-send is of the head
//! row only: per entity, the events the origin receives, re-sends included, never go back
//! (issue 49 counts those re-sends of older rows after newer ones: 0, over several seeds;
//! `HOOKONCE_KILL_SEEDS`, comma-separated, picks others).

use std::time::Duration;

use serde_json::json;

use hookonce_e2e::storm::{seeds_from_env, Flaky, Storm};

#[test]
fn forwarding_stays_in_order_when_the_runtime_is_killed_during_delivery() {
    for seed in seeds_from_env("HOOKONCE_KILL_SEEDS", &[1517, 49]) {
        killed_during_delivery(seed);
    }
}

fn killed_during_delivery(seed: u64) {
    let storm = Storm {
        entities: 30,
        events: 360,
        duplicates: 0,
        ledger: 500,
        kills_while_sending: 0,
        kills_while_draining: 5,
        drain_kill_every: Duration::from_millis(900),
        // Many failures keep every entity's queue busy across the kills.
        origin: Flaky {
            fail: 250,
            apply_then_fail: 100,
            too_many: 50,
        },
        seed,
        // This test is about order under kills, not about protection: a breaker that a
        // randomly flaky origin (40% of attempts fail, never all of them) does not trip,
        // so the default one does not hold delivery for its cool-downs past the drain's
        // deadline. It still opens if every attempt in a minute fails.
        breaker: Some(json!({"failures": 10_000, "failure_rate": 100, "min_attempts": 20})),
        ..Storm::small()
    };
    let report = storm.run();
    println!("seed {seed}: {report}");
    assert_eq!(report.kills.len(), 5, "{report}");
    assert_eq!(report.backward_resends, 0, "seed {seed}\n{report}");
    report.assert_all();
}
