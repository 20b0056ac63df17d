//! Admin replay re-signs a stored event and runs it through the whole pipeline: it is a
//! duplicate, changes nothing (the entity's JSON is byte-for-byte the same) and forwards
//! nothing.

use std::time::Duration;

use hookonce_e2e::events::admin_post;
use hookonce_e2e::origin::{self, Origin};
use serde_json::json;

#[test]
fn replaying_a_stored_event_is_a_duplicate_that_changes_nothing() {
    let o = Origin::start();
    let w =
        origin::worker(json!({ "url": o.url("/hooks"), "schedule_secs": [1], "window_secs": 10 }));

    let now = hookonce_e2e::unix_now();
    let snap = origin::event_body("evt_snap", "item.snapshot", "ent_replay", now - 10);
    assert_eq!(origin::deliver_body(&w, "evt_snap", &snap).status, 200);
    let pay = origin::event_body("evt_pay", "payment.captured", "ent_replay", now - 5);
    assert_eq!(origin::deliver_body(&w, "evt_pay", &pay).status, 200);
    origin::wait_outbox(&w, "ent_replay", Duration::from_secs(15), |rows| {
        rows.len() == 2 && rows.iter().all(|r| r["status"] == "delivered")
    });
    let before = origin::entity(&w, "ent_replay");
    assert_eq!(before.status, 200, "{before}");
    assert_eq!(before.json()["ledger"]["total"], 100, "{before}");
    let origin_before = o.requests().len();

    for id in ["evt_snap", "evt_pay"] {
        let r = admin_post(&w, &format!("/admin/replay/acme/{id}?entity=ent_replay"));
        assert_eq!(r.status, 200, "{r}");
        let j = r.json();
        assert_eq!(j["outcome"], "duplicate", "{r}");
        assert_eq!(j["changed"], false, "{r}");
        assert_eq!(j["status"], 200, "{r}");
        assert_eq!(j["event_id"], id, "{r}");
    }
    let no_auth: &[(&str, &str)] = &[];
    let r = w.request(
        "POST",
        "/admin/replay/acme/evt_snap?entity=ent_replay",
        no_auth,
        Some(b""),
    );
    assert_eq!(r.status, 401, "{r}");

    let after = origin::entity(&w, "ent_replay");
    assert_eq!(
        after.text(),
        before.text(),
        "the entity is byte-for-byte unchanged"
    );
    // The outbox above is unchanged (two delivered rows, none pending): nothing is left
    // that could be forwarded, so the origin's count is final.
    assert_eq!(
        o.requests().len(),
        origin_before,
        "a replay forwards nothing"
    );
}
