//! `hookonce listen` as a source's `forward.url`: hookonce forwards an applied event to
//! it, and it verifies the Standard Webhooks signature with HOOKONCE_FORWARD_SECRET and
//! shows the event id as the Idempotency-Key.

mod common;

use std::time::Duration;

use common::{listen_address, Running};
use hookonce_e2e::origin;
use serde_json::{json, Value};

#[test]
fn a_forwarded_event_arrives_verified_with_its_idempotency_key() {
    let secret = hookonce_e2e::dev_var("HOOKONCE_FORWARD_SECRET");
    let listen = Running::start(&["listen", "--port", "0", "--secret", &secret, "--json"]);
    let url = listen_address(&listen);
    let w = origin::worker(
        json!({ "url": url, "mode": "async", "schedule_secs": [1], "window_secs": 10 }),
    );

    let (r, body) = origin::deliver(&w, "evt_listen_1", "ent_listen");
    assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");

    let got: Value = listen.wait_stdout(Duration::from_secs(30), |line| {
        let v: Value = serde_json::from_str(line).ok()?;
        (v["idempotency_key"] == "evt_listen_1").then_some(v)
    });
    assert_eq!(got["signature"], "verified", "{got}");
    assert_eq!(got["webhook_id"], "evt_listen_1");
    assert_eq!(got["source"], origin::SOURCE);
    assert_eq!(got["attempt"], "1");
    assert_eq!(got["seen_before"], false);
    assert_eq!(got["type"], "item.noticed");
    assert_eq!(
        got["event"],
        serde_json::from_slice::<Value>(&body).unwrap()
    );

    // listen answered 200, so hookonce marks the row delivered.
    origin::wait_outbox(&w, "ent_listen", Duration::from_secs(15), |rows| {
        rows.len() == 1 && rows[0]["status"] == "delivered"
    });
}
