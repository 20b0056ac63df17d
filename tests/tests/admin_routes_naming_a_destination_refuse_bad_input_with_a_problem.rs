//! The admin routes that name a destination answer bad input with a problem+json: an
//! unknown destination is a 404 `unknown-destination` (for one entity or across a source), a
//! `since` that is not unix seconds or an empty entity a 400 `bad-request` naming the parameter, a redelivery to a destination
//! that does not take the event's type a 409 `not-sendable`, and one of an event the entity
//! never saw a 404.

use hookonce_e2e::events::{admin_post, assert_problem};
use hookonce_e2e::origin::{deliver, worker_to, Origin};
use serde_json::json;

#[test]
fn each_bad_request_gets_its_problem() {
    let o = Origin::start();
    let w = worker_to(json!({
        "billing": { "url": o.url("/hooks"), "types": ["invoice.*"] },
        "audit": { "url": o.url("/hooks") },
    }));
    let (r, _) = deliver(&w, "evt_bad_1", "ent_bad");
    assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");

    for path in [
        "/admin/outbox/acme/ent_bad/retry?destination=nope",
        "/admin/redeliver/acme/evt_bad_1?entity=ent_bad&destination=nope",
        "/admin/backfill/acme/nope?entity=ent_bad&since=0",
        "/admin/backfill/acme/nope?since=0",
        "/admin/requeue/acme?destination=nope&dry_run=true",
    ] {
        let detail = assert_problem(&admin_post(&w, path), 404, "unknown-destination");
        assert_eq!(
            detail, "source acme has no destination named nope (it has audit, billing)",
            "{path}"
        );
    }
    for since in ["2h", "-1", "", "1.5"] {
        let path = format!("/admin/backfill/acme/audit?entity=ent_bad&since={since}");
        let detail = assert_problem(&admin_post(&w, &path), 400, "bad-request");
        assert!(detail.starts_with("since: "), "{since:?}: {detail}");
    }
    let detail = assert_problem(
        &admin_post(&w, "/admin/backfill/acme/audit?entity=&since=0"),
        400,
        "bad-request",
    );
    assert_eq!(detail, "entity: required");

    let path = "/admin/redeliver/acme/evt_bad_1?entity=ent_bad&destination=billing";
    let detail = assert_problem(&admin_post(&w, path), 409, "not-sendable");
    assert!(detail.contains("item.noticed"), "{detail}");
    let path = "/admin/redeliver/acme/evt_never?entity=ent_bad";
    assert_problem(&admin_post(&w, path), 404, "not-found");
}
