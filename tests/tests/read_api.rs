//! The read API: bearer token required; entity and event lookups; 404 for what was never seen.

use hookonce_e2e::events::*;
use hookonce_e2e::shared_worker as worker;

#[test]
fn the_read_api_needs_the_token_and_finds_what_was_delivered() {
    let w = worker();
    let id = new_id("evt");
    let ev = cardholder_created(&id, "ch_read", &at(5), "Ada");
    assert_eq!(outcome(&deliver(w, &ev)), "applied");
    let ent = "/entities/cockpit/ch_read";
    let evt = format!("/events/cockpit/{id}?entity=ch_read");

    // Without a token, with a wrong one, with another scheme.
    for auth in [
        None,
        Some("Bearer wrong-token"),
        Some("Bearer dev-admin-tokenX"),
        Some("Basic ZGV2LWFkbWluLXRva2Vu"),
        Some("dev-admin-token"),
    ] {
        for path in [ent, evt.as_str()] {
            let headers: Vec<(&str, &str)> =
                auth.map(|a| ("authorization", a)).into_iter().collect();
            let r = w.request("GET", path, &headers, None);
            assert_problem(&r, 401, "unauthorized");
            assert!(
                !r.text().contains("dev-admin-token"),
                "leaks the token: {r}"
            );
        }
    }

    let e = entity(w, "ch_read");
    assert_eq!(e.status, 200, "{e}");
    let e = e.json();
    assert_eq!(e["state"], ev["data"]["object"]);
    assert_eq!(e["version"]["event_id"], id.as_str());
    assert_eq!(
        e["version"]["created_at"], 1_791_244_805i64,
        "2026-10-06T00:00:05Z"
    );
    assert!(e["updated_at"].as_i64().is_some(), "{e}");
    assert_eq!(e["ledger"]["total"], 0);
    assert_eq!(e["events"][0]["event_id"], id.as_str());
    assert_eq!(e["events"][0]["type"], "cardholder.created");
    assert_eq!(e["events"][0]["outcome"], "applied");
    assert!(e["outbox"].as_array().unwrap().is_empty(), "{e}");

    let r = admin_get(w, &evt);
    assert_eq!(r.status, 200, "{r}");
    let r = r.json();
    assert_eq!(r["event_id"], id.as_str());
    assert_eq!(r["type"], "cardholder.created");
    assert_eq!(r["outcome"], "applied");
    assert!(r["processed_at"].as_i64().is_some(), "{r}");

    // Never seen: 404.
    assert_problem(&entity(w, "ch_never"), 404, "not-found");
    assert_problem(&event_record(w, "evt_never", "ch_read"), 404, "not-found");
    assert_problem(&event_record(w, &id, "ch_other"), 404, "not-found");
    assert_problem(
        &admin_get(w, "/entities/nope/ch_read"),
        404,
        "unknown-source",
    );
    assert_problem(&admin_get(w, "/nothing/here"), 404, "not-found");
}

#[test]
fn an_event_without_an_entity_is_found_by_its_id_alone() {
    let w = worker();
    let id = new_id("evt");
    let ev = event(
        &id,
        "thing.happened",
        &at(0),
        serde_json::json!({ "kind": "no id" }),
    );
    let r = deliver(w, &ev);
    assert_eq!(outcome(&r), "applied");
    assert_eq!(r.json()["entity"], serde_json::Value::Null, "{r}");

    let r = admin_get(w, &format!("/events/cockpit/{id}"));
    assert_eq!(r.status, 200, "{r}");
    assert_eq!(r.json()["type"], "thing.happened");
    assert_eq!(r.json()["outcome"], "applied");
    assert_eq!(outcome(&deliver(w, &ev)), "duplicate");
}
