//! A source with two destinations, `audit` that takes every event and `billing` whose origin
//! answers 410 Gone (a dead letter at once): `hookonce check` counts the entity's outbox rows
//! per destination, and `hookonce tail` prints each row with its destination: the source's
//! dead letters, or with `--entity` each of the entity's outbox rows.

mod common;

use std::time::Duration;

use common::{assert_output, hookonce, json_of, Running};
use hookonce_e2e::events::ADMIN_TOKEN;
use hookonce_e2e::origin::{self, Origin, Reply, SOURCE};
use hookonce_e2e::Worker;
use serde_json::{json, Value};

/// A worker forwarding to both, and one event of `entity` delivered to each: audit's
/// row delivered, billing's dead.
fn forwarded(entity: &str) -> (Origin, Origin, Worker) {
    let (audit, billing) = (Origin::start(), Origin::start());
    billing.set_default(Reply::Gone);
    let to = |o: &Origin| json!({ "url": o.url("/hooks"), "schedule_secs": [1] });
    let w = Worker::builder()
        .var(
            "HOOKONCE_SOURCES",
            origin::sources_to(json!({ "audit": to(&audit), "billing": to(&billing) })),
        )
        .start();
    origin::deliver_burst(&w, &[entity], 1);
    origin::wait_outbox(&w, entity, Duration::from_secs(20), |rows| {
        rows.len() == 2 && rows.iter().all(|r| r["status"] != "pending")
    });
    (audit, billing, w)
}

#[test]
fn check_counts_the_entitys_rows_per_destination() {
    let (_audit, _billing, w) = forwarded("ent_check");
    let check = [
        "check",
        &w.base,
        "--source",
        SOURCE,
        "--entity",
        "ent_check",
        "--token",
        ADMIN_TOKEN,
    ];
    let v = json_of(&hookonce(&[&check[..], &["--json"]].concat(), b""), 0);
    assert_eq!(
        v["destinations"],
        json!({
            "audit": { "delivered": 1, "pending": 0, "dead": 0 },
            "billing": { "delivered": 0, "pending": 0, "dead": 1 },
        }),
        "{v:#}"
    );
    let out = hookonce(&check, b"");
    assert_output(
        &out,
        0,
        &out.stdout,
        "audit: 1 delivered, 0 pending, 0 dead",
    );
    assert_output(
        &out,
        0,
        &out.stdout,
        "billing: 0 delivered, 0 pending, 1 dead",
    );
}

#[test]
fn tail_prints_each_rows_destination() {
    let (_audit, _billing, w) = forwarded("ent_tail");
    let tail = |entity: Option<&str>| {
        let mut args = vec![
            "tail",
            &w.base,
            "--source",
            SOURCE,
            "--token",
            ADMIN_TOKEN,
            "--interval",
            "0.2",
            "--json",
        ];
        args.extend(entity.map(|e| ["--entity", e]).into_iter().flatten());
        Running::start(&args)
    };
    // The next row of this kind (feed rows come too).
    let next_of = |t: &Running, kind: &str| -> Value {
        loop {
            let row = t.next_json(Duration::from_secs(20));
            if row["kind"] == kind {
                return row;
            }
        }
    };

    // The whole source: its one dead letter, named by its destination.
    let source = tail(None);
    let dead = next_of(&source, "dead");
    assert_eq!(
        (&dead["destination"], &dead["entity"], &dead["outcome"]),
        (&json!("billing"), &json!("ent_tail"), &json!("dead")),
        "{dead}"
    );

    // One entity: each outbox row, with its destination and status.
    let entity = tail(Some("ent_tail"));
    let mut rows: Vec<(String, String)> = (0..2)
        .map(|_| {
            let r = next_of(&entity, "outbox");
            let s = |k: &str| r[k].as_str().unwrap_or_default().to_owned();
            (s("destination"), s("outcome"))
        })
        .collect();
    rows.sort();
    assert_eq!(
        rows,
        [
            ("audit".to_owned(), "delivered".to_owned()),
            ("billing".to_owned(), "dead".to_owned())
        ]
    );
}
