//! `forward.service` or `forward.queue` naming a binding the Worker lacks, or one of the
//! wrong kind, is a configuration error naming the field (to the admin and in the log):
//! every request gets the 500 `configuration` problem, and nothing is accepted, signed or
//! not.

use hookonce_e2e::events::assert_problem;
use hookonce_e2e::origin::{self, Origin};
use hookonce_e2e::peers::{self, SERVICE};
use serde_json::json;

#[test]
fn a_missing_or_wrong_binding_refuses_every_request_naming_the_field() {
    let o = Origin::start();
    for (forward, field, name) in [
        (json!({ "service": "NOPE" }), "acme.forward.service", "NOPE"),
        (json!({ "queue": "NOPE" }), "acme.forward.queue", "NOPE"),
        // PEER is a service binding, not a queue.
        (json!({ "queue": SERVICE }), "acme.forward.queue", SERVICE),
    ] {
        let w = peers::worker(&o, forward);
        origin::assert_accepts_nothing(&w, &[format!("{field}: ").as_str(), name]);
        let r = origin::entity(&w, "ent_cfg");
        let detail = assert_problem(&r, 500, "configuration");
        assert!(
            detail.starts_with(&format!("{field}: ")) && detail.contains(name),
            "{r}"
        );
    }
    assert!(o.requests().is_empty(), "nothing was forwarded");
}
