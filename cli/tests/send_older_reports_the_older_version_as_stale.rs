//! `hookonce send --older`: an older version of a snapshot, arriving after the newer one,
//! is dropped as stale and does not overwrite the state.

mod common;

use hookonce_e2e::events::{entity, new_id};

#[test]
fn an_older_snapshot_sent_after_the_newer_one_is_stale() {
    let w = hookonce_e2e::shared_worker();
    let ent = new_id("ch");
    let v = common::send_fixture(w, "cardholder.updated", &ent, &["--repeat", "2", "--older"]);
    let outcomes: Vec<(&str, &str)> = v["deliveries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["event_id"].as_str().unwrap(),
                d["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    let newer = outcomes[0].0;
    let older = format!("{newer}_older");
    assert_eq!(
        outcomes,
        [
            (newer, "applied"),
            (newer, "duplicate"),
            (older.as_str(), "stale"),
            (older.as_str(), "duplicate")
        ],
        "{v:#}"
    );
    let s = &v["summary"];
    assert_eq!(
        (&s["applied"], &s["duplicate"], &s["stale"]),
        (&1.into(), &2.into(), &1.into())
    );
    let e = entity(w, &ent).json();
    assert_eq!(
        e["version"]["event_id"], newer,
        "the newer version stays: {e}"
    );
}
