//! Structured logs: one JSON line per decision (source, event id, entity, outcome, rows
//! written, duration), per forwarding attempt (event id, attempt, status, next attempt) and
//! per rejected delivery (reason), never with a secret, a signature or a body; and
//! `HOOKONCE_LOG=error` keeps the info lines out.

use std::time::Duration;

use hookonce_e2e::origin::{self, Origin};
use hookonce_e2e::{dev_var, events, unix_now, Worker};
use serde_json::{json, Value};

#[test]
fn each_decision_attempt_and_rejection_is_one_json_line_without_secrets() {
    let o = Origin::start();
    let w = origin::worker(json!({ "url": o.url("/hooks") }));
    let (r, body) = origin::deliver(&w, "evt_logged", "ent_logged");
    assert_eq!(r.status, 200, "{r}");
    let bad = origin::deliver_body(&w, "evt_logged", b"{\"id\":\"evt_logged\"}");
    assert_eq!(bad.status, 400, "{bad}");
    let headers = hookonce_e2e::standard_webhooks_headers(
        "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "evt_forged",
        unix_now(),
        &body,
    );
    assert_eq!(w.post("/webhooks/acme", &headers, &body).status, 401);

    let recs = w.wait_log_records(|r| {
        r.iter().any(|v| v["msg"] == "attempt")
            && r.iter().filter(|v| v["msg"] == "rejected").count() == 2
    });
    let decision = recs.iter().find(|v| v["msg"] == "decision").unwrap();
    assert_eq!(decision["source"], "acme");
    assert_eq!(decision["event_id"], "evt_logged");
    assert_eq!(decision["entity"], "ent_logged");
    assert_eq!(decision["outcome"], "applied");
    assert!(decision["rows_written"].as_u64().unwrap() > 0, "{decision}");
    assert!(decision["duration_ms"].is_u64(), "{decision}");
    let attempt = recs.iter().find(|v| v["msg"] == "attempt").unwrap();
    assert_eq!(attempt["event_id"], "evt_logged");
    assert_eq!(attempt["attempt"], 1);
    assert_eq!(attempt["status"], "delivered");
    assert_eq!(attempt["next_attempt_at"], Value::Null);
    let reasons: Vec<&str> = recs
        .iter()
        .filter(|v| v["msg"] == "rejected")
        .map(|v| v["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons.len(), 2, "{recs:#?}");
    assert!(recs
        .iter()
        .filter(|v| v["msg"] == "rejected")
        .all(|v| v["source"] == "acme"));

    let logs = w.logs();
    let signature = &headers
        .iter()
        .find(|(k, _)| k == "webhook-signature")
        .unwrap()
        .1;
    for secret in [
        dev_var(origin::SECRET_BINDING),
        dev_var("HOOKONCE_FORWARD_SECRET"),
        events::ADMIN_TOKEN.to_owned(),
        signature.clone(),
        "item.noticed evt_logged".to_owned(), // from the body
    ] {
        assert!(!logs.contains(&secret), "the logs hold {secret}");
    }
}

#[test]
fn hookonce_log_error_keeps_info_lines_out() {
    let w = Worker::builder().var("HOOKONCE_LOG", "error").start();
    let ev = events::cardholder_created(&events::new_id("evt"), "ch_quiet", &events::at(0), "Q");
    assert_eq!(events::outcome(&events::deliver(&w, &ev)), "applied");
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        w.log_records().iter().all(|v| v["level"] == "error"),
        "{}",
        w.logs()
    );
}
