//! Published messages are signed with `HOOKONCE_PUBLISH_SECRET`, forwarded provider events
//! with `HOOKONCE_FORWARD_SECRET`. Checked with the published `standardwebhooks` Python
//! package: each verifies with its own key and is rejected with the other, so a publish
//! client cannot make a message that the application takes for a forwarded event.

use std::time::Duration;

use hookonce_e2e::origin::{self, Origin, Recorded};
use hookonce_e2e::{dev_var, oracle, publish};
use serde_json::json;

fn standardwebhooks_says(secret: &str, r: &Recorded) -> String {
    let headers: serde_json::Map<String, serde_json::Value> =
        ["webhook-id", "webhook-timestamp", "webhook-signature"]
            .iter()
            .map(|h| (h.to_string(), json!(r.must(h))))
            .collect();
    oracle::standardwebhooks_says(secret, &serde_json::Value::Object(headers), &r.body)
}

#[test]
fn a_published_message_and_a_forwarded_event_each_verify_only_with_their_own_key() {
    let o = Origin::start();
    let w = origin::worker(json!({ "url": o.url("/hooks"), "schedule_secs": [1] }));
    let (r, _) = origin::deliver(&w, "evt_keys_1", "ent_keys_1");
    assert_eq!(r.status, 200, "{r}");
    // What a publish client would send to pass a message off as a provider's event.
    let forged = json!({ "id": "evt_forged", "type": "payment.captured",
                         "data": { "object": { "id": "ent_keys_1", "amount": 100 } } });
    let body = publish::body(&o.url("/hooks"), "payment.captured", forged);
    let p = publish::publish(&w, "forge-attempt-1", &body);
    assert_eq!(p.status, 202, "{p}");

    let reqs = o.wait_requests(2, Duration::from_secs(20));
    let forward = dev_var("HOOKONCE_FORWARD_SECRET");
    let publish = dev_var("HOOKONCE_PUBLISH_SECRET");
    assert_ne!(forward, publish);
    let (forwarded, published): (Vec<&Recorded>, Vec<&Recorded>) = reqs
        .iter()
        .partition(|r| r.must("webhook-id") == "evt_keys_1");
    assert_eq!((forwarded.len(), published.len()), (1, 1), "{reqs:?}");
    assert_eq!(standardwebhooks_says(&forward, forwarded[0]), "verified");
    assert!(
        standardwebhooks_says(&publish, forwarded[0]).starts_with("rejected"),
        "a forwarded event must not verify with the publish key"
    );
    assert_eq!(standardwebhooks_says(&publish, published[0]), "verified");
    assert!(
        standardwebhooks_says(&forward, published[0]).starts_with("rejected"),
        "a published message must not verify with the forwarding key"
    );
}
