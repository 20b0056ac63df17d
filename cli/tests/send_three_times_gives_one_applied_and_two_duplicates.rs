//! `hookonce send --repeat 3`: the same event, freshly signed each time, is applied once
//! and answered as a duplicate twice.

mod common;

use common::{hookonce, json_of, show};
use hookonce_e2e::events::{cockpit_secret, entity, new_id};

#[test]
fn sending_one_event_three_times_applies_it_once() {
    let w = hookonce_e2e::shared_worker();
    let ent = new_id("ch");
    let secret = cockpit_secret();
    let args = [
        w.base.as_str(),
        "--source",
        "cockpit",
        "--secret",
        &secret,
        "--fixture",
        "cardholder.updated",
        "--entity",
        &ent,
        "--repeat",
        "3",
    ];

    let out = hookonce(&[&["send", "--json"], &args[..]].concat(), b"");
    let v = json_of(&out, 0);
    let s = &v["summary"];
    assert_eq!(
        (&s["applied"], &s["duplicate"], &s["stale"], &s["errors"]),
        (&1.into(), &2.into(), &0.into(), &0.into()),
        "{v:#}"
    );
    let outcomes: Vec<&str> = v["deliveries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(
        outcomes,
        ["applied", "duplicate", "duplicate"],
        "in order, one at a time"
    );
    let id = v["deliveries"][0]["event_id"].as_str().unwrap();
    assert!(v["deliveries"]
        .as_array()
        .unwrap()
        .iter()
        .all(|d| d["event_id"] == id));
    assert!(s["p50_ms"].as_f64().unwrap() > 0.0 && s["p99_ms"].as_f64() >= s["p50_ms"].as_f64());

    // The worker agrees: one event, applied.
    let e = entity(w, &ent).json();
    assert_eq!(e["events"].as_array().unwrap().len(), 1, "{e}");
    assert_eq!(e["events"][0]["event_id"], id);
    assert_eq!(e["state"]["id"], ent.as_str());

    // The same run for a person: one line per delivery, then the summary.
    let out = hookonce(&[&["send"], &args[..]].concat(), b"");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(
        lines[0].contains("applied") && lines[1].contains("duplicate"),
        "{text}"
    );
    assert!(
        lines[3].contains("1 applied, 2 duplicate, 0 stale, 0 errors; p50 "),
        "{text}"
    );
}
