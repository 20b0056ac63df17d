//! A new event is applied: its state, version and record; events about one object with
//! different ids are different events (deduplication is never on the object id).

use hookonce_e2e::events::*;
use hookonce_e2e::shared_worker as worker;

#[test]
fn a_new_event_is_applied() {
    let w = worker();
    let id = new_id("evt");
    let r = deliver(w, &cardholder_created(&id, "ch_applied", &at(0), "Ada"));
    assert_eq!(outcome(&r), "applied");
    let body = r.json();
    assert_eq!(body["event_id"], id.as_str());
    assert_eq!(body["entity"], "ch_applied");
    assert!(body["rows_written"].as_u64().unwrap() >= 1, "{r}");

    let e = entity(w, "ch_applied").json();
    assert_eq!(e["state"]["name"], "Ada");
    assert_eq!(e["version"]["event_id"], id.as_str());
    assert_eq!(e["events"][0]["event_id"], id.as_str());
    assert_eq!(e["events"][0]["outcome"], "applied");
}

#[test]
fn events_about_the_same_object_with_different_ids_both_apply() {
    let w = worker();
    let first = cardholder_created(&new_id("evt"), "ch_same_obj", &at(0), "One");
    let second = cardholder_updated(&new_id("evt"), "ch_same_obj", &at(30), "Two");
    assert_eq!(outcome(&deliver(w, &first)), "applied");
    assert_eq!(outcome(&deliver(w, &second)), "applied");
    let e = entity(w, "ch_same_obj").json();
    assert_eq!(e["state"]["name"], "Two");
    let ids: Vec<&str> = e["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["event_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 2, "{e}");
    assert!(ids.contains(&first["id"].as_str().unwrap()));
    assert!(ids.contains(&second["id"].as_str().unwrap()));
}
