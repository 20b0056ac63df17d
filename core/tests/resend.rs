//! Redelivery and backfill as sequences (core's `Redeliver` and `Backfill`): which
//! destinations and events get a new outbox row, which are refused or skipped, and the
//! answer's counts.

mod common;

use common::{cockpit_forwarding, NOW};
use hookonce_core::config::SourceConfig;
use hookonce_core::entity::resend::{
    Backfill, Backfilled, KeptEvent, Redeliver, ResendAnswer, ResendCommand, ResendInput,
    MAX_BACKFILL,
};
use hookonce_core::time::UnixSeconds;
use serde_json::json;

/// `billing` takes `invoice.*` but `invoice.upcoming`; `audit` takes every type.
fn source() -> SourceConfig {
    cockpit_forwarding(
        "destinations",
        json!({
            "billing": { "url": "https://billing.example/h", "types": ["invoice.*", "!invoice.upcoming"] },
            "audit": { "url": "https://audit.example/h" },
        }),
    )
}

fn kept(id: &str, kind: &str, outcome: &str, body: bool, queued: bool) -> KeptEvent {
    KeptEvent {
        event_id: id.into(),
        event_type: kind.into(),
        outcome: outcome.into(),
        body,
        queued,
    }
}

/// Runs a redelivery of `event` (read as found) to `only`: the rows enqueued
/// (event, destination) and the answer.
fn redeliver(only: Option<&str>, event: Option<KeptEvent>) -> (Vec<String>, ResendAnswer) {
    let source = source();
    let (mut r, mut c) = Redeliver::start("evt_1", only, &source.destinations, NOW);
    let (mut rows, mut event) = (Vec::new(), Some(event));
    loop {
        c = match c {
            ResendCommand::ReadEvent => r.handle(ResendInput::Event(event.take().unwrap())),
            ResendCommand::Enqueue {
                event_id,
                destination,
                at,
            } => {
                assert_eq!(at, NOW);
                rows.push(format!("{event_id} {destination}"));
                r.handle(ResendInput::Enqueued(100 + rows.len() as i64))
            }
            ResendCommand::SetAlarm(at) => {
                assert_eq!(at, NOW);
                r.handle(ResendInput::AlarmSet)
            }
            ResendCommand::Answer(a) => return (rows, a),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_redelivery_enqueues_one_row_per_destination_that_takes_the_event() {
    let paid = || Some(kept("evt_1", "invoice.paid", "applied", true, true));
    let (rows, answer) = redeliver(None, paid());
    assert_eq!(rows, ["evt_1 audit", "evt_1 billing"]);
    assert_eq!(
        answer,
        ResendAnswer::Redelivered(vec!["audit".into(), "billing".into()])
    );
    let (rows, _) = redeliver(Some("billing"), paid());
    assert_eq!(rows, ["evt_1 billing"]);
    let upcoming = Some(kept("evt_1", "invoice.upcoming", "applied", true, false));
    let (rows, answer) = redeliver(None, upcoming);
    assert_eq!(rows, ["evt_1 audit"], "{answer:?}");
}

#[test]
fn a_redelivery_is_refused_when_the_destination_does_not_take_the_type() {
    let upcoming = Some(kept("evt_1", "invoice.upcoming", "applied", true, false));
    let (rows, answer) = redeliver(Some("billing"), upcoming);
    assert!(rows.is_empty());
    let ResendAnswer::Refused(why) = answer else {
        panic!("{answer:?}")
    };
    assert_eq!(
        why,
        "destination billing does not take events of type invoice.upcoming (its types)"
    );
}

#[test]
fn a_redelivery_without_a_body_or_of_an_event_never_applied_sends_nothing() {
    let pruned = Some(kept("evt_1", "invoice.paid", "applied", false, true));
    let (rows, answer) = redeliver(None, pruned);
    assert!(rows.is_empty());
    assert!(
        matches!(&answer, ResendAnswer::NoBody(d) if d.contains("no longer kept")),
        "{answer:?}"
    );
    let (rows, answer) = redeliver(None, None);
    assert!(rows.is_empty());
    assert!(
        matches!(&answer, ResendAnswer::NoBody(d) if d.contains("not been seen")),
        "{answer:?}"
    );
    let stale = Some(kept("evt_1", "invoice.paid", "stale", true, false));
    let (rows, answer) = redeliver(None, stale);
    assert!(rows.is_empty());
    assert!(
        matches!(&answer, ResendAnswer::Refused(d) if d.contains("was stale here")),
        "{answer:?}"
    );
}

#[test]
fn a_backfill_enqueues_the_missing_events_in_order_then_moves_the_pending_rows_behind() {
    let source = source();
    let billing = source.destination("billing").unwrap();
    let since = UnixSeconds(NOW.0 - 3600);
    let (mut b, c) = Backfill::start(billing, since, NOW);
    assert_eq!(
        c,
        ResendCommand::ReadSince {
            destination: "billing",
            since
        }
    );
    let events = vec![
        kept("evt_a", "invoice.created", "applied", true, false),
        kept("evt_b", "customer.created", "applied", true, false),
        kept("evt_c", "invoice.paid", "applied", false, false),
        kept("evt_d", "invoice.paid", "stale", true, false),
        kept("evt_e", "invoice.upcoming", "applied", true, false),
        kept("evt_f", "invoice.finalized", "applied", true, false),
        kept("evt_g", "invoice.voided", "applied", true, true),
    ];
    let mut c = b.handle(ResendInput::Events(events));
    let mut enqueued = Vec::new();
    for seq in [40, 41] {
        let ResendCommand::Enqueue {
            event_id,
            destination: "billing",
            at: NOW,
        } = c
        else {
            panic!("{c:?}")
        };
        enqueued.push(event_id);
        c = b.handle(ResendInput::Enqueued(seq));
    }
    assert_eq!(enqueued, ["evt_a", "evt_f"]);
    assert_eq!(
        c,
        ResendCommand::MoveBehind {
            destination: "billing",
            before: 40
        }
    );
    assert_eq!(
        b.handle(ResendInput::Moved(1)),
        ResendCommand::SetAlarm(NOW)
    );
    assert_eq!(
        b.handle(ResendInput::AlarmSet),
        ResendCommand::Answer(ResendAnswer::Backfilled(Backfilled {
            enqueued: 2,
            moved_behind: 1,
            skipped_pruned: 1,
            skipped_present: 1,
            skipped_filtered: 2,
        }))
    );
}

#[test]
fn a_backfill_with_nothing_to_send_writes_nothing() {
    let source = source();
    let audit = source.destination("audit").unwrap();
    let (mut b, _) = Backfill::start(audit, NOW, NOW);
    let events = vec![kept("evt_a", "x.y", "applied", false, false)];
    assert_eq!(
        b.handle(ResendInput::Events(events)),
        ResendCommand::Answer(ResendAnswer::Backfilled(Backfilled {
            skipped_pruned: 1,
            ..Backfilled::default()
        }))
    );
}

#[test]
fn a_backfill_larger_than_the_bound_is_refused_whole() {
    let source = source();
    let audit = source.destination("audit").unwrap();
    let (mut b, _) = Backfill::start(audit, NOW, NOW);
    let events = (0..=MAX_BACKFILL)
        .map(|i| kept(&format!("evt_{i}"), "x.y", "applied", true, false))
        .collect();
    let c = b.handle(ResendInput::Events(events));
    assert!(
        matches!(&c, ResendCommand::Answer(ResendAnswer::Refused(d)) if d.starts_with("10001 events to send")),
        "{c:?}"
    );
}
