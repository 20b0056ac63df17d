//! In synchronous mode the event is applied after the destination's 2xx (`Plan::Commit`);
//! the body kept then has a lifetime like any other: the alarm prunes it.

use std::time::Duration;

use hookonce_e2e::events::wait_body_pruned_in;
use hookonce_e2e::origin::{self, Origin};
use serde_json::json;

#[test]
fn a_body_kept_by_a_synchronous_forward_is_pruned_after_its_retention() {
    let o = Origin::start();
    let w = origin::worker_keeping_bodies_for(json!({ "url": o.url("/hooks"), "mode": "sync" }), 1);

    let (r, _) = origin::deliver(&w, "evt_sync_kept", "ent_sync");
    assert_eq!(r.status, 200, "{r}");
    assert_eq!(r.json()["outcome"], "applied", "{r}");
    assert_eq!(o.requests().len(), 1, "forwarded while the provider waited");

    let gone = wait_body_pruned_in(
        &w,
        origin::SOURCE,
        "evt_sync_kept",
        "ent_sync",
        Duration::from_secs(30),
    );
    assert!(gone.text().contains("no longer kept"), "{gone}");
}
