//! A raw body is kept for the source's `body_retention_secs`, then the entity's alarm
//! prunes it; the event's id and outcome stay (forever, by default).

use std::time::Duration;

use hookonce_e2e::events::*;

#[test]
fn a_body_is_replayable_until_its_retention_passes_and_its_id_stays_after() {
    let w = worker_keeping_bodies_for(3);
    let id = new_id("evt");
    let ev = cardholder_updated(&id, "ch_pruned", &at(0), "Ada");
    assert_eq!(outcome(&deliver(&w, &ev)), "applied");

    let kept = replay(&w, &id, "ch_pruned");
    assert_eq!(kept.status, 200, "the body is kept at first: {kept}");
    assert_eq!(kept.json()["outcome"], "duplicate", "{kept}");

    wait_body_pruned(&w, &id, "ch_pruned", Duration::from_secs(30));

    let record = event_record(&w, &id, "ch_pruned");
    assert_eq!(record.status, 200, "the id outlives its body: {record}");
    assert_eq!(record.json()["outcome"], "applied", "{record}");
    let e = entity(&w, "ch_pruned").json();
    assert_eq!(e["events"][0]["event_id"], id.as_str(), "{e}");
    assert_eq!(e["state"]["name"], "Ada", "{e}");
}
