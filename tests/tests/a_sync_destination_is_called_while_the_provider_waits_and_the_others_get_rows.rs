//! One synchronous destination among several: the service binding is called while the
//! provider waits, and the event's commit enqueues it for the asynchronous destination,
//! which gets it through the outbox; the synchronous one gets no outbox row.

use std::time::Duration;

use hookonce_e2e::origin::{self, Origin};
use hookonce_e2e::peers::{self, SERVICE, SERVICE_PATH};
use serde_json::json;

#[test]
fn the_sync_destination_answers_the_provider_and_the_async_one_gets_a_row() {
    let (peer, audit) = (Origin::start(), Origin::start());
    let sources = origin::sources_to(json!({
        "app": { "service": SERVICE, "mode": "sync", "timeout_secs": 2, "lease_secs": 5 },
        "audit": { "url": audit.url("/audit") },
    }));
    let w = peers::builder_for(&peer, sources).start();

    for id in ["evt_mix_1", "evt_mix_2"] {
        let (r, _) = origin::deliver(&w, id, "ent_mix");
        assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");
        assert!(
            peer.keys().iter().any(|k| k == id),
            "called before the answer"
        );
    }
    let paths: Vec<String> = peer.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(paths, [SERVICE_PATH; 2]);
    audit.wait_requests(2, Duration::from_secs(10));
    assert_eq!(audit.keys(), ["evt_mix_1", "evt_mix_2"]);
    let rows = origin::wait_outbox(&w, "ent_mix", Duration::from_secs(10), |rows| {
        rows.len() == 2 && rows.iter().all(|r| r["status"] == "delivered")
    });
    assert!(
        rows.iter().all(|r| r["destination"] == "audit"),
        "{rows:#?}"
    );
}
