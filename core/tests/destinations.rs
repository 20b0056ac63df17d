//! Several destinations per source: an applied event writes one outbox row per
//! asynchronous destination that takes its type, in the same unit as its record; the
//! synchronous one is called while the provider waits and gets no row.

mod common;

use common::model::Model;
use common::*;
use hookonce_core::config::SourceConfig;
use hookonce_core::decide::{Decision, Plan, Stored, Write};
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
