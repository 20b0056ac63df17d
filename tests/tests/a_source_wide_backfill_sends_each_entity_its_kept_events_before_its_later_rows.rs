//! `POST /admin/backfill/{source}/{destination}?since=T` without `entity` backfills, a page
//! of entities at a time, every entity of the source that events were noted about since T:
//! the destination added later receives each entity's kept events, in order, before that
//! entity's rows that were pending for it.

use std::time::Duration;

use hookonce_e2e::events::{admin_pages, wait_feed};
use hookonce_e2e::origin::{self, deliver, sources_to, Origin, Reply};
use hookonce_e2e::Worker;
use serde_json::{json, Value};

fn start(dir: &std::path::Path, sources: Value) -> Worker {
    Worker::builder()
        .var("HOOKONCE_SOURCES", sources)
        .start_in(dir)
}

fn applied(w: &Worker, id: &str, entity: &str) {
    let (r, _) = deliver(w, id, entity);
    assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{id}: {r}");
}

const ENTITIES: [&str; 3] = ["ent_sw_a", "ent_sw_b", "ent_sw_c"];

#[test]
fn each_entity_gets_its_earlier_events_first_then_its_later_ones() {
    let (audit, billing) = (Origin::start(), Origin::start());
    let to = |o: &Origin| json!({ "url": o.url("/hooks"), "schedule_secs": [1] });
    let dir = tempfile::tempdir().unwrap();

    // audit only: two events of each entity, kept and sent to audit.
    let mut w = start(dir.path(), sources_to(json!({ "audit": to(&audit) })));
    for i in 1..=2 {
        for entity in ENTITIES {
            applied(&w, &format!("evt_{entity}_{i}"), entity);
        }
    }
    audit.wait_requests(6, Duration::from_secs(10));
    // The registry is filled from the feed's notes: they are in once the feed shows them.
    wait_feed(&w, "acme", "limit=10", |rows| rows.len() == 6);
    w.kill();
    drop(w);

    // billing is added, and failing: a later event of a and b waits in its queue.
    billing.set_default(Reply::Status(503));
    let both = sources_to(json!({ "audit": to(&audit), "billing": to(&billing) }));
    let w = start(dir.path(), both);
    for entity in &ENTITIES[..2] {
        applied(&w, &format!("evt_{entity}_3"), entity);
    }
    billing.wait_requests(2, Duration::from_secs(10));

    let pages = admin_pages(&w, "/admin/backfill/acme/billing?since=0&limit=2");
    let sum = |k: &str| -> u64 { pages.iter().map(|p| p[k].as_u64().unwrap()).sum() };
    assert_eq!(pages.len(), 2, "three entities, two a page: {pages:#?}");
    assert_eq!(sum("entities"), 3);
    assert_eq!(sum("enqueued"), 6, "{pages:#?}");
    assert_eq!(sum("moved_behind"), 2, "{pages:#?}");
    assert_eq!(sum("skipped_present"), 2, "the later events it already has");
    assert!(pages.iter().all(|p| p["failed"] == json!([])), "{pages:#?}");

    billing.set_default(Reply::OK);
    let delivered = origin::delivered_keys;
    let reqs = billing.wait_for(Duration::from_secs(20), |reqs| delivered(reqs).len() >= 8);
    let keys = delivered(&reqs);
    for entity in ENTITIES {
        let got: Vec<&str> = keys
            .iter()
            .map(String::as_str)
            .filter(|k| k.contains(entity))
            .collect();
        let mut expected = vec![format!("evt_{entity}_1"), format!("evt_{entity}_2")];
        if entity != "ent_sw_c" {
            expected.push(format!("evt_{entity}_3"));
        }
        assert_eq!(
            got, expected,
            "{entity}: the backfill first, then the later one"
        );
    }
    assert_eq!(keys.len(), 8, "{keys:?}");
}
