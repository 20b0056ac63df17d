//! A destination removed from the configuration while rows for it are pending: they are
//! never dropped and never sent elsewhere; each becomes a dead letter with the reason
//! "destination removed", and the other destination's rows are untouched.

use std::time::Duration;

use hookonce_e2e::origin::{self, deliver_burst, sources_to, Origin, Reply};
use hookonce_e2e::Worker;
use serde_json::{json, Value};

#[test]
fn its_pending_rows_become_dead_letters_naming_the_reason() {
    let (down, up) = (Origin::start(), Origin::start());
    down.set_default(Reply::Status(503));
    let to = |o: &Origin| json!({ "url": o.url("/hooks"), "schedule_secs": [1, 2] });
    let dir = tempfile::tempdir().unwrap();
    let both = sources_to(json!({ "billing": to(&down), "audit": to(&up) }));
    let mut w = Worker::builder()
        .var("HOOKONCE_SOURCES", both)
        .start_in(dir.path());
    let sent = deliver_burst(&w, &["ent_rm"], 3);
    up.wait_for(Duration::from_secs(10), |reqs| reqs.len() >= sent.len());
    down.wait_for(Duration::from_secs(10), |reqs| !reqs.is_empty());
    w.kill();
    drop(w);

    let w = Worker::builder()
        .var("HOOKONCE_SOURCES", sources_to(json!({ "audit": to(&up) })))
        .start_in(dir.path());
    let rows = origin::wait_outbox(&w, "ent_rm", Duration::from_secs(15), |rows| {
        rows.iter().all(|r| r["status"] != "pending")
    });
    let of =
        |name: &str| -> Vec<&Value> { rows.iter().filter(|r| r["destination"] == name).collect() };
    assert_eq!(of("billing").len(), 3, "{rows:#?}");
    for r in of("billing") {
        assert_eq!(r["status"], "dead", "{r}");
        assert_eq!(r["last_result"], "destination removed", "{r}");
    }
    assert!(
        of("audit").iter().all(|r| r["status"] == "delivered"),
        "{rows:#?}"
    );
    assert!(
        down.requests().iter().all(|r| r.reply != Reply::OK),
        "nothing went to billing once it was removed"
    );
    let dead = origin::wait_dead(&w, |dead| dead.len() >= 3);
    for d in &dead {
        assert_eq!(d["last_result"], "destination removed", "{d}");
        assert_eq!(d["destination"], "billing", "{d}");
    }
    assert_eq!(dead.len(), 3, "{dead:#?}");
}
