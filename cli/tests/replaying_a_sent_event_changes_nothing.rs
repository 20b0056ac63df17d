//! `hookonce replay`: a stored event, replayed through the whole pipeline, is a duplicate
//! and `changed` is false.

mod common;

use common::{assert_output, hookonce, json_of};
use hookonce_e2e::events::{new_id, ADMIN_TOKEN};

#[test]
fn replaying_an_event_that_was_sent_changes_nothing() {
    let w = hookonce_e2e::shared_worker();
    let ent = new_id("ch");
    let sent = common::send_fixture(w, "cardholder.created", &ent, &[]);
    let id = sent["deliveries"][0]["event_id"].as_str().unwrap();
    assert_eq!(sent["deliveries"][0]["outcome"], "applied");

    let replay = [
        "replay",
        &w.base,
        "--source",
        "cockpit",
        "--event",
        id,
        "--entity",
        &ent,
        "--token",
        ADMIN_TOKEN,
    ];
    let v = json_of(&hookonce(&[&replay[..], &["--json"]].concat(), b""), 0);
    assert_eq!(v["event_id"], id);
    assert_eq!(v["outcome"], "duplicate", "{v}");
    assert_eq!(v["status"], 200, "{v}");
    assert_eq!(v["changed"], false, "{v}");

    let out = hookonce(&replay, b"");
    assert_output(
        &out,
        0,
        &out.stdout,
        &format!("{id}: duplicate (HTTP 200), changed: false\n"),
    );
}
