//! `POST /admin/requeue/{source}?destination=D&type=…&since=T`, paged with `limit` and
//! `cursor`, puts back exactly the dead letters of several entities that match: D's rows of
//! the types the patterns admit that died since T. They are delivered in each entity's
//! order, their attempts starting over; every other dead letter stays dead, in its entity
//! and in the source's dead-letter list.

use std::time::Duration;

use hookonce_e2e::events::admin_pages;
use hookonce_e2e::origin::{self, deliver_body, event_body, Reply};
use hookonce_e2e::unix_now;
use serde_json::json;

#[test]
fn only_the_matching_rows_go_back_and_arrive_in_per_entity_order() {
    let started = unix_now();
    let kinds = [
        "invoice.paid",
        "invoice.upcoming",
        "customer.created",
        "invoice.payment.failed",
    ];
    let (w, billing, audit) = origin::dead_at_billing_and_audit(|w| {
        let mut sent = 0;
        for entity in ["ent_fa", "ent_fb", "ent_fc"] {
            // ent_fc's events are all of a type the filter leaves out.
            for (i, kind) in kinds.iter().enumerate() {
                let kind = if entity == "ent_fc" {
                    "customer.created"
                } else {
                    kind
                };
                let id = format!("evt_{entity}_{i}");
                let body = event_body(&id, kind, entity, started + i as i64);
                let r = deliver_body(w, &id, &body);
                assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");
                sent += 1;
            }
        }
        sent
    });
    let sent = 3 * kinds.len();
    let audit_before = audit.requests().len();

    let since = started - 5;
    let query =
        format!("destination=billing&type=invoice.*,!invoice.upcoming&since={since}&limit=2");
    let pages = admin_pages(&w, &format!("/admin/requeue/acme?{query}"));
    let entities: Vec<u64> = pages
        .iter()
        .map(|p| p["entities"].as_u64().unwrap())
        .collect();
    assert_eq!(entities, [2, 1], "three entities, two a page: {pages:#?}");
    let requeued: u64 = pages.iter().map(|p| p["requeued"].as_u64().unwrap()).sum();
    assert_eq!(requeued, 4, "{pages:#?}");
    assert!(pages
        .iter()
        .all(|p| p["dry_run"] == false && p["failed"] == json!([])));

    let delivered = origin::delivered_keys;
    let reqs = billing.wait_for(Duration::from_secs(15), |reqs| delivered(reqs).len() >= 4);
    let keys = delivered(&reqs);
    let of = |entity: &str| -> Vec<&str> {
        keys.iter()
            .map(String::as_str)
            .filter(|k| k.contains(entity))
            .collect()
    };
    assert_eq!(of("ent_fa"), ["evt_ent_fa_0", "evt_ent_fa_3"], "{keys:?}");
    assert_eq!(of("ent_fb"), ["evt_ent_fb_0", "evt_ent_fb_3"], "{keys:?}");
    assert_eq!(keys.len(), 4, "nothing else went back: {keys:?}");
    for r in reqs.iter().filter(|r| r.reply == Reply::OK) {
        assert_eq!(r.attempt(), 1, "a requeued row starts over: {r:?}");
    }
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        delivered(&billing.requests()).len(),
        4,
        "and nothing later either"
    );
    assert_eq!(
        audit.requests().len(),
        audit_before,
        "audit's letters stayed dead"
    );

    let dead = origin::wait_dead(&w, |dead| dead.len() == 2 * sent - 4);
    assert!(
        !dead.iter().any(|d| d["destination"] == "billing"
            && [
                "evt_ent_fa_0",
                "evt_ent_fa_3",
                "evt_ent_fb_0",
                "evt_ent_fb_3"
            ]
            .contains(&d["event_id"].as_str().unwrap())),
        "the list forgets exactly the letters that went back: {dead:#?}"
    );
    let rows = origin::outbox(&w, "ent_fa");
    let status = |id: &str, d: &str| {
        let row = rows
            .iter()
            .find(|r| r["event_id"] == id && r["destination"] == d);
        row.unwrap()["status"].as_str().unwrap().to_owned()
    };
    assert_eq!(status("evt_ent_fa_0", "billing"), "delivered");
    assert_eq!(status("evt_ent_fa_1", "billing"), "dead");
    assert_eq!(status("evt_ent_fa_3", "audit"), "dead");
}
