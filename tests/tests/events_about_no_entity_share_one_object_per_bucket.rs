//! Events about no entity go to a few bucket objects, `{source}/b/{n}` with n a hash of the
//! id modulo `buckets`, not to an object each: forty GitHub deliveries make one object per
//! bucket they hash to (and bucket 0, which holds the source's record of its buckets),
//! each id is still a duplicate when sent again, and the read API finds each by its id.

use std::collections::BTreeSet;

use hookonce_core::names::bucket_of;
use hookonce_e2e::buckets::{builder, deliver, event, files};
use hookonce_e2e::events::outcome;
use serde_json::json;

#[test]
fn forty_events_about_no_entity_make_one_object_per_bucket_they_hash_to() {
    // No look-ups in per-event objects: a source first deployed with buckets.
    let w = builder(json!({ "buckets": 8, "legacy_lookup_secs": 0 })).start();
    let ids: Vec<String> = (0..40).map(|i| format!("d-{i:04}")).collect();
    for id in &ids {
        assert_eq!(outcome(&deliver(&w, id)), "applied", "{id}");
    }
    for id in &ids {
        assert_eq!(outcome(&deliver(&w, id)), "duplicate", "{id}");
        let read = event(&w, id);
        assert_eq!(read.status, 200, "{read}");
        assert_eq!(read.json()["event_id"], id.as_str());
        assert_eq!(read.json()["outcome"], "applied");
    }
    // core's hash, checked against Python's hashlib in its unit tests.
    let mut buckets: BTreeSet<u32> = ids.iter().map(|id| bucket_of(id, 8)).collect();
    buckets.insert(0);
    assert!(buckets.len() <= 8);
    assert_eq!(files(&w).len(), buckets.len(), "{:?}", files(&w));
}
