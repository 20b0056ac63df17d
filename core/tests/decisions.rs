//! One behaviour per test: what `decide` returns for each state of the store.

mod common;

use common::model::Model;
use common::*;
use hookonce_core::decide::{release, Claim, Decision, Lease, Outcome, Plan, Stored, Write};
use hookonce_core::event::{Effect, Field, ParseError};
use hookonce_core::packing::unpack;
use hookonce_core::retention::{Lifetimes, Retention};
use hookonce_core::time::Seconds;
use serde_json::json;

const ASYNC: Plan = Plan::Apply { forward: true };
const SYNC: Plan = Plan::Claim { lease: Seconds(30) };

fn writes<'a>(d: &'a Decision<'a>) -> &'a [Write<'a>] {
    assert!(
        matches!(d, Decision::Apply { .. }),
        "expected Apply, got {d:?}"
    );
    d.writes()
}

fn claim_of(e: &Signed, until_secs: u64) -> Claim {
    Claim {
        holder: Some(Lease {
            event_id: e.id().clone(),
            until: NOW.plus(Seconds(until_secs)),
        }),
        newest: e.version(),
    }
}

#[test]
fn a_new_snapshot_event_is_applied_with_its_state_version_body_and_outbox_row() {
    let e = event(&snapshot("evt_1", "card_1", 0, "active"));
    let d = e.decide(&Stored::default(), ASYNC, NOW);
    let w = writes(&d);
    // The body comes first: the record and the outbox row point at the newest body row.
    // webhook-id is the event id, which a replay signs with anyway: no headers kept.
    let Write::Body {
        body,
        headers: None,
        ..
    } = &w[0]
    else {
        panic!("expected the body first, got {w:?}");
    };
    assert_eq!(
        unpack(body.codec.code(), &body.bytes).unwrap(),
        e.body.as_slice()
    );
    assert!(
        matches!(w[1], Write::Record { outcome: Outcome::Applied, event_id, .. } if event_id.as_str() == "evt_1")
    );
    let Write::Snapshot { state, version } = &w[2] else {
        panic!("expected a snapshot write, got {w:?}");
    };
    assert_eq!(*state, r#"{"id":"card_1","status":"active"}"#);
    assert_eq!(version.event_id.as_str(), "evt_1");
    assert!(matches!(w[3], Write::Enqueue { .. }));
    assert_eq!(w.len(), 4);
    assert!(matches!(d, Decision::Apply { enqueued: true, .. }));
}

#[test]
fn a_webhook_id_other_than_the_event_id_is_kept_with_the_body() {
    let mut e = event(&snapshot("evt_1", "card_1", 0, "active"));
    for (name, value) in &mut e.headers {
        if name == "webhook-id" {
            *value = "msg_other".into();
        }
    }
    let d = e.decide(&Stored::default(), ASYNC, NOW);
    let Some(Write::Body { headers, .. }) = writes(&d).first() else {
        panic!("expected a body write");
    };
    assert_eq!(headers.as_deref(), Some(r#"{"webhook-id":"msg_other"}"#));
}

/// Ids kept forever, bodies for 60 s.
const BODIES_FOR_A_MINUTE: Lifetimes = Lifetimes {
    ids: Retention::Forever,
    bodies: Seconds(60),
};

#[test]
fn an_applied_body_may_be_pruned_once_its_retention_has_passed_and_a_stale_event_keeps_none() {
    let lifetimes = BODIES_FOR_A_MINUTE;
    let e = event(&snapshot("evt_1", "card_1", 0, "active"));
    let applied = e.decide(&Stored::default(), ASYNC, NOW);
    assert_eq!(
        applied.prune_by(lifetimes, NOW),
        Some(NOW.plus(Seconds(61)))
    );
    let older = event(&snapshot("evt_0", "card_1", -5, "active"));
    let stored = Stored {
        version: e.version(),
        ..Stored::default()
    };
    let stale = older.decide(&stored, ASYNC, NOW);
    assert!(matches!(stale, Decision::Stale(_)));
    assert_eq!(stale.prune_by(lifetimes, NOW), None);
}

#[test]
fn the_alarm_is_due_at_once_for_an_enqueued_forward_and_otherwise_when_a_kept_body_may_go() {
    let lifetimes = BODIES_FOR_A_MINUTE;
    let e = event(&snapshot("evt_1", "card_1", 0, "active"));
    let forwarded = e.decide(&Stored::default(), ASYNC, NOW);
    assert!(matches!(forwarded, Decision::Apply { enqueued: true, .. }));
    assert_eq!(forwarded.alarm_by(lifetimes, NOW), Some(NOW));
    let kept = e.decide(&Stored::default(), Plan::Apply { forward: false }, NOW);
    assert!(matches!(
        kept,
        Decision::Apply {
            enqueued: false,
            ..
        }
    ));
    assert_eq!(kept.alarm_by(lifetimes, NOW), Some(NOW.plus(Seconds(61))));
    let stored = Stored {
        record: Some(Outcome::Applied),
        ..Stored::default()
    };
    let duplicate = e.decide(&stored, ASYNC, NOW);
    assert_eq!(duplicate.alarm_by(lifetimes, NOW), None);
}

#[test]
fn an_id_seen_before_is_a_duplicate_whatever_happened_then() {
    let e = event(&snapshot("evt_1", "card_1", 0, "active"));
    for outcome in [Outcome::Applied, Outcome::Stale] {
        let stored = Stored {
            record: Some(outcome),
            ..Stored::default()
        };
        assert_eq!(e.decide(&stored, ASYNC, NOW), Decision::Duplicate(outcome));
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
    let d = older.decide(&stored, ASYNC, NOW);
    assert!(
        matches!(
            d,
            Decision::Stale(Write::Record {
                outcome: Outcome::Stale,
                ..
            })
        ),
        "{d:?}"
    );
}

#[test]
fn events_created_in_the_same_second_are_ordered_by_id() {
    let a = event(&snapshot("evt_a", "card_1", 7, "active"));
    let b = event(&snapshot("evt_b", "card_1", 7, "frozen"));
    let stored = Stored {
        version: b.version(),
        ..Stored::default()
    };
    assert_eq!(a.decide(&stored, ASYNC, NOW).label(), "stale");
    let stored = Stored {
        version: a.version(),
        ..Stored::default()
    };
    assert_eq!(b.decide(&stored, ASYNC, NOW).label(), "applied");
}

#[test]
fn events_about_the_same_object_are_not_duplicates_of_each_other() {
    // Deduplicating on the object id would drop real events.
    let mut store = Model::default();
    let created = event(&snapshot("evt_1", "card_1", 0, "active"));
    let frozen = event(&snapshot("evt_2", "card_1", 1, "frozen"));
    assert_eq!(store.run(&created, ASYNC, NOW).label, "applied");
    assert_eq!(store.run(&frozen, ASYNC, NOW).label, "applied");
}

#[test]
fn two_events_with_identical_payloads_are_two_events() {
    // Deduplicating on a hash of the body would drop the second payment.
    let mut store = Model::default();
    let first = event(&payment("evt_1", "card_1", 0, 500));
    let second = event(&payment("evt_2", "card_1", 0, 500));
    assert_eq!(store.run(&first, ASYNC, NOW).label, "applied");
    assert_eq!(store.run(&second, ASYNC, NOW).label, "applied");
    assert_eq!(store.total(), 1_000);
}

#[test]
fn a_replay_of_the_current_version_after_ids_were_cleared_is_a_duplicate() {
    let e = event(&snapshot("evt_1", "card_1", 0, "active"));
    let stored = Stored {
        version: e.version(),
        ..Stored::default()
    };
    assert_eq!(
        e.decide(&stored, ASYNC, NOW),
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
        e.decide(&stored, ASYNC, NOW),
        Decision::Duplicate(Outcome::Applied)
    );
}

#[test]
fn a_ledger_event_carries_its_amount() {
    let e = event(&payment("evt_1", "card_1", 0, -250));
    assert_eq!(e.effect(), &Effect::Ledger { amount: -250 });
    let d = e.decide(&Stored::default(), ASYNC, NOW);
    let w = writes(&d);
    assert!(w
        .iter()
        .any(|w| matches!(w, Write::Ledger { amount: -250, .. })));
    assert!(!w.iter().any(|w| matches!(w, Write::Snapshot { .. })));
}

#[test]
fn without_forwarding_nothing_is_enqueued() {
    let e = event(
        &json!({"id": "evt_1", "type": "card.noticed", "created_at": "2026-10-06T07:06:30Z"}),
    );
    let d = e.decide(&Stored::default(), Plan::Apply { forward: false }, NOW);
    assert!(!writes(&d)
        .iter()
        .any(|w| matches!(w, Write::Enqueue { .. })));
    assert!(matches!(
        d,
        Decision::Apply {
            enqueued: false,
            ..
        }
    ));
}

#[test]
fn without_forwarding_or_kept_bodies_no_body_is_stored() {
    let mut source = cockpit();
    source.keep_raw_bodies = false;
    let e = parse_signed(&source, &snapshot("evt_1", "card_1", 0, "active")).unwrap();
    let d = e.decide(&Stored::default(), Plan::Apply { forward: false }, NOW);
    assert!(!writes(&d).iter().any(|w| matches!(w, Write::Body { .. })));
    // A forwarded event keeps its body whatever the setting: the outbox sends it.
    let d = e.decide(&Stored::default(), ASYNC, NOW);
    assert!(writes(&d).iter().any(|w| matches!(w, Write::Body { .. })));
}

#[test]
fn bodies_kept_for_zero_seconds_are_not_stored_and_need_no_alarm() {
    let mut source = cockpit();
    source.body_retention = Seconds(0);
    let e = parse_signed(&source, &snapshot("evt_1", "card_1", 0, "active")).unwrap();
    let d = e.decide(&Stored::default(), Plan::Apply { forward: false }, NOW);
    assert!(!writes(&d).iter().any(|w| matches!(w, Write::Body { .. })));
    assert_eq!(d.alarm_by(source.lifetimes(), NOW), None);
    // A forwarded event still keeps its body until the outbox has sent it.
    let d = e.decide(&Stored::default(), ASYNC, NOW);
    assert!(writes(&d).iter().any(|w| matches!(w, Write::Body { .. })));
}

#[test]
fn a_copy_arriving_while_the_claim_holds_is_told_when_to_retry() {
    let e = event(&snapshot("evt_1", "card_1", 0, "active"));
    let stored = Stored {
        claim: Some(claim_of(&e, 12)),
        ..Stored::default()
    };
    assert_eq!(
        e.decide(&stored, SYNC, NOW),
        Decision::InFlight {
            retry_after: Seconds(12)
        }
    );
}

#[test]
fn another_event_of_the_entity_waits_while_one_is_being_forwarded() {
    let first = event(&snapshot("evt_1", "card_1", 0, "active"));
    let second = event(&snapshot("evt_2", "card_1", 5, "frozen"));
    let stored = Stored {
        claim: Some(claim_of(&first, 20)),
        ..Stored::default()
    };
    assert_eq!(
        second.decide(&stored, SYNC, NOW),
        Decision::InFlight {
            retry_after: Seconds(1)
        }
    );
}

#[test]
fn an_event_older_than_an_expired_claim_is_stale_not_forwarded() {
    // The claim's holder may have reached the application before it died.
    let newer = event(&snapshot("evt_2", "card_1", 10, "frozen"));
    let older = event(&snapshot("evt_1", "card_1", 5, "active"));
    let stored = Stored {
        claim: Some(claim_of(&newer, 0)),
        ..Stored::default()
    };
    assert_eq!(older.decide(&stored, SYNC, NOW).label(), "stale");
}

#[test]
fn an_event_older_than_one_whose_call_failed_is_stale() {
    // A failed call may still have reached the application.
    let mut store = Model::default();
    let newer = event(&snapshot("evt_2", "card_1", 10, "frozen"));
    let older = event(&snapshot("evt_1", "card_1", 5, "active"));
    let until = store.run(&newer, SYNC, NOW).claim.expect("claimed");
    let w = release(store.claim.as_ref(), &newer, until).expect("ours to release");
    assert_eq!(store.execute(&w), 1);
    assert_eq!(store.run(&older, SYNC, NOW).label, "stale");
    // The newer event's own retry may claim again at once.
    assert_eq!(store.run(&newer, SYNC, NOW).label, "claimed");
}

#[test]
fn a_copy_arriving_after_the_lease_ended_takes_the_claim_over() {
    let e = event(&snapshot("evt_1", "card_1", 0, "active"));
    let stored = Stored {
        claim: Some(claim_of(&e, 0)),
        ..Stored::default()
    };
    let until = NOW.plus(Seconds(30));
    assert_eq!(
        e.decide(&stored, SYNC, NOW),
        Decision::Claim {
            write: Write::Claim(claim_of(&e, 30)),
            until,
            takeover: true
        }
    );
    assert_eq!(
        e.decide(&Stored::default(), SYNC, NOW),
        Decision::Claim {
            write: Write::Claim(claim_of(&e, 30)),
            until,
            takeover: false
        }
    );
}

#[test]
fn a_commit_applies_over_its_own_claim_releases_it_and_enqueues_nothing() {
    let sync = cockpit_forwarding("forward", json!({ "service": "APP", "mode": "sync" }));
    let e = parse_signed(&sync, &snapshot("evt_1", "card_1", 0, "active")).unwrap();
    let mut store = Model::default();
    let claimed = store.run(&e, SYNC, NOW);
    assert_eq!((claimed.label, claimed.rows), ("claimed", 1));
    let committed = store.run(&e, Plan::Commit, NOW);
    assert_eq!(committed.label, "applied");
    assert_eq!(store.claim.as_ref().and_then(|c| c.holder.as_ref()), None);
    assert!(store.outbox.is_empty());
    assert!(store.snapshot.is_some());
}

#[test]
fn a_failed_call_releases_only_the_claim_it_wrote() {
    let e = event(&snapshot("evt_1", "card_1", 0, "active"));
    let other = event(&snapshot("evt_2", "card_1", 1, "active"));
    let ours = NOW.plus(Seconds(30));
    let claim = claim_of(&e, 30);
    assert!(release(Some(&claim), &e, ours).is_some());
    assert_eq!(release(Some(&claim_of(&e, 35)), &e, ours), None);
    assert_eq!(release(Some(&claim_of(&other, 30)), &e, ours), None);
    assert_eq!(release(None, &e, ours), None);
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

#[test]
fn a_created_at_outside_rfc_3339_years_is_refused() {
    for secs in [i64::MAX, 253_402_300_800, -62_167_219_201] {
        let mut body = snapshot("evt_1", "card_1", 0, "active");
        body["created_at"] = json!(secs);
        assert_eq!(
            parse(&cockpit(), &body),
            Err(ParseError::Invalid(Field::CreatedAt)),
            "{secs}"
        );
    }
    let mut body = snapshot("evt_1", "card_1", 0, "active");
    body["created_at"] = json!(253_402_300_799i64);
    assert!(parse(&cockpit(), &body).is_ok());
}
