//! A source lists several secret bindings (rotation: the new one first). One of them unset
//! while another is set is not an error (deliveries signed with the set one verify), but it
//! is what a mistyped name looks like: it is logged as a warning naming the source and the
//! binding, once per isolate, never with a secret's value (issue 48).

use hookonce_e2e::events::*;
use hookonce_e2e::{dev_var, Worker};
use serde_json::Value;

#[test]
fn a_missing_secret_binding_among_several_is_logged_once_as_a_warning() {
    // A rotation whose new secret went in under another name: COCKPIT_SECRET is unset, the
    // old secret is still set as COCKPIT_SECRET_PREVIOUS.
    let old = cockpit_secret();
    let w = Worker::builder()
        .without_secret("COCKPIT_SECRET")
        .secret("COCKPIT_SECRET_PREVIOUS", &old)
        .start();
    let deliveries = 5;
    for n in 0..deliveries {
        let ev = cardholder_created(&new_id("evt"), "ch_rotation", &at(n), "Ada");
        let r = deliver_with(&w, &old, &ev);
        assert_eq!(outcome(&r), "applied", "{r}");
    }

    // Every delivery's decision record is in the log file, so its warnings are too.
    let records = w.wait_log_records(|r| {
        r.iter().filter(|v| v["msg"] == "decision").count() >= deliveries as usize
    });
    let logs = w.logs();
    let warnings: Vec<&Value> = records
        .iter()
        .filter(|v| v["msg"] == "secret_binding_missing")
        .collect();
    assert!(
        !warnings.is_empty(),
        "no secret_binding_missing warning in the logs:\n{logs}"
    );
    for warning in &warnings {
        assert_eq!(warning["level"], "warn", "{warning}");
        assert_eq!(warning["source"], COCKPIT, "{warning}");
        assert_eq!(warning["binding"], "COCKPIT_SECRET", "{warning}");
    }
    assert!(
        warnings.len() < deliveries as usize,
        "logged once per isolate, not per request: {warnings:?}"
    );
    for secret in [old, dev_var("HOOKONCE_ADMIN_TOKEN")] {
        assert!(!logs.contains(&secret), "a secret's value is in the logs");
    }
}
