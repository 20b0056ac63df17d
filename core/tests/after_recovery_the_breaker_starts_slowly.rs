//! After the probe closes the breaker, one attempt is admitted in flight, then two after
//! one success, four after two more, and so on up to `max_in_flight`.

mod protect_support;

use hookonce_core::protect::{Ask, Settings, WaitReason};
use protect_support::*;

#[test]
fn the_admitted_in_flight_doubles_per_round_of_successes_up_to_the_cap() {
    let settings = Settings::builder()
        .failure_threshold(1)
        .max_in_flight(10)
        .build()
        .unwrap();
    let mut p = protect(settings);
    attempt(&mut p, 0, &down(), at(0));
    attempt(&mut p, 0, &ok(), at(30)); // the probe
    assert_eq!(names(&mut p), ["opened", "half-open", "closed"]);

    let mut admitted = Vec::new();
    let mut fresh = 100..;
    // The entity refused last round stands first in line: it asks first.
    let mut line: Option<u32> = None;
    let now = at(31);
    for _round in 0..6 {
        // Ask until refused: how many are admitted at once.
        let mut leases = Vec::new();
        for entity in line.take().into_iter().chain(&mut fresh) {
            match p.ask(&entity, now) {
                Ask::Grant(g) => leases.push((entity, g.lease)),
                Ask::Wait { reason, .. } => {
                    assert_eq!(reason, WaitReason::Full);
                    line = Some(entity);
                    break;
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        admitted.push(leases.len());
        assert_eq!(p.status(now).limit as usize, leases.len());
        for (e, lease) in leases {
            let _ = p.report(&e, lease, &ok(), now);
        }
    }
    assert_eq!(admitted, [1, 2, 4, 8, 10, 10]);
}
