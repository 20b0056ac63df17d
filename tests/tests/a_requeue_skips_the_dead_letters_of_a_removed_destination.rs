//! A requeue of every destination leaves the dead letters of a destination the
//! configuration no longer has dead (they would die again at once), and counts them as
//! skipped with the reason.

use std::time::Duration;

use hookonce_e2e::events::admin_post;
use hookonce_e2e::origin::{self, deliver, sources_to, Origin, Reply};
use hookonce_e2e::Worker;
use serde_json::json;

#[test]
fn its_rows_are_counted_as_skipped_and_stay_dead() {
    let (gone, audit) = (Origin::start(), Origin::start());
    gone.set_default(Reply::Gone);
    audit.set_default(Reply::Gone);
    let to = |o: &Origin| json!({ "url": o.url("/hooks") });
    let dir = tempfile::tempdir().unwrap();
    let mut w = Worker::builder()
        .var(
            "HOOKONCE_SOURCES",
            sources_to(json!({ "billing": to(&gone), "audit": to(&audit) })),
        )
        .start_in(dir.path());
    let (r, _) = deliver(&w, "evt_skip_1", "ent_skip");
    assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");
    origin::wait_dead(&w, |dead| dead.len() == 2);
    w.kill();
    drop(w);

    audit.set_default(Reply::OK);
    let w = Worker::builder()
        .var(
            "HOOKONCE_SOURCES",
            sources_to(json!({ "audit": to(&audit) })),
        )
        .start_in(dir.path());
    let r = admin_post(&w, "/admin/outbox/acme/ent_skip/retry");
    assert_eq!(r.status, 200, "{r}");
    let answer = r.json();
    assert_eq!(answer["requeued"], 1, "{r}");
    let skipped = answer["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{r}");
    assert_eq!(skipped[0]["destination"], "billing", "{r}");
    assert_eq!(skipped[0]["rows"], 1, "{r}");
    assert!(
        skipped[0]["reason"]
            .as_str()
            .unwrap()
            .contains("destination removed"),
        "{r}"
    );

    let rows = origin::wait_outbox(&w, "ent_skip", Duration::from_secs(10), |rows| {
        rows.iter()
            .any(|r| r["destination"] == "audit" && r["status"] == "delivered")
    });
    let billing = rows.iter().find(|r| r["destination"] == "billing").unwrap();
    assert_eq!(billing["status"], "dead", "{rows:#?}");
    let dead = origin::wait_dead(&w, |dead| dead.len() == 1);
    assert_eq!(dead[0]["destination"], "billing", "{dead:#?}");
}
