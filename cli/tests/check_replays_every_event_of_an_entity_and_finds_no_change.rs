//! `hookonce check`: every stored event of an entity is replayed; none changes anything,
//! so it exits 0 and says so. Stale events keep no body, so they are listed as skipped.

mod common;

use common::{hookonce, json_of, show};
use hookonce_e2e::events::{cockpit_secret, new_id, ADMIN_TOKEN};

#[test]
fn checking_an_entity_replays_each_of_its_events_and_none_changes_anything() {
    let w = hookonce_e2e::shared_worker();
    let ent = new_id("ch");
    let secret = cockpit_secret();
    let (mut applied, mut stale) = (Vec::new(), Vec::new());
    for fixture in ["cardholder.created", "cardholder.updated"] {
        let v = json_of(
            &hookonce(
                &[
                    "send",
                    "--json",
                    &w.base,
                    "--source",
                    "cockpit",
                    "--secret",
                    &secret,
                    "--fixture",
                    fixture,
                    "--entity",
                    &ent,
                    "--older",
                ],
                b"",
            ),
            0,
        );
        for d in v["deliveries"].as_array().unwrap() {
            let id = d["event_id"].as_str().unwrap().to_owned();
            match d["outcome"].as_str() {
                Some("applied") => applied.push(id),
                Some("stale") => stale.push(id),
                _ => panic!("unexpected outcome: {v:#}"),
            }
        }
    }
    assert_eq!(
        (applied.len(), stale.len()),
        (2, 2),
        "two events and their older versions"
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
    let mut replayed: Vec<String> = v["replayed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r["outcome"], "duplicate", "{r}");
            assert_eq!(r["changed"], false, "{r}");
            r["event_id"].as_str().unwrap().to_owned()
        })
        .collect();
    let mut skipped: Vec<String> = v["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r["recorded"], "stale", "{r}");
            r["event_id"].as_str().unwrap().to_owned()
        })
        .collect();
    for ids in [&mut replayed, &mut skipped, &mut applied, &mut stale] {
        ids.sort();
    }
    assert_eq!(replayed, applied, "every applied event is replayed: {v:#}");
    assert_eq!(skipped, stale, "stale events keep no body: {v:#}");
    assert_eq!(v["changed"], serde_json::json!([]));
    assert_eq!(v["ok"], true);

    let out = hookonce(&check, b"");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!(
            "2 events of cockpit/{ent} replayed, 2 skipped: none changed anything"
        )),
        "{text}"
    );
}
