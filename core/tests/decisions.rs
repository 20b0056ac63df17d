//! One behaviour per test: what `decide` returns for each state of the store.

mod common;

use common::*;
use hookonce_core::decide::{decide, may_release, Decision, Outcome, Plan, Record, Stored};
use hookonce_core::event::{Effect, Field, ParseError};
use hookonce_core::Seconds;
use serde_json::json;

const ASYNC: Plan = Plan::Apply { forward: true };

#[test]
fn a_new_snapshot_event_is_applied_with_its_state_and_version() {
    let e = event(&snapshot("evt_1", "card_1", 0, "active"));
    let Decision::Apply(apply) = decide(&e, &Stored::default(), ASYNC, NOW) else {
        panic!("expected Apply");
    };
    assert_eq!(apply.event_id.as_str(), "evt_1");
    let (state, version) = apply.snapshot.expect("snapshot write");
    assert_eq!(state, r#"{"id":"card_1","status":"active"}"#);
    assert_eq!(version.event_id.as_str(), "evt_1");
    assert_eq!(apply.ledger, None);
    assert!(apply.enqueue);
}

#[test]
fn an_id_seen_before_is_a_duplicate_whatever_happened_then() {
    let e = event(&snapshot("evt_1", "card_1", 0, "active"));
    for outcome in [Outcome::Applied, Outcome::Stale] {
        let stored = Stored {
            record: Some(Record::Done(outcome)),
            ..Stored::default()
        };
        assert_eq!(
            decide(&e, &stored, ASYNC, NOW),
            Decision::Duplicate(outcome)
        );
    }
}

#[test]
fn an_older_snapshot_is_stale_and_not_forwarded() {
    let newer = event(&snapshot("evt_2", "card_1", 10, "frozen"));
    let older = event(&snapshot("evt_1", "card_1", 5, "active"));
    let stored = Stored {
        version: newer.version(),
        ..Stored::default()
    };
    assert_eq!(decide(&older, &stored, ASYNC, NOW), Decision::Stale);
}

#[test]
fn events_created_in_the_same_second_are_ordered_by_id() {
    let a = event(&snapshot("evt_a", "card_1", 7, "active"));
    let b = event(&snapshot("evt_b", "card_1", 7, "frozen"));
    let stored = Stored {
        version: b.version(),
        ..Stored::default()
    };
    assert_eq!(decide(&a, &stored, ASYNC, NOW), Decision::Stale);
    let stored = Stored {
        version: a.version(),
        ..Stored::default()
    };
    assert!(matches!(
        decide(&b, &stored, ASYNC, NOW),
        Decision::Apply(_)
    ));
}

#[test]
fn events_about_the_same_object_are_not_duplicates_of_each_other() {
    // Deduplicating on the object id would drop real events.
    let created = event(&snapshot("evt_1", "card_1", 0, "active"));
    let frozen = event(&snapshot("evt_2", "card_1", 1, "frozen"));
    let stored = Stored {
        version: created.version(),
        ..Stored::default()
    };
    assert!(matches!(
        decide(&frozen, &stored, ASYNC, NOW),
        Decision::Apply(_)
    ));
}

#[test]
fn two_events_with_identical_payloads_are_two_events() {
    // Deduplicating on a hash of the body would drop the second payment.
    let first = event(&payment("evt_1", "card_1", 0, 500));
    let second = event(&payment("evt_2", "card_1", 0, 500));
    let after_first = Stored::default();
    assert!(matches!(
        decide(&first, &after_first, ASYNC, NOW),
        Decision::Apply(_)
    ));
    assert!(matches!(
        decide(&second, &after_first, ASYNC, NOW),
        Decision::Apply(_)
    ));
}

#[test]
fn a_replay_of_the_current_version_after_ids_were_cleared_is_a_duplicate() {
    let e = event(&snapshot("evt_1", "card_1", 0, "active"));
    let stored = Stored {
        record: None,
        version: e.version(),
        ledger_has_event: false,
    };
    assert_eq!(
        decide(&e, &stored, ASYNC, NOW),
        Decision::Duplicate(Outcome::Applied)
    );
}

#[test]
fn a_ledger_replay_after_ids_were_cleared_is_caught_by_the_ledger_row() {
    let e = event(&payment("evt_1", "card_1", 0, 500));
    let stored = Stored {
        ledger_has_event: true,
        ..Stored::default()
    };
    assert_eq!(
        decide(&e, &stored, ASYNC, NOW),
        Decision::Duplicate(Outcome::Applied)
    );
}

#[test]
fn a_ledger_event_carries_its_amount() {
    let e = event(&payment("evt_1", "card_1", 0, -250));
    assert_eq!(e.effect(), &Effect::Ledger { amount: -250 });
    let Decision::Apply(apply) = decide(&e, &Stored::default(), ASYNC, NOW) else {
        panic!("expected Apply");
    };
    assert_eq!(apply.ledger, Some(-250));
    assert_eq!(apply.snapshot, None);
}

#[test]
fn without_forwarding_nothing_is_enqueued() {
    let e = event(
        &json!({"id": "evt_1", "type": "card.noticed", "created_at": "2026-10-06T07:06:30Z"}),
    );
    let Decision::Apply(apply) =
        decide(&e, &Stored::default(), Plan::Apply { forward: false }, NOW)
    else {
        panic!("expected Apply");
    };
    assert!(!apply.enqueue);
}

#[test]
fn a_copy_arriving_while_the_claim_holds_is_told_when_to_retry() {
    let e = event(&snapshot("evt_1", "card_1", 0, "active"));
    let stored = Stored {
        record: Some(Record::Claimed {
            until: NOW.plus(Seconds(12)),
        }),
        ..Stored::default()
    };
    let plan = Plan::Claim { lease: Seconds(30) };
    assert_eq!(
        decide(&e, &stored, plan, NOW),
        Decision::InFlight {
            retry_after: Seconds(12)
        }
    );
}

#[test]
fn a_copy_arriving_after_the_lease_ended_takes_the_claim_over() {
    let e = event(&snapshot("evt_1", "card_1", 0, "active"));
    let stored = Stored {
        record: Some(Record::Claimed { until: NOW }),
        ..Stored::default()
    };
    let plan = Plan::Claim { lease: Seconds(30) };
    assert_eq!(
        decide(&e, &stored, plan, NOW),
        Decision::Claim {
            until: NOW.plus(Seconds(30)),
            takeover: true
        }
    );
    assert_eq!(
        decide(&e, &Stored::default(), plan, NOW),
        Decision::Claim {
            until: NOW.plus(Seconds(30)),
            takeover: false
        }
    );
}

#[test]
fn a_commit_applies_over_its_own_claim_and_enqueues_nothing() {
    let e = event(&snapshot("evt_1", "card_1", 0, "active"));
    let stored = Stored {
        record: Some(Record::Claimed {
            until: NOW.plus(Seconds(30)),
        }),
        ..Stored::default()
    };
    let Decision::Apply(apply) = decide(&e, &stored, Plan::Commit, NOW) else {
        panic!("expected Apply");
    };
    assert!(!apply.enqueue);
    assert!(apply.snapshot.is_some());
}

#[test]
fn a_failed_call_releases_only_the_claim_it_wrote() {
    let ours = NOW.plus(Seconds(30));
    assert!(may_release(Some(Record::Claimed { until: ours }), ours));
    let theirs = Some(Record::Claimed {
        until: ours.plus(Seconds(5)),
    });
    assert!(!may_release(theirs, ours));
    assert!(!may_release(Some(Record::Done(Outcome::Applied)), ours));
    assert!(!may_release(None, ours));
}

#[test]
fn an_event_without_an_id_is_refused() {
    let body = json!({"type": "cardholder.updated", "created_at": 1});
    assert_eq!(
        parse(&cockpit(), &body),
        Err(ParseError::Missing(Field::Id))
    );
}

#[test]
fn a_bad_created_at_is_refused_by_name() {
    let mut body = snapshot("evt_1", "card_1", 0, "active");
    body["created_at"] = json!("yesterday");
    assert_eq!(
        parse(&cockpit(), &body),
        Err(ParseError::Invalid(Field::CreatedAt))
    );
}

#[test]
fn a_snapshot_without_an_entity_is_refused() {
    let body = json!({"id": "evt_1", "type": "cardholder.updated", "created_at": 1, "data": {"object": {}}});
    assert_eq!(
        parse(&cockpit(), &body),
        Err(ParseError::Missing(Field::Entity))
    );
}

#[test]
fn a_ledger_amount_must_be_an_integer() {
    let mut body = payment("evt_1", "card_1", 0, 1);
    body["data"]["object"]["amount"] = json!("12.50");
    assert_eq!(
        parse(&cockpit(), &body),
        Err(ParseError::Invalid(Field::Amount))
    );
}
