//! `POST /admin/requeue/{source}` refuses a time range it cannot read, or one that holds
//! nothing (`since` after `until`), with a 400 `bad-request` problem naming the parameter,
//! before any entity is called: a dead letter that would match stays dead.

use hookonce_e2e::events::{admin_post, assert_problem};
use hookonce_e2e::origin::{self, deliver, worker_to, Origin, Reply};
use serde_json::json;

#[test]
fn each_bad_range_is_refused_and_changes_nothing() {
    let o = Origin::start();
    o.set_default(Reply::Gone);
    let w = worker_to(json!({ "billing": { "url": o.url("/hooks") } }));
    let (r, _) = deliver(&w, "evt_range_1", "ent_range");
    assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");
    origin::wait_dead(&w, |dead| dead.len() == 1);

    for (query, starts) in [
        ("since=200&until=100", "since: after until"),
        ("since=2h", "since: expected unix seconds"),
        ("until=yesterday", "until: expected unix seconds"),
        ("until=-1", "until: expected unix seconds"),
        ("since=9007199254740992", "since: expected unix seconds"),
        ("type=inv*", "type: "),
        ("dry_run=maybe", "dry_run: expected true or false"),
        ("limit=101", "limit: expected a whole number from 1 to 100"),
        ("cursor=not-a-cursor", "cursor: not a cursor"),
    ] {
        let r = admin_post(&w, &format!("/admin/requeue/acme?{query}"));
        let detail = assert_problem(&r, 400, "bad-request");
        assert!(detail.starts_with(starts), "{query}: {detail}");
    }
    let rows = origin::outbox(&w, "ent_range");
    assert_eq!(rows[0]["status"], "dead", "nothing was requeued: {rows:#?}");
    assert_eq!(o.requests().len(), 1, "nothing was sent again");
}
