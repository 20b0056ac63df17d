//! An operator pauses a forwarding source's `default` destination through the admin API:
//! its status says `paused` (across a restart of the runtime, from the gate object's row),
//! a second pause changes nothing, and a resume leaves it `closed`. Without the admin
//! token nothing is changed.

use hookonce_e2e::destinations::{destination, forwarding_worker};
use hookonce_e2e::events::COCKPIT;

fn state(r: &hookonce_e2e::Resp) -> (String, serde_json::Value) {
    assert_eq!(r.status, 200, "{r}");
    assert_eq!(r.header("content-type"), Some("application/json"), "{r}");
    let doc = r.json();
    (doc["state"].as_str().unwrap_or_default().to_owned(), doc)
}

#[test]
fn a_paused_destination_says_paused_until_resumed() {
    let mut w = forwarding_worker();
    let (s, doc) = state(&destination(&w, COCKPIT, "default", "status"));
    assert_eq!(s, "closed", "{doc}");
    assert_eq!(doc["paused_since"], serde_json::Value::Null, "{doc}");
    assert_eq!(doc["limit"], 10, "the default max_in_flight: {doc}");

    let unauthenticated = w.post(
        &format!("/sources/{COCKPIT}/destinations/default/pause"),
        &[] as &[(&str, &str)],
        "",
    );
    assert_eq!(unauthenticated.status, 401, "{unauthenticated}");

    let (s, doc) = state(&destination(&w, COCKPIT, "default", "pause"));
    assert_eq!(
        (s.as_str(), &doc["changed"]),
        ("paused", &true.into()),
        "{doc}"
    );
    let paused_since = doc["paused_since"].as_i64().expect("paused_since");
    assert!(paused_since >= hookonce_e2e::unix_now() - 60, "{doc}");
    let (s, doc) = state(&destination(&w, COCKPIT, "default", "pause"));
    assert_eq!(
        (s.as_str(), &doc["changed"]),
        ("paused", &false.into()),
        "{doc}"
    );

    // The pause is the gate object's row, not its memory.
    w.kill9();
    w.start_again();
    let (s, doc) = state(&destination(&w, COCKPIT, "default", "status"));
    assert_eq!(s, "paused", "after a restart: {doc}");
    assert_eq!(doc["paused_since"], paused_since, "{doc}");
    assert_eq!(doc.get("changed"), None, "a status changes nothing: {doc}");

    let (s, doc) = state(&destination(&w, COCKPIT, "default", "resume"));
    assert_eq!(
        (s.as_str(), &doc["changed"]),
        ("closed", &true.into()),
        "{doc}"
    );
    let (s, doc) = state(&destination(&w, COCKPIT, "default", "status"));
    assert_eq!(
        (s.as_str(), &doc["circuit"]),
        ("closed", &"closed".into()),
        "{doc}"
    );
    assert_eq!(doc["paused_since"], serde_json::Value::Null, "{doc}");
}
