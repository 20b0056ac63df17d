//! A destination added later gets the entity's earlier events by
//! `POST /admin/backfill/{source}/{destination}?entity=E&since=T`: in arrival order, ahead
//! of its rows still pending for the entity, never twice; an event whose body was not
//! kept is skipped and counted.

use std::time::Duration;

use hookonce_e2e::events::admin_post;
use hookonce_e2e::origin::{self, deliver, sources, sources_to, Origin, Reply};
use hookonce_e2e::Worker;
use serde_json::{json, Value};

fn start(dir: &std::path::Path, sources: Value) -> Worker {
    Worker::builder()
        .var("HOOKONCE_SOURCES", sources)
        .start_in(dir)
}

fn applied(w: &Worker, id: &str) {
    let (r, _) = deliver(w, id, "ent_bf");
    assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{id}: {r}");
}

#[test]
fn the_backfill_arrives_in_order_before_the_pending_later_events() {
    let (audit, billing) = (Origin::start(), Origin::start());
    let to = |o: &Origin| json!({ "url": o.url("/hooks"), "schedule_secs": [1] });
    let dir = tempfile::tempdir().unwrap();

    // No forwarding and no kept bodies: evt_bf_1's body is never kept.
    let mut unkept = sources(json!(null));
    unkept["acme"].as_object_mut().unwrap().remove("forward");
    unkept["acme"]["keep_raw_bodies"] = false.into();
    let mut w = start(dir.path(), unkept);
    applied(&w, "evt_bf_1");
    w.kill();
    drop(w);

    // audit only: evt_bf_2 and evt_bf_3 are kept and sent to audit.
    let mut w = start(dir.path(), sources_to(json!({ "audit": to(&audit) })));
    applied(&w, "evt_bf_2");
    applied(&w, "evt_bf_3");
    audit.wait_requests(2, Duration::from_secs(10));
    w.kill();
    drop(w);

    // billing is added, and failing: evt_bf_4 and evt_bf_5 wait in its queue.
    billing.set_default(Reply::Status(503));
    let both = sources_to(json!({ "audit": to(&audit), "billing": to(&billing) }));
    let w = start(dir.path(), both);
    applied(&w, "evt_bf_4");
    applied(&w, "evt_bf_5");
    billing.wait_requests(1, Duration::from_secs(10));

    let r = admin_post(&w, "/admin/backfill/acme/billing?entity=ent_bf&since=0");
    assert_eq!(r.status, 200, "{r}");
    assert_eq!(
        r.json(),
        json!({
            "enqueued": 2,
            "moved_behind": 2,
            "skipped_pruned": 1,
            "skipped_present": 2,
            "skipped_filtered": 0,
        }),
        "{r}"
    );
    billing.set_default(Reply::OK);
    let delivered = origin::delivered_keys;
    let reqs = billing.wait_for(Duration::from_secs(15), |reqs| delivered(reqs).len() >= 4);
    assert_eq!(
        delivered(&reqs),
        ["evt_bf_2", "evt_bf_3", "evt_bf_4", "evt_bf_5"],
        "the backfill first, in order, then the later events in theirs"
    );

    // A second backfill finds every kept event already sent.
    let r = admin_post(&w, "/admin/backfill/acme/billing?entity=ent_bf&since=0");
    assert_eq!(r.json()["enqueued"], 0, "{r}");
    assert_eq!(r.json()["skipped_present"], 4, "{r}");
}
