//! `POST /admin/outbox/{source}/{entity}/retry?destination=D` puts back only D's dead
//! letters, with their attempts starting over; another destination's stay dead, in the
//! entity and in the source's dead-letter list.

use std::time::Duration;

use hookonce_e2e::events::admin_post;
use hookonce_e2e::origin::{self, deliver, worker_to, Origin, Reply};
use serde_json::json;

#[test]
fn only_the_named_destinations_dead_letters_go_back_in_the_queue() {
    let (billing, audit) = (Origin::start(), Origin::start());
    for o in [&billing, &audit] {
        o.set_default(Reply::Gone);
    }
    let to = |o: &Origin| json!({ "url": o.url("/hooks") });
    let w = worker_to(json!({ "billing": to(&billing), "audit": to(&audit) }));
    let (r, _) = deliver(&w, "evt_rq_1", "ent_rq");
    assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");
    origin::wait_dead(&w, |dead| dead.len() == 2);

    billing.set_default(Reply::OK);
    audit.set_default(Reply::OK);
    let r = admin_post(&w, "/admin/outbox/acme/ent_rq/retry?destination=billing");
    assert_eq!(r.status, 200, "{r}");
    assert_eq!(r.json(), json!({ "requeued": 1, "skipped": [] }), "{r}");

    let rows = origin::wait_outbox(&w, "ent_rq", Duration::from_secs(10), |rows| {
        rows.iter()
            .any(|r| r["destination"] == "billing" && r["status"] == "delivered")
    });
    let audit_row = rows.iter().find(|r| r["destination"] == "audit").unwrap();
    assert_eq!(audit_row["status"], "dead", "{rows:#?}");
    let sent = billing.requests();
    assert_eq!(
        sent.last().unwrap().attempt(),
        1,
        "a requeued row starts over"
    );
    assert!(
        audit.requests().iter().all(|r| r.reply == Reply::Gone),
        "nothing more went to audit"
    );
    let dead = origin::wait_dead(&w, |dead| dead.len() == 1);
    assert_eq!(dead[0]["destination"], "audit", "{dead:#?}");
}
