//! `GET /sources/{source}/dead`: the dead letters of all the source's entities, each with a
//! link to its entity and to its requeue; a requeued entity leaves the list, and its rows
//! are delivered.

use std::time::Duration;

use hookonce_e2e::events::{admin_get, admin_post};
use hookonce_e2e::origin::{self, Origin, Reply};
use serde_json::json;

#[test]
fn dead_letters_across_entities_are_listed_until_requeued() {
    let o = Origin::start();
    let w = origin::worker(json!({ "url": o.url("/hooks") }));
    o.set_default(Reply::Gone);
    origin::deliver(&w, "evt_dead_a", "ent_dead_a");
    origin::deliver(&w, "evt_dead_b", "ent_dead_b");
    let rows = origin::wait_dead(&w, |rows| rows.len() == 2);
    let mut entities: Vec<&str> = rows.iter().map(|r| r["entity"].as_str().unwrap()).collect();
    entities.sort_unstable();
    assert_eq!(entities, ["ent_dead_a", "ent_dead_b"]);
    for r in &rows {
        let entity = r["entity"].as_str().unwrap();
        assert_eq!(r["entity_url"], format!("/entities/acme/{entity}"));
        assert_eq!(r["retry_url"], format!("/admin/outbox/acme/{entity}/retry"));
        assert_eq!(r["attempts"], 1);
        assert!(r["last_result"].as_str().unwrap().contains("410"), "{r}");
        // The link leads to the entity, whose outbox shows the dead row.
        let e = admin_get(&w, r["entity_url"].as_str().unwrap());
        assert_eq!(e.json()["outbox"][0]["status"], "dead", "{e}");
    }

    o.set_default(Reply::OK);
    let r = admin_post(&w, "/admin/outbox/acme/ent_dead_a/retry");
    assert_eq!(r.json()["requeued"], 1, "{r}");
    let rows = origin::wait_dead(&w, |rows| rows.len() == 1);
    assert_eq!(rows[0]["entity"], "ent_dead_b");
    origin::wait_outbox(&w, "ent_dead_a", Duration::from_secs(10), |rows| {
        rows[0]["status"] == "delivered"
    });
}
