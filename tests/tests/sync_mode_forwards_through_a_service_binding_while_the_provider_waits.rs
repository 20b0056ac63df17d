//! `forward.service` with `mode = "sync"`: the peer Worker is called through the binding
//! while the provider waits; its 2xx commits the event, its 500 releases the claim (502) so
//! the provider's retry goes through, and so does a peer that does not answer within
//! `timeout_secs` (the timeout holds through the binding).

use std::time::{Duration, Instant};

use hookonce_e2e::origin::{self, Origin, Reply};
use hookonce_e2e::peers::{self, SERVICE};
use serde_json::json;

#[test]
fn the_peers_answer_is_the_providers_answer() {
    let o = Origin::start();
    let w = peers::worker(
        &o,
        json!({ "service": SERVICE, "mode": "sync", "timeout_secs": 2, "lease_secs": 5 }),
    );

    let (r, _) = origin::deliver(&w, "evt_sync_svc_ok", "svc_sync");
    assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");
    assert_eq!(o.keys(), ["evt_sync_svc_ok"], "called before the answer");

    o.script([Reply::Status(500)]);
    let (r, body) = origin::deliver(&w, "evt_sync_svc_fail", "svc_sync");
    assert_eq!(r.status, 502, "{r}");
    assert_eq!(r.header("hookonce-outcome"), Some("released"), "{r}");
    let r = origin::deliver_body(&w, "evt_sync_svc_fail", &body);
    assert_eq!(r.header("hookonce-outcome"), Some("applied"), "{r}");

    let reqs = o.requests();
    let keys: Vec<&str> = reqs.iter().map(|r| r.must("idempotency-key")).collect();
    assert_eq!(
        keys,
        ["evt_sync_svc_ok", "evt_sync_svc_fail", "evt_sync_svc_fail"]
    );
    assert!(reqs
        .iter()
        .all(|r| r.header("x-peer-via") == Some("service")));
    let rows = origin::outbox(&w, "svc_sync");
    assert!(rows.is_empty(), "sync mode writes no outbox row: {rows:#?}");

    o.script([Reply::Hang(Duration::from_secs(6))]);
    let started = Instant::now();
    let (r, _) = origin::deliver(&w, "evt_sync_svc_slow", "svc_sync");
    assert_eq!(r.status, 502, "{r}");
    assert!(
        r.json()["detail"].as_str().unwrap().contains("timeout"),
        "{r}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "given up after timeout_secs, not after the peer's answer: {:?}",
        started.elapsed()
    );
}
