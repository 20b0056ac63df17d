//! `hookonce check`: every stored event of an entity is replayed; none changes anything,
//! so it exits 0 and says so. Stale events keep no body, so they are listed as skipped.

mod common;

use common::{assert_output, hookonce, json_of};
use hookonce_e2e::events::{new_id, ADMIN_TOKEN};
use serde_json::Value;

/// The sorted event ids of `rows` whose `field` is `value`.
fn ids_where(rows: &Value, field: &str, value: &Value) -> Vec<String> {
    let mut ids: Vec<String> = rows
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| &r[field] == value)
        .map(|r| r["event_id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

#[test]
fn checking_an_entity_replays_each_of_its_events_and_none_changes_anything() {
    let w = hookonce_e2e::shared_worker();
    let ent = new_id("ch");
    let mut sent = Vec::new();
    for fixture in ["cardholder.created", "cardholder.updated"] {
        let v = common::send_fixture(w, fixture, &ent, &["--older"]);
        sent.extend(v["deliveries"].as_array().unwrap().iter().cloned());
    }
    let sent = Value::Array(sent);
    let applied = ids_where(&sent, "outcome", &"applied".into());
    let stale = ids_where(&sent, "outcome", &"stale".into());
    assert_eq!(
        (applied.len(), stale.len()),
        (2, 2),
        "two events and their older versions: {sent:#}"
    );

    let check = [
        "check",
        &w.base,
        "--source",
        "cockpit",
        "--entity",
        &ent,
        "--token",
        ADMIN_TOKEN,
    ];
    let v = json_of(&hookonce(&[&check[..], &["--json"]].concat(), b""), 0);
    assert_eq!(
        ids_where(&v["replayed"], "changed", &false.into()),
        applied,
        "{v:#}"
    );
    assert_eq!(
        ids_where(&v["replayed"], "outcome", &"duplicate".into()),
        applied,
        "{v:#}"
    );
    assert_eq!(
        ids_where(&v["skipped"], "recorded", &"stale".into()),
        stale,
        "{v:#}"
    );
    assert_eq!(v["changed"], serde_json::json!([]));
    assert_eq!(v["ok"], true);

    let out = hookonce(&check, b"");
    let summary = format!("2 events of cockpit/{ent} replayed, 2 skipped: none changed anything");
    assert_output(&out, 0, &out.stdout, &summary);
}
