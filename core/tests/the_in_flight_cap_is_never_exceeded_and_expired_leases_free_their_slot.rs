//! At most `max_in_flight` leases are out at once; a lease nobody reports frees its slot at
//! its `until`, and an entity asking again ends its own earlier lease.

mod protect_support;

use hookonce_core::protect::{Ask, Reported, Settings, WaitReason, LINE_POLL};
use protect_support::*;

#[test]
fn the_third_entity_waits_until_a_slot_frees() {
    let settings = Settings::builder()
        .max_in_flight(2)
        .lease_secs(30)
        .build()
        .unwrap();
    let mut p = protect(settings);
    let first = grant(&mut p, 1, at(0));
    let _second = grant(&mut p, 2, at(0));
    assert_eq!(
        p.ask(&3, at(0)),
        Ask::Wait {
            until: at(0).plus(LINE_POLL),
            reason: WaitReason::Full
        }
    );
    assert_eq!(p.status(at(0)).in_flight, 2);

    // A report frees a slot; entity 3, first in line, takes it.
    assert_eq!(
        p.report(&1, first.lease, &ok(), at(1)),
        Reported::Counted { outage: false }
    );
    let third = grant(&mut p, 3, at(1));
    assert!(matches!(p.ask(&4, at(1)), Ask::Wait { .. }));

    // Entities 2 and 3 die mid-attempt: their slots free at their leases' ends.
    assert_eq!(p.next_deadline(), Some(at(30)));
    assert!(matches!(p.ask(&4, at(29)), Ask::Wait { .. }));
    assert_eq!(
        p.status(at(30)).in_flight,
        1,
        "entity 2's lease ended at 30"
    );
    grant(&mut p, 4, at(30));
    assert_eq!(
        p.status(third.until).in_flight,
        1,
        "entity 3's lease ended too"
    );
    assert_eq!(
        p.report(&3, third.lease, &ok(), third.until),
        Reported::Unknown,
        "a result after the lease's end counts for nothing"
    );
}

#[test]
fn an_entity_asking_again_ends_its_own_lease() {
    let settings = Settings::builder().max_in_flight(1).build().unwrap();
    let mut p = protect(settings);
    let old = grant(&mut p, 7, at(0));
    let new = grant(&mut p, 7, at(2));
    assert_ne!(old.lease, new.lease);
    assert_eq!(p.status(at(2)).in_flight, 1);
    assert_eq!(p.report(&7, old.lease, &ok(), at(3)), Reported::Unknown);
    // A lease reported by another entity is not ended.
    assert_eq!(p.report(&8, new.lease, &ok(), at(3)), Reported::Unknown);
    assert_eq!(
        p.report(&7, new.lease, &ok(), at(3)),
        Reported::Counted { outage: false }
    );
}
