//! `hookonce tail` follows the source-wide feed (`GET /sources/{source}/events`): one line
//! per delivery as it arrives, duplicates included, each once; `--entity` narrows it to one
//! entity. (On a worker without a feed it falls back to the entity's events.)

mod common;

use std::time::Duration;

use common::Running;
use hookonce_e2e::events::{
    at, cardholder_created, cardholder_updated, deliver, new_id, ADMIN_TOKEN,
};

fn tail(base: &str, entity: Option<&str>) -> Running {
    let mut args = vec![
        "tail",
        base,
        "--source",
        "cockpit",
        "--token",
        ADMIN_TOKEN,
        "--interval",
        "0.2",
        "--json",
    ];
    if let Some(e) = entity {
        args.extend(["--entity", e]);
    }
    Running::start(&args)
}

#[test]
fn tail_prints_each_delivery_of_the_entity_once() {
    let w = hookonce_e2e::shared_worker();
    let ent = new_id("ch");
    let (first, second) = (new_id("evt"), new_id("evt"));
    deliver(w, &cardholder_created(&first, &ent, &at(0), "Ada"));

    let tail = tail(&w.base, Some(&ent));
    let next = || tail.next_json(Duration::from_secs(20));
    let row = next();
    assert_eq!(
        (&row["event_id"], &row["outcome"]),
        (&first.as_str().into(), &"applied".into()),
        "{row}"
    );

    deliver(w, &cardholder_updated(&second, &ent, &at(10), "Ada King"));
    deliver(w, &cardholder_updated(&second, &ent, &at(10), "Ada King"));
    for want in ["applied", "duplicate"] {
        let row = next();
        assert_eq!(
            (&row["event_id"], &row["type"], &row["outcome"]),
            (
                &second.as_str().into(),
                &"cardholder.updated".into(),
                &want.into()
            ),
            "{row}"
        );
    }
    assert!(
        tail.stdout.recv_timeout(Duration::from_secs(1)).is_err(),
        "each delivery once"
    );
}

#[test]
fn without_an_entity_tail_follows_the_whole_source() {
    let w = hookonce_e2e::shared_worker();
    let tail = tail(&w.base, None);
    let id = new_id("evt");
    let ent = new_id("ch");
    deliver(w, &cardholder_created(&id, &ent, &at(0), "Bo"));
    loop {
        let row = tail.next_json(Duration::from_secs(20));
        if row["event_id"] == id.as_str() {
            assert_eq!(row["entity"], ent.as_str(), "{row}");
            break;
        }
    }
}
