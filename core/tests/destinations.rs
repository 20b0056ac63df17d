//! Several destinations per source: an applied event writes one outbox row per
//! asynchronous destination that takes its type, in the same unit as its record; the
//! synchronous one is called while the provider waits and gets no row. The alarm's drain
//! keeps each destination's order and isolates them from one another.

mod common;

use common::model::{Model, OutboxRow};
use common::*;
use hookonce_core::config::Effect;
use hookonce_core::config::SourceConfig;
use hookonce_core::decide::{Decision, Plan, Stored, Write};
use hookonce_core::drain::{self, Drain, Weighed};
use hookonce_core::event::EventId;
use hookonce_core::outbox::{Order, OutboxStatus};
use hookonce_core::retry::{AttemptResult, Schedule};
use hookonce_core::time::{Seconds, UnixSeconds};
use serde_json::json;

fn fanout(sync: bool) -> SourceConfig {
    let mode = if sync { "sync" } else { "async" };
    cockpit_forwarding(
        "destinations",
        json!({
            "billing": { "url": "https://billing.example/hooks" },
            "analytics": { "queue": "ANALYTICS" },
            "app": { "service": "APP", "mode": mode },
        }),
    )
}

fn enqueued<'a>(writes: &'a [Write<'a>]) -> Vec<&'a str> {
    writes
        .iter()
        .filter_map(|w| match w {
            Write::Enqueue { destination, .. } => Some(*destination),
            _ => None,
        })
        .collect()
}

#[test]
fn an_applied_event_writes_one_outbox_row_per_destination_after_its_body() {
    let source = fanout(false);
    let e = parse_signed(&source, &snapshot("evt_1", "card_1", 0, "active")).unwrap();
    let plan = Plan::for_source(&source, e.kind().as_str());
    let Decision::Apply {
        writes,
        enqueued: true,
    } = e.decide(&Stored::default(), plan, NOW)
    else {
        panic!("applied and enqueued");
    };
    assert_eq!(enqueued(&writes), ["analytics", "app", "billing"]);
    assert!(
        matches!(writes[0], Write::Body { .. }),
        "the body first: {writes:?}"
    );
}

#[test]
fn a_commit_enqueues_for_the_asynchronous_destinations_only() {
    let source = fanout(true);
    let e = parse_signed(&source, &snapshot("evt_1", "card_1", 0, "active")).unwrap();
    let plan = Plan::for_source(&source, e.kind().as_str());
    assert!(matches!(plan, Plan::Claim { .. }), "{plan:?}");
    let mut store = Model::default();
    assert_eq!(store.run(&e, plan, NOW).label, "claimed");
    assert_eq!(store.run(&e, Plan::Commit, NOW).label, "applied");
    let rows: Vec<&str> = store
        .outbox
        .iter()
        .map(|r| r.destination.as_str())
        .collect();
    assert_eq!(rows, ["analytics", "billing"]);
}

#[test]
fn a_source_without_destinations_enqueues_nothing() {
    let source = SourceConfig::from_json(
        "plain",
        &json!({"scheme": "standard-webhooks", "secrets": ["S"]}),
    )
    .unwrap();
    let e = parse_signed(&source, &snapshot("evt_1", "card_1", 0, "active")).unwrap();
    let d = e.decide(
        &Stored::default(),
        Plan::for_source(&source, e.kind().as_str()),
        NOW,
    );
    assert!(
        matches!(
            d,
            Decision::Apply {
                enqueued: false,
                ..
            }
        ),
        "{d:?}"
    );
    assert!(enqueued(d.writes()).is_empty());
}

#[test]
fn an_event_gets_a_row_only_at_the_destinations_whose_types_take_it() {
    let source = cockpit_forwarding(
        "destinations",
        json!({
            "billing": { "url": "https://billing.example/hooks", "types": ["payment.*"] },
            "cards": { "queue": "CARDS", "types": ["cardholder.*", "!cardholder.deleted"] },
            "everything": { "queue": "ALL" },
        }),
    );
    let rows = |kind: &str| {
        let mut body = snapshot("evt_1", "card_1", 0, "active");
        body["type"] = json!(kind);
        let e = parse_signed(&source, &body).unwrap();
        let d = e.decide(&Stored::default(), Plan::for_source(&source, kind), NOW);
        enqueued(d.writes()).join(",")
    };
    assert_eq!(rows("cardholder.updated"), "cards,everything");
    assert_eq!(rows("cardholder.deleted"), "everything");
    assert_eq!(rows("payment.refunded"), "billing,everything");
}

#[test]
fn a_sync_destination_that_does_not_take_the_type_is_not_waited_for() {
    let source = cockpit_forwarding(
        "destinations",
        json!({
            "app": { "service": "APP", "mode": "sync", "types": ["cardholder.*"] },
            "audit": { "queue": "AUDIT" },
        }),
    );
    assert!(matches!(
        Plan::for_source(&source, "cardholder.updated"),
        Plan::Claim { .. }
    ));
    assert_eq!(
        Plan::for_source(&source, "payment.refunded"),
        Plan::Apply { forward: true }
    );
}

/// One alarm run over `store`, as the adapter carries it out: each attempt is answered by
/// `answer(destination)`; returns what was sent, (destination, event id) in order, and
/// when the run set the alarm for.
fn alarm(
    store: &mut Model,
    answer: impl Fn(&str) -> u16,
) -> (Vec<(String, String)>, Option<UnixSeconds>) {
    alarm_with(store, answer, &[], |_| None)
}

/// [`alarm`], with the destinations in `latest` configured `deliver = "latest"`, and
/// `weigh` giving an event's effect and version as the adapter reads them.
fn alarm_with<'e>(
    store: &mut Model,
    answer: impl Fn(&str) -> u16,
    latest: &[&str],
    weigh: impl Fn(&str) -> Option<Weighed<'e>>,
) -> (Vec<(String, String)>, Option<UnixSeconds>) {
    let schedule = Schedule::new(vec![Seconds(60)], Seconds(3_600)).unwrap();
    let mut drain = Drain::default();
    let (run, mut command) = drain.alarm::<usize>(NOW, Order::HeadOfLine);
    let (mut sent, mut alarm_at) = (Vec::new(), None);
    loop {
        let input = match command {
            drain::Command::ReadHead(read) => drain::Input::Head {
                gated: store.read(read, NOW).map(|h| {
                    let mut gated = store.gated(&h);
                    gated.latest = latest.contains(&gated.destination.as_str());
                    gated
                }),
                row: store
                    .read(read, NOW)
                    .map(|h| (h.clone(), Ok(h.seq as usize - 1))),
                now: NOW,
            },
            drain::Command::ReadSuccessor { seq, via } => {
                let at = usize::try_from(seq - 1).unwrap();
                let row = &store.outbox[at];
                let next = store.outbox[at + 1..].iter().find(|r| {
                    r.status == OutboxStatus::Pending && r.destination == row.destination
                });
                drain::Input::Successor {
                    head: weigh(row.event_id.as_str()),
                    next: next.and_then(|r| weigh(r.event_id.as_str())),
                    via,
                    now: NOW,
                }
            }
            drain::Command::ReadEarliest { order, held } => {
                drain::Input::Earliest(store.earliest_due_except(order, &held))
            }
            // The gates grant every attempt; their results reach nobody here.
            drain::Command::Ask { via, .. } => drain::Input::Asked {
                answer: Some(grant(1, NOW.plus(Seconds(30)))),
                healthy_since: None,
                via,
                now: NOW,
            },
            drain::Command::Report { .. } => drain::Input::Reported,
            drain::Command::Send { via, .. } => {
                let row = &store.outbox[via];
                sent.push((row.destination.clone(), row.event_id.as_str().to_owned()));
                let code = answer(&row.destination);
                drain::Input::Sent {
                    result: AttemptResult::Status {
                        code,
                        retry_after: None,
                    },
                    schedule: &schedule,
                    now: NOW,
                    jitter: 0,
                }
            }
            drain::Command::Write {
                transition,
                if_attempts,
            } => drain::Input::Written {
                applied: store.transition(&transition, if_attempts),
            },
            drain::Command::Sync => drain::Input::Synced,
            drain::Command::SetAlarm(at) => {
                alarm_at = Some(at);
                drain::Input::AlarmSet
            }
            drain::Command::Done => return (sent, alarm_at),
        };
        command = drain.handle(run, input);
    }
}

#[test]
fn a_failing_destinations_head_holds_back_its_own_rows_and_none_of_the_others() {
    let source = cockpit_forwarding(
        "destinations",
        json!({ "billing": { "url": "https://billing.example/" }, "audit": { "queue": "AUDIT" } }),
    );
    let mut store = Model::default();
    for i in 0..3 {
        let e = parse_signed(&source, &snapshot(&format!("evt_{i}"), "card_1", i, "s")).unwrap();
        assert_eq!(
            store
                .run(&e, Plan::for_source(&source, e.kind().as_str()), NOW)
                .label,
            "applied"
        );
    }
    let (sent, retry) = alarm(&mut store, |to| if to == "billing" { 503 } else { 200 });
    let to = |name: &str| -> Vec<String> {
        sent.iter()
            .filter(|s| s.0 == name)
            .map(|s| s.1.clone())
            .collect()
    };
    assert_eq!(
        to("audit"),
        ["evt_0", "evt_1", "evt_2"],
        "audit in order, at once"
    );
    assert_eq!(
        to("billing"),
        ["evt_0"],
        "billing's later rows wait for its head"
    );
    let head = store
        .outbox
        .iter()
        .find(|r| r.destination == "billing")
        .unwrap();
    assert!(
        head.next_attempt_at > NOW,
        "billing's head waits for its retry"
    );
    assert_eq!(
        retry,
        Some(head.next_attempt_at),
        "the alarm is for billing's retry"
    );

    // Billing recovers: its rows go in order; audit's are not sent again.
    let (sent, _) = alarm(&mut store, |_| 200);
    assert!(sent.is_empty(), "nothing is due before the retry: {sent:?}");
    // Its retry is due.
    for row in &mut store.outbox {
        row.next_attempt_at = row.next_attempt_at.min(NOW);
    }
    let (sent, retry) = alarm(&mut store, |_| 200);
    let billing: Vec<&str> = sent.iter().map(|s| s.1.as_str()).collect();
    assert!(sent.iter().all(|s| s.0 == "billing"), "{sent:?}");
    assert_eq!(billing, ["evt_0", "evt_1", "evt_2"]);
    assert_eq!(retry, None);
}

#[test]
fn a_latest_destination_is_sent_only_the_newest_of_each_run_of_snapshots() {
    // (event, effect, version), in the order the entity applied them; `evt_old` is an
    // older snapshot redelivered at the tail.
    let notify = Effect::Notify;
    let snapshot = Effect::Snapshot;
    let events = [
        ("evt_0", &snapshot, Some(10)),
        ("evt_1", &snapshot, Some(11)),
        ("evt_n", &notify, None),
        ("evt_2", &snapshot, Some(12)),
        ("evt_3", &snapshot, Some(13)),
        ("evt_old", &snapshot, Some(5)),
    ];
    let mut store = Model::default();
    for destination in ["app", "audit"] {
        for (id, ..) in &events {
            store.outbox.push(OutboxRow {
                event_id: EventId::new(*id).unwrap(),
                destination: destination.to_owned(),
                status: OutboxStatus::Pending,
                attempts: 0,
                first_attempt_at: None,
                next_attempt_at: NOW,
            });
        }
    }
    let weigh = |id: &str| {
        events.iter().find(|e| e.0 == id).map(|e| Weighed {
            event_id: id.to_owned(),
            effect: e.1,
            created_at: e.2.map(UnixSeconds),
        })
    };
    let (sent, _) = alarm_with(&mut store, |_| 200, &["app"], weigh);
    let to = |name: &str| -> Vec<&str> {
        sent.iter()
            .filter(|s| s.0 == name)
            .map(|s| s.1.as_str())
            .collect()
    };
    assert_eq!(to("app"), ["evt_1", "evt_n", "evt_3", "evt_old"]);
    assert_eq!(
        to("audit"),
        ["evt_0", "evt_1", "evt_n", "evt_2", "evt_3", "evt_old"]
    );
    let superseded: Vec<&str> = store
        .outbox
        .iter()
        .filter(|r| r.status == OutboxStatus::Superseded)
        .map(|r| r.event_id.as_str())
        .collect();
    assert_eq!(superseded, ["evt_0", "evt_2"]);
}
