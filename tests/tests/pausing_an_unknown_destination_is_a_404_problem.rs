//! A destination the configuration does not have cannot be paused, resumed or read: a
//! `404` problem that says what the source has (`unknown-destination`), or `unknown-source`
//! for a source that does not exist.

use hookonce_e2e::destinations::{destination, forwarding_sources};
use hookonce_e2e::events::{assert_problem, COCKPIT};
use hookonce_e2e::workerd::Workerd;

#[test]
fn an_unknown_destination_or_source_is_a_404_problem() {
    // `quiet` is cockpit without a forward: it has no destination at all.
    let mut sources = forwarding_sources();
    let mut quiet = sources[COCKPIT].clone();
    quiet.as_object_mut().unwrap().remove("forward");
    sources["quiet"] = quiet;
    let w = Workerd::builder().sources(sources).start();

    for op in ["pause", "resume", "status"] {
        let r = destination(&w, COCKPIT, "billing", op);
        let detail = assert_problem(&r, 404, "unknown-destination");
        assert!(
            detail.contains("billing") && detail.contains("default"),
            "{r}"
        );
        let r = destination(&w, "quiet", "default", op);
        let detail = assert_problem(&r, 404, "unknown-destination");
        assert!(detail.contains("forwards nowhere"), "{r}");
        let r = destination(&w, "nosuch", "default", op);
        assert_problem(&r, 404, "unknown-source");
    }
    // The known one is there all along.
    assert_eq!(destination(&w, COCKPIT, "default", "status").status, 200);
}
