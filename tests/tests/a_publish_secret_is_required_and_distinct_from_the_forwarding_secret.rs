//! With publish tokens set, the publish API needs `HOOKONCE_PUBLISH_SECRET`, and it must
//! not be the forwarding secret: otherwise the configuration fails, and the answer to the
//! admin token names the variable.

use hookonce_e2e::events::{admin_get, assert_problem};
use hookonce_e2e::{dev_var, publish, Worker};
use serde_json::json;

#[test]
fn a_missing_or_shared_publish_secret_fails_the_configuration() {
    let shared = dev_var("HOOKONCE_FORWARD_SECRET");
    for w in [
        Worker::builder()
            .without_secret("HOOKONCE_PUBLISH_SECRET")
            .start(),
        Worker::builder()
            .secret("HOOKONCE_PUBLISH_SECRET", &shared)
            .start(),
    ] {
        let body = publish::body("https://hooks.example.com/in", "t", json!({}));
        let r = publish::publish(&w, "cfg-1", &body);
        assert_problem(&r, 500, "configuration");
        // The detail is for the operator: the admin token's answer names the variable.
        let r = admin_get(&w, "/entities/cockpit/x");
        let detail = assert_problem(&r, 500, "configuration");
        assert!(detail.contains("HOOKONCE_PUBLISH_SECRET"), "{r}");
    }
}
