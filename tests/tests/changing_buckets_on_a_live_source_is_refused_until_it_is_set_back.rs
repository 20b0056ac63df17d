//! A source's `buckets` decides which bucket holds an id: another count would send a
//! recorded id to another bucket, which would apply it again. Each bucket records the
//! count it was made with (new ones ask bucket 0), so after a change every delivery about
//! no entity is refused with a configuration problem naming the field, and nothing is
//! recorded, until the count is set back; then every recorded id is still a duplicate.

use hookonce_e2e::buckets::{builder, deliver};
use hookonce_e2e::events::{assert_problem, outcome};
use serde_json::json;

#[test]
fn a_new_count_is_refused_and_the_old_one_keeps_every_id_a_duplicate() {
    let dir = tempfile::tempdir().unwrap();
    let ids: Vec<String> = (0..16).map(|i| format!("id-{i}")).collect();
    let mut w = builder(json!({ "buckets": 4 })).start_in(dir.path());
    for id in &ids {
        assert_eq!(outcome(&deliver(&w, id)), "applied", "{id}");
    }
    w.kill9();
    drop(w);

    for changed in [8, 3] {
        let mut w = builder(json!({ "buckets": changed })).start_in(dir.path());
        for id in ids.iter().map(String::as_str).chain(["fresh"]) {
            let detail = assert_problem(&deliver(&w, id), 500, "configuration");
            assert!(
                detail.contains(&format!("github.buckets is {changed}"))
                    && detail.contains("set buckets back to 4"),
                "{detail}"
            );
        }
        w.kill9();
    }

    let w = builder(json!({ "buckets": 4 })).start_in(dir.path());
    for id in &ids {
        assert_eq!(outcome(&deliver(&w, id)), "duplicate", "{id}");
    }
    assert_eq!(outcome(&deliver(&w, "fresh")), "applied");
}
