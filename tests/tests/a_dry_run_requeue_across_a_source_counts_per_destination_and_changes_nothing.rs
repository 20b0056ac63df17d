//! `POST /admin/requeue/{source}?dry_run=true` answers how many dead letters would go back,
//! per destination, across the source's entities, and changes nothing: every row stays
//! dead, nothing is sent, the dead-letter list keeps them all.

use std::time::Duration;

use hookonce_e2e::events::admin_pages;
use hookonce_e2e::origin;
use serde_json::json;

#[test]
fn a_dry_run_counts_every_destinations_letters_and_sends_nothing() {
    let (w, billing, audit) = origin::dead_at_billing_and_audit(|w| {
        origin::deliver_applied(
            w,
            &[
                ("evt_dry_1", "ent_dry_a"),
                ("evt_dry_2", "ent_dry_b"),
                ("evt_dry_3", "ent_dry_b"),
                ("evt_dry_4", "ent_dry_c"),
            ],
        )
    });
    let sent_before = (billing.requests().len(), audit.requests().len());

    let pages = admin_pages(&w, "/admin/requeue/acme?dry_run=true&limit=2");
    assert_eq!(pages.len(), 2, "{pages:#?}");
    let first = &pages[0];
    assert_eq!(first["dry_run"], true);
    assert_eq!(first["entities"], 2);
    assert_eq!(first["requeued"], 0);
    // ent_dry_a and ent_dry_b: three events, each dead at both destinations.
    assert_eq!(first["matched"], 6, "{first}");
    assert_eq!(first["destinations"], json!({ "audit": 3, "billing": 3 }));
    assert!(first["next"].is_string());
    let last = &pages[1];
    assert_eq!(
        (&last["entities"], &last["matched"], &last["next"]),
        (&json!(1), &json!(2), &json!(null))
    );

    let only = admin_pages(&w, "/admin/requeue/acme?dry_run=true&destination=billing");
    assert_eq!(only.len(), 1);
    assert_eq!(
        only[0]["destinations"],
        json!({ "billing": 4 }),
        "{only:#?}"
    );

    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        (billing.requests().len(), audit.requests().len()),
        sent_before,
        "nothing was sent"
    );
    for entity in ["ent_dry_a", "ent_dry_b", "ent_dry_c"] {
        let rows = origin::outbox(&w, entity);
        assert!(rows.iter().all(|r| r["status"] == "dead"), "{rows:#?}");
    }
    assert_eq!(
        origin::wait_dead(&w, |_| true).len(),
        8,
        "the list keeps them all"
    );
}
