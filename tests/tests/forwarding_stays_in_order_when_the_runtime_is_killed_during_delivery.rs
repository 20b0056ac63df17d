//! The ordering issue's async test: forwarding mode async, with workerd (run directly, state
//! on disk) SIGKILLed several times while the outbox drains to a flaky origin. Every applied
//! event is delivered, no first delivery is out of order, and any re-send is of the head
//! row only: per entity, the events the origin receives, re-sends included, never go back.

use std::time::Duration;

use hookonce_e2e::storm::{Flaky, Storm};

#[test]
fn forwarding_stays_in_order_when_the_runtime_is_killed_during_delivery() {
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
        seed: 1517,
        ..Storm::small()
    };
    let report = storm.run();
    println!("{report}");
    assert_eq!(report.kills.len(), 5, "{report}");
    report.assert_all();
}
