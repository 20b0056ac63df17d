//! `hookonce tail` probes the source-wide feed; on a worker without one (a 404 not-found
//! problem) it follows the entity given with --entity, one line per event as it arrives,
//! and without --entity it says what to pass.

mod common;

use std::time::Duration;

use common::{assert_output, hookonce, Running};
use hookonce_e2e::events::{
    at, cardholder_created, cardholder_updated, deliver, new_id, ADMIN_TOKEN,
};

#[test]
fn tail_prints_each_new_event_of_the_entity_once() {
    let w = hookonce_e2e::shared_worker();
    let ent = new_id("ch");
    let (first, second) = (new_id("evt"), new_id("evt"));
    deliver(w, &cardholder_created(&first, &ent, &at(0), "Ada"));

    let tail = Running::start(&[
        "tail",
        &w.base,
        "--source",
        "cockpit",
        "--entity",
        &ent,
        "--token",
        ADMIN_TOKEN,
        "--interval",
        "0.2",
        "--json",
    ]);
    let next = || tail.next_json(Duration::from_secs(20));
    let row = next();
    assert_eq!(
        (&row["event_id"], &row["outcome"]),
        (&first.as_str().into(), &"applied".into()),
        "{row}"
    );

    deliver(w, &cardholder_updated(&second, &ent, &at(10), "Ada King"));
    deliver(w, &cardholder_updated(&second, &ent, &at(10), "Ada King"));
    let row = next();
    assert_eq!(
        (&row["event_id"], &row["type"]),
        (&second.as_str().into(), &"cardholder.updated".into()),
        "{row}"
    );
    assert!(
        tail.stdout.recv_timeout(Duration::from_secs(1)).is_err(),
        "each event once, and a duplicate writes nothing to list"
    );
}

#[test]
fn without_a_feed_tail_asks_for_an_entity() {
    let w = hookonce_e2e::shared_worker();
    let out = hookonce(
        &[
            "tail",
            &w.base,
            "--source",
            "cockpit",
            "--token",
            ADMIN_TOKEN,
        ],
        b"",
    );
    assert_output(&out, 2, &out.stderr, "pass --entity E to follow one entity");
}
