//! Every forwarded request verifies with the published `standardwebhooks` Python package
//! (PyPI; `scripts/bootstrap.sh` installs it), given `HOOKONCE_FORWARD_SECRET`, the
//! request's headers and its body; a tampered body does not.

use std::time::Duration;

use hookonce_e2e::oracle;
use hookonce_e2e::origin::{self, Origin, Recorded};
use serde_json::json;

/// What the published implementation says about `r` (body possibly replaced).
fn standardwebhooks_says(secret: &str, r: &Recorded, body: &[u8]) -> String {
    let headers: serde_json::Map<String, serde_json::Value> =
        ["webhook-id", "webhook-timestamp", "webhook-signature"]
            .iter()
            .map(|h| (h.to_string(), json!(r.must(h))))
            .collect();
    oracle::standardwebhooks_says(secret, &serde_json::Value::Object(headers), body)
}

#[test]
fn forwarded_requests_verify_with_the_published_implementation() {
    let o = Origin::start();
    let w =
        origin::worker(json!({ "url": o.url("/hooks"), "schedule_secs": [1], "window_secs": 10 }));
    let ids: Vec<String> = (0..3).map(|i| format!("evt_sig_{i}")).collect();
    for (i, id) in ids.iter().enumerate() {
        let (r, _) = origin::deliver(&w, id, &format!("ent_sig_{i}"));
        assert_eq!(r.status, 200, "{r}");
    }
    let reqs = o.wait_requests(ids.len(), Duration::from_secs(20));

    let secret = hookonce_e2e::dev_var("HOOKONCE_FORWARD_SECRET");
    for r in &reqs {
        assert_eq!(
            standardwebhooks_says(&secret, r, &r.body),
            "verified",
            "{r:?}"
        );
        let mut tampered = r.body.clone();
        tampered.push(b' ');
        assert!(
            standardwebhooks_says(&secret, r, &tampered).starts_with("rejected"),
            "a tampered body must not verify"
        );
        let other = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        assert!(
            standardwebhooks_says(other, r, &r.body).starts_with("rejected"),
            "another secret must not verify"
        );
    }
}
