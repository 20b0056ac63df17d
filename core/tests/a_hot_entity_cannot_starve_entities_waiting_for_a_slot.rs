//! Slots go first come, first served among waiters: an entity that reports and asks again
//! at once goes behind those already waiting; `max_per_second` bounds grants per second.

mod protect_support;

use hookonce_core::protect::{Ask, Settings, WaitReason, LINE_POLL, TURN_GRACE};
use protect_support::*;

#[test]
fn a_hot_entity_asking_again_at_once_goes_behind_the_waiters() {
    let settings = Settings::builder().max_in_flight(1).build().unwrap();
    let mut p = protect(settings);
    let hot = 0;
    let g = grant(&mut p, hot, at(0));
    for waiter in 1..=3 {
        assert!(matches!(
            p.ask(&waiter, at(0)),
            Ask::Wait {
                reason: WaitReason::Full,
                ..
            }
        ));
    }
    // The hot entity reports and asks again at once: the slot is free, but not its turn.
    let _ = p.report(&hot, g.lease, &ok(), at(1));
    assert!(matches!(
        p.ask(&hot, at(1)),
        Ask::Wait {
            reason: WaitReason::Turn,
            ..
        }
    ));
    // Everyone asks in the opposite order of their arrival, each reporting at once: the
    // slot still goes to them in the order they first waited.
    let mut served = Vec::new();
    for _ in 0..4 {
        for entity in [hot, 3, 2, 1] {
            if served.contains(&entity) {
                continue;
            }
            if let Ask::Grant(g) = p.ask(&entity, at(1)) {
                served.push(entity);
                let _ = p.report(&entity, g.lease, &ok(), at(1));
            }
        }
    }
    assert_eq!(served, [1, 2, 3, hot]);
}

#[test]
fn a_waiter_that_does_not_come_back_loses_its_turn() {
    let settings = Settings::builder().max_in_flight(1).build().unwrap();
    let mut p = protect(settings);
    let g = grant(&mut p, 0, at(0));
    let back = at(0).plus(LINE_POLL);
    assert!(matches!(p.ask(&1, at(0)), Ask::Wait { until, .. } if until == back));
    let _ = p.report(&0, g.lease, &ok(), at(0));
    // Entity 1 was told to come back a line poll later: until then + grace, the free slot
    // is its.
    let last_chance = back.plus(TURN_GRACE);
    assert!(matches!(
        p.ask(&2, last_chance),
        Ask::Wait {
            until,
            reason: WaitReason::Turn,
        } if until == last_chance.plus(LINE_POLL)
    ));
    // It never came back; entity 2, next in line, gets the slot when it returns.
    grant(&mut p, 2, last_chance.plus(hookonce_core::time::Seconds(1)));
}

#[test]
fn max_per_second_bounds_the_grants_of_each_second() {
    let settings = Settings::builder()
        .max_in_flight(100)
        .max_per_second(Some(3))
        .build()
        .unwrap();
    let mut p = protect(settings);
    let mut unserved: Vec<u32> = (0..10).collect();
    let mut per_second = Vec::new();
    for second in 0..4 {
        let now = at(second);
        let mut served = Vec::new();
        for &entity in &unserved {
            match p.ask(&entity, now) {
                Ask::Grant(g) => {
                    served.push(entity);
                    let _ = p.report(&entity, g.lease, &ok(), now);
                }
                // A rate's waiter comes back next second; one whose turn comes later
                // waits to be woken.
                Ask::Wait { until, reason } => match reason {
                    WaitReason::Rate => assert_eq!(until, at(second + 1)),
                    WaitReason::Turn => assert_eq!(until, now.plus(LINE_POLL)),
                    other => panic!("unexpected {other:?}"),
                },
                other => panic!("unexpected {other:?}"),
            }
        }
        unserved.retain(|e| !served.contains(e));
        per_second.push(served);
    }
    assert_eq!(
        per_second,
        [vec![0, 1, 2], vec![3, 4, 5], vec![6, 7, 8], vec![9]]
    );
}

#[test]
fn a_freed_slot_wakes_the_first_waiter_once_and_it_gets_the_slot() {
    let settings = Settings::builder().max_in_flight(2).build().unwrap();
    let mut p = protect(settings);
    let a = grant(&mut p, 0, at(0));
    let b = grant(&mut p, 1, at(0));
    for waiter in [2, 3, 4] {
        assert!(matches!(p.ask(&waiter, at(0)), Ask::Wait { .. }));
    }
    assert_eq!(p.poll_wake(), None, "no slot is free");
    let _ = p.report(&0, a.lease, &ok(), at(0));
    assert_eq!(p.poll_wake(), Some(2));
    assert_eq!(p.poll_wake(), None, "one slot, one wake");
    let _ = p.report(&1, b.lease, &ok(), at(0));
    assert_eq!(p.poll_wake(), Some(3));
    // The hot entity asking first does not take the woken ones' slots.
    assert!(matches!(p.ask(&0, at(0)), Ask::Wait { .. }));
    grant(&mut p, 3, at(0));
    grant(&mut p, 2, at(0));
    assert_eq!(p.poll_wake(), None, "both slots are taken again");
}
