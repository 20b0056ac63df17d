//! While a source may have ids in per-event objects from before buckets
//! (`legacy_lookup_secs`, 30 days from its first bucket by default), a bucket looks up
//! each id it does not know in `{source}/i/{id}`. That look-up makes no table and writes
//! no row there. workerd does keep an empty database file (one 4 KiB page) for every
//! object name called, even one whose code never touches its storage: that is the cost
//! the time bound limits.

use std::collections::BTreeSet;

use hookonce_core::names::bucket_of;
use hookonce_e2e::buckets::{builder, deliver, event, files, tables};
use hookonce_e2e::events::{assert_problem, outcome};
use serde_json::json;

#[test]
fn a_look_up_of_each_new_id_leaves_only_an_empty_database() {
    let mut w = builder(json!({ "buckets": 4 })).start();
    let ids: Vec<String> = (0..10).map(|i| format!("new-{i}")).collect();
    for id in &ids {
        assert_eq!(outcome(&deliver(&w, id)), "applied", "{id}");
        // Known to its bucket now: no second look-up.
        assert_eq!(outcome(&deliver(&w, id)), "duplicate", "{id}");
    }
    // A read of an id nobody sent asks its bucket and then the per-event object.
    assert_problem(&event(&w, "never-sent"), 404, "not-found");
    let mut buckets: BTreeSet<u32> = ids.iter().map(|id| bucket_of(id, 4)).collect();
    buckets.insert(0);
    buckets.insert(bucket_of("never-sent", 4));

    w.kill9();
    let (with_tables, empty): (Vec<_>, Vec<_>) =
        files(&w).into_iter().partition(|f| !tables(f).is_empty());
    assert_eq!(with_tables.len(), buckets.len(), "{with_tables:?}");
    // One per id looked up (ten delivered, one read), each without a table or a row.
    assert_eq!(empty.len(), ids.len() + 1, "{empty:?}");
    for f in &empty {
        assert_eq!(std::fs::metadata(f).unwrap().len(), 4096, "{}", f.display());
    }
}
