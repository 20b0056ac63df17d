//! A snapshot whose `created_at` is a valid i64 beyond 2^53 (e.g. i64::MAX unix seconds)
//! is either refused up front or stored so that it reads back: the entity must keep
//! working. Found by the hostile-inputs suite: the version is stored, then read back through
//! a JavaScript number, which cannot hold it, so every later event of that entity gets 503
//! and the read API 500, forever.

use hookonce_e2e::events::{at, cardholder_created, cockpit_secret};
use hookonce_e2e::workerd::Workerd;
use hookonce_e2e::{standard_webhooks_headers, unix_now};
use serde_json::json;

#[test]
fn a_created_at_beyond_2_pow_53_leaves_the_entity_usable() {
    let w = Workerd::builder().start();
    let deliver = |id: &str, created_at: serde_json::Value| {
        let mut ev = cardholder_created(id, "ch_far_future", &at(0), "Ada");
        ev["created_at"] = created_at;
        let body = ev.to_string();
        let headers = standard_webhooks_headers(&cockpit_secret(), id, unix_now(), body.as_bytes());
        w.post("/webhooks/cockpit", &headers, body)
    };
    let first = deliver("evt_far_1", json!(i64::MAX));
    assert!(first.status < 500, "{first}");
    let next = deliver("evt_far_2", json!(at(5)));
    assert!(next.status < 500, "the entity is poisoned: {next}");
    let auth = [("authorization", "Bearer dev-admin-token")];
    let read = w.request("GET", "/entities/cockpit/ch_far_future", &auth, None);
    assert!(read.status < 500, "{read}");
}
