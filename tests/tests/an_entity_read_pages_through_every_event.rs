//! `GET /entities/{source}/{entity}?before=CURSOR`: 20 events a page, newest first; the
//! cursor reaches every event exactly once; a bad cursor is a 400 problem.

use std::collections::BTreeSet;

use hookonce_e2e::events::*;
use hookonce_e2e::shared_worker as worker;

#[test]
fn the_entity_read_pages_through_all_its_events() {
    let w = worker();
    let ids: Vec<String> = (0..27).map(|_| new_id("evt")).collect();
    for (i, id) in ids.iter().enumerate() {
        let ev = payment_captured(id, "acct_pages", &at(i as u32), 1);
        assert_eq!(outcome(&deliver(w, &ev)), "applied");
    }
    let mut seen = Vec::new();
    let mut path = "/entities/cockpit/acct_pages".to_owned();
    loop {
        let page = admin_get(w, &path);
        assert_eq!(page.status, 200, "{page}");
        let page = page.json();
        let events = page["events"].as_array().unwrap();
        assert!(events.len() <= 20, "{page}");
        assert_eq!(page["ledger"]["total"], 27, "the state is on every page");
        seen.extend(
            events
                .iter()
                .map(|e| e["event_id"].as_str().unwrap().to_owned()),
        );
        match page["cursor"].as_str() {
            Some(c) => path = format!("/entities/cockpit/acct_pages?before={c}"),
            None => break,
        }
    }
    assert_eq!(seen.len(), 27, "{seen:?}");
    let unique: BTreeSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), 27, "no event twice");
    assert_eq!(unique, ids.iter().collect());
    let first = entity(w, "acct_pages").json();
    assert_eq!(first["ledger"]["recent"].as_array().unwrap().len(), 20);

    let detail = assert_problem(
        &admin_get(w, "/entities/cockpit/acct_pages?before=zzz"),
        400,
        "bad-request",
    );
    assert!(detail.contains("cursor"), "{detail}");
}
